/* The first bad commit of an open regression (store_first_bad.h). */
#include "store_first_bad.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gr.h"
#include "store.h"
#include "store_private.h"

static int is_sha(const char *s)
{
  size_t n = s ? strlen(s) : 0; /* SHA-1, or SHA-256 in a repository of that format */
  return (n == 40 || n == 64) && strspn(s, "0123456789abcdef") == n;
}

static void bind_key(sqlite3_stmt *s, const char *algorithm, const char *variant,
                     const char *params, uint64_t seed, const char *l2)
{
  sqlite3_bind_text(s, 1, algorithm, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, variant, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 3, params, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 4, (sqlite3_int64)seed);
  sqlite3_bind_text(s, 5, l2, -1, SQLITE_STATIC);
}

int store_set_first_bad(struct store *st, const char *algorithm, const char *variant,
                        const char *params, uint64_t seed, const char *l2, const char *sha,
                        const char *subject, const char *author_date, char *why, size_t len)
{
  char msg[256];
  if (!is_sha(sha)) {
    gr_fmt(why, len, "'%.70s' is not a full commit sha (40 or 64 hex digits)", sha ? sha : "");
    return -1;
  }
  int64_t night = store_latest_recorded(st);
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(store_db(st),
                         "SELECT opened_run FROM open_regressions WHERE run_id = ?6 AND"
                         " algorithm = ?1 AND variant = ?2 AND params = ?3 AND seed = ?4 AND"
                         " l2 = ?5",
                         -1, &s, NULL) != SQLITE_OK)
    goto db_error;
  bind_key(s, algorithm, variant, params, seed, l2);
  sqlite3_bind_int64(s, 6, night);
  int rc = sqlite3_step(s);
  int64_t opened = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
  sqlite3_finalize(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    goto db_error;
  if (!opened) {
    gr_fmt(why, len, "no regression of %s/%s %s seed=%llu [%s] is open on the latest recorded "
           "night%s in '%s'", algorithm, variant, params, (unsigned long long)seed, l2,
           night ? "" : " (no night is recorded)", store_path(st));
    return 1;
  }
  char now[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (sqlite3_prepare_v2(store_db(st),
                         "INSERT OR REPLACE INTO first_bad (algorithm, variant, params, seed, l2,"
                         " opened_run, sha, subject, author_date, found_at)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                         -1, &s, NULL) != SQLITE_OK)
    goto db_error;
  bind_key(s, algorithm, variant, params, seed, l2);
  sqlite3_bind_int64(s, 6, opened);
  sqlite3_bind_text(s, 7, sha, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 8, subject ? subject : "", -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 9, author_date ? author_date : "", -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 10, now, -1, SQLITE_STATIC);
  rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE || store_commit(st))
    goto db_error;
  return 0;
db_error:
  gr_fmt(why, len, "cannot record the first bad commit in '%s': %s", store_path(st),
         store_db_msg(store_db(st), msg, sizeof msg));
  return -1;
}

int store_get_first_bad(struct store *st, const char *algorithm, const char *variant,
                        const char *params, uint64_t seed, const char *l2, int64_t opened_run,
                        struct store_first_bad *out)
{
  memset(out, 0, sizeof *out);
  if (!store_has_table(st, STORE_MAIN, "first_bad"))
    return 0;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(store_db(st),
                         "SELECT sha, subject, author_date, found_at FROM first_bad WHERE"
                         " algorithm = ?1 AND variant = ?2 AND params = ?3 AND seed = ?4 AND"
                         " l2 = ?5 AND opened_run = ?6",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  bind_key(s, algorithm, variant, params, seed, l2);
  sqlite3_bind_int64(s, 6, opened_run);
  int rc = sqlite3_step(s), found = 0;
  if (rc == SQLITE_ROW) {
    const char *sha = (const char *)sqlite3_column_text(s, 0);
    if (is_sha(sha)) { /* anything else is not ours: ignored */
      found = 1;
      gr_fmt(out->sha, sizeof out->sha, "%s", sha);
      store_col_text(s, 1, out->subject, sizeof out->subject);
      store_col_text(s, 2, out->author_date, sizeof out->author_date);
      store_col_text(s, 3, out->found_at, sizeof out->found_at);
    }
  }
  sqlite3_finalize(s);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? found : -1;
}
