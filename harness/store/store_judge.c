/* The rows of a database to import, judged before anything is written (store_judge_import):
 * every row of the runs to import must arrive as it is, or the file is refused with the run
 * that stops it named. Files from elsewhere otherwise: store_trust.c. See store_private.h and
 * doc/untrusted.md. */
#include "store.h"
#include "store_private.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int src_has_table(sqlite3 *db, const char *table)
{
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM src.sqlite_master WHERE type = 'table' AND name = ?1",
                         -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  int found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}

/* A stored text in a message: quoted, at most 80 characters of it (then its length) */
#define SHORT(x)                                                                                   \
  "CASE WHEN length(" x ") > 80 THEN quote(substr(" x ", 1, 80)) || '... (' || length(" x ") ||"   \
  " ' characters)' ELSE quote(" x ") END"

/* The tables of a run's rows: per run (run_id), per timing (timing_id); what names they hold. */
static const struct {
  const char *table, *owner; /* owner: the column naming the run or the timing */
  int names;                 /* has algorithm and variant (and kind when the table has it) */
} row_tables[] = {
    {"cases", "run_id", 1},       {"outcomes", "run_id", 1}, {"coverage", "run_id", 1},
    {"sanitizer", "run_id", 1},   {"timings", "run_id", 1},  {"samples", "timing_id", 0},
    {"accuracy", "timing_id", 0}, {"night_parts", "run_id", 0},
};
#define N_ROW_TABLES (sizeof row_tables / sizeof *row_tables)

/* SQL function gr_name_ok(x): 1 when x is text of a name gpuregress gives (gr_name_ok). */
void store_sql_name_ok(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
  (void)argc;
  const unsigned char *t =
      sqlite3_value_type(argv[0]) == SQLITE_TEXT ? sqlite3_value_text(argv[0]) : NULL;
  sqlite3_result_int(cx, t && gr_name_ok((const char *)t));
}

/* The first row of sql (an id and a text) as "LABEL ID: TEXT" (printable) in what; 0 none,
 * 1 found, -1 a database error. ?3 is bound to only where sql has it. */
static int first_bad(sqlite3 *db, const char *sql, int64_t only, const char *label, char *what,
                     size_t len)
{
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_bind_parameter_count(s) >= 3)
    sqlite3_bind_int64(s, 3, only);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    char id[64], text[300];
    gr_printable(id, sizeof id, (const char *)sqlite3_column_text(s, 0));
    gr_printable(text, sizeof text, (const char *)sqlite3_column_text(s, 1));
    gr_fmt(what, len, "%s %s: %s", label, id[0] ? id : "NULL", text);
  }
  sqlite3_finalize(s);
  return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* first_bad's answer as judge's: 0 none, -1 with why (what was found), -2 a database error. */
static int verdict_of(int bad, const char *what, char *why, size_t len)
{
  if (bad > 0)
    gr_fmt(why, len, "%s", what);
  return bad > 0 ? -1 : bad < 0 ? -2 : 0;
}

/* Ids of runs and timings: whole numbers, each once (any value: odd ones are renumbered). */
static int judge_ids(sqlite3 *db, int64_t only, char *why, size_t len)
{
  char sql[4096], what[GR_WHY_LEN];
  static const char *const ids[][3] = {{"runs", "id", "run"}, {"timings", "id", "timing"}};
  for (size_t i = 0; i < 2; i++) {
    if (!src_has_table(db, ids[i][0]))
      continue;
    gr_fmt(sql, sizeof sql,
           "SELECT x.%s, 'id of type ' || typeof(x.%s) FROM src.%s x WHERE typeof(x.%s) !="
           " 'integer' UNION ALL SELECT x.%s, 'id given ' || count(*) || ' times' FROM src.%s x"
           " GROUP BY x.%s HAVING count(*) > 1 LIMIT 1",
           ids[i][1], ids[i][1], ids[i][0], ids[i][1], ids[i][1], ids[i][0], ids[i][1]);
    int rc = verdict_of(first_bad(db, sql, only, ids[i][2], what, sizeof what), what, why, len);
    if (rc)
      return rc;
  }
  return 0;
}

/* The names of table t's rows in the runs imported (run_of: a row's run as SQL): algorithm,
 * variant and kind (where t has it) names gpuregress gives. */
static int judge_names(sqlite3 *db, const char *t, const char *run_of, const char *runs_filter,
                       int64_t only, char *why, size_t len)
{
  char sql[4096], what[GR_WHY_LEN];
  int kind = store_has_column(db, "src", t, "kind");
  gr_fmt(
      sql, sizeof sql,
      "SELECT %s, CASE WHEN NOT gr_name_ok(x.algorithm) THEN 'algorithm ' || " SHORT("x.algorithm")
      " WHEN NOT gr_name_ok(x.variant) THEN 'variant ' || " SHORT("x.variant") " ELSE 'kind ' ||"
      " %s END || ' in %s is not a name gpuregress gives (1 to %d of A-Z a-z 0-9 _ . + -, a"
      " letter or digit first)' FROM src.%s x WHERE %s IN (SELECT x.id FROM src.runs x"
      " WHERE %s) AND (NOT gr_name_ok(x.algorithm) OR NOT gr_name_ok(x.variant)%s) LIMIT 1",
      run_of, kind ? SHORT("x.kind") : "''", t, GR_NAME_MAX, t, run_of, runs_filter,
      kind ? " OR NOT gr_name_ok(x.kind)" : "");
  return verdict_of(first_bad(db, sql, only, "run", what, sizeof what), what, why, len);
}

/* Numbers where the schema has numbers: an INTEGER or REAL column of ours in table t holds no
 * text or blob in the rows imported (run_of: a row's run as SQL). */
static int judge_numbers(sqlite3 *db, const char *t, const char *run_of, const char *runs_filter,
                         int64_t only, char *why, size_t len)
{
  char sql[4096], what[GR_WHY_LEN];
  sqlite3_stmt *c;
  if (sqlite3_prepare_v2(db, "SELECT name, upper(type) FROM pragma_table_info(?1, 'main')", -1,
                         &c, NULL) != SQLITE_OK)
    return -2;
  sqlite3_bind_text(c, 1, t, -1, SQLITE_STATIC);
  int found = 0, bad = 0;
  while (!found && sqlite3_step(c) == SQLITE_ROW) {
    const char *col = (const char *)sqlite3_column_text(c, 0),
               *type = (const char *)sqlite3_column_text(c, 1);
    if (!col || !type || (strcmp(type, "INTEGER") && strcmp(type, "REAL")) ||
        !store_has_column(db, "src", t, col))
      continue;
    gr_fmt(sql, sizeof sql,
           "SELECT %s, '%s.%s holds ' || typeof(x.\"%s\") || ' ' || quote(x.\"%s\") || ' where a"
           " number belongs' FROM src.%s x WHERE typeof(x.\"%s\") NOT IN ('integer', 'real',"
           " 'null') AND %s IN (SELECT x.id FROM src.runs x WHERE %s) LIMIT 1",
           run_of, t, col, col, col, t, col, run_of, runs_filter);
    if ((bad = first_bad(db, sql, only, "run", what, sizeof what)) != 0) {
      found = 1;
      if (bad > 0)
        gr_fmt(why, len, "%s", what);
    }
  }
  sqlite3_finalize(c);
  if (found)
    return bad < 0 ? -2 : -1;
  return 0;
}

/* Table i of row_tables: every row belongs to a run (or timing) of the file, then its names and
 * numbers in the runs imported. */
static int judge_rows(sqlite3 *db, size_t i, const char *runs_filter, int64_t only, char *why,
                      size_t len)
{
  char sql[4096], what[GR_WHY_LEN];
  const char *t = row_tables[i].table, *own = row_tables[i].owner;
  if (!src_has_table(db, t))
    return 0;
  int per_run = !strcmp(own, "run_id");
  /* rows of no run (or timing) of the file */
  gr_fmt(sql, sizeof sql,
         "SELECT x.%s, 'a row of %s belongs to no %s of the file' FROM src.%s x WHERE x.%s NOT IN"
         " (SELECT id FROM src.%s) OR x.%s IS NULL LIMIT 1",
         own, t, per_run ? "run" : "timing", t, own, per_run ? "runs" : "timings", own);
  int rc = verdict_of(first_bad(db, sql, only, per_run ? "run" : "timing", what, sizeof what),
                      what, why, len);
  if (rc)
    return rc;
  /* the run a row belongs to, for the filter and the message */
  const char *run_of =
      per_run ? "x.run_id" : "(SELECT t.run_id FROM src.timings t WHERE t.id = x.timing_id)";
  if (row_tables[i].names && (rc = judge_names(db, t, run_of, runs_filter, only, why, len)) != 0)
    return rc;
  return judge_numbers(db, t, run_of, runs_filter, only, why, len);
}

/* Refuse a file whose rows of the runs to import would not all arrive as they are: ids that are
 * not whole numbers or not unique (a row could not be told whose it is), rows of no run or no
 * timing, a name (algorithm, variant, kind) gpuregress never gives, text where a number belongs.
 * 0 ok; -1 with why (naming the run), -2 a database error. */
int store_judge_import(sqlite3 *db, const char *runs_filter, int64_t only, char *why, size_t len)
{
  int rc = judge_ids(db, only, why, len);
  for (size_t i = 0; !rc && i < N_ROW_TABLES; i++)
    rc = judge_rows(db, i, runs_filter, only, why, len);
  return rc;
}
