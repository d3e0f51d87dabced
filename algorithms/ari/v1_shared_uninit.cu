/* ari v1_shared_uninit (historical). The contingency table lives in dynamic shared memory and is
 * zeroed with `if (tid < k*k) smem[tid] = 0;`: with a 128-thread block only the first 128 cells
 * are cleared, so whenever k_a*k_b > 128 the other cells start with whatever an earlier block on
 * the same SM left there. From ccc-gpu (doc/algorithms.md): categorical features with k = 50 gave ARI up
 * to 16.99; on an H100, 2000 pairs at n = 891 and k = 12 already left ~700 pairs wrong. Fixed in
 * v2_shared by a strided loop over every cell. Kept faithfully: diff this file against
 * v2_shared.cu and the init line is the only difference. */
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
  if (threadIdx.x < cells) /* the bug: cells past blockDim.x keep stale contents */
    table[threadIdx.x] = 0;
  __syncthreads();
  if (ari_count(table, pa, pb, n, k_a, k_b, out + blockIdx.x, bad))
    return;
  ari_finish(table, n, k_a, k_b, out + blockIdx.x);
}

/* launcher */

extern "C" int ari_v1_shared_uninit_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a,
                                           int k_b, int pairs, double *d_out, int *d_bad,
                                           void *stream)
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
