/* ccc v6_paired_bands (fixed). v5_quick_pick (one warp per pair, the packed table, the float
 * pre-selection and one IEEE division for the near-maximal part pairs, stepped pairs) with the
 * cuts its profile pointed to, every value and every chosen part pair the same:
 *   1. paired row clusters: a lane takes two neighbouring row clusters of one part of feature i
 *      (clusters 2a and 2a + 1; one if the part's count is odd) and adds their bands' squared
 *      cells before it stores them, so the 54 clusters become 29 entries, and an entry's row
 *      count is stored squared (the all-rows entry keeps its count). The entries lie a-major
 *      (entry a of every part, then a + 1), CCC_PAIRED_QS words between sums, so that the part-pair
 *      sums' reads (lane 3p + g: part p's entries, sums 3g..3g+2) fall on distinct banks: at most
 *      5 entries a lane instead of v5's 10, in one unrolled loop with no divergent trip count.
 *   2. the float estimates of the part pairs without a branch (v5: one per part pair).
 *   3. a leaner count: the packed table's byte offsets of two objects from one multiply-add
 *      (x * 68 + 4 (y % 16) a half), the high half's address from one shift-add, the low half's
 *      increment from a funnel shift (1 << (y & 16) without masking the shift).
 * Why (issue 40; ncu SourceCounters of v5, H200, 4,000 features x 1,000 objects, 8.0e6 pairs):
 * 1,379 warp instructions and 336 shared wavefronts a pair, L1 77% and issue slots 72% busy, 22
 * of 28 warps active; the counting 383 instructions (about 11 an object) and 118 wavefronts, the
 * prefix and bands 464 and 118, the part sums 165 and 78 (a loop of up to 10 clusters a lane,
 * unrolled by 8, 4 and 1 with 2-way conflicts in the second), the estimates 137.
 * Measured (ccc_time, H200 at 1980 MHz, the anchor's pairs, medians of 3, v5 in the same calls):
 * cut 1 alone 332.3 ms (v5 368.2); with 2 322.8; with 3 320.2; all three 309.6 / 309.3 (stop 50
 * call 2, the same kernel code); at the final code 311.5 / 311.1 ms against v5's 365.1 / 365.3,
 * end to end 0.316 s (v5 0.370). Mixed values with 5% missing 280.8 -> 244.1 ms; 1,000 x 20,000's
 * pairs 7.69 -> 7.06 ms (v4 6.82: the counting, 20,000 objects a pair, is most of it there).
 * ncu (the same launch as v5's above): 1,195 warp instructions and 252 shared wavefronts a pair;
 * 16.6 ms under ncu's clocks where v5 takes 19.5; L1 71% and the SM 73% busy, 22 of 28 warps
 * active: neither saturated, each warp's phases wait on each other. Left: the counting's atomics
 * (334 instructions and 118 wavefronts a pair: 3.7 wavefronts a warp-wide atomic as 32 random
 * cells collide on banks) and the bands' cells (2,916 squared differences a pair). */
#include <cuda_runtime.h>

#include "ccc.h"
#include "ccc_common.cuh"
#include "ccc_p16.cuh"
#include "ccc_rows.cuh"
#include <gpuregress/gpu.h>

/* device helpers */

/* This lane's fine rows: bands [r[0], r[1]) and [r[1], r[2]) (the second empty where the entry
 * holds one cluster; both empty on lanes 30 and 31). */
struct ccc_v6_rows {
  __device__ static void rows(const uint8_t *tab, int lane, int (&r)[4]);
};
__device__ void ccc_v6_rows::rows(const uint8_t *tab, int lane, int (&r)[4])
{
  r[0] = r[1] = r[2] = r[3] = 0;
  if (lane == CCC_PAIRED_ENTRIES) {
    r[1] = r[2] = 32;
    return;
  }
  if (lane > CCC_PAIRED_ENTRIES)
    return;
  int a;
  const int p = ccc_paired_part(lane, &a);
  const uint8_t *b = tab + CCC_TAB_BND + tab[CCC_TAB_OFF + p];
  r[0] = b[2 * a];
  r[1] = b[2 * a + 1];
  r[2] = 2 * a + 1 < p + 2 ? b[2 * a + 2] : r[1];
}

/* The packed table prefixed (ccc_rows_bands' exclusive prefix), then this lane's two bands' squared
 * cells added and stored as entry `lane` (CCC_PAIRED_QS words between sums; the row count squared,
 * but the all-rows entry's as it is). Ends with a warp barrier. */
__device__ static inline void ccc_v6_bands(unsigned *T, unsigned *E, int r0, int r1, int r2)
{
  const int lane = threadIdx.x & 31;
  ccc_rows_bands<1, 1, true, false>(T, CCC_P16_ROW, E, 0, 0, 0, 0);
  unsigned s[CCC_MAX_PARTS + 1];
  ccc_row_band<1, true>(T, CCC_P16_ROW, r0, r1, s);
  const unsigned ra = s[CCC_MAX_PARTS];
  ccc_row_band<1, true, true>(T, CCC_P16_ROW, r1, r2, s);
  const unsigned rb = s[CCC_MAX_PARTS];
  if (lane <= CCC_PAIRED_ENTRIES) {
#pragma unroll
    for (int q = 0; q < CCC_MAX_PARTS; q++)
      E[lane + q * CCC_PAIRED_QS] = s[q];
    E[lane + CCC_MAX_PARTS * CCC_PAIRED_QS] = lane == CCC_PAIRED_ENTRIES ? ra : ra * ra + rb * rb;
  }
  __syncwarp();
}

/* Lane 3p + g (< 27): part p's entries' squared cells for parts 3g..3g+2 of feature j into
 * s[0..3), their squared row counts into sa (each at most nn^2 < 2^31); other lanes get zeros. */
__device__ static inline void ccc_v6_part_sums(const unsigned *E, int lane, unsigned (&s)[3],
                                               unsigned &sa)
{
  const int p = lane / 3, q0 = lane % 3 * 3;
  s[0] = s[1] = s[2] = sa = 0u;
  if (lane >= CCC_MAX_PARTS * 3)
    return;
#pragma unroll
  for (int a = 0; a < 5; a++)
    if (p >= ccc_paired_first(a)) {
      const unsigned *e = E + ccc_paired_entry(p, a);
      s[0] += e[q0 * CCC_PAIRED_QS];
      s[1] += e[(q0 + 1) * CCC_PAIRED_QS];
      s[2] += e[(q0 + 2) * CCC_PAIRED_QS];
      sa += e[CCC_MAX_PARTS * CCC_PAIRED_QS];
    }
}

/* A numeric x numeric pair of the kmax = 10 layout: the packed table cleared, counted, prefixed
 * and banded into entries; lane 3p + g (< 27) finishes part p of feature i against parts 3g,
 * 3g + 1, 3g + 2 of feature j; one lane writes. */
__device__ static inline void ccc_v6_rows_pair(const struct ccc_pair_params &pp, unsigned *T,
                                               unsigned *E, const uint8_t *labels, uint32_t mi,
                                               uint32_t mj, int i, int j, long long t, int r0,
                                               int r1, int r2, double *ccc, uint8_t *idx)
{
  const int lane = threadIdx.x & 31;
  const unsigned Vi = CCC_META_VALID(mi), Vj = CCC_META_VALID(mj);
  ccc_p16_clear(T);
  ccc_p16_count<true>(pp, T, labels, i, j);
  ccc_v6_bands(T, E, r0, r1, r2);
  const unsigned *all = E + CCC_PAIRED_ENTRIES; /* the all-rows entry: its sum q at q QS */
  const unsigned nn = all[CCC_MAX_PARTS * CCC_PAIRED_QS];
  const int p = lane / 3, q0 = lane % 3 * 3;
  unsigned s[3], sa;
  ccc_v6_part_sums(E, lane, s, sa);
  /* each part pair's float estimate (ccc_ari_approx), the warp's largest */
  float est[3], top = -3.0f;
  int pq[3];
#pragma unroll
  for (int k = 0; k < 3; k++) {
    const int q = q0 + k;
    const bool ok = lane < CCC_MAX_PARTS * 3 && (Vi >> p & 1) && (Vj >> q & 1);
    const unsigned sb = all[q * CCC_PAIRED_QS];
    const float e = ccc_ari_approx(s[k] - nn, sb - s[k], sa - s[k], nn * nn - sa - sb + s[k]);
    est[k] = ok ? e : -3.0f; /* computed on every lane, no branch */
    pq[k] = ok ? p << 4 | q : CCC_NO_INDEX;
    top = fmaxf(top, est[k]);
  }
  for (int o = 16; o > 0; o >>= 1)
    top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, o));
  ccc_quick_finish<CCC_PAIRED_QS>(est, pq, top, s, sa, all, q0, nn, t, ccc, idx);
}

/* kernels */

/* 7 blocks an SM (72 registers, 8 bytes of spills). 8 (64 registers, 52 bytes of spills; the part
 * area's 1,400 bytes a warp let the shared memory hold 8) measured 0.8% faster on the anchor's
 * pairs (308.7 ms against 311.1, H200) and 1.1% on the mixed anchor, but 1.5% slower on the sweep's
 * 500 x 891 mixed size (1.3397 ms against 1.3203; v5 1.3324): the categorical pairs' path spills
 * more, and v6 would be slower than v5 there */
#define CCC_V6_BLOCKS_PER_SM 7

struct ccc_v6_ops {
  __device__ static void clear(unsigned *T, int sw, int cells) { ccc_rows_clear16(T, sw); }
  __device__ static void rows_pair(const struct ccc_pair_params &pp, unsigned *T, unsigned *E,
                                   const uint8_t *labels, uint32_t mi, uint32_t mj, int i, int j,
                                   long long t, int r0, int r1, int r2, int, double *ccc,
                                   uint8_t *idx)
  {
    ccc_v6_rows_pair(pp, T, E, labels, mi, mj, i, j, t, r0, r1, r2, ccc, idx);
  }
};

static __global__ void __launch_bounds__(CCC_WARPS * 32, CCC_V6_BLOCKS_PER_SM)
    ccc_v6_pair_kernel(const struct ccc_pair_params pp, const uint8_t *labels, const uint32_t *meta,
                       double *ccc, uint8_t *idx)
{
  ccc_rows_kernel_body_step<ccc_v6_ops, ccc_v6_rows>(pp, labels, meta, ccc, idx);
}

/* launcher */

#define CCC_V6_EXTRA ((CCC_MAX_PARTS + 1) * CCC_PAIRED_QS * sizeof(unsigned))
extern "C" int ccc_v6_paired_bands_launch(const struct ccc_gpu *g, void *stream)
{
  return ccc_launch_with((const void *)ccc_v6_pair_kernel, CCC_V6_EXTRA, g, stream);
}
