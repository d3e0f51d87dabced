/* history_fit (history.h), the step fit of `gpuregress history`: the pruned fit gives exactly the
 * segmentation of the plain O(n^2) recursion (written here as the definition) on series with
 * steps, without, with two levels, constant, of 2..400 nights; and its work grows as n log n, not
 * n^2 (issue 41: 10^5 nights took 176 s, 10^6 more than 300 s): at 2 * 10^5 nights of noise
 * without a step (the case where pruning by cost alone, PELT, keeps every candidate) and with a
 * step every 500 nights, the candidates and pieces visited stay under 64 a night. */
#include <math.h>
#include <stdlib.h>

#include "history.h"
#include "rng.h"
#include "test_util.h"

/* The definition: best[t] = min over s of best[s] + cost(s, t) + beta, s = 0 or s >= 2, s + 2 <=
 * t, the first s of the least value kept; the cuts of the best path. */
static int plain_fit(const double *f, size_t n, double sigma, double beta, size_t *cut)
{
  double *best = malloc((n + 1) * sizeof *best), *s1 = calloc(n + 1, sizeof *s1);
  double *s2 = calloc(n + 1, sizeof *s2);
  size_t *from = malloc((n + 1) * sizeof *from);
  for (size_t i = 0; i < n; i++) {
    s1[i + 1] = s1[i] + f[i];
    s2[i + 1] = s2[i] + f[i] * f[i];
  }
  best[0] = -beta;
  for (size_t t = 1; t <= n; t++) {
    best[t] = INFINITY;
    from[t] = 0;
    for (size_t s = 0; s + 2 <= t; s++) {
      if (s == 1)
        continue;
      double m = (double)(t - s), d = s1[t] - s1[s];
      double cost = (s2[t] - s2[s] - d * d / m) / (sigma * sigma);
      double v = best[s] + (cost > 0 ? cost : 0) + beta;
      if (v < best[t]) {
        best[t] = v;
        from[t] = s;
      }
    }
  }
  int k = 0;
  if (isfinite(best[n])) {
    for (size_t t = from[n]; t > 0; t = from[t])
      k++;
    int i = k;
    for (size_t t = from[n]; t > 0; t = from[t])
      cut[--i] = t;
  }
  free(best);
  free(s1);
  free(s2);
  free(from);
  return k;
}

static double gauss(struct gr_rng *r)
{
  double u1 = gr_rng_unit(r), u2 = gr_rng_unit(r);
  return sqrt(-2 * log(u1 > 0 ? u1 : 1e-300)) * cos(2 * M_PI * u2);
}

/* a series of kind: 0 noise, 1 a few steps, 2 two levels at random, 3 constant, 4 a step every
 * `every` nights */
static void series(double *f, size_t n, int kind, size_t every, struct gr_rng *r)
{
  double level = 0;
  for (size_t i = 0; i < n; i++) {
    if (kind == 1 && gr_rng_chance(r, 0.02))
      level += (gr_rng_chance(r, 0.5) ? 1 : -1) * 0.05 * (1 + gr_rng_unit(r));
    if (kind == 4 && i && i % every == 0)
      level += 0.1;
    double two = kind == 2 && gr_rng_chance(r, 0.3) ? 0.04 : 0;
    f[i] = kind == 3 ? 0.5 : level + two + 0.01 * gauss(r);
  }
}

int main(void)
{
  struct gr_rng r;
  gr_rng_seed(&r, 41);
  /* the same segmentation as the definition */
  size_t agree = 0, tried = 0;
  for (int trial = 0; trial < 200; trial++) {
    size_t n = 2 + (size_t)gr_rng_range(&r, 0, trial < 100 ? 40 : 400);
    int kind = trial % 4;
    double *f = malloc(n * sizeof *f);
    size_t *c1 = malloc(n * sizeof *c1), *c2 = malloc(n * sizeof *c2);
    series(f, n, kind, 0, &r);
    double sigma = kind == 3 ? 0.001 : 0.01, beta = 3 * log((double)n);
    int k1 = history_fit(f, n, sigma, beta, c1, NULL), k2 = plain_fit(f, n, sigma, beta, c2);
    int same = k1 == k2;
    for (int i = 0; same && i < k1; i++)
      same = c1[i] == c2[i];
    EXPECT(same, "trial %d (n %zu, kind %d): %d cuts, the definition %d", trial, n, kind, k1, k2);
    agree += (size_t)same;
    tried++;
    free(f);
    free(c1);
    free(c2);
  }
  printf("history_fit: %zu of %zu series cut as the plain recursion cuts them\n", agree, tried);
  /* the work: a few candidates and pieces a night, at 2 * 10^5 nights */
  size_t n = 200000;
  double *f = malloc(n * sizeof *f);
  size_t *cut = malloc(n * sizeof *cut);
  for (int kind = 0; kind < 2; kind++) {
    series(f, n, kind ? 4 : 0, 500, &r);
    size_t work = 0;
    int k = history_fit(f, n, 0.01, 3 * log((double)n), cut, &work);
    printf("history_fit: %zu nights (%s): %d change points, %.1f candidates and pieces a night\n",
           n, kind ? "a step every 500" : "noise", k, (double)work / (double)n);
    EXPECT(work < 64 * n, "work %zu for %zu nights", work, n);
    if (kind)
      EXPECT(k == (int)(n / 500 - 1) || k == (int)(n / 500), "%d change points", k);
    else
      EXPECT_EQ(k, 0);
  }
  free(f);
  free(cut);
  TEST_DONE();
}
