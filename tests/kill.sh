#!/usr/bin/env bash
# A run killed with SIGKILL part way leaves a database that passes PRAGMA integrity_check and
# holds every case the run reported as finished (-v prints a case only once it is committed).
#   tests/kill.sh GPUREGRESS DB_QUERY
set -u
bin=$1
dbq=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/k.db"
"$bin" run --filter selftest/ok,selftest/reference --budget 60 --seed 9 -v --db "$db" >"$tmp/log" 2>&1 &
pid=$!
# wait until a few hundred cases were reported, then kill without warning
for _ in $(seq 1 200); do
  [ "$(grep -c ' fuzz pass: ' "$tmp/log")" -ge 300 ] && break
  sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleep 0.2 # let the killed worker (its own process group) notice the closed pipe
reported=$(grep -c ' fuzz pass: ' "$tmp/log")
[ "$reported" -ge 300 ] || { echo "FAIL: only $reported cases reported before the kill"; exit 1; }
integrity=$("$dbq" "$db" "PRAGMA integrity_check")
[ "$integrity" = ok ] || { echo "FAIL: integrity_check: $integrity"; exit 1; }
stored=$("$dbq" "$db" "SELECT count(*) FROM cases WHERE verdict = 'pass'")
[ "$stored" -ge "$reported" ] || { echo "FAIL: $reported cases reported, $stored stored"; exit 1; }
# every reported case is there, by its text. The log's last line is left out unless it ends in a
# newline: SIGKILL can cut a line in the middle (a case text without its seed, once in ~20 runs).
complete_lines() {
  if [ -n "$(tail -c 1 "$tmp/log")" ]; then sed '$d' "$tmp/log"; else cat "$tmp/log"; fi
}
missing=0
while read -r line; do
  text=${line#*: }
  params=${text#selftest }
  params=${params% seed=*}
  seed=${text##*seed=}
  n=$("$dbq" "$db" "SELECT count(*) FROM cases WHERE params = '$params' AND seed = $seed")
  [ "$n" -ge 1 ] || missing=$((missing + 1))
done < <(complete_lines | grep ' fuzz pass: ' | tail -50)
[ "$missing" = 0 ] || { echo "FAIL: $missing of the last 50 reported cases are not stored"; exit 1; }
status=$("$dbq" "$db" "SELECT status FROM runs")
[ "$status" = running ] || { echo "FAIL: killed run has status '$status'"; exit 1; }
# the next open on this host finds the process gone: the run is 'killed', and its verdict is
# incomplete (exit 3), not a pass
"$bin" run --filter selftest/ok --cases 1 --db "$db" >/dev/null 2>&1
status=$("$dbq" "$db" "SELECT status FROM runs WHERE id = 1")
[ "$status" = killed ] || { echo "FAIL: killed run has status '$status' after the next open"; exit 1; }
out=$("$bin" compare --db "$db" --run 1 --baseline none 2>&1)
rc=$?
[ "$rc" = 3 ] && grep -q "incomplete: the run's process is gone" <<<"$out" ||
  { echo "FAIL: verdict of the killed run (exit $rc): $out"; exit 1; }
echo "kill: $reported cases reported, $stored stored, integrity ok, marked killed"
