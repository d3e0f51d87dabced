/* Exporting a run. See export.h. */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"
#include "store.h"

int export_format_parse(const char *name, enum export_format *f)
{
  static const char *const names[] = {"json", "csv", "junit", "db"};
  for (int i = 0; i < 4; i++)
    if (strcmp(name, names[i]) == 0) {
      *f = (enum export_format)i;
      return 0;
    }
  return -1;
}

void export_xml_escape(FILE *f, const char *s)
{
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    switch (c) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default:
      if (c < 0x20 && c != '\n' && c != '\t')
        fputc(' ', f); /* not allowed in XML 1.0 */
      else
        fputc(c, f);
    }
  }
}

void export_json_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", f);
    else if (c == '\t')
      fputs("\\t", f);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
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
  default: export_json_string(f, v->s); break;
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
    export_json_string(j->f, cols[i].name);
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

static int export_json(FILE *f, struct store *st, int64_t run)
{
  fputs("{\n  \"format\": \"gpuregress-run\",\n  \"version\": 1,\n  \"run\": ", f);
  if (json_rows(f, st, STORE_TABLE_RUN, run, 0, "  "))
    return -1;
  fputs(",\n  \"outcomes\": ", f);
  if (json_rows(f, st, STORE_TABLE_OUTCOMES, run, 1, "    "))
    return -1;
  fputs(",\n  \"timings\": ", f);
  if (json_rows(f, st, STORE_TABLE_TIMINGS, run, 1, "    "))
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
    "items_per_s", "copy_gbps", "pct_copy", "sm_clock_mhz", "seconds", "verdict", "reason"};
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

/* ---- JUnit -------------------------------------------------------------------------------- */

struct jcase {
  char alg[64], name[96], verdict[16], kind[16];
  char *message; /* first line */
  char *body;    /* details */
  double seconds;
};

static int jcase_fails(const struct jcase *c)
{
  return !strcmp(c->verdict, "fail") || !strcmp(c->verdict, "crash") ||
         !strcmp(c->verdict, "timeout") || !strcmp(c->verdict, "escaped");
}

struct jcases {
  struct jcase *cs;
  size_t n, cap;
};

static const char *nz(const char *s) { return s ? s : ""; }

/* Append a case; the message and the body are copied. NULL out of memory. */
static struct jcase *jcase_add(struct jcases *j, const char *alg, const char *name,
                               const char *suffix, const char *kind, const char *verdict,
                               double seconds, const char *message, const char *body)
{
  if (j->n == j->cap) {
    size_t nc = j->cap ? 2 * j->cap : 32;
    struct jcase *ncs = realloc(j->cs, nc * sizeof *ncs);
    if (!ncs)
      return NULL;
    j->cs = ncs;
    j->cap = nc;
  }
  struct jcase *c = &j->cs[j->n];
  memset(c, 0, sizeof *c);
  gr_fmt(c->alg, sizeof c->alg, "%s", nz(alg));
  gr_fmt(c->name, sizeof c->name, "%s%s", nz(name), suffix);
  gr_fmt(c->kind, sizeof c->kind, "%s", nz(kind));
  gr_fmt(c->verdict, sizeof c->verdict, "%s", nz(verdict));
  c->seconds = seconds;
  c->message = strdup(nz(message));
  c->body = strdup(nz(body));
  if (!c->message || !c->body) {
    free(c->message);
    free(c->body);
    return NULL;
  }
  j->n++;
  return c;
}

/* an outcome of the fuzzing phase: its counts and what reproduces its failure */
static int junit_outcome(void *ctx, const struct store_outcome *o)
{
  char body[4 * GR_CASE_TEXT_LEN + 256];
  int k = snprintf(body, sizeof body, "cases: %lld, passed: %lld, failed: %lld, skipped: %lld",
                   (long long)o->cases, (long long)o->passed, (long long)o->failed,
                   (long long)o->skipped);
  if (o->caught)
    k += snprintf(body + k, sizeof body - (size_t)k, "\ncases to catch: %lld",
                  (long long)o->cases_to_catch);
  const char *const label[] = {"first case", "shrunk case", "reproduce"};
  const char *const text[] = {o->first_case, o->shrunk_case, o->reproducer};
  for (int i = 0; i < 3; i++)
    if (text[i] && (size_t)k < sizeof body)
      k += snprintf(body + k, sizeof body - (size_t)k, "\n%s: %s", label[i], text[i]);
  return jcase_add(ctx, o->algorithm, o->variant, "", o->kind, o->verdict, o->seconds, o->reason,
                   body)
             ? 0
             : -1;
}

/* the check after timing of one (algorithm, variant) */
static int junit_check(void *ctx, const struct store_check *c)
{
  return jcase_add(ctx, c->algorithm, c->variant, " timing", c->kind, c->verdict, c->seconds,
                   c->reason, c->rows)
             ? 0
             : -1;
}

static int export_junit(FILE *f, struct store *st, int64_t run)
{
  struct jcases all = {NULL, 0, 0};
  int rc = -1;
  if (store_each_outcome(st, STORE_MAIN, run, STORE_BY_NAME, junit_outcome, &all) ||
      store_each_check(st, run, junit_check, &all))
    goto out;
  struct jcase *cs = all.cs;
  size_t n = all.n;
  /* per algorithm suites */
  size_t tests = n, failures = 0, errors = 0, skipped = 0;
  double total = 0;
  for (size_t i = 0; i < n; i++) {
    failures += jcase_fails(&cs[i]);
    errors += !strcmp(cs[i].verdict, "error");
    skipped += !strcmp(cs[i].verdict, "skip");
    total += cs[i].seconds;
  }
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(f, "<testsuites name=\"gpuregress run %lld\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
             "skipped=\"%zu\" time=\"%.3f\">\n",
          (long long)run, tests, failures, errors, skipped, total);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    size_t t = 0, fl = 0, er = 0, sk = 0;
    double secs = 0;
    while (j < n && !strcmp(cs[j].alg, cs[i].alg)) {
      t++;
      fl += jcase_fails(&cs[j]);
      er += !strcmp(cs[j].verdict, "error");
      sk += !strcmp(cs[j].verdict, "skip");
      secs += cs[j].seconds;
      j++;
    }
    fprintf(f, "  <testsuite name=\"gpuregress.");
    export_xml_escape(f, cs[i].alg);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
            t, fl, er, sk, secs);
    for (size_t k = i; k < j; k++) {
      const struct jcase *c = &cs[k];
      fprintf(f, "    <testcase classname=\"gpuregress.");
      export_xml_escape(f, c->alg);
      fprintf(f, "\" name=\"");
      export_xml_escape(f, c->name);
      fprintf(f, " (%s)\" time=\"%.3f\"", c->kind, c->seconds);
      const char *elem = jcase_fails(c)                 ? "failure"
                         : !strcmp(c->verdict, "error") ? "error"
                         : !strcmp(c->verdict, "skip")  ? "skipped"
                                                        : NULL;
      if (!elem) {
        fprintf(f, ">\n      <system-out>%s", c->verdict);
        if (c->body[0]) {
          fputc('\n', f);
          export_xml_escape(f, c->body);
        }
        fprintf(f, "</system-out>\n    </testcase>\n");
        continue;
      }
      fprintf(f, ">\n      <%s message=\"", elem);
      export_xml_escape(f, c->message[0] ? c->message : c->verdict);
      fprintf(f, "\" type=\"%s\">", c->verdict);
      export_xml_escape(f, c->body);
      fprintf(f, "</%s>\n    </testcase>\n", elem);
    }
    fprintf(f, "  </testsuite>\n");
    i = j;
  }
  fprintf(f, "</testsuites>\n");
  rc = 0;
out:
  for (size_t i = 0; i < all.n; i++) {
    free(all.cs[i].message);
    free(all.cs[i].body);
  }
  free(all.cs);
  return rc;
}

int export_run(struct store *st, int64_t run, enum export_format fmt, const char *path, char *why,
               size_t len)
{
  if (fmt == EXPORT_DB)
    return store_copy_run(st, run, path, why, len);
  FILE *f = path ? fopen(path, "w") : stdout;
  if (!f) {
    gr_fmt(why, len, "cannot write '%s': %m", path);
    return -1;
  }
  int rc = fmt == EXPORT_JSON ? export_json(f, st, run)
           : fmt == EXPORT_CSV ? export_csv(f, st, run)
                               : export_junit(f, st, run);
  if (rc)
    gr_fmt(why, len, "cannot read run %lld: %s", (long long)run, store_errmsg(st));
  int bad_write = ferror(f);
  if (path && (fclose(f) || bad_write) && !rc) {
    gr_fmt(why, len, "cannot write '%s': %m", path);
    rc = -1;
  }
  return rc;
}
