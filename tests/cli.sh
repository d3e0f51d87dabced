#!/usr/bin/env bash
# Command-line contract: bad input gets a clear message and exit 2, never a crash; --help works
# on every command; a GPU variant without a GPU is skipped (or exit 3 for repro); the printed
# reproducer of a failure reproduces it.
#   tests/cli.sh GPUREGRESS DB_QUERY
set -u
bin=$1
dbq=$2
source "$(dirname "$0")/expect.sh"

db="$tmp/t.db"
for c in list run fuzz repro; do
  expect 0 "usage: gpuregress $c" -- "$bin" "$c" --help
done
expect 0 "usage: gpuregress COMMAND" -- "$bin" --help
expect 0 "gpuregress 0." -- "$bin" --version
# the run records the commit the binary was built from, not the checkout's it runs in
"$bin" --version | grep -qE "commit ([0-9a-f]{40}|unknown)" || { echo "FAIL: --version has no commit"; fails=$((fails + 1)); }
expect 2 "unknown command 'frobnicate'" -- "$bin" frobnicate
expect 2 "usage" -- "$bin"

# unknown algorithm / variant
expect 2 "unknown algorithm 'nosuch'" -- "$bin" run --filter nosuch --db "$db"
expect 2 "no variant of 'ari' matches 'v9'" -- "$bin" run --filter ari/v9 --db "$db"
expect 2 "unknown algorithm 'nosuch'" -- "$bin" fuzz nosuch/x --db "$db"
expect 2 "unknown variant 'v9' of 'ari'" -- "$bin" repro 'ari n=8 k_a=2 k_b=2 pairs=1 dist=uniform seed=1' --variant v9

# malformed case text names the token
expect 2 "unknown parameter 'q'" -- "$bin" repro 'ari n=8 k_a=2 k_b=2 pairs=1 dist=uniform seed=1 q=2'
expect 2 "malformed token 'pairs'" -- "$bin" repro 'ari n=8 k_a=2 k_b=2 pairs dist=uniform seed=1'
expect 2 "missing parameter 'dist'" -- "$bin" repro 'ari n=8 k_a=2 k_b=2 pairs=1 seed=1'

# out of range values
expect 2 "'k_a=0' is out of range" -- "$bin" repro 'ari n=8 k_a=0 k_b=2 pairs=1 dist=uniform seed=1'
expect 2 "'n=-5' is out of range" -- "$bin" repro 'ari n=-5 k_a=2 k_b=2 pairs=1 dist=uniform seed=1'
expect 2 "range 'n=0..10' leaves" -- "$bin" fuzz ari/v2_shared n=0..10 --db "$db"
expect 2 "bad value 'abc'" -- "$bin" run --budget abc --db "$db"

# databases that cannot be used
expect 2 "cannot use database '$tmp/nodir/x.db'" -- "$bin" run --filter selftest/ok --cases 1 --db "$tmp/nodir/x.db"
head -c 8192 /dev/urandom >"$tmp/corrupt.db"
printf 'SQLite format 3\0garbage' | dd of="$tmp/corrupt.db" conv=notrunc status=none
expect 2 "cannot use database '$tmp/corrupt.db'" -- "$bin" run --filter selftest/ok --cases 1 --db "$tmp/corrupt.db"
echo "just text" >"$tmp/text.db"
expect 2 "is not a database" -- "$bin" run --filter selftest/ok --cases 1 --db "$tmp/text.db"
if [ "$(id -u)" != 0 ]; then
  touch "$tmp/ro.db" && chmod 444 "$tmp/ro.db"
  expect 2 "cannot use database" -- "$bin" run --filter selftest/ok --cases 1 --db "$tmp/ro.db"
fi

# a run records what it did; exit 1 when a fixed variant fails, with a reproducer that works
expect 0 "result: ok" -- "$bin" run --filter selftest/ok,selftest/bug_caught --cases 50 --seed 3 --db "$db"
# a short budget spent by a fixed variant before it (a hang: the 8 s watchdog, past the 6 s
# budget) still leaves the historical variant its share: historical variants run first (one case
# of bug_caught never catches it at this seed); the table keeps the selection's order
out=$("$bin" run --filter selftest/hang,selftest/bug_caught --budget 6 --watchdog 8 --no-shrink \
  --seed 1 --quiet --db "$tmp/order.db" 2>&1)
check "historical first: bug_caught caught within a budget a hang overran" \
  grep -qE "^selftest +bug_caught +historical +caught" <<<"$out"
check "the summary in selection order (hang, then bug_caught)" \
  [ "$(grep -E '^selftest ' <<<"$out" | awk '{print $2}' | tr '\n' ' ')" = "hang bug_caught " ]
expect 1 "repro:  gpuregress repro 'selftest n=37 dist=ones" -- "$bin" run --filter selftest/wrong --cases 50 --seed 3 --db "$db"
repro=$("$dbq" "$db" "SELECT reproducer FROM outcomes WHERE variant = 'wrong'")
case "$repro" in
  "gpuregress repro 'selftest n=37 dist=ones seed="*"' --variant wrong") ;;
  *) echo "FAIL: stored reproducer '$repro'"; fails=$((fails + 1)) ;;
esac
eval "set -- ${repro#gpuregress }"
expect 1 "sum 36: got 38, reference 37" -- "$bin" "$@"
expect 0 "pass" -- "$bin" "$1" "$2" --variant ok
expect 1 "escaped" -- "$bin" run --filter selftest/bug_escapes --cases 20 --db "$db"
[ "$("$dbq" "$db" "SELECT count(*) FROM runs WHERE status = 'finished'")" = 3 ] || {
  echo "FAIL: runs not all finished"; fails=$((fails + 1)); }

# a flaky failure (wrong one run in three): its printed reproducer carries the repeat count that
# made it fail here, and replayed as printed it fails; repro --repeat counts the failed runs
expect 1 "FLAKY: failed again" -- "$bin" run --filter selftest/flaky --cases 50 --seed 3 --db "$db"
repro=$("$dbq" "$db" "SELECT reproducer FROM outcomes WHERE variant = 'flaky'")
case "$repro" in
  "gpuregress repro 'selftest n=37 dist=ones seed="*"' --variant flaky --repeat "[0-9]*) ;;
  *) echo "FAIL: stored flaky reproducer '$repro'"; fails=$((fails + 1)) ;;
esac
eval "set -- ${repro#gpuregress }"
expect 1 "runs failed; first: " -- "$bin" "$@"
expect 1 "2 of 6 runs failed; first: " -- "$bin" repro "$2" --variant flaky --repeat 6
expect 0 "0 of 5 runs failed" -- "$bin" repro 'selftest n=36 dist=ones seed=1' --variant flaky --repeat 5
expect 2 "bad value '0' for --repeat" -- "$bin" repro 'selftest n=36 dist=ones seed=1' --repeat 0

# a build of one commit run from inside another repository records the build's commit, and no
# warning: that checkout is not the code under test (the warning compares the build's own tree,
# tests/provenance.sh)
built=$("$bin" --version | sed -n 's/.*commit \([0-9a-f]\{40\}\).*/\1/p')
if [ -n "$built" ] && command -v git >/dev/null; then
  mkdir "$tmp/other"
  (cd "$tmp/other" && git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x)
  other=$(cd "$tmp/other" && git rev-parse HEAD)
  (cd "$tmp/other" && "$bin" run --filter selftest/ok --cases 2 --db "$tmp/other.db") >"$tmp/other.log" 2>&1
  rec=$("$dbq" "$tmp/other.db" "SELECT git_commit || ' ' || coalesce(checkout_commit, '-') FROM runs")
  # (the build's own tree may have moved on since this build: that checkout only, never other's)
  case $rec in "$built "*) ;; *) echo "FAIL: recorded '$rec', want '$built ...'"; fails=$((fails + 1)) ;; esac
  case $rec in *"$other"*) echo "FAIL: recorded the other checkout's commit: '$rec'"; fails=$((fails + 1)) ;; esac
  ! grep -q "checkout is now at ${other:0:12}" "$tmp/other.log" ||
    { echo "FAIL: a warning about another repository's checkout"; cat "$tmp/other.log"; fails=$((fails + 1)); }
fi

# --status-file: key=value lines for scripts (ci/nightly, gpu-check); the human output unchanged
st="$tmp/run.status"
expect 1 "repro:  gpuregress repro 'selftest n=37 dist=ones" -- "$bin" run --filter selftest/wrong --cases 50 --seed 3 --db "$db" --status-file "$st"
for want in "^run=[0-9][0-9]*$" "^seed=3$" "^result=failed$" "^repro=selftest n=37 dist=ones seed=[0-9]*$" "^command=run$" "^exit=1$"; do
  grep -q "$want" "$st" || { echo "FAIL: '$want' not in the status file:"; cat "$st"; fails=$((fails + 1)); }
done
expect 2 "--status-file needs a file name" -- "$bin" list --status-file

# without a GPU: GPU variants are skipped with the reason that is true here (no driver, no
# device, a driver too old), repro of one exits 3; a run whose GPU variants could none run exits
# 3 with a plain verdict, and passes on its CPU variants alone only with --allow-no-gpu; what the
# run recorded says the same in export and on the dashboard
"$bin" repro 'ari n=8 k_a=2 k_b=2 pairs=1 dist=uniform seed=1' --variant v2_shared >"$tmp/gpu.txt" 2>&1
rc=$?
if [ "$rc" != 0 ]; then
  if [ "$rc" = 3 ]; then
    grep -qE "no NVIDIA driver: |no CUDA device: |NVIDIA driver too old \(found CUDA|built without CUDA \(-DGPUREGRESS_CUDA=OFF\)" "$tmp/gpu.txt" ||
      { echo "FAIL: skip reason"; cat "$tmp/gpu.txt"; fails=$((fails + 1)); }
    # every variant of a case: the reference passes, the GPU ones cannot run: exit 3 as for
    # run (a historical bug not run is not caught), 0 with --allow-no-gpu
    expect 3 "GPU variants selected and none could run" -- "$bin" repro 'ari n=8 k_a=2 k_b=2 pairs=1 dist=uniform seed=1'
    expect 0 "judged on the CPU variants alone" -- "$bin" repro 'ari n=8 k_a=2 k_b=2 pairs=1 dist=uniform seed=1' --allow-no-gpu
    expect 0 "reference" -- "$bin" repro 'ari n=8 k_a=2 k_b=2 pairs=1 dist=uniform seed=1' --variant reference
    ng="$tmp/nogpu.db"
    expect 3 "GPU variants selected and none could run" -- "$bin" run --filter ari --cases 3 --db "$ng" --status-file "$tmp/ng.status"
    grep -qx "result=no_gpu" "$tmp/ng.status" || { echo "FAIL: no_gpu status"; cat "$tmp/ng.status"; fails=$((fails + 1)); }
    expect 3 "result: no GPU" -- "$bin" compare --db "$ng" --run 1
    "$bin" export --db "$ng" --run 1 --format json --out "$tmp/ng.json"
    grep -q '"result": "no_gpu", "exit_code": 3, "ok": false' "$tmp/ng.json" ||
      { echo "FAIL: export json of a run without a GPU"; head -5 "$tmp/ng.json"; fails=$((fails + 1)); }
    "$bin" plot --db "$ng" --run 1 --out "$tmp/ngplot" >/dev/null 2>&1
    grep -q 'class="summary bad" id=verdict data-result="no_gpu"' "$tmp/ngplot/dashboard/index.html" ||
      { echo "FAIL: dashboard of a run without a GPU is not red"; fails=$((fails + 1)); }
    ! grep -q "All checks passed" "$tmp/ngplot/dashboard/index.html" ||
      { echo "FAIL: dashboard says all passed"; fails=$((fails + 1)); }
    expect 0 "ok without a GPU (--allow-no-gpu)" -- "$bin" run --filter ari --cases 3 --db "$ng" --allow-no-gpu
    # the summary and the dashboard fold the variants that did not run into one line (no rows of
    # zeros, no regimes "not reached"), and never show a night without a GPU as a green pass
    expect 0 "4 variants not run (1 of them historical: not run, so not caught): " -- "$bin" run --filter ari --cases 3 --db "$ng" --allow-no-gpu
    "$bin" plot --db "$ng" --out "$tmp/ngplot2" --note "SAMPLE note" >/dev/null 2>&1
    page="$tmp/ngplot2/dashboard/index.html"
    check "dashboard folds the variants not run" grep -q '<td colspan=3>4 variants not run</td>' "$page"
    check "dashboard lists no regime of a variant not run" [ -z "$(grep 'not reached' "$page")" ]
    check "dashboard: a night without a GPU is no green pass" grep -q '<span class="b meh">no GPU</span>' "$page"
    check "dashboard: --note shown" grep -q 'id=note><b>SAMPLE note</b>' "$page"
    expect 0 "skip" -- "$bin" run --filter ari --cases 3 --db "$db" --allow-no-gpu
    # CPU variants alone: no GPU needed, exit 0 as ever
    expect 0 "result: ok" -- "$bin" run --filter ari/reference --cases 3 --db "$ng"
  else
    echo "FAIL: repro on v2_shared exit $rc"; cat "$tmp/gpu.txt"; fails=$((fails + 1))
  fi
fi

if [ "$rc" = 0 ]; then # a GPU is here
  # a case that needs more device memory than there is: both sizes named, exit 2
  expect 2 "of device memory" -- "$bin" repro 'ari n=10000000 k_a=2 k_b=2 pairs=100000 dist=uniform seed=1' --variant v2_shared
  # a sticky CUDA error ends only its worker: crash naming the CUDA error, shrunk to n = 37
  expect 1 "an illegal memory access" -- "$bin" run --filter selftest/gpu_fault,selftest/ok --cases 40 --seed 3 --db "$db"
  expect 1 "shrunk: selftest n=37" -- "$bin" run --filter selftest/gpu_fault --cases 40 --seed 3 --db "$db"
fi

[ "$fails" = 0 ] && echo "cli: all checks passed"
exit $((fails > 0))
