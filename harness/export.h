/* Exporting a run of the store (`gpuregress export`): JSON (the run, its outcomes and timings),
 * CSV (timings), JUnit XML (one test case per (algorithm, variant), for CI systems), and a
 * one-run gpuregress database (a baseline for `compare --baseline FILE`). Rows come from the
 * store's read side (store.h). */
#ifndef GR_EXPORT_H
#define GR_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct store;

enum export_format { EXPORT_JSON, EXPORT_CSV, EXPORT_JUNIT, EXPORT_DB };

/* 0 ok, -1 unknown name */
int export_format_parse(const char *name, enum export_format *f);

/* Write run in format f to path (NULL: stdout; required for EXPORT_DB, which refuses to
 * overwrite). 0 ok; -1 with why. */
int export_run(struct store *st, int64_t run, enum export_format f, const char *path, char *why,
               size_t len);

/* Helpers shared with the dashboard: text escaped for XML/HTML and for a JSON string. */
void export_xml_escape(FILE *f, const char *s);
void export_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif
