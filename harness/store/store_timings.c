/* The read side of the store, timings: a run's timings, samples and accuracy, and their history
 * over the nights (the trends, `gpuregress history`). See store.h; the rest of the read side is
 * store_read.c. */
#include "store.h"
#include "store_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  store_col_text(s, 1, t->algorithm, sizeof t->algorithm);
  store_col_text(s, 2, t->variant, sizeof t->variant);
  store_col_text(s, 3, t->kind, sizeof t->kind);
  store_col_text(s, 4, t->l2, sizeof t->l2);
  store_col_text(s, 5, t->verdict, sizeof t->verdict);
  store_col_text(s, 6, t->params, sizeof t->params);
  store_col_text(s, 7, t->reason, sizeof t->reason);
  t->seed = (uint64_t)sqlite3_column_int64(s, 8);
  t->samples = sqlite3_column_int64(s, 9);
  t->launches = sqlite3_column_int64(s, 10);
  double *const v[] = {&t->median_ms, &t->min_ms,    &t->max_ms,   &t->noise,        &t->bytes,
                       &t->gbps,      &t->copy_gbps, &t->pct_copy, &t->sm_clock_mhz, &t->seconds,
                       &t->items_per_s};
  for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
    *v[i] = sqlite3_column_double(s, 11 + i);
  store_col_text(s, 22, t->item_unit, sizeof t->item_unit);
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
  return store_walk_end(s, rc, stop);
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

int store_last_seconds(struct store *st, const char *alg, const char *var, const char *params,
                       double *seconds)
{
  sqlite3_stmt *s;
  *seconds = 0;
  if (!store_has_table(st, STORE_MAIN, "timings"))
    return 1;
  if (store_prepare(st, STORE_MAIN,
                    "SELECT seconds FROM %s.timings WHERE algorithm = ? AND variant = ?"
                    " AND params = ? AND seconds > 0 ORDER BY id DESC LIMIT 1",
                    &s))
    return -1;
  sqlite3_bind_text(s, 1, alg, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, var, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 3, params, -1, SQLITE_STATIC);
  int rc = sqlite3_step(s);
  double v = rc == SQLITE_ROW ? sqlite3_column_double(s, 0) : 0;
  sqlite3_finalize(s);
  if (rc != SQLITE_ROW)
    return rc == SQLITE_DONE ? 1 : -1;
  if (!(v > 0 && v < 86400)) /* NaN, or a value from a hostile or broken database */
    return 1;
  *seconds = v;
  return 0;
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
  if (!(s = store_run_query(st, src,
                      "SELECT t.algorithm, t.variant, t.kind, t.params, t.seed, a.metric, a.value"
                      " FROM %s.accuracy a JOIN %s.timings t ON a.timing_id = t.id"
                      " WHERE t.run_id = ? ORDER BY t.id, a.metric",
                      run)))
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    store_col_text(s, 0, a.algorithm, sizeof a.algorithm);
    store_col_text(s, 1, a.variant, sizeof a.variant);
    store_col_text(s, 2, a.kind, sizeof a.kind);
    store_col_text(s, 3, a.params, sizeof a.params);
    a.seed = (uint64_t)sqlite3_column_int64(s, 4);
    store_col_text(s, 5, a.metric, sizeof a.metric);
    a.value = sqlite3_column_double(s, 6);
    stop = fn(ctx, &a);
  }
  return store_walk_end(s, rc, stop);
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
    store_col_text(s, 1, n.started, sizeof n.started);
    store_col_text(s, 2, n.commit, sizeof n.commit);
    store_col_text(s, 3, n.gpu, sizeof n.gpu);
    store_col_text(s, 4, n.host, sizeof n.host);
    store_col_text(s, 5, n.status, sizeof n.status);
    n.exit_code = sqlite3_column_int(s, 6);
    n.failed = sqlite3_column_int64(s, 7);
    n.timings = sqlite3_column_int64(s, 8);
    stop = fn(ctx, &n);
  }
  return store_walk_end(s, rc, stop);
}

int store_each_point(struct store *st, const char *since, int64_t until, const char *alg,
                     const char *var, store_point_fn fn, void *ctx)
{
  sqlite3_stmt *s;
  if (!store_has_table(st, STORE_MAIN, "timings"))
    return 0;
  /* the GPU model of a row: its own where it records one (schema 8: a night spread over hosts
   * of several models), else its run's */
  sqlite3_stmt *q;
  int row_gpu = 0;
  if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM pragma_table_info('timings', 'main') WHERE name ="
                                 " 'gpu_name'", -1, &q, NULL) == SQLITE_OK) {
    row_gpu = sqlite3_step(q) == SQLITE_ROW;
    sqlite3_finalize(q);
  }
  const char *gpu = row_gpu ? "coalesce(t.gpu_name, r.gpu_name, '')" : "coalesce(r.gpu_name, '')";
  char sql[4096];
  /* a group is contiguous: ordered by its first row, then by start. The first row of each
   * group comes from a grouping of the keys joined back, not a window over the rows: one sort of
   * the rows, not two (issue 41: 10^6 nights); IS: a NULL key groups as the window grouped it */
#define POINTS_FROM                                                                                \
  " FROM timings t JOIN runs r ON t.run_id = r.id WHERE t.samples > 0 AND t.median_ms > 0 AND"    \
  " (?3 IS NULL OR t.algorithm = ?3) AND (?4 IS NULL OR t.variant = ?4) AND" NIGHTS_WHERE
  gr_fmt(sql, sizeof sql,
         "SELECT t.algorithm, t.variant, t.kind, t.l2, %s AS gpu, t.params, t.seed, t.run_id,"
         " r.started_at AS started, coalesce(r.git_commit, ''), t.median_ms,"
         " coalesce(t.min_ms, t.median_ms), coalesce(t.max_ms, t.median_ms), coalesce(t.noise, 0)"
         " FROM timings t JOIN runs r ON t.run_id = r.id JOIN (SELECT t.algorithm AS a,"
         " t.variant AS v, t.params AS p, t.seed AS s, t.l2 AS l, %s AS k, min(t.id) AS first"
         POINTS_FROM " GROUP BY 1, 2, 3, 4, 5, 6) g ON g.a IS t.algorithm AND g.v IS t.variant"
         " AND g.p IS t.params AND g.s IS t.seed AND g.l IS t.l2 AND g.k IS %s"
         " WHERE t.samples > 0 AND t.median_ms > 0 AND (?3 IS NULL OR t.algorithm = ?3) AND"
         " (?4 IS NULL OR t.variant = ?4) AND" NIGHTS_WHERE
         " ORDER BY t.algorithm, t.variant, g.first, started, t.run_id, t.id",
         gpu, gpu, gpu);
#undef POINTS_FROM
  if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  bind_nights(s, since, until);
  if (alg)
    sqlite3_bind_text(s, 3, alg, -1, SQLITE_STATIC);
  if (var)
    sqlite3_bind_text(s, 4, var, -1, SQLITE_STATIC);
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct store_point p;
    store_col_text(s, 0, p.algorithm, sizeof p.algorithm);
    store_col_text(s, 1, p.variant, sizeof p.variant);
    store_col_text(s, 2, p.kind, sizeof p.kind);
    store_col_text(s, 3, p.l2, sizeof p.l2);
    store_col_text(s, 4, p.gpu, sizeof p.gpu);
    store_col_text(s, 5, p.params, sizeof p.params);
    p.seed = (uint64_t)sqlite3_column_int64(s, 6);
    p.run = sqlite3_column_int64(s, 7);
    store_col_text(s, 8, p.started, sizeof p.started);
    store_col_text(s, 9, p.commit, sizeof p.commit);
    p.median_ms = sqlite3_column_double(s, 10);
    p.min_ms = sqlite3_column_double(s, 11);
    p.max_ms = sqlite3_column_double(s, 12);
    p.noise = sqlite3_column_double(s, 13);
    stop = fn(ctx, &p);
  }
  return store_walk_end(s, rc, stop);
}
