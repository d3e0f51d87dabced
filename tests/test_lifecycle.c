/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU lifecycle's harness side without a GPU (alg.h: struct gr_gpu_lifecycle): the checked run
 * (gr_gpu_lifecycle_run) passes a setup's or a launch's decline on with its reason, tears down
 * exactly what was set up, hands on the regimes a plan reached, calls a lifecycle's run step in
 * place of its launch (checked run, and a benchmark's first launch), and refuses an algorithm without
 * a lifecycle; the timing hooks (bench_hooks_of) come from the lifecycle when there is one, else
 * from the algorithm's own four hooks, else there are none; the lifecycle's are timed on the
 * stream they launch on (bench_gpu_stream), the older hooks on the default stream; a CPU variant
 * is never timed through a lifecycle. (The steps that touch the device, filling the outputs with the poison, the
 * synchronisation and the fetch, run in the GPU lane: cases_*_gpu, scripts/gpu-check.) */
#include <stdio.h>
#include <string.h>

#include "alg.h"
#include "bench_hooks.h"
#include "gr.h"
#include "test_util.h"

static int setups, launches, teardowns;
static enum gr_run_status setup_says, launch_says;

static enum gr_run_status toy_setup(struct gr_gpu_case *g)
{
  setups++;
  g->reached |= 1u << 2; /* a plan made in setup */
  if (setup_says != GR_RUN_OK)
    gr_fmt(g->why, sizeof g->why, "setup declines %s", g->variant->name);
  return setup_says;
}

static enum gr_run_status toy_launch(struct gr_gpu_case *g, void *stream)
{
  (void)stream;
  launches++;
  g->reached |= 1u << 5;
  if (launch_says != GR_RUN_OK)
    gr_fmt(g->why, sizeof g->why, "launch declines n=%d", (int)g->inst->c->v[0]);
  return launch_says;
}

static enum gr_run_status toy_fetch(struct gr_gpu_case *g, void *out)
{
  (void)g, (void)out;
  return GR_RUN_OK;
}

static void toy_teardown(struct gr_gpu_case *g)
{
  (void)g;
  teardowns++;
}

static const struct gr_gpu_lifecycle toy_lifecycle = {toy_setup, toy_launch, toy_fetch,
                                                      toy_teardown, NULL};

/* a lifecycle with a run step (work sized on the way): what it saw of the case */
static int runs, run_poison, run_bench;
static enum gr_run_status toy_run(struct gr_gpu_case *g, void *stream)
{
  (void)stream;
  runs++;
  run_poison = g->poison;
  run_bench = g->bench;
  g->reached |= 1u << 7;
  gr_fmt(g->why, sizeof g->why, "run declines %s", g->variant->name);
  return GR_RUN_UNSUPPORTED;
}
static const struct gr_gpu_lifecycle sized_lifecycle = {toy_setup, toy_launch, toy_fetch,
                                                        toy_teardown, toy_run};
static const struct gr_variant toy_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, NULL, NULL, "cpu"},
    {"v1", GR_VARIANT_FIXED, GR_VARIANT_GPU, gr_gpu_lifecycle_run, NULL, "gpu"},
};
static const struct gr_algorithm with_gpu = {
    .name = "toy_gpu", .variants = toy_variants, .n_variants = 2, .gpu = &toy_lifecycle};
static const struct gr_algorithm with_run = {
    .name = "toy_run", .variants = toy_variants, .n_variants = 2, .gpu = &sized_lifecycle};
static const struct gr_algorithm without = {
    .name = "toy_none", .variants = toy_variants, .n_variants = 2};

static void *own_setup(const struct gr_variant *v, const struct gr_instance *inst, char *why,
                       size_t len)
{
  (void)v, (void)inst, (void)why, (void)len;
  return NULL;
}
static void own_launch(void *s) { (void)s; }
static void own_fetch(void *s, void *o) { (void)s, (void)o; }
static void own_teardown(void *s) { (void)s; }
static const struct gr_algorithm own_hooks = {.name = "toy_own",
                                              .variants = toy_variants,
                                              .n_variants = 2,
                                              .bench_setup = own_setup,
                                              .bench_launch = own_launch,
                                              .bench_fetch = own_fetch,
                                              .bench_teardown = own_teardown};

static enum gr_run_status run(const struct gr_algorithm *a, struct gr_run_ctx *ctx)
{
  struct gr_case c;
  memset(&c, 0, sizeof c);
  c.alg = a;
  c.v[0] = 77;
  struct gr_instance inst = {&c, 8, 8, NULL};
  char out[8];
  memset(ctx, 0, sizeof *ctx);
  ctx->poison = GR_POISON_A;
  setups = launches = teardowns = 0;
  return gr_gpu_lifecycle_run(&toy_variants[1], &inst, out, ctx);
}

int main(void)
{
  struct gr_run_ctx ctx;
  /* a setup that declines: its reason, no launch, no teardown */
  setup_says = GR_RUN_UNSUPPORTED;
  launch_says = GR_RUN_OK;
  EXPECT(run(&with_gpu, &ctx) == GR_RUN_UNSUPPORTED, "setup's decline not passed on");
  EXPECT(strcmp(ctx.why, "setup declines v1") == 0, "why: '%s'", ctx.why);
  EXPECT(setups == 1 && launches == 0 && teardowns == 0, "setup %d launch %d teardown %d",
         setups, launches, teardowns);
  EXPECT(ctx.reached == 1u << 2, "regimes of setup's plan: %#x", ctx.reached);
  /* a setup error is an error */
  setup_says = GR_RUN_ERROR;
  EXPECT(run(&with_gpu, &ctx) == GR_RUN_ERROR && teardowns == 0, "setup's error not passed on");
  /* a launch that declines: its reason, one teardown, both plans' regimes */
  setup_says = GR_RUN_OK;
  launch_says = GR_RUN_UNSUPPORTED;
  EXPECT(run(&with_gpu, &ctx) == GR_RUN_UNSUPPORTED, "launch's decline not passed on");
  EXPECT(strcmp(ctx.why, "launch declines n=77") == 0, "why: '%s'", ctx.why);
  EXPECT(setups == 1 && launches == 1 && teardowns == 1, "setup %d launch %d teardown %d",
         setups, launches, teardowns);
  EXPECT(ctx.reached == (1u << 2 | 1u << 5), "regimes: %#x", ctx.reached);
  /* with a run step: the checked run calls run (told the poison, not a benchmark), not launch */
  launch_says = GR_RUN_OK;
  runs = 0;
  EXPECT(run(&with_run, &ctx) == GR_RUN_UNSUPPORTED && strcmp(ctx.why, "run declines v1") == 0,
         "run's decline not passed on: '%s'", ctx.why);
  EXPECT(runs == 1 && launches == 0 && teardowns == 1, "run %d launch %d teardown %d", runs,
         launches, teardowns);
  EXPECT(run_poison == GR_POISON_A && run_bench == 0, "run saw poison %d bench %d", run_poison,
         run_bench);
  EXPECT(ctx.reached == (1u << 2 | 1u << 7), "regimes with run: %#x", ctx.reached);
  /* no lifecycle: an error that says so, nothing called */
  EXPECT(run(&without, &ctx) == GR_RUN_ERROR && strstr(ctx.why, "no GPU lifecycle") &&
             setups == 0,
         "an algorithm without a lifecycle: '%s'", ctx.why);

  /* the timing hooks */
  struct bench_hooks h;
  EXPECT(bench_hooks_of(&without, &h) == 0 && !h.setup, "hooks for an algorithm with none");
  EXPECT(bench_hooks_of(&own_hooks, &h) == 1 && h.setup == own_setup &&
             h.launch == own_launch && h.fetch == own_fetch && h.teardown == own_teardown &&
             !h.on_stream,
         "an algorithm's own hooks not used (or timed on a stream they do not launch on)");
  EXPECT(bench_hooks_of(&with_gpu, &h) == 1 && h.setup && h.setup != own_setup && h.on_stream,
         "no hooks made from the lifecycle (or not timed on the stream they launch on)");
  struct gr_case c;
  memset(&c, 0, sizeof c);
  c.alg = &with_gpu;
  struct gr_instance inst = {&c, 8, 8, NULL};
  char why[GR_WHY_LEN] = "";
  setups = 0;
  EXPECT(h.setup(&toy_variants[0], &inst, why, sizeof why) == NULL &&
             strstr(why, "runs on the CPU") && setups == 0,
         "a CPU variant set up for timing through the lifecycle: '%s'", why);
  setup_says = GR_RUN_UNSUPPORTED;
  EXPECT(h.setup(&toy_variants[1], &inst, why, sizeof why) == NULL &&
             strcmp(why, "setup declines v1") == 0 && teardowns == 0,
         "a declining setup timed: '%s'", why);
  /* a benchmark's first launch is the run step, told it is a benchmark; its decline tears down */
  setup_says = GR_RUN_OK;
  setups = launches = teardowns = runs = 0;
  EXPECT(bench_hooks_of(&with_run, &h) == 1, "no hooks from a lifecycle with a run step");
  c.alg = &with_run;
  EXPECT(h.setup(&toy_variants[1], &inst, why, sizeof why) == NULL &&
             strcmp(why, "run declines v1") == 0,
         "a declining run timed: '%s'", why);
  EXPECT(setups == 1 && runs == 1 && launches == 0 && teardowns == 1,
         "bench: setup %d run %d launch %d teardown %d", setups, runs, launches, teardowns);
  EXPECT(run_bench == 1 && run_poison == GR_POISON_A, "bench run saw poison %d bench %d",
         run_poison, run_bench);
  EXPECT(GR_POISON_A != GR_POISON_B && GR_SMEM_POISON_A != GR_SMEM_POISON_B,
         "the two runs' poisons are equal");
  TEST_DONE();
}
