#!/usr/bin/env bash
# ci/nightly on a machine without a usable GPU (issue 11): `ci/nightly --no-build` exits 3, and
# every artefact says the same: the dashboard's banner is not green, the JUnit file validates
# against ci/junit-10.xsd and carries the run's properties, the JSON's verdict is no_gpu.
# Skipped (77) where a GPU is usable: there the nightly is the real thing.
#   tests/nightly.sh GPUREGRESS
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
source "$(dirname "$0")/expect.sh"
if nvidia-smi -L >/dev/null 2>&1; then
  echo "nightly: a GPU is here: not a CPU-only machine"
  exit 77
fi
out="$tmp/out"
"$root/ci/nightly" --no-build --build "$(dirname "$bin")" --budget 3 --db "$tmp/n.db" --out "$out" >"$tmp/log" 2>&1
rc=$?
[ "$rc" = 3 ] || { echo "FAIL: ci/nightly --no-build exit $rc (want 3)"; tail -30 "$tmp/log"; fails=$((fails + 1)); }
grep -q "GPU variants selected and none could run" "$tmp/log" || { echo "FAIL: no plain verdict line"; tail -20 "$tmp/log"; fails=$((fails + 1)); }
grep -q 'id=verdict data-result="no_gpu" data-exit="3"' "$out/dashboard/index.html" &&
  grep -q 'class="summary bad" id=verdict' "$out/dashboard/index.html" ||
  { echo "FAIL: the dashboard's banner"; grep 'id=verdict' "$out/dashboard/index.html"; fails=$((fails + 1)); }
! grep -q 'class="summary ok" id=verdict' "$out/dashboard/index.html" || { echo "FAIL: green banner"; fails=$((fails + 1)); }
if command -v xmllint >/dev/null; then
  xmllint --noout --schema "$root/ci/junit-10.xsd" "$out/junit.xml" 2>"$tmp/xsd" ||
    { echo "FAIL: junit.xml: $(cat "$tmp/xsd")"; fails=$((fails + 1)); }
fi
grep -q '<property name="result" value="no_gpu"/>' "$out/junit.xml" || { echo "FAIL: junit properties"; fails=$((fails + 1)); }
grep -q '"result": "no_gpu", "exit_code": 3' "$out/run.json" || { echo "FAIL: run.json verdict"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "nightly: all checks passed (exit 3, the banner red, JUnit and JSON agree)"
exit $((fails > 0))
