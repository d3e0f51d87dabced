/* ari v2_shared (fixed). The fix of v1_shared_uninit: every cell of the shared-memory table is
 * zeroed by a loop strided by the block size, so no count survives from an earlier block. The
 * table must fit in one block's shared memory (k_a*k_b*4 bytes up to the opt-in limit, 227 KiB
 * on H100: about 240 x 240); larger tables go to v3_global. */
#include <cuda_runtime.h>

#include "ari.h"
#include "ari_common.cuh"
#include <gpuregress/gpu.h>

/* kernels */

static __global__ void ari_shared_kernel(const int16_t *a, const int16_t *b, int n, int k_a, int k_b,
                                         double *out, int *bad)
{
  extern __shared__ unsigned table[];
  const int16_t *pa = a + (size_t)blockIdx.x * n, *pb = b + (size_t)blockIdx.x * n;
  int cells = k_a * k_b;
  for (int c = threadIdx.x; c < cells; c += blockDim.x)
    table[c] = 0;
  __syncthreads();
  if (ari_count(table, pa, pb, n, k_a, k_b, out + blockIdx.x, bad))
    return;
  ari_finish(table, n, k_a, k_b, out + blockIdx.x);
}

/* launcher */

extern "C" int ari_v2_shared_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b,
                                    int pairs, double *d_out, int *d_bad, void *stream)
{
  if (!ari_args_valid(n, k_a, k_b, pairs))
    return ARI_BAD_ARGS;
  int dev, optin;
  cudaFuncAttributes attr;
  GR_CUDA_CHECK(cudaGetDevice(&dev));
  GR_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  GR_CUDA_CHECK(cudaFuncGetAttributes(&attr, ari_shared_kernel));
  size_t smem = (size_t)k_a * (size_t)k_b * sizeof(unsigned);
  if (smem + attr.sharedSizeBytes > (size_t)optin) /* the static reduction slots count too */
    return 1;
  GR_CUDA_CHECK(cudaFuncSetAttribute(ari_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem));
  if (pairs > 0) {
    ari_shared_kernel<<<pairs, ARI_BLOCK, smem, (cudaStream_t)stream>>>(d_a, d_b, n, k_a, k_b, d_out,
                                                                         d_bad);
    GR_CUDA_LAUNCH_CHECK();
  }
  return 0;
}
