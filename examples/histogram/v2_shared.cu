/* SPDX-License-Identifier: Apache-2.0 */
/* v2_shared (fixed): v1 with one 32-bit counter per bin in shared memory, so that a chunk of
 * 131072 keys can never wrap one; 8192 bins fit in the same 32 KiB (more bins: v3_global). */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "histogram.h"

__global__ void hist_v2_kernel(const uint32_t *keys, long n, int bins, uint32_t *counts)
{
  __shared__ uint32_t local[HIST_SHARED_BINS];
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  long begin = (long)blockIdx.x * HIST_CHUNK;
  long end = begin + HIST_CHUNK < n ? begin + HIST_CHUNK : n;
  for (long i = begin + threadIdx.x; i < end; i += blockDim.x) {
    uint32_t k = keys[i];
    if (k < (uint32_t)bins)
      atomicAdd(&local[k], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    if (local[b])
      atomicAdd(&counts[b], local[b]);
}

extern "C" int hist_v2_shared_launch(const uint32_t *keys, long n, int bins, uint32_t *counts,
                                     void *stream)
{
  if (bins > HIST_SHARED_BINS)
    return 1;
  cudaStream_t st = (cudaStream_t)stream;
  GR_CUDA_CHECK(cudaMemsetAsync(counts, 0, (size_t)bins * sizeof *counts, st));
  unsigned grid = (unsigned)((n + HIST_CHUNK - 1) / HIST_CHUNK);
  if (grid) {
    hist_v2_kernel<<<grid, HIST_BLOCK, 0, st>>>(keys, n, bins, counts);
    GR_CUDA_LAUNCH_CHECK();
  }
  return 0;
}
