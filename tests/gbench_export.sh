#!/usr/bin/env bash
# export --format gbench (issue 25): a stored run as Google Benchmark's JSON with every stored
# sample a repetition, read the way tools/compare.py reads it (names, time units, repetitions,
# aggregates): two synthetic runs, the second with sortlike/v2_warp 20% slower; the U test over
# the exported repetitions (scipy's, as compare.py runs it, where scipy is installed) finds it
# with p < 0.05 and the median ratio ~1.20, and nothing else moves. Set GBENCH_COMPARE to
# Google Benchmark's tools/compare.py to run it too. And compare's clock warning: two runs whose
# SM clocks differ by more than 5% warn in the text, JUnit and Markdown.
#   tests/gbench_export.sh GPUREGRESS SYNTH_DB DB_QUERY
set -u
bin=$1 synth=$2 dbq=$3
source "$(dirname "$0")/expect.sh"
db="$tmp/g.db"
"$synth" "$db" --seed 1 --commit c001 --date 2026-10-01 >/dev/null &&
  "$synth" "$db" --seed 2 --commit c002 --date 2026-10-02 --slow sortlike/v2_warp=1.20 >/dev/null ||
  { echo "FAIL: synth_db"; exit 1; }
expect 2 "unknown format 'gbnch'" -- "$bin" export --db "$db" --run 1 --format gbnch
expect 0 "" -- "$bin" export --db "$db" --run 1 --format gbench --out "$tmp/base.json"
expect 0 "" -- "$bin" export --db "$db" --run 2 --format gbench --out "$tmp/new.json"
samples=$("$dbq" "$db" "SELECT count(*) FROM samples s JOIN timings t ON s.timing_id = t.id WHERE t.run_id = 1")
python3 - "$tmp/base.json" "$tmp/new.json" "$samples" <<'PY' || fails=$((fails + 1))
import json, sys
base, new = (json.load(open(p)) for p in sys.argv[1:3])
samples = int(sys.argv[3])
bad = []
for d in (base, new):
    if d["context"].get("json_schema_version") != 1:
        bad.append("json_schema_version")
    for b in d["benchmarks"]:
        if not all(k in b for k in ("name", "run_name", "run_type", "repetitions", "real_time", "cpu_time", "time_unit")):
            bad.append("fields of " + b.get("name", "?"))
        if b["time_unit"] != "ns":
            bad.append("time unit")
it = [b for b in base["benchmarks"] if b["run_type"] == "iteration"]
if len(it) != samples:
    bad.append("%d repetitions for %d stored samples" % (len(it), samples))
names = lambda d: sorted({b["name"] for b in d["benchmarks"]})
if names(base) != names(new):
    bad.append("the two runs name their benchmarks differently")
for b in it:
    if b["repetitions"] != sum(1 for c in it if c["name"] == b["name"]):
        bad.append("repetitions of " + b["name"])
        break
aggs = {b["aggregate_name"] for b in base["benchmarks"] if b["run_type"] == "aggregate"}
if aggs != {"mean", "median", "stddev"}:
    bad.append("aggregates %s" % sorted(aggs))
try:
    from scipy.stats import mannwhitneyu
except ImportError:
    mannwhitneyu = None
    print("gbench_export: no scipy here: the U test is left to compare.py (GBENCH_COMPARE)")
for name in sorted({b["run_name"] for b in it}):
    x = [b["real_time"] for b in it if b["name"] == name]
    y = [b["real_time"] for b in new["benchmarks"] if b["name"] == name and b["run_type"] == "iteration"]
    med = lambda v: sorted(v)[len(v) // 2]
    ratio = med(y) / med(x)
    slow = name.startswith("sortlike/v2_warp/")
    if slow and not 1.15 < ratio < 1.25:
        bad.append("%s: median ratio %.3f (want ~1.20)" % (name, ratio))
    if not slow and not 0.9 < ratio < 1.1:
        bad.append("%s: median ratio %.3f (want ~1)" % (name, ratio))
    if mannwhitneyu and slow:
        p = mannwhitneyu(x, y, alternative="two-sided").pvalue
        if not p < 0.05:
            bad.append("%s: U test p %.3g" % (name, p))
for b in bad[:10]:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
if [ -n "${GBENCH_COMPARE:-}" ]; then
  python3 "$GBENCH_COMPARE" -a benchmarks "$tmp/base.json" "$tmp/new.json" >"$tmp/cmp.txt" 2>&1 ||
    { echo "FAIL: compare.py: $(tail -3 "$tmp/cmp.txt")"; fails=$((fails + 1)); }
  sed 's/\x1b\[[0-9;]*m//g' "$tmp/cmp.txt" | grep -E 'sortlike/v2_warp/.*_median' | head -2
fi

# clocks: run 2 timed at 1500 MHz, run 1 at 1980 MHz
"$dbq" -w "$db" "UPDATE timings SET sm_clock_mhz = 1500 WHERE run_id = 2" || fails=$((fails + 1))
"$dbq" -w "$db" "UPDATE samples SET sm_clock_mhz = 1500 WHERE timing_id IN (SELECT id FROM timings WHERE run_id = 2)" || fails=$((fails + 1))
expect 1 "warning: clocks differ: SM clock 1980 MHz in run 1, 1500 MHz in run 2" -- "$bin" compare --db "$db" --run 2
expect 1 "" -- "$bin" compare --db "$db" --run 2 --max-clock-diff 0.3 # no warning then
"$bin" compare --db "$db" --run 2 --max-clock-diff 0.3 2>/dev/null | grep -q "clocks differ" &&
  { echo "FAIL: --max-clock-diff 0.3 still warns"; fails=$((fails + 1)); }
"$bin" export --db "$db" --run 2 --format junit 2>/dev/null | grep -q '<property name="clock_warning" value="SM clock 1980 MHz in run 1, 1500 MHz in run 2' ||
  { echo "FAIL: no clock_warning property in JUnit"; fails=$((fails + 1)); }
"$bin" compare --db "$db" --run 2 --format markdown 2>/dev/null | grep -q '^> \*\*Clocks differ:\*\* SM clock 1980' ||
  { echo "FAIL: no clock warning in the Markdown"; fails=$((fails + 1)); }
expect 2 "bad value" -- "$bin" compare --db "$db" --run 2 --max-clock-diff -1
[ "$fails" = 0 ] && echo "gbench_export: every stored sample a repetition; the planted 20% found by the U test; clocks that differ warn"
exit $((fails > 0))
