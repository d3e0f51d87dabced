/* What verdict.c, verdict_open.c and verdict_md.c share; no other file includes this. */
#ifndef GR_VERDICT_PRIVATE_H
#define GR_VERDICT_PRIVATE_H

#include "verdict.h"

/* A zeroed test appended to v; NULL out of memory. */
struct rv_test *rv_add_test(struct run_verdict *v, const char *suite, const char *kind,
                            const char *source, const char *verdict, enum rv_state state,
                            double seconds);
/* Set *dst to a malloc'd printf result (NULL on failure to allocate). */
void rv_set_text(char **dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The open regressions of v's run over the nights (the rules in verdict.h): carried from the
 * latest recorded night, tonight's slower timings, history's confirmed steps; their tests added
 * to v, acknowledgements applied, the slower timings given a reproducer and a commit range.
 * 0 ok; -1 with why. */
int rv_open_build(struct store *st, struct run_verdict *v, const struct rv_opts *o, char *why,
                  size_t len);

/* "RUNNER bench 'ALG/VAR' --case 'ALG PARAMS seed=S' [--hot] --against AGAINST": runner the
 * run's (store_run.runner), "gpuregress" where it is none or not a name; AGAINST a file that
 * travels (reproducers/NAME/baseline.db, written by reproducers.c; a committed baseline), never
 * a run of the runner's database */
void rv_repro(char **dst, const char *runner, const char *alg, const char *var, const char *params,
              uint64_t seed, const char *l2, const char *against);

#endif
