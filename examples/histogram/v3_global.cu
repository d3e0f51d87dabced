/* SPDX-License-Identifier: Apache-2.0 */
/* v3_global (fixed): every key added to the global counts with one atomic; any number of bins,
 * no shared memory. Slower than v2 where v2 fits (global atomics contend on hot bins), the only
 * GPU variant beyond 8192 bins. */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "histogram.h"

__global__ void hist_v3_kernel(const uint32_t *keys, long n, int bins, uint32_t *counts)
{
  long begin = (long)blockIdx.x * HIST_CHUNK;
  long end = begin + HIST_CHUNK < n ? begin + HIST_CHUNK : n;
  for (long i = begin + threadIdx.x; i < end; i += blockDim.x) {
    uint32_t k = keys[i];
    if (k < (uint32_t)bins)
      atomicAdd(&counts[k], 1u);
  }
}

extern "C" int hist_v3_global_launch(const uint32_t *keys, long n, int bins, uint32_t *counts,
                                     void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  GR_CUDA_CHECK(cudaMemsetAsync(counts, 0, (size_t)bins * sizeof *counts, st));
  unsigned grid = (unsigned)((n + HIST_CHUNK - 1) / HIST_CHUNK);
  if (grid) {
    hist_v3_kernel<<<grid, HIST_BLOCK, 0, st>>>(keys, n, bins, counts);
    GR_CUDA_LAUNCH_CHECK();
  }
  return 0;
}
