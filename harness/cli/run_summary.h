/* The summary of `run` and `fuzz` on stdout and the outcomes in the store (cmd_run.c). */
#ifndef GR_RUN_SUMMARY_H
#define GR_RUN_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "runner.h"
#include "store.h"

/* 1 when the outcome fails the run: a historical bug escaped, another variant failed. */
int outcome_is_bad(const struct outcome *o);

/* The table of the n outcomes, the coverage per regime, then each failure with its first and
 * shrunk case and reproducer (their repro= status lines too). */
void print_summary(FILE *f, const struct outcome *out, size_t n, const struct run_meta *m,
                   uint64_t seed, int64_t run_id);

/* Store the outcomes (and their coverage counts) and commit. 0 ok; -1 the store failed
 * (store_errmsg says why). */
int store_outcomes(struct store *st, int64_t run, const struct outcome *out, size_t n);

#endif
