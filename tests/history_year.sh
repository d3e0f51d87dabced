#!/usr/bin/env bash
# The history pages at a year of nights (issue 25): 365 synthetic nights (tests/synth_db, one a
# day, 1% night-to-night noise, sortlike/v2_warp 10% slower from night 300), `gpuregress plot`:
# every history page at most 2 MB (they were 8.8-9.9 MB with one point and one tick per night and
# a min-max band), a dozen ticks, the older nights summarised (about 130 points a series), the
# step's change point on the page, each plot also standalone with gnuplot's mousing and linked;
# where headless Chromium is installed (CI: scripts/setup), the page loads and a screenshot is
# left in SHOTS_DIR.
#   tests/history_year.sh GPUREGRESS SYNTH_DB SHOTS_DIR
set -u
bin=$1 synth=$2 shots=$3
source "$(dirname "$0")/expect.sh"
db="$tmp/year.db"
for i in $(seq 1 365); do
  d=$(date -u -d "2025-11-26 + $i days" +%Y-%m-%d)
  args=(--seed "$i" --commit "$(printf c%04d "$i")" --cases 1 --date "$d" --night-noise 0.01)
  [ "$i" -ge 300 ] && args+=(--slow sortlike/v2_warp=1.10)
  "$synth" "$db" "${args[@]}" >/dev/null || { echo "FAIL: synth_db night $i"; exit 1; }
done
"$bin" plot --db "$db" --out "$tmp/out" >"$tmp/plot.log" 2>&1
command -v gnuplot >/dev/null || { echo "no gnuplot: skipped"; exit 77; }
for page in "$tmp"/out/dashboard/history-*.html; do
  size=$(stat -c %s "$page")
  echo "$(basename "$page"): $size bytes"
  check "$(basename "$page") at most 2 MB ($size bytes)" [ "$size" -le 2097152 ]
done
dat="$tmp/out/plots/trend_sortlike.dat"
ticks=$(awk 'BEGIN{RS=""} NR==1' "$dat" | grep -vc '^#')
check "a dozen ticks, not one per night ($ticks)" [ "$ticks" -le 14 ] && [ "$ticks" -ge 10 ]
points=$(awk 'BEGIN{RS=""} NR==2' "$dat" | grep -vc '^#')
check "365 nights summarised to ~130 points a series ($points)" [ "$points" -ge 120 ] && [ "$points" -le 140 ]
page="$tmp/out/dashboard/history-sortlike.html"
check "the step's change point on the page" grep -q 'class=change data-night="300"' "$page"
zoom=$(grep -o 'href="trend_sortlike_1.svg"' "$page" | head -1)
check "the zoomable plot linked" [ -n "$zoom" ]
check "the zoomable plot has gnuplot's mousing" grep -q "gnuplot_svg" "$tmp/out/dashboard/trend_sortlike_1.svg"
browser=""
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null && { browser=$b; break; }
done
if [ -n "$browser" ]; then
  mkdir -p "$shots"
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-sync \
    --user-data-dir="$(mktemp -d -p "$tmp")" --screenshot="$shots/history-sortlike-365.png" \
    --window-size=1400,2000 "file://$page" >/dev/null 2>&1
  check "Chromium rendered the page" [ -s "$shots/history-sortlike-365.png" ]
else
  echo "no chromium: the page was not loaded in a browser"
fi
[ "$fails" = 0 ] && echo "history_year: 365 nights, every history page under 2 MB, a dozen ticks, older nights summarised"
exit $((fails > 0))
