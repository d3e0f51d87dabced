/* The GPU lifecycle of the ARI variants (alg.h: struct gr_gpu_lifecycle): a case's labels on the
 * device, the ARIs the output, the variant's launcher on the harness's stream, the ARIs back. The
 * kernels check every label: one outside [0, k) is not counted, its pair's ARI is NaN and the
 * device flag is raised, which fetch turns into an error that says "bad input" (a label the
 * kernel rejects, or sizes the launcher refuses: the input is wrong, not the variant). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>

#include "ari.h"
#include "ari_alg.h"
#include <gpuregress/gpu.h>
#include <gpuregress/util.h>

/* A case on the device: labels, output, the bad-label flag. */
struct ari_dev {
  int16_t *da, *db;
  double *dout;
  int *dbad;
};

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

static enum gr_run_status ari_setup(struct gr_gpu_case *g)
{
  const struct ari_data *d = (const struct ari_data *)g->inst->priv;
  struct ari_dev *b = (struct ari_dev *)calloc(1, sizeof *b);
  if (!b) {
    gr_fmt(g->why, sizeof g->why, "out of host memory");
    return GR_RUN_ERROR;
  }
  size_t label_bytes = (size_t)d->pairs * (size_t)d->n * sizeof(int16_t);
  GR_CUDA_CHECK(cudaMalloc((void **)&b->da, label_bytes));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->db, label_bytes));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->dout, g->inst->out_bytes));
  GR_CUDA_CHECK(cudaMalloc((void **)&b->dbad, sizeof *b->dbad));
  GR_CUDA_CHECK(cudaMemset(b->dbad, 0, sizeof *b->dbad));
  if (!d->templates) {
    GR_CUDA_CHECK(cudaMemcpy(b->da, d->a, label_bytes, cudaMemcpyHostToDevice));
    GR_CUDA_CHECK(cudaMemcpy(b->db, d->b, label_bytes, cudaMemcpyHostToDevice));
  } else {
    ari_dev_replicate(b->da, d->a, d);
    ari_dev_replicate(b->db, d->b, d);
  }
  g->state = b;
  g->out[0] = b->dout;
  g->out_bytes[0] = g->inst->out_bytes;
  return GR_RUN_OK;
}

/* The launcher's ARI_OK, ARI_UNSUPPORTED (table beyond its shared memory) or another refusal
 * (sizes it does not take). */
static enum gr_run_status ari_launch_case(struct gr_gpu_case *g, void *stream)
{
  const struct ari_data *d = (const struct ari_data *)g->inst->priv;
  struct ari_dev *b = (struct ari_dev *)g->state;
  ari_v3_set_max_chunk(d->chunk); /* the case's chunk (0: the scratch budget): v3, dispatch */
  int rc = ((ari_launch_fn)g->variant->impl)(b->da, b->db, d->n, d->k_a, d->k_b, d->pairs, b->dout,
                                             b->dbad, stream);
  if (rc == ARI_OK)
    return GR_RUN_OK;
  if (rc == ARI_UNSUPPORTED) {
    gr_fmt(g->why, sizeof g->why, "table of %d x %d cells does not fit in shared memory", d->k_a,
           d->k_b);
    return GR_RUN_UNSUPPORTED;
  }
  gr_fmt(g->why, sizeof g->why,
         "bad input: n=%d k_a=%d k_b=%d pairs=%d outside what the launcher takes (n >= 0, 1 <= k "
         "<= %d, pairs >= 0)",
         d->n, d->k_a, d->k_b, d->pairs, ARI_MAX_K);
  return GR_RUN_ERROR;
}

static enum gr_run_status ari_fetch(struct gr_gpu_case *g, void *out)
{
  const struct ari_data *d = (const struct ari_data *)g->inst->priv;
  struct ari_dev *b = (struct ari_dev *)g->state;
  int bad = 0;
  GR_CUDA_CHECK(cudaMemcpy(out, b->dout, g->inst->out_bytes, cudaMemcpyDeviceToHost));
  GR_CUDA_CHECK(cudaMemcpy(&bad, b->dbad, sizeof bad, cudaMemcpyDeviceToHost));
  if (!bad)
    return GR_RUN_OK;
  int p = 0;
  for (const double *o = (const double *)out; p < d->pairs && !isnan(o[p]); p++)
    ;
  gr_fmt(g->why, sizeof g->why,
         "bad input: a label outside [0, %d) or [0, %d) (first in pair %d, whose ARI is NaN)",
         d->k_a, d->k_b, p);
  return GR_RUN_ERROR;
}

static void ari_teardown(struct gr_gpu_case *g)
{
  struct ari_dev *b = (struct ari_dev *)g->state;
  GR_CUDA_CHECK(cudaFree(b->da));
  GR_CUDA_CHECK(cudaFree(b->db));
  GR_CUDA_CHECK(cudaFree(b->dout));
  GR_CUDA_CHECK(cudaFree(b->dbad));
  free(b);
}

extern "C" const struct gr_gpu_lifecycle ari_lifecycle = {ari_setup, ari_launch_case, ari_fetch,
                                                          ari_teardown, NULL};
