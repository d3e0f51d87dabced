/* The CCC reference and the shared arithmetic: the exact ARI rounding (ccc_ari_exact) against
 * ari's reference finish on random and real counts, kmax and the fine-label layout, known
 * answers, and a Titanic-like mixed table (numeric, categorical, missing values) whose CCC matrix
 * must be symmetric, in range and agree with the independent Hubert-Arabie ARI. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/util.h>
#include "ccc_alg.h"
#include "ccc_ref.h"
#include "algorithms/ari/ari_ref.h"
#include <gpuregress/rng.h>
#include "test_util.h"

static void test_exact_rounding(void)
{
  struct gr_rng r;
  gr_rng_seed(&r, 5);
  long bad = 0;
  for (long t = 0; t < 2000000; t++) {
    int bits = (int)gr_rng_range(&r, 1, 30);
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    struct ari_counts c = {gr_rng_u64(&r) & mask, gr_rng_u64(&r) & mask, gr_rng_u64(&r) & mask,
                           gr_rng_u64(&r) & mask};
    if (t % 7 == 0)
      c.fp = c.fn; /* symmetric ones */
    double want = ari_from_counts(&c), got = ccc_ari_exact(c.tp, c.fp, c.fn, c.tn);
    double est = ccc_ari_exact_est(c.tp, c.fp, c.fn, c.tn);
    double dbl = ccc_ari_exact_dbl(c.tp, c.fp, c.fn, c.tn);
    if (memcmp(&dbl, &got, sizeof dbl) != 0 && bad++ < 5)
      fprintf(stderr, "counts %llu %llu %llu %llu: dbl %.17g, exact %.17g\n",
              (unsigned long long)c.tp, (unsigned long long)c.fp, (unsigned long long)c.fn,
              (unsigned long long)c.tn, dbl, got);
    if (memcmp(&est, &got, sizeof est) != 0 && bad++ < 5)
      fprintf(stderr, "counts %llu %llu %llu %llu: est %.17g, exact %.17g\n",
              (unsigned long long)c.tp, (unsigned long long)c.fp, (unsigned long long)c.fn,
              (unsigned long long)c.tn, est, got);
    if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 5)
      fprintf(stderr, "counts %llu %llu %llu %llu: exact %.17g, reference %.17g\n",
              (unsigned long long)c.tp, (unsigned long long)c.fp, (unsigned long long)c.fn,
              (unsigned long long)c.tn, got, want);
  }
  /* counts of real partitions up to n = CCC_MAX_N */
  static int16_t a[CCC_MAX_N], b[CCC_MAX_N];
  for (int t = 0; t < 300; t++) {
    int n = (int)gr_rng_log_range(&r, 2, CCC_MAX_N), ka = (int)gr_rng_range(&r, 1, 12),
        kb = (int)gr_rng_range(&r, 1, 12);
    for (int i = 0; i < n; i++) {
      a[i] = (int16_t)gr_rng_range(&r, 0, ka - 1);
      b[i] = (int16_t)(gr_rng_chance(&r, 0.7) ? a[i] % kb : gr_rng_range(&r, 0, kb - 1));
    }
    struct ari_counts c;
    EXPECT(ari_reference_counts(a, b, (size_t)n, ka, kb, &c) == 0);
    double want = ari_from_counts(&c), got = ccc_ari_exact(c.tp, c.fp, c.fn, c.tn);
    double dbl = ccc_ari_exact_dbl(c.tp, c.fp, c.fn, c.tn);
    if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 10)
      fprintf(stderr, "n %d: exact %.17g, reference %.17g\n", n, got, want);
    if (memcmp(&want, &dbl, sizeof want) != 0 && bad++ < 10)
      fprintf(stderr, "n %d: dbl %.17g, reference %.17g\n", n, dbl, want);
  }
  EXPECT(bad == 0);
}

/* ccc_udiv_hi, the quotient of v4_lean_rows' exact division (no 128-bit divide), against the
 * 128-bit division: the quotient and the remainder bit for bit (the rounding after them only
 * looks at a few of their bits, so the division itself is what is compared), on random operands
 * and at the edges of its estimate (h 0 or d - 1, d at 2^63 and 2^64 - 1, quotients near powers
 * of two); then ccc_div_x87_est against ccc_div_x87 on signed operands of every length. */
static void test_div_est(void)
{
  struct gr_rng r;
  gr_rng_seed(&r, 11);
  long bad = 0, n = 0;
  for (long t = 0; t < 3000000; t++) {
    uint64_t d = gr_rng_u64(&r) | (uint64_t)1 << 63, h;
    switch (t % 8) {
    case 0:
      d = ((uint64_t)1 << 63) + (uint64_t)gr_rng_range(&r, 0, 3);
      h = d - 1 - (uint64_t)gr_rng_range(&r, 0, 3);
      break;
    case 1:
      d = ~(uint64_t)0 - (uint64_t)gr_rng_range(&r, 0, 3);
      h = gr_rng_chance(&r, 0.5) ? d - 1 : (uint64_t)gr_rng_range(&r, 0, 3);
      break;
    case 2: { /* h 2^64 = q d + rem with rem within 3 of 0 or of d: where the estimate of R / d
               * can fall either side of an integer. d odd: q = -rem / d mod 2^64 */
      d |= 1;
      uint64_t inv = d, rem = (uint64_t)gr_rng_range(&r, 0, 3);
      for (int k = 0; k < 6; k++)
        inv *= 2 - d * inv;
      if (gr_rng_chance(&r, 0.5))
        rem = d - 1 - rem;
      uint64_t q = (0 - rem) * inv;
      h = (uint64_t)(((unsigned __int128)q * d + rem) >> 64);
      break;
    }
    case 3: h = gr_rng_u64(&r) >> gr_rng_range(&r, 1, 63); break;
    default: h = gr_rng_u64(&r); break;
    }
    if (h >= d)
      h = d - 1;
    unsigned __int128 x = (unsigned __int128)h << 64;
    uint64_t want_q = (uint64_t)(x / d), want_r = (uint64_t)(x % d), got_r = 0;
    uint64_t got_q = ccc_udiv_hi(h, d, &got_r);
    n++;
    if ((got_q != want_q || got_r != want_r) && bad++ < 5)
      fprintf(stderr, "udiv_hi %llu / %llu: q %llu r %llu, want %llu %llu\n", (unsigned long long)h,
              (unsigned long long)d, (unsigned long long)got_q, (unsigned long long)got_r,
              (unsigned long long)want_q, (unsigned long long)want_r);
  }
  for (long t = 0; t < 300000; t++) {
    uint64_t den = gr_rng_u64(&r) >> gr_rng_range(&r, 1, 63);
    int64_t num = (int64_t)(gr_rng_u64(&r) >> gr_rng_range(&r, 1, 63));
    if (t % 3 == 0)
      num = (int64_t)(den << gr_rng_range(&r, 0, __builtin_clzll(den | 1) - 1));
    if (den == 0 || num <= 0)
      continue;
    num = gr_rng_chance(&r, 0.5) ? -num : num;
    double want = ccc_div_x87(num, den), got = ccc_div_x87_est(num, den);
    if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 10)
      fprintf(stderr, "div %lld / %llu: est %.17g, exact %.17g\n", (long long)num,
              (unsigned long long)den, got, want);
  }
  EXPECT(n == 3000000);
  EXPECT(bad == 0);
}

/* ccc_div_x87_dbl, v5_quick_pick's one-division rounding, against ccc_div_x87 where it says it
 * is sure: operands of every length below 2^53 and a few above, quotients near 1 and tiny. The
 * plain double quotient differs from the x87 one in about one case in 4,000 (a 64-bit rounding
 * onto a midpoint); the test asserts it met such cases and that each was flagged unsure, and that
 * unsure stays rare (the kernel's slow path). */
static void test_div_dbl(void)
{
  struct gr_rng r;
  gr_rng_seed(&r, 13);
  long bad = 0, unsure = 0, differ = 0, sure_big = 0, n = 0;
  for (long t = 0; t < 4000000; t++) {
    uint64_t den = gr_rng_u64(&r) >> gr_rng_range(&r, t % 5 == 0 ? 1 : 11, 63);
    int64_t num = (int64_t)(gr_rng_u64(&r) >> gr_rng_range(&r, t % 5 == 0 ? 1 : 11, 63));
    if (t % 3 == 0) /* |quotient| near 1, as the largest ARIs */
      num = (int64_t)(den - (uint64_t)gr_rng_range(&r, 0, (int64_t)(den >> 3)));
    if (den == 0 || num <= 0)
      continue;
    num = gr_rng_chance(&r, 0.5) ? -num : num;
    int sure = 0;
    double want = ccc_div_x87(num, den), got = ccc_div_x87_dbl(num, den, &sure);
    int small = den < (uint64_t)1 << 53 && (num < 0 ? -num : num) < (int64_t)1 << 53;
    n++;
    if (!small) {
      sure_big += sure;
      continue;
    }
    unsure += !sure;
    if (memcmp(&want, &got, sizeof want) != 0) {
      differ++;
      if (sure && bad++ < 10)
        fprintf(stderr, "div_dbl %lld / %llu: %.17g said sure, x87 %.17g\n", (long long)num,
                (unsigned long long)den, got, want);
    }
  }
  fprintf(stderr, "div_dbl: %ld quotients, %ld unsure, %ld where the double differs\n", n, unsure,
          differ);
  EXPECT(n > 3000000);
  EXPECT(bad == 0);
  EXPECT(sure_big == 0);
  EXPECT(differ > 100);     /* the midpoint cases were met */
  EXPECT(unsure < n / 100); /* and the slow path stays rare */
  EXPECT(unsure >= differ);
}

/* ccc_ari_approx, v5_quick_pick's float pre-selection, within 2e-6 of the exact ARI (at most a
 * quarter of CCC_ARI_APPROX_WINDOW) on random counts summing below 2^31 (n <= CCC_MAX_N) and on
 * the counts of real partitions up to n = CCC_MAX_N (near-zero ARIs, where the numerator
 * cancels). */
static void test_ari_approx(void)
{
  struct gr_rng r;
  gr_rng_seed(&r, 19);
  double worst = 0;
  long n = 0;
  for (long t = 0; t < 2000000; t++) {
    int bits = (int)gr_rng_range(&r, 1, 29);
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    uint32_t c[4];
    for (int k = 0; k < 4; k++)
      c[k] = (uint32_t)(gr_rng_u64(&r) & mask);
    if (t % 5 == 0) /* a near-independent table: tp tn close to fn fp */
      c[3] = (uint32_t)((uint64_t)c[1] * c[2] / (c[0] | 1) & mask);
    double e = ccc_ari_exact(c[0], c[1], c[2], c[3]), a = ccc_ari_approx(c[0], c[1], c[2], c[3]);
    worst = fmax(worst, fabs(a - e));
    n++;
  }
  static int16_t pa[CCC_MAX_N], pb[CCC_MAX_N];
  for (int t = 0; t < 300; t++) {
    int m = (int)gr_rng_log_range(&r, 2, CCC_MAX_N), ka = (int)gr_rng_range(&r, 1, 12),
        kb = (int)gr_rng_range(&r, 1, 12);
    double keep = gr_rng_chance(&r, 0.5) ? 0.0 : 0.05;
    for (int i = 0; i < m; i++) {
      pa[i] = (int16_t)gr_rng_range(&r, 0, ka - 1);
      pb[i] = (int16_t)(gr_rng_chance(&r, keep) ? pa[i] % kb : gr_rng_range(&r, 0, kb - 1));
    }
    struct ari_counts c;
    EXPECT(ari_reference_counts(pa, pb, (size_t)m, ka, kb, &c) == 0);
    if (c.tp + c.fp + c.fn + c.tn > UINT32_MAX)
      continue;
    double e = ari_from_counts(&c);
    double a = ccc_ari_approx((uint32_t)c.tp, (uint32_t)c.fp, (uint32_t)c.fn, (uint32_t)c.tn);
    worst = fmax(worst, fabs(a - e));
    n++;
  }
  fprintf(stderr, "ari_approx: %ld count sets, worst error %.3g\n", n, worst);
  EXPECT(n > 2000000);
  EXPECT(worst <= 2e-6);
  EXPECT(4 * 2e-6 <= (double)CCC_ARI_APPROX_WINDOW);
}

/* ccc_pair_advance against ccc_pair_of: every walk of a persistent grid (start w, step s) over all
 * pairs of small F (many rows a step: the fallback), and long walks of large F (one row or none a
 * step, as the anchor's) from random starts. */
static void test_pair_advance(void)
{
  long bad = 0, steps = 0;
  for (int F = 2; F <= 160; F++)
    for (int s = 1; s <= 300; s += (s < 8 ? 1 : 37)) {
      int64_t pairs = (int64_t)F * (F - 1) / 2;
      for (int w = 0; w < s && w < pairs; w += (w < 4 ? 1 : 11)) {
        int i, j, ei, ej;
        ccc_pair_of(w, F, &i, &j);
        for (int64_t t = w + s; t < pairs; t += s) {
          ccc_pair_advance(t, s, F, &i, &j);
          ccc_pair_of(t, F, &ei, &ej);
          steps++;
          if ((i != ei || j != ej) && bad++ < 5)
            fprintf(stderr, "F %d step %d pair %lld: (%d, %d), want (%d, %d)\n", F, s, (long long)t,
                    i, j, ei, ej);
        }
      }
    }
  struct gr_rng r;
  gr_rng_seed(&r, 17);
  for (int k = 0; k < 300; k++) {
    int F = (int)gr_rng_log_range(&r, 1000, 200000), s = (int)gr_rng_range(&r, 1, 20000);
    int64_t pairs = (int64_t)F * (F - 1) / 2, t = (int64_t)(gr_rng_u64(&r) % (uint64_t)pairs);
    if (k % 3 == 0) /* the last rows */
      t = pairs - 1 - (int64_t)(gr_rng_u64(&r) % (uint64_t)(pairs < 4000000 ? pairs : 4000000));
    int i, j, ei, ej;
    ccc_pair_of(t, F, &i, &j);
    for (int m = 0; m < 2000 && t + s < pairs; m++) {
      t += s;
      ccc_pair_advance(t, s, F, &i, &j);
      ccc_pair_of(t, F, &ei, &ej);
      steps++;
      if ((i != ei || j != ej) && bad++ < 10)
        fprintf(stderr, "F %d step %d pair %lld: (%d, %d), want (%d, %d)\n", F, s, (long long)t, i,
                j, ei, ej);
    }
  }
  EXPECT(steps > 1000000);
  EXPECT(bad == 0);
}

/* ccc v6_paired_bands' paired row clusters: entry e and (p, a) map both ways, every row cluster
 * of every part lies in exactly one entry, and the part-pair sums' reads (lane 3p + g at step a:
 * word ccc_paired_entry(p, a) + q CCC_PAIRED_QS for q = 3g..3g+2 and the row count's q = 9) fall
 * on 27 distinct banks at every step where the lanes hold distinct words. */
static void test_paired_layout(void)
{
  int covered[CCC_MAX_PARTS][CCC_MAX_K] = {{0}}, seen[CCC_PAIRED_ENTRIES] = {0};
  for (int e = 0; e < CCC_PAIRED_ENTRIES; e++) {
    int a, p = ccc_paired_part(e, &a);
    EXPECT(p >= 0 && p < CCC_MAX_PARTS && a >= 0 && 2 * a < p + 2);
    if (p < 0 || p >= CCC_MAX_PARTS || a < 0 || 2 * a >= p + 2)
      continue;
    EXPECT(p >= ccc_paired_first(a) && ccc_paired_entry(p, a) == e);
    covered[p][2 * a]++;
    if (2 * a + 1 < p + 2)
      covered[p][2 * a + 1]++;
  }
  for (int p = 0; p < CCC_MAX_PARTS; p++) {
    for (int c = 0; c < p + 2; c++)
      EXPECT(covered[p][c] == 1);
    for (int a = 0; 2 * a < p + 2; a++) { /* the part sums' loop finds every entry of part p */
      EXPECT(a < 5 && p >= ccc_paired_first(a));
      const int e = ccc_paired_entry(p, a);
      EXPECT(e >= 0 && e < CCC_PAIRED_ENTRIES);
      if (e >= 0 && e < CCC_PAIRED_ENTRIES)
        seen[e]++;
    }
    EXPECT(p < ccc_paired_first((p + 2 + 1) / 2)); /* and no entry past them */
  }
  for (int e = 0; e < CCC_PAIRED_ENTRIES; e++)
    EXPECT(seen[e] == 1);
  int conflicts = 0;
  for (int a = 0; a < 5; a++)
    for (int k = 0; k < 4; k++) {
      int bank_word[32];
      for (int b = 0; b < 32; b++)
        bank_word[b] = -1;
      for (int lane = 0; lane < CCC_MAX_PARTS * 3; lane++) {
        const int p = lane / 3, q = k < 3 ? lane % 3 * 3 + k : CCC_MAX_PARTS;
        if (p < ccc_paired_first(a))
          continue;
        const int w = ccc_paired_entry(p, a) + q * CCC_PAIRED_QS;
        if (bank_word[w % 32] >= 0 && bank_word[w % 32] != w)
          conflicts++;
        bank_word[w % 32] = w;
      }
    }
  EXPECT(conflicts == 0);
}

static void test_layout(void)
{
  EXPECT(ccc_kmax(1) == 2 && ccc_kmax(6) == 2 && ccc_kmax(7) == 3 && ccc_kmax(90) == 9);
  EXPECT(ccc_kmax(91) == 10 && ccc_kmax(1000) == 10 && ccc_kmax(20) == 4 && ccc_kmax(21) == 5);
  struct ccc_layout lay;
  ccc_layout_init(&lay, 1000);
  EXPECT(lay.parts == 9 && lay.L == 32);
  EXPECT(lay.bnd[lay.off[0] + 1] == 16 && lay.bnd[lay.off[0] + 2] == 32); /* 1/2 is the 16th */
  for (int t = 0; t + 1 < lay.L - 1; t++)                                 /* ascending */
    EXPECT(lay.num[t] * lay.den[t + 1] < lay.num[t + 1] * lay.den[t]);
  /* the compile-time cells of v3_rows are the layout's */
  int cells = 0, prev_q = -1, b = 0;
#define CHECK_CELL(q, lo, hi)                                                                      \
  b = (q) == prev_q ? b + 1 : 0;                                                                   \
  prev_q = (q);                                                                                    \
  EXPECT(lay.bnd[lay.off[q] + b] == (lo) && lay.bnd[lay.off[q] + b + 1] == (hi));                  \
  cells++;
  CCC_F10_CELLS(CHECK_CELL)
#undef CHECK_CELL
  EXPECT(cells == 54);
  ccc_layout_init(&lay, 4);
  EXPECT(lay.parts == 1 && lay.L == 2);
}

static struct ccc_ref_feature feature(const float *x, int n, int cat_k, int16_t *store)
{
  struct ccc_ref_feature f;
  memset(&f, 0, sizeof f);
  f.labels = store;
  EXPECT(ccc_reference_partition(x, n, cat_k, &f) == 0);
  return f;
}

static void test_known(void)
{
  static int16_t s1[CCC_MAX_PARTS * 8], s2[CCC_MAX_PARTS * 8], scratch[16];
  float x[] = {1, 2, 3, 4}, y[] = {4, 3, 2, 1}, t[] = {1, 1, 2, 2};
  struct ccc_ref_feature fx = feature(x, 4, 0, s1), fy = feature(y, 4, 0, s2);
  EXPECT(fx.parts == 1 && fx.labels[0] == 0 && fx.labels[1] == 0 && fx.labels[2] == 1);
  uint8_t idx;
  EXPECT(ccc_reference_pair(&fx, &fy, 4, scratch, &idx) == 1.0 && idx == 0);
  /* ties: 1 1 2 2 has average ranks 1.5, 1.5, 3.5, 3.5: the same halves */
  struct ccc_ref_feature ft = feature(t, 4, 0, s2);
  EXPECT(ft.labels[0] == 0 && ft.labels[1] == 0 && ft.labels[2] == 1 && ft.labels[3] == 1);
  /* a constant feature has no part of two clusters: NaN */
  float c[] = {3, 3, 3, 3};
  struct ccc_ref_feature fc = feature(c, 4, 0, s2);
  EXPECT(fc.valid == 0 && isnan(ccc_reference_pair(&fx, &fc, 4, scratch, &idx)));
  EXPECT(idx == CCC_NO_INDEX);
  /* missing values: only the objects present in both count */
  float m[] = {NAN, 5, 1, 7, 8, 0, 2, 9}, u[] = {1, 2, 3, 4, 5, 6, 7, NAN};
  static int16_t s3[CCC_MAX_PARTS * 8], s4[CCC_MAX_PARTS * 8];
  struct ccc_ref_feature fm = feature(m, 8, 0, s3), fu = feature(u, 8, 0, s4);
  EXPECT(fm.labels[0] == -1 && fu.labels[7] == -1);
  double v = ccc_reference_pair(&fm, &fu, 8, scratch, &idx);
  EXPECT(v >= 0 && v <= 1);
  /* a categorical code out of range is an error */
  float bad[] = {0, 1, 5, 1};
  struct ccc_ref_feature fb;
  fb.labels = s1;
  EXPECT(ccc_reference_partition(bad, 4, 3, &fb) == -1);
}

/* 891 passengers: class, sex, age (20% missing, integer years: ties), siblings, parents, fare,
 * port (2 missing), survived, drawn so that sex, class and fare relate to survival. */
enum { TN = 891, TF = 8 };
static void test_titanic(void)
{
  static float x[TF][TN];
  static const int cat[TF] = {3, 2, 0, 0, 0, 0, 3, 2};
  struct gr_rng r;
  gr_rng_seed(&r, 1912);
  for (int o = 0; o < TN; o++) {
    int cls = gr_rng_chance(&r, 0.24) ? 0 : gr_rng_chance(&r, 0.27) ? 1 : 2;
    int sex = gr_rng_chance(&r, 0.35);
    x[0][o] = (float)cls;
    x[1][o] = (float)sex;
    x[2][o] = gr_rng_chance(&r, 0.2) ? NAN : (float)(int)(1 + gr_rng_unit(&r) * (60 - 15 * cls));
    x[3][o] = (float)(gr_rng_chance(&r, 0.7) ? 0 : gr_rng_range(&r, 1, 5));
    x[4][o] = (float)(gr_rng_chance(&r, 0.75) ? 0 : gr_rng_range(&r, 1, 4));
    x[5][o] = (float)((cls == 0 ? 60 : cls == 1 ? 20 : 8) * (0.5 + gr_rng_unit(&r)));
    x[6][o] =
        o == 61 || o == 829 ? NAN : (float)(gr_rng_chance(&r, 0.72) ? 0 : gr_rng_range(&r, 1, 2));
    double p = 0.15 + 0.55 * sex + 0.15 * (2 - cls) / 2.0;
    x[7][o] = (float)gr_rng_chance(&r, p);
  }
  static int16_t store[TF][CCC_MAX_PARTS * TN], scratch[2 * TN];
  struct ccc_ref_feature f[TF];
  for (int i = 0; i < TF; i++) {
    f[i] = feature(x[i], TN, cat[i], store[i]);
    EXPECT(f[i].valid != 0);
  }
  EXPECT(f[2].parts == 9);
  double m[TF][TF];
  for (int i = 0; i < TF; i++)
    for (int j = 0; j < TF; j++) {
      uint8_t idx;
      m[i][j] = ccc_reference_pair(&f[i], &f[j], TN, scratch, &idx);
      EXPECT(m[i][j] >= 0 && m[i][j] <= 1);
      if (i == j)
        EXPECT(m[i][j] == 1.0);
      /* the winning part pair's ARI by the independent Hubert-Arabie form */
      int p = idx >> 4, q = idx & 15, k = 0;
      static int16_t a[TN], b[TN];
      for (int o = 0; o < TN; o++)
        if (f[i].labels[(size_t)p * TN + o] >= 0 && f[j].labels[(size_t)q * TN + o] >= 0) {
          a[k] = f[i].labels[(size_t)p * TN + o];
          b[k++] = f[j].labels[(size_t)q * TN + o];
        }
      double h = ari_reference_hubert(a, b, (size_t)k, f[i].k[p], f[j].k[q]);
      EXPECT_NEAR(m[i][j], h > 0 ? h : 0.0, 1e-12);
    }
  for (int i = 0; i < TF; i++)
    for (int j = 0; j < TF; j++)
      EXPECT(m[i][j] == m[j][i]);
  EXPECT(m[1][7] > 0.2);  /* sex ~ survived */
  EXPECT(m[0][5] > 0.3);  /* class ~ fare */
  EXPECT(m[3][6] < 0.05); /* siblings ~ port: independent */
}

/* An instance's reference CCC is computed on several threads (ccc_reference_pairs): each checked
 * pair's value and part pair are ccc_reference_pair's on its own, bit for bit, for all pairs and
 * for a sampled set; n = 1 and 2 features too. */
static void test_instance_reference(void)
{
  const char *cases[] = {
      "ccc n=300 features=40 cat=5 max_cat=12 missing=3 values=mixed seed=11",
      "ccc n=1 features=2 cat=0 max_cat=1 missing=0 values=continuous seed=2",
      "ccc n=200 features=180 cat=0 max_cat=1 missing=0 values=ties seed=5",
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    struct gr_case c;
    struct gr_instance *inst = NULL;
    char why[GR_WHY_LEN] = "";
    EXPECT(gr_case_parse(cases[k], &c, why, sizeof why) == 0, "%s: %s", cases[k], why);
    EXPECT(c.alg->instance_new(&c, &inst, why, sizeof why) == 0 && inst, "%s: %s", cases[k], why);
    if (!inst)
      continue;
    const struct ccc_data *d = inst->priv;
    int16_t *scratch = malloc(2 * (size_t)d->n * sizeof *scratch);
    int64_t bad = 0;
    for (int64_t s = 0; s < d->checked; s++) {
      int i, j;
      uint8_t idx = 0;
      ccc_pair_of(d->check_pair[s], d->features, &i, &j);
      double v = ccc_reference_pair(&d->feat[i], &d->feat[j], d->n, scratch, &idx);
      bad += memcmp(&v, &d->ref[s], sizeof v) != 0 || idx != d->ref_idx[s];
    }
    EXPECT(bad == 0, "%s: %lld of %lld pairs differ from the serial reference", cases[k],
           (long long)bad, (long long)d->checked);
    EXPECT(d->checked > 0, "%s: no pair checked", cases[k]);
    free(scratch);
    c.alg->instance_free(inst);
  }
}

int main(void)
{
  test_instance_reference();
  test_exact_rounding();
  test_div_est();
  test_div_dbl();
  test_ari_approx();
  test_pair_advance();
  test_paired_layout();
  test_layout();
  test_known();
  test_titanic();
  TEST_DONE();
}
