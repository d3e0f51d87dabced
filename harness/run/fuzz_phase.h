/* The fuzzing phase of `run` and `fuzz`: every selected variant within one budget, on the GPUs
 * given (one lane process each, fuzz_lanes.h) or, without --gpus, in this process on the one
 * visible GPU. Both share the budget by one rule (fuzz_budget_share): a variant handed out with m
 * variants (itself included) still to come gets the largest share with which those m fit in
 * what is left on the lanes; in this process there is one lane, free when the variant starts, so
 * the share is what is left over m. What is left is first cut, for each of the m, by the mean
 * overrun of the variants finished (fuzz_budget_reserve), so that variants drawing slow limit
 * cases late in their shares do not eat the last variants' shares. A variant that skips at once (a
 * GPU variant without a GPU) takes no share. The historical variants go first (runner_order); the
 * outcomes stay in selection order and are stored as they finish (in this process) or after the
 * phase (lanes). */
#ifndef GR_FUZZ_PHASE_H
#define GR_FUZZ_PHASE_H

#include <stddef.h>
#include <stdint.h>

#include "gpus.h"
#include "runner.h"
#include "store.h"

#ifdef __cplusplus
extern "C" {
#endif

struct night_progress;
struct fuzz_phase {
  const char *db;                         /* what each lane opens */
  struct store *st;                       /* this process's connection */
  int64_t run;                            /* the run the outcomes belong to */
  const struct runner_opts *o;            /* the template of every variant's runner options */
  const struct gr_algorithm *const *algs; /* [n] */
  const struct gr_variant *const *vs;     /* [n] */
  size_t n;
  const struct case_limits *limits; /* [n] (an entry with n == 0: none), or NULL */
  const struct gpu_set *gpus;       /* the lanes; n == 0: this process, the visible GPU */
  int gpu_ok;                       /* a usable GPU is here (else the GPU variants skip) */
  double budget;                    /* seconds for the whole phase */
  struct night_progress *progress;  /* the night's progress (progress.h), or NULL */
};

/* Fuzz the n variants into out[0..n). Returns how many outcomes out[0..k) holds, in selection
 * order: n, or fewer when interrupted or when storing one failed (*store_failed set: nothing
 * more is stored); -1 with why when no lane could start. */
long fuzz_phase_run(const struct fuzz_phase *fp, struct outcome *out, int *store_failed, char *why,
                    size_t len);

/* Store the outcomes (and their coverage counts) and commit. 0 ok; -1 the store failed
 * (store_errmsg says why). */
int store_outcomes(struct store *st, int64_t run, const struct outcome *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
