/* The GPU lifecycle of the radix_sort variants (alg.h: struct gr_gpu_lifecycle): the input keys
 * and values and the output (keys | values, what the check reads) on the device, the launcher's
 * scratch (for CUB its temporary storage) allocated once; the launch is the whole 4-pass sort on
 * device-resident buffers, on the harness's stream. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include <gpuregress/gpu.h>
#include <gpuregress/util.h>
#include "radix_sort.h"
#include "radix_sort_alg.h"

void *radix_sort_trace = NULL;
int radix_sort_v6_in_place_from = RADIX_SORT_V5_PAIRS_MID_N;

struct rs_state {
  int n, pairs;
  uint32_t *in;  /* n keys, then n values (pairs) */
  uint32_t *out; /* the same layout */
  void *temp;
  size_t temp_bytes, data_bytes;
};

/* the launcher on s's buffers; d_temp NULL asks the scratch size */
static void rs_launch_on(const struct gr_gpu_case *g, struct rs_state *s, void *temp, void *stream)
{
  ((radix_sort_launch_fn)g->variant->impl)(temp, &s->temp_bytes, s->in, s->out,
                                           s->pairs ? s->in + s->n : NULL,
                                           s->pairs ? s->out + s->n : NULL, s->n, stream);
}

static enum gr_run_status rs_setup(struct gr_gpu_case *g)
{
  const struct radix_sort_data *d = (const struct radix_sort_data *)g->inst->priv;
  struct rs_state *s = (struct rs_state *)calloc(1, sizeof *s);
  if (!s) {
    gr_fmt(g->why, sizeof g->why, "out of host memory");
    return GR_RUN_ERROR;
  }
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
  rs_launch_on(g, s, NULL, NULL);
  if (s->temp_bytes < 256)
    s->temp_bytes = 256; /* a NULL scratch would mean "ask the size" */
  GR_CUDA_CHECK(cudaMalloc(&s->temp, s->temp_bytes));
  g->state = s;
  g->out[0] = s->out;
  g->out_bytes[0] = alloc;
  return GR_RUN_OK;
}

static enum gr_run_status rs_launch(struct gr_gpu_case *g, void *stream)
{
  struct rs_state *s = (struct rs_state *)g->state;
  rs_launch_on(g, s, s->temp, stream);
  return GR_RUN_OK;
}

static enum gr_run_status rs_fetch(struct gr_gpu_case *g, void *out)
{
  struct rs_state *s = (struct rs_state *)g->state;
  GR_CUDA_CHECK(cudaMemcpy(out, s->out, s->data_bytes, cudaMemcpyDeviceToHost));
  return GR_RUN_OK;
}

static void rs_teardown(struct gr_gpu_case *g)
{
  struct rs_state *s = (struct rs_state *)g->state;
  GR_CUDA_CHECK(cudaFree(s->in));
  GR_CUDA_CHECK(cudaFree(s->out));
  GR_CUDA_CHECK(cudaFree(s->temp));
  free(s);
}

extern "C" const struct gr_gpu_lifecycle radix_sort_lifecycle = {rs_setup, rs_launch, rs_fetch,
                                                                 rs_teardown, NULL};
