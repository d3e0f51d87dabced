#!/usr/bin/env bash
# Fault injection (issue 12): the probe classes of the issue's sweep replayed as a table, each a
# command line with the exit code and a fragment of the message it must give, under a timeout:
#   crash   inputs that crashed the parent (fuzz ranges applied to the wrong algorithm)
#   hang    values that switched a watchdog or a budget off (NaN, infinity), ci/nightly loops
#   exit    wrong exit codes: nothing tested and exit 0 (empty, wrapping, out-of-range values,
#           ranges with no valid case, a parameter given twice), output lost with exit 0
#   message vague messages: a missing value, an unknown option, a bad value not naming its option
#   store   a full disk (ulimit -f), a corrupt page, a foreign database, four runs started
#           together on a new database, a run while another's long case runs
#   signal  SIGTERM and SIGHUP while a case runs: exit 130, the run 'interrupted', the running
#           variant not stored as a (flaky) timeout, no process left
# Prints the counts (tried / ok) per class; exit 1 if any probe failed.
#   tests/faults.sh GPUREGRESS DB_QUERY [NIGHTLY]
# PROBE_TIMEOUT (default 20 s) bounds each probe; a probe that runs into it counts as a hang.
set -u
bin=$1
dbq=$2
nightly=${3:-$(cd "$(dirname "$0")/.." && pwd)/ci/nightly}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
classes="crash hang exit message store signal"
source "$(dirname "$0")/probe.sh"

db="$tmp/t.db"
long=$(printf 'a%.0s' $(seq 1 300))

# ---- crash: ranges resolved per algorithm by name, enum indices bounds-checked --------------
probe crash 0 "result: ok" -- "$bin" fuzz '*/reference' n=500..1000 --cases 1 --db "$db"
probe crash 0 "result: ok" -- "$bin" fuzz 'ari/reference,radix_sort/reference' k_a=20 --cases 1 --db "$db"
probe crash 0 "result: ok" -- "$bin" fuzz 'radix_sort/reference,ari/reference' k_a=30000 --cases 1 --db "$db"
probe crash 2 "radix_sort: unknown value 'skewed' for 'dist'" -- "$bin" fuzz 'ari/reference,radix_sort/reference' dist=skewed --db "$db"
probe crash 2 "no selected algorithm has a parameter 'q'" -- "$bin" fuzz 'ari/reference,radix_sort/reference' q=1..2 --db "$db"
probe crash 2 "unknown parameter 'q' for algorithm 'ari'" -- "$bin" fuzz ari/reference q=1 --db "$db"

# ---- hang: NaN and infinity never switch a watchdog or a budget off -------------------------
probe hang 2 "bad value 'nan' for --watchdog" -- "$bin" fuzz selftest/hang --watchdog nan --cases 1 --db "$db"
probe hang 2 "bad value 'nan' for --watchdog" -- "$bin" repro 'selftest n=40 dist=ones seed=1' --variant hang --watchdog nan
probe hang 2 "bad value 'inf' for --watchdog" -- "$bin" run --filter selftest/hang --watchdog inf --db "$db"
probe hang 2 "bad value 'nan' for --budget" -- "$bin" run --filter selftest/ok --budget nan --db "$db"
probe hang 2 "bad value 'nan' for --shrink-budget" -- "$bin" run --filter selftest/hang --shrink-budget nan --db "$db"
probe hang 2 "bad value 'nan' for --max-time" -- "$bin" bench --max-time nan --db "$db"
probe hang 2 "bad value 'nan' for --watchdog" -- "$bin" bench --watchdog nan --db "$db"
probe hang 2 "bad value 'nan' for --alpha" -- "$bin" compare --alpha nan --db "$db"
probe hang 2 "bad value 'inf' for --min-effect" -- "$bin" compare --min-effect inf --db "$db"
probe hang 2 "bad value 'nan' for --penalty" -- "$bin" history --penalty nan --db "$db"
probe hang 2 "bad value 'nan' for --timeout" -- "$bin" sanitize --timeout nan --db "$db"
for o in --out --build --db --baseline --budget --filter; do
  probe hang 2 "ci/nightly: $o needs a value" -- "$nightly" "$o"
done
probe hang 2 "bad value 'nan' for --budget" -- "$nightly" --budget nan

# ---- exit: nothing tested or output lost is never exit 0 ------------------------------------
probe exit 2 "empty value for --filter" -- "$bin" run --filter '' --db "$db"
probe exit 2 "empty pattern" -- "$bin" run --filter 'selftest/ok,' --db "$db"
probe exit 2 "bad value '18446744073709551615' for --cases" -- "$bin" run --filter selftest/ok --cases 18446744073709551615 --db "$db"
probe exit 2 "bad value '-1' for --cases" -- "$bin" run --filter selftest/ok --cases -1 --db "$db"
probe exit 2 "empty value for --db" -- "$bin" run --filter selftest/ok --cases 1 --db ''
probe exit 2 "bad value '18446744073709551616' for --seed" -- "$bin" run --seed 18446744073709551616 --db "$db"
probe exit 2 "bad value '-1' for --budget" -- "$bin" run --budget -1 --db "$db"
probe exit 2 "no valid case of 'kmedoids' within the ranges" -- "$bin" fuzz kmedoids/reference n=1..5 k=10..20 --cases 3 --db "$db"
probe exit 2 "'n' given twice" -- "$bin" fuzz ari/reference n=5..9 n=100 --cases 1 --db "$db"
probe exit 2 "is too long" -- "$bin" run --filter "$long" --db "$db"
probe exit 2 "is too long" -- "$bin" run --filter "selftest/$long" --db "$db"
probe exit 2 "is too long" -- "$bin" list "$long$long$long$long"
probe exit 2 "unexpected argument 'sgm'" -- "$bin" list ari sgm
probe exit 2 "bad value '2' for --min-samples" -- "$bin" bench --min-samples 2 --db "$db"
probe exit 2 "bad value '0' for --run" -- "$bin" export --format json --run 0 --db "$db"
probe exit 2 "bad value '99999999999999999999' for --run" -- "$bin" compare --run 99999999999999999999 --db "$db"
probe exit 2 "empty value for --out" -- "$bin" plot --out '' --db "$db"
probe exit 2 "empty value for --format" -- "$bin" export --format '' --db "$db"
probe exit 2 "cannot write the output" -- sh -c '"$0" export --format json --db "$1" >/dev/full' "$bin" "$db"
probe exit 2 "cannot write the output" -- sh -c '"$0" list >/dev/full' "$bin"

# ---- message: the option is named, getopt's own text never shows ----------------------------
probe message 2 "bad value '0' for --cases" -- "$bin" run --cases 0 --db "$db"
probe message 2 "option '--db' needs a value" -- "$bin" run --filter selftest/ok --db
probe message 2 "option '--watchdog' needs a value" -- "$bin" fuzz selftest/ok --watchdog
probe message 2 "option '--json' needs a value" -- "$bin" bench --json
probe message 2 "option '--baseline' needs a value" -- "$bin" compare --baseline
probe message 2 "option '--format' needs a value" -- "$bin" export --format
probe message 2 "option '-d' needs a value" -- "$bin" plot -d
probe message 2 "unknown option '--bogus'" -- "$bin" run --bogus
probe message 2 "unknown option '-x'" -- "$bin" repro -x
probe message 2 "option '--quiet' takes no value" -- "$bin" run --quiet=1
probe message 2 "option '--keep-runs' needs a value" -- "$bin" prune --keep-runs
probe message 2 "bad value '2.5' for --min-nights" -- "$bin" history --min-nights 2.5 --db "$db"
probe message 2 "empty value for --variant" -- "$bin" repro 'selftest n=40 dist=ones seed=1' --variant ''
out=$("$bin" run --db 2>&1)
note message "$(grep -qE "requires an argument|unknown option$" <<<"$out" && echo 0 || echo 1)" \
  "getopt's message shown: $out"

# ---- store: every store error reaches the verdict -------------------------------------------
# a full disk: a file size limit (SIGXFSZ ignored: the write fails), after a first small run
full="$tmp/full.db"
"$bin" run --filter selftest/ok --cases 1 --db "$full" >/dev/null 2>&1
(trap '' XFSZ; ulimit -f 200; exec "$bin" run --filter selftest/ok,selftest/reference --cases 3000 -v \
  --db "$full" >"$tmp/full.out" 2>"$tmp/full.err")
rc=$?
printed=$(grep -c ' fuzz ' "$tmp/full.out")
stored=$("$dbq" "$full" "SELECT count(*) FROM cases WHERE run_id = 2")
status=$("$dbq" "$full" "SELECT status FROM runs WHERE id = 2")
note store "$([ "$rc" = 2 ] && [ "$printed" = "$stored" ] && [ "$status" != running ] &&
  grep -q "cannot store" "$tmp/full.err" && echo 1)" \
  "full disk: exit $rc, $printed printed, $stored stored, status '$status': $(cat "$tmp/full.err")"
# a corrupt page (every page after the second overwritten in part)
cdb="$tmp/corrupt.db"
"$bin" run --filter selftest/ok --cases 2000 --db "$cdb" >/dev/null 2>&1
pages=$(($(stat -c %s "$cdb") / 4096))
for p in $(seq 3 $((pages - 1))); do
  head -c 200 /dev/urandom | dd of="$cdb" bs=1 seek=$((p * 4096 + 8)) conv=notrunc status=none
done
probe store 2 "malformed" -- "$bin" run --filter selftest/ok --cases 2000 -v --db "$cdb"
# a database of another program is refused and left byte-identical
fdb="$tmp/foreign.db"
"$dbq" -w "$fdb" "CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('mine')" >/dev/null 2>&1
cp "$fdb" "$tmp/foreign.orig"
probe store 2 "not a gpuregress database" -- "$bin" run --filter selftest/ok --cases 1 --db "$fdb"
note store "$(cmp -s "$fdb" "$tmp/foreign.orig" && [ ! -e "$fdb-wal" ] && echo 1)" "foreign database changed"
# four runs started together on a new database all succeed, twice
for round in 1 2; do
  cdb="$tmp/conc$round.db" pids=() bad=0
  for k in 1 2 3 4; do
    "$bin" run --filter selftest/ok --cases 100 --db "$cdb" >"$tmp/conc$k.out" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
  cases=$("$dbq" "$cdb" "SELECT count(*) FROM cases")
  note store "$([ "$bad" = 0 ] && [ "$cases" = 400 ] && echo 1)" \
    "concurrent starts: $bad of 4 failed, $cases cases: $(cat "$tmp"/conc*.out | grep -v '^$' | tail -3)"
done
# start_hang DB: a run in the background (hang_pid) whose selftest/ok is stored and whose
# selftest/hang is in its hanging case (seed 3: two cases pass, the third hangs)
start_hang() {
  "$bin" run --filter selftest/ok,selftest/hang --cases 500 --seed 3 --watchdog 30 --no-shrink \
    --db "$1" >/dev/null 2>&1 &
  hang_pid=$!
  for _ in $(seq 1 100); do
    [ "$("$dbq" "$1" "SELECT count(*) FROM outcomes" 2>/dev/null)" = 1 ] && break
    sleep 0.1
  done
  sleep 0.5
}
# a long case holds no write lock: another run finishes while it runs, in less than the wait of
# a locked database (the busy timeout, 10 s) beyond what the same run takes alone (measured here
# first: a loaded machine is slow either way)
ldb="$tmp/lock.db"
t0=$(date +%s)
"$bin" run --filter selftest/ok --cases 20 --db "$tmp/alone.db" >/dev/null 2>&1
alone=$(($(date +%s) - t0))
start_hang "$ldb"
t0=$(date +%s)
probe store 0 "result: ok" -- "$bin" run --filter selftest/ok --cases 20 --db "$ldb"
took=$(($(date +%s) - t0))
note store "$([ "$took" -lt $((alone + 8)) ] && echo 1)" \
  "a run beside a long case took $took s, $alone s alone (a lock held?)"
kill -TERM "$hang_pid"
wait "$hang_pid"

# ---- signals: an interrupted variant is no timeout, nothing is left running ------------------
for sig in TERM HUP; do
  sdb="$tmp/sig$sig.db"
  start_hang "$sdb"
  kill -"$sig" "$hang_pid"
  wait "$hang_pid"
  rc=$?
  sleep 0.3
  status=$("$dbq" "$sdb" "SELECT status FROM runs")
  verdict=$("$dbq" "$sdb" "SELECT verdict FROM outcomes WHERE variant = 'hang'")
  timeouts=$("$dbq" "$sdb" "SELECT count(*) FROM cases WHERE verdict = 'timeout'")
  left=$(pgrep -f -- "$sdb" | wc -l)
  note signal "$([ "$rc" = 130 ] && [ "$status" = interrupted ] && [ "$verdict" = skip ] &&
    [ "$timeouts" = 0 ] && [ "$left" = 0 ] && echo 1)" \
    "SIG$sig: exit $rc, run '$status', hang '$verdict', $timeouts timeouts stored, $left processes left"
done
# SIGKILL of the parent: its worker, in its hanging case, dies with it
kdb="$tmp/sigKILL.db"
start_hang "$kdb"
kill -KILL "$hang_pid"
wait "$hang_pid" 2>/dev/null
sleep 0.5
left=$(pgrep -f -- "$kdb" | wc -l)
note signal "$([ "$left" = 0 ] && echo 1)" "SIGKILL: $left processes left"

probe_summary faults
