# Sourced by the shell tests: a temporary folder removed on exit, a failure count, and
#   expect CODE SUBSTRING -- command...
# which runs the command and counts a failure unless it exits with CODE and its stdout+stderr
# contains SUBSTRING; and
#   check DESCRIPTION CONDITION...
# which counts a failure (naming DESCRIPTION) unless the condition command succeeds.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

expect() {
  local code=$1 sub=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || ! grep -qF -- "$sub" <<<"$out"; then
    echo "FAIL: $* -> exit $rc (expected $code), output:"
    echo "$out" | head -30
    echo "  (expected to contain: $sub)"
    fails=$((fails + 1))
  fi
}

check() {
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what"
    fails=$((fails + 1))
  fi
}
