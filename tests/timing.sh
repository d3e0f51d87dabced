#!/usr/bin/env bash
# The timing layer's commands on a synthetic database (tests/synth_db.c writes runs with outcomes,
# timings and samples as a GPU run would): compare finds a 20% slowdown and correctness
# transitions and nothing in two runs of one distribution; per-algorithm overrides; baselines
# from another database file; export's JSON, CSV and JUnit parse with the right counts; plot
# writes the data, plots (when gnuplot exists) and the dashboard; bench's command line without a
# GPU (skipped, exit 3) and its usage errors.
#   tests/timing.sh GPUREGRESS SYNTH_DB DB_QUERY
set -u
bin=$1
synth=$2
dbq=$3
source "$(dirname "$0")/expect.sh"

for c in bench compare plot export; do
  expect 0 "usage: gpuregress $c" -- "$bin" "$c" --help
done

db="$tmp/s.db"
expect 2 "no database" -- "$bin" compare --db "$db"
r1=$("$synth" "$db" --seed 1 --commit 1111111)
r2=$("$synth" "$db" --seed 2 --commit 2222222)

# two draws of one distribution: same everywhere, exit 0
expect 0 "timings: 34 same, 0 faster, 0 slower, 0 unsure" -- "$bin" compare --db "$db"
expect 0 "result: ok" -- "$bin" compare --db "$db" --run "$r2" --baseline "$r1"
# the first run has no baseline: nothing compared, not a failure
expect 0 "nothing compared" -- "$bin" compare --db "$db" --run "$r1"
# ... which scripts read from the status file (ci/nightly)
"$bin" compare --db "$db" --run "$r1" --status-file "$tmp/c1" >/dev/null
"$bin" compare --db "$db" --run "$r2" --status-file "$tmp/c2" >/dev/null
check "compare status files" grep -qx "compared=0" "$tmp/c1"
check "compare status files" grep -qx "compared=1" "$tmp/c2"
check "compare status files" grep -qx "result=ok" "$tmp/c2"
# a timings-only run after a fuzz-only run (gpu-check's pair): the fuzz run is no baseline
db2="$tmp/pair.db"
"$synth" "$db2" --seed 1 --no-timings >/dev/null
rb=$("$synth" "$db2" --seed 2 --no-outcomes)
expect 0 "nothing compared" -- "$bin" compare --db "$db2" --run "$rb"

# a variant 20% slower: slower at every size, exit 1
r3=$("$synth" "$db" --seed 3 --commit 3333333 --slow ari/v2_shared=1.2)
out=$("$bin" compare --db "$db" 2>&1)
rc=$?
check "slowdown: exit 1 (got $rc)" [ "$rc" = 1 ]
check "slowdown: 4 slower rows of ari/v2_shared" [ "$(grep -c '^ari  *v2_shared .* slower' <<<"$out")" = 4 ]
check "slowdown: counts" grep -qF "30 same, 0 faster, 4 slower, 0 unsure" <<<"$out"
# ... below a per-algorithm minimum effect of 25%: same
expect 0 "34 same, 0 faster, 0 slower" -- "$bin" compare --db "$db" --min-effect 0.05,ari=0.25
expect 1 "4 slower" -- "$bin" compare --db "$db" --min-effect sortlike=0.25
# ... and faster the other way round
expect 0 "4 faster" -- "$bin" compare --db "$db" --run "$r2" --baseline "$r3"
expect 2 "bad value 'ari=x'" -- "$bin" compare --db "$db" --min-effect ari=x
expect 2 "bad value '2'" -- "$bin" compare --db "$db" --alpha 2
expect 2 "no run 99" -- "$bin" compare --db "$db" --run 99
expect 2 "the baseline is the run itself" -- "$bin" compare --db "$db" --run "$r3" --baseline "$r3"

# correctness transitions: caught -> escaped, and a fixed variant's check failing after timing
r4=$("$synth" "$db" --seed 4 --commit 4444444 --verdict ari/v1_shared_uninit=escaped \
  --check sortlike/v2_warp=fail)
out=$("$bin" compare --db "$db" --run "$r4" --baseline "$r2" 2>&1)
rc=$?
check "transitions: exit 1 (got $rc)" [ "$rc" = 1 ]
check "transitions: escaped" grep -qE 'v1_shared_uninit +historical +caught +-> escaped +REGRESSION' <<<"$out"
check "transitions: check after timing" grep -qF "REGRESSION: check pass -> fail" <<<"$out"
check "transitions: count" grep -qF "correctness regressions: 5" <<<"$out"

# a baseline in another database file (export --format db), on the same GPU model
base="$tmp/base.db"
expect 0 "" -- "$bin" export --db "$db" --run "$r1" --format db --out "$base"
expect 2 "exists" -- "$bin" export --db "$db" --run "$r1" --format db --out "$base"
check "baseline db holds one run" [ "$("$dbq" "$base" 'SELECT count(*) FROM runs')" = 1 ]
check "baseline db holds the samples" [ "$("$dbq" "$base" 'SELECT count(*) FROM samples')" = \
  "$("$dbq" "$db" "SELECT count(*) FROM samples s JOIN timings t ON s.timing_id = t.id WHERE t.run_id = $r1")" ]
expect 1 "against run $r1" -- "$bin" compare --db "$db" --run "$r3" --baseline "$base"
expect 0 "34 same" -- "$bin" compare --db "$db" --run "$r2" --baseline "$base"
expect 2 "cannot read baseline" -- "$bin" compare --db "$db" --baseline "$tmp/nope.db"
echo "not a db" >"$tmp/text.db"
expect 2 "baseline" -- "$bin" compare --db "$db" --baseline "$tmp/text.db"
# another GPU model in the baseline file: timings are not comparable (unsure), not slower
other="$tmp/other.db"
"$synth" "$other" --gpu "Other GPU" --seed 9 >/dev/null
expect 0 "another GPU model" -- "$bin" compare --db "$db" --run "$r3" --baseline "$other"

# export: JSON, CSV, JUnit
"$bin" export --db "$db" --run "$r4" --format json --out "$tmp/r.json"
"$bin" export --db "$db" --run "$r4" --format csv --out "$tmp/r.csv"
"$bin" export --db "$db" --run "$r4" --format junit --baseline none --out "$tmp/r.xml"
n_timings=$("$dbq" "$db" "SELECT count(*) FROM timings WHERE run_id = $r4")
check "csv rows" [ "$(($(wc -l <"$tmp/r.csv") - 1))" = "$n_timings" ]
check "csv header" grep -q '^run_id,algorithm,variant,kind,params,seed,l2,samples' "$tmp/r.csv"
if command -v python3 >/dev/null; then
  python3 - "$tmp/r.json" "$tmp/r.xml" "$n_timings" <<'EOF' || { echo "FAIL: export parse"; fails=$((fails + 1)); }
import json, sys, xml.etree.ElementTree as ET
d = json.load(open(sys.argv[1]))
assert d["format"] == "gpuregress-run" and d["run"]["id"] > 0, d["run"]
assert len(d["outcomes"]) == 8, len(d["outcomes"])
assert len(d["timings"]) == int(sys.argv[3]), len(d["timings"])
root = ET.parse(sys.argv[2]).getroot()
assert root.tag == "testsuites"
cases = root.findall(".//testcase")
# 8 outcomes + 8 timing checks (one per algorithm and variant)
assert len(cases) == 8 + 8 == int(root.get("tests")), (len(cases), root.get("tests"))
failed = [c.get("name") for c in cases if c.find("failure") is not None]
assert sorted(failed) == ["v1_shared_uninit (historical)", "v2_warp timing (fixed)"], failed
assert int(root.get("failures")) == 2
skipped = [c for c in cases if c.find("skipped") is not None]
assert root.get("skipped") is None and len(skipped) == 0
for s in root.findall("testsuite"):
    assert int(s.get("tests")) == len(s.findall("testcase"))
EOF
else
  echo "timing.sh: python3 missing: JSON and JUnit not parsed"
fi
expect 2 "unknown format 'yaml'" -- "$bin" export --db "$db" --format yaml
expect 2 "missing --format" -- "$bin" export --db "$db"

# plot: data files always; PNG/SVG and the dashboard's embedded plots with gnuplot
out="$tmp/results"
"$bin" plot --db "$db" --run "$r4" --out "$out" >"$tmp/plot.log" 2>&1
rc=$?
for d in ari_sizes sortlike_sizes trend_ari trend_sortlike catch; do
  check "plot data $d" [ -s "$out/plots/$d.dat" ]
done
check "history pages" [ -s "$out/dashboard/history-ari.html" ] && [ -s "$out/dashboard/history-sortlike.html" ]
check "dashboard" grep -qF "gpuregress &mdash; run $r4" "$out/dashboard/index.html"
check "dashboard: regression shown" grep -qF "escaped" "$out/dashboard/index.html"
check "dashboard: no external assets" bash -c "! grep -qE '(src|href)=\"(https?:|//)' '$out/dashboard/index.html'"
if command -v gnuplot >/dev/null; then
  check "plot exit 0 (got $rc: $(cat "$tmp/plot.log"))" [ "$rc" = 0 ]
  for p in ari_sizes sortlike_sizes catch; do
    check "plot $p.png" [ -s "$out/plots/$p.png" ]
    check "plot $p.svg" [ -s "$out/plots/$p.svg" ]
  done
  check "dashboard embeds the plots" [ "$(grep -c 'data:image/svg+xml;base64' "$out/dashboard/index.html")" = 3 ]
  # one trend per timed benchmark: the 34 that compare compares
  check "trend plots" [ "$(ls "$out"/plots/trend_*.svg | wc -l)" = 34 ]
  check "history page embeds the trends" \
    [ "$(grep -c 'data:image/svg+xml;base64' "$out/dashboard/history-sortlike.html")" = 16 ]
else
  check "plot without gnuplot: exit 3 (got $rc)" [ "$rc" = 3 ]
fi
expect 2 "no run 77" -- "$bin" plot --db "$db" --run 77 --out "$out"
# values are escaped in the page: the GPU name of the other database holds HTML
"$synth" "$tmp/html.db" --gpu 'Odd <GPU> & "co"' --seed 5 >/dev/null
"$bin" plot --db "$tmp/html.db" --out "$tmp/html" >/dev/null 2>&1
check "dashboard escapes values" grep -qF 'Odd &lt;GPU&gt; &amp; &quot;co&quot;' "$tmp/html/dashboard/index.html"
# an algorithm whose work model counts items (sgm: cells) shows items/s and % of its own peak
if command -v python3 >/dev/null; then
  cp "$tmp/html.db" "$tmp/unit.db"
  python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE timings SET item_unit = 'cells', peak_items_per_s = 2e12, pct_peak = 12.5, items_per_s = 2.5e11 WHERE algorithm = 'ari'\"); c.commit()" "$tmp/unit.db"
  "$bin" plot --db "$tmp/unit.db" --out "$tmp/unit" >/dev/null 2>&1
  check "dashboard: the algorithm's unit" grep -qF '<th>cells/s</th><th>% of peak (2T cells/s)</th>' "$tmp/unit/dashboard/index.html"
  check "dashboard: items/s and % of peak" grep -qF '<td class=num>250G</td><td class=num>12.5%</td>' "$tmp/unit/dashboard/index.html"
  check "dashboard: others keep GB/s" grep -qF '<th>GB/s</th><th>% copy bw</th>' "$tmp/unit/dashboard/index.html"
fi
# the page template is found beside the binary (share/dashboard.html), else a clear error
mkdir -p "$tmp/bare"
cp "$bin" "$(dirname "$bin")"/libbenchmark* "$tmp/bare/" 2>/dev/null
expect 2 "dashboard template '$tmp/bare/share/dashboard.html' is missing" -- \
  "$tmp/bare/gpuregress" plot --db "$db" --run "$r4" --out "$tmp/bare/out"

# the reading commands change no database: a foreign one is refused and left byte-identical,
# a gpuregress one is read as it is
if command -v python3 >/dev/null; then
  python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE foo (x)'); c.commit()" "$tmp/foreign.db"
  cp "$tmp/foreign.db" "$tmp/foreign.orig"
  expect 2 "is not a gpuregress database" -- "$bin" compare --db "$tmp/foreign.db"
  expect 2 "is not a gpuregress database" -- "$bin" export --db "$tmp/foreign.db" --format json
  expect 2 "is not a gpuregress database" -- "$bin" plot --db "$tmp/foreign.db" --out "$tmp/f"
  check "foreign database unchanged" cmp -s "$tmp/foreign.db" "$tmp/foreign.orig"
fi
cp "$db" "$tmp/before.db"
"$bin" compare --db "$db" --baseline "$base" >/dev/null 2>&1
"$bin" export --db "$db" --format json --out "$tmp/again.json"
check "compare and export change no database" cmp -s "$db" "$tmp/before.db"
check "no files left beside the databases" bash -c "! ls '$tmp'/*.db-wal '$tmp'/*.db-shm 2>/dev/null"

# bench: usage errors; without a GPU every benchmark is skipped with the reason, exit 3
expect 2 "bad size 'x'" -- "$bin" bench --db "$tmp/b.db" --sizes x
# the sweep's last index is the last size: one past it is refused (selftest's sweep has 4 sizes)
expect 2 "size 4 in '--sizes 4' is beyond every selected sweep (the longest has 4 sizes: 0..3)" \
  -- "$bin" bench --db "$tmp/b.db" selftest --sizes 4
expect 2 "unknown algorithm 'nosuch'" -- "$bin" bench --db "$tmp/b.db" nosuch
expect 2 "nothing to time" -- "$bin" bench --db "$tmp/b.db" selftest/wrong
expect 2 "unknown Google Benchmark flag" -- "$bin" bench --db "$tmp/b.db" --quick --benchmark_nonsense=1
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  expect 3 "benchmarks skipped: " -- "$bin" bench --db "$tmp/b.db" --quick --quiet
  "$bin" bench --db "$tmp/b.db" --quick --quiet --status-file "$tmp/b.status" >/dev/null 2>&1
  check "bench status file" grep -qx "result=no_gpu" "$tmp/b.status"
  check "skips stored" [ "$("$dbq" "$tmp/b.db" "SELECT count(*) FROM timings WHERE verdict = 'skip'")" -gt 0 ]
fi

[ "$fails" = 0 ] && echo "timing: all checks passed"
exit $((fails > 0))
