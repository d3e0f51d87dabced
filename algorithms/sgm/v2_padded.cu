/* sgm v2_padded (fixed). The fix of v1_fullmask (doc/algorithms.md, "host-side padding strategy"): the
 * block is rounded up to a multiple of 32 threads, so every warp is full and the full-mask
 * __shfl_down_sync is legal; the padding threads (d >= D) hold UINT16_MAX, which never wins a
 * minimum, take part in every barrier and reduction, and write nothing. Right for every D from 1
 * to 512 (the report: D = 270, 288 threads, 0.00% errors). Still one block per scan line with a
 * barrier per pixel and a materialised cost volume: slow, kept as the plain fixed baseline
 * (H100: 1920x1080 D=128 8 paths 10.6 ms, 2964x2000 D=270 8 paths 64.2 ms). */
#include <cuda_runtime.h>

#include "sgm.h"
#include "sgm_volume.cuh"

/* device helpers */

/* Minimum of v over the block, valid in every thread. red: 33 slots of shared memory. */
__device__ static inline uint16_t sgm_block_min(uint16_t v, uint16_t *red)
{
  unsigned x = v;
  for (int off = 16; off > 0; off >>= 1)
    x = min(x, __shfl_down_sync(0xffffffffu, x, off));
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  if (lane == 0)
    red[warp] = (uint16_t)x;
  __syncthreads();
  if (warp == 0) {
    x = lane < warps ? red[lane] : 0xffffu;
    for (int off = 16; off > 0; off >>= 1)
      x = min(x, __shfl_down_sync(0xffffffffu, x, off));
    if (lane == 0)
      red[32] = (uint16_t)x;
  }
  __syncthreads();
  return red[32];
}

/* kernels */

/* Block = one scan line of direction (dx, dy); thread d = disparity d. */
static __global__ void sgm_aggregate_kernel(const uint8_t *cost, int w, int h, int D, int dx,
                                            int dy, int p1, int p2, uint16_t *L)
{
  extern __shared__ uint16_t smem[];
  uint16_t *prev = smem, *red = smem + blockDim.x;
  const int d = threadIdx.x;
  const bool real = d < D; /* padding threads (d >= D): UINT16_MAX, no loads, no stores */
  int x, y;
  sgm_line_start(blockIdx.x, w, h, dx, dy, &x, &y);
  size_t cell = ((size_t)y * w + x) * D + d;
  uint16_t l = real ? cost[cell] : (uint16_t)0xffffu;
  if (real)
    L[cell] = l;
  prev[d] = l;
  uint16_t m = sgm_block_min(l, red);
  for (x += dx, y += dy; x >= 0 && x < w && y >= 0 && y < h; x += dx, y += dy) {
    cell = ((size_t)y * w + x) * D + d;
    if (real) {
      int best = min((int)prev[d], m + p2);
      if (d > 0)
        best = min(best, prev[d - 1] + p1);
      if (d + 1 < D)
        best = min(best, prev[d + 1] + p1);
      l = (uint16_t)(cost[cell] + best - m);
    }
    __syncthreads(); /* every thread has read prev */
    prev[d] = l;
    if (real)
      L[cell] = l;
    m = sgm_block_min(l, red);
  }
}

/* launcher */

extern "C" int sgm_v2_padded_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
                                    void *stream)
{
  struct sgm_volume_scratch s;
  size_t need = sgm_volume_layout(a, &s);
  if (!a->scratch) {
    *scratch_bytes = need;
    return 0;
  }
  cudaStream_t st = (cudaStream_t)stream;
  sgm_volume_front(a, &s, st);
  size_t cells = (size_t)a->width * a->height * a->disp;
  int threads = (a->disp + 31) / 32 * 32; /* the fix: whole warps only */
  size_t smem = (threads + 33) * sizeof(uint16_t);
  for (int r = 0; r < a->paths; r++) {
    int dx = sgm_path_dx[r], dy = sgm_path_dy[r];
    sgm_aggregate_kernel<<<sgm_line_count(a->width, a->height, dx, dy), threads, smem, st>>>(
        s.cost, a->width, a->height, a->disp, dx, dy, a->p1, a->p2, s.paths + r * cells);
    GR_CUDA_LAUNCH_CHECK();
  }
  sgm_volume_back(a, &s, st);
  return 0;
}
