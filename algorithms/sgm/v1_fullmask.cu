/* sgm v1_fullmask (historical). The aggregation of the original report (doc/algorithms.md): one block per
 * scan line, one thread per disparity (blockDim = D), L of the previous pixel in shared memory,
 * and the minimum over d of each new L taken by a block min-reduce built on
 * __shfl_down_sync(0xffffffff, ...). When D % 32 != 0 the last warp is partial: the full mask
 * names lanes that do not exist, their shuffles return garbage (0 on an H100 and an H200), so
 * the block minimum comes out 0 and every later L is too large by the true minimum (the report:
 * +110..120 from pixel (3, 0) on, 42.63% of disparities wrong at D = 270; D = 64, 128, 256
 * right). Fixed in v2_padded by rounding the block up to a multiple of 32 with padding lanes that
 * hold UINT16_MAX. Kept faithfully: diff this file against v2_padded.cu and the fix is all there
 * is. Caught here on the first generated case (H100 and H200), e.g. D = 1: L 47, reference 22. */
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
  int x, y;
  sgm_line_start(blockIdx.x, w, h, dx, dy, &x, &y);
  size_t cell = ((size_t)y * w + x) * D + d;
  uint16_t l = cost[cell];
  L[cell] = l;
  prev[d] = l;
  uint16_t m = sgm_block_min(l, red);
  for (x += dx, y += dy; x >= 0 && x < w && y >= 0 && y < h; x += dx, y += dy) {
    cell = ((size_t)y * w + x) * D + d;
    int best = min((int)prev[d], m + p2);
    if (d > 0)
      best = min(best, prev[d - 1] + p1);
    if (d + 1 < D)
      best = min(best, prev[d + 1] + p1);
    l = (uint16_t)(cost[cell] + best - m);
    __syncthreads(); /* every thread has read prev */
    prev[d] = l;
    L[cell] = l;
    m = sgm_block_min(l, red);
  }
}

/* launcher */

extern "C" int sgm_v1_fullmask_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
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
  int threads = a->disp;
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
