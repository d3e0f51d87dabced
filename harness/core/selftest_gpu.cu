/* GPU half of the test-only `selftest` algorithm: a variant whose kernel writes through a null
 * pointer when n >= 37, so the tests can prove that a sticky CUDA error (illegal address) ends
 * only its worker and becomes a crash verdict naming the case and the CUDA error. */
#include <cuda_runtime.h>

#include "alg.h"
#include "gpu.h"

/* kernels */

static __global__ void prefix_or_fault(const uint32_t *x, uint32_t *out, size_t n, int fault)
{
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  if (fault)
    *(volatile uint32_t *)nullptr = 1u; /* illegal address: a sticky error */
  uint32_t s = 0;
  for (size_t i = 0; i < n; i++)
    out[i] = s += x[i];
}

/* launcher: the selftest instance keeps its input first in priv (struct selftest_data) */

extern "C" enum gr_run_status selftest_run_gpu_fault(const struct gr_variant *v,
                                                     const struct gr_instance *inst, void *out,
                                                     struct gr_run_ctx *ctx)
{
  const uint32_t *const *x = (const uint32_t *const *)inst->priv;
  size_t n = inst->out_bytes / 4;
  uint32_t *dx, *dout;
  GR_CUDA_CHECK(cudaMalloc((void **)&dx, n * 4 + 4));
  GR_CUDA_CHECK(cudaMalloc((void **)&dout, n * 4 + 4));
  GR_CUDA_CHECK(cudaMemcpy(dx, *x, n * 4, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemset(dout, ctx->poison, n * 4));
  prefix_or_fault<<<1, 32>>>(dx, dout, n, n >= 37);
  GR_CUDA_LAUNCH_CHECK();
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  GR_CUDA_CHECK(cudaMemcpy(out, dout, n * 4, cudaMemcpyDeviceToHost));
  GR_CUDA_CHECK(cudaFree(dx));
  GR_CUDA_CHECK(cudaFree(dout));
  return GR_RUN_OK;
}
