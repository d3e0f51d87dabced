/* The timing hooks made from a GPU lifecycle. See bench_hooks.h. */
#include "bench_hooks.h"

#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gr.h"

#include "bench_gpu.h"

/* The timing's state of a lifecycle variant: the case on the device and the stream its launches
 * enqueue on (bench_gpu_stream(): the one the samples are timed on). */
struct lc_state {
  struct gr_gpu_case g;
  void *stream;
};

static const struct gr_gpu_lifecycle *lifecycle_of(const struct gr_gpu_case *g)
{
  return g->inst->c->alg->gpu;
}

/* Setup, outputs poisoned (an element the timed launches leave unwritten fails the check after
 * the timing loop), one untimed launch (g->timed 0: every output written; the lifecycle's run
 * when it has one, which leaves the sizes or the plan the launches replay), synchronised: a
 * variant that declines the case shows here. The launches after it are timed (g->timed 1,
 * g->poison -1). */
static void *lc_setup(const struct gr_variant *v, const struct gr_instance *inst, char *why,
                      size_t len)
{
  if (!(v->flags & GR_VARIANT_GPU)) {
    gr_fmt(why, len, "'%s' runs on the CPU: only GPU variants are timed", v->name);
    return NULL;
  }
  struct lc_state *s = calloc(1, sizeof *s);
  if (!s) {
    gr_fmt(why, len, "out of host memory");
    return NULL;
  }
  struct gr_gpu_case *g = &s->g;
  g->variant = v;
  g->inst = inst;
  g->poison = GR_POISON_A;
  g->bench = 1;
  s->stream = bench_gpu_stream();
  const struct gr_gpu_lifecycle *lc = inst->c->alg->gpu;
  enum gr_run_status st = lc->setup(g);
  if (st == GR_RUN_OK) {
    for (int i = 0; i < GR_GPU_MAX_OUTPUTS; i++)
      if (g->out[i])
        gr_gpu_fill(g->out[i], GR_POISON_A, g->out_bytes[i]);
    st = lc->run ? lc->run(g, s->stream) : lc->launch(g, s->stream);
    if (st == GR_RUN_OK)
      gr_gpu_sync();
    else
      lc->teardown(g);
    g->timed = 1;
    g->poison = -1;
  }
  if (st != GR_RUN_OK) {
    gr_fmt(why, len, "%s", g->why[0] ? g->why : "this variant cannot take this case");
    free(s);
    return NULL;
  }
  return s;
}

static void lc_launch(void *state)
{
  struct lc_state *s = state;
  lifecycle_of(&s->g)->launch(&s->g, s->stream);
}

/* (a bad-input status is not the timing's matter: the check of what was fetched follows) */
static void lc_fetch(void *state, void *out)
{
  struct lc_state *s = state;
  gr_gpu_sync();
  lifecycle_of(&s->g)->fetch(&s->g, out);
}

static void lc_teardown(void *state)
{
  struct lc_state *s = state;
  if (!s)
    return;
  lifecycle_of(&s->g)->teardown(&s->g);
  free(s);
}

int bench_hooks_of(const struct gr_algorithm *a, struct bench_hooks *h)
{
  memset(h, 0, sizeof *h);
  if (a->gpu) {
    h->setup = lc_setup;
    h->launch = lc_launch;
    h->fetch = lc_fetch;
    h->teardown = lc_teardown;
    h->on_stream = 1;
    return 1;
  }
  if (!a->bench_setup || !a->bench_launch || !a->bench_fetch || !a->bench_teardown)
    return 0;
  h->setup = a->bench_setup;
  h->launch = a->bench_launch;
  h->fetch = a->bench_fetch;
  h->teardown = a->bench_teardown;
  return 1;
}
