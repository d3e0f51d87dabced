/* SPDX-License-Identifier: Apache-2.0 */
/* v1_shared_u16 (historical): twice the bins in the same shared memory by packing two 16-bit
 * counters into each 32-bit word (bin b is the half b & 1 of word b / 2), so that 16384 bins fit
 * in 32 KiB. A block counts a chunk of 131072 keys: when more than 65535 of them fall into one
 * bin, its 16-bit counter wraps and the carry lands in the neighbouring bin (or off the word's
 * top). Invisible on uniform data with many bins; a constant or heavily skewed chunk -- an
 * image's background, a sensor stuck at one value -- loses 65536 counts per wrap. The fix,
 * v2_shared, keeps one 32-bit counter per bin (and half the bins in shared memory). */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "histogram.h"

__global__ void hist_v1_kernel(const uint32_t *keys, long n, int bins, uint32_t *counts)
{
  __shared__ uint32_t packed[HIST_U16_BINS / 2];
  int words = (bins + 1) / 2;
  for (int w = threadIdx.x; w < words; w += blockDim.x)
    packed[w] = 0;
  __syncthreads();
  long begin = (long)blockIdx.x * HIST_CHUNK;
  long end = begin + HIST_CHUNK < n ? begin + HIST_CHUNK : n;
  for (long i = begin + threadIdx.x; i < end; i += blockDim.x) {
    uint32_t k = keys[i];
    if (k < (uint32_t)bins)
      atomicAdd(&packed[k >> 1], 1u << (16 * (k & 1))); /* the bug: a 16-bit half carries */
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    uint32_t c = (packed[b >> 1] >> (16 * (b & 1))) & 0xffffu;
    if (c)
      atomicAdd(&counts[b], c);
  }
}

extern "C" int hist_v1_shared_u16_launch(const uint32_t *keys, long n, int bins, uint32_t *counts,
                                         void *stream)
{
  if (bins > HIST_U16_BINS)
    return 1;
  cudaStream_t st = (cudaStream_t)stream;
  GR_CUDA_CHECK(cudaMemsetAsync(counts, 0, (size_t)bins * sizeof *counts, st));
  unsigned grid = (unsigned)((n + HIST_CHUNK - 1) / HIST_CHUNK);
  if (grid) {
    hist_v1_kernel<<<grid, HIST_BLOCK, 0, st>>>(keys, n, bins, counts);
    GR_CUDA_LAUNCH_CHECK();
  }
  return 0;
}
