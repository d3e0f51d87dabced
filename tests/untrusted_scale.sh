#!/usr/bin/env bash
# Untrusted input at scale and in Markdown (issue 41 items 7 and 11):
#  - stored text in `compare --format markdown` (a PR comment, $GITHUB_STEP_SUMMARY): reasons,
#    names, params, the GPU, an acknowledgement's who and why, with HTML tags, </details>, links,
#    images, code spans, line breaks: none reaches the Markdown as syntax, each is shown escaped;
#  - a history of 2 * 10^5 nights (tests/synth_many: one benchmark, 10% slower from night 180000):
#    `history --check` and `compare` take under 60 s of CPU each (they took 56 s at 10^5 nights and
#    grew as the square of the nights: 4 minutes at 2 * 10^5) and find the step; `import` of
#    those 2 * 10^5 runs into a new database under 60 s too (it was quadratic in runs as well).
#   tests/untrusted_scale.sh GPUREGRESS SYNTH_DB SYNTH_MANY DB_QUERY
set -u
bin=$1 synth=$2 many=$3 query=$4
source "$(dirname "$0")/expect.sh"

# ---- Markdown --------------------------------------------------------------------------------
db="$tmp/md.db"
"$synth" "$db" --seed 1 --commit aaaa --date 2026-01-01 >/dev/null
"$synth" "$db" --seed 2 --commit bbbb --date 2026-01-02 --verdict ari/v2_shared=fail \
  --slow ari/v3_global=1.5 >/dev/null
img='<img src=https://evil.example/p.png>'
pay="$img </details> [click](https://evil.example) ![i](https://evil.example/i.png) \`x\` *b* www.evil.example
<img src=https://evil.example/line.png>|cell"
sql() { "$query" -w "$db" "$1" >/dev/null || { echo "FAIL: $1"; fails=$((fails + 1)); }; }
q=${pay//\'/\'\'}
sql "UPDATE outcomes SET reason = '$q' WHERE variant = 'v2_shared'"
sql "UPDATE outcomes SET variant = 'v9$img' WHERE variant = 'dispatch'"
sql "UPDATE timings SET params = params || ' $q' WHERE variant = 'cub'"
sql "UPDATE runs SET gpu_name = 'GPU $img</details>', git_commit = 'b\`<img src=https://evil.example/c.png>'"
"$bin" compare --db "$db" --record >/dev/null 2>&1
"$bin" ack --db "$db" "ari/v3_global" --reason "${pay%%$'\n'*}" --by "$img" >"$tmp/ack.out" 2>&1 ||
  cat "$tmp/ack.out"
check "an acknowledgement with a hostile who and why was stored" \
  [ "$("$query" "$db" "SELECT count(*) FROM acks")" = 1 ]
"$bin" compare --db "$db" --format markdown >"$tmp/md.out" 2>"$tmp/md.err"
check "compare --format markdown ran (exit 1: a failure)" [ $? = 1 ]
check "markdown: a verdict was written" grep -q '^### gpuregress: FAILED' "$tmp/md.out"
# code spans (commands, commits) are literal in Markdown: what matters is the text outside them
sed 's/`[^`]*`//g' "$tmp/md.out" >"$tmp/md.text"
check "markdown: no raw HTML tag of stored text (<img: none fetched)" \
  bash -c "! grep -qi '<img' '$tmp/md.text'"
check "markdown: a stored backtick does not end a code span" grep -qF "\`b'<img src\`" "$tmp/md.out"
check "markdown: no line starts with stored text" bash -c "! grep -q '^[^|#<R>]' '$tmp/md.text'"
check "markdown: one </details>, ours, on the last line" \
  [ "$(grep -c '</details>' "$tmp/md.out")" = 1 ] && [ "$(tail -1 "$tmp/md.out")" = "</details>" ]
check "markdown: no link or image syntax from stored text" \
  bash -c "! grep -qE '\]\(|!\[' '$tmp/md.text'"
check "markdown: no bare URL left to be linked" bash -c "! grep -qE 'https://|www\.evil' '$tmp/md.text'"
check "markdown: the stored text is shown, escaped" grep -qF '&lt;img src' "$tmp/md.out"
# every line of a table is a row: a stored line break does not start a line of its own
check "markdown: a stored line break stays inside its row" \
  bash -c "! grep -q '^&lt;img' '$tmp/md.out' && ! grep -q '^<' <(grep -v '^<details>\|^</details>' '$tmp/md.out')"
rows=$(grep -c '^| ari' "$tmp/md.out")
check "markdown: the rows of the tables are there ($rows)" [ "$rows" -ge 5 ]

# ---- 2 * 10^5 nights -------------------------------------------------------------------------
big="$tmp/big.db"
"$many" "$big" 200000 1 180000 >/dev/null || { echo "FAIL: synth_many"; exit 1; }
# timed in CPU seconds (user + sys; wall time on a shared runner says more of the others' load)
cpu() { # cpu NAME COMMAND...: runs it, its exit code in $rc, output in $tmp/NAME.out, ms in $t
  local name=$1 TIMEFORMAT='%3U %3S'
  shift
  { time timeout 280 "$@" >"$tmp/$name.out" 2>&1; } 2>"$tmp/$name.time"
  rc=$?
  t=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$tmp/$name.time")
}
cpu history "$bin" history --check --db "$big"
check "history --check of 2*10^5 nights: exit 0 ($rc), the step found" [ "$rc" = 0 ] &&
  check "history --check: the step" grep -q "1 change points in 1 benchmarks: 1 slower" "$tmp/history.out"
check "history --check of 2*10^5 nights within 60 s of CPU ($t ms)" [ "$t" -lt 60000 ]
echo "2*10^5 nights: history --check $t ms of CPU"
cpu compare "$bin" compare --db "$big"
check "compare over 2*10^5 nights: exit 1 ($rc), the step open" [ "$rc" = 1 ] &&
  check "compare: the step" grep -q "still slower" "$tmp/compare.out"
check "compare over 2*10^5 nights within 60 s of CPU ($t ms)" [ "$t" -lt 60000 ]
echo "2*10^5 nights: compare $t ms of CPU"
# import: each copied row looked its new id up by a scan of the map (10^4 runs took 4 s of CPU,
# 10^6 would take hours, the nightly's writers locked out meanwhile)
cpu import "$bin" import "$big" --db "$tmp/into.db"
check "import of 2*10^5 runs: exit 0 ($rc), every run" [ "$rc" = 0 ] &&
  check "import: every run" grep -q "200000 runs added" "$tmp/import.out"
check "import of 2*10^5 runs within 60 s of CPU ($t ms)" [ "$t" -lt 60000 ]
echo "2*10^5 runs: import $t ms of CPU"

[ "$fails" = 0 ] && echo "untrusted_scale: Markdown escapes every stored field; 2*10^5 nights read and imported in seconds"
exit $((fails > 0))
