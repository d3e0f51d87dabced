#!/usr/bin/env bash
# The dashboard of a 30-night synthetic history (tests/synth_nights.sh: sortlike/v2_warp 10%
# slower from night 20, everything else flat) rendered by headless Chromium: in the DOM the
# browser builds, the trend sections of sortlike/v2_warp carry the change mark at night 20 (and
# their change rows say night 20, c019..c020), no other section carries one (ari: none at all),
# and the index of nights lists 30 nights with 4 changes to slower on night 20. A screenshot of
# each page is left in SHOTS_DIR to look at. Exit 77 (skipped) where Chromium is absent.
#   tests/dashboard_browser.sh GPUREGRESS SYNTH_DB SHOTS_DIR
set -u
bin=$1
synth=$2
shots=$3
here=$(dirname "$0")
browser=""
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null && { browser=$b; break; }
done
[ -n "$browser" ] || { echo "no chromium: skipped"; exit 77; }
source "$here/expect.sh"

db="$tmp/step.db"
"$here/synth_nights.sh" "$synth" "$db" step || { echo "FAIL: synth_nights"; exit 1; }
# plot exits 3 without gnuplot: the pages are written all the same (without the plots)
"$bin" plot --db "$db" --out "$tmp/out" >/dev/null
check "plot wrote the pages" [ -f "$tmp/out/dashboard/history-sortlike.html" ]

browse() { # browse PAGE ARGS...: headless Chromium on a file of the dashboard, a fresh profile
  local page=$1
  shift
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --no-first-run --disable-component-update --disable-sync --user-data-dir="$(mktemp -d -p "$tmp")" \
    "$@" "file://$tmp/out/dashboard/$page" 2>/dev/null
}
mkdir -p "$shots"
for page in index history-sortlike history-ari; do
  browse "$page.html" --dump-dom >"$tmp/$page.dom"
  check "$page: the browser built a DOM" grep -q "</html>" "$tmp/$page.dom"
  browse "$page.html" --screenshot="$shots/$page.png" --window-size=1400,2400 >/dev/null
done
sections() { grep -o '<section class="bench" data-bench="[^"]*" data-changes="[^"]*"' "$1"; }
s=$(sections "$tmp/history-sortlike.dom")
check "sortlike: 16 benchmark sections (got $(wc -l <<<"$s"))" [ "$(wc -l <<<"$s")" = 16 ]
check "sortlike/v2_warp: 4 sections marked at night 20" \
  [ "$(grep -c 'data-bench="sortlike/v2_warp/n=[0-9]* dist=uniform/cold" data-changes="20"' <<<"$s")" = 4 ]
check "no other section marked" [ "$(grep -vc 'data-changes=""' <<<"$s")" = 4 ]
check "4 change rows at night 20" \
  [ "$(grep -c '<tr class="change" data-night="20" data-run="20">' "$tmp/history-sortlike.dom")" = 4 ]
check "their commit range" [ "$(grep -c 'git log c019..c020' "$tmp/history-sortlike.dom")" = 4 ]
check "4 marks under the plots at night 20" \
  [ "$(grep -c 'class="mark b bad" data-night="20"' "$tmp/history-sortlike.dom")" = 4 ]
a=$(sections "$tmp/history-ari.dom")
check "ari (the control): sections, none marked" \
  [ "$(wc -l <<<"$a")" -gt 10 ] && [ "$(grep -vc 'data-changes=""' <<<"$a")" = 0 ]
check "ari: no change row" [ "$(grep -c 'class="change"' "$tmp/history-ari.dom")" = 0 ]
check "index: 30 nights" [ "$(grep -c '<tr data-run="[0-9]*" data-night="[0-9]*"[^>]*>' "$tmp/index.dom")" = 30 ]
check "index: night 20 has the 4 changes to slower" \
  grep -qE '<tr data-run="20" data-night="20"[^>]*>.*4 slower' "$tmp/index.dom"
check "index: night 21 has none" grep -qE '<tr data-run="21" data-night="21"[^>]*>.*0 slower' "$tmp/index.dom"
check "index: links to the history pages" grep -q 'href="history-sortlike.html"' "$tmp/index.dom"
for page in index history-sortlike history-ari; do
  check "$page: a screenshot" [ -s "$shots/$page.png" ]
done

[ "$fails" = 0 ] && echo "dashboard_browser: all checks passed (screenshots in $shots)"
exit $((fails > 0))
