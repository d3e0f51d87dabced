/* The runner: drives the variants of a run from the parent process, which never initialises CUDA.
 *
 * Each (algorithm, variant) gets a worker process (child.c) that reads case texts on a pipe and
 * answers each with a verdict line. A signal, a CUDA error (the worker exits) or a hang (the
 * parent's watchdog kills it) becomes a crash / timeout verdict naming the case that was running,
 * and the variant carries on with a fresh worker. The parent draws the cases from the seed
 * stream, writes every verdict to the store, stops a variant at its first failure, and shrinks
 * that case while it keeps failing the same way. */
#ifndef GR_RUNNER_H
#define GR_RUNNER_H

#include <stdint.h>
#include <stdio.h>

#include "alg.h"
#include "case.h"
#include "coverage.h"
#include "gr.h"
#include "store.h"
#include "worker.h"

#ifdef __cplusplus
extern "C" {
#endif

struct runner_opts {
  uint64_t seed;                    /* the case stream */
  double watchdog;                  /* seconds one case may take before it is a timeout */
  long max_cases;                   /* per variant; 0 = until the budget is spent */
  double shrink_budget;             /* seconds the shrinking of one failure may take */
  int shrink;                       /* 0: report the first failing case as it is */
  int progress;                     /* 1: a progress line on stderr (a terminal) */
  FILE *log;                        /* per-case lines once stored, or NULL */
  const struct case_limits *limits; /* fuzz ranges, or NULL */
  struct store *store;              /* NULL: nothing recorded */
  int64_t run_id;
  /* one part of a variant's case stream, for a variant spread over several GPUs: case i of this
   * part is case i * case_stride + case_offset of the stream (case_stride 0: the whole stream) */
  uint64_t case_stride, case_offset;
  /* called per case recorded (the night's progress: progress_runner_tick), or NULL */
  void (*tick)(void *ctx, const char *alg, const char *variant, long cases);
  void *tick_ctx;
};

struct outcome {
  const struct gr_algorithm *alg;
  const struct gr_variant *v;
  enum verdict verdict;
  long cases, passed, failed, skipped, errors;
  double seconds;
  long cases_to_catch;     /* cases run up to the first failure, inclusive */
  double seconds_to_catch; /* seconds from the variant's start to the first failure */
  char reason[GR_WHY_LEN]; /* skip reason or the first failure's */
  char first_case[GR_CASE_TEXT_LEN];
  char shrunk_case[GR_CASE_TEXT_LEN]; /* empty when not shrunk */
  char shrunk_reason[GR_WHY_LEN];
  long shrink_steps; /* candidates tried */
  int flaky;         /* the failure did not repeat: the reported case failed once only */
  int store_failed;  /* a commit failed: the variant stopped, its last cases are not stored */
  long flaky_runs, flaky_fails; /* runs of the reported case after its confirmation (measuring
                                   a flaky one's failure rate), and how many failed the same way */
  long repeat; /* flaky: the reproducer's --repeat, runs that fail at least once (p >= 0.999) */
  struct coverage cov;        /* fuzz cases per regime (coverage.h) */
  char uncovered[GR_WHY_LEN]; /* a fixed variant that passed: its regimes no case reached */
};

/* Fuzz one variant for up to budget seconds (or opts->max_cases cases). Cases are stored in short
 * transactions (no write transaction stays open while a case runs) and logged once stored; a
 * failed commit stops the variant with out->store_failed set. Interrupted (runner_interrupted),
 * the case that was running is dropped, not recorded: the variant is a skip ("interrupted") unless
 * it had failed already (then its first failing case stands, unshrunk or not confirmed, and is
 * not called flaky). */
void runner_fuzz_variant(const struct runner_opts *opts, const struct gr_algorithm *a,
                         const struct gr_variant *v, double budget, struct outcome *out);

/* What the case stream of a variant does before its next case, `spent` seconds into its budget
 * (runner.c says why): stop; go on; or go on past the grace, aiming at a regime that no case
 * reached and none was aimed at yet (skip: the regimes steering found no case for; aimed: those a
 * case was aimed at; bit i, regime i). */
enum fuzz_next { FUZZ_STOP, FUZZ_GO, FUZZ_GO_UNAIMED };
enum fuzz_next runner_fuzz_next(double spent, double budget, const struct coverage *cv,
                                uint32_t skip, uint32_t aimed);

/* The order in which a run fuzzes its n variants: order[k] is the k-th to run. Historical
 * variants first, then the others, each group in selection order. The budget is shared as it
 * goes (what is left over the variants still to run), and a variant overruns its share by its
 * last case and its shrinking: run last, a historical variant of a short budget was left one
 * case and "escaped". Run first, it has its full share, and a bug caught in a few cases hands
 * the rest back to the variants after it. */
void runner_order(const struct gr_variant *const *vs, size_t n, size_t *order);

/* Run one given case on one variant in a worker (repro). Returns the case verdict, also in res
 * with its reason; res->status is GR_STATUS_NO_GPU when the variant needs a GPU and there is
 * none. */
enum verdict runner_one_case(const struct runner_opts *opts, const struct gr_case *c,
                             const struct gr_variant *v, struct case_result *res);

/* Run case c on v `runs` times in one worker (a fresh one after a crash or a timeout; stopping
 * at a skip or an input error): repro --repeat. Returns how many runs failed; *ran gets the runs
 * made, *first the first failure (or, when none failed, the last result). */
long runner_repeat_case(const struct runner_opts *opts, const struct gr_case *c,
                        const struct gr_variant *v, long runs, long *ran,
                        struct case_result *first);

/* The command line that reproduces case c on variant v, run `repeat` times (0 or 1: once). */
char *runner_reproducer(const struct gr_case *c, const struct gr_variant *v, long repeat, char *buf,
                        size_t len);

/* Set by the CLI's SIGINT/SIGTERM/SIGHUP handler: the runner stops at once, killing the worker. */
extern volatile int runner_interrupted;
/* Install that handler (run, fuzz, repro): SIGINT, SIGTERM and SIGHUP set runner_interrupted. */
void runner_catch_signals(void);

#ifdef __cplusplus
}
#endif

#endif
