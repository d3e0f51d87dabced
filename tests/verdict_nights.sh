#!/usr/bin/env bash
# One verdict over the nights (issue 25): a synthetic 30-night history with a planted 10% step
# (tests/synth_nights.sh: sortlike/v2_warp slower from night 20 on), each night judged and
# recorded as ci/nightly does ('compare --record'):
#   - nights 20..30 are not green (the step is slower on night 20, then an open regression on
#     every later night, and a step confirmed over the nights on the night 'history --check'
#     fails), until the step is acknowledged ('gpuregress ack': then night 30 is green, its JUnit
#     skips them with who and why; '--undo' makes it red again) or reverted (a history whose step
#     is gone from night 26: nights 26..30 green again);
#   - the night 'history --check' fails has a JUnit failure (type "step"), and its JSON and
#     banner say so;
#   - the index of nights on the dashboard shows each night's recorded verdict, equal to what
#     'compare --run N' says of it;
#   - a slower row carries its commit range and a reproducer in JUnit, JSON and Markdown.
#   tests/verdict_nights.sh GPUREGRESS SYNTH_DB
set -u
bin=$1 synth=$2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/expect.sh"

# night N's exit code and result as compare judges (and records) it
judge_all() { # DB -> $tmp/<db>.codes: "N EXIT"
  local db=$1 n
  : >"$db.codes"
  for n in $(seq 1 30); do
    "$bin" compare --db "$db" --run "$n" --record --nightly-exit 0 >"$db.$n.log" 2>&1
    echo "$n $?" >>"$db.codes"
  done
}
code_of() { awk -v n="$2" '$1 == n {print $2}' "$1.codes"; }

step="$tmp/step.db"
bash "$here/synth_nights.sh" "$synth" "$step" step || { echo "FAIL: synth_nights"; exit 1; }
judge_all "$step"
for n in $(seq 1 30); do
  want=0
  { [ "$n" -ge 20 ] || [ "$n" = 3 ]; } && want=1
  got=$(code_of "$step" "$n")
  [ "$got" = "$want" ] || { echo "FAIL: night $n exit $got (want $want): $(grep '^verdict' "$step.$n.log")"; fails=$((fails + 1)); }
done
grep -q "still slower" "$step.30.log" || { echo "FAIL: night 30 does not name the open regression"; fails=$((fails + 1)); }

# the night history --check fails: exactly one of 20..30, with a JUnit failure of type step
hist_night=""
for n in $(seq 20 30); do
  "$bin" history --db "$step" --run "$n" --check >/dev/null 2>&1
  [ $? = 1 ] && hist_night="$hist_night $n"
done
hist_night=${hist_night# }
check "history --check fails on one night after the step (got '$hist_night')" [ -n "$hist_night" ] 
for n in $hist_night; do
  "$bin" export --db "$step" --run "$n" --format junit --out "$tmp/h$n.xml" 2>/dev/null
  grep -q '<failure message="a step to slower confirmed over the nights' "$tmp/h$n.xml" &&
    grep -q 'type="step"' "$tmp/h$n.xml" ||
    { echo "FAIL: night $n (history --check fails) has no JUnit failure for the step"; fails=$((fails + 1)); }
  grep -q 'testsuites name="gpuregress run '"$n"'" tests="[0-9]*" failures="[1-9]' "$tmp/h$n.xml" ||
    { echo "FAIL: night $n: JUnit failures=0"; fails=$((fails + 1)); }
  "$bin" export --db "$step" --run "$n" --format json --out "$tmp/h$n.json" 2>/dev/null
  grep -q '"history_new": true' "$tmp/h$n.json" ||
    { echo "FAIL: night $n: the JSON has no step confirmed tonight"; fails=$((fails + 1)); }
done

# a slower row: commit range and reproducer in JUnit, JSON and Markdown
"$bin" export --db "$step" --run 20 --format junit --out "$tmp/n20.xml" 2>/dev/null
grep -q "git log c019..c020" "$tmp/n20.xml" && grep -q "reproduce: gpuregress bench sortlike/v2_warp --case &#39;sortlike n=" "$tmp/n20.xml" ||
  { echo "FAIL: night 20's JUnit lacks the commit range or the reproducer"; grep -m2 failure "$tmp/n20.xml"; fails=$((fails + 1)); }
"$bin" export --db "$step" --run 20 --format json --out "$tmp/n20.json" 2>/dev/null
grep -q '"repro": "gpuregress bench sortlike/v2_warp --case' "$tmp/n20.json" && grep -q '"commits": "c019..c020"' "$tmp/n20.json" ||
  { echo "FAIL: night 20's JSON lacks repro/commits"; fails=$((fails + 1)); }
"$bin" compare --db "$step" --run 20 --format markdown >"$tmp/n20.md"
[ $? = 1 ] || { echo "FAIL: compare --format markdown exit (want 1)"; fails=$((fails + 1)); }
head -1 "$tmp/n20.md" | grep -q '^### gpuregress: FAILED (exit 1)$' || { echo "FAIL: markdown verdict first: $(head -1 "$tmp/n20.md")"; fails=$((fails + 1)); }
grep -q '^| sortlike/v2\\_warp | n=1048576 dist=uniform | .* | \*\*1\.[0-9]*x\*\* | .* | `c019..c020` | `gpuregress bench' "$tmp/n20.md" &&
  grep -q '^<details><summary>' "$tmp/n20.md" ||
  { echo "FAIL: markdown table"; cat "$tmp/n20.md" | head -20; fails=$((fails + 1)); }

# the dashboard of night 30: red banner with the open regressions; the index of nights shows
# each night's recorded verdict, the same as compare's
"$bin" plot --db "$step" --run 30 --out "$tmp/out" >/dev/null 2>&1
page="$tmp/out/dashboard/index.html"
grep -q 'data-open="4" class="summary bad" id=verdict data-result="failed" data-exit="1"' "$page" ||
  { echo "FAIL: night 30's banner: $(grep -o 'id=verdict[^>]*' "$page")"; fails=$((fails + 1)); }
check "night 30's page lists the open regressions" grep -q 'id=open-regressions' "$page"
for n in $(seq 1 30); do
  want=ok; [ "$(code_of "$step" "$n")" = 1 ] && want=failed
  grep -qE "<tr data-run=\"$n\" data-night=\"$n\">.*data-verdict=\"$want\"" "$page" ||
    { echo "FAIL: index of nights: night $n is not '$want': $(grep -o "data-run=\"$n\" [^>]*" "$page")"; fails=$((fails + 1)); }
done

# acknowledged: night 30 green, JUnit skips with who and why, the page shows it; undo: red
expect 2 "covers no regression open" -- "$bin" ack sortlike/peer --reason x --db "$step"
expect 2 "--reason TEXT is required" -- "$bin" ack sortlike/v2_warp --db "$step"
expect 0 "acknowledged by tester (4 open regressions" -- "$bin" ack sortlike/v2_warp --reason "planted step" --by tester --db "$step"
expect 0 "4 open regressions (4 acknowledged)" -- "$bin" compare --db "$step" --run 30
"$bin" export --db "$step" --run 30 --format junit --out "$tmp/a30.xml" 2>/dev/null
grep -q 'failures="0"' "$tmp/a30.xml" && grep -q '<skipped message="open regression since run 20 .*acknowledged by tester at .*: planted step"' "$tmp/a30.xml" ||
  { echo "FAIL: acknowledged night 30's JUnit"; grep -m3 'skipped\|failure' "$tmp/a30.xml"; fails=$((fails + 1)); }
"$bin" plot --db "$step" --run 30 --out "$tmp/out" >/dev/null 2>&1
grep -q 'data-result="ok"' "$page" && grep -q 'by tester at' "$page" ||
  { echo "FAIL: the acknowledged page"; fails=$((fails + 1)); }
expect 0 "withdrew 1 acknowledgement" -- "$bin" ack --undo sortlike/v2_warp --db "$step"
expect 1 "still slower" -- "$bin" compare --db "$step" --run 30
"$bin" compare --db "$step" --run 30 --status-file "$tmp/status" >/dev/null 2>&1
grep -q '^open_regressions=4$' "$tmp/status" && grep -q '^result=regression$' "$tmp/status" ||
  { echo "FAIL: the status file: $(tr '\n' ' ' <"$tmp/status")"; fails=$((fails + 1)); }

# reverted from night 26: nights 26..30 green again (back within the threshold)
rev="$tmp/revert.db"
bash "$here/synth_nights.sh" "$synth" "$rev" revert || { echo "FAIL: synth_nights revert"; exit 1; }
judge_all "$rev"
for n in $(seq 20 30); do
  want=1; [ "$n" -ge 26 ] && want=0; [ "$n" = 25 ] && want=1
  got=$(code_of "$rev" "$n")
  [ "$got" = "$want" ] || { echo "FAIL: reverted history: night $n exit $got (want $want): $(grep '^verdict' "$rev.$n.log")"; fails=$((fails + 1)); }
done

[ "$fails" = 0 ] && echo "verdict_nights: nights 20..30 red until acknowledged or reverted; history --check's night fails in JUnit; the index matches every night"
exit $((fails > 0))
