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

enum export_format { EXPORT_JSON, EXPORT_CSV, EXPORT_JUNIT, EXPORT_DB, EXPORT_GBENCH };

/* 0 ok, -1 unknown name */
int export_format_parse(const char *name, enum export_format *f);

/* Write the run judged by v (run_verdict_build) in format f to path (NULL: stdout; required for
 * EXPORT_DB, which refuses to overwrite). 0 ok; -1 with why. */
int export_run(struct store *st, const struct run_verdict *v, enum export_format f,
               const char *path, char *why, size_t len);

struct store_run;
/* Google Benchmark's JSON (json_schema_version 1) of run r (export_gbench.c): each timed
 * benchmark's stored samples as its repetitions (run_type iteration, real_time = cpu_time = the
 * sample's GPU time in nanoseconds), then its mean, median and stddev aggregates, so that
 * Google Benchmark's tools/compare.py and its U test read two exports. 0 ok; -1 on a database
 * error. */
int export_gbench(FILE *f, struct store *st, const struct store_run *r);

#ifdef __cplusplus
}
#endif

#endif
