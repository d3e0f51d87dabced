/* Arithmetic shared by the CCC reference, the launchers and the kernels (C and CUDA, host and
 * device): the partition layout of a feature, the fine-label table of the quantile partitions,
 * and the ARI finish that rounds exactly as ari's reference (algorithms/ari/ari_ref.c,
 * ari_from_counts).
 *
 * Quantile partitions (our exact form of ccc's run_quantile_clustering): among the m present
 * values of a numeric feature an object with tie group [lo, lo + eq) in sorted order has the
 * average rank r = lo + (eq + 1) / 2 and the percentile q = r / m; in the partition with k
 * clusters its label is #{i in 1..k-1 : i/k < q}, decided in integers as 2 i m < (2 lo + eq + 1) k.
 *
 * Fine labels: every cut i/k (k = 2..kmax) is one of the distinct fractions f_1 < ... < f_{L-1}
 * (a Farey sequence: 31 of them for kmax = 10). An object's fine label #{t : f_t < q} in [0, L)
 * determines its label in every partition: cluster c of partition k is the fine range
 * [b_c, b_{c+1}) with b_c the position of c/k among the f_t. So one L x L contingency table of
 * fine labels holds all 81 contingency tables of two numeric features. A categorical feature's
 * fine label is its category, its one partition the identity (b_c = c). */
#ifndef GR_ALGORITHMS_CCC_MATH_H
#define GR_ALGORITHMS_CCC_MATH_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define CCC_HD __host__ __device__
#else
#define CCC_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CCC_MAX_K 10     /* largest quantile partition */
#define CCC_MAX_PARTS 9  /* k = 2..10 */
#define CCC_MAX_CAT 64   /* categories of a categorical feature (fine labels are bytes) */
#define CCC_MAX_N 40000  /* objects: keeps every pair-confusion product below 2^62 */
#define CCC_MISSING 255  /* fine label of a missing value */
#define CCC_NO_INDEX 255 /* index of a pair with no partition to compare (its CCC is NaN) */

/* The numeric partitions for n objects: kmax = max(2, min(round(sqrt(n)), 10)), parts k = 2..kmax
 * (part p has k = p + 2), the L - 1 fractions num[t]/den[t] (ascending) and each part's
 * boundaries in fine-label space: part p's cluster c is [bnd[off[p] + c], bnd[off[p] + c + 1]). */
struct ccc_layout {
  int kmax, parts, L;
  uint8_t num[64], den[64];
  uint8_t off[CCC_MAX_PARTS];
  uint8_t bnd[CCC_MAX_PARTS * (CCC_MAX_K + 1)];
};

static inline int ccc_kmax(int n)
{
  int r = 0;
  while ((int64_t)(r + 1) * (r + 1) <= n)
    r++;
  /* round(sqrt(n)): r or r + 1, whichever square root is nearer (never a tie for integers) */
  if ((int64_t)4 * n > (int64_t)(2 * r + 1) * (2 * r + 1))
    r++;
  return r < 2 ? 2 : r > CCC_MAX_K ? CCC_MAX_K : r;
}

static inline void ccc_layout_init(struct ccc_layout *lay, int n)
{
  lay->kmax = ccc_kmax(n);
  lay->parts = lay->kmax - 1;
  int L = 1;
  /* distinct fractions i/k in lowest terms, ascending: insertion by cross-multiplication */
  for (int k = 2; k <= lay->kmax; k++)
    for (int i = 1; i < k; i++) {
      int a = i, b = k, g = a, h = b;
      while (h) {
        int t = g % h;
        g = h;
        h = t;
      }
      if (g != 1)
        continue;
      int pos = L - 1;
      while (pos > 0 && lay->num[pos - 1] * b > a * lay->den[pos - 1]) {
        lay->num[pos] = lay->num[pos - 1];
        lay->den[pos] = lay->den[pos - 1];
        pos--;
      }
      lay->num[pos] = (uint8_t)a;
      lay->den[pos] = (uint8_t)b;
      L++;
    }
  lay->L = L;
  int o = 0;
  for (int p = 0; p < lay->parts; p++) {
    int k = p + 2;
    lay->off[p] = (uint8_t)o;
    lay->bnd[o] = 0;
    for (int c = 1; c < k; c++) /* position (1-based) of c/k among the fractions */
      for (int t = 0; t < L - 1; t++)
        if (lay->num[t] * k == c * lay->den[t])
          lay->bnd[o + c] = (uint8_t)(t + 1);
    lay->bnd[o + k] = (uint8_t)L;
    o += k + 1;
  }
}

/* The cells of the kmax = 10 layout (n >= 91) as compile-time constants: X(part, lo, hi) for each
 * cluster of each part, its fine range [lo, hi) (test_ccc checks them against ccc_layout_init).
 * v3_rows sums a row cluster's cells with these as register indices. */
/* clang-format off */
#define CCC_F10_CELLS(X) \
  X(0, 0, 16) X(0, 16, 32) \
  X(1, 0, 11) X(1, 11, 21) X(1, 21, 32) \
  X(2, 0, 8) X(2, 8, 16) X(2, 16, 24) X(2, 24, 32) \
  X(3, 0, 6) X(3, 6, 13) X(3, 13, 19) X(3, 19, 26) X(3, 26, 32) \
  X(4, 0, 5) X(4, 5, 11) X(4, 11, 16) X(4, 16, 21) X(4, 21, 27) X(4, 27, 32) \
  X(5, 0, 4) X(5, 4, 9) X(5, 9, 14) X(5, 14, 18) X(5, 18, 23) X(5, 23, 28) X(5, 28, 32) \
  X(6, 0, 3) X(6, 3, 8) X(6, 8, 12) X(6, 12, 16) X(6, 16, 20) X(6, 20, 24) X(6, 24, 29) X(6, 29, 32) \
  X(7, 0, 2) X(7, 2, 7) X(7, 7, 11) X(7, 11, 15) X(7, 15, 17) X(7, 17, 21) X(7, 21, 25) X(7, 25, 30) X(7, 30, 32) \
  X(8, 0, 1) X(8, 1, 6) X(8, 6, 10) X(8, 10, 13) X(8, 13, 16) X(8, 16, 19) X(8, 19, 22) X(8, 22, 26) X(8, 26, 31) X(8, 31, 32)
/* clang-format on */

/* The rounding of ccc_div_x87 from the normalized quotient: value = q * 2^(e - 64) with q the
 * 64- or 65-bit floor of n1 2^64 / d1 (n1, d1 in [2^63, 2^64)) and r its remainder. */
static inline CCC_HD double ccc_x87_round(unsigned __int128 q, uint64_t r, uint64_t d1, int e)
{
  if (q >> 64) { /* 65 bits: drop one */
    int round = (int)(q & 1);
    q >>= 1;
    e++;
    if (round && (r != 0 || (q & 1)))
      q++;
  } else { /* 64 bits: the remainder decides */
    unsigned __int128 r2 = (unsigned __int128)r * 2;
    if (r2 > d1 || (r2 == d1 && (q & 1)))
      q++;
  }
  if (q >> 64) {
    q >>= 1;
    e++;
  }
  uint64_t m = (uint64_t)q, low = m & 0x7ff;
  m >>= 11;
  if (low > 0x400 || (low == 0x400 && (m & 1)))
    m++;
  /* value = m * 2^(e - 53), m <= 2^53: exact in double */
  return ldexp((double)m, e - 53);
}

/* (double)((long double)num / (long double)den) as x86-64 computes it (64-bit significand,
 * round to nearest even, then to double), for |num|, den < 2^63, den > 0: the rounding of
 * ari_from_counts, reproduced in integers so the GPU gets the same bits. */
static inline CCC_HD double ccc_div_x87(int64_t num, uint64_t den)
{
  if (num == 0)
    return 0.0;
  uint64_t N = num < 0 ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
#ifdef __CUDA_ARCH__
  int a = __clzll((long long)N), b = __clzll((long long)den);
#else
  int a = __builtin_clzll(N), b = __builtin_clzll(den);
#endif
  uint64_t n1 = N << a, d1 = den << b; /* both in [2^63, 2^64) */
  unsigned __int128 x = (unsigned __int128)n1 << 64;
  unsigned __int128 q = x / d1;
  uint64_t r = (uint64_t)(x - q * d1);
  double v = ccc_x87_round(q, r, d1, b - a); /* value = q * 2^(b - a - 64) */
  return num < 0 ? -v : v;
}

/* The high 64 bits of a * b. */
static inline CCC_HD uint64_t ccc_mulhi64(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* floor(h 2^64 / d) and its remainder (*rem), for 2^63 <= d < 2^64 and h < d, without a 128-bit
 * division (a loop of 32-bit steps on the GPU): a double estimate of the quotient, within 2^13 of
 * it; the remainder R = h 2^64 - q d of the estimate, exact in a signed 128-bit pair (|R| < 2^78);
 * a double estimate of R / d, within one of its floor; then at most two steps either way. */
static inline CCC_HD uint64_t ccc_udiv_hi(uint64_t h, uint64_t d, uint64_t *rem)
{
  const double two64 = 18446744073709551616.0;
  double x = (double)h / (double)d * two64;
  uint64_t q = x >= two64 ? ~(uint64_t)0 : (uint64_t)x;
  uint64_t lo = q * d, mh = ccc_mulhi64(q, d);
  int64_t hi = (int64_t)(h - mh - (lo != 0)); /* R = hi 2^64 + lo, lo = 0 - q d mod 2^64 */
  lo = (uint64_t)0 - lo;
  double c = floor(((double)hi * two64 + (double)lo) / (double)d);
  uint64_t m = c < 0 ? (uint64_t)(-c) : (uint64_t)c, ml = m * d, mhi = ccc_mulhi64(m, d);
  if (c < 0) { /* R += m d, q -= m */
    q -= m;
    lo += ml;
    hi += (int64_t)(mhi + (lo < ml));
  } else { /* R -= m d, q += m */
    q += m;
    hi -= (int64_t)(mhi + (lo < ml));
    lo -= ml;
  }
  while (hi < 0) {
    q--;
    lo += d;
    hi += lo < d;
  }
  while (hi > 0 || lo >= d) {
    q++;
    hi -= lo < d;
    lo -= d;
  }
  *rem = lo;
  return q;
}

/* ccc_div_x87 with the quotient from ccc_udiv_hi: the same bits, fewer instructions on the GPU
 * (ccc v4_lean_rows; test_ccc compares the two). */
static inline CCC_HD double ccc_div_x87_est(int64_t num, uint64_t den)
{
  if (num == 0)
    return 0.0;
  uint64_t N = num < 0 ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
#ifdef __CUDA_ARCH__
  int a = __clzll((long long)N), b = __clzll((long long)den);
#else
  int a = __builtin_clzll(N), b = __builtin_clzll(den);
#endif
  uint64_t n1 = N << a, d1 = den << b, r;
  uint64_t over = n1 >= d1; /* the quotient's 65th bit */
  uint64_t ql = ccc_udiv_hi(over ? n1 - d1 : n1, d1, &r);
  double v = ccc_x87_round((unsigned __int128)over << 64 | ql, r, d1, b - a);
  return num < 0 ? -v : v;
}

/* The ARI of ari_from_counts from the pair-confusion counts (n <= CCC_MAX_N: every product fits).
 */
static inline CCC_HD double ccc_ari_exact(uint64_t tp, uint64_t fp, uint64_t fn, uint64_t tn)
{
  if (fn == 0 && fp == 0)
    return 1.0;
  int64_t num = 2 * ((int64_t)(tp * tn) - (int64_t)(fn * fp));
  uint64_t den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn);
  return ccc_div_x87(num, den);
}

/* ccc_ari_exact through ccc_div_x87_est: the same bits. */
static inline CCC_HD double ccc_ari_exact_est(uint64_t tp, uint64_t fp, uint64_t fn, uint64_t tn)
{
  if (fn == 0 && fp == 0)
    return 1.0;
  int64_t num = 2 * ((int64_t)(tp * tn) - (int64_t)(fn * fp));
  uint64_t den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn);
  return ccc_div_x87_est(num, den);
}

/* The bits of a double, and back. */
static inline CCC_HD uint64_t ccc_dbits(double x)
{
#ifdef __CUDA_ARCH__
  return (uint64_t)__double_as_longlong(x);
#else
  union {
    double d;
    uint64_t u;
  } v;
  v.d = x;
  return v.u;
#endif
}

static inline CCC_HD double ccc_bitsd(uint64_t u)
{
#ifdef __CUDA_ARCH__
  return __longlong_as_double((long long)u);
#else
  union {
    double d;
    uint64_t u;
  } v;
  v.u = u;
  return v.d;
#endif
}

/* ccc_div_x87 by one IEEE double division, where that is sure to give the same bits (den > 0).
 * With num and den below 2^53 (exact in double), q = num / den is the correctly rounded quotient
 * and r = num - q den (one fma) is exact. The x87 way rounds num / den to 64 bits first; that can
 * only end on another double than q when its 64-bit value is a midpoint of q and a neighbour, so
 * when the exact quotient is within 2^-12 ulp(q) of q +- ulp(q) / 2: |r| within den ulp(q) 2^-12
 * of den ulp(q) / 2. *sure = 0 within 2^-10 ulp of there (about one quotient in 500), where an
 * operand is 2^53 or more, and where q is a power of two with r != 0 (the spacing below it halves;
 * not reachable with operands below 2^53, whose quotients keep at least 1 / den from a power of
 * two: kept as a guard). The caller then takes ccc_div_x87 (or _est). test_ccc compares the sure
 * ones bit for bit. */
static inline CCC_HD double ccc_div_x87_dbl(int64_t num, uint64_t den, int *sure)
{
  const double big = 9007199254740992.0; /* 2^53 */
  double a = (double)num, b = (double)den, q = a / b, r = fma(-q, b, a);
  uint64_t bits = ccc_dbits(q);
  double u = ccc_bitsd(bits & 0x7ff0000000000000ull) * 0x1p-52; /* ulp(q), q normal */
  double e = fabs(fabs(r) - 0.5 * b * u);
  *sure = fabs(a) < big && b < big &&
          (r == 0 || ((bits & 0xfffffffffffffull) != 0 && e > b * u * 0x1p-10));
  return q;
}

/* ari_from_counts' numerator and denominator (n <= CCC_MAX_N: every product fits). */
static inline CCC_HD void ccc_ari_terms(uint64_t tp, uint64_t fp, uint64_t fn, uint64_t tn,
                                        int64_t *num, uint64_t *den)
{
  *num = 2 * ((int64_t)(tp * tn) - (int64_t)(fn * fp));
  *den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn);
}

/* ccc_ari_exact through ccc_div_x87_dbl where it is sure, else ccc_div_x87_est: the same bits. */
static inline CCC_HD double ccc_ari_exact_dbl(uint64_t tp, uint64_t fp, uint64_t fn, uint64_t tn)
{
  if (fn == 0 && fp == 0)
    return 1.0;
  int64_t num;
  uint64_t den;
  int sure;
  ccc_ari_terms(tp, fp, fn, tn, &num, &den);
  double v = ccc_div_x87_dbl(num, den, &sure);
  return sure ? v : ccc_div_x87_est(num, den);
}

/* A float estimate of ari_from_counts for counts below 2^32: each conversion, product, sum and the
 * quotient (__fdividef on the GPU, 2 ulp) rounds by at most a few 2^-24 relative, and since
 * tp tn and fn fp are each at most den / 2 the estimate is within about 15 * 2^-24 (< 1e-6) of
 * the ARI; test_ccc asserts 2e-6 on random and real counts. Two part pairs whose estimates differ
 * by more than CCC_ARI_APPROX_WINDOW are ordered as their ARIs. */
#define CCC_ARI_APPROX_WINDOW 1e-5f
static inline CCC_HD float ccc_ari_approx(uint32_t tp, uint32_t fp, uint32_t fn, uint32_t tn)
{
  if (fn == 0 && fp == 0)
    return 1.0f;
  const float a = (float)tp, b = (float)fp, c = (float)fn, d = (float)tn;
  const float num = 2.0f * fmaf(a, d, -(c * b)), den = fmaf(a + c, c + d, (a + b) * (b + d));
#ifdef __CUDA_ARCH__
  return __fdividef(num, den);
#else
  return num / den;
#endif
}

/* Pair t of the upper triangle (row-major: (0,1), (0,2), ..., (1,2), ...) of F features. */
static inline CCC_HD int64_t ccc_pair_index(int64_t i, int64_t j, int64_t F)
{
  return i * F - i * (i + 1) / 2 + (j - i - 1);
}

static inline CCC_HD void ccc_pair_of(int64_t t, int64_t F, int *i_out, int *j_out)
{
  double b = 2.0 * (double)F - 1.0;
  int64_t i = (int64_t)((b - sqrt(b * b - 8.0 * (double)t)) / 2.0);
  if (i < 0)
    i = 0;
  while (i > 0 && ccc_pair_index(i, i + 1, F) > t)
    i--;
  while (i + 1 < F - 1 && ccc_pair_index(i + 1, i + 2, F) <= t)
    i++;
  *i_out = (int)i;
  *j_out = (int)(t - ccc_pair_index(i, i + 1, F) + i + 1);
}

/* (i, j) of pair t from those of pair t - s (0 < s): along row i, then into the next rows (row
 * i + 1 starts at j = i + 2); past CCC_ADVANCE_ROWS rows (few features, the last short rows) by
 * ccc_pair_of. ccc v5_quick_pick's warps step their pairs so, not by a square root each. */
#define CCC_ADVANCE_ROWS 4
static inline CCC_HD void ccc_pair_advance(int64_t t, int s, int F, int *i, int *j)
{
  int ii = *i, jj = *j + s; /* F + s < 2^31: F(F - 1) / 2 pairs would not fit any GPU first */
  for (int w = 0; jj >= F; w++) {
    if (w == CCC_ADVANCE_ROWS) {
      ccc_pair_of(t, F, i, j);
      return;
    }
    jj += ii + 2 - F;
    ii++;
  }
  *i = ii;
  *j = jj;
}

/* ccc v6_paired_bands' paired row clusters of the kmax = 10 layout. Entry e < CCC_PAIRED_ENTRIES
 * holds row clusters 2a and 2a + 1 of part p (one cluster where 2a + 1 = p + 2, the part's count);
 * the entries lie a-major: entry a of every part that has it (p >= ccc_paired_first(a)), then
 * a + 1. Entry CCC_PAIRED_ENTRIES holds all rows. A lane sums part p's entries a = 0..4 at
 * word q CCC_PAIRED_QS of each, and lanes 3p + g (sums q = 3g..3g+2) read distinct banks. */
#define CCC_PAIRED_ENTRIES 29
#define CCC_PAIRED_QS 35
static inline CCC_HD int ccc_paired_first(int a)
{
  return a ? 2 * a - 1 : 0;
}
static inline CCC_HD int ccc_paired_start(int a)
{
  return a == 0 ? 0 : a == 1 ? 9 : a == 2 ? 17 : a == 3 ? 23 : 27;
}
static inline CCC_HD int ccc_paired_entry(int p, int a)
{
  return ccc_paired_start(a) + p - ccc_paired_first(a);
}
/* The part of entry e < CCC_PAIRED_ENTRIES; *a gets its index within the part. */
static inline CCC_HD int ccc_paired_part(int e, int *a)
{
  const int aa = (e >= 9) + (e >= 17) + (e >= 23) + (e >= 27);
  *a = aa;
  return ccc_paired_first(aa) + e - ccc_paired_start(aa);
}

#ifdef __cplusplus
}
#endif

#endif
