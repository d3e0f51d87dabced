/* A night's verdict: the one judgement of a run, computed once from the store (its outcomes, its
 * checks after timing, whether its GPU variants could run, whether it finished, and, when a
 * baseline is given, the comparison with it), from which every reader of the run derives what
 * it shows: the exit code of `run` and `compare`, the JUnit XML and the JSON of `export`, the
 * JSON of `compare --format json` and the dashboard's banner. No reader judges on its own.
 *
 * Rules (doc/verdict.md):
 *   - a fixed, peer or reference variant that failed, crashed or timed out fails; a historical
 *     bug that escaped fails; caught passes; skip is skipped; error (the case cannot run here) is
 *     an error;
 *   - the check after timing of each (algorithm, variant) counts the same way;
 *   - against a baseline: a timing classified slower fails with its ratio, p-value and the
 *     baseline run; unsure is skipped with the reason; same and faster pass;
 *   - GPU variants selected and none could run: "no GPU", exit 3, unless the run was started with
 *     --allow-no-gpu (then ok, shown as such, never as all green);
 *   - an interrupted run exits 130; a run whose process is gone ('killed') or still running is
 *     incomplete (exit 3), and so is a sharded night (--shard K/N) that lacks one of its shards,
 *     except in the shard's own process, which judges its part;
 *   - over the nights (unless no_history): a step to slower that `gpuregress history` confirms
 *     first on this night fails it ('history --check'); a regression stays open (recorded with
 *     each night by `compare --record`, carried to the next) until the benchmark's median is back
 *     within its minimum effect of the median before it, and an open regression fails every
 *     night unless it is acknowledged (`gpuregress ack`: then it is skipped, with who, when and
 *     why). Every slower or open row carries the commit range and a reproducer command. */
#ifndef GR_VERDICT_H
#define GR_VERDICT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare.h"
#include "store.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rv_state { RV_PASS, RV_FAIL, RV_SKIP, RV_ERROR };
const char *rv_state_name(enum rv_state s);

/* One judged item: an outcome of fuzzing, a check after timing, or a timing against the
 * baseline. */
struct rv_test {
  char suite[64];                   /* the algorithm */
  char name[GR_CASE_TEXT_LEN + 96]; /* unique in its suite */
  char kind[16];                    /* fixed, historical, peer, reference */
  const char *source;               /* "outcome", "check" or "timing" */
  char verdict[16];                 /* as stored (pass, caught, escaped, ...) or the timing class */
  enum rv_state state;
  double seconds;
  char *message; /* one line: why it failed or was skipped ("" when it passed) */
  char *body;    /* details: counts, the reproducer, the timing rows */
  int compared;  /* a timing: the fields below are set */
  double ratio, p, base_ms, cur_ms, min_effect, alpha;
  char *repro;   /* a slower or open row: the command that times it again against the baseline */
  char range[48]; /* ... and its commit range, "A..B" (git log A..B); "" unknown */
  char first_bad[160]; /* its regression's first bad commit, "SHA12 SUBJECT" (bisect --db); "" */
};

/* A regression open on this night (see the rules above). */
struct rv_open {
  struct store_open_reg reg; /* what `compare --record` stores */
  int fresh;                 /* found slower against the baseline on this night */
  int history_new;           /* a step confirmed first on this night (history --check) */
  double step_ratio, step_p; /* ... its size and p */
  int closed;                /* back within the threshold on this night: not carried on */
  int acked;                 /* covered by an acknowledgement in force (ack below) */
  struct store_ack ack;
  double min_effect;         /* the threshold it must come back within */
  char opened_date[32];
  size_t test;               /* index of its test in tests (a slower timing or its own) */
  char first_bad[160];       /* "SHA12 SUBJECT": the commit `bisect --db` named for it; "" */
};

enum rv_result { RV_RESULT_OK, RV_RESULT_FAILED, RV_RESULT_NO_GPU, RV_RESULT_INCOMPLETE };
const char *rv_result_name(enum rv_result r); /* ok, failed, no_gpu, incomplete */

struct run_verdict {
  struct store_run run;
  struct store_night_info night;   /* its night and shards (store.h): a night missing a shard is
                               * incomplete */
  struct compare_result *cmp; /* the comparison with the baseline; NULL without one */
  const char *base_file;      /* the baseline's database file, NULL: this database */
  struct rv_test *tests;
  size_t n, cap;
  size_t passed, failed, skipped, errors;
  size_t caught, escaped;          /* historical bugs */
  size_t gpu_selected, gpu_ran;    /* GPU variants (outcomes and timing checks) */
  size_t cpu_passed;               /* outcomes of CPU variants that passed */
  char no_gpu_why[GR_WHY_LEN];     /* the skip reason of a GPU variant that could not run */
  enum rv_result result;
  int no_gpu_allowed;              /* result ok although no GPU variant ran (--allow-no-gpu) */
  int exit_code;                   /* what `run` and `compare` exit with */
  char summary[1024];              /* one plain line, e.g. "no GPU: 14 GPU variants ..." */
  const char *db_path;             /* the database (for the reproducers) */
  struct rv_open *open;            /* open regressions, closed ones included (closed set) */
  size_t n_open, cap_open;
  size_t open_unacked, open_acked, closed, history_new; /* counts of open */
  int history_checked;             /* the history was looked at (not no_history) */
  char clock_warning[256];         /* the clocks of the two runs differ beyond max_clock_diff */
};

struct rv_opts {
  enum store_src base_src;
  int64_t base;                 /* the baseline run; 0: no comparison */
  const char *base_file;        /* for the record: where base_src STORE_BASE came from */
  const struct compare_opts *co; /* NULL: the defaults */
  int in_run;                   /* built by the run's own process: 'running' is not incomplete */
  int interrupted;              /* ... which was interrupted */
  int no_history;               /* judge the run alone, not over the nights (no open regressions) */
  double max_clock_diff;        /* relative clock difference that warns (0: 0.05) */
};

/* Judge run (of STORE_MAIN). 0 ok; -1 with why (the run is not there, a database error). */
int run_verdict_build(struct store *st, int64_t run, const struct rv_opts *o,
                      struct run_verdict **out, char *why, size_t len);
void run_verdict_free(struct run_verdict *v);

/* The verdict as one JSON object (the "verdict" of `export --format json`, the whole output of
 * `compare --format json`), its lines indented by indent. */
void run_verdict_json(FILE *f, const struct run_verdict *v, const char *indent);

/* The verdict as Markdown for a pull request comment or $GITHUB_STEP_SUMMARY: the verdict
 * first, then the failures (regressions with ratio, p, commits and a reproducer), the open
 * regressions, and the rest folded in <details>. */
void run_verdict_markdown(FILE *f, const struct run_verdict *v);

/* The regressions to record with the night (open, not closed), into a malloc'd array. Returns
 * how many; -1 out of memory. */
long run_verdict_open_regs(const struct run_verdict *v, struct store_open_reg **out);

/* The verdict as JUnit XML of the Jenkins junit-10 shape (ci/junit-10.xsd): one testsuite per
 * algorithm with the run's properties (seed, GPU, driver, runtime, commit, clocks). */
void run_verdict_junit(FILE *f, const struct run_verdict *v);

#ifdef __cplusplus
}
#endif

#endif
