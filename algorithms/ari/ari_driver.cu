/* The harness side of the ARI GPU variants: copy a case's labels to the device, poison the
 * output, call the variant's launcher, copy the ARIs back; a label the kernel rejects (outside
 * [0, k)) or sizes the launcher refuses make the run an error that says "bad input". The timing
 * hooks pass no label flag: their labels are the checked instance's. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>

#include "ari.h"
#include "ari_alg.h"
#include "gpu.h"
#include "gr.h"

extern "C" enum run_status ari_run_gpu(const struct variant *v, const struct gr_instance *inst,
                                       void *out, struct run_ctx *ctx)
{
  const struct ari_data *d = (const struct ari_data *)inst->priv;
  ari_launch_fn launch = (ari_launch_fn)v->impl;
  size_t label_bytes = (size_t)d->pairs * (size_t)d->n * sizeof(int16_t);
  int16_t *da, *db;
  double *dout;
  int *dbad, bad = 0;
  GR_CUDA_CHECK(cudaMalloc((void **)&da, label_bytes));
  GR_CUDA_CHECK(cudaMalloc((void **)&db, label_bytes));
  GR_CUDA_CHECK(cudaMalloc((void **)&dout, inst->out_bytes));
  GR_CUDA_CHECK(cudaMalloc((void **)&dbad, sizeof *dbad));
  GR_CUDA_CHECK(cudaMemcpy(da, d->a, label_bytes, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(db, d->b, label_bytes, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemset(dout, ctx->poison, inst->out_bytes));
  GR_CUDA_CHECK(cudaMemset(dbad, 0, sizeof *dbad));
  enum run_status st = RUN_OK;
  ari_v3_set_max_chunk(d->chunk);
  int rc = launch(da, db, d->n, d->k_a, d->k_b, d->pairs, dout, dbad, 0);
  if (rc == ARI_UNSUPPORTED) {
    gr_fmt(ctx->why, sizeof ctx->why, "table of %d x %d cells does not fit in shared memory",
           d->k_a, d->k_b);
    st = RUN_UNSUPPORTED;
  } else if (rc != ARI_OK) {
    gr_fmt(ctx->why, sizeof ctx->why,
           "bad input: n=%d k_a=%d k_b=%d pairs=%d outside what the "
           "launcher takes (n >= 0, 1 <= k <= %d, pairs >= 0)",
           d->n, d->k_a, d->k_b, d->pairs, ARI_MAX_K);
    st = RUN_ERROR;
  } else {
    GR_CUDA_CHECK(cudaDeviceSynchronize());
    GR_CUDA_CHECK(cudaMemcpy(out, dout, inst->out_bytes, cudaMemcpyDeviceToHost));
    GR_CUDA_CHECK(cudaMemcpy(&bad, dbad, sizeof bad, cudaMemcpyDeviceToHost));
  }
  if (bad) { /* the kernel found a label outside [0, k): the input is wrong, not the variant */
    int p = 0;
    for (const double *o = (const double *)out; p < d->pairs && !isnan(o[p]); p++)
      ;
    gr_fmt(ctx->why, sizeof ctx->why,
           "bad input: a label outside [0, %d) or [0, %d) (first in "
           "pair %d, whose ARI is NaN)",
           d->k_a, d->k_b, p);
    st = RUN_ERROR;
  }
  GR_CUDA_CHECK(cudaFree(da));
  GR_CUDA_CHECK(cudaFree(db));
  GR_CUDA_CHECK(cudaFree(dout));
  GR_CUDA_CHECK(cudaFree(dbad));
  return st;
}

/* ---- timing hooks: inputs resident on the device, only the launch is timed ---------------- */

extern "C" void ari_bench_teardown(void *state);

struct ari_bench {
  ari_launch_fn launch;
  const struct ari_data *d;
  int16_t *da, *db;
  double *dout;
  size_t out_bytes;
};

extern "C" void *ari_bench_setup(const struct variant *v, const struct gr_instance *inst, char *why,
                                 size_t len)
{
  const struct ari_data *d = (const struct ari_data *)inst->priv;
  struct ari_bench *b = (struct ari_bench *)calloc(1, sizeof *b);
  if (!b) {
    gr_fmt(why, len, "out of host memory");
    return NULL;
  }
  size_t label_bytes = (size_t)d->pairs * (size_t)d->n * sizeof(int16_t);
  b->launch = (ari_launch_fn)v->impl;
  b->d = d;
  b->out_bytes = inst->out_bytes;
  GR_CUDA_CHECK(cudaMalloc((void **)&b->da, label_bytes));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->db, label_bytes));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->dout, inst->out_bytes));
  GR_CUDA_CHECK(cudaMemcpy(b->da, d->a, label_bytes, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(b->db, d->b, label_bytes, cudaMemcpyHostToDevice));
  /* one untimed launch: declines (table too large for this variant) show here, and v3's
   * scratch is allocated outside the timed region */
  ari_v3_set_max_chunk(d->chunk);
  if (b->launch(b->da, b->db, d->n, d->k_a, d->k_b, d->pairs, b->dout, NULL, 0)) {
    gr_fmt(why, len, "table of %d x %d cells does not fit in shared memory", d->k_a, d->k_b);
    ari_bench_teardown(b);
    return NULL;
  }
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  return b;
}

extern "C" void ari_bench_launch(void *state)
{
  struct ari_bench *b = (struct ari_bench *)state;
  b->launch(b->da, b->db, b->d->n, b->d->k_a, b->d->k_b, b->d->pairs, b->dout, NULL, 0);
}

extern "C" void ari_bench_fetch(void *state, void *out)
{
  struct ari_bench *b = (struct ari_bench *)state;
  GR_CUDA_CHECK(cudaMemcpy(out, b->dout, b->out_bytes, cudaMemcpyDeviceToHost));
}

extern "C" void ari_bench_teardown(void *state)
{
  struct ari_bench *b = (struct ari_bench *)state;
  if (!b)
    return;
  GR_CUDA_CHECK(cudaFree(b->da));
  GR_CUDA_CHECK(cudaFree(b->db));
  GR_CUDA_CHECK(cudaFree(b->dout));
  free(b);
}
