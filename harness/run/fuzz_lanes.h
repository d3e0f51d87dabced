/* The fuzzing phase of `run --gpus`: the selected variants spread over one lane process per GPU
 * (lanes.h). A lane fuzzes one variant at a time (runner_fuzz_variant, its own store
 * connection, its own workers pinned to its GPU); when there are more GPUs than variants, a
 * variant is split into parts, each a share of its case stream (runner_opts.case_stride), and
 * its outcome is the parts' merged: counts and regimes summed, the earliest failure standing for
 * the variant with its case and its shrinking.
 *
 * The budget is shared so that every variant gets as much and the phase ends on time: a job
 * handed out with m jobs (this one included) not yet handed out gets the largest share with
 * which those m fit in what is left on the lanes, each lane free at the end of its running
 * job's share (fuzz_lanes.c). */
#ifndef GR_FUZZ_LANES_H
#define GR_FUZZ_LANES_H

#include <stddef.h>

#include "gpus.h"
#include "runner.h"

#ifdef __cplusplus
extern "C" {
#endif

struct night_progress;
struct fuzz_lanes_job {
  const char *db;                          /* the database each lane opens */
  const struct gpu_set *gpus;              /* one lane each */
  double budget;                           /* seconds for the whole phase */
  const struct case_limits *const *limits; /* per variant, NULL entries or NULL: none */
  const int *runs_here;                    /* per variant: 0 when it skips at once (no GPU) */
  struct night_progress *progress;         /* the night's progress (progress.h), or NULL */
};

/* The budget policy of every fuzzing phase (fuzz_phase.h): the largest s for which m jobs of s
 * seconds fit before `left` on lanes free after busy[0..n) seconds (n lanes; a lane takes
 * floor((left - busy) / s) of them); 0 when none fits. One lane free now: left / m. */
double fuzz_budget_share(double left, const double *busy, size_t n, size_t m);

/* What the m jobs to come may share of `left`: left less, for each of them, the mean overrun of
 * the `done` jobs finished so far (`over`: the seconds they ran past their shares, summed). A
 * variant runs past its share by its last case and its shrinking, and those that do are the ones
 * drawing cases at their limits (gpu-check, H200, stop 47: sgm's reference 4.5 s past on a case
 * of 7.4 s, radix sort's CUB, v1 and v3 3-4 s past on cases of n > 2^24); without the reserve
 * the overruns came out of the last variants' shares (sgm v4 and v5 fuzzed 1.2 and 0.4 s of a
 * 150 s phase, v5's regimes unreached). Never below 0. */
double fuzz_budget_reserve(double left, double over, size_t done, size_t m);

/* The share of the next variant of an in-process phase (one lane, free when it starts): left,
 * less the reserve, over the m variants to come (this one included); 0 when nothing is left. */
double fuzz_inproc_share(double left, double over, size_t done, size_t m);

/* Fuzz the n variants vs[i] (of algs[i]) over the lanes into out[0..n); st (the parent's connection) is closed meanwhile
 * and opened again (an SQLite connection must not cross a fork). o is the template of each
 * lane's runner options. 0 ok; -1 with why (no lane started, the store could not be opened
 * again). */
int runner_fuzz_lanes(const struct fuzz_lanes_job *fj, struct store *st,
                      const struct runner_opts *o, const struct gr_algorithm *const *algs,
                      const struct gr_variant *const *vs, size_t n, struct outcome *out, char *why,
                      size_t len);

#ifdef __cplusplus
}
#endif

#endif
