/* Sample statistics and the rank test behind `gpuregress compare`. See stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

double stats_median_inplace(double *x, size_t n)
{
  if (n == 0)
    return 0;
  qsort(x, n, sizeof *x, cmp_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

double stats_night_noise(const double *y, size_t n, double *d)
{
  if (n < 2)
    return 0;
  size_t m = n - 1, trim = m / 10, k = m - trim;
  for (size_t i = 0; i < m; i++)
    d[i] = fabs(y[i + 1] - y[i]);
  qsort(d, m, sizeof *d, cmp_double);
  double ss = 0;
  for (size_t i = 0; i < k; i++)
    ss += d[i] * d[i];
  /* a difference of Gaussian nights is N(0, 2 s^2); with the fraction q of largest |values| left
   * out, the mean square of the rest is 2 s^2 c2, c2 = 1 - 2 z phi(z) / (1 - q), P(|Z| > z) = q */
  double q = (double)trim / (double)m, c2 = 1;
  if (q > 0) {
    double lo = 0, hi = 10;
    for (int it = 0; it < 64; it++) {
      double z = 0.5 * (lo + hi);
      if (erfc(z / sqrt(2.0)) > q)
        lo = z;
      else
        hi = z;
    }
    double z = 0.5 * (lo + hi), phi = exp(-0.5 * z * z) / sqrt(2.0 * M_PI);
    c2 = 1 - 2 * z * phi / (1 - q);
  }
  return sqrt(ss / (double)k / c2 / 2.0);
}

int stats_summarize(const double *x, size_t n, struct stats_summary *s)
{
  memset(s, 0, sizeof *s);
  s->n = n;
  if (n == 0)
    return 0;
  double *t = malloc(n * sizeof *t);
  if (!t)
    return -1;
  memcpy(t, x, n * sizeof *t);
  s->median = stats_median_inplace(t, n);
  s->min = t[0];
  s->max = t[n - 1];
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += x[i];
  s->mean = sum / (double)n;
  double ss = 0;
  for (size_t i = 0; i < n; i++)
    ss += (x[i] - s->mean) * (x[i] - s->mean);
  s->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
  for (size_t i = 0; i < n; i++)
    t[i] = fabs(x[i] - s->median);
  s->mad = stats_median_inplace(t, n);
  free(t);
  /* standard error of the median of a normal sample: sqrt(pi/2) * sigma / sqrt(n), with sigma
   * estimated robustly from the MAD (outliers from preemption do not inflate it) */
  double sigma = 1.4826 * s->mad;
  if (sigma == 0 && n > 1)
    sigma = s->stddev; /* quantised samples: MAD can be 0 while values differ */
  s->noise = s->median > 0 ? 1.2533 * sigma / sqrt((double)n) / s->median : 0;
  return 0;
}

struct ranked {
  double v;
  int side; /* 0: a, 1: b */
};

static int cmp_ranked(const void *pa, const void *pb)
{
  return cmp_double(&((const struct ranked *)pa)->v, &((const struct ranked *)pb)->v);
}

double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *z_out)
{
  if (z_out)
    *z_out = 0;
  if (na == 0 || nb == 0)
    return 1;
  size_t n = na + nb;
  struct ranked *r = malloc(n * sizeof *r);
  if (!r)
    return -1;
  for (size_t i = 0; i < na; i++)
    r[i] = (struct ranked){a[i], 0};
  for (size_t i = 0; i < nb; i++)
    r[na + i] = (struct ranked){b[i], 1};
  qsort(r, n, sizeof *r, cmp_ranked);
  double rank_b = 0, ties = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && r[j].v == r[i].v)
      j++;
    double t = (double)(j - i), mid = 0.5 * (double)(i + 1 + j); /* average of ranks i+1..j */
    for (size_t k = i; k < j; k++)
      if (r[k].side)
        rank_b += mid;
    ties += t * t * t - t;
    i = j;
  }
  free(r);
  double n1 = (double)na, n2 = (double)nb, N = (double)n;
  double u_b = rank_b - n2 * (n2 + 1) / 2; /* pairs (a, b) with b > a, ties counting half */
  double mu = n1 * n2 / 2;
  double var = n1 * n2 / 12 * ((N + 1) - ties / (N * (N - 1)));
  if (var <= 0)
    return 1;
  double d = u_b - mu;
  double cc = d > 0 ? 0.5 : d < 0 ? -0.5 : 0; /* continuity correction towards the mean */
  double z = (d - cc) / sqrt(var);
  if (z_out)
    *z_out = z;
  return erfc(fabs(z) / sqrt(2.0));
}

const char *stats_class_name(enum stats_class c)
{
  static const char *const names[] = {"same", "faster", "slower", "unsure"};
  return (unsigned)c < 4 ? names[c] : "?";
}

int stats_classify(const double *base, size_t nb, const double *cur, size_t nc, double min_effect,
                   double alpha, struct stats_compare *out)
{
  memset(out, 0, sizeof *out);
  out->cls = STATS_UNSURE;
  out->p = 1;
  if (stats_summarize(base, nb, &out->base) || stats_summarize(cur, nc, &out->cur))
    return -1;
  if (nb == 0 || nc == 0 || out->base.median <= 0)
    return 0;
  out->ratio = out->cur.median / out->base.median;
  out->p = stats_mann_whitney(base, nb, cur, nc, &out->z);
  if (out->p < 0)
    return -1;
  double effect = out->ratio - 1;
  int enough = nb >= STATS_MIN_SAMPLES && nc >= STATS_MIN_SAMPLES;
  int precise = out->base.noise <= min_effect / 2 && out->cur.noise <= min_effect / 2;
  if (fabs(effect) < min_effect)
    out->cls = enough && precise ? STATS_SAME : STATS_UNSURE;
  else if (enough && out->p < alpha)
    out->cls = effect > 0 ? STATS_SLOWER : STATS_FASTER;
  else
    out->cls = STATS_UNSURE;
  return 0;
}
