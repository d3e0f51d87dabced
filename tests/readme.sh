#!/usr/bin/env bash
# The README as a newcomer reads it (issue 26): every command of its ```sh blocks runs as written,
# its links lead to files that exist, and it stays short, with the task sections it promises.
#   tests/readme.sh SOURCE_DIR BUILD_DIR
# What `gpuregress list` and the commands' --help cite (doc/..., *.md, source files), and the
# harness/ and include/ files the README and doc/ name, must exist too.
# `gpuregress ...` lines run in a scratch folder holding the committed sample night
# (results/sample/), with BUILD_DIR on PATH, each expected to exit 0, or N where its comment says
# "exit N" (plot: 3 also, gnuplot missing). A comment starting "GPU" marks a line that needs a GPU
# (not run here; scripts/gpu-check runs the GPU side), "no GPU" one that runs only without a GPU.
# `scripts/...` and `ci/...` lines: the program exists and is executable, and scripts/suite takes
# the options given (GR_SUITE_DRY_RUN=1).
src=$1
build=$2
source "$(dirname "$0")/expect.sh"
readme=$src/README.md
gpu=0
nvidia-smi -L >/dev/null 2>&1 && gpu=1

# 1. shape: about 250 lines, a table of contents, the task sections
n=$(wc -l <"$readme")
check "README within about 250 lines (has $n; at most 270)" [ "$n" -le 270 ]
for h in "Run it" "Read the night" "Reproduce a failure" "Add your kernel" "Run it in CI" "Exit codes"; do
  check "README section '$h'" grep -qx "## $h" "$readme"
  anchor=$(tr 'A-Z ' 'a-z-' <<<"$h")
  check "README contents link to '$h'" grep -q "](#$anchor)" "$readme"
done

# 2. every relative link names a file of the repository
while read -r link; do
  check "README link '$link' exists" [ -e "$src/${link%%#*}" ]
done < <(grep -o '](\([a-zA-Z][^):]*\))' "$readme" | sed 's/^](//; s/)$//' | grep -v '^#')
for page in "$src"/doc/*.md; do
  while read -r link; do
    check "$(basename "$page") link '$link' exists" [ -e "$(dirname "$page")/${link%%#*}" ]
  done < <(grep -o '](\([a-zA-Z.][^):]*\))' "$page" | sed 's/^](//; s/)$//' | grep -v '^#\|^https\?:')
done

# the source files the README and doc/ name (they move: harness/ is in folders, the API in include/)
for f in $(grep -ohE '\b(harness|include)/[A-Za-z0-9_/]+\.(c|h|cu|cc|html)\b' "$readme" "$src"/doc/*.md | sort -u); do
  check "'$f', named by the README or doc/, exists" [ -e "$src/$f" ]
done

# 3. what `list` and every command's --help cite is in the repository (results/ is written by the
# tools, scripts/ and page names are folders and outputs)
cited=$( { gpuregress_help() { "$build/gpuregress" "$@" 2>&1; }
  gpuregress_help --help
  for c in $("$build/gpuregress" --help | awk '/^  [a-z]/ {print $1}'); do gpuregress_help "$c" --help; done
  gpuregress_help list; gpuregress_help list '*'; } |
  grep -oE '\b(doc|harness|algorithms|tests|ci|datasets|include|examples)/[A-Za-z0-9_./-]*[A-Za-z0-9_]|[A-Za-z0-9_/-]+\.md\b' | sort -u)
for path in $cited; do
  check "'$path', cited by list or --help, is in the repository" [ -e "$src/$path" ]
done

# 4. the commands
work="$tmp/work"
mkdir -p "$work/results/sample"
cp "$src/results/sample/h100-night.db" "$work/results/sample/"
export PATH="$build:$PATH"
ran=0 skipped=0
while IFS= read -r line; do
  [ -z "$line" ] && continue
  cmd=$(sed -E 's/[[:space:]]+#[[:space:]].*$//' <<<"$line")
  comment=$(sed -nE 's/^.*[[:space:]]#[[:space:]]+(.*)$/\1/p' <<<"$line")
  case $comment in
  GPU*) skipped=$((skipped + 1)); continue ;;
  "no GPU"*) [ $gpu = 1 ] && { skipped=$((skipped + 1)); continue; } ;;
  esac
  want=0
  [[ $comment =~ exit\ ([0-9]+) ]] && want=${BASH_REMATCH[1]}
  case $cmd in
  gpuregress\ *)
    out=$(cd "$work" && bash -c "$cmd" 2>&1)
    rc=$?
    [ "$rc" = 3 ] && [[ $cmd == "gpuregress plot "* ]] && ! command -v gnuplot >/dev/null && rc=0
    if [ "$rc" != "$want" ]; then
      echo "FAIL: README command '$cmd' -> exit $rc (expected $want):"
      echo "$out" | tail -15
      fails=$((fails + 1))
    fi
    # what a newcomer sees: no warning from our gnuplot scripts (an empty data set of a variant
    # with no timing); the system's own (fontconfig, locale) are not ours to judge
    if [[ $cmd == "gpuregress plot "* ]] && grep -qE '\.gp" line [0-9]+: warning:' <<<"$out"; then
      echo "FAIL: README command '$cmd' prints gnuplot warnings:"
      grep -E '\.gp" line [0-9]+: warning:' <<<"$out" | head -5
      fails=$((fails + 1))
    fi
    ran=$((ran + 1)) ;;
  scripts/* | ci/*)
    prog=${cmd%% *}
    check "README program '$prog' exists" [ -x "$src/$prog" ]
    if [ "$prog" = scripts/suite ]; then
      read -ra words <<<"$cmd"
      expect 0 "options ok" -- env GR_SUITE_DRY_RUN=1 "$src/scripts/suite" "${words[@]:1}"
    fi
    ran=$((ran + 1)) ;;
  *) echo "FAIL: README command of no known kind: '$line'"; fails=$((fails + 1)) ;;
  esac
done < <(awk '/^```sh$/ {on = 1; next} /^```/ {on = 0} on' "$readme")
echo "README: $ran commands run or checked, $skipped need a GPU$([ $gpu = 1 ] && echo " or its absence"), $fails failures"
check "README has commands to run" [ "$ran" -ge 10 ]
[ "$fails" = 0 ]
