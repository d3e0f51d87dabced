#!/usr/bin/env bash
# An algorithm folder stands alone: in a copy of the source tree, add one more algorithm
# (tests/toy_alg/ as algorithms/toy/) and nothing else (diff proves the copy differs from the
# tree by that folder alone); configure with only that algorithm (GR_ONLY_ALGORITHMS=toy, so the
# six built-ins are not compiled), build gpuregress, and run `gpuregress list` and one case.
#   tests/toy_alg.sh SOURCE_DIR BUILD_DIR WORK_DIR -- cmake configure arguments...
# The copy's build folder sits where BUILD_DIR sits relative to SOURCE_DIR, so a compiler cache
# (ccache with CCACHE_BASEDIR) reuses the objects of BUILD_DIR: only the registry and the toy
# algorithm compile.
set -u
src=$(realpath "$1") build=$(realpath "$2") work=$3
shift 4
source "$(dirname "$0")/expect.sh"

rm -rf "$work"
mkdir -p "$work/src"
copy=$(realpath "$work/src")
rel=$(realpath -m --relative-to="$src" "$build")
case $rel in ../*) cbuild=$work/build ;; *) cbuild=$copy/$rel ;; esac
tar -C "$src" --exclude=./.git --exclude=./build --exclude="./$rel" --exclude=./.dev -cf - . |
  tar -C "$copy" -xf - || { echo "FAIL: copying the source tree"; exit 1; }

# the new algorithm: its folder, and nothing else
cp -r "$src/tests/toy_alg" "$copy/algorithms/toy"
changed=$(diff -rq --exclude=.git --exclude=build --exclude="$(basename "$rel")" --exclude=.dev \
            "$src" "$copy" | grep -v "^Only in $copy/algorithms: toy\$")
[ -z "$changed" ] || { echo "FAIL: the copy differs outside algorithms/toy:"; echo "$changed"; exit 1; }

start=$(date +%s)
cmake -S "$copy" -B "$cbuild" "$@" -DGR_ONLY_ALGORITHMS=toy >"$work/configure.log" 2>&1 ||
  { tail -30 "$work/configure.log"; echo "FAIL: configure"; exit 1; }
grep -q 'algorithms: .*toy' "$work/configure.log" || { echo "FAIL: algorithms/toy not discovered"; exit 1; }
cmake --build "$cbuild" --target gpuregress -j2 >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; echo "FAIL: build"; exit 1; }
echo "configure + build of gpuregress: $(($(date +%s) - start)) s"

bin=$cbuild/gpuregress
expect 0 "toy" -- "$bin" list
"$bin" list | grep -q '^ari ' && { echo "FAIL: ari was built although GR_ONLY_ALGORITHMS=toy"; fails=$((fails + 1)); }
expect 0 "v1_blocked" -- "$bin" list toy
expect 0 "pass" -- "$bin" repro 'toy n=130 seed=7'
"$bin" repro 'toy n=130 seed=7' 2>&1 | tail -4
[ "$fails" = 0 ] && rm -rf "$work"
exit $((fails > 0))
