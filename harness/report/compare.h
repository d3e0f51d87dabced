/* Comparing two runs of the store (`gpuregress compare`, the dashboard's change table):
 * per (algorithm, variant, params, L2 mode) the stored samples of both runs are classified same /
 * faster / slower / unsure (stats_classify: Mann-Whitney U plus a minimum effect on the ratio of
 * medians, both configurable, with per-algorithm overrides), and correctness transitions are
 * found: a variant whose outcome (from `run`) or whose check after timing (from `bench`) went
 * from good (pass, caught) to bad (fail, crash, timeout; escaped for a historical bug). The
 * accuracy metrics stored with the timings (error rates, e.g. SGM's bad-pixel rates against a
 * ground truth) are compared too: a rise beyond max_accuracy_loss is an accuracy regression.
 *
 * The baseline may live in another database file (a committed baseline made with `gpuregress
 * export --format db`): store_attach_baseline makes it STORE_BASE. Everything is read through
 * the store (store.h). */
#ifndef GR_COMPARE_H
#define GR_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "stats.h"
#include "store.h"

#ifdef __cplusplus
extern "C" {
#endif

#define COMPARE_MAX_OVERRIDES 32

struct compare_opts {
  double min_effect; /* default 0.05 */
  double alpha;      /* default 0.01 */
  double max_accuracy_loss; /* rise of an accuracy metric (error rate, absolute) that is a
                               regression: default 0.005 (half a percentage point) */
  double max_clock_diff;    /* relative clock difference of two runs that warns (0: 0.05) */
  double night_sigmas;      /* a benchmark's minimum effect is at least this many times the
                             * noise of the difference of two nights' medians (sqrt 2 times
                             * its night-to-night noise) where the history has it (3; 0 off) */
  const char *confirm;      /* a folder of interleaved re-timings on this GPU (ci/nightly via
                             * ci/pr-check: base.db the last good build, head.db this one); a
                             * slowdown is red only where it holds there (NULL: none) */
  struct {
    char alg[64];
    double min_effect, alpha; /* < 0: not overridden */
  } over[COMPARE_MAX_OVERRIDES];
  size_t n_over;
};

void compare_opts_default(struct compare_opts *o);
/* Parse a --min-effect or --alpha value: "0.05" (global) or "ALG=0.1[,ALG2=...]" mixed freely.
 * which: 0 min effect, 1 alpha. 0 ok; -1 with why. */
int compare_opts_parse(struct compare_opts *o, int which, const char *text, char *why, size_t len);
double compare_min_effect(const struct compare_opts *o, const char *alg);
#define COMPARE_NOISE_NIGHTS 20
#define COMPARE_MIN_NOISE_NIGHTS 5
/* The minimum effect asked of one variant: its algorithm's, times COMPARE_HOST_BOUND_FACTOR for a
 * variant this build registers with GR_VARIANT_HOST_BOUND (a library peer whose timed launch does
 * host-side work). */
#define COMPARE_HOST_BOUND_FACTOR 4.0
double compare_min_effect_variant(const struct compare_opts *o, const char *alg, const char *variant);
double compare_alpha(const struct compare_opts *o, const char *alg);

struct compare_timing {
  char algorithm[64], variant[64], kind[16], l2[8];
  char params[GR_CASE_TEXT_LEN];
  uint64_t seed;
  int in_base, in_cur;            /* 0 on one side: new (only in cur) or gone (only in base) */
  struct stats_compare sc;        /* valid when both sides have samples */
  char base_verdict[16], cur_verdict[16];
  int regression;                 /* check after timing went from good to bad */
  double min_effect, alpha;       /* what was applied */
  /* The history before the run (finished runs of STORE_MAIN on the same GPU model): the
   * night-to-night noise of the benchmark's median, as `history` estimates it
   * (stats_night_noise of log m), over the last COMPARE_NOISE_NIGHTS nights of it; 0 with fewer
   * than COMPARE_MIN_NOISE_NIGHTS. The minimum effect applied is at least night_sigmas times
   * sqrt(2) times it (the noise of a difference of two nights): a benchmark whose median moves
   * between processes (radix_sort n=65536 on an H100: 4-5% between two modes a process falls
   * into, 0.2% within one) is not called slower or faster for a move its own history shows is
   * ordinary. */
  double night_noise;
  int nights;
  int host_nights;  /* night_noise and level_ms are from this host's own nights (1), else from
                     * the GPU model's (0): a host's offset is its own level */
  double level_ms;  /* the median of those nights' medians (0: fewer than
                     * COMPARE_MIN_NOISE_NIGHTS) */
  /* Confirmation on one machine. unconfirmed: judged slower but not red: 1 the baseline ran on
   * another host and this host has no nights of its own, 2 the interleaved re-timing did not
   * hold it. confirm_rounds: rounds of each build in opts.confirm (0 none); confirm_ratio: the
   * fastest round's median of this build over the last good build's (a round is a process: its
   * GPU context's mode is the process's, so the fastest is the kernel's). */
  int unconfirmed;
  int confirm_rounds;
  double confirm_ratio;
  int candidate; /* to re-time: judged slower, or half its minimum effect above its baseline
                  * (p < alpha) or its level */
  /* the GPU each side was timed on (schema 8; "" unknown): rows are paired by GPU model only */
  char base_gpu[128], cur_gpu[128], base_uuid[48], cur_uuid[48], base_host[128], cur_host[128];
  int other_model;  /* the two rows' GPU models differ: not compared (unsure) */
  int other_device; /* same model, another physical GPU or host: compared, and said */
};

struct compare_outcome {
  char algorithm[64], variant[64], kind[16];
  char base_verdict[16], cur_verdict[16]; /* "" when absent on that side */
  int regression;
};

/* An accuracy metric of a timed output (an error rate such as SGM's bad-pixel rate) in both
 * runs: a rise beyond max_accuracy_loss is an accuracy regression. */
struct compare_accuracy {
  char algorithm[64], variant[64], metric[32];
  char params[GR_CASE_TEXT_LEN];
  uint64_t seed;
  int in_base, in_cur;
  double base, cur;
  int regression;
};

struct compare_result {
  struct store_run base, cur;
  int base_other_gpu; /* the baseline ran on another GPU model (timings not comparable) */
  struct compare_timing *t;
  size_t n_t;
  struct compare_outcome *oc;
  size_t n_oc;
  size_t n_same, n_faster, n_slower, n_unsure, n_new, n_gone, n_regressions;
  size_t n_unconfirmed, n_confirmed; /* judged slower, not confirmed on this machine (counted
                                      * unsure); confirmed by the re-timing (counted slower) */
  size_t n_other_device, n_other_model; /* compared rows timed on another GPU or host of the
                                         * same model; rows left unsure for another model */
  struct compare_accuracy *acc;
  size_t n_acc, n_acc_regressions;
};

/* Compare run cur (of STORE_MAIN) against run base of base_src. 0 ok; -1 with why. */
int compare_runs(struct store *st, enum store_src base_src, int64_t base, int64_t cur,
                 const struct compare_opts *o, struct compare_result **out, char *why, size_t len);
void compare_result_free(struct compare_result *r);

/* ---- one machine: the host's own nights, confirmation (compare_confirm.c) ---------------- */

#define COMPARE_HOST_RUNS 64
#define COMPARE_CONFIRM_MAX_ROUNDS 64
#define COMPARE_CONFIRM_MIN_ROUNDS 3 /* rounds of each build below which nothing is judged */
#define COMPARE_CONFIRM_SHARE 0.6    /* of the minimum effect that the re-timing must hold */
/* The runs before cur on its GPU model and machine (a GPU by its UUID, a CPU by its host and
 * model: store_run_machines) that hold timings, newest first, at most
 * COMPARE_HOST_RUNS, into ids (malloc'd, the caller frees; NULL when none). Returns the count,
 * -1 on a database error. */
long compare_host_runs(struct store *st, int64_t cur, int64_t **ids);
/* The baseline of run cur: the last night of its own host before the GPU model's
 * (model_base, as store_pick_run picks it). */
int64_t compare_pick_base(struct store *st, int64_t cur, int64_t model_base);
/* Read opts.confirm's rounds for every timing of r (confirm_rounds: the fewer of the two
 * builds', confirm_ratio: the mean of the faster half of this build's round medians over the
 * last good build's). 0 ok
 * (nothing to read when opts.confirm is NULL); -1 with why. */
int compare_confirm_load(struct compare_result *r, const struct compare_opts *o, char *why,
                         size_t len);
/* Judge timing t (classified against its baseline) on one machine: a slowdown against another
 * host with no nights of this one is not confirmed; with opts.confirm, a benchmark judged slower,
 * or at least half its minimum effect above its baseline or level (t->candidate), is red only
 * where the re-timing (COMPARE_CONFIRM_MIN_ROUNDS of each build at least) holds
 * COMPARE_CONFIRM_SHARE of its minimum effect, and not red where it does not. */
void compare_confirm_row(const struct compare_result *r, struct compare_timing *t,
                         const struct compare_opts *o);

#ifdef __cplusplus
}
#endif

#endif
