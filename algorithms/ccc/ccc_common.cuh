/* Device code shared by the CCC pair variants: per-feature metadata, the kernel parameters, and
 * the per-pair work of one warp after its contingency table was cleared (that clearing is where
 * the variants differ).
 *
 * One warp per feature pair (i, j). The warp's table T has (lmax + 1)^2 cells, row 0 and column 0
 * zero: it counts the fine-label pairs of the objects present in both features with shared-memory
 * atomics, turns them into a summed-area table (T[r][c] = objects with fine_i < r and fine_j < c),
 * and every part pair's contingency cell is then 4 lookups (2 along a row). Part marginals come
 * from the table's last row and column, so they are over the objects present in both features,
 * as the reference's. Each lane finishes up to 3 part pairs (81 spread by cost over 32 lanes),
 * first a fast double ARI to find the near-maximal ones, then the exact rounding of
 * ari_from_counts (ccc_ari_exact) for those, and the warp keeps the first maximum. */
#pragma once

#include <stdint.h>

#include "ccc.h"
#include "ccc_math.h"

#define CCC_WARPS 4 /* warps (pairs in flight) per block */

/* meta word of a feature: L | parts << 8 | categorical << 12 | valid mask << 16 */
#define CCC_META_L(m) ((int)((m)&0xffu))
#define CCC_META_PARTS(m) ((int)(((m) >> 8) & 0xfu))
#define CCC_META_CAT(m) ((int)(((m) >> 12) & 1u))
#define CCC_META_VALID(m) ((unsigned)((m) >> 16))

/* byte tables copied to shared memory by each block */
#define CCC_TAB_BND 0     /* numeric boundaries, ccc_layout.bnd */
#define CCC_TAB_OFF 100   /* numeric part offsets into them */
#define CCC_TAB_IDENT 112 /* 0, 1, ..., CCC_MAX_CAT: a categorical part's boundaries */
#define CCC_TAB_JOBS 180  /* numeric x numeric part pairs (p << 4 | q), costliest first */
#define CCC_TAB_BYTES 272

struct ccc_pair_params {
  int features, sw; /* sw = lmax + 1: row stride of a table */
  int warp_bytes;   /* shared memory of one warp: table, marginals, the variant's extra */
  int parts;        /* numeric parts */
  int stride;       /* label row bytes */
  long long pairs;
  uint8_t tab[CCC_TAB_BYTES];
};

/* Host: the kernel parameters for g, with extra bytes of shared memory per warp for the
 * variant, and the block's shared-memory bytes. */
void ccc_pair_params_init(const struct ccc_gpu *g, size_t extra, struct ccc_pair_params *pp,
                          size_t *smem);
/* Host: both stages of a variant whose pair kernel is `kernel` (signature of the variants'
 * ccc_pair_kernel) on a persistent grid; 0, or 1 when its shared memory does not fit. */
int ccc_launch_with(const void *kernel, size_t extra, const struct ccc_gpu *g, void *stream);

/* Bytes of a warp's table (then its marginals, then the variant's extra). */
static inline __host__ __device__ size_t ccc_table_bytes(int sw)
{
  return ((size_t)sw * sw * 4 + 15) / 16 * 16;
}

__device__ static inline void ccc_count_word(unsigned *T, int sw, unsigned a, unsigned b)
{
#pragma unroll
  for (int s = 0; s < 32; s += 8) {
    unsigned x = (a >> s) & 0xffu, y = (b >> s) & 0xffu;
    if (x != CCC_MISSING && y != CCC_MISSING)
      atomicAdd(&T[(x + 1) * sw + y + 1], 1u);
  }
}

/* Sum over the k x l cells of one part pair of the squared counts. */
__device__ static inline unsigned ccc_part_pair_s(const unsigned *T, int sw, const uint8_t *R,
                                                  int k, const uint8_t *C, int l)
{
  unsigned s = 0;
  for (int a = 0; a < k; a++) {
    const unsigned *r0 = T + R[a] * sw, *r1 = T + R[a + 1] * sw;
    unsigned prev = 0;
    for (int b = 1; b <= l; b++) {
      unsigned cur = r1[C[b]] - r0[C[b]];
      unsigned d = cur - prev;
      s += d * d;
      prev = cur;
    }
  }
  return s;
}

__device__ static inline double ccc_ari_fast(unsigned long long tp, unsigned long long fp,
                                             unsigned long long fn, unsigned long long tn)
{
  if (fn == 0 && fp == 0)
    return 1.0;
  double dtp = (double)tp, dfp = (double)fp, dfn = (double)fn, dtn = (double)tn;
  return 2.0 * (dtp * dtn - dfn * dfp) / ((dtp + dfn) * (dfn + dtn) + (dtp + dfp) * (dfp + dtn));
}

/* Count the fine-label pairs of features i and j present in both into the clear table T
 * (cell (fine_i + 1, fine_j + 1)); ends with a warp barrier. */
__device__ static inline void ccc_pair_count(const struct ccc_pair_params &pp, unsigned *T,
                                             const uint8_t *labels, int i, int j)
{
  const int lane = threadIdx.x & 31, sw = pp.sw;
  const uint4 *la = (const uint4 *)(labels + (size_t)i * pp.stride);
  const uint4 *lb = (const uint4 *)(labels + (size_t)j * pp.stride);
  for (int v = lane; v < pp.stride / 16; v += 32) {
    uint4 A = __ldg(la + v), B = __ldg(lb + v);
    ccc_count_word(T, sw, A.x, B.x);
    ccc_count_word(T, sw, A.y, B.y);
    ccc_count_word(T, sw, A.z, B.z);
    ccc_count_word(T, sw, A.w, B.w);
  }
  __syncwarp();
}

/* The warp's best part pair from each lane's up to 3 candidates (fast ARI, pair-confusion counts,
 * part pair or CCC_NO_INDEX): the largest fast value locates the near-maximal ones, their exact
 * rounding decides, the first part pair wins ties; lane 0 writes ccc[t] and idx[t]. EST: the exact
 * rounding's quotient by ccc_div_x87_est (the same bits, no 128-bit division). */
template <bool EST = false>
__device__ static inline void ccc_pick(const double (&fast)[3],
                                       const unsigned long long (&cnt)[3][4], const int (&pq)[3],
                                       long long t, double *ccc, uint8_t *idx)
{
  double best_fast = -1e300;
#pragma unroll
  for (int r = 0; r < 3; r++)
    if (pq[r] != CCC_NO_INDEX)
      best_fast = fmax(best_fast, fast[r]);
  for (int o = 16; o > 0; o >>= 1)
    best_fast = fmax(best_fast, __shfl_xor_sync(0xffffffffu, best_fast, o));
  /* the fast value is within ~1e-15 of the exact one */
  double best = -1e300;
  int best_pq = CCC_NO_INDEX;
#pragma unroll
  for (int r = 0; r < 3; r++) {
    if (pq[r] == CCC_NO_INDEX || fast[r] < best_fast - 1e-9)
      continue;
    double v = EST ? ccc_ari_exact_est(cnt[r][0], cnt[r][1], cnt[r][2], cnt[r][3])
                   : ccc_ari_exact(cnt[r][0], cnt[r][1], cnt[r][2], cnt[r][3]);
    if (v > best || (v == best && pq[r] < best_pq)) {
      best = v;
      best_pq = pq[r];
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    double ov = __shfl_xor_sync(0xffffffffu, best, o);
    int opq = __shfl_xor_sync(0xffffffffu, best_pq, o);
    if (ov > best || (ov == best && opq < best_pq)) {
      best = ov;
      best_pq = opq;
    }
  }
  if ((threadIdx.x & 31) == 0) {
    ccc[t] = best > 0 ? best : 0.0;
    idx[t] = (uint8_t)best_pq;
  }
}

/* The pair-confusion counts (tp, fp, fn, tn) of a part pair from the sum of its squared cells s,
 * of its squared row sums sa and column sums sb, over nn objects; returns the fast ARI. */
__device__ static inline double ccc_confusion(unsigned long long s, unsigned long long sa,
                                              unsigned long long sb, unsigned long long nn,
                                              unsigned long long (&cnt)[4])
{
  cnt[0] = s - nn;
  cnt[1] = sb - s;
  cnt[2] = sa - s;
  cnt[3] = nn * nn - sa - sb + s;
  return ccc_ari_fast(cnt[0], cnt[1], cnt[2], cnt[3]);
}

/* Everything after the table is clear, for any pair of features: count, summed-area table,
 * marginals, the best part pair. The warp's lanes all call it; lane 0 writes ccc[t], idx[t]. */
__device__ static inline void ccc_pair_run(const struct ccc_pair_params &pp, const uint8_t *tab,
                                           unsigned *T, unsigned long long *marg,
                                           const uint8_t *labels, uint32_t mi, uint32_t mj, int i,
                                           int j, long long t, double *ccc, uint8_t *idx)
{
  const int lane = threadIdx.x & 31, sw = pp.sw;
  const int Li = CCC_META_L(mi), Lj = CCC_META_L(mj);
  const int Pi = CCC_META_PARTS(mi), Pj = CCC_META_PARTS(mj);
  const unsigned Vi = CCC_META_VALID(mi), Vj = CCC_META_VALID(mj);
  const int cat_i = CCC_META_CAT(mi), cat_j = CCC_META_CAT(mj);

  /* 1. count */
  ccc_pair_count(pp, T, labels, i, j);
  /* 2. summed-area table: down the columns, then along the rows */
  for (int c = lane + 1; c <= Lj; c += 32) {
    unsigned run = 0;
    for (int r = 1; r <= Li; r++) {
      run += T[r * sw + c];
      T[r * sw + c] = run;
    }
  }
  __syncwarp();
  for (int r = lane + 1; r <= Li; r += 32) {
    unsigned run = 0;
    for (int c = 1; c <= Lj; c++) {
      run += T[r * sw + c];
      T[r * sw + c] = run;
    }
  }
  __syncwarp();
  /* 3. marginals over the common objects: sum of squared row (column) sums per part */
  const uint8_t *bnd = tab + CCC_TAB_BND, *off = tab + CCC_TAB_OFF, *ident = tab + CCC_TAB_IDENT;
  if (lane < Pi) {
    const uint8_t *R = cat_i ? ident : bnd + off[lane];
    int k = cat_i ? Li : lane + 2;
    unsigned long long s = 0;
    for (int a = 0; a < k; a++) {
      unsigned long long x = T[R[a + 1] * sw + Lj] - T[R[a] * sw + Lj];
      s += x * x;
    }
    marg[lane] = s;
  } else if (lane >= 16 && lane - 16 < Pj) {
    int q = lane - 16;
    const uint8_t *C = cat_j ? ident : bnd + off[q];
    int l = cat_j ? Lj : q + 2;
    unsigned long long s = 0;
    for (int b = 0; b < l; b++) {
      unsigned long long x = T[Li * sw + C[b + 1]] - T[Li * sw + C[b]];
      s += x * x;
    }
    marg[CCC_MAX_PARTS + q] = s;
  }
  __syncwarp();
  const unsigned long long nn = T[Li * sw + Lj];

  /* 4. part pairs: round r gives lane its job r*32 + (lane, or 31 - lane on odd rounds) */
  const int both_num = !cat_i && !cat_j, jobs = Pi * Pj;
  double fast[3];
  unsigned long long cnt[3][4];
  int pq[3];
#pragma unroll
  for (int r = 0; r < 3; r++) {
    int job = r * 32 + ((r & 1) ? 31 - lane : lane);
    fast[r] = -1e300;
    cnt[r][0] = cnt[r][1] = cnt[r][2] = cnt[r][3] = 0;
    pq[r] = CCC_NO_INDEX;
    if (job >= jobs)
      continue;
    int p, q;
    if (both_num) {
      int code = tab[CCC_TAB_JOBS + job];
      p = code >> 4;
      q = code & 15;
    } else {
      p = job / Pj;
      q = job % Pj;
    }
    if (!(Vi >> p & 1) || !(Vj >> q & 1))
      continue;
    const uint8_t *R = cat_i ? ident : bnd + off[p], *C = cat_j ? ident : bnd + off[q];
    int k = cat_i ? Li : p + 2, l = cat_j ? Lj : q + 2;
    unsigned long long s = ccc_part_pair_s(T, sw, R, k, C, l);
    unsigned long long sa = marg[p], sb = marg[CCC_MAX_PARTS + q];
    fast[r] = ccc_confusion(s, sa, sb, nn, cnt[r]);
    pq[r] = p << 4 | q;
  }
  ccc_pick(fast, cnt, pq, t, ccc, idx);
}

/* The block's start: the byte tables into shared memory; *T and *marg get this warp's table and
 * marginals (the variant's extra bytes follow them). Returns the tables. */
__device__ static inline const uint8_t *ccc_block_init(const struct ccc_pair_params &pp,
                                                       unsigned **T, unsigned long long **marg)
{
  extern __shared__ __align__(16) unsigned char ccc_smem[];
  for (int b = threadIdx.x; b < CCC_TAB_BYTES; b += blockDim.x)
    ccc_smem[b] = pp.tab[b];
  __syncthreads();
  unsigned char *w = ccc_smem + CCC_TAB_BYTES + (size_t)(threadIdx.x / 32) * pp.warp_bytes;
  *T = (unsigned *)w;
  *marg = (unsigned long long *)(w + ccc_table_bytes(pp.sw));
  return ccc_smem;
}

/* A persistent grid: warp w of W takes pairs w, w + W, ... (neighbouring warps share feature i). */
__device__ static inline long long ccc_first_pair(void)
{
  return (long long)blockIdx.x * CCC_WARPS + threadIdx.x / 32;
}
__device__ static inline long long ccc_pair_step(void)
{
  return (long long)gridDim.x * CCC_WARPS;
}

/* Pair t = (i, j)'s metadata. A pair where a feature has no valid part gets NaN and
 * CCC_NO_INDEX here and returns 0 (its table is never touched); else 1, after a warp barrier
 * (the previous pair's lanes are done with the table). */
__device__ static inline int ccc_pair_meta(const uint32_t *meta, long long t, int i, int j,
                                           uint32_t *mi, uint32_t *mj, double *ccc, uint8_t *idx)
{
  *mi = meta[i];
  *mj = meta[j];
  if (!CCC_META_VALID(*mi) || !CCC_META_VALID(*mj)) {
    if ((threadIdx.x & 31) == 0) {
      ccc[t] = __longlong_as_double(0x7ff8000000000000ll);
      idx[t] = CCC_NO_INDEX;
    }
    return 0;
  }
  __syncwarp();
  return 1;
}

/* Pair t's features (ccc_pair_of) and metadata (ccc_pair_meta). */
__device__ static inline int ccc_pair_begin(const struct ccc_pair_params &pp, const uint32_t *meta,
                                            long long t, int *i, int *j, uint32_t *mi, uint32_t *mj,
                                            double *ccc, uint8_t *idx)
{
  ccc_pair_of(t, pp.features, i, j);
  return ccc_pair_meta(meta, t, *i, *j, mi, mj, ccc, idx);
}
