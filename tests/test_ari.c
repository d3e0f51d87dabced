/* The ARI reference: the known answers of doc/algorithms.md, agreement with the independent
 * Hubert-Arabie form on random partitions, symmetry and relabelling invariance, range, and
 * exactness beyond n = 55,000 where 64-bit products would overflow. */
#include <stdlib.h>

#include "algorithms/ari/ari_ref.h"
#include "rng.h"
#include "test_util.h"

static double ari4(const int16_t *a, const int16_t *b, int ka, int kb)
{
  return ari_reference(a, b, 4, ka, kb);
}

int main(void)
{
  int16_t a1[] = {0, 0, 1, 2}, b1[] = {0, 0, 1, 1};
  EXPECT_NEAR(ari4(a1, b1, 3, 2), 4.0 / 7.0, 1e-15);
  int16_t a2[] = {0, 0, 1, 1}, b2[] = {0, 1, 0, 1};
  EXPECT_NEAR(ari4(a2, b2, 2, 2), -0.5, 1e-15);
  int16_t b3[] = {1, 1, 0, 0};
  EXPECT(ari4(a2, a2, 2, 2) == 1.0);
  EXPECT(ari4(a2, b3, 2, 2) == 1.0);
  int16_t a4[] = {0, 0, 0, 0}, b4[] = {0, 1, 2, 3};
  EXPECT_NEAR(ari4(a4, b4, 1, 4), 0.0, 1e-15);
  /* labels out of range are an error, not a number */
  int16_t bad[] = {0, 5, 0, 0};
  EXPECT(isnan(ari4(bad, b1, 2, 2)));

  struct gr_rng r;
  gr_rng_seed(&r, 11);
  enum { N = 3000 };
  static int16_t a[N], b[N], pa[N];
  for (int t = 0; t < 200; t++) {
    int n = (int)gr_rng_range(&r, 2, N), ka = (int)gr_rng_range(&r, 1, 40),
        kb = (int)gr_rng_range(&r, 1, 40);
    int skew = t % 3 == 0;
    for (int i = 0; i < n; i++) {
      a[i] = (int16_t)gr_rng_range(&r, 0, ka - 1);
      b[i] = (int16_t)(skew ? (i % 5 == 0 ? gr_rng_range(&r, 0, kb - 1) : a[i] % kb)
                            : gr_rng_range(&r, 0, kb - 1));
    }
    double x = ari_reference(a, b, (size_t)n, ka, kb);
    EXPECT_NEAR(x, ari_reference_hubert(a, b, (size_t)n, ka, kb), 1e-12);
    EXPECT(x >= -0.5 && x <= 1.0);
    EXPECT(ari_reference(b, a, (size_t)n, kb, ka) == x);
    int16_t perm[64];
    for (int i = 0; i < ka; i++)
      perm[i] = (int16_t)(ka - 1 - i);
    for (int i = 0; i < n; i++)
      pa[i] = perm[a[i]];
    EXPECT(ari_reference(pa, b, (size_t)n, ka, kb) == x);
    EXPECT(ari_reference(a, a, (size_t)n, ka, ka) == 1.0);
  }

  /* n = 100,000: tp*tn ~ 1e19 overflows uint64; the 128-bit reference still agrees with the
   * long-double Hubert form */
  enum { BIG = 100000 };
  int16_t *x = malloc(BIG * sizeof *x), *y = malloc(BIG * sizeof *y);
  for (int i = 0; i < BIG; i++) {
    x[i] = (int16_t)gr_rng_range(&r, 0, 1);
    y[i] = (int16_t)(i % 7 == 0 ? gr_rng_range(&r, 0, 1) : x[i]);
  }
  struct ari_counts cnt;
  EXPECT(ari_reference_counts(x, y, BIG, 2, 2, &cnt) == 0);
  EXPECT(cnt.tp + cnt.fp + cnt.fn + cnt.tn == (uint64_t)BIG * (BIG - 1));
  EXPECT((double)cnt.tp * (double)cnt.tn > 1.85e19); /* beyond uint64 */
  EXPECT_NEAR(ari_reference(x, y, BIG, 2, 2), ari_reference_hubert(x, y, BIG, 2, 2), 1e-12);
  free(x);
  free(y);
  TEST_DONE();
}
