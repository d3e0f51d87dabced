/* Files from elsewhere, judged before use: what a file is before anything is written to it
 * (store_judge_schema), SQLite's defences on every connection (store_harden), a quick_check,
 * opening for reading where the file cannot be written (store_open_read: as it is, read-only,
 * immutable); the rows of a database to import are judged in store_judge.c. See store.h and
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
