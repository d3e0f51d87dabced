#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shape of the source tree, checked (issue 21):
#   - no file of harness/ over 500 lines;
#   - no include circle between the harness's modules (a module is NAME.c with NAME.h, a header
#     alone, NAME_private.h belongs to NAME): the graph of `#include "..."` edges sorts
#     topologically (tsort), printed with --print;
#   - one place forks: harness/core/child.c (gnuplot, workers, benchmarks, sanitizers go through it);
#   - every CPU reference is algorithms/<alg>/<alg>_ref.c beside its variants, and includes only
#     the C library, <gpuregress/...> and other references (no folder reference/);
#   - no central list of algorithms: each table registers itself (GR_REGISTER_ALGORITHM);
#   - every file of the tree that the code names (in a comment) exists;
#   - no function of harness/ over 80 lines, no two-file call circle (tests/callgraph.py), but
#     for the listed debt (tests/layout_debt.txt), which may only shrink;
#   tests/layout.sh SOURCE_DIR [--print]
set -u
src=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$src" || exit 2

# 1. sizes
while read -r n f; do
  [ "$f" = total ] && continue
  [ "$n" -gt 500 ] && fail "$f has $n lines (at most 500)"
done < <(find harness -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cc' \) \
           -print0 | xargs -0 wc -l)

# 2. include graph
module() { local b; b=$(basename "$1"); b=${b%.*}; echo "${b%_private}"; }
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
declare -A known
while read -r f; do known[$(basename "$f")]=1; done < <(find harness include -name '*.h')
while read -r f; do
  m=$(module "$f")
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
    [ -n "${known[$(basename "$inc")]:-}" ] || continue
    t=$(module "$inc")
    [ "$t" != "$m" ] && echo "$m $t"
  done
done < <(find harness include -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cc' \) |
           sort) |
  sort -u >"$edges"
if [ "${2:-}" = --print ]; then
  awk '{a[$1] = a[$1] " " $2} END {for (m in a) print m ":" a[m]}' "$edges" | sort
fi
tsort "$edges" >/dev/null 2>"$edges.err" || true
if [ -s "$edges.err" ]; then
  fail "an include circle between harness modules:"
  cat "$edges.err"
fi
rm -f "$edges.err"
[ "$(wc -l <"$edges")" -gt 50 ] || fail "the include graph looks empty ($(wc -l <"$edges") edges)"

# 3. one fork site
forks=$(grep -rlE "\<v?fork *\(" harness | sort)
[ "$forks" = harness/core/child.c ] || fail "fork outside harness/core/child.c: $forks"

# 4. references
[ -e reference ] && fail "a folder reference/ exists: references live in algorithms/<alg>/<alg>_ref.c"
n=0
for d in algorithms/*/; do
  a=$(basename "$d")
  [ -f "$d/CMakeLists.txt" ] || continue
  [ -f "$d/${a}_ref.c" ] && [ -f "$d/${a}_ref.h" ] || { fail "$d has no ${a}_ref.c/.h"; continue; }
  n=$((n + 1))
  bad=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
          "$d/${a}_ref.c" "$d/${a}_ref.h" | grep -Ev '(^|/)([a-z0-9_]+_ref|[a-z0-9_]+_math)\.h$')
  [ -z "$bad" ] || fail "${a}_ref includes more than the C library, <gpuregress/...>, references: $bad"
done
[ "$n" -ge 6 ] || fail "only $n algorithms with a reference"

# 5. no central list: the registry names no algorithm, each table registers itself
if grep -v gr_register_algorithm harness/core/registry.c | sed "s/\<gr_algorithm\>//g" | grep -Eq "[a-z_]+_algorithm\b"; then
  fail "harness/core/registry.c names an algorithm: $(grep -Eo '[a-z_]+_algorithm\b' harness/core/registry.c | head -3)"
fi
for f in $(grep -l '^const struct gr_algorithm [a-z0-9_]*_algorithm = {' algorithms/*/*.c harness/core/*.c); do
  for t in $(sed -n 's/^const struct gr_algorithm \([a-z0-9_]*_algorithm\) = {.*/\1/p' "$f"); do
    grep -q "^GR_REGISTER_ALGORITHM($t);" "$f" || fail "$f: $t does not register itself"
  done
done

# 6. a file of the tree named in the code (a comment's "see harness/core/child.c") exists: a
# move leaves no comment pointing at the old place. Paths under ci/ and cmake/ name installed or
# container paths too, and are not checked.
code=$(find harness include algorithms datasets tests scripts examples -type f \( -name '*.c' \
         -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cc' -o -name '*.sh' \
         -o -name CMakeLists.txt \) 2>/dev/null)
while read -r ref; do
  [ -e "$ref" ] || fail "a path named in the code does not exist: '$ref' ($(grep -lF "$ref" $code | head -2 | tr '\n' ' '))"
done < <(grep -ohE '\<(harness|algorithms|datasets|include|examples)/[A-Za-z0-9_./-]+\.(c|h|cu|cuh|cc|html|txt|cmake|md)\>' \
           $code | sort -u)

# 7. no function of harness/ over 80 lines and no two-file call circle, but for the debt listed
#    in tests/layout_debt.txt, which only shrinks (tests/callgraph.py)
if ! out=$(python3 "$(dirname "$(realpath "$0")")/callgraph.py" . "$(dirname "$(realpath "$0")")/layout_debt.txt"); then
  printf '%s\n' "$out" | grep '^FAIL' | sed 's/^FAIL: //' | while read -r l; do echo "FAIL: $l"; done
  fail "function length or call circles (tests/callgraph.py)"
fi

[ "$fails" = 0 ] && echo "layout: ok"
exit $((fails > 0))
