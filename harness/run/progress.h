/* The night's progress while `run` fuzzes (issue 38), on stderr. On a pipe (a CI log): one line
 * per finished variant with its cases, its verdict and the night's ETA, and a line after
 * PROGRESS_SILENCE_S seconds without one (a long variant), so that a log is never silent for
 * long. On a terminal: an overall bar with the ETA, kept on the line above the runner's variant
 * line (runner_opts.progress). The ETA is the fuzzing phase's end (its budget is shared so that
 * it ends on time, or every variant done) plus the timing phase's expected seconds where known.
 * The parent process only: the lanes report their outcomes to it. */
#ifndef GR_PROGRESS_H
#define GR_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#include "runner.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PROGRESS_SILENCE_S 30.0

struct night_progress {
  FILE *f;          /* NULL: no progress at all */
  int tty;          /* 1: the bar on a terminal, 0: lines */
  double t0;        /* the fuzzing phase's start (now_seconds) */
  double budget;    /* its budget in seconds (0: --cases, no deadline) */
  double bench_s;   /* the timing phase's expected seconds after it (0 none or unknown) */
  size_t total, done; /* variants (or parts of variants) */
  double last;      /* when the last line or bar was written */
  char running[160]; /* what ran at the last silence line ("" unknown) */
};

/* Start the progress of total variants over budget seconds on f (NULL: none; tty: the bar). */
void progress_begin(struct night_progress *np, FILE *f, int tty, size_t total, double budget,
                    double bench_s);
/* Variant o finished (part: "" or " (part 2 of 4)"): a line, or the bar redrawn. */
void progress_variant(struct night_progress *np, const struct outcome *o, const char *part);
/* Now running `what` (NULL: not known here) with `cases` cases so far: on a pipe, a line when
 * nothing was written for PROGRESS_SILENCE_S seconds. Cheap enough to call per case; np may be
 * NULL. */
void progress_tick(struct night_progress *np, const char *what, long cases);
/* runner_opts.tick for np (a struct night_progress): progress_tick of ALG/VARIANT. */
void progress_runner_tick(void *np, const char *alg, const char *variant, long cases);
/* The fuzzing phase is over: the bar is cleared from the terminal. */
void progress_end(struct night_progress *np);

/* The seconds of an ETA as a person reads them: "45 s", "3 min 40 s", "1 h 05 min". */
char *progress_eta(char *buf, size_t len, double seconds);

#ifdef __cplusplus
}
#endif

#endif
