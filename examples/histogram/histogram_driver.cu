/* SPDX-License-Identifier: Apache-2.0 */
/* The harness side of the GPU variants: the case's keys on the device, the variant's launcher,
 * the counts back; the timing hooks keep the keys resident and time the launcher alone. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpuregress/alg.h>
#include <gpuregress/gpu.h>

#include "histogram.h"
#include "histogram_alg.h"

struct hist_dev {
  hist_launch_fn launch;
  const struct hist_data *d;
  uint32_t *keys, *counts;
  size_t out_bytes;
};

static void hist_dev_free(struct hist_dev *b)
{
  if (!b)
    return;
  GR_CUDA_CHECK(cudaFree(b->keys));
  GR_CUDA_CHECK(cudaFree(b->counts));
  free(b);
}

static struct hist_dev *hist_dev_new(const struct gr_variant *v, const struct gr_instance *inst,
                                     char *why, size_t len)
{
  struct hist_dev *b = (struct hist_dev *)calloc(1, sizeof *b);
  if (!b) {
    snprintf(why, len, "out of host memory");
    return NULL;
  }
  b->launch = (hist_launch_fn)v->impl;
  b->d = (const struct hist_data *)inst->priv;
  b->out_bytes = inst->out_bytes;
  GR_CUDA_CHECK(cudaMalloc((void **)&b->keys, b->d->n * sizeof(uint32_t) + 4));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->counts, b->out_bytes));
  GR_CUDA_CHECK(cudaMemcpy(b->keys, b->d->keys, b->d->n * sizeof(uint32_t),
                           cudaMemcpyHostToDevice));
  return b;
}

static int hist_dev_launch(struct hist_dev *b, char *why, size_t len)
{
  int rc = b->launch(b->keys, (long)b->d->n, b->d->bins, b->counts);
  if (rc)
    snprintf(why, len, "%d bins do not fit this variant's shared-memory table", b->d->bins);
  return rc;
}

extern "C" enum gr_run_status hist_run_gpu(const struct gr_variant *v,
                                           const struct gr_instance *inst, void *out,
                                           struct gr_run_ctx *ctx)
{
  struct hist_dev *b = hist_dev_new(v, inst, ctx->why, sizeof ctx->why);
  if (!b)
    return GR_RUN_ERROR;
  GR_CUDA_CHECK(cudaMemset(b->counts, ctx->poison, b->out_bytes));
  enum gr_run_status st = GR_RUN_OK;
  if (hist_dev_launch(b, ctx->why, sizeof ctx->why)) {
    st = GR_RUN_UNSUPPORTED;
  } else {
    gr_gpu_sync();
    GR_CUDA_CHECK(cudaMemcpy(out, b->counts, b->out_bytes, cudaMemcpyDeviceToHost));
  }
  hist_dev_free(b);
  return st;
}

extern "C" void *hist_bench_setup(const struct gr_variant *v, const struct gr_instance *inst,
                                  char *why, size_t len)
{
  struct hist_dev *b = hist_dev_new(v, inst, why, len);
  if (b && hist_dev_launch(b, why, len)) { /* a variant that declines shows here, untimed */
    hist_dev_free(b);
    return NULL;
  }
  gr_gpu_sync();
  return b;
}

extern "C" void hist_bench_launch(void *state)
{
  struct hist_dev *b = (struct hist_dev *)state;
  b->launch(b->keys, (long)b->d->n, b->d->bins, b->counts);
}

extern "C" void hist_bench_fetch(void *state, void *out)
{
  struct hist_dev *b = (struct hist_dev *)state;
  GR_CUDA_CHECK(cudaMemcpy(out, b->counts, b->out_bytes, cudaMemcpyDeviceToHost));
}

extern "C" void hist_bench_teardown(void *state)
{
  hist_dev_free((struct hist_dev *)state);
}
