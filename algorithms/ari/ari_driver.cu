/* The harness side of the ARI GPU variants: copy a case's labels to the device, poison the
 * output, call the variant's launcher, copy the ARIs back; and the timing hooks. Both build the
 * same device state (ari_dev_new). */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "ari.h"
#include "ari_alg.h"
#include "gpu.h"
#include "gr.h"

/* A case on the device: labels uploaded, output allocated (run and the timing hooks). */
struct ari_dev {
  ari_launch_fn launch;
  const struct ari_data *d;
  int16_t *da, *db;
  double *dout;
  size_t out_bytes;
};

static void ari_dev_free(struct ari_dev *b)
{
  if (!b)
    return;
  GR_CUDA_CHECK(cudaFree(b->da));
  GR_CUDA_CHECK(cudaFree(b->db));
  GR_CUDA_CHECK(cudaFree(b->dout));
  free(b);
}

/* NULL with why when out of host memory. */
static struct ari_dev *ari_dev_new(const struct variant *v, const struct gr_instance *inst,
                                   char *why, size_t len)
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
  GR_CUDA_CHECK(cudaMemcpy(b->da, d->a, label_bytes, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(b->db, d->b, label_bytes, cudaMemcpyHostToDevice));
  return b;
}

/* Enqueue the variant. 0, or -1 with why when it declines (table beyond its shared memory). */
static int ari_dev_launch(struct ari_dev *b, char *why, size_t len)
{
  if (b->launch(b->da, b->db, b->d->n, b->d->k_a, b->d->k_b, b->d->pairs, b->dout, 0) == 0)
    return 0;
  gr_fmt(why, len, "table of %d x %d cells does not fit in shared memory", b->d->k_a, b->d->k_b);
  return -1;
}

extern "C" enum run_status ari_run_gpu(const struct variant *v, const struct gr_instance *inst,
                                       void *out, struct run_ctx *ctx)
{
  struct ari_dev *b = ari_dev_new(v, inst, ctx->why, sizeof ctx->why);
  if (!b)
    return RUN_ERROR;
  GR_CUDA_CHECK(cudaMemset(b->dout, ctx->poison, b->out_bytes));
  enum run_status st = RUN_OK;
  if (ari_dev_launch(b, ctx->why, sizeof ctx->why)) {
    st = RUN_UNSUPPORTED;
  } else {
    GR_CUDA_CHECK(cudaDeviceSynchronize());
    GR_CUDA_CHECK(cudaMemcpy(out, b->dout, b->out_bytes, cudaMemcpyDeviceToHost));
  }
  ari_dev_free(b);
  return st;
}

/* ---- timing hooks: inputs resident on the device, only the launch is timed ---------------- */

extern "C" void *ari_bench_setup(const struct variant *v, const struct gr_instance *inst, char *why,
                                 size_t len)
{
  struct ari_dev *b = ari_dev_new(v, inst, why, len);
  if (!b)
    return NULL;
  /* one untimed launch: declines (table too large for this variant) show here, and v3's
   * scratch is allocated outside the timed region */
  if (ari_dev_launch(b, why, len)) {
    ari_dev_free(b);
    return NULL;
  }
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  return b;
}

extern "C" void ari_bench_launch(void *state)
{
  struct ari_dev *b = (struct ari_dev *)state;
  b->launch(b->da, b->db, b->d->n, b->d->k_a, b->d->k_b, b->d->pairs, b->dout, 0);
}

extern "C" void ari_bench_fetch(void *state, void *out)
{
  struct ari_dev *b = (struct ari_dev *)state;
  GR_CUDA_CHECK(cudaMemcpy(out, b->dout, b->out_bytes, cudaMemcpyDeviceToHost));
}

extern "C" void ari_bench_teardown(void *state) { ari_dev_free((struct ari_dev *)state); }
