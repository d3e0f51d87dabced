/* Device code every SGM variant shares: the census transform (the same for all variants, so
 * that they differ only in how they aggregate) and small helpers. Definitions: sgm_ref.c. */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include <gpuregress/gpu.h>
#include "sgm_ref.h"

#define SGM_CENSUS_BX 32
#define SGM_CENSUS_BY 8

/* Bytes of scratch rounded up so that every scratch array starts 256-byte aligned. */
static inline size_t sgm_align256(size_t bytes)
{
  return (bytes + 255) & ~(size_t)255;
}

/* Census of both images: blockIdx.z 0 is the left image, 1 the right. A 32x8 block stages its
 * (32+8) x (8+6) window in shared memory with coordinates clamped to the image (the reference's
 * border rule), then each thread forms the 31 bits of its pixel in the reference's order. */
static __global__ void sgm_census_kernel(const uint8_t *left, const uint8_t *right, int w, int h,
                                         uint32_t *cl, uint32_t *cr)
{
  __shared__ uint8_t tile[SGM_CENSUS_BY + 6][SGM_CENSUS_BX + 8];
  const uint8_t *img = blockIdx.z ? right : left;
  uint32_t *out = blockIdx.z ? cr : cl;
  int x0 = blockIdx.x * SGM_CENSUS_BX, y0 = blockIdx.y * SGM_CENSUS_BY;
  int tid = threadIdx.y * SGM_CENSUS_BX + threadIdx.x;
  for (int i = tid; i < (SGM_CENSUS_BY + 6) * (SGM_CENSUS_BX + 8);
       i += SGM_CENSUS_BX * SGM_CENSUS_BY) {
    int ty = i / (SGM_CENSUS_BX + 8), tx = i % (SGM_CENSUS_BX + 8);
    int gx = min(max(x0 + tx - 4, 0), w - 1), gy = min(max(y0 + ty - 3, 0), h - 1);
    tile[ty][tx] = img[(size_t)gy * w + gx];
  }
  __syncthreads();
  int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= w || y >= h)
    return;
  int cx = threadIdx.x + 4, cy = threadIdx.y + 3;
  uint32_t code = 0;
#pragma unroll
  for (int dy = -3; dy <= 0; dy++)
#pragma unroll
    for (int dx = -4; dx <= 4; dx++) {
      if (dy == 0 && dx >= 0)
        break;
      code = (code << 1) | (uint32_t)(tile[cy + dy][cx + dx] >= tile[cy - dy][cx - dx]);
    }
  out[(size_t)y * w + x] = code;
}

/* Enqueue the census of both images. */
static inline void sgm_census_launch(const uint8_t *left, const uint8_t *right, int w, int h,
                                     uint32_t *cl, uint32_t *cr, cudaStream_t stream)
{
  dim3 block(SGM_CENSUS_BX, SGM_CENSUS_BY),
      grid((w + SGM_CENSUS_BX - 1) / SGM_CENSUS_BX, (h + SGM_CENSUS_BY - 1) / SGM_CENSUS_BY, 2);
  sgm_census_kernel<<<grid, block, 0, stream>>>(left, right, w, h, cl, cr);
  GR_CUDA_LAUNCH_CHECK();
}

/* Number of scan lines of path direction (dx, dy) in a w x h image, and the first pixel of
 * line i: lines start where the predecessor falls outside the image. Horizontal: one per row;
 * vertical: one per column; diagonal: one per column of the entry row, then one per remaining
 * row of the entry column. */
__host__ __device__ static inline int sgm_line_count(int w, int h, int dx, int dy)
{
  return dy == 0 ? h : dx == 0 ? w : w + h - 1;
}

__device__ static inline void sgm_line_start(int i, int w, int h, int dx, int dy, int *x, int *y)
{
  if (dy == 0) {
    *x = dx > 0 ? 0 : w - 1;
    *y = i;
  } else if (i < w) {
    *x = i;
    *y = dy > 0 ? 0 : h - 1;
  } else {
    int row = i - w + 1; /* 1 .. h-1 rows away from the entry row */
    *x = dx > 0 ? 0 : w - 1;
    *y = dy > 0 ? row : h - 1 - row;
  }
}
