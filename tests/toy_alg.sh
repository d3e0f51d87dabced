#!/usr/bin/env bash
# An algorithm folder stands alone: in a copy of the source tree, add one more algorithm
# (tests/toy_alg/ as algorithms/toy/) and its registry line, and nothing else; configure, build
# gpuregress, and run `gpuregress list` and one case of the new algorithm.
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

# the new algorithm: its folder, and its line(s) in the registry
cp -r "$src/tests/toy_alg" "$copy/algorithms/toy"
sed -i -e '/^extern const struct algorithm selftest_algorithm;/i extern const struct algorithm toy_algorithm;' \
       -e '/^ *&selftest_algorithm,/i \ \ \ \ &toy_algorithm,' "$copy/harness/core/registry.c"
grep -q '&toy_algorithm' "$copy/harness/core/registry.c" || { echo "FAIL: registry line not added"; exit 1; }

start=$(date +%s)
cmake -S "$copy" -B "$cbuild" "$@" >"$work/configure.log" 2>&1 ||
  { tail -30 "$work/configure.log"; echo "FAIL: configure"; exit 1; }
grep -q 'algorithms: .*toy' "$work/configure.log" || { echo "FAIL: algorithms/toy not discovered"; exit 1; }
cmake --build "$cbuild" --target gpuregress -j2 >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; echo "FAIL: build"; exit 1; }
echo "configure + build of gpuregress: $(($(date +%s) - start)) s"

bin=$cbuild/gpuregress
expect 0 "toy" -- "$bin" list
expect 0 "v1_blocked" -- "$bin" list toy
expect 0 "pass" -- "$bin" repro 'toy n=130 seed=7'
"$bin" repro 'toy n=130 seed=7' 2>&1 | tail -4
[ "$fails" = 0 ] && rm -rf "$work"
exit $((fails > 0))
