/* The cost-volume pipeline of v1_fullmask and v2_padded (the original report's structure):
 * census, a materialised cost volume C[(y*w + x)*D + d] (uint8), one aggregation kernel per
 * path writing L_r[((r*h + y)*w + x)*D + d] (uint16), then a kernel that sums the paths and picks
 * the winner. The aggregation kernel is where v1 and v2 differ; everything here they share. */
#pragma once

#include "sgm.h"
#include "sgm_common.cuh"

/* Scratch layout: census left, census right, cost volume, and the per-path costs when the caller
 * did not ask for them (path_out NULL). */
struct sgm_volume_scratch {
  uint32_t *cl, *cr;
  uint8_t *cost;
  uint16_t *paths;
};

static inline size_t sgm_volume_layout(const struct sgm_gpu_args *a, struct sgm_volume_scratch *s)
{
  size_t n = (size_t)a->width * a->height, cells = n * a->disp, off = 0;
  char *base = (char *)a->scratch;
  s->cl = (uint32_t *)(base + off);
  off += sgm_align256(n * 4);
  s->cr = (uint32_t *)(base + off);
  off += sgm_align256(n * 4);
  s->cost = (uint8_t *)(base + off);
  off += sgm_align256(cells);
  s->paths = a->path_out ? a->path_out : (uint16_t *)(base + off);
  if (!a->path_out)
    off += sgm_align256(cells * a->paths * sizeof(uint16_t));
  return off;
}

/* One thread per cost-volume cell. */
static __global__ void sgm_cost_volume_kernel(const uint32_t *cl, const uint32_t *cr, int w, int D,
                                              size_t cells, uint8_t *cost)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < cells;
       i += (size_t)gridDim.x * blockDim.x) {
    int d = (int)(i % D);
    size_t p = i / D;
    int x = (int)(p % w);
    cost[i] = (uint8_t)(x - d < 0 ? SGM_COST_OUTSIDE : __popc(cl[p] ^ cr[p - d]));
  }
}

/* One warp per pixel: lanes stride over d summing the paths, then the lowest (S, d) of the warp
 * (S in the high bits, d in the low 9: ties go to the lower d). */
static __global__ void sgm_volume_wta_kernel(const uint16_t *L, int paths, size_t n, int D,
                                             uint16_t *disp, uint16_t *smin)
{
  size_t p = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (p >= n)
    return;
  size_t cells = n * D;
  unsigned best = 0xffffffffu;
  for (int d = lane; d < D; d += 32) {
    unsigned s = 0;
    for (int r = 0; r < paths; r++)
      s += L[r * cells + p * D + d];
    unsigned key = (s << 9) | (unsigned)d;
    best = min(best, key);
  }
  best = __reduce_min_sync(0xffffffffu, best);
  if (lane == 0) {
    disp[p] = (uint16_t)(best & 511u);
    if (smin)
      smin[p] = (uint16_t)(best >> 9);
  }
}

/* Enqueue census and the cost volume. */
static inline void sgm_volume_front(const struct sgm_gpu_args *a,
                                    const struct sgm_volume_scratch *s, cudaStream_t stream)
{
  size_t cells = (size_t)a->width * a->height * a->disp;
  sgm_census_launch(a->left, a->right, a->width, a->height, s->cl, s->cr, stream);
  size_t blocks = (cells + 255) / 256;
  sgm_cost_volume_kernel<<<(unsigned)(blocks < 65536 * 16 ? blocks : 65536 * 16), 256, 0, stream>>>(
      s->cl, s->cr, a->width, a->disp, cells, s->cost);
  GR_CUDA_LAUNCH_CHECK();
}

/* Enqueue the sum over paths and winner-takes-all. */
static inline void sgm_volume_back(const struct sgm_gpu_args *a, const struct sgm_volume_scratch *s,
                                   cudaStream_t stream)
{
  size_t n = (size_t)a->width * a->height;
  sgm_volume_wta_kernel<<<(unsigned)((n * 32 + 255) / 256), 256, 0, stream>>>(
      s->paths, a->paths, n, a->disp, a->disp_out, a->smin_out);
  GR_CUDA_LAUNCH_CHECK();
}
