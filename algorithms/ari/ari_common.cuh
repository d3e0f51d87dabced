/* Device code shared by the ARI variants: counting one pair's labels into its contingency table
 * (labels outside [0, k) rejected), and the reduction of a filled table to the pair-confusion
 * counts and the ARI. Every variant keeps and zeroes the table its own way (that is where they
 * differ), counts with ari_count and ends with ari_finish. */
#pragma once

#include <math.h>
#include <stdint.h>

/* Count pair (pa, pb) of n labels into table (k_a x k_b, zeroed, visible to the block); ends with
 * a block barrier. A label outside [0, k_a) or [0, k_b) is never used as an address (a label of
 * 30000 with k = 10 was an illegal address that killed the context; k or -1 gave a wrong ARI):
 * it is not counted, and then the pair's ARI is NaN (written here) and *bad, when bad is not
 * NULL, is set to 1. Returns nonzero in every thread of the block in that case: the caller skips
 * ari_finish. The check costs one compare per label and no extra barrier. */
__device__ static inline int ari_count(unsigned *table, const int16_t *pa, const int16_t *pb, int n,
                                       int k_a, int k_b, double *out, int *bad)
{
  int outside = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    int x = pa[i], y = pb[i];
    if ((unsigned)x < (unsigned)k_a && (unsigned)y < (unsigned)k_b)
      atomicAdd(&table[x * k_b + y], 1u);
    else
      outside = 1;
  }
  outside = __syncthreads_or(outside);
  if (outside && threadIdx.x == 0) {
    *out = nan("");
    if (bad)
      *bad = 1;
  }
  return outside;
}

/* Sum of v over the block; the result is valid in every thread. blockDim.x <= 1024, a multiple
 * of 32. red has one slot per warp. */
__device__ static inline unsigned long long ari_block_sum(unsigned long long v,
                                                          unsigned long long *red)
{
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  __syncthreads(); /* red may still be read by a previous call */
  if (lane == 0)
    red[warp] = v;
  __syncthreads();
  v = 0;
  for (int w = 0; w < warps; w++)
    v += red[w];
  return v;
}

/* table: k_a x k_b counts of one pair (shared or global), complete and visible to the block.
 * Writes the ARI of the pair to *out from thread 0. Counts are exact in 64 bits; the products
 * tp*tn etc. exceed 64 bits for n > ~55,000, so they are formed in double (53-bit mantissa):
 * the result differs from the exact reference by a few ulps of 1 at most. */
__device__ static inline void ari_finish(const unsigned *table, int n, int k_a, int k_b,
                                         double *out)
{
  __shared__ unsigned long long red[32];
  unsigned long long s = 0, sa = 0, sb = 0;
  int cells = k_a * k_b;
  for (int c = threadIdx.x; c < cells; c += blockDim.x) {
    unsigned long long x = table[c];
    s += x * x;
  }
  for (int i = threadIdx.x; i < k_a; i += blockDim.x) {
    unsigned long long row = 0;
    for (int j = 0; j < k_b; j++)
      row += table[i * k_b + j];
    sa += row * row;
  }
  for (int j = threadIdx.x; j < k_b; j += blockDim.x) {
    unsigned long long col = 0;
    for (int i = 0; i < k_a; i++)
      col += table[i * k_b + j];
    sb += col * col;
  }
  s = ari_block_sum(s, red);
  sa = ari_block_sum(sa, red);
  sb = ari_block_sum(sb, red);
  if (threadIdx.x != 0)
    return;
  unsigned long long nn = (unsigned long long)n;
  unsigned long long tp = s - nn, fp = sb - s, fn = sa - s, tn = nn * nn - sa - sb + s;
  if (fn == 0 && fp == 0) {
    *out = 1.0;
    return;
  }
  /* Explicitly rounded operations: no fused multiply-add, so that swapping the partitions (fp and
   * fn trade places) gives a bit-identical ARI, as the symmetry check demands. */
  double dtp = (double)tp, dfp = (double)fp, dfn = (double)fn, dtn = (double)tn;
  double num = 2.0 * __dsub_rn(__dmul_rn(dtp, dtn), __dmul_rn(dfn, dfp));
  double den = __dadd_rn(__dmul_rn(__dadd_rn(dtp, dfn), __dadd_rn(dfn, dtn)),
                         __dmul_rn(__dadd_rn(dtp, dfp), __dadd_rn(dfp, dtn)));
  *out = num / den;
}
