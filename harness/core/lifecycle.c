/* The checked run built from an algorithm's GPU lifecycle (alg.h: struct gr_gpu_lifecycle; its
 * run step in place of launch when it has one). The
 * worker (harness/run/worker.c) calls it twice per case, with the output poison in ctx and shared
 * memory poisoned before each call; the timing builds its hooks from the same steps
 * (harness/bench/bench_hooks.c). */
#include <string.h>

#include "alg.h"
#include "gpu.h"
#include "gr.h"

enum gr_run_status gr_gpu_lifecycle_run(const struct gr_variant *v, const struct gr_instance *inst,
                                        void *out, struct gr_run_ctx *ctx)
{
  const struct gr_gpu_lifecycle *lc = inst->c->alg->gpu;
  if (!lc) {
    gr_fmt(ctx->why, sizeof ctx->why, "algorithm '%s' has no GPU lifecycle (alg.h: .gpu)",
           inst->c->alg->name);
    return GR_RUN_ERROR;
  }
  struct gr_gpu_case g;
  memset(&g, 0, sizeof g);
  g.variant = v;
  g.inst = inst;
  g.poison = ctx->poison;
  enum gr_run_status st = lc->setup(&g);
  if (st == GR_RUN_OK) {
    for (int i = 0; i < GR_GPU_MAX_OUTPUTS; i++)
      if (g.out[i])
        gr_gpu_fill(g.out[i], ctx->poison, g.out_bytes[i]);
    st = lc->run ? lc->run(&g, NULL) : lc->launch(&g, NULL);
    if (st == GR_RUN_OK) {
      gr_gpu_sync();
      st = lc->fetch(&g, out);
    }
    lc->teardown(&g);
  }
  ctx->reached |= g.reached;
  if (st != GR_RUN_OK)
    gr_fmt(ctx->why, sizeof ctx->why, "%s", g.why[0] ? g.why : "no reason given");
  return st;
}
