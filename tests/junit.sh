#!/usr/bin/env bash
# One verdict wherever it is read (issue 11), on synthetic runs (tests/synth_db.c): a run with a
# variant planted 20% slower is red in compare's exit code, in the JUnit XML (a failure carrying
# the ratio, the p-value and the baseline run), in the JSON export's verdict, in `compare --format
# json` and on the dashboard's banner; a noisy run's unsure timings are skipped with the reason;
# every JUnit file validates against the Jenkins junit-10 shape (ci/junit-10.xsd) with xmllint,
# with one suite per algorithm and the run's properties.
#   tests/junit.sh GPUREGRESS SYNTH_DB
set -u
bin=$1
synth=$2
xsd="$(cd "$(dirname "$0")/.." && pwd)/ci/junit-10.xsd"
source "$(dirname "$0")/expect.sh"
command -v xmllint >/dev/null || { echo "FAIL: xmllint missing (scripts/setup installs libxml2-utils)"; exit 1; }
command -v python3 >/dev/null || { echo "junit: python3 missing"; exit 77; }

db="$tmp/j.db"
r1=$("$synth" "$db" --seed 1 --commit 1111111)
r2=$("$synth" "$db" --seed 2 --commit 2222222)
r3=$("$synth" "$db" --seed 3 --commit 3333333 --slow ari/v2_shared=1.2)
r4=$("$synth" "$db" --seed 4 --commit 4444444 --verdict ari/v1_shared_uninit=escaped --check sortlike/v2_warp=fail)
r5=$("$synth" "$db" --seed 5 --commit 5555555 --noise 0.4)

for r in "$r1" "$r2" "$r3" "$r4" "$r5"; do
  "$bin" export --db "$db" --run "$r" --format junit --out "$tmp/$r.xml" ||
    { echo "FAIL: export junit of run $r"; fails=$((fails + 1)); }
  out=$(xmllint --noout --schema "$xsd" "$tmp/$r.xml" 2>&1) ||
    { echo "FAIL: run $r does not validate: $out"; fails=$((fails + 1)); }
done
# the old shape is refused: the schema really checks
sed 's/<testsuites /<testsuites skipped="0" /' "$tmp/$r1.xml" >"$tmp/bad.xml"
! xmllint --noout --schema "$xsd" "$tmp/bad.xml" 2>/dev/null || { echo "FAIL: schema accepts testsuites@skipped"; fails=$((fails + 1)); }

# the slower run: red everywhere
expect 1 "result: REGRESSION exit 1" -- "$bin" compare --db "$db" --run "$r3"
"$bin" compare --db "$db" --run "$r3" --format json >"$tmp/c3.json"
check_rc=$?
[ "$check_rc" = 1 ] || { echo "FAIL: compare --format json exit $check_rc"; fails=$((fails + 1)); }
"$bin" export --db "$db" --run "$r3" --format json --out "$tmp/e3.json"
"$bin" plot --db "$db" --run "$r3" --out "$tmp/p3" >/dev/null 2>&1
grep -q 'class="summary bad" id=verdict data-result="failed" data-exit="1"' "$tmp/p3/dashboard/index.html" ||
  { echo "FAIL: dashboard banner of the slower run"; grep -n 'id=verdict' "$tmp/p3/dashboard/index.html"; fails=$((fails + 1)); }
# the first run, judged alone: green, and says there was no baseline
"$bin" plot --db "$db" --run "$r1" --out "$tmp/p1" >/dev/null 2>&1
grep -q 'class="summary ok" id=verdict data-result="ok" data-exit="0"><b>Passed: every check passed, every historical bug caught (no baseline' "$tmp/p1/dashboard/index.html" ||
  { echo "FAIL: dashboard banner of the first run"; grep -n 'id=verdict' "$tmp/p1/dashboard/index.html"; fails=$((fails + 1)); }

python3 - "$tmp" "$r1" "$r2" "$r3" "$r4" "$r5" <<'PY' || fails=$((fails + 1))
import json, re, sys, xml.etree.ElementTree as ET
tmp, r1, r2, r3, r4, r5 = sys.argv[1:]

def junit(r):
    root = ET.parse("%s/%s.xml" % (tmp, r)).getroot()
    names = [s.get("name") for s in root.findall("testsuite")]
    assert len(names) == len(set(names)), ("a suite twice", names)
    for s in root.findall("testsuite"):
        props = {p.get("name"): p.get("value") for p in s.find("properties")}
        for k in ("seed", "gpu", "driver", "runtime", "commit", "sm_clock_mhz", "mem_clock_mhz"):
            assert k in props, (k, props)
        cases = s.findall("testcase")
        assert int(s.get("tests")) == len(cases)
        assert int(s.get("failures")) == sum(c.find("failure") is not None for c in cases)
        assert int(s.get("skipped")) == sum(c.find("skipped") is not None for c in cases)
    return root

# run 3 against run 2: the four sizes of ari/v2_shared are failures with ratio, p and baseline
root = junit(r3)
fails = [c for c in root.iter("testcase") if c.find("failure") is not None]
assert len(fails) == 4 and int(root.get("failures")) == 4, [c.get("name") for c in fails]
for c in fails:
    f = c.find("failure")
    assert c.get("name").startswith("v2_shared ") and f.get("type") == "slower", c.get("name")
    m = f.get("message")
    ratio = float(re.search(r"ratio ([0-9.]+)", m).group(1))
    assert m.startswith("slower: ") and abs(ratio - 1.2) < 0.05, m
    assert re.search(r", p [0-9.e+-]+,", m) and "baseline run %s," % r2 in m, m
props = {p.get("name"): p.get("value") for p in root.find("testsuite/properties")}
assert props["baseline_run"] == r2 and props["result"] == "failed", props

for path in ("c3.json", "e3.json"):
    d = json.load(open("%s/%s" % (tmp, path)))
    v = d["verdict"] if "verdict" in d else d
    assert v["result"] == "failed" and v["exit_code"] == 1 and not v["ok"], v["summary"]
    assert v["baseline"]["run"] == int(r2) and v["baseline"]["slower"] == 4, v["baseline"]
    slow = [t for t in v["tests"] if t["state"] == "fail"]
    assert len(slow) == 4 and all(t["source"] == "timing" and abs(t["ratio"] - 1.2) < 0.05 and t["p"] < 0.01 for t in slow), slow
    assert v["summary"].startswith("FAILED: ari/v2_shared slower 1."), v["summary"]
    # four failures: the summary names three, then ", ..."
    names = v["summary"].split(";")[0]
    assert names.count("ari/v2_shared slower") == 3 and names.endswith(", ..."), v["summary"]
e3 = json.load(open("%s/e3.json" % tmp))
assert e3["format"] == "gpuregress-run" and e3["run"]["id"] == int(r3) and e3["outcomes"] and e3["timings"]

# run 4: an escaped bug (a regression against run 3) and a check after timing that failed
root = junit(r4)
failed = sorted(c.get("name") for c in root.iter("testcase") if c.find("failure") is not None)
assert "v1_shared_uninit (historical)" in failed and "v2_warp timing (fixed)" in failed, failed
esc = [c for c in root.iter("testcase") if c.get("name") == "v1_shared_uninit (historical)"][0]
assert "regression against run %s (caught -> escaped)" % r3 in esc.find("failure").get("message")

# run 5 (noisy): unsure timings are skipped with the reason, never failures
root = junit(r5)
skipped = [c.find("skipped").get("message") for c in root.iter("testcase") if c.find("skipped") is not None]
assert skipped and all(m.startswith("unsure: ") for m in skipped), skipped[:3]
assert root.get("skipped") is None
print("junit: slower, escaped, failed checks and unsure read the same in JUnit, JSON and the banner")
PY

# --baseline none: the run alone (no timing tests); a baseline that is the run itself is refused
"$bin" export --db "$db" --run "$r3" --format junit --baseline none --out "$tmp/alone.xml"
! grep -q "vs baseline" "$tmp/alone.xml" || { echo "FAIL: --baseline none compared"; fails=$((fails + 1)); }
expect 2 "the baseline is the run itself" -- "$bin" export --db "$db" --run "$r3" --format junit --baseline "$r3"

[ "$fails" = 0 ] && echo "junit: all checks passed"
exit $((fails > 0))
