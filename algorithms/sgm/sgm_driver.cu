/* The harness side of the SGM GPU variants: upload a case's stereo pair, poison the output (and
 * the scratch, so that a read of scratch nobody wrote shows as a difference between the two
 * runs), call the variant's launcher, copy the output back; and the timing hooks, which time the
 * production pipeline (census + cost + aggregation + winner-takes-all, no per-path output). */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gr.h"
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
                                            sgm_v3_warp_fused_launch, sgm_v4_packed_dpx_launch};
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

extern "C" enum run_status sgm_run_gpu(const struct variant *v, const struct gr_instance *inst,
                                       void *out, struct run_ctx *ctx)
{
  const struct sgm_data *d = (const struct sgm_data *)inst->priv;
  sgm_launch_fn launch = (sgm_launch_fn)v->impl;
  struct sgm_gpu_args a;
  sgm_args_init(&a, &d->prm);
  size_t n = (size_t)d->prm.width * d->prm.height, scratch = 0;
  if (launch(&a, &scratch, NULL)) {
    gr_fmt(ctx->why, sizeof ctx->why, "%s cannot take D = %d with %d paths", v->name, d->prm.disp,
           d->prm.paths);
    return RUN_UNSUPPORTED;
  }
  uint8_t *dl, *dr;
  uint16_t *dout;
  void *dscratch;
  GR_CUDA_CHECK(cudaMalloc((void **)&dl, n));
  GR_CUDA_CHECK(cudaMalloc((void **)&dr, n));
  GR_CUDA_CHECK(cudaMalloc((void **)&dout, inst->out_bytes));
  GR_CUDA_CHECK(cudaMalloc(&dscratch, scratch ? scratch : 1));
  GR_CUDA_CHECK(cudaMemcpy(dl, d->left, n, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(dr, d->right, n, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemset(dout, ctx->poison, inst->out_bytes));
  GR_CUDA_CHECK(cudaMemset(dscratch, ctx->poison, scratch ? scratch : 1));
  a.left = dl;
  a.right = dr;
  a.disp_out = dout;
  a.smin_out = dout + n;
  a.path_out = d->per_path ? dout + 2 * n : NULL;
  a.scratch = dscratch;
  enum run_status st = RUN_OK;
  if (launch(&a, &scratch, 0)) {
    gr_fmt(ctx->why, sizeof ctx->why, "%s cannot take D = %d with %d paths", v->name, d->prm.disp,
           d->prm.paths);
    st = RUN_UNSUPPORTED;
  } else {
    GR_CUDA_CHECK(cudaDeviceSynchronize());
    GR_CUDA_CHECK(cudaMemcpy(out, dout, inst->out_bytes, cudaMemcpyDeviceToHost));
  }
  GR_CUDA_CHECK(cudaFree(dl));
  GR_CUDA_CHECK(cudaFree(dr));
  GR_CUDA_CHECK(cudaFree(dout));
  GR_CUDA_CHECK(cudaFree(dscratch));
  return st;
}

/* Timing state: the production arguments (no per-path output) on uploaded inputs. */
struct sgm_bench {
  sgm_launch_fn launch;
  struct sgm_gpu_args a;
  uint8_t *dl, *dr;
  uint16_t *dout; /* the whole out layout; the production run writes its first 2*w*h values */
  void *dscratch;
  size_t n, out_bytes;
  int per_path;
};

extern "C" void *sgm_bench_setup(const struct variant *v, const struct gr_instance *inst, char *why,
                                 size_t len)
{
  const struct sgm_data *d = (const struct sgm_data *)inst->priv;
  if (!(v->flags & VARIANT_GPU) || !v->impl) {
    gr_fmt(why, len, "'%s' is not a GPU variant: not timed", v->name);
    return NULL;
  }
  struct sgm_bench *s = (struct sgm_bench *)calloc(1, sizeof *s);
  if (!s) {
    gr_fmt(why, len, "out of host memory");
    return NULL;
  }
  s->launch = (sgm_launch_fn)v->impl;
  sgm_args_init(&s->a, &d->prm);
  size_t scratch = 0;
  if (s->launch(&s->a, &scratch, NULL)) {
    gr_fmt(why, len, "%s cannot take D = %d with %d paths", v->name, d->prm.disp, d->prm.paths);
    free(s);
    return NULL;
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
  GR_CUDA_CHECK(cudaMemset(s->dout, 0xA5, s->out_bytes));
  GR_CUDA_CHECK(cudaMemset(s->dscratch, 0xA5, scratch ? scratch : 1));
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  s->a.left = s->dl;
  s->a.right = s->dr;
  s->a.disp_out = s->dout;
  s->a.smin_out = s->dout + s->n;
  s->a.scratch = s->dscratch;
  return s;
}

extern "C" void sgm_bench_launch(void *state)
{
  struct sgm_bench *s = (struct sgm_bench *)state;
  size_t unused = 0;
  s->launch(&s->a, &unused, 0);
}

/* The production run leaves the disparity map and summed cost; a case small enough for the
 * per-path layout gets one more run that also writes the per-path costs, so that the whole
 * output can be checked. */
extern "C" void sgm_bench_fetch(void *state, void *out)
{
  struct sgm_bench *s = (struct sgm_bench *)state;
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
  struct sgm_bench *s = (struct sgm_bench *)state;
  if (!s)
    return;
  GR_CUDA_CHECK(cudaFree(s->dl));
  GR_CUDA_CHECK(cudaFree(s->dr));
  GR_CUDA_CHECK(cudaFree(s->dout));
  GR_CUDA_CHECK(cudaFree(s->dscratch));
  free(s);
}
