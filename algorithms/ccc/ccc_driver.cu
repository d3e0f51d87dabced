/* The harness side of the CCC GPU variants: upload a case's features, poison the outputs, call
 * the variant's launcher (partitioning + pairs), copy the CCC values and part pairs back. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "ccc.h"
#include "ccc_alg.h"
#include <gpuregress/gpu.h>
#include <gpuregress/util.h>

struct ccc_bench {
  ccc_launch_fn launch;
  struct ccc_gpu g;
  float *values;
  uint8_t *cat_k;
  size_t pairs;
};

static void ccc_bench_free_device(struct ccc_bench *b)
{
  GR_CUDA_CHECK(cudaFree(b->values));
  GR_CUDA_CHECK(cudaFree(b->cat_k));
  GR_CUDA_CHECK(cudaFree(b->g.labels));
  GR_CUDA_CHECK(cudaFree(b->g.meta));
  GR_CUDA_CHECK(cudaFree(b->g.ccc));
  GR_CUDA_CHECK(cudaFree(b->g.idx));
}

/* Device buffers for d, inputs uploaded, outputs filled with poison. */
static void ccc_bench_alloc(struct ccc_bench *b, const struct ccc_data *d, unsigned char poison)
{
  size_t F = (size_t)d->features, n = (size_t)d->n;
  b->pairs = (size_t)d->pairs;
  GR_CUDA_CHECK(cudaMalloc((void **)&b->values, F * n * sizeof(float)));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->cat_k, F));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->g.labels, F * ccc_label_stride(d->n)));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->g.meta, F * sizeof(uint32_t)));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->g.ccc, b->pairs * sizeof(double) + 8));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->g.idx, b->pairs + 8));
  GR_CUDA_CHECK(cudaMemcpy(b->values, d->values, F * n * sizeof(float), cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(b->cat_k, d->cat_k, F, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemset(b->g.ccc, poison, b->pairs * sizeof(double)));
  GR_CUDA_CHECK(cudaMemset(b->g.idx, poison, b->pairs));
  b->g.n = d->n;
  b->g.features = d->features;
  b->g.lmax = d->lmax;
  b->g.values = b->values;
  b->g.cat_k = b->cat_k;
}

static void ccc_bench_copy_out(const struct ccc_bench *b, void *out)
{
  GR_CUDA_CHECK(cudaMemcpy(out, b->g.ccc, b->pairs * sizeof(double), cudaMemcpyDeviceToHost));
  GR_CUDA_CHECK(cudaMemcpy((char *)out + b->pairs * sizeof(double), b->g.idx, b->pairs,
                           cudaMemcpyDeviceToHost));
}

extern "C" enum gr_run_status ccc_run_gpu(const struct gr_variant *v,
                                          const struct gr_instance *inst, void *out,
                                          struct gr_run_ctx *ctx)
{
  const struct ccc_data *d = (const struct ccc_data *)inst->priv;
  struct ccc_bench b = {};
  b.launch = (ccc_launch_fn)v->impl;
  ccc_bench_alloc(&b, d, ctx->poison);
  enum gr_run_status st = GR_RUN_OK;
  if (b.launch(&b.g, 0)) {
    gr_fmt(ctx->why, sizeof ctx->why, "a table of %d x %d fine labels per warp does not fit",
           d->lmax + 1, d->lmax + 1);
    st = GR_RUN_UNSUPPORTED;
  } else {
    GR_CUDA_CHECK(cudaDeviceSynchronize());
    ccc_bench_copy_out(&b, out);
  }
  ccc_bench_free_device(&b);
  return st;
}

/* ---- timing hooks: the features resident on the device; partitioning and pairs are timed --- */

extern "C" void *ccc_bench_setup(const struct gr_variant *v, const struct gr_instance *inst,
                                 char *why, size_t len)
{
  const struct ccc_data *d = (const struct ccc_data *)inst->priv;
  struct ccc_bench *b = (struct ccc_bench *)calloc(1, sizeof *b);
  if (!b) {
    gr_fmt(why, len, "out of host memory");
    return NULL;
  }
  b->launch = (ccc_launch_fn)v->impl;
  ccc_bench_alloc(b, d, 0xff);
  if (b->launch(&b->g, 0)) {
    gr_fmt(why, len, "a table of %d x %d fine labels per warp does not fit", d->lmax + 1,
           d->lmax + 1);
    ccc_bench_teardown(b);
    return NULL;
  }
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  return b;
}

extern "C" void ccc_bench_launch(void *state)
{
  struct ccc_bench *b = (struct ccc_bench *)state;
  b->launch(&b->g, 0);
}

extern "C" void ccc_bench_fetch(void *state, void *out)
{
  ccc_bench_copy_out((struct ccc_bench *)state, out);
}

extern "C" void ccc_bench_teardown(void *state)
{
  struct ccc_bench *b = (struct ccc_bench *)state;
  if (!b)
    return;
  ccc_bench_free_device(b);
  free(b);
}
