/* The harness side of the radix_sort GPU variants: device buffers for a case (input keys and
 * values, the output keys|values the harness reads back, the launcher's scratch), the checked run
 * of one case, and the timing hooks. The timed region (bench_launch) is the launcher alone: the
 * whole 4-pass sort on device-resident buffers with the scratch (for CUB its temporary storage)
 * allocated in bench_setup. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include <gpuregress/gpu.h>
#include <gpuregress/util.h>
#include "radix_sort.h"
#include "radix_sort_alg.h"

void *radix_sort_trace = NULL;

/* The device side of one case for one variant. */
struct rs_state {
  radix_sort_launch_fn launch;
  int n, pairs;
  uint32_t *in;  /* n keys, then n values (pairs) */
  uint32_t *out; /* the same layout: what the harness compares */
  void *temp;
  size_t temp_bytes, data_bytes;
};

static void rs_state_free(struct rs_state *s)
{
  GR_CUDA_CHECK(cudaFree(s->in));
  GR_CUDA_CHECK(cudaFree(s->out));
  GR_CUDA_CHECK(cudaFree(s->temp));
  free(s);
}

/* Allocate and upload; the output is filled with `poison`. NULL only when host memory is out. */
static struct rs_state *rs_state_new(const struct gr_variant *v, const struct radix_sort_data *d,
                                     unsigned char poison)
{
  struct rs_state *s = (struct rs_state *)calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->launch = (radix_sort_launch_fn)v->impl;
  s->n = (int)d->n;
  s->pairs = d->pairs;
  size_t keys = d->n * sizeof(uint32_t);
  s->data_bytes = keys * (d->pairs ? 2 : 1);
  size_t alloc = s->data_bytes ? s->data_bytes : 256; /* never NULL, even for n = 0 */
  GR_CUDA_CHECK(cudaMalloc((void **)&s->in, alloc));
  GR_CUDA_CHECK(cudaMalloc((void **)&s->out, alloc));
  GR_CUDA_CHECK(cudaMemcpy(s->in, d->keys, keys, cudaMemcpyHostToDevice));
  if (d->pairs)
    GR_CUDA_CHECK(cudaMemcpy(s->in + d->n, d->vals, keys, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemset(s->out, poison, alloc));
  s->launch(NULL, &s->temp_bytes, s->in, s->out, s->pairs ? s->in + s->n : NULL,
            s->pairs ? s->out + s->n : NULL, s->n, 0);
  if (s->temp_bytes < 256)
    s->temp_bytes = 256; /* a NULL scratch would mean "ask the size" */
  GR_CUDA_CHECK(cudaMalloc(&s->temp, s->temp_bytes));
  return s;
}

static void rs_state_launch(struct rs_state *s)
{
  s->launch(s->temp, &s->temp_bytes, s->in, s->out, s->pairs ? s->in + s->n : NULL,
            s->pairs ? s->out + s->n : NULL, s->n, 0);
}

extern "C" enum gr_run_status radix_sort_run_gpu(const struct gr_variant *v,
                                                 const struct gr_instance *inst, void *out,
                                                 struct gr_run_ctx *ctx)
{
  const struct radix_sort_data *d = (const struct radix_sort_data *)inst->priv;
  struct rs_state *s = rs_state_new(v, d, ctx->poison);
  if (!s) {
    gr_fmt(ctx->why, sizeof ctx->why, "out of host memory");
    return GR_RUN_ERROR;
  }
  rs_state_launch(s);
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  GR_CUDA_CHECK(cudaMemcpy(out, s->out, s->data_bytes, cudaMemcpyDeviceToHost));
  rs_state_free(s);
  return GR_RUN_OK;
}

extern "C" void *radix_sort_bench_setup(const struct gr_variant *v, const struct gr_instance *inst,
                                        char *why, size_t len)
{
  if (!(v->flags & GR_VARIANT_GPU) || !v->impl) {
    gr_fmt(why, len, "'%s' runs on the CPU: only GPU variants are timed", v->name);
    return NULL;
  }
  struct rs_state *s = rs_state_new(v, (const struct radix_sort_data *)inst->priv, 0xa5);
  if (!s)
    gr_fmt(why, len, "out of host memory");
  return s;
}

extern "C" void radix_sort_bench_launch(void *state)
{
  rs_state_launch((struct rs_state *)state);
}

extern "C" void radix_sort_bench_fetch(void *state, void *out)
{
  struct rs_state *s = (struct rs_state *)state;
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  GR_CUDA_CHECK(cudaMemcpy(out, s->out, s->data_bytes, cudaMemcpyDeviceToHost));
}

extern "C" void radix_sort_bench_teardown(void *state)
{
  if (state)
    rs_state_free((struct rs_state *)state);
}
