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

# provenance (issue 37 items 1 and 2, issue 41 item 13), without building again: the code under
# test is the example's project. Its folder lies inside another repository (this build's tree)
# without being the top of one: no commit. Made a repository of its own, committed, a build
# without a reconfigure records that commit, then its dirty state; a commit after the build is
# the stale-checkout warning; gpuregress's own version and commit beside it; the reproducers
# printed by histogram-only call it by its name and reproduce, pasted as printed.
if command -v git >/dev/null; then
  gr_commit=$("$bin" --version | sed -n 's/^gpuregress [^ ]* (commit \([^,]*\),.*/\1/p')
  rec() { python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute("SELECT git_commit, git_dirty, gr_version, gr_commit, runner FROM runs").fetchone()
print(*r)' "$1"; }
  prov() { # DB WANT...: a run of histogram-only's planted variant records WANT
    local db=$work/$1.db got
    shift
    (cd "$ex" && PATH="$ex/build:$PATH" histogram-only run --filter histogram/v0_cpu_wrong \
      --cases 30 --seed 5 --db "$db" --allow-no-gpu) >"$db.log" 2>&1
    got=$(rec "$db")
    [ "$got" = "$*" ] || { echo "FAIL: recorded '$got', want '$*'"; cat "$db.log"; fails=$((fails + 1)); }
  }
  git_ex() { git -C "$ex" -c user.email=t@t -c user.name=t "$@"; }
  # a CPU variant with a planted wrong count, so that a run without a GPU prints a reproducer
  python3 - "$ex/histogram_alg.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
fn = ("static enum gr_run_status hist_run_wrong(const struct gr_variant *v, const struct gr_instance *inst,\n"
      "                                      void *out, struct gr_run_ctx *ctx)\n{\n"
      "  hist_run_reference(v, inst, out, ctx);\n  ((uint32_t *)out)[0] += 1;\n  return GR_RUN_OK;\n}\n\n")
s = s.replace("static const struct gr_variant hist_variants[] = {\n",
              fn + "static const struct gr_variant hist_variants[] = {\n"
              '    {"v0_cpu_wrong", GR_VARIANT_FIXED, 0, hist_run_wrong, NULL, "planted: one count too many"},\n', 1)
open(p, "w").write(s)
PY
  check "a build with the planted variant" cmake --build "$ex/build" -j2
  prov none "unknown 0 $(sed -n 's/^gpuregress \([^ ]*\) .*/\1/p' <<<"$("$bin" --version)") $gr_commit histogram-only"
  git_ex init -q && printf 'build/\n' >"$ex/.gitignore" && git_ex add -A && git_ex commit -qm one
  sha=$(git_ex rev-parse HEAD)
  check "a build after the first commit" cmake --build "$ex/build" -j2
  ver=$("$bin" --version | sed -n 's/^gpuregress \([^ ]*\) .*/\1/p')
  prov one "$sha 0 $ver $gr_commit histogram-only"
  grep -q "  (gpuregress $ver, commit ${gr_commit:0:12})" "$work/one.db.log" ||
    { echo "FAIL: the run header lacks gpuregress's version and commit"; fails=$((fails + 1)); }
  line=$(sed -n 's/^  repro:  //p' "$work/one.db.log")
  case $line in "histogram-only repro 'histogram "*"' --variant v0_cpu_wrong"*) ;;
    *) echo "FAIL: the reproducer does not call histogram-only: '$line'"; fails=$((fails + 1)) ;; esac
  (cd "$work" && PATH="$ex/build:$PATH" eval "$line" >"$work/paste.log" 2>&1)
  rc=$?
  [ "$rc" = 1 ] || { echo "FAIL: the pasted reproducer exit $rc, want 1"; cat "$work/paste.log"; fails=$((fails + 1)); }
  echo "/* changed */" >>"$ex/histogram_ref.c"
  check "a build of a changed tree" cmake --build "$ex/build" -j2
  prov dirty "$sha 1 $ver $gr_commit histogram-only"
  git_ex commit -qam two
  prov stale "$sha 1 $ver $gr_commit histogram-only"
  grep -q "warning: this binary was built from commit ${sha:0:12} of '$ex', that checkout is now at $(git_ex rev-parse --short=12 HEAD)" \
    "$work/stale.db.log" || { echo "FAIL: no stale-checkout warning"; cat "$work/stale.db.log"; fails=$((fails + 1)); }
  check "histogram-only --version names its project's commit" \
    grep -q "runner histogram-only: code under test at commit $sha-dirty" <(cd / && "$only" --version)
fi

# pkg-config: the public headers compile with its Cflags alone
if command -v pkg-config >/dev/null; then
  printf '#include <gpuregress/gpuregress.h>\n_Static_assert(GR_API_VERSION == 2, "api");\nint main(void) { return 0; }\n' >"$work/pc.c"
  check "pkg-config --cflags gpuregress compiles the headers" \
    cc $(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags gpuregress) -c "$work/pc.c" -o "$work/pc.o"
fi
[ "$fails" = 0 ] && rm -rf "$work"
exit $((fails > 0))
