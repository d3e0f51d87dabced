/* The `selftest` algorithm: test-only CPU variants that misbehave on purpose, so the tests can
 * prove that the runner turns each kind of misbehaviour into the right verdict (a wrong answer
 * into fail, a segfault or abort into crash, a hang into timeout, an output never written into
 * fail) and carries on with a fresh worker. Hidden: selected only when named. The computation is
 * an inclusive prefix sum of n uint32 values. Misbehaviour starts at a threshold of n so that
 * shrinking has a known minimal case to find (the threshold itself). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alg.h"
#include "check.h"
#include "gr.h"

#define SELFTEST_THRESHOLD 37 /* misbehaving variants misbehave for n >= this */

static const char *const selftest_dists[] = {"ones", "random", NULL};

static const struct gr_param_spec selftest_params[] = {
    {"n", GR_PARAM_INT, 0, 10000000, NULL, "values to prefix-sum"},
    {"dist", GR_PARAM_ENUM, 0, 0, selftest_dists, "input values"},
};

struct selftest_data {
  uint32_t *x, *ref; /* x first: selftest_gpu.cu reads it */
};

static void prefix_sum(const uint32_t *x, uint32_t *out, size_t n)
{
  uint32_t s = 0;
  for (size_t i = 0; i < n; i++)
    out[i] = s += x[i];
}

static enum gr_run_status run_ok(const struct gr_variant *v, const struct gr_instance *inst,
                                 void *out, struct gr_run_ctx *ctx)
{
  (void)v;
  (void)ctx;
  const struct selftest_data *d = inst->priv;
  prefix_sum(d->x, out, inst->out_bytes / 4);
  return GR_RUN_OK;
}

static int misbehaves(const struct gr_instance *inst) { return inst->out_bytes / 4 >= SELFTEST_THRESHOLD; }

static enum gr_run_status run_wrong(const struct gr_variant *v, const struct gr_instance *inst,
                                    void *out, struct gr_run_ctx *ctx)
{
  run_ok(v, inst, out, ctx);
  if (misbehaves(inst))
    ((uint32_t *)out)[SELFTEST_THRESHOLD - 1] += 1;
  return GR_RUN_OK;
}

static enum gr_run_status run_segfault(const struct gr_variant *v, const struct gr_instance *inst,
                                       void *out, struct gr_run_ctx *ctx)
{
  if (misbehaves(inst))
    raise(SIGSEGV);
  return run_ok(v, inst, out, ctx);
}

static enum gr_run_status run_abort(const struct gr_variant *v, const struct gr_instance *inst,
                                    void *out, struct gr_run_ctx *ctx)
{
  if (misbehaves(inst))
    abort();
  return run_ok(v, inst, out, ctx);
}

static enum gr_run_status run_hang(const struct gr_variant *v, const struct gr_instance *inst,
                                   void *out, struct gr_run_ctx *ctx)
{
  if (misbehaves(inst))
    for (;;)
      pause();
  return run_ok(v, inst, out, ctx);
}

/* writes nothing at all for large n: the output keeps the harness's poison */
static enum gr_run_status run_silent(const struct gr_variant *v, const struct gr_instance *inst,
                                     void *out, struct gr_run_ctx *ctx)
{
  if (misbehaves(inst)) {
    memset(out, ctx->poison, inst->out_bytes);
    return GR_RUN_OK;
  }
  return run_ok(v, inst, out, ctx);
}

/* leaves the last element unwritten (poison) only on the second run: caught by the two-run
 * comparison alone, the first run's output being right */
static enum gr_run_status run_unwritten(const struct gr_variant *v, const struct gr_instance *inst,
                                        void *out, struct gr_run_ctx *ctx)
{
  run_ok(v, inst, out, ctx);
  if (misbehaves(inst) && ctx->trial == 1)
    memset((char *)out + inst->out_bytes - 4, ctx->poison, 4);
  return GR_RUN_OK;
}

enum gr_run_status selftest_run_gpu_fault(const struct gr_variant *v,
                                          const struct gr_instance *inst, void *out,
                                          struct gr_run_ctx *ctx);

/* wrong on one call in three (per worker process) when n >= 37: a race in miniature */
static enum gr_run_status run_flaky(const struct gr_variant *v, const struct gr_instance *inst,
                                    void *out, struct gr_run_ctx *ctx)
{
  static unsigned calls;
  run_ok(v, inst, out, ctx);
  if (misbehaves(inst) && ctx->trial == 0 && calls++ % 3 == 0)
    ((uint32_t *)out)[0] += 1;
  return GR_RUN_OK;
}

/* wrong on two calls in three (per worker process) when n >= 37: a race that often fails twice
 * in a row, so that a two-run confirmation alone would call it steady */
static enum gr_run_status run_racy(const struct gr_variant *v, const struct gr_instance *inst,
                                   void *out, struct gr_run_ctx *ctx)
{
  static unsigned calls;
  run_ok(v, inst, out, ctx);
  if (misbehaves(inst) && ctx->trial == 0 && calls++ % 3 != 2)
    ((uint32_t *)out)[0] += 1;
  return GR_RUN_OK;
}

static const struct gr_variant selftest_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, run_ok, NULL, "plain prefix sum"},
    {"ok", GR_VARIANT_FIXED, GR_VARIANT_HOST_TIMED, run_ok, NULL, "correct: must pass"},
    {"wrong", GR_VARIANT_FIXED, 0, run_wrong, NULL, "element 36 off by one when n >= 37"},
    {"segfault", GR_VARIANT_FIXED, 0, run_segfault, NULL, "SIGSEGV when n >= 37"},
    {"abort", GR_VARIANT_FIXED, 0, run_abort, NULL, "abort() when n >= 37"},
    {"hang", GR_VARIANT_FIXED, 0, run_hang, NULL, "never returns when n >= 37"},
    {"silent", GR_VARIANT_FIXED, 0, run_silent, NULL, "writes no output when n >= 37"},
    {"unwritten", GR_VARIANT_FIXED, 0, run_unwritten, NULL,
     "leaves the last element unwritten on the second run when n >= 37"},
    {"flaky", GR_VARIANT_FIXED, 0, run_flaky, NULL, "wrong on one call in three when n >= 37"},
    {"racy", GR_VARIANT_FIXED, 0, run_racy, NULL, "wrong on two calls in three when n >= 37"},
    {"gpu_fault", GR_VARIANT_FIXED, GR_VARIANT_GPU | GR_VARIANT_NOSHMEM, GR_IF_CUDA(selftest_run_gpu_fault),
     NULL, "kernel writes through a null pointer when n >= 37 (sticky CUDA error)"},
    {"bug_caught", GR_VARIANT_HISTORICAL, GR_VARIANT_HOST_TIMED, run_wrong, NULL,
     "historical: wrong when n >= 37"},
    {"bug_escapes", GR_VARIANT_HISTORICAL, 0, run_ok, NULL, "historical whose bug no check sees"},
};

GR_REGIME_PREDICATE(below_threshold, c->v[0] < SELFTEST_THRESHOLD)
GR_REGIME_PREDICATE(at_threshold, c->v[0] >= SELFTEST_THRESHOLD)
/* For the coverage tests: both sides of the threshold (`fuzz selftest/ok n=0..36` leaves one
 * unreached). */
static const struct gr_regime selftest_regimes[] = {
    {"n < 37", "ok bug_caught", below_threshold, 0},
    {"n >= 37", "ok bug_caught", at_threshold, 0},
};

static void selftest_generate(struct gr_case *c, struct gr_rng *r)
{
  static const int64_t edges[] = {0, 1, 36, 37, 38, 1000};
  c->v[0] = gr_rng_boundary(r, 0, 5000, edges, sizeof edges / sizeof *edges, 0.5);
  c->v[1] = gr_rng_range(r, 0, 1);
}

static size_t selftest_device_bytes(const struct gr_case *c) { return (size_t)c->v[0] * 8; }

static void selftest_work(const struct gr_case *c, double *bytes, double *items)
{
  *bytes = (double)c->v[0] * 8;
  *items = (double)c->v[0];
}

static void selftest_free(struct gr_instance *inst)
{
  if (!inst)
    return;
  struct selftest_data *d = inst->priv;
  if (d) {
    free(d->x);
    free(d->ref);
    free(d);
  }
  free(inst);
}

static int selftest_new(const struct gr_case *c, struct gr_instance **out, char *why, size_t len)
{
  size_t n = (size_t)c->v[0];
  struct gr_instance *inst = calloc(1, sizeof *inst);
  struct selftest_data *d = calloc(1, sizeof *d);
  if (inst)
    inst->priv = d;
  if (!inst || !d || !(d->x = malloc(n * 4 + 4)) || !(d->ref = malloc(n * 4 + 4))) {
    selftest_free(inst);
    if (!inst)
      free(d);
    gr_fmt(why, len, "out of host memory");
    return -1;
  }
  struct gr_rng r;
  gr_rng_seed(&r, c->seed);
  for (size_t i = 0; i < n; i++)
    d->x[i] = c->v[1] ? gr_rng_u32(&r) : 1u;
  prefix_sum(d->x, d->ref, n);
  inst->c = c;
  inst->out_bytes = n * 4;
  inst->elem_size = 4;
  *out = inst;
  return 0;
}

static int selftest_check(const struct gr_instance *inst, const void *out,
                          struct gr_check_report *rep)
{
  const struct selftest_data *d = inst->priv;
  return gr_check_exact(out, d->ref, inst->out_bytes / 4, GR_ELEM_U32, "sum", rep);
}

/* Timing on the host (GR_VARIANT_HOST_TIMED: ok and bug_caught): the tests' stand-in benchmarks of
 * a night timed without a GPU (tests/fleet.sh, tests/fleet_nights.sh, tests/reproducers.sh). A
 * sweep of four sizes: a launch is the variant's run, then a spin until SELFTEST_NS_PER_ELEM x n
 * of the thread's CPU time has passed since its start (1.05 to 3.15 ms), as bench times
 * host-timed variants on that clock. A deadline, not a loop's time: on a 2-core CI machine
 * running other tests a loop's time moves with the load, and the tests' nights would judge the
 * machine (as the toy of tests/bisect.sh does). The deadline must stay above the run's own CPU
 * time under any load: at 4 ns an element it did not (the ASan build's run took up to 8.8 ns
 * an element on CI's loaded 2-core machine, so an unslowed variant timed 1.11x slower and a 2x
 * planted slowdown went unseen); 64 leaves 7x headroom above the slowest seen. A planted
 * slowdown (GR_TEST_SLOWDOWN) spins on top of it. */
#define SELFTEST_NS_PER_ELEM 64.0
static const char *const selftest_bench_cases[] = {
    "selftest n=16384 dist=random seed=1", "selftest n=24576 dist=random seed=1",
    "selftest n=32768 dist=random seed=1", "selftest n=49152 dist=random seed=1", NULL};

struct selftest_bench {
  const struct gr_variant *v;
  const struct gr_instance *inst;
  void *out;
};

static void *selftest_bench_setup(const struct gr_variant *v, const struct gr_instance *inst,
                                  char *why, size_t len)
{
  struct selftest_bench *b = NULL;
  if (!(v->flags & GR_VARIANT_HOST_TIMED)) {
    gr_fmt(why, len, "only the host-timed variants of selftest are timed");
    return NULL;
  }
  if (!(b = calloc(1, sizeof *b)) || !(b->out = malloc(inst->out_bytes + 4))) {
    free(b);
    gr_fmt(why, len, "out of host memory");
    return NULL;
  }
  b->v = v;
  b->inst = inst;
  return b;
}

/* The variant's run, then the spin to its deadline (above; tests/reproducers.sh and
 * tests/fleet_nights.sh judge slower / not slower). */
static void selftest_bench_launch(void *state)
{
  struct selftest_bench *b = state;
  struct gr_run_ctx ctx = {0};
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  double until = (double)t.tv_sec + (double)t.tv_nsec * 1e-9 +
                 SELFTEST_NS_PER_ELEM * 1e-9 * (double)(b->inst->out_bytes / 4);
  b->v->run(b->v, b->inst, b->out, &ctx);
  do
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  while ((double)t.tv_sec + (double)t.tv_nsec * 1e-9 < until);
}

static void selftest_bench_fetch(void *state, void *out)
{
  struct selftest_bench *b = state;
  memcpy(out, b->out, b->inst->out_bytes);
}

static void selftest_bench_teardown(void *state)
{
  struct selftest_bench *b = state;
  if (b)
    free(b->out);
  free(b);
}

const struct gr_algorithm selftest_algorithm = {
    .name = "selftest",
    .summary = "test-only CPU variants that fail, crash, hang and stay silent on purpose",
    .flags = GR_ALG_HIDDEN,
    .params = selftest_params,
    .n_params = sizeof selftest_params / sizeof *selftest_params,
    .variants = selftest_variants,
    .n_variants = sizeof selftest_variants / sizeof *selftest_variants,
    .generate = selftest_generate,
    .device_bytes = selftest_device_bytes,
    .instance_new = selftest_new,
    .instance_free = selftest_free,
    .check = selftest_check,
    .work = selftest_work,
    .bench_cases = selftest_bench_cases,
    .bench_setup = selftest_bench_setup,
    .bench_launch = selftest_bench_launch,
    .bench_fetch = selftest_bench_fetch,
    .bench_teardown = selftest_bench_teardown,
    .regimes = selftest_regimes,
    .n_regimes = sizeof selftest_regimes / sizeof *selftest_regimes,
};
GR_REGISTER_ALGORITHM(selftest_algorithm);
