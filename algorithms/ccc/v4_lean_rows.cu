/* ccc v4_lean_rows (fixed). v3_rows' design (one warp per pair, the row clusters of feature i
 * over the lanes, cells in registers) with fewer instructions in four of its phases, every value
 * and every chosen part pair the same:
 *   1. the warp's table cleared 16 bytes a lane at a time (v3: one word: 34 stores a lane);
 *   2. the counting of two numeric features tests "both present" once per object ((x | y) < 32:
 *      their fine labels are 0..31, a missing value CCC_MISSING);
 *   3. the part pairs' sums: lane 3p + g (27 lanes) takes part p of feature i and parts 3g..3g+2
 *      of feature j, one pass over p's clusters for its three part pairs in 32-bit sums (at most
 *      n^2 < 2^31), where v3 walks the clusters once per part pair in three rounds of 32 lanes
 *      (10 + 9 + 5 cluster steps of 64-bit sums in the warp's lockstep);
 *   4. the exact rounding of the near-maximal part pairs (ccc_pick) divides by ccc_udiv_hi (double
 *      estimates and 128-bit products) instead of a 128-bit division, a loop of 32-bit steps.
 * Other pairs (categorical, n < 91) take v2_warp's path, as in v3.
 * Why (issue 40; ncu on the H200, stop 46, in NOTES.md): v3's pair kernel is issue-bound with no
 * dominant phase: clearing 9% of its warp instructions, counting 20%, the column prefix 5%, the row
 * bands 20%, the part pairs and their double ARI 30%, the exact rounding about 10%, the pick 4%.
 * What the profiler shows (ncu, H200, one launch on 4,000 features x 1,000 objects, 8.0e6 pairs;
 * v3 / v4): 2,380 / 2,101 warp instructions a pair; IPC 2.63 / 2.70; 80 / 64 registers, 6 / 8
 * blocks an SM, achieved occupancy 34% / 44%; shared-memory wavefronts 3.99e9 / 4.16e9; 36.9 /
 * 31.9 ms under ncu's clocks. Still issue-bound, no phase dominant.
 * Measured (bench and ccc_time, H200): NOTES.md ("v4_lean_rows"); the anchor's pairs 606 ms
 * against v3's 699. */
#include <cuda_runtime.h>

#include "ccc.h"
#include "ccc_common.cuh"
#include "ccc_rows.cuh"
#include <gpuregress/gpu.h>

/* device helpers */

/* Count the objects of two numeric features present in both into the clear table (cell
 * (x + 1, y + 1) of stride sw): their fine labels are 0..31, a missing one CCC_MISSING, so
 * (x | y) < 32 says both are present; ends with a warp barrier. */
__device__ static inline void ccc_v4_count(const struct ccc_pair_params &pp, unsigned *T,
                                           const uint8_t *labels, int i, int j)
{
  const int lane = threadIdx.x & 31, sw = pp.sw;
  unsigned *T1 = T + sw + 1;
  const uint4 *la = (const uint4 *)(labels + (size_t)i * pp.stride);
  const uint4 *lb = (const uint4 *)(labels + (size_t)j * pp.stride);
  for (int v = lane; v < pp.stride / 16; v += 32) {
    uint4 A = __ldg(la + v), B = __ldg(lb + v);
    const unsigned a[4] = {A.x, A.y, A.z, A.w}, b[4] = {B.x, B.y, B.z, B.w};
#pragma unroll
    for (int w = 0; w < 4; w++)
#pragma unroll
      for (int s = 0; s < 32; s += 8) {
        unsigned x = (a[w] >> s) & 0xffu, y = (b[w] >> s) & 0xffu;
        if ((x | y) < 32u)
          atomicAdd(&T1[x * sw + y], 1u);
      }
  }
  __syncwarp();
}

/* A numeric x numeric pair of the kmax = 10 layout; the table is clear. Lane 3p + g (< 27)
 * finishes part p of feature i against parts 3g, 3g + 1, 3g + 2 of feature j. */
__device__ static inline void ccc_v4_rows_pair(const struct ccc_pair_params &pp, unsigned *T,
                                               unsigned *part, const uint8_t *labels, uint32_t mi,
                                               uint32_t mj, int i, int j, long long t, int r0a,
                                               int r1a, int r0b, int r1b, double *ccc, uint8_t *idx)
{
  const int lane = threadIdx.x & 31;
  const unsigned Vi = CCC_META_VALID(mi), Vj = CCC_META_VALID(mj);
  ccc_v4_count(pp, T, labels, i, j);
  ccc_rows_bands(T, pp.sw, part, r0a, r1a, r0b, r1b);
  const unsigned *all = part + (CCC_ROW_CLUSTERS - 1) * CCC_PART_STRIDE;
  const unsigned long long nn = all[CCC_MAX_PARTS];
  const int p = lane / 3, q0 = lane % 3 * 3;
  unsigned s[3], sa;
  ccc_rows_part_sums(part, lane, s, sa);
  double fast[3];
  unsigned long long cnt[3][4];
  int pq[3];
#pragma unroll
  for (int r = 0; r < 3; r++) {
    const int q = q0 + r;
    fast[r] = -1e300;
    cnt[r][0] = cnt[r][1] = cnt[r][2] = cnt[r][3] = 0;
    pq[r] = CCC_NO_INDEX;
    if (lane >= CCC_MAX_PARTS * 3 || !(Vi >> p & 1) || !(Vj >> q & 1))
      continue;
    fast[r] = ccc_confusion(s[r], sa, all[q], nn, cnt[r]);
    pq[r] = p << 4 | q;
  }
  ccc_pick<true>(fast, cnt, pq, t, ccc, idx);
}

/* kernels */

/* 8 blocks an SM: the shared memory's limit (4 warps x 6.7 KB); it caps the registers at 64 (52
 * bytes of spills), where v3's 80 allow 6 (anchor pairs: 606 ms at 64 registers, 615 at 72, 624 at
 * 80; 640 at ptxas' free choice of 95) */
#define CCC_V4_BLOCKS_PER_SM 8

struct ccc_v4_ops {
  __device__ static void clear(unsigned *T, int sw, int cells) { ccc_rows_clear16(T, sw); }
  __device__ static void rows_pair(const struct ccc_pair_params &pp, unsigned *T, unsigned *part,
                                   const uint8_t *labels, uint32_t mi, uint32_t mj, int i, int j,
                                   long long t, int r0a, int r1a, int r0b, int r1b, double *ccc,
                                   uint8_t *idx)
  {
    ccc_v4_rows_pair(pp, T, part, labels, mi, mj, i, j, t, r0a, r1a, r0b, r1b, ccc, idx);
  }
};

static __global__ void __launch_bounds__(CCC_WARPS * 32, CCC_V4_BLOCKS_PER_SM)
    ccc_v4_pair_kernel(const struct ccc_pair_params pp, const uint8_t *labels, const uint32_t *meta,
                       double *ccc, uint8_t *idx)
{
  ccc_rows_kernel_body<ccc_v4_ops>(pp, labels, meta, ccc, idx);
}

/* launcher */

extern "C" int ccc_v4_lean_rows_launch(const struct ccc_gpu *g, void *stream)
{
  return ccc_launch_with((const void *)ccc_v4_pair_kernel,
                         CCC_ROW_CLUSTERS * CCC_PART_STRIDE * sizeof(unsigned), g, stream);
}
