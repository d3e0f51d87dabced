/* ccc v5_quick_pick (fixed). v4_lean_rows (one warp per pair, the row clusters of feature i over
 * the lanes, part-major part-pair sums) with the cuts its profile pointed to, every value and every
 * chosen part pair the same:
 *   1. the pick: a float estimate of each part pair's ARI (ccc_ari_approx, within 1e-6 of it),
 *      the warp's largest, then exactly only the part pairs within CCC_ARI_APPROX_WINDOW (1e-5)
 *      of it, about one a pair: one IEEE double division of ari_from_counts' exact integer
 *      numerator and denominator (below 2^53 for n up to 11,585), which is the x87 rounding's bits
 *      unless the quotient lies within 2^-10 ulp of a midpoint between two doubles
 *      (ccc_div_x87_dbl: one fma gives the exact remainder; about one in 650 is "unsure" and takes
 *      the integer rounding, ccc_div_x87_est). When one lane holds every candidate (a ballot) it
 *      writes the answer; else one warp reduction of (value, part pair). v4 computes a double ARI
 *      from 64-bit counts for all 81, reduces, rounds every near-maximal one exactly and reduces
 *      again. The counts are 32-bit (each at most n^2 < 2^31).
 *   2. a packed table: 33 rows of 17 words, fine columns c and c + 16 in the two halves of word
 *      c (counts stay below 2^16: n <= CCC_MAX_N), so the clear, the column prefix and the bands'
 *      row loads move half the bytes of v4's 33 x 33 words. The counting splits 4 labels into
 *      two 16-bit pairs, clamps a missing label (255) to 32 by a 16x2 min and sends an object
 *      missing in either feature to row 32 (which the exclusive prefix overwrites with the
 *      totals), with no branch; the prefix runs in two halves of 16 rows (a shuffle carries the
 *      first half's totals); a band unpacks its 33 running sums from 16 packed ones.
 *   3. the row clusters' sums stored transposed (sum q of every cluster, then q + 1, 58 words
 *      apart: CCC_PART_QSTRIDE), so that neither the bands' stores nor the part-pair sums' loads
 *      conflict on banks (v4: 10 words a cluster; 2-way conflicts on both).
 *   4. each pair's (i, j) stepped from the warp's previous pair (ccc_pair_advance) instead of
 *      ccc_pair_of's square root.
 * The row bands' cells and the part-pair sums are v4's code (ccc_rows.cuh). Other pairs
 * (categorical, n < 91) take v2_warp's path, as in v3 and v4.
 * Why (issue 40; ncu SourceCounters, H200, 4,000 features x 1,000 objects; NOTES.md): of v4's
 * 2,101 warp instructions a pair, the pick with its exact rounding and two reductions took 440, the
 * three fast ARIs 241, the counting 496. With cuts 1, 3 and 4 on v4's table the kernel ran 1,384 a
 * pair and the shared memory became the limit (L1 89% busy under ncu, 438 shared wavefronts a
 * pair: the counting's atomics 107 (3.4 a warp-wide atomic, random cells colliding on banks), the
 * bands' row loads 128, the part sums about 70, the column prefix 65, the clear 35); cut 2 halves
 * the last three.
 * Measured (ccc_time, H200, the anchor's pairs, medians of 3): v4 606 ms; the pick and a
 * branchless counting on v4's table 459; the float pre-selection 441; the transposed sums 412;
 * stepping 406; the packed table 365 (end to end 0.370 s). The packed counting adds about 2.5
 * instructions an object and its atomics add 1 or 2^16 (no aggregation of equal cells, where a
 * constant 1 lets the compiler use ATOMS.POPC.INC): the mixed-value anchor (ties, 5% missing) went
 * 275 -> 281 ms with it and the 1,000 x 20,000 sweep size 98.3 -> 100.2 ms (v4: 99.3; 0.9%, "same"
 * by the compare rule), where the 20,000 objects a pair make the counting dominate. Tried and
 * dropped: the bands' rows loaded 8 bytes at a time from a table of stride 34 (545 ms where the
 * same code at stride 33 ran 481: rows r and r + 16 share banks); 8 blocks an SM (64 registers)
 * against 7 (72): 462 / 459 ms. */
#include <cuda_runtime.h>

#include "ccc.h"
#include "ccc_common.cuh"
#include "ccc_p16.cuh"
#include "ccc_rows.cuh"
#include <gpuregress/gpu.h>

/* device helpers */

/* A numeric x numeric pair of the kmax = 10 layout: the packed table cleared, counted, prefixed
 * and banded; lane 3p + g (< 27) finishes part p of feature i against parts 3g, 3g + 1, 3g + 2 of
 * feature j; one lane writes. */
__device__ static inline void ccc_v5_rows_pair(const struct ccc_pair_params &pp, unsigned *T,
                                               unsigned *part, const uint8_t *labels, uint32_t mi,
                                               uint32_t mj, int i, int j, long long t, int r0a,
                                               int r1a, int r0b, int r1b, double *ccc, uint8_t *idx)
{
  const int lane = threadIdx.x & 31;
  const unsigned Vi = CCC_META_VALID(mi), Vj = CCC_META_VALID(mj);
  ccc_p16_clear(T);
  ccc_p16_count(pp, T, labels, i, j);
  ccc_rows_bands<1, CCC_PART_QSTRIDE, true>(T, CCC_P16_ROW, part, r0a, r1a, r0b, r1b);
  const unsigned *all = part + (CCC_ROW_CLUSTERS - 1); /* the all-rows cluster: its sum q at q QS */
  const unsigned nn = all[CCC_MAX_PARTS * CCC_PART_QSTRIDE];
  const int p = lane / 3, q0 = lane % 3 * 3;
  unsigned s[3], sa;
  ccc_rows_part_sums<1, CCC_PART_QSTRIDE>(part, lane, s, sa);
  /* each part pair's float estimate (ccc_ari_approx), the warp's largest */
  float est[3], top = -3.0f;
  int pq[3];
#pragma unroll
  for (int r = 0; r < 3; r++) {
    const int q = q0 + r;
    est[r] = -3.0f;
    pq[r] = CCC_NO_INDEX;
    if (lane >= CCC_MAX_PARTS * 3 || !(Vi >> p & 1) || !(Vj >> q & 1))
      continue;
    const unsigned sb = all[q * CCC_PART_QSTRIDE];
    pq[r] = p << 4 | q;
    est[r] = ccc_ari_approx(s[r] - nn, sb - s[r], sa - s[r], nn * nn - sa - sb + s[r]);
    top = fmaxf(top, est[r]);
  }
  for (int o = 16; o > 0; o >>= 1)
    top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, o));
  ccc_quick_finish<CCC_PART_QSTRIDE>(est, pq, top, s, sa, all, q0, nn, t, ccc, idx);
}

/* kernels */

struct ccc_v5_ops {
  __device__ static void clear(unsigned *T, int sw, int cells) { ccc_rows_clear16(T, sw); }
  __device__ static void rows_pair(const struct ccc_pair_params &pp, unsigned *T, unsigned *part,
                                   const uint8_t *labels, uint32_t mi, uint32_t mj, int i, int j,
                                   long long t, int r0a, int r1a, int r0b, int r1b, double *ccc,
                                   uint8_t *idx)
  {
    ccc_v5_rows_pair(pp, T, part, labels, mi, mj, i, j, t, r0a, r1a, r0b, r1b, ccc, idx);
  }
};

/* 7 blocks an SM (72 registers, 32 bytes of spills), where 8 (64 registers) measured 0.7% slower */
#define CCC_V5_BLOCKS_PER_SM 7

static __global__ void __launch_bounds__(CCC_WARPS * 32, CCC_V5_BLOCKS_PER_SM)
    ccc_v5_pair_kernel(const struct ccc_pair_params pp, const uint8_t *labels, const uint32_t *meta,
                       double *ccc, uint8_t *idx)
{
  ccc_rows_kernel_body_step<ccc_v5_ops>(pp, labels, meta, ccc, idx);
}

/* launcher */

extern "C" int ccc_v5_quick_pick_launch(const struct ccc_gpu *g, void *stream)
{
  return ccc_launch_with((const void *)ccc_v5_pair_kernel,
                         (CCC_MAX_PARTS + 1) * CCC_PART_QSTRIDE * sizeof(unsigned), g, stream);
}
