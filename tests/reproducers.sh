#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reproducers that travel (issue 37): a night with one caught historical bug and one benchmark
# planted 2x slower (GR_TEST_SLOWDOWN on the selftest host-timed variants: no GPU needed) is
# exported as a reproducers/ folder; copied to another folder with no database, each file's
# command, pasted as written, reproduces: `repro` exits 1 on the historical case, `bench
# --against baseline.db` reports the slower row and exits 1; the verdict's slower row names that
# file (reproducers/NAME/baseline.db) and works as printed from the folder above it; the slower
# folder's baseline is that benchmark alone (one timing, its samples), not the baseline run; a
# regression carried open to a later night gets a folder and a printed command that travel too,
# and so does a slower row judged against a baseline file (ci/pr-check's base.db).
#   tests/reproducers.sh GPUREGRESS DB_QUERY
set -u
gr=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dbq=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
source "$(dirname "$0")/expect.sh"
cd "$tmp" || exit 2
mkdir bin && ln -s "$gr" bin/gpuregress
export PATH="$tmp/bin:$PATH"
sel=(--filter selftest/ok,selftest/bug_caught --cases 20)
q() { "$dbq" "$1" "$2"; }

gpuregress run "${sel[@]}" --seed 1 --bench --db night.db >n1.log 2>&1
check "night 1 timed selftest/ok (4 sizes)" [ "$(q night.db "SELECT count(*) FROM timings WHERE variant = 'ok'")" = 4 ]
GR_TEST_SLOWDOWN=selftest/ok=2 gpuregress run "${sel[@]}" --seed 2 --bench --db night.db >n2.log 2>&1
gpuregress compare --db night.db >compare.log 2>&1
check "night 2: compare finds selftest/ok slower (exit 1)" grep -q "exit 1" compare.log
mkdir night
expect 0 "reproducers in 'night/reproducers'" -- gpuregress export --db night.db --format reproducers --out night/reproducers

# the verdict's slower row names the folder's file
printed=$(grep -oE "gpuregress bench selftest/ok --case '[^']+' --against reproducers/slower-selftest-ok-[0-9a-f]{8}/baseline\.db" compare.log | head -1)
check "the verdict's slower row names reproducers/NAME/baseline.db ($printed)" [ -n "$printed" ]
file=$(grep -oE 'reproducers/slower-[^ ]+/baseline\.db' <<<"$printed")
check "the file it names is in the folder" [ -f "night/$file" ]

# another machine: the folder alone, no database
mkdir elsewhere && cp -r night/reproducers elsewhere/ && cd elsewhere || exit 2
check "no database here" [ -z "$(find . -name gpuregress.db)" ]
correctness=$(ls reproducers/*-selftest-bug_caught.txt 2>/dev/null | head -1)
check "a file for the caught historical case" [ -n "$correctness" ]
if [ -n "$correctness" ]; then
  cmd=$(sed -n 's/^command: //p' "$correctness")
  bash -c "$cmd" >repro.log 2>&1
  rc=$?
  check "its command ($cmd) exits 1: caught again" [ $rc = 1 ]
fi
check "every slower folder holds a small baseline" [ -n "$(ls -d reproducers/slower-* 2>/dev/null)" ]
for d in reproducers/slower-*; do
  [ -d "$d" ] || continue
  check "$d: one run, one timing, no cases" \
    [ "$(q "$d/baseline.db" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM timings) || ' ' || (SELECT count(*) FROM cases)")" = "1 1 0" ]
  check "$d: the timing's samples are there" [ "$(q "$d/baseline.db" "SELECT count(*) FROM samples")" -ge 6 ]
  check "$d: under 128 KiB" [ "$(stat -c %s "$d/baseline.db")" -lt 131072 ]
done
one=$(ls -d reproducers/slower-* | head -1)
cmd=$(sed -n 's/^command: //p' "$one/reproducer.txt")
(cd "$one" && GR_TEST_SLOWDOWN=selftest/ok=2 bash -c "$cmd") >bench.log 2>&1
rc=$?
check "$one: its command, run in its folder, exits 1 (slower)" [ $rc = 1 ]
check "$one: the slower row is reported" grep -qE "^  selftest/ok n=[0-9]+ dist=random \[cold\]: .*: slower$" bench.log
# the verdict's command as printed, from the folder holding reproducers/
GR_TEST_SLOWDOWN=selftest/ok=2 bash -c "$printed --db printed.db" >printed.log 2>&1
rc=$?
check "the verdict's printed command exits 1 here (slower)" [ $rc = 1 ]

# a regression carried on a later night (recorded open, not timed that night): its row names its
# folder's file too, not a run of the runner's database, and that works where no database is
cd "$tmp" || exit 2
gpuregress compare --db night.db --record >record.log 2>&1
gpuregress run --filter selftest/bug_caught --cases 20 --seed 3 --bench --db night.db >n3.log 2>&1
gpuregress compare --db night.db >compare3.log 2>&1
check "night 3: selftest/ok still open, not timed" grep -q "open regression" compare3.log
carried=$(grep -oE "gpuregress bench selftest/ok --case '[^']+' --against [^ ]+" compare3.log | head -1)
check "the carried row names reproducers/NAME/baseline.db ($carried)" \
  grep -qE -- "--against reproducers/slower-selftest-ok-[0-9a-f]{8}/baseline\.db$" <<<"$carried"
check "no row names a run of the runner's database" eval '! grep -qE -- "--against [0-9]+ --db" compare3.log'
mkdir night3 && gpuregress export --db night.db --format reproducers --out night3/reproducers >/dev/null 2>&1
mkdir elsewhere3 && cp -r night3/reproducers elsewhere3/ && cd elsewhere3 || exit 2
GR_TEST_SLOWDOWN=selftest/ok=2 bash -c "$carried --db printed.db" >carried.log 2>&1
rc=$?
check "the carried row's command, from a copy of night 3's folder, exits 1 (slower)" [ $rc = 1 ]

# a baseline file (ci/pr-check's base.db): the slower row names its folder's file, not the file
# of the CI machine, and the folder carries that benchmark of the file's run
cd "$tmp" || exit 2
gpuregress run --filter selftest/ok --cases 20 --seed 1 --bench --db base.db >b1.log 2>&1
GR_TEST_SLOWDOWN=selftest/ok=2 gpuregress run --filter selftest/ok --cases 20 --seed 1 --bench --db head.db >h1.log 2>&1
gpuregress compare --db head.db --baseline "$tmp/base.db" >compare_pr.log 2>&1
pr=$(grep -oE "gpuregress bench selftest/ok --case '[^']+' --against [^ ]+" compare_pr.log | head -1)
check "against a baseline file, the row names reproducers/NAME/baseline.db ($pr)" \
  grep -qE -- "--against reproducers/slower-selftest-ok-[0-9a-f]{8}/baseline\.db$" <<<"$pr"
mkdir pr && gpuregress export --db head.db --baseline "$tmp/base.db" --format reproducers --out pr/reproducers >/dev/null 2>&1
mkdir elsewhere_pr && cp -r pr/reproducers elsewhere_pr/ && cd elsewhere_pr || exit 2
GR_TEST_SLOWDOWN=selftest/ok=2 bash -c "$pr --db printed.db" >pr.log 2>&1
rc=$?
check "that command, from a copy of the folder, exits 1 (slower)" [ $rc = 1 ]
[ "$fails" -eq 0 ] && echo "reproducers: ok"
exit $((fails > 0))
