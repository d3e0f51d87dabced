/* `gpuregress bisect`: the first bad commit of a reproducer between a good and a bad revision of
 * the user's git repository (after git bisect run, asv find and Chromium's Pinpoint).
 *
 * Everything happens in a git worktree of its own under a temporary folder: the user's checkout
 * (its files, index, HEAD, stash, refs and refs/bisect) is never touched; refs/bisect of a linked
 * worktree are its own, and the worktree with its build folder is removed at the end, on every
 * error and on an interrupt. Each tested commit is built (default: the runner's CMake target in
 * a build folder of the worktree, ccache as the compiler launcher when it is on the PATH) and the
 * reproducer judged with the runner built there:
 *   - a correctness reproducer (a case text) by its verdict: `RUNNER repro CASE` exit 0 good,
 *     exit 1 bad (caught);
 *   - a slowdown (slower = 1) by `RUNNER bench ALG/VARIANT --case CASE --against GOOD.db`, the
 *     same statistic and minimum effect as compare, against the samples of the GOOD commit
 *     timed first on this machine; GOOD is timed again at the end, and a GOOD that moved stops
 *     the bisection (the verdicts of the steps cannot be trusted).
 * A commit that does not build, or whose runner cannot test the case (exit 2), is skipped (git
 * bisect skip, as exit 125 of git bisect run). */
#ifndef GR_BISECT_H
#define GR_BISECT_H

#include <stddef.h>

#include "alg.h" /* GR_WHY_LEN */
#include "gr.h"

#define BISECT_SHA_LEN 41
#define BISECT_SUBJECT_LEN 160

/* What a step concluded about its commit. */
enum bisect_mark {
  BISECT_GOOD,
  BISECT_BAD,
  BISECT_SKIP,
};

struct bisect_step {
  int n;                           /* 0 the GOOD check, 1 the BAD check, then 2.. the steps */
  char sha[BISECT_SHA_LEN];
  char subject[BISECT_SUBJECT_LEN];
  enum bisect_mark mark;
  double build_s;                  /* seconds of the build, of the judging */
  double judge_s;
  char detail[GR_WHY_LEN];         /* "caught", "pass", "does not build: ...", bench's line */
};

struct bisect_opts {
  const char *repo;         /* a folder inside the user's repository */
  const char *good, *bad;   /* revisions */
  const char *build_cmd;    /* NULL: the default CMake build of runner_target */
  const char *runner;       /* the runner, relative to the worktree (NULL: build/gr-bisect/<target>) */
  const char *runner_target;/* the CMake target of the default build ("gpuregress") */
  const char *case_text;    /* the reproducer */
  const char *variant;      /* NULL: every variant (repro); for a slowdown the variant timed */
  int slower;               /* 1: a slowdown reproducer */
  int allow_no_gpu;         /* passed to repro: the CPU variants judged alone */
  int max_steps;            /* at most this many bisection steps (GOOD and BAD checks apart) */
  int keep;                 /* 1: leave the temporary folder (not the worktree) for its logs */
  volatile int *interrupted;/* nonzero: stop and clean up (r->interrupted) */
  /* called after each step, for the live table */
  void (*on_step)(const struct bisect_step *s, void *arg);
  void *arg;
};

struct bisect_result {
  int found;                        /* 1: first_bad names the first bad commit */
  char first_bad[BISECT_SHA_LEN];
  char subject[BISECT_SUBJECT_LEN];
  char date[40];                    /* the author date, ISO 8601 */
  char left[GR_WHY_LEN];            /* not found: the candidates left (only skipped ones, or
                                     * --max-steps reached) */
  struct bisect_step *steps;        /* every step, in order (free with bisect_result_release) */
  size_t n_steps;
  char tmp[GR_WHY_LEN];             /* the temporary folder (kept only with opts.keep) */
  int interrupted;                  /* 1: stopped by opts.interrupted (status GR_STATUS_ENV) */
  int good_moved;                   /* 1: GOOD timed again at the end was slower (GR_STATUS_ENV) */
};

/* Bisect. Returns GR_STATUS_OK with r->found (1 named, 0 only skipped commits or --max-steps
 * left), GR_STATUS_USAGE (a revision unknown, GOOD not an ancestor of BAD, the reproducer fails
 * at GOOD or passes at BAD), GR_STATUS_ENV (not a git repository, the worktree or a build of
 * GOOD or BAD failed, the runner's environment, GOOD moved: r->good_moved, an interrupt:
 * r->interrupted); why says what. r is filled as far as it got either way; release it. */
enum gr_status bisect_run(const struct bisect_opts *o, struct bisect_result *r, char *why,
                          size_t len);
void bisect_result_release(struct bisect_result *r);
const char *bisect_mark_name(enum bisect_mark m);

#endif
