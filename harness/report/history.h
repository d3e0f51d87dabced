/* Change detection over the history of each benchmark (`gpuregress history`, the dashboard's
 * trends): a benchmark is one (algorithm, variant, params, seed, L2 mode, GPU model); its history
 * is the median time of each night (a finished run that timed it), oldest first, read from the
 * stored timing summaries (so it survives `gpuregress prune`, which drops raw samples).
 *
 * The method, a penalised step fit confirmed by a windowed t-test:
 *  1. y = log(median) per night, smoothed by a running median of 3 (a single odd night, such as
 *     a throttled GPU, does not make a step; a lasting step keeps its night);
 *  2. sigma, the night-to-night noise: stats_night_noise of y (the root mean square of the
 *     smallest 90% of |y[i] - y[i-1]|, unbiased for Gaussian noise, / sqrt 2: robust to a few
 *     steps and odd nights, and not blind to a benchmark that switches between two levels on
 *     fewer than half the nights, as a median of the differences is), at least 0.001;
 *  3. the segmentation minimising  sum over segments of sum (y - segment mean)^2 / sigma^2
 *     + penalty * log(n) per change point (optimal partitioning, exact dynamic programming
 *     with functional pruning: O(n log n) in practice, not the O(n^2) of the plain recursion;
 *     history_fit), segments of 2 nights at least;
 *  4. each change point is confirmed or dropped: up to `window` nights of its segment before and
 *     after must number `min_nights` each, the medians of their (unsmoothed) values must differ
 *     by the algorithm's minimum effect (|after / before - 1| >= min_effect), and Welch's t-test
 *     between the two windows (unsmoothed values: the running median makes neighbours alike and
 *     the test too sure) must give p < alpha; dropped change points merge
 *     their segments and the rest are tested again until none is dropped. (A rank test cannot
 *     confirm a step from 3 + 4 nights: its smallest p is 0.057; the minimum effect is what keeps
 *     noise out, the test keeps out a level that wanders.)
 * A confirmed change point names the last night before and the first night after: the commits
 * between them hold the cause (`git log BEFORE..AFTER`). A change is "new" on the latest night
 * of its benchmark when the history without that night does not confirm it: what the night's
 * verdict fails on (`gpuregress history --check`). */
#ifndef GR_HISTORY_H
#define GR_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "store.h"

#ifdef __cplusplus
extern "C" {
#endif

struct history_opts {
  struct compare_opts co; /* minimum effect and alpha, per algorithm (defaults 0.05, 0.05) */
  double penalty;         /* per change point, times log(nights), in units of sigma^2 (3) */
  int min_nights;         /* nights each side of a confirmed change (3; 2 at least) */
  int window;             /* nights each side compared by the confirming t-test (10) */
};
void history_opts_default(struct history_opts *o);

struct history_change {
  size_t at;                  /* index of the first night after the change (at >= 1) */
  double before_ms, after_ms; /* medians of the windows */
  double ratio;               /* after / before */
  double p;                   /* Welch's t-test, two-sided, between the windows */
  int n_before, n_after;
  int is_new; /* not confirmed without the series' latest night */
};

/* Two-sided p-value of Welch's t-test between x[0..nx) and y[0..ny) (each >= 2 values). */
double history_welch(const double *x, size_t nx, const double *y, size_t ny);

/* The penalised step fit of step 3 of f[0..n): the segmentation of least sum of squares within
 * the segments / sigma^2 + beta per change point, segments of 2 nights at least (exact optimal
 * partitioning, with functional pruning: O(n log n) in practice, n log n ~ the work counted). The
 * first night of each segment after the first into cut[0..n), ascending; returns their number,
 * -1 out of memory. *work (NULL: not counted) adds the candidates and pieces visited. */
int history_fit(const double *f, size_t n, double sigma, double beta, size_t *cut,
                size_t *work);

/* Confirmed change points of the nightly medians ms[0..n) (all > 0), oldest first, into
 * out[0..max). Returns how many, -1 out of memory. */
int history_detect(const double *ms, size_t n, double min_effect, double alpha,
                   const struct history_opts *o, struct history_change *out, size_t max);

struct history_night {
  int64_t run;
  char started[32], commit[64];
  double median_ms, min_ms, max_ms, noise;
};

struct history_series {
  char algorithm[64], variant[64], kind[16], l2[8], gpu[128];
  char params[GR_CASE_TEXT_LEN];
  uint64_t seed;
  const struct history_night *nights; /* oldest first */
  size_t n;
  const struct history_change *changes; /* confirmed, oldest first */
  size_t n_changes;
  double min_effect, alpha; /* what was applied */
};
/* fn returns 0 to go on; anything else stops the scan and is returned. */
typedef int (*history_fn)(void *ctx, const struct history_series *s);

/* Every benchmark of algorithm alg (NULL any) and variant var (NULL any) over the nights
 * started at or after since (NULL: all) and not after run until (0: the latest), with its
 * change points. 0 ok; -1 with why (a database error, out of memory); else what fn returned. */
int history_scan(struct store *st, const char *since, int64_t until, const char *alg,
                 const char *var, const struct history_opts *o, history_fn fn, void *ctx, char *why,
                 size_t len);

#ifdef __cplusplus
}
#endif

#endif
