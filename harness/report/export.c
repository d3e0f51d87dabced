/* Exporting a run. See export.h. */
#include "export.h"
#include "outfile.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "escape.h"
#include "gr.h"
#include "store.h"
#include "verdict.h"

int export_format_parse(const char *name, enum export_format *f)
{
  static const char *const names[] = {"json", "csv", "junit", "db", "gbench"};
  for (int i = 0; i < 5; i++)
    if (strcmp(name, names[i]) == 0) {
      *f = (enum export_format)i;
      return 0;
    }
  return -1;
}

static void json_value(FILE *f, const struct store_value *v)
{
  switch (v->type) {
  case STORE_INT: fprintf(f, "%lld", (long long)v->i); break;
  case STORE_REAL:
    if (isfinite(v->d))
      fprintf(f, "%.17g", v->d);
    else
      fputs("null", f);
    break;
  case STORE_NULL: fputs("null", f); break;
  default: gr_json_string(f, v->s); break;
  }
}

struct json_ctx {
  FILE *f;
  const char *indent;
  int n;
};

/* One row as a JSON object keyed by column name. */
static int json_row(void *ctx, const struct store_value *cols, int ncols)
{
  struct json_ctx *j = ctx;
  fprintf(j->f, "%s\n%s{", j->n++ ? "," : "", j->indent);
  for (int i = 0; i < ncols; i++) {
    fprintf(j->f, "%s", i ? ", " : "");
    gr_json_string(j->f, cols[i].name);
    fputs(": ", j->f);
    json_value(j->f, &cols[i]);
  }
  fputc('}', j->f);
  return 0;
}

/* The rows of table t of run as JSON objects (as_array: in a JSON array). 0 ok, -1 on a
 * database error. */
static int json_rows(FILE *f, struct store *st, enum store_table t, int64_t run, int as_array,
                     const char *indent)
{
  struct json_ctx j = {f, indent, 0};
  if (as_array)
    fputc('[', f);
  int rc = store_each_row(st, t, run, json_row, &j);
  if (as_array)
    fprintf(f, "%s]", j.n ? "\n  " : "");
  return rc;
}

static int export_json(FILE *f, struct store *st, int64_t run, const struct run_verdict *v)
{
  fputs("{\n  \"format\": \"gpuregress-run\",\n  \"version\": 2,\n  \"verdict\": ", f);
  run_verdict_json(f, v, "  ");
  fputs(",\n  \"run\": ", f);
  if (json_rows(f, st, STORE_TABLE_RUN, run, 0, "  "))
    return -1;
  fputs(",\n  \"outcomes\": ", f);
  if (json_rows(f, st, STORE_TABLE_OUTCOMES, run, 1, "    "))
    return -1;
  fputs(",\n  \"timings\": ", f);
  if (json_rows(f, st, STORE_TABLE_TIMINGS, run, 1, "    "))
    return -1;
  fputs(",\n  \"accuracy\": ", f);
  if (json_rows(f, st, STORE_TABLE_ACCURACY, run, 1, "    "))
    return -1;
  fputs("\n}\n", f);
  return 0;
}

static void csv_field(FILE *f, const char *s)
{
  if (!s)
    return;
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The CSV columns, in order: timings columns by name */
static const char *const csv_columns[] = {
    "run_id", "algorithm", "variant", "kind", "params", "seed", "l2", "samples", "launches",
    "median_ms", "mean_ms", "min_ms", "max_ms", "stddev_ms", "noise", "bytes", "items", "gbps",
    "items_per_s", "copy_gbps", "pct_copy", "sm_clock_mhz", "seconds", "verdict", "reason",
    "item_unit", "peak_items_per_s", "pct_peak"};
#define N_CSV ((int)(sizeof csv_columns / sizeof *csv_columns))

static int csv_row(void *ctx, const struct store_value *cols, int ncols)
{
  FILE *f = ctx;
  for (int i = 0; i < N_CSV; i++) {
    if (i)
      fputc(',', f);
    const struct store_value *v = NULL;
    for (int k = 0; k < ncols && !v; k++)
      if (!strcmp(cols[k].name, csv_columns[i]))
        v = &cols[k];
    if (!v || v->type == STORE_NULL)
      continue;
    if (v->type == STORE_REAL)
      fprintf(f, "%.9g", v->d);
    else if (v->type == STORE_INT)
      fprintf(f, "%lld", (long long)v->i);
    else
      csv_field(f, v->s);
  }
  fputc('\n', f);
  return 0;
}

static int export_csv(FILE *f, struct store *st, int64_t run)
{
  for (int i = 0; i < N_CSV; i++)
    fprintf(f, "%s%s", i ? "," : "", csv_columns[i]);
  fputc('\n', f);
  return store_each_row(st, STORE_TABLE_TIMINGS, run, csv_row, f);
}

/* --format db: the run copied into a new database built in a private folder beside path, then
 * moved to path only where nothing is there (outfile_place_new: no link followed, no race). */
static int export_db(struct store *st, int64_t run, const char *path, char *why, size_t len)
{
  struct stat sb;
  if (lstat(path, &sb) == 0) { /* at once, before the copy; outfile_place_new decides */
    gr_fmt(why, len, "'%s' exists: remove it or choose another --out", path);
    return -1;
  }
  char dir[PATH_MAX], tmp[PATH_MAX + 16];
  if (outfile_tmpdir(dir, sizeof dir, path, why, len))
    return -1;
  gr_fmt(tmp, sizeof tmp, "%s/run.db", dir);
  int rc = store_copy_run(st, run, tmp, why, len);
  if (rc == 0)
    rc = outfile_place_new(tmp, path, why, len);
  outfile_tmpdir_remove(dir);
  return rc;
}

int export_run(struct store *st, const struct run_verdict *v, enum export_format fmt,
               const char *path, char *why, size_t len)
{
  int64_t run = v->run.id;
  if (fmt == EXPORT_DB)
    return export_db(st, run, path, why, len);
  struct outfile out;
  if (path && outfile_open(&out, path, why, len))
    return -1;
  FILE *f = path ? out.f : stdout;
  int rc = 0;
  if (fmt == EXPORT_JSON)
    rc = export_json(f, st, run, v);
  else if (fmt == EXPORT_CSV)
    rc = export_csv(f, st, run);
  else if (fmt == EXPORT_GBENCH)
    rc = export_gbench(f, st, &v->run);
  else
    run_verdict_junit(f, v);
  if (rc)
    gr_fmt(why, len, "cannot read run %lld: %s", (long long)run, store_errmsg(st));
  if (path && rc)
    outfile_abort(&out);
  else if (path)
    rc = outfile_commit(&out, why, len);
  return rc;
}
