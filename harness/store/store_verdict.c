/* The store's record of nights' verdicts: the verdict of a night as `compare --record` judged
 * it, the regressions open on it (carried to the next recorded night), the nightly's exit code,
 * and the acknowledgements of `gpuregress ack`; and what the checks beside the fuzzing found for
 * a run (the regimes its cases reached, the sanitizer lane's verdicts). See store.h. */
#include "store.h"
#include "store_private.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

static void text_of(sqlite3_stmt *s, int i, char *dst, size_t len)
{
  const unsigned char *t = sqlite3_column_text(s, i);
  gr_fmt(dst, len, "%s", t ? (const char *)t : "");
}

static int fail(struct store *st, const char *what, char *why, size_t len)
{
  char msg[256];
  gr_fmt(why, len, "cannot %s in '%s': %s", what, store_path(st),
         store_db_msg(store_db(st), msg, sizeof msg));
  return -1;
}

/* The record needs schema 8: a database opened for writing is migrated, a read-only one may be
 * older. */
static int has_record(struct store *st) { return store_has_table(st, STORE_MAIN, "acks"); }

int store_record_verdict(struct store *st, int64_t run, const char *result, int exit_code,
                         const char *summary, const struct store_open_reg *open, size_t n,
                         char *why, size_t len)
{
  sqlite3_stmt *s = NULL;
  if (store_commit(st) || sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
    return fail(st, "record the verdict", why, len);
  if (sqlite3_prepare_v2(st->db,
                         "UPDATE runs SET verdict = ?, verdict_exit = ?, verdict_summary = ?"
                         " WHERE id = ?",
                         -1, &s, NULL) != SQLITE_OK)
    goto bad;
  sqlite3_bind_text(s, 1, result, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(s, 2, exit_code);
  sqlite3_bind_text(s, 3, summary, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 4, run);
  if (sqlite3_step(s) != SQLITE_DONE)
    goto bad;
  sqlite3_finalize(s);
  if (sqlite3_prepare_v2(st->db, "DELETE FROM open_regressions WHERE run_id = ?", -1, &s, NULL) !=
      SQLITE_OK)
    goto bad;
  sqlite3_bind_int64(s, 1, run);
  if (sqlite3_step(s) != SQLITE_DONE)
    goto bad;
  sqlite3_finalize(s);
  if (sqlite3_prepare_v2(st->db,
                         "INSERT OR REPLACE INTO open_regressions (run_id, algorithm, variant, kind,"
                         " params, seed, l2, opened_run, base_run, ref_ms, cur_ms, p, source)"
                         " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         -1, &s, NULL) != SQLITE_OK)
    goto bad;
  for (size_t i = 0; i < n; i++) {
    const struct store_open_reg *r = &open[i];
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, run);
    sqlite3_bind_text(s, 2, r->algorithm, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, r->variant, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 4, r->kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 5, r->params, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 6, (sqlite3_int64)r->seed);
    sqlite3_bind_text(s, 7, r->l2, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 8, r->opened_run);
    sqlite3_bind_int64(s, 9, r->base_run);
    sqlite3_bind_double(s, 10, r->ref_ms);
    if (r->cur_ms > 0)
      sqlite3_bind_double(s, 11, r->cur_ms);
    else
      sqlite3_bind_null(s, 11);
    sqlite3_bind_double(s, 12, r->p);
    sqlite3_bind_text(s, 13, r->source, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) != SQLITE_DONE)
      goto bad;
  }
  sqlite3_finalize(s);
  s = NULL;
  if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    goto bad;
  return 0;
bad:
  fail(st, "record the verdict", why, len);
  sqlite3_finalize(s);
  sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
  return -1;
}

int store_set_nightly_exit(struct store *st, int64_t run, int code, char *why, size_t len)
{
  sqlite3_stmt *s;
  if (store_commit(st) ||
      sqlite3_prepare_v2(st->db, "UPDATE runs SET nightly_exit = ? WHERE id = ?", -1, &s, NULL) !=
          SQLITE_OK)
    return fail(st, "record the nightly's exit code", why, len);
  sqlite3_bind_int(s, 1, code);
  sqlite3_bind_int64(s, 2, run);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE)
    return fail(st, "record the nightly's exit code", why, len);
  if (sqlite3_changes(st->db) == 0) {
    gr_fmt(why, len, "no run %lld in '%s'", (long long)run, store_path(st));
    return -1;
  }
  return 0;
}

int64_t store_last_recorded(struct store *st, int64_t before, const char *gpu)
{
  sqlite3_stmt *s;
  int64_t id = 0;
  if (!has_record(st) ||
      sqlite3_prepare_v2(st->db,
                         "SELECT r.id FROM runs r, runs b WHERE b.id = ?1 AND r.verdict IS NOT NULL"
                         " AND coalesce(r.gpu_name, '') = ?2 AND (r.started_at < b.started_at OR"
                         " (r.started_at = b.started_at AND r.id < b.id))"
                         " ORDER BY r.started_at DESC, r.id DESC LIMIT 1",
                         -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_int64(s, 1, before);
  sqlite3_bind_text(s, 2, gpu ? gpu : "", -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s) == SQLITE_ROW)
    id = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return id;
}

static int64_t one_id(struct store *st, const char *sql)
{
  sqlite3_stmt *s;
  int64_t id = 0;
  if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
    return 0;
  if (sqlite3_step(s) == SQLITE_ROW)
    id = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return id;
}

int64_t store_latest_recorded(struct store *st)
{
  if (!has_record(st))
    return 0;
  return one_id(st, "SELECT id FROM runs WHERE verdict IS NOT NULL ORDER BY started_at DESC,"
                    " id DESC LIMIT 1");
}

int64_t store_latest_run(struct store *st) { return one_id(st, "SELECT max(id) FROM runs"); }

int store_each_open_reg(struct store *st, int64_t run,
                        int (*fn)(void *ctx, const struct store_open_reg *r), void *ctx)
{
  sqlite3_stmt *s;
  if (!has_record(st))
    return 0;
  if (sqlite3_prepare_v2(st->db,
                         "SELECT algorithm, variant, coalesce(kind, ''), params, seed, l2,"
                         " opened_run, coalesce(base_run, 0), ref_ms, coalesce(cur_ms, 0),"
                         " coalesce(p, 1), source FROM open_regressions WHERE run_id = ?"
                         " ORDER BY algorithm, variant, params, l2",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, run);
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct store_open_reg r;
    memset(&r, 0, sizeof r);
    text_of(s, 0, r.algorithm, sizeof r.algorithm);
    text_of(s, 1, r.variant, sizeof r.variant);
    text_of(s, 2, r.kind, sizeof r.kind);
    text_of(s, 3, r.params, sizeof r.params);
    r.seed = (uint64_t)sqlite3_column_int64(s, 4);
    text_of(s, 5, r.l2, sizeof r.l2);
    r.opened_run = sqlite3_column_int64(s, 6);
    r.base_run = sqlite3_column_int64(s, 7);
    r.ref_ms = sqlite3_column_double(s, 8);
    r.cur_ms = sqlite3_column_double(s, 9);
    r.p = sqlite3_column_double(s, 10);
    text_of(s, 11, r.source, sizeof r.source);
    stop = fn(ctx, &r);
  }
  sqlite3_finalize(s);
  return stop ? stop : rc == SQLITE_DONE ? 0 : -1;
}

int store_add_ack(struct store *st, const char *benchmark, int64_t through_run, const char *who,
                  const char *reason, int64_t *id, char *why, size_t len)
{
  sqlite3_stmt *s;
  char now[32];
  store_utc_now(now, sizeof now);
  if (store_commit(st) ||
      sqlite3_prepare_v2(st->db,
                         "INSERT INTO acks (benchmark, through_run, who, at, reason)"
                         " VALUES (?,?,?,?,?)",
                         -1, &s, NULL) != SQLITE_OK)
    return fail(st, "record the acknowledgement", why, len);
  sqlite3_bind_text(s, 1, benchmark, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 2, through_run);
  sqlite3_bind_text(s, 3, who, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 4, now, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 5, reason, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE)
    return fail(st, "record the acknowledgement", why, len);
  *id = (int64_t)sqlite3_last_insert_rowid(st->db);
  return 0;
}

int store_undo_ack(struct store *st, const char *benchmark, const char *who, char *why,
                   size_t len)
{
  sqlite3_stmt *s;
  char now[32];
  store_utc_now(now, sizeof now);
  if (store_commit(st) ||
      sqlite3_prepare_v2(st->db,
                         "UPDATE acks SET undone_by = ?, undone_at = ? WHERE benchmark = ? AND"
                         " undone_at IS NULL",
                         -1, &s, NULL) != SQLITE_OK)
    return fail(st, "undo the acknowledgement", why, len);
  sqlite3_bind_text(s, 1, who, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, now, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 3, benchmark, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE)
    return fail(st, "undo the acknowledgement", why, len);
  return sqlite3_changes(st->db);
}

int store_each_ack(struct store *st, int active_only,
                   int (*fn)(void *ctx, const struct store_ack *a), void *ctx)
{
  sqlite3_stmt *s;
  if (!has_record(st))
    return 0;
  if (sqlite3_prepare_v2(st->db,
                         active_only
                             ? "SELECT id, benchmark, through_run, who, at, reason, '', '' FROM"
                               " acks WHERE undone_at IS NULL ORDER BY id"
                             : "SELECT id, benchmark, through_run, who, at, reason,"
                               " coalesce(undone_by, ''), coalesce(undone_at, '') FROM acks"
                               " ORDER BY id",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct store_ack a;
    a.id = sqlite3_column_int64(s, 0);
    text_of(s, 1, a.benchmark, sizeof a.benchmark);
    a.through_run = sqlite3_column_int64(s, 2);
    text_of(s, 3, a.who, sizeof a.who);
    text_of(s, 4, a.at, sizeof a.at);
    text_of(s, 5, a.reason, sizeof a.reason);
    text_of(s, 6, a.undone_by, sizeof a.undone_by);
    text_of(s, 7, a.undone_at, sizeof a.undone_at);
    stop = fn(ctx, &a);
  }
  sqlite3_finalize(s);
  return stop ? stop : rc == SQLITE_DONE ? 0 : -1;
}

int store_ack_covers(const struct store_ack *a, const char *alg, const char *var,
                     const char *params)
{
  size_t na = strlen(alg), nv = strlen(var);
  const char *b = a->benchmark;
  if (strncmp(b, alg, na) || b[na] != '/' || strncmp(b + na + 1, var, nv))
    return 0;
  b += na + 1 + nv;
  return *b == 0 || (*b == ' ' && !strcmp(b + 1, params));
}

int store_each_coverage(struct store *st, int64_t run,
                        int (*fn)(void *ctx, const char *alg, const char *var, const char *regime,
                                  int64_t cases),
                        void *ctx)
{
  if (!store_has_table(st, STORE_MAIN, "coverage"))
    return 0;
  sqlite3_stmt *s = store_run_query(st, STORE_MAIN,
                              "SELECT algorithm, variant, regime, cases FROM %s.coverage"
                              " WHERE run_id = ? ORDER BY rowid",
                              run);
  if (!s)
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW)
    stop = fn(ctx, store_col_or_null(s, 0), store_col_or_null(s, 1), store_col_or_null(s, 2),
              sqlite3_column_int64(s, 3));
  return store_walk_end(s, rc, stop);
}

int store_each_sanitizer(struct store *st, int64_t run, int64_t *from,
                         int (*fn)(void *ctx, const struct sanitizer_row *r), void *ctx)
{
  *from = 0;
  if (!store_has_table(st, STORE_MAIN, "sanitizer"))
    return 0;
  sqlite3_stmt *s = store_run_query(st, STORE_MAIN,
                              "SELECT run_id, algorithm, variant, kind, tool, verdict, cases,"
                              " seconds, detail FROM %s.sanitizer WHERE run_id ="
                              " (SELECT max(run_id) FROM %s.sanitizer WHERE run_id <= ?)"
                              " ORDER BY rowid",
                              run);
  if (!s)
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct sanitizer_row r = {store_col_or_null(s, 1), store_col_or_null(s, 2), store_col_or_null(s, 3),
                              store_col_or_null(s, 4), store_col_or_null(s, 5), sqlite3_column_int64(s, 6),
                              sqlite3_column_double(s, 7), store_col_or_null(s, 8)};
    *from = sqlite3_column_int64(s, 0);
    stop = fn(ctx, &r);
  }
  return store_walk_end(s, rc, stop);
}
