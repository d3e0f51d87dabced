/* The harness side of the ARI GPU variants: copy a case's labels to the device, poison the
 * output, call the variant's launcher, copy the ARIs back; a label the kernel rejects (outside
 * [0, k)) or sizes the launcher refuses make the run an error that says "bad input". The timing
 * hooks pass no label flag: their labels are the checked instance's. Run and the timing hooks
 * build the same device state (ari_dev_new). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>

#include "ari.h"
#include "ari_alg.h"
#include <gpuregress/gpu.h>
#include <gpuregress/util.h>

/* A case on the device: labels uploaded, output allocated, and (run only) the bad-label flag. */
struct ari_dev {
  ari_launch_fn launch;
  const struct ari_data *d;
  int16_t *da, *db;
  double *dout;
  int *dbad; /* NULL: no label flag */
  size_t out_bytes;
};

static void ari_dev_free(struct ari_dev *b)
{
  if (!b)
    return;
  GR_CUDA_CHECK(cudaFree(b->da));
  GR_CUDA_CHECK(cudaFree(b->db));
  GR_CUDA_CHECK(cudaFree(b->dout));
  GR_CUDA_CHECK(cudaFree(b->dbad));
  free(b);
}

/* A repeated instance (ari_alg.h, templates): the templates uploaded, doubled on the device
 * until the body is full (pair p = template p % templates), then the derived pairs. */
static void ari_dev_replicate(int16_t *dst, const int16_t *host, const struct ari_data *d)
{
  size_t n = (size_t)d->n, t = (size_t)d->templates, body = (size_t)ari_body_pairs(d);
  GR_CUDA_CHECK(cudaMemcpy(dst, host, t * n * sizeof *dst, cudaMemcpyHostToDevice));
  for (size_t filled = t; filled < body;) { /* filled stays a multiple of t */
    size_t m = body - filled < filled ? body - filled : filled;
    GR_CUDA_CHECK(cudaMemcpy(dst + filled * n, dst, m * n * sizeof *dst, cudaMemcpyDeviceToDevice));
    filled += m;
  }
  if (d->derived)
    GR_CUDA_CHECK(cudaMemcpy(dst + body * n, host + t * n, 3 * n * sizeof *dst,
                             cudaMemcpyHostToDevice));
}

/* NULL with why when out of host memory. flag: allocate and clear the bad-label flag. */
static struct ari_dev *ari_dev_new(const struct gr_variant *v, const struct gr_instance *inst,
                                   int flag, char *why, size_t len)
{
  const struct ari_data *d = (const struct ari_data *)inst->priv;
  struct ari_dev *b = (struct ari_dev *)calloc(1, sizeof *b);
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
  if (flag) {
    GR_CUDA_CHECK(cudaMalloc((void **)&b->dbad, sizeof *b->dbad));
    GR_CUDA_CHECK(cudaMemset(b->dbad, 0, sizeof *b->dbad));
  }
  if (!d->templates) {
    GR_CUDA_CHECK(cudaMemcpy(b->da, d->a, label_bytes, cudaMemcpyHostToDevice));
    GR_CUDA_CHECK(cudaMemcpy(b->db, d->b, label_bytes, cudaMemcpyHostToDevice));
  } else {
    ari_dev_replicate(b->da, d->a, d);
    ari_dev_replicate(b->db, d->b, d);
  }
  return b;
}

/* Enqueue the variant: the launcher's ARI_OK, ARI_UNSUPPORTED (table beyond its shared memory)
 * or another refusal (sizes it does not take), why filled on a refusal. */
static int ari_dev_launch(struct ari_dev *b, char *why, size_t len)
{
  const struct ari_data *d = b->d;
  ari_v3_set_max_chunk(d->chunk); /* the case's chunk (0: the scratch budget), for v3 and dispatch */
  int rc = b->launch(b->da, b->db, d->n, d->k_a, d->k_b, d->pairs, b->dout, b->dbad, 0);
  if (rc == ARI_UNSUPPORTED)
    gr_fmt(why, len, "table of %d x %d cells does not fit in shared memory", d->k_a, d->k_b);
  else if (rc != ARI_OK)
    gr_fmt(why, len,
           "bad input: n=%d k_a=%d k_b=%d pairs=%d outside what the "
           "launcher takes (n >= 0, 1 <= k <= %d, pairs >= 0)",
           d->n, d->k_a, d->k_b, d->pairs, ARI_MAX_K);
  return rc;
}

extern "C" enum gr_run_status ari_run_gpu(const struct gr_variant *v,
                                          const struct gr_instance *inst, void *out,
                                          struct gr_run_ctx *ctx)
{
  const struct ari_data *d = (const struct ari_data *)inst->priv;
  struct ari_dev *b = ari_dev_new(v, inst, 1, ctx->why, sizeof ctx->why);
  if (!b)
    return GR_RUN_ERROR;
  GR_CUDA_CHECK(cudaMemset(b->dout, ctx->poison, b->out_bytes));
  enum gr_run_status st = GR_RUN_OK;
  int rc = ari_dev_launch(b, ctx->why, sizeof ctx->why), bad = 0;
  if (rc == ARI_UNSUPPORTED) {
    st = GR_RUN_UNSUPPORTED;
  } else if (rc != ARI_OK) {
    st = GR_RUN_ERROR;
  } else {
    GR_CUDA_CHECK(cudaDeviceSynchronize());
    GR_CUDA_CHECK(cudaMemcpy(out, b->dout, b->out_bytes, cudaMemcpyDeviceToHost));
    GR_CUDA_CHECK(cudaMemcpy(&bad, b->dbad, sizeof bad, cudaMemcpyDeviceToHost));
  }
  if (bad) { /* the kernel found a label outside [0, k): the input is wrong, not the variant */
    int p = 0;
    for (const double *o = (const double *)out; p < d->pairs && !isnan(o[p]); p++)
      ;
    gr_fmt(ctx->why, sizeof ctx->why,
           "bad input: a label outside [0, %d) or [0, %d) (first in "
           "pair %d, whose ARI is NaN)",
           d->k_a, d->k_b, p);
    st = GR_RUN_ERROR;
  }
  ari_dev_free(b);
  return st;
}

/* ---- timing hooks: inputs resident on the device, only the launch is timed ---------------- */

extern "C" void *ari_bench_setup(const struct gr_variant *v, const struct gr_instance *inst,
                                 char *why, size_t len)
{
  struct ari_dev *b = ari_dev_new(v, inst, 0, why, len);
  if (!b)
    return NULL;
  /* one untimed launch: declines (table too large for this variant) show here, and v3's
   * scratch is allocated outside the timed region */
  if (ari_dev_launch(b, why, len) != ARI_OK) {
    ari_dev_free(b);
    return NULL;
  }
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  return b;
}

extern "C" void ari_bench_launch(void *state)
{
  struct ari_dev *b = (struct ari_dev *)state;
  b->launch(b->da, b->db, b->d->n, b->d->k_a, b->d->k_b, b->d->pairs, b->dout, NULL, 0);
}

extern "C" void ari_bench_fetch(void *state, void *out)
{
  struct ari_dev *b = (struct ari_dev *)state;
  GR_CUDA_CHECK(cudaMemcpy(out, b->dout, b->out_bytes, cudaMemcpyDeviceToHost));
}

extern "C" void ari_bench_teardown(void *state)
{
  ari_dev_free((struct ari_dev *)state);
}
