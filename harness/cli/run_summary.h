/* The summary of `run` and `fuzz` on stdout (cmd_run.c); the outcomes go to the store by
 * store_outcomes (fuzz_phase.h). */
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

#endif
