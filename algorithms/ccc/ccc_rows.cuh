/* The row-cluster pass of the kmax = 10 layout's numeric pairs, shared by ccc v3_rows and
 * v4_lean_rows (their files carry the design): each lane takes row clusters of feature i (its 9
 * parts' 54 clusters, then one of all rows), forms the row band's 32 fine-column counts in
 * registers from the column-prefixed table and sums the squared cells of feature j's 9 parts. */
#pragma once

#include "ccc_common.cuh"

#define CCC_ROW_CLUSTERS 55 /* feature i's 54 part clusters, then all its rows */
#define CCC_PART_STRIDE 10  /* per row cluster: 9 sums of squared cells, then its object count */
/* The row clusters' sums transposed (ccc v5_quick_pick): sum q of every cluster, then sum q + 1;
 * 58 words apart (not 55), so that the part-pair sums' reads of lane 3p + g (clusters of part p,
 * sums 3g..3g+2) fall on distinct banks */
#define CCC_PART_QSTRIDE 58
/* The packed table (ccc v5_quick_pick): 33 rows of CCC_P16_ROW words, fine columns c and c + 16
 * (c < 16) in the low and high halves of word c (counts below 2^16: n <= CCC_MAX_N); word 16 of a
 * row is never used (an odd stride keeps the bands' row loads on distinct banks). */
#define CCC_P16_ROW 17
#define CCC_P16_BYTES ((33 * CCC_P16_ROW * 4 + 15) / 16 * 16)

/* device helpers */

/* Fine rows [r0, r1) of row cluster rc (part p's clusters start at (p+1)(p+2)/2 - 1). */
__device__ static inline void ccc_row_cluster(const uint8_t *tab, int rc, int *r0, int *r1)
{
  *r0 = 0;
  *r1 = 32;
  if (rc >= CCC_ROW_CLUSTERS - 1)
    return;
  int p = 0;
  while ((p + 2) * (p + 3) / 2 - 1 <= rc)
    p++;
  const uint8_t *b = tab + CCC_TAB_BND + tab[CCC_TAB_OFF + p];
  int a = rc - ((p + 1) * (p + 2) / 2 - 1);
  *r0 = b[a];
  *r1 = b[a + 1];
}

/* The row band [r0, r1) of a column-prefixed table: its cells' squared counts summed per part of
 * feature j into out[0..9) (ACC: added to them), its object count into out[9] (QS words apart).
 * P16: the packed table (ccc_rows_bands<..., true>), else fine columns 1..32 of stride sw. */
template <int QS = 1, bool P16 = false, bool ACC = false>
__device__ static inline void ccc_row_band(const unsigned *T, int sw, int r0, int r1, unsigned *out)
{
  unsigned Y[33], s[CCC_MAX_PARTS];
  Y[0] = 0;
  if (P16) { /* packed rows: both halves' running sums at once (each row's halves are prefix
              * counts, so hi - lo borrows nothing and no sum reaches 2^16), then unpacked */
    const unsigned *lo = T + r0 * CCC_P16_ROW, *hi = T + r1 * CCC_P16_ROW;
    unsigned pp[16], run = 0;
#pragma unroll
    for (int m = 0; m < 16; m++) {
      run += hi[m] - lo[m];
      pp[m] = run;
    }
#pragma unroll
    for (int m = 0; m < 16; m++)
      Y[m + 1] = pp[m] & 0xffffu;
#pragma unroll
    for (int m = 0; m < 16; m++)
      Y[m + 17] = Y[16] + (pp[m] >> 16);
  } else {
    const unsigned *lo = T + r0 * sw, *hi = T + r1 * sw;
#pragma unroll
    for (int c = 1; c <= 32; c++)
      Y[c] = Y[c - 1] + (hi[c] - lo[c]);
  }
#pragma unroll
  for (int q = 0; q < CCC_MAX_PARTS; q++)
    s[q] = ACC ? out[q * QS] : 0u;
#define CCC_V3_CELL(q, lo, hi)                                                                     \
  {                                                                                                \
    unsigned d = Y[hi] - Y[lo];                                                                    \
    s[q] += d * d;                                                                                 \
  }
  CCC_F10_CELLS(CCC_V3_CELL)
#undef CCC_V3_CELL
#pragma unroll
  for (int q = 0; q < CCC_MAX_PARTS; q++)
    out[q * QS] = s[q];
  out[CCC_MAX_PARTS * QS] = Y[32];
}

/* The counted table T (row stride sw) column-prefixed in place (T[r][c] = objects in fine rows
 * < r and fine column c - 1), then this lane's row clusters (r0a, r1a) and, for lanes below 23,
 * (r0b, r1b) summed into part; ends with a warp barrier. Cluster c's sum q at part[c * CS + q *
 * QS]. P16: the packed table (CCC_P16_ROW), fine row x counted in row x (what row 32 counted is
 * dropped), the prefix exclusive: row r holds the objects in fine rows < r. !BANDS: the prefix
 * alone (then a warp barrier). */
template <int CS = CCC_PART_STRIDE, int QS = 1, bool P16 = false, bool BANDS = true>
__device__ static inline void ccc_rows_bands(unsigned *T, int sw, unsigned *part, int r0a, int r1a,
                                             int r0b, int r1b)
{
  const int lane = threadIdx.x & 31;
  if (P16) { /* exclusive prefix of the packed table: lane 16h + m takes word m of rows 16h..16h+15,
              * the upper half adds the lower half's totals (a shuffle) and writes row 32 */
    const int m = lane & 15, h = lane >> 4;
    unsigned *col = T + 16 * h * CCC_P16_ROW + m, v[16], run = 0;
#pragma unroll
    for (int k = 0; k < 16; k++) {
      unsigned t = col[k * CCC_P16_ROW];
      v[k] = run;
      run += t;
    }
    const unsigned below = __shfl_sync(0xffffffffu, run, m), add = h ? below : 0u;
#pragma unroll
    for (int k = 0; k < 16; k++)
      col[k * CCC_P16_ROW] = v[k] + add;
    if (h)
      T[32 * CCC_P16_ROW + m] = run + below;
  } else { /* column prefix */
    int c = lane + 1;
    unsigned run = 0;
    for (int r = 1; r <= 32; r++) {
      run += T[r * sw + c];
      T[r * sw + c] = run;
    }
  }
  __syncwarp();
  if (!BANDS)
    return;
  ccc_row_band<QS, P16>(T, sw, r0a, r1a, part + lane * CS);
  if (lane + 32 < CCC_ROW_CLUSTERS)
    ccc_row_band<QS, P16>(T, sw, r0b, r1b, part + (lane + 32) * CS);
  __syncwarp();
}

/* The warp's whole table to zero: ccc_table_bytes(sw) is a multiple of 16 and every warp's table
 * starts 16-byte aligned (ccc_block_init); ends with a warp barrier. */
__device__ static inline void ccc_rows_clear16(unsigned *T, int sw)
{
  uint4 *t4 = (uint4 *)T;
  const int n4 = (int)(ccc_table_bytes(sw) / 16);
  for (int c = threadIdx.x & 31; c < n4; c += 32)
    t4[c] = make_uint4(0u, 0u, 0u, 0u);
  __syncwarp();
}

/* Part-major part-pair sums over the row bands in part (ccc_rows_bands, the same CS and QS): lane
 * 3p + g (< 27) sums part p's clusters' squared cells for parts 3g..3g+2 of feature j into s[0..3)
 * and their squared row sums into sa (each at most nn^2 <= CCC_MAX_N^2 < 2^31); other lanes get
 * zeros. */
template <int CS = CCC_PART_STRIDE, int QS = 1>
__device__ static inline void ccc_rows_part_sums(const unsigned *part, int lane, unsigned (&s)[3],
                                                 unsigned &sa)
{
  const int p = lane / 3, q0 = lane % 3 * 3;
  s[0] = s[1] = s[2] = sa = 0u;
  if (lane < CCC_MAX_PARTS * 3) {
    const unsigned *band = part + ((p + 1) * (p + 2) / 2 - 1) * CS;
    for (int a = 0; a < p + 2; a++, band += CS) {
      unsigned rows = band[CCC_MAX_PARTS * QS];
      sa += rows * rows;
      s[0] += band[q0 * QS];
      s[1] += band[(q0 + 1) * QS];
      s[2] += band[(q0 + 2) * QS];
    }
  }
}

/* The pair loop of a row-cluster variant's persistent kernel: each pair's table cleared by
 * V::clear(T, sw, sw * sw), then a numeric x numeric pair of the kmax = 10 layout by V::rows_pair,
 * any other by v2_warp's ccc_pair_run. */
template <class V>
__device__ static inline void ccc_rows_kernel_body(const struct ccc_pair_params &pp,
                                                   const uint8_t *labels, const uint32_t *meta,
                                                   double *ccc, uint8_t *idx)
{
  unsigned *T;
  unsigned long long *marg;
  const uint8_t *tab = ccc_block_init(pp, &T, &marg);
  unsigned *part = (unsigned *)(marg + 2 * CCC_MAX_PARTS);
  const int lane = threadIdx.x & 31, cells = pp.sw * pp.sw, rows10 = pp.parts == CCC_MAX_PARTS;
  int r0a, r1a, r0b, r1b; /* this lane's two row clusters */
  ccc_row_cluster(tab, lane, &r0a, &r1a);
  ccc_row_cluster(tab, lane + 32, &r0b, &r1b);
  for (long long t = ccc_first_pair(); t < pp.pairs; t += ccc_pair_step()) {
    int i, j;
    uint32_t mi, mj;
    if (!ccc_pair_begin(pp, meta, t, &i, &j, &mi, &mj, ccc, idx))
      continue;
    V::clear(T, pp.sw, cells);
    if (rows10 && !CCC_META_CAT(mi) && !CCC_META_CAT(mj))
      V::rows_pair(pp, T, part, labels, mi, mj, i, j, t, r0a, r1a, r0b, r1b, ccc, idx);
    else
      ccc_pair_run(pp, tab, T, marg, labels, mi, mj, i, j, t, ccc, idx);
  }
}

/* A lane's row clusters in the pair loops: clusters lane and lane + 32, as r[0..1] and r[2..3]. */
struct ccc_cluster_rows {
  __device__ static void rows(const uint8_t *tab, int lane, int (&r)[4])
  {
    ccc_row_cluster(tab, lane, &r[0], &r[1]);
    ccc_row_cluster(tab, lane + 32, &r[2], &r[3]);
  }
};

/* ccc_rows_kernel_body with each pair's (i, j) stepped from the warp's previous pair
 * (ccc_pair_advance) instead of ccc_pair_of's square root, and the lane's rows r[0..4) from
 * R::rows (once); V::rows_pair clears its own table (the other path's is V::clear's). */
template <class V, class R = ccc_cluster_rows>
__device__ static inline void ccc_rows_kernel_body_step(const struct ccc_pair_params &pp,
                                                        const uint8_t *labels, const uint32_t *meta,
                                                        double *ccc, uint8_t *idx)
{
  unsigned *T;
  unsigned long long *marg;
  const uint8_t *tab = ccc_block_init(pp, &T, &marg);
  unsigned *part = (unsigned *)(marg + 2 * CCC_MAX_PARTS);
  const int lane = threadIdx.x & 31, step = (int)ccc_pair_step();
  int r[4]; /* this lane's rows */
  R::rows(tab, lane, r);
  long long t = ccc_first_pair();
  int i = 0, j = 0;
  if (t < pp.pairs)
    ccc_pair_of(t, pp.features, &i, &j);
  while (t < pp.pairs) {
    uint32_t mi, mj;
    if (ccc_pair_meta(meta, t, i, j, &mi, &mj, ccc, idx)) {
      if (pp.parts == CCC_MAX_PARTS && !CCC_META_CAT(mi) && !CCC_META_CAT(mj))
        V::rows_pair(pp, T, part, labels, mi, mj, i, j, t, r[0], r[1], r[2], r[3], ccc, idx);
      else {
        V::clear(T, pp.sw, pp.sw * pp.sw);
        ccc_pair_run(pp, tab, T, marg, labels, mi, mj, i, j, t, ccc, idx);
      }
    }
    t += step;
    if (t < pp.pairs)
      ccc_pair_advance(t, step, pp.features, &i, &j);
  }
}
