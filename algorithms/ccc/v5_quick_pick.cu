/* ccc v5_quick_pick (fixed). v4_lean_rows (one warp per pair, the row clusters of feature i over
 * the lanes, part-major part-pair sums) with the three cuts its profile pointed to, every value and
 * every chosen part pair the same:
 *   1. the pick: each part pair's ARI is one IEEE double division of ari_from_counts' exact
 *      integer numerator and denominator (below 2^53 for n up to 11,585), which is already the
 *      x87 rounding's bits unless the quotient lies within 2^-10 ulp of a midpoint between two
 *      doubles (ccc_div_x87_dbl: one fma gives the exact remainder; about one part pair in 500 is
 *      "unsure"). So one warp reduction of (value, part pair) finds the answer, and only when an
 *      unsure part pair lies within 1e-9 of the maximum (about one pair in 500: ballot) do those
 *      take the exact rounding and a second reduction decide. v4 computes a fast double ARI from
 *      64-bit counts, reduces it, rounds every near-maximal part pair exactly (ccc_udiv_hi) and
 *      reduces again, on every pair. The counts are 32-bit (at most n^2 < 2^31).
 *   2. the counting in 16-bit pairs and without a branch: fine row x at row x and column y at
 *      column y of the table (v4: x + 1, y + 1), a missing label (255) clamped to 32 by a 16x2
 *      min, so an object missing in feature i lands in row 32 (which the exclusive column prefix
 *      then overwrites with the totals) and one missing in j in column 32 (never read); two
 *      objects' cells come from one multiply-add of their label pairs (x * sw + y < 2^16 a half).
 *      v4 extracts each label in two instructions and wraps each atomic in a divergent `if`.
 * The row bands and the part-pair sums are v4's (ccc_rows.cuh).
 * Other pairs (categorical, n < 91) take v2_warp's path, as in v3 and v4.
 * Why (issue 40; v4's ncu SourceCounters, H200, 4,000 features x 1,000 objects, in NOTES.md): of
 * v4's 2,101 warp instructions a pair, the pick with its exact rounding and two reductions took
 * 440, the three fast ARIs 241, the counting 496, the column prefix and the bands 572.
 * Tried and dropped (H200, the anchor's pairs): stepping each pair's (i, j) from the previous one
 * instead of ccc_pair_of's square root (481.5 ms with it, 479.9 without: the registers it keeps
 * live cost more spills than the root saves); the bands' rows loaded 8 bytes at a time from a
 * table of stride 34 (544.9 ms: rows r and r + 16 share banks, the shared loads' wavefronts went
 * from 224 to 399 a pair). */
#include <cuda_runtime.h>

#include "ccc.h"
#include "ccc_common.cuh"
#include "ccc_rows.cuh"
#include <gpuregress/gpu.h>

/* device helpers */

/* Count the objects of two numeric features into the clear table, fine labels (x, y) at cell
 * (x, y) of stride sw; a missing label (CCC_MISSING) is clamped to 32, so those objects count in
 * row or column 32 (ccc_rows_bands<true>: never read). Each word of 4 labels splits into its even
 * and odd bytes as 16-bit pairs; x * sw + y of two objects is then one multiply-add (at most
 * 32 * 65 + 32 a half: no carry). Ends with a warp barrier. */
__device__ static inline void ccc_v5_count(const struct ccc_pair_params &pp, unsigned *T,
                                           const uint8_t *labels, int i, int j)
{
  const int lane = threadIdx.x & 31;
  const unsigned sw = (unsigned)pp.sw, cap = 0x00200020u;
  const uint4 *la = (const uint4 *)(labels + (size_t)i * pp.stride);
  const uint4 *lb = (const uint4 *)(labels + (size_t)j * pp.stride);
  for (int v = lane; v < pp.stride / 16; v += 32) {
    uint4 A = __ldg(la + v), B = __ldg(lb + v);
    const unsigned a[4] = {A.x, A.y, A.z, A.w}, b[4] = {B.x, B.y, B.z, B.w};
#pragma unroll
    for (int w = 0; w < 4; w++) {
      const unsigned xe = __vminu2(__byte_perm(a[w], 0u, 0x4240), cap);
      const unsigned xo = __vminu2(__byte_perm(a[w], 0u, 0x4341), cap);
      const unsigned ye = __vminu2(__byte_perm(b[w], 0u, 0x4240), cap);
      const unsigned yo = __vminu2(__byte_perm(b[w], 0u, 0x4341), cap);
      const unsigned ce = xe * sw + ye, co = xo * sw + yo;
      atomicAdd(&T[ce & 0xffffu], 1u);
      atomicAdd(&T[ce >> 16], 1u);
      atomicAdd(&T[co & 0xffffu], 1u);
      atomicAdd(&T[co >> 16], 1u);
    }
  }
  __syncwarp();
}

/* ari_from_counts' numerator and denominator of a part pair from the sum of its squared cells s,
 * of its squared row sums sa and column sums sb, over nn objects (32-bit: each count at most
 * nn^2 < 2^31); returns 0 where fn = fp = 0 (the ARI is 1, exactly). */
__device__ static inline int ccc_v5_terms(unsigned s, unsigned sa, unsigned sb, unsigned nn,
                                          int64_t *num, uint64_t *den)
{
  const unsigned tp = s - nn, fp = sb - s, fn = sa - s, tn = nn * nn - sa - sb + s;
  if (fn == 0 && fp == 0)
    return 0;
  ccc_ari_terms(tp, fp, fn, tn, num, den);
  return 1;
}

/* The warp's maximum of (v, part pair), the first part pair on ties. */
__device__ static inline void ccc_v5_reduce(double &best, int &best_pq)
{
  for (int o = 16; o > 0; o >>= 1) {
    double ov = __shfl_xor_sync(0xffffffffu, best, o);
    int opq = __shfl_xor_sync(0xffffffffu, best_pq, o);
    if (ov > best || (ov == best && opq < best_pq)) {
      best = ov;
      best_pq = opq;
    }
  }
}

/* A numeric x numeric pair of the kmax = 10 layout; the table is clear. Lane 3p + g (< 27)
 * finishes part p of feature i against parts 3g, 3g + 1, 3g + 2 of feature j; lane 0 writes. */
__device__ static inline void ccc_v5_rows_pair(const struct ccc_pair_params &pp, unsigned *T,
                                               unsigned *part, const uint8_t *labels, uint32_t mi,
                                               uint32_t mj, int i, int j, long long t, int r0a,
                                               int r1a, int r0b, int r1b, double *ccc, uint8_t *idx)
{
  const int lane = threadIdx.x & 31;
  const unsigned Vi = CCC_META_VALID(mi), Vj = CCC_META_VALID(mj);
  ccc_v5_count(pp, T, labels, i, j);
  ccc_rows_bands<true>(T, pp.sw, part, r0a, r1a, r0b, r1b);
  const unsigned *all = part + (CCC_ROW_CLUSTERS - 1) * CCC_PART_STRIDE;
  const unsigned nn = all[CCC_MAX_PARTS];
  const int p = lane / 3, q0 = lane % 3 * 3;
  unsigned s[3], sa;
  ccc_rows_part_sums(part, lane, s, sa);
  /* each part pair's ARI: the x87 rounding's bits where sure (bit r of unsure clear) */
  double v[3];
  int pq[3];
  unsigned unsure = 0;
#pragma unroll
  for (int r = 0; r < 3; r++) {
    const int q = q0 + r;
    v[r] = -1e300;
    pq[r] = CCC_NO_INDEX;
    if (lane >= CCC_MAX_PARTS * 3 || !(Vi >> p & 1) || !(Vj >> q & 1))
      continue;
    pq[r] = p << 4 | q;
    int64_t num;
    uint64_t den;
    int sure = 1;
    v[r] = ccc_v5_terms(s[r], sa, all[q], nn, &num, &den) ? ccc_div_x87_dbl(num, den, &sure) : 1.0;
    unsure |= (unsigned)!sure << r;
  }
  double best = -1e300;
  int best_pq = CCC_NO_INDEX;
#pragma unroll
  for (int r = 0; r < 3; r++)
    if (pq[r] != CCC_NO_INDEX && v[r] > best) { /* pq grows with r: the first wins ties */
      best = v[r];
      best_pq = pq[r];
    }
  ccc_v5_reduce(best, best_pq);
  /* An unsure value is within an ulp of its exact one: only one near the maximum can change it */
  int risky = 0;
#pragma unroll
  for (int r = 0; r < 3; r++)
    risky |= (unsure >> r & 1) && v[r] >= best - 1e-9;
  if (__any_sync(0xffffffffu, risky)) {
    const double window = best - 1e-9;
    best = -1e300;
    best_pq = CCC_NO_INDEX;
#pragma unroll
    for (int r = 0; r < 3; r++) {
      if (pq[r] == CCC_NO_INDEX || v[r] < window)
        continue;
      double e = v[r];
      if (unsure >> r & 1) {
        int64_t num;
        uint64_t den;
        ccc_v5_terms(s[r], sa, all[q0 + r], nn, &num, &den);
        e = ccc_div_x87_est(num, den);
      }
      if (e > best) {
        best = e;
        best_pq = pq[r];
      }
    }
    ccc_v5_reduce(best, best_pq);
  }
  if (lane == 0) {
    ccc[t] = best > 0 ? best : 0.0;
    idx[t] = (uint8_t)best_pq;
  }
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

/* 7 blocks an SM (72 registers, 32 bytes of spills): the anchor's pairs 459.3 ms, 462.4 at 8 (64
 * registers, 88 bytes of spills; the shared memory's limit) */
#define CCC_V5_BLOCKS_PER_SM 7

static __global__ void __launch_bounds__(CCC_WARPS * 32, CCC_V5_BLOCKS_PER_SM)
    ccc_v5_pair_kernel(const struct ccc_pair_params pp, const uint8_t *labels, const uint32_t *meta,
                       double *ccc, uint8_t *idx)
{
  ccc_rows_kernel_body<ccc_v5_ops>(pp, labels, meta, ccc, idx);
}

/* launcher */

extern "C" int ccc_v5_quick_pick_launch(const struct ccc_gpu *g, void *stream)
{
  return ccc_launch_with((const void *)ccc_v5_pair_kernel,
                         CCC_ROW_CLUSTERS * CCC_PART_STRIDE * sizeof(unsigned), g, stream);
}
