/* Exporting a run of the store (`gpuregress export`): JSON (the run's verdict, the run, its
 * outcomes and timings), CSV (timings), JUnit XML (the verdict's tests, for CI systems:
 * verdict.h), and a one-run gpuregress database (a baseline for `compare --baseline FILE`). Rows
 * come from the store's read side (store.h). */
#ifndef GR_EXPORT_H
#define GR_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct store;
struct run_verdict;

enum export_format { EXPORT_JSON, EXPORT_CSV, EXPORT_JUNIT, EXPORT_DB };

/* 0 ok, -1 unknown name */
int export_format_parse(const char *name, enum export_format *f);

/* Write the run judged by v (run_verdict_build) in format f to path (NULL: stdout; required for
 * EXPORT_DB, which refuses to overwrite). 0 ok; -1 with why. */
int export_run(struct store *st, const struct run_verdict *v, enum export_format f,
               const char *path, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
