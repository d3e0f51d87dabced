/* The read side of the store: every SELECT of gpuregress (compare, export, plot and the
 * dashboard read rows through these functions). See store.h.
 *
 * A baseline file is attached as schema "base" (store.c); a database opened with store_open_read
 * is read as it is (an older schema may lack the timings table: it reads as empty). */
#include "store.h"
#include "store_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void col_text(sqlite3_stmt *s, int i, char *dst, size_t len)
{
  const unsigned char *t = sqlite3_column_text(s, i);
  gr_fmt(dst, len, "%s", t ? (const char *)t : "");
}

static const char *col_or_null(sqlite3_stmt *s, int i)
{
  return (const char *)sqlite3_column_text(s, i);
}

/* Bind run and a timing's key (algorithm, variant, params, seed) to parameters 1 to 5. */
static void bind_key(sqlite3_stmt *s, int64_t run, const char *alg, const char *var,
                     const char *params, uint64_t seed)
{
  sqlite3_bind_int64(s, 1, run);
  sqlite3_bind_text(s, 2, alg, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 3, var, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 4, params, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 5, (sqlite3_int64)seed);
}

/* fmt (formatted for src as store_prepare does) prepared, with run bound to parameter 1; NULL
 * on a database error. */
static sqlite3_stmt *run_query(struct store *st, enum store_src src, const char *fmt, int64_t run)
{
  sqlite3_stmt *s;
  if (store_prepare(st, src, fmt, &s))
    return NULL;
  sqlite3_bind_int64(s, 1, run);
  return s;
}

/* The end of a walk over the rows of s: what the callback returned to stop, else 0 when every
 * row was read (rc SQLITE_DONE), else -1. */
static int walk_end(sqlite3_stmt *s, int rc, int stop)
{
  sqlite3_finalize(s);
  return stop ? stop : rc == SQLITE_DONE ? 0 : -1;
}

int store_get_run(struct store *st, enum store_src src, int64_t id, struct store_run *r)
{
  sqlite3_stmt *s;
  memset(r, 0, sizeof *r);
  r->exit_code = -1;
  if (store_prepare(
          st, src,
          "SELECT id, coalesce(git_commit, ''), coalesce(gpu_name, ''), started_at, status,"
          " coalesce(exit_code, -1), coalesce(host, ''), command, coalesce(git_dirty, 0),"
          " coalesce(gpu_sms, 0), coalesce(gpu_cc, ''), coalesce(driver_version, 0),"
          " coalesce(runtime_version, 0), coalesce(sm_clock_mhz, 0), coalesce(mem_clock_mhz, 0),"
          " seed FROM %s.runs WHERE id = ?",
          &s))
    return -1;
  sqlite3_bind_int64(s, 1, id);
  int rc = -1;
  if (sqlite3_step(s) == SQLITE_ROW) {
    r->id = sqlite3_column_int64(s, 0);
    col_text(s, 1, r->commit, sizeof r->commit);
    col_text(s, 2, r->gpu, sizeof r->gpu);
    col_text(s, 3, r->started, sizeof r->started);
    col_text(s, 4, r->status, sizeof r->status);
    r->exit_code = sqlite3_column_int(s, 5);
    col_text(s, 6, r->host, sizeof r->host);
    col_text(s, 7, r->command, sizeof r->command);
    r->dirty = sqlite3_column_int(s, 8);
    r->sms = sqlite3_column_int(s, 9);
    col_text(s, 10, r->cc, sizeof r->cc);
    r->driver = sqlite3_column_int(s, 11);
    r->runtime = sqlite3_column_int(s, 12);
    r->sm_clock_mhz = sqlite3_column_int(s, 13);
    r->mem_clock_mhz = sqlite3_column_int(s, 14);
    r->seed = (uint64_t)sqlite3_column_int64(s, 15);
    rc = 0;
  }
  sqlite3_finalize(s);
  /* columns of schema 3 and later: absent from an older baseline file (read as none) */
  if (rc == 0 && store_prepare(st, src,
                               "SELECT coalesce(checkout_commit, ''), allow_no_gpu FROM %s.runs"
                               " WHERE id = ?",
                               &s) == 0) {
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) == SQLITE_ROW) {
      col_text(s, 0, r->checkout, sizeof r->checkout);
      r->allow_no_gpu = sqlite3_column_int(s, 1);
    }
    sqlite3_finalize(s);
  }
  return rc;
}

/* 1 when the query (one bound run id) returns a row */
static int exists(struct store *st, enum store_src src, const char *fmt, int64_t id)
{
  sqlite3_stmt *s;
  if (store_prepare(st, src, fmt, &s))
    return 0;
  sqlite3_bind_int64(s, 1, id);
  int found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}

int store_run_contents(struct store *st, enum store_src src, int64_t id)
{
  int k = 0;
  if (store_has_table(st, src, "timings") &&
      exists(st, src, "SELECT 1 FROM %s.timings WHERE run_id = ? AND samples > 0 LIMIT 1", id))
    k |= STORE_HAS_TIMINGS;
  if (exists(st, src, "SELECT 1 FROM %s.outcomes WHERE run_id = ? LIMIT 1", id))
    k |= STORE_HAS_OUTCOMES;
  return k;
}

int64_t store_pick_run(struct store *st, enum store_src src, int64_t cur, int *other_gpu)
{
  sqlite3_stmt *s;
  int64_t best = 0, any_gpu = 0;
  int want = 0, best_score = -1;
  char gpu[128] = "";
  if (other_gpu)
    *other_gpu = 0;
  int same_db = src == STORE_MAIN;
  if (cur > 0) {
    struct store_run b;
    if (store_get_run(st, STORE_MAIN, cur, &b) == 0)
      gr_fmt(gpu, sizeof gpu, "%s", b.gpu);
    want = store_run_contents(st, STORE_MAIN, cur);
  }
  if (store_prepare(st, src,
                    cur > 0 && same_db
                        ? "SELECT id, coalesce(gpu_name, '') FROM %s.runs WHERE status ="
                          " 'finished' AND id < ? ORDER BY id DESC"
                        : "SELECT id, coalesce(gpu_name, '') FROM %s.runs WHERE status ="
                          " 'finished' ORDER BY id DESC",
                    &s))
    return 0;
  if (cur > 0 && same_db)
    sqlite3_bind_int64(s, 1, cur);
  while (sqlite3_step(s) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(s, 0);
    const char *g = col_or_null(s, 1);
    int k = store_run_contents(st, src, id);
    if (!k)
      continue;
    if (cur <= 0) {
      best = id;
      break;
    }
    if (strcmp(g ? g : "", gpu) != 0) {
      if (!any_gpu)
        any_gpu = id;
      continue;
    }
    /* the most recent run holding everything cur holds wins; else the most recent holding some
     * of it; a run holding none of it (a fuzz-only run for a bench-only one) is no baseline */
    int score = (k & want) == want ? 2 : (k & want) ? 1 : 0;
    if (score > 0 && score > best_score) {
      best = id;
      best_score = score;
    }
    if (score == 2)
      break;
  }
  sqlite3_finalize(s);
  if (!best && any_gpu && !same_db) {
    if (other_gpu)
      *other_gpu = 1;
    return any_gpu;
  }
  return best;
}

int store_history(struct store *st, int64_t run, int what, int64_t *ids, char (*commits)[16],
                  int max)
{
  sqlite3_stmt *s;
  char sql[512];
  const char *table = what == STORE_HAS_TIMINGS ? "timings" : "outcomes";
  if (!store_has_table(st, STORE_MAIN, table))
    return 0;
  snprintf(
      sql, sizeof sql,
      "SELECT id, coalesce(substr(git_commit, 1, 7), '?') FROM runs r WHERE id <= ?1"
      " AND coalesce(gpu_name, '') = coalesce((SELECT gpu_name FROM runs WHERE id = ?1), '')"
      " AND (status = 'finished' OR id = ?1) AND EXISTS (SELECT 1 FROM %s x WHERE x.run_id = r.id)"
      " ORDER BY id DESC LIMIT ?2",
      table);
  if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_int64(s, 1, run);
  sqlite3_bind_int(s, 2, max);
  int n = 0;
  while (n < max && sqlite3_step(s) == SQLITE_ROW) {
    ids[n] = sqlite3_column_int64(s, 0);
    col_text(s, 1, commits[n], sizeof commits[n]);
    n++;
  }
  sqlite3_finalize(s);
  return n;
}

/* ---- timings ------------------------------------------------------------------------------ */

#define TIMING_COLUMNS                                                                             \
  "id, algorithm, variant, kind, l2, verdict, params, coalesce(reason, ''), seed, samples,"        \
  " coalesce(launches, 0), coalesce(median_ms, 0), coalesce(min_ms, 0), coalesce(max_ms, 0),"      \
  " coalesce(noise, 0), coalesce(bytes, 0), coalesce(gbps, 0), coalesce(copy_gbps, 0),"            \
  " coalesce(pct_copy, 0), coalesce(sm_clock_mhz, 0), coalesce(seconds, 0),"                     \
  " coalesce(items_per_s, 0)"

/* Prepare SELECT TIMING_COLUMNS and the unit and peak columns FROM timings `rest` in src; a
 * database of an older schema (before version 3) reads them as none. 0 ok; -1 on an error. */
static int prepare_timings(struct store *st, enum store_src src, const char *rest,
                           sqlite3_stmt **s)
{
  static const char *const unit_peak[] = {
      ", coalesce(item_unit, ''), coalesce(peak_items_per_s, 0), coalesce(pct_peak, 0)",
      ", '', 0, 0"};
  char sql[1536];
  for (size_t i = 0; i < sizeof unit_peak / sizeof *unit_peak; i++) {
    gr_fmt(sql, sizeof sql, "SELECT " TIMING_COLUMNS "%s FROM %%s.timings %s", unit_peak[i], rest);
    if (store_prepare(st, src, sql, s) == 0)
      return 0;
  }
  return -1;
}

static void read_timing(sqlite3_stmt *s, struct store_timing *t)
{
  t->id = sqlite3_column_int64(s, 0);
  col_text(s, 1, t->algorithm, sizeof t->algorithm);
  col_text(s, 2, t->variant, sizeof t->variant);
  col_text(s, 3, t->kind, sizeof t->kind);
  col_text(s, 4, t->l2, sizeof t->l2);
  col_text(s, 5, t->verdict, sizeof t->verdict);
  col_text(s, 6, t->params, sizeof t->params);
  col_text(s, 7, t->reason, sizeof t->reason);
  t->seed = (uint64_t)sqlite3_column_int64(s, 8);
  t->samples = sqlite3_column_int64(s, 9);
  t->launches = sqlite3_column_int64(s, 10);
  double *const v[] = {&t->median_ms, &t->min_ms,    &t->max_ms,   &t->noise,        &t->bytes,
                       &t->gbps,      &t->copy_gbps, &t->pct_copy, &t->sm_clock_mhz, &t->seconds,
                       &t->items_per_s};
  for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
    *v[i] = sqlite3_column_double(s, 11 + i);
  col_text(s, 22, t->item_unit, sizeof t->item_unit);
  t->peak_items_per_s = sqlite3_column_double(s, 23);
  t->pct_peak = sqlite3_column_double(s, 24);
}

int store_each_timing(struct store *st, enum store_src src, int64_t run, store_timing_fn fn,
                      void *ctx)
{
  sqlite3_stmt *s;
  struct store_timing t;
  if (!store_has_table(st, src, "timings"))
    return 0;
  if (prepare_timings(st, src, "WHERE run_id = ? ORDER BY id", &s))
    return -1;
  sqlite3_bind_int64(s, 1, run);
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    read_timing(s, &t);
    stop = fn(ctx, &t);
  }
  return walk_end(s, rc, stop);
}

int store_find_timing(struct store *st, int64_t run, const char *alg, const char *var,
                      const char *params, uint64_t seed, struct store_timing *t)
{
  sqlite3_stmt *s;
  if (!store_has_table(st, STORE_MAIN, "timings"))
    return 1;
  if (prepare_timings(st, STORE_MAIN,
                      "WHERE run_id = ? AND algorithm = ? AND variant = ? AND params = ?"
                      " AND seed = ? AND samples > 0 ORDER BY id LIMIT 1",
                      &s))
    return -1;
  bind_key(s, run, alg, var, params, seed);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW)
    read_timing(s, t);
  sqlite3_finalize(s);
  return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

int store_samples(struct store *st, enum store_src src, int64_t run, const char *alg,
                  const char *var, const char *params, uint64_t seed, const char *l2, double **ms,
                  size_t *n)
{
  sqlite3_stmt *s;
  size_t cap = 256;
  *n = 0;
  *ms = malloc(cap * sizeof **ms);
  if (!*ms)
    return -1;
  if (store_prepare(st, src,
                    "SELECT s.ms FROM %s.samples s JOIN %s.timings t ON s.timing_id = t.id"
                    " WHERE t.run_id = ? AND t.algorithm = ? AND t.variant = ? AND t.params = ?"
                    " AND t.seed = ? AND t.l2 = ?",
                    &s))
    return -1;
  bind_key(s, run, alg, var, params, seed);
  sqlite3_bind_text(s, 6, l2, -1, SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (*n == cap) {
      double *m = realloc(*ms, 2 * cap * sizeof *m);
      if (!m)
        break;
      *ms = m;
      cap *= 2;
    }
    (*ms)[(*n)++] = sqlite3_column_double(s, 0);
  }
  sqlite3_finalize(s);
  return rc == SQLITE_DONE ? 0 : -1;
}

int store_each_accuracy(struct store *st, enum store_src src, int64_t run,
                        int (*fn)(void *ctx, const struct store_accuracy *a), void *ctx)
{
  sqlite3_stmt *s;
  struct store_accuracy a;
  if (!store_has_table(st, src, "accuracy"))
    return 0;
  if (!(s = run_query(st, src,
                      "SELECT t.algorithm, t.variant, t.kind, t.params, t.seed, a.metric, a.value"
                      " FROM %s.accuracy a JOIN %s.timings t ON a.timing_id = t.id"
                      " WHERE t.run_id = ? ORDER BY t.id, a.metric",
                      run)))
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    col_text(s, 0, a.algorithm, sizeof a.algorithm);
    col_text(s, 1, a.variant, sizeof a.variant);
    col_text(s, 2, a.kind, sizeof a.kind);
    col_text(s, 3, a.params, sizeof a.params);
    a.seed = (uint64_t)sqlite3_column_int64(s, 4);
    col_text(s, 5, a.metric, sizeof a.metric);
    a.value = sqlite3_column_double(s, 6);
    stop = fn(ctx, &a);
  }
  return walk_end(s, rc, stop);
}

/* ---- outcomes and checks ------------------------------------------------------------------ */

#define OUTCOME_COLUMNS                                                                            \
  "algorithm, variant, kind, verdict, cases, passed, failed, skipped, errors, seconds,"            \
  " cases_to_catch, seconds_to_catch, reason, first_case, shrunk_case, reproducer"

int store_each_outcome(struct store *st, enum store_src src, int64_t run, enum store_order order,
                       store_outcome_fn fn, void *ctx)
{
  sqlite3_stmt *s;
  if (!(s = run_query(st, src,
                      order == STORE_BY_NAME
                          ? "SELECT " OUTCOME_COLUMNS " FROM %s.outcomes WHERE run_id = ?"
                            " ORDER BY algorithm, variant"
                          : "SELECT " OUTCOME_COLUMNS " FROM %s.outcomes WHERE run_id = ?"
                            " ORDER BY rowid",
                      run)))
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct store_outcome o = {
        .algorithm = col_or_null(s, 0),
        .variant = col_or_null(s, 1),
        .kind = col_or_null(s, 2),
        .verdict = col_or_null(s, 3),
        .cases = sqlite3_column_int64(s, 4),
        .passed = sqlite3_column_int64(s, 5),
        .failed = sqlite3_column_int64(s, 6),
        .skipped = sqlite3_column_int64(s, 7),
        .errors = sqlite3_column_int64(s, 8),
        .seconds = sqlite3_column_double(s, 9),
        .caught = sqlite3_column_type(s, 10) != SQLITE_NULL,
        .cases_to_catch = sqlite3_column_int64(s, 10),
        .seconds_to_catch = sqlite3_column_double(s, 11),
        .reason = col_or_null(s, 12),
        .first_case = col_or_null(s, 13),
        .shrunk_case = col_or_null(s, 14),
        .reproducer = col_or_null(s, 15),
    };
    stop = fn(ctx, &o);
  }
  return walk_end(s, rc, stop);
}

int store_each_historical(struct store *st, int64_t run,
                          int (*fn)(void *ctx, const char *alg, const char *var), void *ctx)
{
  sqlite3_stmt *s;
  if (!(s = run_query(st, STORE_MAIN,
                      "SELECT DISTINCT algorithm, variant FROM outcomes WHERE kind = 'historical'"
                      " AND run_id IN (SELECT id FROM runs WHERE id <= ?1 AND coalesce(gpu_name,"
                      " '') = coalesce((SELECT gpu_name FROM runs WHERE id = ?1), ''))"
                      " ORDER BY algorithm, variant",
                      run)))
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *a = col_or_null(s, 0), *v = col_or_null(s, 1);
    stop = fn(ctx, a ? a : "", v ? v : "");
  }
  return walk_end(s, rc, stop);
}

int store_each_check(struct store *st, int64_t run,
                     int (*fn)(void *ctx, const struct store_check *c), void *ctx)
{
  sqlite3_stmt *s;
  if (!store_has_table(st, STORE_MAIN, "timings"))
    return 0;
  if (!(s = run_query(
            st, STORE_MAIN,
            "SELECT algorithm, variant, kind,"
            " CASE WHEN sum(verdict IN ('fail','crash','timeout') AND kind != 'historical') > 0"
            "  THEN max(CASE WHEN verdict IN ('fail','crash','timeout') THEN verdict END)"
            "  WHEN sum(verdict IN ('pass','caught')) > 0 THEN 'pass'"
            "  WHEN sum(verdict = 'error') > 0 THEN 'error' ELSE 'skip' END,"
            " sum(coalesce(seconds, 0)),"
            " coalesce(max(CASE WHEN verdict IN ('fail','crash','timeout','error') OR"
            "  (verdict = 'skip') THEN reason END), ''),"
            " group_concat(params || ': ' || verdict || coalesce(', ' || printf('%%.4f', median_ms)"
            "  || ' ms', ''), char(10))"
            " FROM timings WHERE run_id = ? GROUP BY algorithm, variant ORDER BY min(id)",
            run)))
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct store_check c = {col_or_null(s, 0),          col_or_null(s, 1), col_or_null(s, 2),
                            col_or_null(s, 3),          col_or_null(s, 5), col_or_null(s, 6),
                            sqlite3_column_double(s, 4)};
    stop = fn(ctx, &c);
  }
  return walk_end(s, rc, stop);
}

/* ---- whole rows --------------------------------------------------------------------------- */

int store_each_row(struct store *st, enum store_table t, int64_t run, store_row_fn fn, void *ctx)
{
  static const char *const sql[] = {
      [STORE_TABLE_RUN] = "SELECT * FROM runs WHERE id = ?",
      [STORE_TABLE_OUTCOMES] =
          "SELECT * FROM outcomes WHERE run_id = ? ORDER BY algorithm, variant",
      [STORE_TABLE_TIMINGS] = "SELECT * FROM timings WHERE run_id = ? ORDER BY id",
      [STORE_TABLE_ACCURACY] =
          "SELECT a.timing_id, t.algorithm, t.variant, t.params, t.seed, a.metric, a.value"
          " FROM accuracy a JOIN timings t ON a.timing_id = t.id WHERE t.run_id = ?"
          " ORDER BY a.timing_id, a.metric",
  };
  sqlite3_stmt *s;
  struct store_value v[64];
  if ((t == STORE_TABLE_TIMINGS && !store_has_table(st, STORE_MAIN, "timings")) ||
      (t == STORE_TABLE_ACCURACY && !store_has_table(st, STORE_MAIN, "accuracy")))
    return 0;
  if (!(s = run_query(st, STORE_MAIN, sql[t], run)))
    return -1;
  int n = sqlite3_column_count(s), rc, stop = 0;
  n = n < 64 ? n : 64;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    for (int i = 0; i < n; i++) {
      int type = sqlite3_column_type(s, i);
      v[i].name = sqlite3_column_name(s, i);
      v[i].type = type == SQLITE_INTEGER ? STORE_INT
                  : type == SQLITE_FLOAT ? STORE_REAL
                  : type == SQLITE_NULL  ? STORE_NULL
                                         : STORE_TEXT;
      v[i].i = sqlite3_column_int64(s, i);
      v[i].d = sqlite3_column_double(s, i);
      v[i].s = (const char *)sqlite3_column_text(s, i);
    }
    stop = fn(ctx, v, n);
  }
  return walk_end(s, rc, stop);
}

/* ---- history: nights and the timed benchmarks over them ---------------------------------- */

/* The nights of a history: finished runs (and run ?2 itself, which may still be running) started
 * at or after ?1 (NULL: any) and, when ?2 > 0, not after run ?2 in the order of start. */
#define NIGHTS_WHERE                                                                               \
  " (r.status = 'finished' OR r.id = ?2) AND (?1 IS NULL OR r.started_at >= ?1) AND (?2 <= 0 OR"   \
  " (r.started_at, r.id) <= ((SELECT started_at FROM runs WHERE id = ?2), ?2))"

/* since and until bound to parameters 1 and 2 */
static void bind_nights(sqlite3_stmt *s, const char *since, int64_t until)
{
  if (since && since[0])
    sqlite3_bind_text(s, 1, since, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 2, until);
}

int store_each_night(struct store *st, const char *since, int64_t until, store_night_fn fn,
                     void *ctx)
{
  sqlite3_stmt *s;
  int timings = store_has_table(st, STORE_MAIN, "timings");
  if (store_prepare(st, STORE_MAIN,
                    timings ? "SELECT r.id, r.started_at, coalesce(r.git_commit, ''),"
                              " coalesce(r.gpu_name, ''), coalesce(r.host, ''), r.status,"
                              " coalesce(r.exit_code, -1), (SELECT count(*) FROM outcomes o WHERE"
                              " o.run_id = r.id AND o.verdict IN ('fail', 'crash', 'timeout',"
                              " 'escaped')), (SELECT count(*) FROM timings t WHERE t.run_id = r.id"
                              " AND t.samples > 0) FROM runs r WHERE" NIGHTS_WHERE
                              " ORDER BY r.started_at, r.id"
                            : "SELECT r.id, r.started_at, coalesce(r.git_commit, ''),"
                              " coalesce(r.gpu_name, ''), coalesce(r.host, ''), r.status,"
                              " coalesce(r.exit_code, -1), (SELECT count(*) FROM outcomes o WHERE"
                              " o.run_id = r.id AND o.verdict IN ('fail', 'crash', 'timeout',"
                              " 'escaped')), 0 FROM runs r WHERE" NIGHTS_WHERE
                              " ORDER BY r.started_at, r.id",
                    &s))
    return -1;
  bind_nights(s, since, until);
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct store_night n;
    n.id = sqlite3_column_int64(s, 0);
    col_text(s, 1, n.started, sizeof n.started);
    col_text(s, 2, n.commit, sizeof n.commit);
    col_text(s, 3, n.gpu, sizeof n.gpu);
    col_text(s, 4, n.host, sizeof n.host);
    col_text(s, 5, n.status, sizeof n.status);
    n.exit_code = sqlite3_column_int(s, 6);
    n.failed = sqlite3_column_int64(s, 7);
    n.timings = sqlite3_column_int64(s, 8);
    stop = fn(ctx, &n);
  }
  return walk_end(s, rc, stop);
}

int store_each_point(struct store *st, const char *since, int64_t until, const char *alg,
                     const char *var, store_point_fn fn, void *ctx)
{
  sqlite3_stmt *s;
  if (!store_has_table(st, STORE_MAIN, "timings"))
    return 0;
  /* a group is contiguous: ordered by its first row, then by start */
  if (store_prepare(
          st, STORE_MAIN,
          "SELECT algorithm, variant, kind, l2, gpu, params, seed, run_id, started, git, median_ms,"
          " coalesce(min_ms, median_ms), coalesce(max_ms, median_ms), coalesce(noise, 0) FROM"
          " (SELECT t.*, r.started_at AS started, coalesce(r.git_commit, '') AS git,"
          "  coalesce(r.gpu_name, '') AS gpu, min(t.id) OVER (PARTITION BY t.algorithm,"
          "  t.variant, t.params, t.seed, t.l2, coalesce(r.gpu_name, '')) AS first"
          "  FROM timings t JOIN runs r ON t.run_id = r.id WHERE t.samples > 0 AND"
          "  t.median_ms > 0 AND (?3 IS NULL OR t.algorithm = ?3) AND (?4 IS NULL OR"
          "  t.variant = ?4) AND" NIGHTS_WHERE ")"
          " ORDER BY algorithm, variant, first, started, run_id, id",
          &s))
    return -1;
  bind_nights(s, since, until);
  if (alg)
    sqlite3_bind_text(s, 3, alg, -1, SQLITE_STATIC);
  if (var)
    sqlite3_bind_text(s, 4, var, -1, SQLITE_STATIC);
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct store_point p;
    col_text(s, 0, p.algorithm, sizeof p.algorithm);
    col_text(s, 1, p.variant, sizeof p.variant);
    col_text(s, 2, p.kind, sizeof p.kind);
    col_text(s, 3, p.l2, sizeof p.l2);
    col_text(s, 4, p.gpu, sizeof p.gpu);
    col_text(s, 5, p.params, sizeof p.params);
    p.seed = (uint64_t)sqlite3_column_int64(s, 6);
    p.run = sqlite3_column_int64(s, 7);
    col_text(s, 8, p.started, sizeof p.started);
    col_text(s, 9, p.commit, sizeof p.commit);
    p.median_ms = sqlite3_column_double(s, 10);
    p.min_ms = sqlite3_column_double(s, 11);
    p.max_ms = sqlite3_column_double(s, 12);
    p.noise = sqlite3_column_double(s, 13);
    stop = fn(ctx, &p);
  }
  return walk_end(s, rc, stop);
}

int store_each_coverage(struct store *st, int64_t run,
                        int (*fn)(void *ctx, const char *alg, const char *var, const char *regime,
                                  int64_t cases),
                        void *ctx)
{
  if (!store_has_table(st, STORE_MAIN, "coverage"))
    return 0;
  sqlite3_stmt *s = run_query(st, STORE_MAIN,
                              "SELECT algorithm, variant, regime, cases FROM %s.coverage"
                              " WHERE run_id = ? ORDER BY rowid",
                              run);
  if (!s)
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW)
    stop = fn(ctx, col_or_null(s, 0), col_or_null(s, 1), col_or_null(s, 2),
              sqlite3_column_int64(s, 3));
  return walk_end(s, rc, stop);
}

int store_each_sanitizer(struct store *st, int64_t run, int64_t *from,
                         int (*fn)(void *ctx, const struct sanitizer_row *r), void *ctx)
{
  *from = 0;
  if (!store_has_table(st, STORE_MAIN, "sanitizer"))
    return 0;
  sqlite3_stmt *s = run_query(st, STORE_MAIN,
                              "SELECT run_id, algorithm, variant, kind, tool, verdict, cases,"
                              " seconds, detail FROM %s.sanitizer WHERE run_id ="
                              " (SELECT max(run_id) FROM %s.sanitizer WHERE run_id <= ?)"
                              " ORDER BY rowid",
                              run);
  if (!s)
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct sanitizer_row r = {col_or_null(s, 1), col_or_null(s, 2), col_or_null(s, 3),
                              col_or_null(s, 4), col_or_null(s, 5), sqlite3_column_int64(s, 6),
                              sqlite3_column_double(s, 7), col_or_null(s, 8)};
    *from = sqlite3_column_int64(s, 0);
    stop = fn(ctx, &r);
  }
  return walk_end(s, rc, stop);
}
