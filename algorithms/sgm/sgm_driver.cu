/* The GPU lifecycle of the SGM variants (alg.h: struct gr_gpu_lifecycle): a case's stereo pair on
 * the device, the output and the scratch named for the poison (so that a read of scratch nobody
 * wrote shows as a difference between the two runs), the variant's launcher on the harness's
 * stream, the output back. A timed launch is the production pipeline (census + cost +
 * aggregation + winner-takes-all, no per-path output); the checked run's launch and the
 * benchmark's first one also write the per-path costs where the case has them. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/gpu.h>
#include <gpuregress/util.h>
#include "sgm.h"
#include "sgm_alg.h"

static void sgm_args_init(struct sgm_gpu_args *a, const struct sgm_params *p)
{
  memset(a, 0, sizeof *a);
  a->width = p->width;
  a->height = p->height;
  a->disp = p->disp;
  a->paths = p->paths;
  a->p1 = p->p1;
  a->p2 = p->p2;
}

extern "C" size_t sgm_gpu_bytes(const struct sgm_params *p, int per_path)
{
  static const sgm_launch_fn launchers[] = {sgm_v1_fullmask_launch, sgm_v2_padded_launch,
                                            sgm_v3_warp_fused_launch, sgm_v4_packed_dpx_launch,
                                            sgm_v5_prefetch_wta_launch, sgm_v6_staged_ring_launch};
  struct sgm_gpu_args a;
  sgm_args_init(&a, p);
  size_t n = (size_t)p->width * p->height, most = 0;
  for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++) {
    size_t s = 0;
    if (launchers[i](&a, &s, NULL) == 0 && s > most)
      most = s;
  }
  size_t out = 2 * n + (per_path ? n * p->disp * p->paths : 0);
  return most + 2 * n + out * sizeof(uint16_t);
}

static void sgm_declines(char *why, size_t len, const struct gr_variant *v,
                         const struct sgm_params *p)
{
  gr_fmt(why, len, "%s cannot take D = %d with %d paths", v->name, p->disp, p->paths);
}

/* A case on the device: the stereo pair uploaded, output and scratch allocated, the production
 * arguments (no per-path output) set. */
struct sgm_dev {
  struct sgm_gpu_args a;
  uint8_t *dl, *dr;
  uint16_t *dout; /* the whole out layout; the production run writes its first 2*w*h values */
  void *dscratch;
  size_t n;
  int per_path;
};

static enum gr_run_status sgm_setup(struct gr_gpu_case *g)
{
  const struct sgm_data *d = (const struct sgm_data *)g->inst->priv;
  struct sgm_dev *s = (struct sgm_dev *)calloc(1, sizeof *s);
  if (!s) {
    gr_fmt(g->why, sizeof g->why, "out of host memory");
    return GR_RUN_ERROR;
  }
  sgm_args_init(&s->a, &d->prm);
  size_t scratch = 0;
  if (((sgm_launch_fn)g->variant->impl)(&s->a, &scratch, NULL)) {
    sgm_declines(g->why, sizeof g->why, g->variant, &d->prm);
    free(s);
    return GR_RUN_UNSUPPORTED;
  }
  s->n = (size_t)d->prm.width * d->prm.height;
  s->per_path = d->per_path;
  scratch = scratch ? scratch : 1;
  GR_CUDA_CHECK(cudaMalloc((void **)&s->dl, s->n));
  GR_CUDA_CHECK(cudaMalloc((void **)&s->dr, s->n));
  GR_CUDA_CHECK(cudaMalloc((void **)&s->dout, g->inst->out_bytes));
  GR_CUDA_CHECK(cudaMalloc(&s->dscratch, scratch));
  GR_CUDA_CHECK(cudaMemcpy(s->dl, d->left, s->n, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(s->dr, d->right, s->n, cudaMemcpyHostToDevice));
  s->a.left = s->dl;
  s->a.right = s->dr;
  s->a.disp_out = s->dout;
  s->a.smin_out = s->dout + s->n;
  s->a.scratch = s->dscratch;
  g->state = s;
  g->out[0] = s->dout;
  g->out_bytes[0] = g->inst->out_bytes;
  g->out[1] = s->dscratch;
  g->out_bytes[1] = scratch;
  return GR_RUN_OK;
}

static enum gr_run_status sgm_launch(struct gr_gpu_case *g, void *stream)
{
  struct sgm_dev *s = (struct sgm_dev *)g->state;
  struct sgm_gpu_args a = s->a;
  size_t unused = 0;
  a.path_out = s->per_path && !g->timed ? s->dout + 2 * s->n : NULL;
  if (!((sgm_launch_fn)g->variant->impl)(&a, &unused, stream))
    return GR_RUN_OK;
  sgm_declines(g->why, sizeof g->why, g->variant,
               &((const struct sgm_data *)g->inst->priv)->prm);
  return GR_RUN_UNSUPPORTED;
}

static enum gr_run_status sgm_fetch(struct gr_gpu_case *g, void *out)
{
  struct sgm_dev *s = (struct sgm_dev *)g->state;
  GR_CUDA_CHECK(cudaMemcpy(out, s->dout, g->inst->out_bytes, cudaMemcpyDeviceToHost));
  return GR_RUN_OK;
}

static void sgm_teardown(struct gr_gpu_case *g)
{
  struct sgm_dev *s = (struct sgm_dev *)g->state;
  GR_CUDA_CHECK(cudaFree(s->dl));
  GR_CUDA_CHECK(cudaFree(s->dr));
  GR_CUDA_CHECK(cudaFree(s->dout));
  GR_CUDA_CHECK(cudaFree(s->dscratch));
  free(s);
}

extern "C" const struct gr_gpu_lifecycle sgm_lifecycle = {sgm_setup, sgm_launch, sgm_fetch,
                                                          sgm_teardown, NULL};
