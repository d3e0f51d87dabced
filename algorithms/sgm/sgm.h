/* GPU variants of Semi-Global Matching: census 9x7 (centre-symmetric, 31 bits), Hamming cost,
 * 4- or 8-path aggregation with P1/P2, sum over paths, winner-takes-all. Definitions, path order
 * and every border rule: sgm_ref.c. Each launcher runs the whole pipeline on one stream.
 *
 * Inputs are device images; outputs: disp_out (w*h uint16), smin_out (w*h uint16: the summed
 * cost at the chosen disparity) and, when path_out is not NULL, every path's aggregated cost
 * path_out[((r*h + y)*w + x)*D + d] (uint16). The variant needs scratch device memory: called
 * with a->scratch == NULL a launcher only stores the bytes it needs in *scratch_bytes and
 * returns 0 (the CUB convention). Returns 0, or 1 (GR_RUN_UNSUPPORTED) when it cannot take the
 * case. CUDA errors end the process (GR_CUDA_CHECK). */
#ifndef GR_ALGORITHMS_SGM_H
#define GR_ALGORITHMS_SGM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sgm_gpu_args {
  const uint8_t *left, *right; /* device, w*h each, row-major */
  int width, height, disp, paths, p1, p2;
  uint16_t *disp_out; /* device, w*h */
  uint16_t *smin_out; /* device, w*h, or NULL */
  uint16_t *path_out; /* device, paths*w*h*D, or NULL (the production path: not written) */
  void *scratch;      /* device, the launcher's scratch_bytes; NULL: size query */
};

typedef int (*sgm_launch_fn)(const struct sgm_gpu_args *a, size_t *scratch_bytes, void *stream);

/* historical: one block per scan line, one thread per disparity (blockDim = D), block min by a
 * full-mask __shfl_down_sync: wrong whenever D % 32 != 0 */
int sgm_v1_fullmask_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes, void *stream);
/* fixed: v1 with the block rounded up to a multiple of 32; padding lanes hold UINT16_MAX */
int sgm_v2_padded_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes, void *stream);
/* fixed: a warp per scan line, ceil(D/32) disparities per lane, cost fused from the census,
 * all paths but one in one launch, the last path fused with the sum and winner-takes-all */
int sgm_v3_warp_fused_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes, void *stream);
/* fixed: v3 with the recurrence on pairs of 16-bit disparities (Hopper 16x2 min/add, DPX) */
int sgm_v4_packed_dpx_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes, void *stream);
/* fixed: v4 with the last kernel reading the other paths' costs up to 8 pixels ahead */
int sgm_v5_prefetch_wta_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes, void *stream);
/* fixed: v5 with the line kernels' staging and window offsets cheaper a step, and the last
 * kernel's other paths in a deeper ring in shared memory */
int sgm_v6_staged_ring_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes, void *stream);

/* Disparities a lane holds for D in the warp layouts (v3 .. v6): the smallest instantiated K
 * with 32K >= D. */
static inline int sgm_warp_pick_k(int D)
{
  static const int ks[] = {1, 2, 4, 8, 9, 12, 16};
  for (int i = 0; i < 7; i++)
    if (32 * ks[i] >= D)
      return ks[i];
  return 16;
}

/* v6's last kernel: each warp's ring of NB chunks of CH pixels of the other paths' costs
 * (px bytes a pixel: 32K elements of 1 or 2 bytes, times paths - 1) within budget bytes a warp:
 * the first of (4, 4), (2, 4), (1, 4), (1, 2) that fits. The budget is SGM_V6_RING_WARP_BYTES
 * (two blocks of 8 warps share an H100/H200 SM; (1, 2) for the largest pixels, D > 256 in 16
 * bits with 8 paths: 7 KiB), less on a GPU whose block cannot take 8 of it (RTX 30xx/40xx, L4:
 * 99 KiB). Returns 0, or -1 when none fits (then v6 runs v4's last kernel). */
#define SGM_V6_RING_WARP_BYTES 14336
static inline int sgm_v6_ring(int px, int budget, int *ch, int *nb)
{
  static const int shapes[][2] = {{4, 4}, {2, 4}, {1, 4}, {1, 2}};
  for (int i = 0; i < 4; i++)
    if (shapes[i][0] * shapes[i][1] * px <= budget) {
      *ch = shapes[i][0];
      *nb = shapes[i][1];
      return 0;
    }
  *ch = *nb = 0;
  return -1;
}

#ifdef __cplusplus
}
#endif

#endif
