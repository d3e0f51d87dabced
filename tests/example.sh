#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The out-of-tree example works against an installed prefix alone (issue 21): install this build
# into a temporary prefix, copy examples/histogram/ out of the tree, configure it with
# find_package(gpuregress) and the prefix only, build it, and run its runner: `list` (the
# built-ins and histogram), a `run` of its CPU variants, `repro` of a case, the runner without
# the built-ins; the prefix's pkg-config file compiles the public headers.
#   tests/example.sh SOURCE_DIR BUILD_DIR WORK_DIR -- cmake configure arguments...
set -u
src=$(realpath "$1") build=$(realpath "$2") work=$3
shift 4
source "$(dirname "$0")/expect.sh"

rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
p=$work/prefix
cmake --install "$build" --prefix "$p" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in include/gpuregress/gpuregress.h include/gpuregress/alg.h include/gpuregress/version.h \
  lib/libgpuregress.a lib/libgpuregress_cli.a lib/cmake/gpuregress/gpuregressConfig.cmake \
  lib/cmake/gpuregress/gpuregressConfigVersion.cmake lib/cmake/gpuregress/gpuregressTargets.cmake \
  lib/cmake/gpuregress/gpuregress_runtime.cmake \
  lib/pkgconfig/gpuregress.pc share/doc/gpuregress/LICENSE; do
  check "installed $f" [ -s "$p/$f" ]
done

# the example, outside the tree, built against the prefix
ex=$work/histogram
cp -r "$src/examples/histogram" "$ex"
rm -rf "$ex/build"
start=$(date +%s)
cmake -S "$ex" -B "$ex/build" -DCMAKE_PREFIX_PATH="$p" "$@" >"$work/configure.log" 2>&1 ||
  { tail -30 "$work/configure.log"; echo "FAIL: configure of the example"; exit 1; }
tree=(-e "$src/include" -e "$src/harness" -e "$src/cmake" -e "$build/libgpuregress" -e "$build/CMakeFiles")
if grep -qF "${tree[@]}" "$ex/build/CMakeCache.txt" "$ex/build/build.ninja" 2>/dev/null; then
  grep -nF "${tree[@]}" "$ex/build/CMakeCache.txt" "$ex/build/build.ninja" | head -5
  echo "FAIL: the example's build names gpuregress's source tree or build folder"
  fails=$((fails + 1))
fi
cmake --build "$ex/build" -j2 >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; echo "FAIL: build of the example"; exit 1; }
echo "configure + build of the example: $(($(date +%s) - start)) s"

bin=$ex/build/gpuregress
cd "$work" || exit 1
expect 0 "histogram of 32-bit keys" -- "$bin" list
expect 0 "ari " -- "$bin" list
expect 0 "v1_shared_u16" -- "$bin" list histogram
"$bin" list histogram
check "Google Benchmark beside the runner" compgen -G "$ex/build/libbenchmark*" >/dev/null
check "page templates beside the runner" [ -s "$ex/build/share/dashboard.html" ]
check "gnuplot scripts beside the runner" [ -s "$ex/build/scripts/plot_sizes.gp" ]
if [ -x "$p/bin/kmedoids_mpi" ]; then
  check "kmedoids_mpi beside the runner with the built-ins" [ -x "$ex/build/kmedoids_mpi" ]
fi
# the two runners of one folder copy those files under a lock (they raced in a parallel build);
# a relink after a change copies again without error
touch "$ex/histogram_alg.c"
check "a rebuild of both runners" cmake --build "$ex/build" -j2
expect 0 "pass" -- "$bin" run --filter histogram/reference --cases 40 --seed 3 --db "$work/h.db" \
  --quiet --allow-no-gpu
expect 0 "pass" -- "$bin" repro 'histogram n=70000 bins=1 dist=one_bin seed=3' --variant reference
expect 2 "unknown value 'sorted'" -- "$bin" repro 'histogram n=10 bins=3 dist=sorted seed=1'
only=$ex/build/histogram-only
expect 0 "histogram" -- "$only" list
check "a runner built against the install links no shared libsqlite3" [ -z "$(ldd "$only" | grep -i sqlite)" ]
check "histogram-only has no built-in" [ -z "$("$only" list | grep -E '^(ari|sgm|ccc) ')" ]

# pkg-config: the public headers compile with its Cflags alone
if command -v pkg-config >/dev/null; then
  printf '#include <gpuregress/gpuregress.h>\n_Static_assert(GR_API_VERSION == 1, "api");\nint main(void) { return 0; }\n' >"$work/pc.c"
  check "pkg-config --cflags gpuregress compiles the headers" \
    cc $(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags gpuregress) -c "$work/pc.c" -o "$work/pc.o"
fi
[ "$fails" = 0 ] && rm -rf "$work"
exit $((fails > 0))
