/* Statistics of timing samples: summaries (median, mean, spread, the relative noise of the
 * median), the Mann-Whitney U rank test (normal approximation with tie correction) and the
 * same / faster / slower / unsure classification `gpuregress compare` applies to two sets of
 * samples of one (algorithm, variant, params). Plain C, no GPU: unit-tested in tests/test_stats.c. */
#ifndef GR_STATS_H
#define GR_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct stats_summary {
  size_t n;
  double median, mean, min, max, stddev; /* stddev: sample (n - 1) */
  double mad;   /* median absolute deviation (raw, not scaled) */
  double noise; /* relative standard error of the median: 1.2533 * 1.4826 * mad / sqrt(n) / median */
};

/* Summarise x[0..n) (n may be 0: all fields 0). x is not modified. 0 ok, -1 out of memory. */
int stats_summarize(const double *x, size_t n, struct stats_summary *s);

/* Median of x[0..n), sorting x in place. 0 when n == 0. */
double stats_median_inplace(double *x, size_t n);

/* The noise of a nightly series y[0..n) (logs of the nights' medians, in order): the standard
 * deviation of one night about its level, from the successive differences: the root mean square
 * of the smallest 90% of |y[i] - y[i-1]| (the largest tenth, rounded down, left out: the steps
 * and single odd nights), scaled to be unbiased for Gaussian noise, divided by sqrt 2. Not a
 * median: a benchmark that falls each night into one of two levels a few % apart (a GPU
 * context's per-process mode) has |differences| of about 0 and of the gap in some proportion, and
 * their median is 0 as soon as fewer than half the nights switch; the mean square sees the gap.
 * d: scratch of n - 1. 0 when n < 2. */
double stats_night_noise(const double *y, size_t n, double *d);

/* Two-sided p-value of the Mann-Whitney U test that a and b come from the same distribution
 * (normal approximation with tie correction and continuity correction). 1 when either side is
 * empty or every value ties. *z_out (may be NULL) gets z, positive when b tends to be larger.
 * -1 on out of memory, else the p-value. */
double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *z_out);

enum stats_class {
  STATS_SAME,
  STATS_FASTER,
  STATS_SLOWER,
  STATS_UNSURE,
};
const char *stats_class_name(enum stats_class c);

struct stats_compare {
  enum stats_class cls;
  double ratio; /* median(new) / median(base) */
  double p;     /* Mann-Whitney two-sided p-value */
  double z;
  struct stats_summary base, cur;
};

#define STATS_MIN_SAMPLES 5 /* fewer on either side: unsure (or same within the effect) */

/* Classify new timings `cur` against `base` (both times, smaller is better):
 *   |ratio - 1| <  min_effect, and both medians known to within min_effect / 2   -> same
 *   |ratio - 1| >= min_effect, p < alpha, at least STATS_MIN_SAMPLES per side    -> slower/faster
 *   otherwise (a large apparent effect that is not significant, or too few or too noisy
 *   samples to tell)                                                            -> unsure
 * 0 ok, -1 out of memory. */
int stats_classify(const double *base, size_t nb, const double *cur, size_t nc, double min_effect,
                   double alpha, struct stats_compare *out);

#ifdef __cplusplus
}
#endif

#endif
