/* The GPU lifecycle of the CCC variants (alg.h: struct gr_gpu_lifecycle): a case's features on
 * the device, the CCC values and part pairs the outputs, the variant's launcher (partitioning +
 * pairs) on the harness's stream, both outputs back. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "ccc.h"
#include "ccc_alg.h"
#include <gpuregress/gpu.h>
#include <gpuregress/util.h>

struct ccc_dev {
  struct ccc_gpu g;
  float *values;
  uint8_t *cat_k;
  size_t pairs;
};

static enum gr_run_status ccc_setup(struct gr_gpu_case *gc)
{
  const struct ccc_data *d = (const struct ccc_data *)gc->inst->priv;
  struct ccc_dev *b = (struct ccc_dev *)calloc(1, sizeof *b);
  if (!b) {
    gr_fmt(gc->why, sizeof gc->why, "out of host memory");
    return GR_RUN_ERROR;
  }
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
  b->g.n = d->n;
  b->g.features = d->features;
  b->g.lmax = d->lmax;
  b->g.values = b->values;
  b->g.cat_k = b->cat_k;
  gc->state = b;
  gc->out[0] = b->g.ccc;
  gc->out_bytes[0] = b->pairs * sizeof(double);
  gc->out[1] = b->g.idx;
  gc->out_bytes[1] = b->pairs;
  return GR_RUN_OK;
}

static enum gr_run_status ccc_launch(struct gr_gpu_case *gc, void *stream)
{
  const struct ccc_data *d = (const struct ccc_data *)gc->inst->priv;
  struct ccc_dev *b = (struct ccc_dev *)gc->state;
  if (!((ccc_launch_fn)gc->variant->impl)(&b->g, stream))
    return GR_RUN_OK;
  gr_fmt(gc->why, sizeof gc->why, "a table of %d x %d fine labels per warp does not fit",
         d->lmax + 1, d->lmax + 1);
  return GR_RUN_UNSUPPORTED;
}

static enum gr_run_status ccc_fetch(struct gr_gpu_case *gc, void *out)
{
  struct ccc_dev *b = (struct ccc_dev *)gc->state;
  GR_CUDA_CHECK(cudaMemcpy(out, b->g.ccc, b->pairs * sizeof(double), cudaMemcpyDeviceToHost));
  GR_CUDA_CHECK(cudaMemcpy((char *)out + b->pairs * sizeof(double), b->g.idx, b->pairs,
                           cudaMemcpyDeviceToHost));
  return GR_RUN_OK;
}

static void ccc_teardown(struct gr_gpu_case *gc)
{
  struct ccc_dev *b = (struct ccc_dev *)gc->state;
  GR_CUDA_CHECK(cudaFree(b->values));
  GR_CUDA_CHECK(cudaFree(b->cat_k));
  GR_CUDA_CHECK(cudaFree(b->g.labels));
  GR_CUDA_CHECK(cudaFree(b->g.meta));
  GR_CUDA_CHECK(cudaFree(b->g.ccc));
  GR_CUDA_CHECK(cudaFree(b->g.idx));
  free(b);
}

extern "C" const struct gr_gpu_lifecycle ccc_lifecycle = {ccc_setup, ccc_launch, ccc_fetch,
                                                          ccc_teardown, NULL};
