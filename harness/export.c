/* Exporting a run. See export.h. */
#include "export.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void json_value(FILE *f, sqlite3_stmt *s, int i)
{
  switch (sqlite3_column_type(s, i)) {
  case SQLITE_INTEGER: fprintf(f, "%lld", (long long)sqlite3_column_int64(s, i)); break;
  case SQLITE_FLOAT: {
    double v = sqlite3_column_double(s, i);
    if (isfinite(v))
      fprintf(f, "%.17g", v);
    else
      fputs("null", f);
    break;
  }
  case SQLITE_NULL: fputs("null", f); break;
  default: export_json_string(f, (const char *)sqlite3_column_text(s, i)); break;
  }
}

/* Rows of one query as JSON objects keyed by column name. 0 ok, -1 on a database error. */
static int json_rows(FILE *f, sqlite3 *db, const char *sql, int64_t run, int as_array,
                     const char *indent)
{
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, run);
  int n = 0, rc;
  if (as_array)
    fputc('[', f);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    fprintf(f, "%s\n%s{", n++ ? "," : "", indent);
    for (int i = 0; i < sqlite3_column_count(s); i++) {
      fprintf(f, "%s", i ? ", " : "");
      export_json_string(f, sqlite3_column_name(s, i));
      fputs(": ", f);
      json_value(f, s, i);
    }
    fputc('}', f);
  }
  if (as_array)
    fprintf(f, "%s]", n ? "\n  " : "");
  sqlite3_finalize(s);
  return rc == SQLITE_DONE ? 0 : -1;
}

static int has_timings(sqlite3 *db)
{
  sqlite3_stmt *s;
  int found = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = 'timings'", -1, &s, NULL) ==
      SQLITE_OK) {
    found = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
  }
  return found;
}

static int export_json(FILE *f, sqlite3 *db, int64_t run)
{
  fputs("{\n  \"format\": \"gpuregress-run\",\n  \"version\": 1,\n  \"run\": ", f);
  if (json_rows(f, db, "SELECT * FROM runs WHERE id = ?", run, 0, "  "))
    return -1;
  fputs(",\n  \"outcomes\": ", f);
  if (json_rows(f, db, "SELECT * FROM outcomes WHERE run_id = ? ORDER BY algorithm, variant", run,
                1, "    "))
    return -1;
  fputs(",\n  \"timings\": ", f);
  if (has_timings(db)) {
    if (json_rows(f, db, "SELECT * FROM timings WHERE run_id = ? ORDER BY id", run, 1, "    "))
      return -1;
  } else {
    fputs("[]", f);
  }
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

static int export_csv(FILE *f, sqlite3 *db, int64_t run)
{
  sqlite3_stmt *s;
  if (!has_timings(db))
    return -1;
  if (sqlite3_prepare_v2(db,
                         "SELECT run_id, algorithm, variant, kind, params, seed, l2, samples,"
                         " launches, median_ms, mean_ms, min_ms, max_ms, stddev_ms, noise, bytes,"
                         " items, gbps, items_per_s, copy_gbps, pct_copy, sm_clock_mhz, seconds,"
                         " verdict, reason FROM timings WHERE run_id = ? ORDER BY id",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, run);
  int ncol = sqlite3_column_count(s), rc;
  for (int i = 0; i < ncol; i++)
    fprintf(f, "%s%s", i ? "," : "", sqlite3_column_name(s, i));
  fputc('\n', f);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    for (int i = 0; i < ncol; i++) {
      if (i)
        fputc(',', f);
      if (sqlite3_column_type(s, i) == SQLITE_FLOAT)
        fprintf(f, "%.9g", sqlite3_column_double(s, i));
      else
        csv_field(f, (const char *)sqlite3_column_text(s, i));
    }
    fputc('\n', f);
  }
  sqlite3_finalize(s);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- JUnit -------------------------------------------------------------------------------- */

struct jcase {
  char alg[64], name[96], verdict[16], kind[16];
  char *message; /* first line */
  char *body;    /* details */
  double seconds;
};

static char *dup_text(sqlite3_stmt *s, int i)
{
  const unsigned char *t = sqlite3_column_text(s, i);
  return strdup(t ? (const char *)t : "");
}

static int jcase_fails(const struct jcase *c)
{
  return !strcmp(c->verdict, "fail") || !strcmp(c->verdict, "crash") ||
         !strcmp(c->verdict, "timeout") || !strcmp(c->verdict, "escaped");
}

static int export_junit(FILE *f, sqlite3 *db, int64_t run)
{
  struct jcase *cs = NULL;
  size_t n = 0, cap = 0;
  sqlite3_stmt *s;
  int rc = -1;
  /* outcomes of the fuzzing phase */
  if (sqlite3_prepare_v2(
          db,
          "SELECT algorithm, variant, kind, verdict, coalesce(seconds, 0), coalesce(reason, ''),"
          " 'cases: ' || cases || ', passed: ' || passed || ', failed: ' || failed || ', skipped: '"
          " || skipped || coalesce(char(10) || 'cases to catch: ' || cases_to_catch, '')"
          " || coalesce(char(10) || 'first case: ' || first_case, '')"
          " || coalesce(char(10) || 'shrunk case: ' || shrunk_case, '')"
          " || coalesce(char(10) || 'reproduce: ' || reproducer, '')"
          " FROM outcomes WHERE run_id = ? ORDER BY algorithm, variant",
          -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, run);
  for (int pass = 0; pass < 2; pass++) {
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
      if (n == cap) {
        size_t nc = cap ? 2 * cap : 32;
        struct jcase *ncs = realloc(cs, nc * sizeof *ncs);
        if (!ncs)
          goto out;
        cs = ncs;
        cap = nc;
      }
      struct jcase *c = &cs[n++];
      memset(c, 0, sizeof *c);
      gr_fmt(c->alg, sizeof c->alg, "%s", (const char *)sqlite3_column_text(s, 0));
      gr_fmt(c->name, sizeof c->name, "%s%s", (const char *)sqlite3_column_text(s, 1),
             pass ? " timing" : "");
      gr_fmt(c->kind, sizeof c->kind, "%s", (const char *)sqlite3_column_text(s, 2));
      gr_fmt(c->verdict, sizeof c->verdict, "%s", (const char *)sqlite3_column_text(s, 3));
      c->seconds = sqlite3_column_double(s, 4);
      c->message = dup_text(s, 5);
      c->body = dup_text(s, 6);
    }
    sqlite3_finalize(s);
    s = NULL;
    if (step != SQLITE_DONE)
      goto out;
    if (pass || !has_timings(db))
      break;
    /* the checks after timing, one case per (algorithm, variant): the worst verdict of its
     * sizes (a failure, else pass / caught, else skip) */
    if (sqlite3_prepare_v2(
            db,
            "SELECT algorithm, variant, kind,"
            " CASE WHEN sum(verdict IN ('fail','crash','timeout') AND kind != 'historical') > 0"
            "  THEN max(CASE WHEN verdict IN ('fail','crash','timeout') THEN verdict END)"
            "  WHEN sum(verdict IN ('pass','caught')) > 0 THEN 'pass'"
            "  WHEN sum(verdict = 'error') > 0 THEN 'error' ELSE 'skip' END,"
            " sum(coalesce(seconds, 0)),"
            " coalesce(max(CASE WHEN verdict IN ('fail','crash','timeout','error') OR"
            "  (verdict = 'skip') THEN reason END), ''),"
            " group_concat(params || ': ' || verdict || coalesce(', ' || printf('%.4f', median_ms)"
            "  || ' ms', ''), char(10))"
            " FROM timings WHERE run_id = ? GROUP BY algorithm, variant ORDER BY min(id)",
            -1, &s, NULL) != SQLITE_OK)
      goto out;
    sqlite3_bind_int64(s, 1, run);
  }
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
  if (s)
    sqlite3_finalize(s);
  for (size_t i = 0; i < n; i++) {
    free(cs[i].message);
    free(cs[i].body);
  }
  free(cs);
  return rc;
}

/* ---- baseline database -------------------------------------------------------------------- */

static int export_db(sqlite3 *db, int64_t run, const char *path, char *why, size_t len)
{
  struct store *dst;
  sqlite3_stmt *s;
  if (access(path, F_OK) == 0) {
    gr_fmt(why, len, "'%s' exists: remove it or choose another --out", path);
    return -1;
  }
  if (store_open(path, &dst, why, len)) /* creates the current schema */
    return -1;
  store_close(dst);
  if (sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS dst", -1, &s, NULL) != SQLITE_OK)
    goto fail;
  sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE)
    goto fail;
  static const char *const copies[] = {
      "INSERT INTO dst.runs SELECT * FROM main.runs WHERE id = ?1",
      "INSERT INTO dst.outcomes SELECT * FROM main.outcomes WHERE run_id = ?1",
      "INSERT INTO dst.timings SELECT * FROM main.timings WHERE run_id = ?1",
      "INSERT INTO dst.samples SELECT s.* FROM main.samples s JOIN main.timings t"
      " ON s.timing_id = t.id WHERE t.run_id = ?1",
  };
  int ok = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
  for (size_t i = 0; ok && i < sizeof copies / sizeof *copies; i++) {
    ok = sqlite3_prepare_v2(db, copies[i], -1, &s, NULL) == SQLITE_OK;
    if (ok) {
      sqlite3_bind_int64(s, 1, run);
      ok = sqlite3_step(s) == SQLITE_DONE;
      sqlite3_finalize(s);
    }
  }
  if (ok)
    ok = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
  if (!ok) {
    gr_fmt(why, len, "cannot copy run %lld into '%s': %s", (long long)run, path, sqlite3_errmsg(db));
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  }
  sqlite3_exec(db, "DETACH DATABASE dst", NULL, NULL, NULL);
  return ok ? 0 : -1;
fail:
  gr_fmt(why, len, "cannot open '%s': %s", path, sqlite3_errmsg(db));
  return -1;
}

int export_run(sqlite3 *db, int64_t run, enum export_format fmt, const char *path, char *why,
               size_t len)
{
  if (fmt == EXPORT_DB)
    return export_db(db, run, path, why, len);
  FILE *f = path ? fopen(path, "w") : stdout;
  if (!f) {
    gr_fmt(why, len, "cannot write '%s': %m", path);
    return -1;
  }
  int rc = fmt == EXPORT_JSON ? export_json(f, db, run)
           : fmt == EXPORT_CSV ? export_csv(f, db, run)
                               : export_junit(f, db, run);
  if (rc)
    gr_fmt(why, len, "cannot read run %lld: %s", (long long)run, sqlite3_errmsg(db));
  if (path && fclose(f) && !rc) {
    gr_fmt(why, len, "cannot write '%s': %m", path);
    rc = -1;
  }
  return rc;
}
