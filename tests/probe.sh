# Sourced by the probe tables (tests/faults.sh, tests/untrusted.sh): probes counted per class.
#   note CLASS OK WHAT           count one probe; OK 1 passed, else print WHAT
#   probe CLASS CODE FRAGMENT -- command...
#                                exit CODE and FRAGMENT in stdout+stderr, within PROBE_TIMEOUT
#                                (default 20 s: a probe that runs into it hung), run in probe_dir
#                                (default: the current folder) with stdin closed
#   probe_summary NAME           "NAME: CLASS ok/tried ..." over $classes; fails unless all passed
# and what the database probes share:
#   abs PATH                     PATH made absolute (the probes run in other folders)
#   sql DB SQL...                write SQL into DB with the test's db_query ($dbq)
#   same CLASS FILE COPY WHAT    FILE is byte-identical to COPY and no -wal/-shm appeared beside it
#   base_db FILE [SYNTH ARGS]    two synthetic runs ($synth) in FILE, journal mode DELETE
limit=${PROBE_TIMEOUT:-20}
probe_dir=${probe_dir:-.}
declare -A tried=() passed=()

note() {
  tried[$1]=$((${tried[$1]:-0} + 1))
  if [ "$2" = 1 ]; then
    passed[$1]=$((${passed[$1]:-0} + 1))
  else
    echo "FAIL [$1] $3"
  fi
}

probe() {
  local cls=$1 code=$2 sub=$3 out rc
  shift 4
  out=$(cd "$probe_dir" && timeout -k 2 "$limit" "$@" 2>&1 </dev/null)
  rc=$?
  if [ "$rc" = "$code" ] && grep -qF -- "$sub" <<<"$out"; then
    note "$cls" 1 ""
  else
    note "$cls" 0 "$(printf '%q ' "$@")-> exit $rc (want $code, '$sub'): $(head -c 400 <<<"$out")"
  fi
}

probe_summary() {
  local summary="$1:" failed=0 c
  for c in $classes; do
    summary+=" $c ${passed[$c]:-0}/${tried[$c]:-0}"
    failed=$((failed + ${tried[$c]:-0} - ${passed[$c]:-0}))
  done
  echo "$summary (ok/tried)"
  [ "$failed" = 0 ]
}

abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
sql() { "$dbq" -w "$@" >/dev/null; }
same() {
  note "$1" "$(cmp -s "$2" "$3" && [ ! -e "$2-wal" ] && [ ! -e "$2-shm" ] && echo 1)" "$4 changed"
}
base_db() {
  local f=$1
  shift
  "$synth" "$f" --cases 2 "$@" >/dev/null
  "$synth" "$f" --cases 2 "$@" >/dev/null
  sql "$f" "PRAGMA journal_mode = DELETE"
}
