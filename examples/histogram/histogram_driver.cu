/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU lifecycle of the example's variants (alg.h: struct gr_gpu_lifecycle): keys and counts
 * on the device, the launcher on the harness's stream, the counts back; the harness makes the
 * checked run and the timing from these four steps. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include <gpuregress/gpu.h>
#include <gpuregress/util.h>
#include "histogram.h"
#include "histogram_alg.h"

struct hist_dev { /* the case on the device */
  uint32_t *keys, *counts;
};

static enum gr_run_status hist_setup(struct gr_gpu_case *g)
{
  const struct hist_data *d = (const struct hist_data *)g->inst->priv;
  struct hist_dev *b = (struct hist_dev *)calloc(1, sizeof *b);
  if (!b) {
    gr_fmt(g->why, sizeof g->why, "out of host memory");
    return GR_RUN_ERROR;
  }
  GR_CUDA_CHECK(cudaMalloc((void **)&b->keys, d->n * sizeof(uint32_t) + 4));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->counts, g->inst->out_bytes));
  GR_CUDA_CHECK(cudaMemcpy(b->keys, d->keys, d->n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  g->state = b;
  g->out[0] = b->counts;
  g->out_bytes[0] = g->inst->out_bytes;
  return GR_RUN_OK;
}

static enum gr_run_status hist_launch(struct gr_gpu_case *g, void *stream)
{
  const struct hist_data *d = (const struct hist_data *)g->inst->priv;
  struct hist_dev *b = (struct hist_dev *)g->state;
  if (!((hist_launch_fn)g->variant->impl)(b->keys, (long)d->n, d->bins, b->counts, stream))
    return GR_RUN_OK;
  gr_fmt(g->why, sizeof g->why, "%d bins do not fit this variant's shared-memory table", d->bins);
  return GR_RUN_UNSUPPORTED;
}

static enum gr_run_status hist_fetch(struct gr_gpu_case *g, void *out)
{
  struct hist_dev *b = (struct hist_dev *)g->state;
  GR_CUDA_CHECK(cudaMemcpy(out, b->counts, g->inst->out_bytes, cudaMemcpyDeviceToHost));
  return GR_RUN_OK;
}

static void hist_teardown(struct gr_gpu_case *g)
{
  struct hist_dev *b = (struct hist_dev *)g->state;
  GR_CUDA_CHECK(cudaFree(b->keys));
  GR_CUDA_CHECK(cudaFree(b->counts));
  free(b);
}

extern "C" const struct gr_gpu_lifecycle hist_lifecycle = {hist_setup, hist_launch, hist_fetch,
                                                           hist_teardown, NULL};
