/* Files from elsewhere, judged before use: what a file is before anything is written to it
 * (store_judge_schema), SQLite's defences on every connection (store_harden), a quick_check,
 * opening for reading where the file cannot be written (store_open_read: as it is, read-only,
 * immutable), and the rows of a database to import (store_judge_import). See store.h and
 * doc/untrusted.md. */
#include "store.h"
#include "store_private.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_MIGRATIONS store_schema_version()

/* See store_private.h. */
int store_has_column(sqlite3 *db, const char *schema, const char *table, const char *column)
{
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1, ?2) WHERE name = ?3", -1, &s,
                         NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, schema, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 3, column, -1, SQLITE_STATIC);
  int found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}

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

/* The tables of ours, each with the schema version that creates it (store_open.c's migrations) */
static const struct {
  const char *name;
  int since;
} our_tables[] = {
    {"runs", 1},      {"cases", 1},     {"outcomes", 1}, {"timings", 2},
    {"samples", 2},   {"coverage", 5},  {"sanitizer", 5}, {"accuracy", 7},
    {"night_parts", 8}, {"open_regressions", 9}, {"acks", 9}, {"first_bad", 11},
};
#define N_OUR_TABLES (sizeof our_tables / sizeof *our_tables)

/* See store_private.h. The type is the one SQLite gives the object when it parses the file's
 * schema (pragma table_list), not the stored sqlite_master.type a crafted file may set. */
int store_judge_tables(sqlite3 *db, const char *schema, int64_t v, char *why, size_t len)
{
  sqlite3_stmt *s;
  int found[N_OUR_TABLES] = {0};
  char msg[GR_WHY_LEN];
  if (sqlite3_prepare_v2(db, "SELECT lower(name), type FROM pragma_table_list WHERE schema = ?1",
                         -1, &s, NULL) != SQLITE_OK) {
    gr_fmt(why, len, "%s", store_db_msg(db, msg, sizeof msg));
    return -1;
  }
  sqlite3_bind_text(s, 1, schema, -1, SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(s, 0),
               *type = (const char *)sqlite3_column_text(s, 1);
    for (size_t i = 0; name && i < N_OUR_TABLES; i++) {
      if (strcmp(name, our_tables[i].name))
        continue;
      if (!type || strcmp(type, "table")) {
        char t[64];
        gr_fmt(why, len,
               "it is not a gpuregress database ('%s' is a %s%s, not a table): pass --db with "
               "another path",
               our_tables[i].name, gr_printable(t, sizeof t, type ? type : "NULL"),
               type && !strcmp(type, "virtual") ? " table" : "");
        sqlite3_finalize(s);
        return -1;
      }
      found[i] = 1;
    }
  }
  if (rc != SQLITE_DONE) {
    gr_fmt(why, len, "%s", store_db_msg(db, msg, sizeof msg));
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  for (size_t i = 0; i < N_OUR_TABLES; i++)
    if (!found[i] && our_tables[i].since <= v) {
      gr_fmt(why, len,
             "it is not a gpuregress database (schema version %lld but no table '%s'): pass "
             "--db with another path",
             (long long)v, our_tables[i].name);
      return -1;
    }
  return 0;
}

/* What the file is, read in one statement (one snapshot: never a schema half-seen while another
 * process creates it) before anything is written to it: 0 ours (of a schema this build knows) or
 * empty (*v 0), with *v its schema version; -1 with why: another program's database (tables and
 * no schema version of ours, or a version of ours without our tables), a version that is not one
 * of ours (negative) or a newer one. Nothing is written before this says yes. */
int store_judge_schema(struct store *st, int *v, char *why, size_t len)
{
  sqlite3_stmt *s;
  if (store_first_row(st,
                      "SELECT (SELECT user_version FROM pragma_user_version),"
                      " (SELECT count(*) FROM sqlite_master),"
                      " (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
                      "  ('runs', 'cases', 'outcomes'))",
                      &s, why, len))
    return -1;
  int64_t ver = sqlite3_column_int64(s, 0), objects = sqlite3_column_int64(s, 1),
          ours = sqlite3_column_int64(s, 2);
  sqlite3_finalize(s);
  *v = (int)ver;
  if (ver == 0 && objects == 0)
    return 0; /* empty: a new database */
  if (ver == 0) {
    gr_fmt(why, len,
           "it is not a gpuregress database (it holds other tables and no schema version of "
           "ours): pass --db with another path");
    return -1;
  }
  if (ver < 0) {
    gr_fmt(why, len,
           "it is not a gpuregress database (schema version %lld is not one gpuregress "
           "writes): pass --db with another path",
           (long long)ver);
    return -1;
  }
  if (ver > N_MIGRATIONS) {
    gr_fmt(why, len,
           "schema version %lld is newer than this build of gpuregress (%d): use a "
           "newer build",
           (long long)ver, N_MIGRATIONS);
    return -1;
  }
  if (ours != 3) {
    gr_fmt(why, len,
           "it is not a gpuregress database (schema version %lld but not its tables runs, "
           "cases and outcomes): pass --db with another path",
           (long long)ver);
    return -1;
  }
  if (store_judge_tables(st->db, "main", ver, why, len)) {
    st->err = sqlite3_extended_errcode(st->db) ? sqlite3_extended_errcode(st->db) : SQLITE_FORMAT;
    return -1;
  }
  return 0;
}

/* SQLite's own defences for a file from elsewhere (its "defense against the dark arts"): no
 * writes to the schema through SQL, no functions with side effects in views or triggers of the
 * file. */
void store_harden(sqlite3 *db)
{
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
}

/* PRAGMA quick_check: 0 ok; -1 with why (a corrupt page: the first problem SQLite names). */
int store_quick_check(sqlite3 *db, const char *schema, char *why, size_t len)
{
  sqlite3_stmt *s;
  char sql[64];
  gr_fmt(sql, sizeof sql, "PRAGMA %s.quick_check(1)", schema);
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    store_db_msg(db, why, len);
    return -1;
  }
  int rc = sqlite3_step(s);
  const char *r = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
  int ok = r && !strcmp(r, "ok");
  if (!ok && (sqlite3_errcode(db) & 0xff) == SQLITE_INTERRUPT) {
    store_db_msg(db, why, len); /* the budget stopped it: not a verdict on the file */
  } else if (!ok) {
    char msg[200];
    const char *last = r ? strrchr(r, '\n') : NULL; /* after "*** in database main ***" */
    gr_fmt(why, len,
           "database disk image is malformed (%s): restore it from a copy, or pass --db "
           "with another path",
           r ? gr_printable(msg, sizeof msg, last ? last + 1 : r)
             : store_db_msg(db, msg, sizeof msg));
  }
  sqlite3_finalize(s);
  return ok ? 0 : -1;
}

/* How store_open_read opens a file: as it is (query_only), then read-only, then immutable (a
 * file on a read-only mount or a write-protected WAL database whose -shm cannot be made). */
enum read_mode { READ_PLAIN, READ_RO, READ_IMMUTABLE };

/* One way of opening for reading: 0 ok; else the SQLite code, msg set. */
static int open_read_as(struct store *st, const char *path, enum read_mode mode, char *msg,
                        size_t mlen)
{
  static const char *const query[] = {"", "mode=ro", "immutable=1"};
  int rc, v;
  /* immutable ignores the -wal: committed runs there would vanish without a word */
  if (mode == READ_IMMUTABLE && store_wal_refused(path, msg, mlen))
    return SQLITE_FORMAT;
  char *uri = store_file_uri(path, query[mode]);
  if (!uri)
    return SQLITE_NOMEM;
  /* as it is: not SQLITE_OPEN_READONLY: a read-only connection leaves the -wal and -shm files
   * of a WAL database behind (beside a committed baseline too); query_only keeps every
   * statement from writing, and a write-protected file is opened read-only by SQLite itself */
  rc = sqlite3_open_v2(uri, &st->db,
                       (mode == READ_PLAIN ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
                           SQLITE_OPEN_URI,
                       NULL);
  free(uri);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(st->db, 10000);
    sqlite3_extended_result_codes(st->db, 1);
    store_harden(st->db);
    store_budget(st->db);
    rc = sqlite3_exec(st->db, "PRAGMA query_only = ON", NULL, NULL, NULL);
  }
  if (rc == SQLITE_OK && store_judge_schema(st, &v, msg, mlen))
    rc = st->err ? st->err : SQLITE_FORMAT; /* FORMAT: judged, the message says what to do */
  else if (rc == SQLITE_OK && v == 0) {
    gr_fmt(msg, mlen,
           "it is not a gpuregress database (empty, no runs table): pass --db with another "
           "path");
    rc = SQLITE_FORMAT;
  }
  if (rc != SQLITE_OK && !msg[0]) {
    if (st->db)
      store_db_msg(st->db, msg, mlen);
    else
      gr_fmt(msg, mlen, "%s", sqlite3_errstr(rc));
  }
  if (rc != SQLITE_OK) {
    sqlite3_close(st->db);
    st->db = NULL;
  }
  return rc;
}

int store_open_read(const char *path, struct store **out, char *why, size_t len)
{
  char msg[GR_WHY_LEN] = "";
  struct store *st = calloc(1, sizeof *st);
  int rc = SQLITE_NOMEM;
  struct stat sb;
  if (!st || !(st->path = strdup(path)))
    goto out_close;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    gr_fmt(why, len,
           "cannot use database '%s': not a regular file: pass --db with the path of "
           "a database file",
           path);
    store_close(st);
    return -1;
  }
  for (enum read_mode m = READ_PLAIN; m <= READ_IMMUTABLE; m++) {
    msg[0] = 0;
    st->err = 0;
    rc = open_read_as(st, path, m, msg, sizeof msg);
    /* only a file this process may not write (a read-only mount, a write-protected file and
     * folder) is tried the next way; a foreign, newer or damaged file is an answer */
    int primary = rc & 0xff;
    if (rc == SQLITE_OK || (primary != SQLITE_READONLY && primary != SQLITE_CANTOPEN &&
                            primary != SQLITE_IOERR && primary != SQLITE_PERM))
      break;
  }
  if (rc != SQLITE_OK)
    goto out_close;
  *out = st;
  return 0;
out_close:
  if (!msg[0])
    gr_fmt(msg, sizeof msg, "%s", sqlite3_errstr(rc));
  gr_fmt(why, len, "cannot use database '%s': %s%s", path, msg,
         rc == SQLITE_FORMAT ? "" : store_open_hint(rc));
  store_close(st);
  return -1;
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

/* Refuse a file whose rows of the runs to import would not all arrive as they are: ids that are
 * not whole numbers or not unique (a row could not be told whose it is), rows of no run or no
 * timing, a name (algorithm, variant, kind) gpuregress never gives, text where a number belongs.
 * 0 ok; -1 with why (naming the run), -2 a database error. */
int store_judge_import(sqlite3 *db, const char *runs_filter, int64_t only, char *why, size_t len)
{
  char sql[4096], what[GR_WHY_LEN];
  int bad;
  /* ids of runs and timings: whole numbers, each once (any value: odd ones are renumbered) */
  static const char *const ids[][3] = {{"runs", "id", "run"}, {"timings", "id", "timing"}};
  for (size_t i = 0; i < 2; i++) {
    if (!src_has_table(db, ids[i][0]))
      continue;
    gr_fmt(sql, sizeof sql,
           "SELECT x.%s, 'id of type ' || typeof(x.%s) FROM src.%s x WHERE typeof(x.%s) !="
           " 'integer' UNION ALL SELECT x.%s, 'id given ' || count(*) || ' times' FROM src.%s x"
           " GROUP BY x.%s HAVING count(*) > 1 LIMIT 1",
           ids[i][1], ids[i][1], ids[i][0], ids[i][1], ids[i][1], ids[i][0], ids[i][1]);
    if ((bad = first_bad(db, sql, only, ids[i][2], what, sizeof what)) != 0) {
      if (bad < 0)
        return -2;
      gr_fmt(why, len, "%s", what);
      return -1;
    }
  }
  for (size_t i = 0; i < N_ROW_TABLES; i++) {
    const char *t = row_tables[i].table, *own = row_tables[i].owner;
    if (!src_has_table(db, t))
      continue;
    int per_run = !strcmp(own, "run_id");
    /* rows of no run (or timing) of the file */
    gr_fmt(sql, sizeof sql,
           "SELECT x.%s, 'a row of %s belongs to no %s of the file' FROM src.%s x WHERE x.%s NOT IN"
           " (SELECT id FROM src.%s) OR x.%s IS NULL LIMIT 1",
           own, t, per_run ? "run" : "timing", t, own, per_run ? "runs" : "timings", own);
    if ((bad = first_bad(db, sql, only, per_run ? "run" : "timing", what, sizeof what)) != 0) {
      if (bad < 0)
        return -2;
      gr_fmt(why, len, "%s", what);
      return -1;
    }
    /* the run a row belongs to, for the filter and the message */
    char run_of[256];
    if (per_run)
      gr_fmt(run_of, sizeof run_of, "x.run_id");
    else
      gr_fmt(run_of, sizeof run_of,
             "(SELECT t.run_id FROM src.timings t WHERE t.id = x.timing_id)");
    /* names */
    if (row_tables[i].names) {
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
      if ((bad = first_bad(db, sql, only, "run", what, sizeof what)) != 0) {
        if (bad < 0)
          return -2;
        gr_fmt(why, len, "%s", what);
        return -1;
      }
    }
    /* numbers where the schema has numbers: an INTEGER or REAL column of ours holds no text or
     * blob in the rows imported */
    sqlite3_stmt *c;
    if (sqlite3_prepare_v2(db, "SELECT name, upper(type) FROM pragma_table_info(?1, 'main')", -1,
                           &c, NULL) != SQLITE_OK)
      return -2;
    sqlite3_bind_text(c, 1, t, -1, SQLITE_STATIC);
    int found = 0;
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
  }
  return 0;
}

/* ---- the baseline file (judged as any file from elsewhere) --------------------------------------------------------------------- */

/* The most a baseline file may have (a reproducer's is kilobytes; a committed baseline a few
 * runs' samples). */
#define STORE_BASELINE_MAX_BYTES (1LL << 30)

int store_attach_baseline(struct store *st, const char *path, char *why, size_t len)
{
  sqlite3_stmt *s;
  struct stat sb;
  if (access(path, R_OK) != 0) {
    gr_fmt(why, len, "cannot read baseline '%s': no such file or not readable", path);
    return -1;
  }
  /* a file from elsewhere (a reproducers/ folder, a committed baseline): never a link followed,
   * never more than STORE_BASELINE_MAX_BYTES read */
  if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
    gr_fmt(why, len, "cannot read baseline '%s': a symbolic link, not followed (name the file "
                     "itself)", path);
    return -1;
  }
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    gr_fmt(why, len, "cannot read baseline '%s': not a regular file", path);
    return -1;
  }
  if (sb.st_size > STORE_BASELINE_MAX_BYTES) {
    gr_fmt(why, len, "baseline '%s' is %lld bytes, over the %lld a baseline may have", path,
           (long long)sb.st_size, (long long)STORE_BASELINE_MAX_BYTES);
    return -1;
  }
  char msg[GR_WHY_LEN];
  if (store_attach(st->db, path, "base", msg, sizeof msg)) {
    gr_fmt(why, len, "cannot open baseline '%s': %s", path, msg);
    return -1;
  }
  if (store_quick_check(st->db, "base", msg, sizeof msg)) {
    gr_fmt(why, len, "baseline '%s' is damaged or not a database: %s", path, msg);
    sqlite3_exec(st->db, "DETACH DATABASE base", NULL, NULL, NULL);
    return -1;
  }
  int v = -1;
  if (sqlite3_prepare_v2(st->db, "PRAGMA base.user_version", -1, &s, NULL) == SQLITE_OK) {
    if (sqlite3_step(s) == SQLITE_ROW)
      v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
  }
  if (v >= 1 && v <= N_MIGRATIONS && store_judge_tables(st->db, "base", v, msg, sizeof msg)) {
    gr_fmt(why, len, "baseline '%s': %s", path, msg);
    sqlite3_exec(st->db, "DETACH DATABASE base", NULL, NULL, NULL);
    return -1;
  }
  if (v < 1 || v > N_MIGRATIONS || !store_has_table(st, STORE_BASE, "runs") ||
      !store_has_table(st, STORE_BASE, "outcomes")) {
    if (v > N_MIGRATIONS)
      gr_fmt(why, len, "baseline '%s' has schema version %d, newer than this build of gpuregress "
                       "(%d): use a newer build", path, v, N_MIGRATIONS);
    else
      gr_fmt(why, len, "baseline '%s' is not a gpuregress database (%s)", path,
             v < 1 ? "no schema version of ours" : "no runs table");
    sqlite3_exec(st->db, "DETACH DATABASE base", NULL, NULL, NULL);
    return -1;
  }
  return 0;
}
