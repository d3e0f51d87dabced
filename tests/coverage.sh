#!/usr/bin/env bash
# Coverage and the sanitizer lane (issue 14), without a GPU: regime counts in the summary and
# the database, the uncovered warning and --strict-coverage, coverage-guided generation, the
# checks isolated by GR_CHECKS, repro --in-process, a parameter with a default (ari chunk), and
# `sanitize` skipping with exit 3 when compute-sanitizer is missing.
#   tests/coverage.sh GPUREGRESS DB_QUERY
set -u
bin=$1
dbq=$2
source "$(dirname "$0")/expect.sh"
db="$tmp/c.db"

# counts per regime in the summary and the database
expect 0 "selftest/ok" -- "$bin" run --filter selftest/ok --cases 40 --seed 3 --db "$db"
expect 0 "coverage (fuzz cases per regime)" -- "$bin" run --filter selftest/ok --cases 40 --seed 3 --db "$db"
n=$("$dbq" "$db" "SELECT count(*) FROM coverage WHERE variant = 'ok' AND cases > 0 AND run_id = 1")
[ "$n" = 2 ] || { echo "FAIL: coverage rows of selftest/ok: '$n'"; fails=$((fails + 1)); }
total=$("$dbq" "$db" "SELECT sum(cases) FROM coverage WHERE variant = 'ok' AND run_id = 1")
[ "$total" = 40 ] || { echo "FAIL: regime counts of selftest/ok sum to '$total', not 40"; fails=$((fails + 1)); }

# steering: the generator draws n >= 37 rarely below n=0..60 (edges 0, 1, 36, 37, 38); with
# guidance the regime gets its COVERAGE_WANT cases within 10
expect 0 "n >= 37" -- "$bin" fuzz selftest/ok --cases 10 --seed 5 --db "$db" n=0..60
got=$("$dbq" "$db" "SELECT cases FROM coverage WHERE regime = 'n >= 37' ORDER BY run_id DESC LIMIT 1")
[ "${got:-0}" -ge 3 ] || { echo "FAIL: steering reached 'n >= 37' $got times in 10 cases"; fails=$((fails + 1)); }

# the counts travel with their run into another runner's history (gpuregress import)
expect 0 "runs added" -- "$bin" import --db "$tmp/other.db" "$db"
got=$("$dbq" "$tmp/other.db" "SELECT sum(cases) FROM coverage WHERE variant = 'ok'")
want=$("$dbq" "$db" "SELECT sum(cases) FROM coverage WHERE variant = 'ok'")
[ -n "$got" ] && [ "$got" = "$want" ] || { echo "FAIL: imported coverage $got, not $want"; fails=$((fails + 1)); }

# a regime out of reach: a warning, a failure with --strict-coverage
expect 0 "selftest/ok uncovered: 'n >= 37' never reached" -- "$bin" fuzz selftest/ok --cases 20 --db "$db" n=0..36
expect 1 "1 uncovered (strict: the run fails)" -- "$bin" fuzz selftest/ok --cases 20 --strict-coverage --db "$db" n=0..36
expect 0 "regime n >= 37" -- "$bin" list selftest

# GR_CHECKS: each check alone
expect 1 "sum 36: got 38" -- env GR_CHECKS=parity "$bin" repro 'selftest n=40 dist=ones seed=1' --variant wrong
expect 0 "pass" -- env GR_CHECKS=determinism,output,smem "$bin" repro 'selftest n=40 dist=ones seed=1' --variant wrong
expect 1 "two runs differ" -- env GR_CHECKS=output "$bin" repro 'selftest n=40 dist=ones seed=1' --variant unwritten
expect 0 "pass" -- env GR_CHECKS=parity,invariants "$bin" repro 'selftest n=40 dist=ones seed=1' --variant unwritten
expect 2 "unknown check 'bogus'" -- env GR_CHECKS=parity,bogus "$bin" repro 'selftest n=40 dist=ones seed=1' --variant ok

# repro --in-process: several cases in this process
out=$("$bin" repro --in-process --variant ok 'selftest n=3 dist=ones seed=1' 'selftest n=50 dist=random seed=2' 2>&1)
[ "$(grep -c '^ok .*pass' <<<"$out")" = 2 ] || { echo "FAIL: repro --in-process: $out"; fails=$((fails + 1)); }
expect 1 "fail" -- "$bin" repro --in-process --variant wrong 'selftest n=3 dist=ones seed=1' 'selftest n=40 dist=ones seed=1'
expect 2 "quote the case text" -- "$bin" repro 'selftest n=3 dist=ones seed=1' 'selftest n=4 dist=ones seed=1'

# a parameter with a default: older case texts parse, the default is not printed
expect 0 "case: ari n=8 k_a=2 k_b=2 pairs=1 dist=uniform seed=1" -- "$bin" repro 'ari n=8 k_a=2 k_b=2 pairs=1 dist=uniform seed=1' --variant reference
expect 0 "case: ari n=8 k_a=2 k_b=2 pairs=5 dist=uniform chunk=2 seed=1" -- "$bin" repro 'ari n=8 k_a=2 k_b=2 pairs=5 dist=uniform chunk=2 seed=1' --variant reference

# the sanitizer lane: usage, and exit 3 without compute-sanitizer
expect 0 "usage: gpuregress sanitize" -- "$bin" sanitize --help
expect 2 "unknown tool 'leakcheck'" -- "$bin" sanitize --tools memcheck,leakcheck --db "$db"
expect 2 "unknown algorithm 'nosuch'" -- "$bin" sanitize nosuch --db "$db"
expect 3 "skipped: the --sanitizer given is not an executable" -- "$bin" sanitize ari --sanitizer "$tmp/none" --db "$db"
if ! command -v compute-sanitizer >/dev/null && [ ! -x /usr/local/cuda/bin/compute-sanitizer ]; then
  expect 3 "compute-sanitizer not found" -- env CUDA_HOME="$tmp" "$bin" sanitize ari --db "$db"
fi
# a sanitizer that is there but finds no GPU (this machine) or runs: a fake one that exits 0
printf '#!/bin/sh\nexit 0\n' >"$tmp/fake-sanitizer" && chmod +x "$tmp/fake-sanitizer"
out=$("$bin" sanitize ari/v2_shared --tools memcheck --sanitizer "$tmp/fake-sanitizer" --db "$db" 2>&1)
rc=$?
if [ "$rc" = 3 ]; then
  grep -q "sanitize: skipped: " <<<"$out" || { echo "FAIL: sanitize without GPU: $out"; fails=$((fails + 1)); }
elif [ "$rc" = 0 ]; then
  grep -q "clean" <<<"$out" || { echo "FAIL: sanitize with a fake tool: $out"; fails=$((fails + 1)); }
else
  echo "FAIL: sanitize with a fake tool exit $rc: $out"; fails=$((fails + 1))
fi
# (with a GPU) the lane names the regimes no picked case stands for: radix_sort's pairs past 2^24
if [ "$rc" = 0 ]; then
  out=$("$bin" sanitize radix_sort/v6_values_in_place --tools memcheck \
          --sanitizer "$tmp/fake-sanitizer" --db "$db" --status-file "$tmp/san.st" 2>&1)
  grep -F "radix_sort/v6_values_in_place: left to the fuzz" <<<"$out" | grep -qF "'pairs > 2^24" &&
    grep -qx "left_to_fuzz=1" "$tmp/san.st" ||
    { echo "FAIL: sanitize does not name v6's regime left to the fuzz: $out"; fails=$((fails + 1)); }
fi

# variants by kind and a rotating slice (ci/nightly), kept logs: usage errors name the value
expect 2 "unknown kind 'bogus' in --kinds" -- "$bin" sanitize --kinds fixed,bogus --db "$db"
expect 2 "bad value '7/7' for --slice" -- "$bin" sanitize --slice 7/7 --db "$db"
expect 2 "bad value '3' for --slice" -- "$bin" sanitize --slice 3 --db "$db"
expect 2 "bad value '-1/7' for --slice" -- "$bin" sanitize --slice -1/7 --db "$db"
expect 2 "--logs '/dev/null/logs': not a writable folder" -- "$bin" sanitize --logs /dev/null/logs --db "$db"
# a fake tool that reports a finding (exit 86) as memcheck prints it: where a GPU is, the cell is
# a finding that names the kernel, the file:line and the case; the examined race of avos
# v2_warp_hash (its sanitizer_explained) is explained and fails nothing
cat >"$tmp/finding-sanitizer" <<'FAKE'
#!/bin/sh
echo "========= COMPUTE-SANITIZER"
echo "case: ccc n=2 features=4 cat=25 max_cat=64 missing=0 values=ties seed=1"
echo "========= Invalid __shared__ read of size 16 bytes"
echo "=========     at ccc_partition_kernel(const float *, int)+0xd10 in ccc_partition.cu:57"
echo "=========     by thread (0,0,0) in block (2,0,0)"
echo "========= "
echo "========= Error: Race reported between Write access at void avos_symbolic_block_kernel<avos_ops_v2, int>(avos_args)+0x2e80 in avos_common.cuh:652"
echo "=========     and Read access at void avos_symbolic_block_kernel<avos_ops_v2, int>(avos_args)+0x2310 in avos_common.cuh:647 [24 hazards]"
echo "========= ERROR SUMMARY: 2 errors"
exit 86
FAKE
chmod +x "$tmp/finding-sanitizer"
out=$("$bin" sanitize ccc/v2_warp --tools memcheck --sanitizer "$tmp/finding-sanitizer" --db "$db" 2>&1)
rc=$?
if [ "$rc" = 1 ]; then
  grep -q "ccc/v2_warp memcheck finding: Invalid __shared__ read of size 16 bytes in ccc_partition_kernel at ccc_partition.cu:57 | case 'ccc n=2 features=4 cat=25 max_cat=64 missing=0 values=ties seed=1' \[+1 more distinct\]" <<<"$out" ||
    { echo "FAIL: a finding without kernel, line or case: $out"; fails=$((fails + 1)); }
  out=$("$bin" sanitize avos/v2_warp_hash --tools racecheck --per-regime 1 --sanitizer "$tmp/finding-sanitizer" --db "$db" 2>&1)
  rc=$?
  # the memcheck report in the fake log is not examined for racecheck: a finding still
  grep -q "avos/v2_warp_hash racecheck finding: Invalid __shared__ read" <<<"$out" && [ "$rc" = 1 ] ||
    { echo "FAIL: an unexamined finding passed as explained (exit $rc): $out"; fails=$((fails + 1)); }
  grep -v 'Invalid\|ccc_partition\|by thread' "$tmp/finding-sanitizer" >"$tmp/race-sanitizer"
  chmod +x "$tmp/race-sanitizer"
  out=$("$bin" sanitize avos/v2_warp_hash --tools racecheck --per-regime 1 --sanitizer "$tmp/race-sanitizer" --db "$db" 2>&1)
  rc=$?
  grep -q "avos/v2_warp_hash racecheck explained: Race reported between Write access and Read access in avos_symbolic_block_kernel<avos_ops_v2, int> at avos_common.cuh:652 and avos_common.cuh:647 .*(examined: s_stop is" <<<"$out" && [ "$rc" = 0 ] ||
    { echo "FAIL: the examined race is not explained (exit $rc): $out"; fails=$((fails + 1)); }
elif [ "$rc" != 3 ]; then
  echo "FAIL: sanitize with a finding exit $rc: $out"; fails=$((fails + 1))
fi

[ "$fails" = 0 ] && echo "coverage: all checks passed"
exit $((fails > 0))
