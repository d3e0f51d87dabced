/* The store's whole-run writes across databases: importing the runs of another gpuregress
 * database (`gpuregress import`, and the one-run baseline copy of `export --format db`);
 * retention (`gpuregress prune`) is in store_prune.c. See store.h.
 *
 * A file from elsewhere is judged before anything is written (judge_rows): every row of the
 * runs to import must arrive, or the file is refused with the run that stops it named.
 *
 * Runs carry a global identity (runs.uid, schema 3): an import adds only the runs whose uid this
 * database lacks, so importing the same file twice adds nothing. Imported rows keep their ids
 * shifted past this database's largest ones (runs by one offset, timings by another), so that
 * cases, outcomes, timings, samples and accuracy metrics follow their run without a mapping
 * table. Columns are matched by name: a database of an older schema imports what it has. */
#include "store.h"
#include "store_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The identity of a run of src that has none stored (written before schema 3): what
 * migration 3 gives such a run, from what the run recorded. */
#define LEGACY_UID                                                                                 \
  "'legacy:' || coalesce(x.host, '') || ':' || x.started_at || ':' || x.seed || ':' || x.id"

struct special {
  const char *column, *expr; /* expr NULL: the column is left to SQLite (a new rowid) */
};

/* "INSERT INTO main.T (cols) SELECT exprs FROM src.T x WHERE filter" for the columns of main.T
 * that src.T also has; specials replace a column's value (and are kept even when src lacks the
 * column). 0 ok, -1 too long or a database error. */
static int copy_sql(sqlite3 *db, const char *table, const struct special *sp, size_t nsp,
                    const char *filter, char *sql, size_t len)
{
  sqlite3_stmt *s;
  char cols[2048] = "", exprs[4096] = "";
  if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1, 'main') ORDER BY cid", -1, &s,
                         NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  while (sqlite3_step(s) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(s, 0), *expr = NULL;
    int special = 0;
    for (size_t i = 0; i < nsp; i++)
      if (!strcmp(sp[i].column, name)) {
        special = 1;
        expr = sp[i].expr;
      }
    if ((special && !expr) || (!special && !store_has_column(db, "src", table, name)))
      continue;
    size_t nc = strlen(cols), ne = strlen(exprs);
    snprintf(cols + nc, sizeof cols - nc, "%s\"%s\"", nc ? ", " : "", name);
    if (expr)
      snprintf(exprs + ne, sizeof exprs - ne, "%s%s", ne ? ", " : "", expr);
    else
      snprintf(exprs + ne, sizeof exprs - ne, "%sx.\"%s\"", ne ? ", " : "", name);
  }
  sqlite3_finalize(s);
  int n = snprintf(sql, len, "INSERT INTO main.%s (%s) SELECT %s FROM src.%s x WHERE %s", table,
                   cols, exprs, table, filter);
  return n < 0 || (size_t)n >= len || strlen(exprs) + 1 >= sizeof exprs ? -1 : 0;
}

/* Run sql with ?3 the one run (0 all), where the statement has it; rows added, -1 error. */
static int64_t exec_copy(sqlite3 *db, const char *sql, int64_t only)
{
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_bind_parameter_count(s) >= 3)
    sqlite3_bind_int64(s, 3, only);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  return rc == SQLITE_DONE ? (int64_t)sqlite3_changes64(db) : -1;
}

static int64_t max_id(sqlite3 *db, const char *sql)
{
  sqlite3_stmt *s;
  int64_t v = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_step(s) == SQLITE_ROW)
    v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

static int src_has_table(sqlite3 *db, const char *table)
{
  char sql[160];
  gr_fmt(sql, sizeof sql, "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name = '%s'",
         table);
  return max_id(db, sql) > 0;
}

/* An id that is kept as it is: above every id here, and far from the end of the integers (an id
 * near 2^63 would leave no room after it); the others are numbered after the largest. */
#define KEEP_ID "(old > (SELECT m FROM o) AND old <= 1000000000000000)"

/* The identity of a run of src (x) as SQL into uid: its uid, else LEGACY_UID over the columns
 * src has (a hand-made file may lack some). */
static void src_uid(sqlite3 *db, char *uid, size_t len)
{
  char legacy[256];
  /* LEGACY_UID over the columns src has (a hand-made file may lack some) */
  int host = store_has_column(db, "src", "runs", "host"),
      start = store_has_column(db, "src", "runs", "started_at"),
      seed = store_has_column(db, "src", "runs", "seed");
  if (host && start && seed)
    gr_fmt(legacy, sizeof legacy, "%s", LEGACY_UID);
  else
    gr_fmt(legacy, sizeof legacy,
           "'legacy:' || coalesce(%s, '') || ':' || coalesce(%s, '') || ':' || coalesce(%s, '') ||"
           " ':' || x.id", host ? "x.host" : "NULL", start ? "x.started_at" : "NULL",
           seed ? "x.seed" : "NULL");
  if (store_has_column(db, "src", "runs", "uid"))
    gr_fmt(uid, len, "coalesce(x.uid, %s)", legacy);
  else
    gr_fmt(uid, len, "%s", legacy);
}

/* The maps old id -> new id of the runs to import (those of filter) and of their timings
 * (temp.run_map, temp.timing_map, indexed). 0 ok, -1 (db's message says why). */
static int make_maps(sqlite3 *db, const char *filter, int64_t only, int timings)
{
  char sql[8192];
  sqlite3_exec(db, "DROP TABLE IF EXISTS temp.run_map; DROP TABLE IF EXISTS temp.timing_map", NULL,
               NULL, NULL);
  gr_fmt(sql, sizeof sql,
         "CREATE TEMP TABLE run_map AS WITH o(m) AS (SELECT coalesce(max(id), 0) FROM main.runs),"
         " r AS (SELECT x.id AS old FROM src.runs x WHERE %s),"
         " k(top) AS (SELECT max((SELECT m FROM o), coalesce(max(old), 0)) FROM r WHERE " KEEP_ID ")"
         " SELECT old, CASE WHEN " KEEP_ID " THEN old ELSE (SELECT top FROM k) + row_number() OVER"
         " (PARTITION BY " KEEP_ID " ORDER BY old) END AS new FROM r",
         filter);
  if (exec_copy(db, sql, only) < 0)
    return -1;
  if (timings &&
      exec_copy(db,
                "CREATE TEMP TABLE timing_map AS WITH o(m) AS (SELECT coalesce(max(id), 0) FROM"
                " main.timings), r AS (SELECT x.id AS old FROM src.timings x WHERE x.run_id IN"
                " (SELECT old FROM temp.run_map)), k(top) AS (SELECT max((SELECT m FROM o),"
                " coalesce(max(old), 0)) FROM r WHERE " KEEP_ID ") SELECT old, CASE WHEN " KEEP_ID
                " THEN old ELSE (SELECT top FROM k) + row_number() OVER (PARTITION BY " KEEP_ID
                " ORDER BY old) END AS new FROM r",
                only) < 0)
    return -1;
  /* each row copied looks its new id up: by an index, not a scan of the map (a million runs
   * took hours) */
  if (sqlite3_exec(db, "CREATE UNIQUE INDEX temp.run_map_old ON run_map(old)", NULL, NULL,
                   NULL) != SQLITE_OK ||
      (timings && sqlite3_exec(db, "CREATE UNIQUE INDEX temp.timing_map_old ON timing_map(old)",
                               NULL, NULL, NULL) != SQLITE_OK))
    return -1;
  return 0;
}

/* The runs of temp.run_map copied with their rows (cases but for a one-run copy, outcomes,
 * coverage, sanitizer verdicts, night parts, timings, samples, accuracy), counted into rep. 0
 * ok, -1 (db's message says why). */
static int copy_rows(sqlite3 *db, int64_t only, const char *uid, int timings, int64_t before,
                     struct store_import_report *rep)
{
  char sql[8192];
  /* runs */
  static const char run_new[] = "(SELECT new FROM temp.run_map WHERE old = x.run_id)";
  static const char timing_new[] = "(SELECT new FROM temp.timing_map WHERE old = x.timing_id)";
  const struct special run_sp[] = {{"id", "(SELECT new FROM temp.run_map WHERE old = x.id)"},
                                   {"uid", uid}};
  if (copy_sql(db, "runs", run_sp, 2, "x.id IN (SELECT old FROM temp.run_map)", sql, sizeof sql) ||
      (rep->runs = exec_copy(db, sql, only)) < 0)
    return -1;
  rep->runs_present = (only ? 1 : before) - rep->runs;
  /* what belongs to the runs just added */
  static const char of_new_run[] = "x.run_id IN (SELECT old FROM temp.run_map)";
  const struct special case_sp[] = {{"id", NULL}, {"run_id", run_new}};
  const struct special timing_sp[] = {{"id", "(SELECT new FROM temp.timing_map WHERE old = x.id)"},
                                      {"run_id", run_new}};
  const struct special sample_sp[] = {{"timing_id", timing_new}};
  /* a one-run copy (a baseline) leaves the cases out: its outcomes hold the failures */
  if ((!only && (copy_sql(db, "cases", case_sp, 2, of_new_run, sql, sizeof sql) ||
                 (rep->cases = exec_copy(db, sql, only)) < 0)) ||
      copy_sql(db, "outcomes", case_sp + 1, 1, of_new_run, sql, sizeof sql) ||
      (rep->outcomes = exec_copy(db, sql, only)) < 0)
    return -1;
  /* the regime counts and sanitizer verdicts of those runs, where the source has them */
  static const char *const per_run[] = {"coverage", "sanitizer", "night_parts"};
  for (size_t i = 0; i < sizeof per_run / sizeof *per_run; i++)
    if (src_has_table(db, per_run[i]) &&
        (copy_sql(db, per_run[i], case_sp + 1, 1, of_new_run, sql, sizeof sql) ||
         exec_copy(db, sql, only) < 0))
      return -1;
  if (!timings)
    return 0;
  static const char of_new_timing[] = "x.timing_id IN (SELECT old FROM temp.timing_map)";
  if (copy_sql(db, "timings", timing_sp, 2, of_new_run, sql, sizeof sql) ||
      (rep->timings = exec_copy(db, sql, only)) < 0 ||
      (src_has_table(db, "samples") &&
       (copy_sql(db, "samples", sample_sp, 1, of_new_timing, sql, sizeof sql) ||
        (rep->samples = exec_copy(db, sql, only)) < 0)))
    return -1;
  /* accuracy metrics of the timings (schema 7), when src has them */
  if (src_has_table(db, "accuracy") &&
      (copy_sql(db, "accuracy", sample_sp, 1, of_new_timing, sql, sizeof sql) ||
       exec_copy(db, sql, only) < 0))
    return -1;
  return 0;
}

/* Copy the runs of the database attached as src (one run when only > 0, else every run that is
 * not still running) that db lacks, with their rows. Ids: a run (and a timing) keeps its id
 * where it is above every id here; the others (taken, zero, negative) get new ones after the
 * largest, and every row follows its run through the map (temp.run_map, temp.timing_map): no
 * row is dropped for its id. 0 ok; -1 (db's message says why); -2 refused (why says why). */
static int import_attached(sqlite3 *db, int64_t only, struct store_import_report *rep, char *why,
                           size_t len)
{
  char uid[512], filter[1024];
  src_uid(db, uid, sizeof uid);
  int timings = src_has_table(db, "timings");
  int64_t before = max_id(db, "SELECT count(*) FROM src.runs x WHERE x.status != 'running'");
  gr_fmt(filter, sizeof filter,
         "(?3 = 0 AND x.status != 'running' OR x.id = ?3) AND %s NOT IN"
         " (SELECT uid FROM main.runs WHERE uid IS NOT NULL) AND %s NOT IN"
         " (SELECT uid FROM main.night_parts)", /* a shard folded into its night already */
         uid, uid);
  int j = store_judge_import(db, filter, only, why, len);
  if (j == -1)
    return -2;
  if (j < 0)
    return -1;
  if (make_maps(db, filter, only, timings))
    return -1;
  return copy_rows(db, only, uid, timings, before, rep);
}

/* Attach path as src to db, import, detach. 0 ok; -1 with why. */
static int import_file(sqlite3 *db, const char *path, int64_t only, struct store_import_report *rep,
                       char *why, size_t len)
{
  sqlite3_stmt *s;
  struct stat sb;
  memset(rep, 0, sizeof *rep);
  if (stat(path, &sb) != 0 || access(path, R_OK) != 0) {
    gr_fmt(why, len, "cannot read '%s': no such file or not readable", path);
    return -1;
  }
  if (!S_ISREG(sb.st_mode)) {
    gr_fmt(why, len, "cannot import '%s': not a regular file", path);
    return -1;
  }
  sqlite3_create_function(db, "gr_name_ok", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                          store_sql_name_ok, NULL, NULL);
  char msg[GR_WHY_LEN];
  /* a WAL source with committed frames in its -wal: no checkpoint when it is detached (the
   * last connection to close a WAL database folds the -wal into it), its bytes stay as they
   * were */
  int keep_wal = store_wal_bytes(path) > 0;
  if (store_attach(db, path, "src", msg, sizeof msg)) {
    gr_fmt(why, len, "cannot open '%s': %s", path, msg);
    return -1;
  }
  int ok = 0, rc = -1, bad;
  int64_t v = 0, objects = 0;
  int64_t roff = max_id(db, "SELECT coalesce(max(id), 0) FROM main.runs");
  /* PRAGMA src.user_version: the table-valued pragma_user_version reads main's */
  if (sqlite3_prepare_v2(db, "PRAGMA src.user_version", -1, &s, NULL) == SQLITE_OK) {
    ok = sqlite3_step(s) == SQLITE_ROW;
    v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  if (ok && sqlite3_prepare_v2(db, "SELECT count(*) FROM src.sqlite_master", -1, &s, NULL) ==
                SQLITE_OK) {
    ok = sqlite3_step(s) == SQLITE_ROW;
    objects = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  if (!ok) {
    gr_fmt(why, len, "cannot read '%s': %s", path, store_db_msg(db, msg, sizeof msg));
  } else if (v > store_schema_version()) {
    gr_fmt(
        why, len,
        "'%s' has schema version %lld, newer than this build of gpuregress (%d): use a newer build",
        path, (long long)v, store_schema_version());
  } else if (v <= 0) {
    gr_fmt(why, len, "'%s' is not a gpuregress database (%s): nothing imported", path,
           v < 0 ? "a schema version gpuregress never writes" : objects ? "no schema version of ours"
                                                                        : "empty");
  } else if (store_judge_tables(db, "src", 0, msg, sizeof msg)) {
    gr_fmt(why, len, "'%s' refused, nothing imported: %s", path, msg);
  } else if (!store_has_column(db, "src", "runs", "id") ||
             !store_has_column(db, "src", "outcomes", "run_id")) {
    gr_fmt(why, len, "'%s' is not a gpuregress database (no runs table)", path);
  } else if (store_quick_check(db, "src", msg, sizeof msg)) {
    gr_fmt(why, len, "cannot import '%s': %s", path, msg);
  } else if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
    gr_fmt(why, len, "cannot write: %s", store_db_msg(db, msg, sizeof msg));
  } else if ((bad = import_attached(db, only, rep, msg, sizeof msg)) != 0 ||
             /* the shards of a night become the night's one run (store_night.c): the runs just
              * added all have ids above the largest before */
             (!only && store_fold_nights(db, roff, &rep->folded, &rep->apart)) ||
             sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    if (bad == -2)
      gr_fmt(why, len, "'%s' refused, nothing imported: %s", path, msg);
    else
      gr_fmt(why, len, "cannot import '%s': %s", path, store_db_msg(db, msg, sizeof msg));
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    memset(rep, 0, sizeof *rep);
  } else {
    rc = 0;
  }
  sqlite3_exec(db, "DROP TABLE IF EXISTS temp.run_map; DROP TABLE IF EXISTS temp.timing_map", NULL,
               NULL, NULL);
  if (keep_wal)
    sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
  sqlite3_exec(db, "DETACH DATABASE src", NULL, NULL, NULL);
  if (keep_wal)
    sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
  return rc;
}

int store_import(struct store *st, const char *path, struct store_import_report *rep, char *why,
                 size_t len)
{
  struct stat a, b;
  if (stat(path, &a) == 0 && stat(st->path, &b) == 0 && a.st_dev == b.st_dev &&
      a.st_ino == b.st_ino) {
    gr_fmt(why, len, "'%s' is the database itself: nothing to import", path);
    return -1;
  }
  if (store_commit(st)) {
    gr_fmt(why, len, "cannot write: %s", store_errmsg(st));
    return -1;
  }
  return import_file(st->db, path, 0, rep, why, len);
}

int store_copy_run(struct store *st, int64_t run, const char *path, char *why, size_t len)
{
  struct store *dst;
  struct store_import_report rep;
  if (access(path, F_OK) == 0) {
    gr_fmt(why, len, "'%s' exists: remove it or choose another --out", path);
    return -1;
  }
  if (store_open(path, &dst, why, len)) /* creates the current schema */
    return -1;
  /* the copy is written by the new file's connection: st may be read-only; an empty database
   * keeps the run's id (an id above every id here is kept) */
  int rc = import_file(dst->db, st->path, run, &rep, why, len);
  if (rc == 0 && rep.runs != 1) {
    gr_fmt(why, len, "cannot copy run %lld into '%s': not found", (long long)run, path);
    rc = -1;
  }
  store_close(dst);
  return rc;
}

/* What of a copied run stays for one benchmark: its timing row(s) with their samples and
 * accuracy metrics, the run row; nothing else of the run (cases, outcomes, coverage, ...). */
static const char *const keep_one_timing[] = {
    "DELETE FROM samples WHERE timing_id NOT IN (SELECT id FROM timings WHERE algorithm = ?1 AND"
    " variant = ?2 AND params = ?3 AND l2 = ?4)",
    "DELETE FROM accuracy WHERE timing_id NOT IN (SELECT id FROM timings WHERE algorithm = ?1 AND"
    " variant = ?2 AND params = ?3 AND l2 = ?4)",
    "DELETE FROM timings WHERE NOT (algorithm = ?1 AND variant = ?2 AND params = ?3 AND l2 = ?4)",
    "DELETE FROM cases", "DELETE FROM outcomes", "DELETE FROM coverage", "DELETE FROM sanitizer",
    "DELETE FROM night_parts", "DELETE FROM open_regressions", "DELETE FROM acks",
};

int store_copy_timing(struct store *st, int64_t run, const char *algorithm, const char *variant,
                      const char *params, const char *l2, const char *path, char *why, size_t len)
{
  if (store_copy_run(st, run, path, why, len))
    return -1;
  struct store *dst;
  if (store_open(path, &dst, why, len))
    return -1;
  int rc = store_commit(dst) || sqlite3_exec(dst->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK;
  for (size_t i = 0; !rc && i < sizeof keep_one_timing / sizeof *keep_one_timing; i++) {
    sqlite3_stmt *s;
    rc = sqlite3_prepare_v2(dst->db, keep_one_timing[i], -1, &s, NULL) != SQLITE_OK;
    if (rc)
      break;
    const char *const v[] = {algorithm, variant, params, l2};
    for (int k = 0; k < sqlite3_bind_parameter_count(s) && k < 4; k++)
      sqlite3_bind_text(s, k + 1, v[k], -1, SQLITE_STATIC);
    rc = sqlite3_step(s) != SQLITE_DONE;
    sqlite3_finalize(s);
  }
  if (!rc)
    rc = sqlite3_exec(dst->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK ||
         sqlite3_exec(dst->db, "VACUUM", NULL, NULL, NULL) != SQLITE_OK;
  if (rc) {
    char shown[256];
    gr_fmt(why, len, "cannot reduce '%s' to one benchmark: %s", path,
           gr_printable(shown, sizeof shown, sqlite3_errmsg(dst->db)));
    sqlite3_exec(dst->db, "ROLLBACK", NULL, NULL, NULL);
  }
  store_close(dst);
  return rc ? -1 : 0;
}
