/* The packed-table pair path's pieces shared by ccc v5_quick_pick and v6_paired_bands (their files
 * carry the design): the packed table's clear and count, the 32-bit ARI terms and the pick of the
 * near-maximal part pairs by one IEEE division. */
#pragma once

#include "ccc_common.cuh"
#include "ccc_rows.cuh"

static_assert(CCC_P16_BYTES <= (33 * 33 * 4 + 15) / 16 * 16,
              "the packed table fits in the warp's table wherever the rows path runs (sw >= 33)");

/* The packed table (CCC_P16_BYTES, within the warp's table) to zero; ends with a warp barrier. */
__device__ static inline void ccc_p16_clear(unsigned *T)
{
  uint4 *t4 = (uint4 *)T;
  for (int c = threadIdx.x & 31; c < CCC_P16_BYTES / 16; c += 32)
    t4[c] = make_uint4(0u, 0u, 0u, 0u);
  __syncwarp();
}

/* Count the objects of two numeric features into the clear packed table: fine labels (x, y) add
 * 1 to half y / 16 of word y % 16 of row x. A missing label (CCC_MISSING) is clamped to 32 by a
 * 16x2 min, and an object missing in either feature goes to row 32, which the exclusive prefix
 * overwrites with the totals. Each word of 4 labels splits into its even and odd bytes as 16-bit
 * pairs, so two objects' words come from one multiply-add (x * 17 + y % 16 < 2^16 a half). LEAN
 * (v6): their byte offsets from one multiply-add (x * 68 + 4 (y % 16)), the high half's address
 * from one shift-add, the low half's increment from a funnel shift (1 << (y & 16) without masking
 * the shift). Ends with a warp barrier. */
template <bool LEAN = false>
__device__ static inline void ccc_p16_count(const struct ccc_pair_params &pp, unsigned *T,
                                            const uint8_t *labels, int i, int j)
{
  const int lane = threadIdx.x & 31;
  const unsigned cap = 0x00200020u;
  const uint4 *la = (const uint4 *)(labels + (size_t)i * pp.stride);
  const uint4 *lb = (const uint4 *)(labels + (size_t)j * pp.stride);
  for (int v = lane; v < pp.stride / 16; v += 32) {
    uint4 A = __ldg(la + v), B = __ldg(lb + v);
    const unsigned a[4] = {A.x, A.y, A.z, A.w}, b[4] = {B.x, B.y, B.z, B.w};
#pragma unroll
    for (int w = 0; w < 4; w++)
#pragma unroll
      for (int odd = 0; odd < 2; odd++) {
        const unsigned sel = odd ? 0x4341 : 0x4240;
        const unsigned y = __vminu2(__byte_perm(b[w], 0u, sel), cap);
        const unsigned x = __vmaxu2(__vminu2(__byte_perm(a[w], 0u, sel), cap), y & cap);
        if (LEAN) {
          const unsigned half = y & 0x00100010u;
          const unsigned off = x * (CCC_P16_ROW * 4) + ((y << 2) & 0x003c003cu);
          atomicAdd((unsigned *)((char *)T + (off & 0xffffu)), __funnelshift_l(0u, 1u, half));
          atomicAdd((unsigned *)((char *)T + (off >> 16)), 1u << (half >> 16));
        } else {
          const unsigned word = x * CCC_P16_ROW + (y & 0x000f000fu), half = y & 0x00100010u;
          atomicAdd(&T[word & 0xffffu], 1u << (half & 31u));
          atomicAdd(&T[word >> 16], 1u << (half >> 16));
        }
      }
  }
  __syncwarp();
}

/* ari_from_counts' numerator and denominator of a part pair from the sum of its squared cells s,
 * of its squared row sums sa and column sums sb, over nn objects (32-bit: each count at most
 * nn^2 < 2^31); returns 0 where fn = fp = 0 (the ARI is 1, exactly). */
__device__ static inline int ccc_p16_terms(unsigned s, unsigned sa, unsigned sb, unsigned nn,
                                           int64_t *num, uint64_t *den)
{
  const unsigned tp = s - nn, fp = sb - s, fn = sa - s, tn = nn * nn - sa - sb + s;
  if (fn == 0 && fp == 0)
    return 0;
  ccc_ari_terms(tp, fp, fn, tn, num, den);
  return 1;
}

/* The warp's maximum of (v, part pair), the first part pair on ties. */
__device__ static inline void ccc_quick_reduce(double &best, int &best_pq)
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

/* The pick of a pair from its part pairs' float estimates est[k] (part pair pq[k], CCC_NO_INDEX
 * where invalid; top: the warp's largest): exactly only those within CCC_ARI_APPROX_WINDOW of top
 * (one IEEE division where it gives the x87 bits, else the integer rounding) from the squared
 * cells s[k], squared row sums sa and the all-rows entry `all` (column sums of part q at q QS);
 * one lane writes the CCC and the index of pair t. */
template <int QS>
__device__ static inline void ccc_quick_finish(const float (&est)[3], const int (&pq)[3], float top,
                                               const unsigned (&s)[3], unsigned sa,
                                               const unsigned *all, int q0, unsigned nn,
                                               long long t, double *ccc, uint8_t *idx)
{
  const int lane = threadIdx.x & 31;
  /* the part pairs within the window of the top estimate, exactly: one IEEE division where it
   * gives the x87 bits, else the integer rounding */
  double best = -1e300;
  int best_pq = CCC_NO_INDEX;
#pragma unroll
  for (int r = 0; r < 3; r++) {
    if (pq[r] == CCC_NO_INDEX || est[r] < top - CCC_ARI_APPROX_WINDOW)
      continue;
    int64_t num;
    uint64_t den;
    double v = 1.0;
    if (ccc_p16_terms(s[r], sa, all[(q0 + r) * QS], nn, &num, &den)) {
      int sure;
      v = ccc_div_x87_dbl(num, den, &sure);
      if (!sure)
        v = ccc_div_x87_est(num, den);
    }
    if (v > best) { /* pq grows with r: the first wins ties */
      best = v;
      best_pq = pq[r];
    }
  }
  /* one lane with candidates (the usual case) holds the answer; else the warp's maximum */
  const unsigned with = __ballot_sync(0xffffffffu, best_pq != CCC_NO_INDEX);
  int writer = with ? __ffs((int)with) - 1 : 0;
  if (__popc(with) > 1) {
    ccc_quick_reduce(best, best_pq);
    writer = 0;
  }
  if (lane == writer) {
    ccc[t] = best > 0 ? best : 0.0;
    idx[t] = (uint8_t)best_pq;
  }
}
