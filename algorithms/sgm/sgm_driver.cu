/* The harness side of the SGM GPU variants: upload a case's stereo pair, poison the output (and
 * the scratch, so that a read of scratch nobody wrote shows as a difference between the two
 * runs), call the variant's launcher, copy the output back; and the timing hooks, which time the
 * production pipeline (census + cost + aggregation + winner-takes-all, no per-path output). */
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
                                            sgm_v5_prefetch_wta_launch};
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

/* A case on the device: the stereo pair uploaded, output and scratch allocated and poisoned, the
 * production arguments (no per-path output) set. Run and the timing hooks share it. */
struct sgm_dev {
  sgm_launch_fn launch;
  struct sgm_gpu_args a;
  uint8_t *dl, *dr;
  uint16_t *dout; /* the whole out layout; the production run writes its first 2*w*h values */
  void *dscratch;
  size_t n, out_bytes;
  int per_path;
};

static void sgm_dev_free(struct sgm_dev *s)
{
  if (!s)
    return;
  GR_CUDA_CHECK(cudaFree(s->dl));
  GR_CUDA_CHECK(cudaFree(s->dr));
  GR_CUDA_CHECK(cudaFree(s->dout));
  GR_CUDA_CHECK(cudaFree(s->dscratch));
  free(s);
}

/* GR_RUN_OK with *out, GR_RUN_UNSUPPORTED (the variant cannot take the case) or GR_RUN_ERROR (no
 * host memory) with why. */
static enum gr_run_status sgm_dev_new(const struct gr_variant *v, const struct gr_instance *inst,
                                      unsigned char poison, struct sgm_dev **out, char *why,
                                      size_t len)
{
  const struct sgm_data *d = (const struct sgm_data *)inst->priv;
  struct sgm_dev *s = (struct sgm_dev *)calloc(1, sizeof *s);
  *out = NULL;
  if (!s) {
    gr_fmt(why, len, "out of host memory");
    return GR_RUN_ERROR;
  }
  s->launch = (sgm_launch_fn)v->impl;
  sgm_args_init(&s->a, &d->prm);
  size_t scratch = 0;
  if (s->launch(&s->a, &scratch, NULL)) {
    sgm_declines(why, len, v, &d->prm);
    free(s);
    return GR_RUN_UNSUPPORTED;
  }
  s->n = (size_t)d->prm.width * d->prm.height;
  s->out_bytes = inst->out_bytes;
  s->per_path = d->per_path;
  GR_CUDA_CHECK(cudaMalloc((void **)&s->dl, s->n));
  GR_CUDA_CHECK(cudaMalloc((void **)&s->dr, s->n));
  GR_CUDA_CHECK(cudaMalloc((void **)&s->dout, s->out_bytes));
  GR_CUDA_CHECK(cudaMalloc(&s->dscratch, scratch ? scratch : 1));
  GR_CUDA_CHECK(cudaMemcpy(s->dl, d->left, s->n, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(s->dr, d->right, s->n, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemset(s->dout, poison, s->out_bytes));
  GR_CUDA_CHECK(cudaMemset(s->dscratch, poison, scratch ? scratch : 1));
  s->a.left = s->dl;
  s->a.right = s->dr;
  s->a.disp_out = s->dout;
  s->a.smin_out = s->dout + s->n;
  s->a.scratch = s->dscratch;
  *out = s;
  return GR_RUN_OK;
}

/* Poison output and scratch (so that a read of scratch nobody wrote shows as a difference between
 * the two runs), launch with the per-path output when the case has it, copy the output back. */
extern "C" enum gr_run_status sgm_run_gpu(const struct gr_variant *v,
                                          const struct gr_instance *inst, void *out,
                                          struct gr_run_ctx *ctx)
{
  struct sgm_dev *s;
  enum gr_run_status st = sgm_dev_new(v, inst, ctx->poison, &s, ctx->why, sizeof ctx->why);
  if (st != GR_RUN_OK)
    return st;
  struct sgm_gpu_args a = s->a;
  size_t unused = 0;
  a.path_out = s->per_path ? s->dout + 2 * s->n : NULL;
  if (s->launch(&a, &unused, 0)) {
    sgm_declines(ctx->why, sizeof ctx->why, v, &((const struct sgm_data *)inst->priv)->prm);
    st = GR_RUN_UNSUPPORTED;
  } else {
    GR_CUDA_CHECK(cudaDeviceSynchronize());
    GR_CUDA_CHECK(cudaMemcpy(out, s->dout, s->out_bytes, cudaMemcpyDeviceToHost));
  }
  sgm_dev_free(s);
  return st;
}

extern "C" void *sgm_bench_setup(const struct gr_variant *v, const struct gr_instance *inst,
                                 char *why, size_t len)
{
  if (!(v->flags & GR_VARIANT_GPU) || !v->impl) {
    gr_fmt(why, len, "'%s' is not a GPU variant: not timed", v->name);
    return NULL;
  }
  struct sgm_dev *s;
  if (sgm_dev_new(v, inst, 0xA5, &s, why, len) != GR_RUN_OK)
    return NULL;
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  return s;
}

extern "C" void sgm_bench_launch(void *state)
{
  struct sgm_dev *s = (struct sgm_dev *)state;
  size_t unused = 0;
  s->launch(&s->a, &unused, 0);
}

/* The production run leaves the disparity map and summed cost; a case small enough for the
 * per-path layout gets one more run that also writes the per-path costs, so that the whole
 * output can be checked. */
extern "C" void sgm_bench_fetch(void *state, void *out)
{
  struct sgm_dev *s = (struct sgm_dev *)state;
  if (s->per_path) {
    struct sgm_gpu_args a = s->a;
    size_t unused = 0;
    a.path_out = s->dout + 2 * s->n;
    s->launch(&a, &unused, 0);
  }
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  GR_CUDA_CHECK(cudaMemcpy(out, s->dout, s->out_bytes, cudaMemcpyDeviceToHost));
}

extern "C" void sgm_bench_teardown(void *state)
{
  sgm_dev_free((struct sgm_dev *)state);
}
