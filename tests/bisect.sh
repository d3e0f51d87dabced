#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `gpuregress bisect` on a throwaway git repository (no GPU): a project of its own with the toy
# algorithm of tests/toy_alg/ (a fixed CPU variant), built against an installed prefix, with 20
# commits: one plants a wrong result in the CPU variant, one does not build (the next fixes it).
# bisect, run with the default build (the runner's CMake target in a build folder of its
# worktree), names the planted commit exactly, skips the broken one, leaves no worktree, and
# the user's checkout (files, index, HEAD, refs, stash, status, with local changes in it) is
# byte-identical before and after; an interrupt leaves no worktree either.
#   tests/bisect.sh SOURCE_DIR BUILD_DIR WORK_DIR GPUREGRESS -- cmake configure arguments...
# The configure arguments reach the default build through CMake's environment variables
# (CMAKE_GENERATOR, CC, CXX, CUDACXX, CMAKE_BUILD_TYPE, CMAKE_<LANG>_COMPILER_LAUNCHER, LDFLAGS).
set -u
src=$(realpath "$1") build=$(realpath "$2") work=$3 gr=$(realpath "$4")
shift 5
source "$(dirname "$0")/expect.sh"
for a in "$@"; do
  case $a in
  -DCMAKE_C_COMPILER=*) export CC=${a#*=} ;;
  -DCMAKE_CXX_COMPILER=*) export CXX=${a#*=} ;;
  -DCMAKE_CUDA_COMPILER=*) export CUDACXX=${a#*=} ;;
  -DCMAKE_BUILD_TYPE=?*) export CMAKE_BUILD_TYPE=${a#*=} ;;
  -DCMAKE_MAKE_PROGRAM=?*) export PATH=$(dirname "${a#*=}"):$PATH ;;
  -DCMAKE_EXE_LINKER_FLAGS=*) export LDFLAGS=${a#*=} ;;
  -DCMAKE_*_COMPILER_LAUNCHER=*) a=${a#-D}; export "${a%%=*}=${a#*=}" ;;
  -G) gen_next=1; continue ;;
  esac
  [ "${gen_next:-0}" = 1 ] && export CMAKE_GENERATOR=$a
  gen_next=0
done

rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
p=$work/prefix
cmake --install "$build" --prefix "$p" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
export CMAKE_PREFIX_PATH=$p TMPDIR=$work

# the user's repository: 20 commits
r=$work/repo
mkdir -p "$r"
cp "$src/tests/toy_alg/toy_alg.c" "$src/tests/toy_alg/toy_ref.c" "$src/tests/toy_alg/toy_ref.h" "$r/"
# out of the tree the headers are the installed ones
sed -i -e 's|#include "alg.h"|#include <gpuregress/gpuregress.h>|' -e '/#include "gr.h"/d' \
  -e 's|#include "check.h"|#include <gpuregress/check.h>|' "$r/toy_alg.c"
# and a second fixed variant that bench times on the host's clock (GR_VARIANT_HOST_TIMED): the running
# maximum, then a spin until TOY_REPS x 200 us of the thread's CPU time have passed since its start
# (the clock bench times host-timed variants on), so that 5 -> 6 makes it 20% slower. A deadline,
# not a count of loops: on a 2-core CI machine running other tests a loop's time moves with the
# load, and the bisection (GOOD timed first and again at the end) would judge the machine, not
# the commit. On the CPU clock, not the monotonic one: a thread preempted during a monotonic
# spin would time less than the deadline, by the load's share.
cat >"$r/toy_bench.inc" <<'INC'
#include <string.h>
#include <time.h>
#define TOY_REPS 5
static double toy_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static enum gr_run_status toy_run_timed(const struct gr_variant *v, const struct gr_instance *inst,
                                     void *out, struct gr_run_ctx *ctx)
{
  const struct toy_data *d = inst->priv;
  const volatile int32_t *x = d->x;
  int32_t *o = out;
  size_t n = inst->out_bytes / 4;
  double end = toy_now() + TOY_REPS * 200e-6;
  for (size_t i = 0; i < n; i++)
    o[i] = i == 0 || x[i] > o[i - 1] ? x[i] : o[i - 1];
  while (toy_now() < end)
    ;
  return GR_RUN_OK;
}
static const char *const toy_bench_cases[] = {"toy n=100000 seed=1", NULL};
struct toy_bench { const struct gr_variant *v; const struct gr_instance *inst; void *out; };
static void *toy_bench_setup(const struct gr_variant *v, const struct gr_instance *inst, char *why,
                             size_t len)
{
  struct toy_bench *b = calloc(1, sizeof *b);
  if (!(v->flags & GR_VARIANT_HOST_TIMED) || !b || !(b->out = malloc(inst->out_bytes))) {
    free(b);
    gr_fmt(why, len, "only v2_timed is timed");
    return NULL;
  }
  b->v = v;
  b->inst = inst;
  return b;
}
static void toy_bench_launch(void *state)
{
  struct toy_bench *b = state;
  struct gr_run_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  b->v->run(b->v, b->inst, b->out, &ctx);
}
static void toy_bench_fetch(void *state, void *out)
{
  struct toy_bench *b = state;
  memcpy(out, b->out, b->inst->out_bytes);
}
static void toy_bench_teardown(void *state)
{
  struct toy_bench *b = state;
  if (b)
    free(b->out);
  free(b);
}
INC
sed -i -e '/^static const struct gr_variant toy_variants\[\] = {/i #include "toy_bench.inc"' \
  -e '/{"v1_blocked", GR_VARIANT_FIXED/a \    {"v2_timed", GR_VARIANT_FIXED, GR_VARIANT_HOST_TIMED, toy_run_timed, NULL, "host-timed"},' \
  -e '/^    .work = toy_work,/a \    .bench_cases = toy_bench_cases, .bench_setup = toy_bench_setup,\n    .bench_launch = toy_bench_launch, .bench_fetch = toy_bench_fetch,\n    .bench_teardown = toy_bench_teardown,' \
  "$r/toy_alg.c"
cat >"$r/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(toy_bisect LANGUAGES C CXX CUDA)
find_package(gpuregress CONFIG REQUIRED)
gpuregress_add_executable(toyrun NO_BUILTINS SOURCES toy_alg.c toy_ref.c revision.c)
EOF
git_() { git -C "$r" -c user.name=t -c user.email=t@t -c commit.gpgsign=false "$@"; }
git_ init -q -b main
for i in $(seq 1 20); do
  echo "int toy_revision = $i;" >"$r/revision.c"
  case $i in
  10) echo "#error commit 10 does not build" >>"$r/toy_ref.c" ;;
  11) sed -i '/#error commit 10/d' "$r/toy_ref.c" ;;
  13) sed -i 's/^    carry = m;$/    carry = INT32_MIN; \/* planted *\//' "$r/toy_alg.c"
      grep -q planted "$r/toy_alg.c" || { echo "FAIL: the planted change did not apply"; exit 1; } ;;
  16) sed -i 's/^#define TOY_REPS 5$/#define TOY_REPS 6/' "$r/toy_bench.inc"
      grep -q 'TOY_REPS 6' "$r/toy_bench.inc" || { echo "FAIL: the planted slowdown did not apply"; exit 1; } ;;
  esac
  git_ add -A
  git_ commit -q -m "commit $i" --date="2026-01-$(printf %02d "$i")T12:00:00Z"
  git_ tag "c$i"
done
planted=$(git_ rev-parse c13)
broken=$(git_ rev-parse c10)
slowed=$(git_ rev-parse c16)
# local changes the bisection must not see or touch: a modified tracked file, a staged one, an
# untracked one, a stash
echo "/* local */" >>"$r/toy_ref.h"
echo "stashed" >"$r/stash.txt" && git_ add stash.txt && git_ stash -q
echo "int toy_local;" >>"$r/revision.c" && git_ add revision.c
echo "scratch" >"$r/untracked.txt"

snapshot() {
  ( cd "$r" &&
    git status --porcelain=v2 --branch --untracked-files=all &&
    git rev-parse HEAD && git for-each-ref && git stash list &&
    sha256sum .git/index .git/HEAD &&
    find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum &&
    ls .git/worktrees 2>/dev/null )
}
before=$(snapshot)

start=$(date +%s)
out=$(cd "$r" && "$gr" bisect --good c1 --bad c20 --runner build/gr-bisect/toyrun --allow-no-gpu \
        --variant v1_blocked 'toy n=130 seed=7' 2>&1)
rc=$?
echo "$out"
echo "bisect: $(($(date +%s) - start)) s"
check "bisect exits 0 (got $rc)" [ "$rc" = 0 ]
check "bisect names the planted commit ${planted:0:12}" grep -q "^first bad commit: $planted\$" <<<"$out"
check "the first bad line has the subject and the author date" \
  grep -q "^first bad: ${planted:0:12} commit 13 (2026-01-13T12:00:00+00:00)\$" <<<"$out"
check "the commit that does not build is skipped" \
  grep -qE "^[0-9]+ +${broken:0:12}  skip .*does not build" <<<"$out"
check "GOOD and BAD are checked first" grep -qE "^GOOD .* good .*pass" <<<"$out"
check "BAD is caught" grep -qE "^BAD .* bad .*caught" <<<"$out"
after=$(snapshot)
check "the user's checkout is byte-identical" [ "$before" = "$after" ]
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after")
check "no worktree left" [ -z "$(git_ worktree list | sed 1d)" ]
check "no temporary folder left" [ -z "$(find "$work" -maxdepth 1 -name 'gr-bisect-*')" ]

# the runner of commit 20 (its fixed CPU variant wrong, v2_timed slower), for the history and
# the reproducers below
c20=$work/c20
mkdir -p "$c20" && git_ archive c20 | tar -x -C "$c20"
cmake -S "$c20" -B "$c20/build" >"$work/c20.log" 2>&1 && cmake --build "$c20/build" >>"$work/c20.log" 2>&1 ||
  { tail -20 "$work/c20.log"; echo "FAIL: build of commit 20"; exit 1; }
toyrun=$c20/build/toyrun
# a history whose latest recorded night has the slowdown open (the stand-in of the nightly
# that went red: GR_TEST_SLOWDOWN plants it), so that bisect --db stores the first bad commit
hist=$work/history.db
"$toyrun" bench toy/v2_timed --quiet --db "$hist" >"$work/n1.log" 2>&1
"$toyrun" compare --db "$hist" --record >>"$work/n1.log" 2>&1
GR_TEST_SLOWDOWN=toy/v2_timed=1.5 "$toyrun" bench toy/v2_timed --quiet --db "$hist" >"$work/n2.log" 2>&1
expect 1 "REGRESSION" -- "$toyrun" compare --db "$hist" --record

# a slowdown: the host-timed v2_timed, 20% slower from commit 16, timed against GOOD's samples
start=$(date +%s)
out=$(cd "$r" && "$gr" bisect --good c1 --bad c20 --runner build/gr-bisect/toyrun --slower \
        --db "$hist" --variant v2_timed 'toy n=100000 seed=1' 2>&1)
rc=$?
echo "$out"
echo "bisect --slower: $(($(date +%s) - start)) s"
check "bisect --slower exits 0 (got $rc)" [ "$rc" = 0 ]
check "bisect --slower names the slower commit ${slowed:0:12}" grep -q "^first bad commit: $slowed\$" <<<"$out"
check "bisect --slower skips the commit that does not build" \
  grep -qE "^[0-9]+ +${broken:0:12}  skip .*does not build" <<<"$out"
check "GOOD is timed first and again at the end" [ "$(grep -c "^GOOD  $(git_ rev-parse --short=12 c1)  good" <<<"$out")" = 2 ]
check "the checkout is byte-identical after bisect --slower" [ "$before" = "$(snapshot)" ]
check "no worktree left after bisect --slower" [ -z "$(git_ worktree list | sed 1d)" ]
# the first bad commit is stored with the open regression and shown with it
check "bisect --db stored the first bad commit" grep -q "^stored with its open regression in '$hist'" <<<"$out"
subject=$(git_ log -1 --format=%s "$slowed")
json=$("$toyrun" compare --db "$hist" --format json)
check "the JSON's open regression has first_bad" grep -qF "\"first_bad\": \"${slowed:0:12} $subject\"" <<<"$json"
check "the verdict's summary names it" grep -qF "(first bad: ${slowed:0:12} $subject)" <<<"$("$toyrun" compare --db "$hist")"
check "the JUnit message names it" grep -qF "first bad: ${slowed:0:12}" <("$toyrun" export --db "$hist" --format junit)
expect 2 "is not a slowdown" -- bash -c "cd '$r' && '$gr' bisect --good c1 --bad c20 --db '$hist' --variant v1_blocked 'toy n=130 seed=7'"

# --max-steps: no single commit named, exit 1
expect 1 "no single first bad commit: --max-steps 1 reached" -- bash -c "cd '$r' && '$gr' bisect \
  --good c1 --bad c20 --max-steps 1 --runner build/gr-bisect/toyrun --allow-no-gpu --variant v1_blocked 'toy n=130 seed=7'"
# --build CMD runs in the worktree's top folder; a GOOD that does not build is the environment's
expect 3 "cannot be tested: does not build: error in $work/gr-bisect-" -- bash -c "cd '$r' && \
  '$gr' bisect --good c1 --bad c20 --build 'echo error in \$PWD; exit 4' 'toy n=130 seed=7'"
# the reproducer must fail at BAD and pass at GOOD
expect 2 "does not fail at BAD" -- bash -c "cd '$r' && '$gr' bisect --good c1 --bad c12 \
  --runner build/gr-bisect/toyrun --allow-no-gpu --variant v1_blocked 'toy n=130 seed=7'"
expect 2 "fails at GOOD" -- bash -c "cd '$r' && '$gr' bisect --good c14 --bad c20 \
  --runner build/gr-bisect/toyrun --allow-no-gpu --variant v1_blocked 'toy n=130 seed=7'"
expect 2 "unknown revision 'nope'" -- bash -c "cd '$r' && '$gr' bisect --good nope --bad c20 'toy n=1 seed=1'"
expect 2 "not an ancestor" -- bash -c "cd '$r' && '$gr' bisect --good c20 --bad c1 'toy n=1 seed=1'"
mkdir -p "$work/norepo"
expect 3 "not inside a git work tree" -- env GIT_CEILING_DIRECTORIES="$work" bash -c "cd '$work/norepo' && '$gr' bisect --good a --bad b 'toy n=1 seed=1'"

# an interrupt in the middle of a build: exit 130, no worktree, the checkout unchanged
(cd "$r" && exec "$gr" bisect --good c1 --bad c20 --runner build/gr-bisect/toyrun --allow-no-gpu \
   --variant v1_blocked 'toy n=130 seed=7' >"$work/int.log" 2>&1) &
pid=$!
for _ in $(seq 1 300); do
  [ -n "$(find "$work" -maxdepth 3 -path '*gr-bisect-*/wt/build' 2>/dev/null)" ] && break
  sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
check "an interrupted bisect exits 130 (got $rc)" [ "$rc" = 130 ]
check "an interrupted bisect leaves no worktree" [ -z "$(git_ worktree list | sed 1d)" ]
check "an interrupted bisect leaves no temporary folder" [ -z "$(find "$work" -maxdepth 1 -name 'gr-bisect-*')" ]
check "an interrupted bisect leaves the checkout byte-identical" [ "$before" = "$(snapshot)" ]

# reproducers that travel: the runner of commit 20 (its fixed CPU variant wrong) fuzzed into a
# night; export --format reproducers writes the folder; copied to a folder with no database,
# the command its file holds (naming the runner by its own name) reproduces the failure
expect 1 "fail" -- "$toyrun" run --filter toy --cases 40 --seed 3 --allow-no-gpu --quiet --db "$work/night.db"
expect 0 "wrote 1 reproducer in" -- "$toyrun" export --db "$work/night.db" --format reproducers --out "$work/reproducers"
f=$(ls "$work/reproducers")
check "one reproducer file per failing case (got: $f)" [ "$f" = "01-toy-v1_blocked.txt" ]
rf=$work/reproducers/$f
check "the file's format line" [ "$(head -1 "$rf")" = "gpuregress-reproducer 1" ]
for k in kind case variant runner commit gpu driver command; do
  check "the reproducer has '$k'" grep -q "^$k: " "$rf"
done
check "the reproducer names the runner" grep -q "^command: toyrun repro 'toy n=[0-9]* seed=[0-9]*' --variant 'v1_blocked'\$" "$rf"
mkdir -p "$work/elsewhere" && cp -r "$work/reproducers" "$work/elsewhere/"
cmd=$(sed -n 's/^command: //p' "$work/elsewhere/reproducers/$f")
expect 1 "fail" -- env PATH="$c20/build:$PATH" bash -c "cd '$work/elsewhere' && $cmd --allow-no-gpu"
check "no database appeared elsewhere" [ -z "$(find "$work/elsewhere" -name '*.db')" ]
# the reproducer file is what bisect takes: its case and variant
out=$(cd "$r" && "$gr" bisect --good c1 --bad c20 --runner build/gr-bisect/toyrun --allow-no-gpu \
        "$work/elsewhere/reproducers/$f" 2>&1)
check "bisect of the reproducer file names commit 13" grep -q "^first bad commit: $planted\$" <<<"$out"
grep -q "^first bad commit: $planted\$" <<<"$out" || echo "$out"

[ "$fails" = 0 ] && rm -rf "$work"
exit $((fails > 0))
