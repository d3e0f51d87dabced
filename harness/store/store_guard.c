/* Guards on every connection to a file that may come from elsewhere: SQLite's messages as a
 * terminal may show them, a budget on every statement (a view or a runaway query is stopped,
 * never a hang), URIs for files opened read-only or immutable without ignoring a -wal with
 * content, and attaching another database (import's source, compare's baseline) the way
 * store_open_read opens one. See store_private.h and doc/untrusted.md. */
#include "store.h"
#include "store_private.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* See store_private.h. An absolute path gets an empty authority (file:///...), so that a path
 * beginning with // is never read as a host. */
char *store_file_uri(const char *path, const char *query)
{
  size_t n = strlen(path);
  char *u = malloc(3 * n + strlen(query) + 16), *o = u;
  if (!u)
    return NULL;
  o += sprintf(o, path[0] == '/' ? "file://" : "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("/-._~", *p))
      *o++ = (char)*p;
    else
      o += sprintf(o, "%%%02X", *p);
  }
  if (query[0])
    sprintf(o, "?%s", query);
  else
    *o = 0;
  return u;
}

/* See store_private.h. */
int64_t store_wal_bytes(const char *path)
{
  char wal[4096];
  struct stat sb;
  if ((size_t)snprintf(wal, sizeof wal, "%s-wal", path) >= sizeof wal)
    return 0;
  return stat(wal, &sb) == 0 && S_ISREG(sb.st_mode) ? (int64_t)sb.st_size : 0;
}

/* See store_private.h. */
int store_wal_refused(const char *path, char *why, size_t len)
{
  int64_t n = store_wal_bytes(path);
  if (n <= 0)
    return 0;
  gr_fmt(why, len,
         "its write-ahead log '%s-wal' holds %lld bytes that cannot be read here (no '-shm' "
         "can be made beside it): make the folder writable for a moment, or copy the file with "
         "its -wal into a writable folder",
         path, (long long)n);
  return -1;
}

/* ---- the budget of a statement ------------------------------------------------------------ */

#define BUDGET_TICK 100000 /* virtual-machine steps between two calls of the progress handler */
/* million steps: copying a million cases into a history takes 40 to 80; an import stopped at
 * 40 after 6.7 s on this project's 2-core build box with other builds running */
#define BUDGET_DEFAULT 2000

/* The budget of one statement, in millions of steps: GR_SQL_BUDGET when it is a whole number
 * of 1 or more, else BUDGET_DEFAULT. */
static int64_t budget_millions(void)
{
  static int64_t m;
  uint64_t u;
  const char *e;
  if (!m)
    m = (e = getenv("GR_SQL_BUDGET")) && gr_parse_u64(e, &u) == 0 && u >= 1 && u <= 1000000000
            ? (int64_t)u
            : BUDGET_DEFAULT;
  return m;
}

/* Progress-handler calls in the running statement of this thread: not a field of the store,
 * which store_resume copies to a new place */
static _Thread_local int64_t budget_ticks;

static int budget_tick(void *ctx)
{
  (void)ctx;
  return ++budget_ticks > budget_millions() * (1000000 / BUDGET_TICK);
}

static int budget_reset(unsigned what, void *ctx, void *p, void *x)
{
  (void)what, (void)ctx, (void)p, (void)x;
  budget_ticks = 0;
  return 0;
}

/* See store_private.h. */
void store_budget(sqlite3 *db)
{
  sqlite3_progress_handler(db, BUDGET_TICK, budget_tick, NULL);
  sqlite3_trace_v2(db, SQLITE_TRACE_STMT, budget_reset, NULL);
}

/* See store_private.h. */
const char *store_db_msg(sqlite3 *db, char *buf, size_t len)
{
  if ((sqlite3_errcode(db) & 0xff) == SQLITE_INTERRUPT)
    return gr_fmt(buf, len,
                  "a statement ran past its budget of %lld million steps and was stopped (a "
                  "runaway query over a file from elsewhere; a file this large needs more: "
                  "GR_SQL_BUDGET=MILLIONS raises it)",
                  (long long)budget_millions());
  return gr_printable(buf, len, sqlite3_errmsg(db));
}

/* See store_private.h. */
int store_attach(sqlite3 *db, const char *path, const char *schema, char *why, size_t len)
{
  static const char *const query[] = {"", "mode=ro", "immutable=1"};
  char sql[64];
  gr_fmt(sql, sizeof sql, "ATTACH DATABASE ?1 AS %s", schema);
  for (int m = 0; m < 3; m++) {
    sqlite3_stmt *s;
    if (m == 2 && store_wal_refused(path, why, len))
      return -1;
    char *uri = store_file_uri(path, query[m]);
    if (!uri) {
      gr_fmt(why, len, "out of memory");
      return -1;
    }
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK) {
      sqlite3_bind_text(s, 1, uri, -1, SQLITE_STATIC);
      rc = sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(db);
    }
    if (rc != SQLITE_OK)
      store_db_msg(db, why, len);
    sqlite3_finalize(s);
    free(uri);
    if (rc == SQLITE_OK)
      return 0;
    /* as store_open_read: only a file this process may not write is tried the next way */
    int primary = rc & 0xff;
    if (primary != SQLITE_READONLY && primary != SQLITE_CANTOPEN && primary != SQLITE_IOERR &&
        primary != SQLITE_PERM)
      return -1;
  }
  return -1;
}
