/* The read side of the store: every SELECT of gpuregress (compare, export, plot and the
 * dashboard read rows through these functions): runs, outcomes, checks, whole rows, coverage,
 * sanitizer findings here; timings, accuracy and their history over nights in store_timings.c.
 * See store.h.
 *
 * A baseline file is attached as schema "base" (store.c); a database opened with store_open_read
 * is read as it is (an older schema may lack the timings table: it reads as empty).
 *
 * Every text handed out is printable (gr_is_printable): a database may come from another machine
 * (import), and what it holds goes on to terminals, pages and plots. A text with a control
 * character or bytes that are not UTF-8 is handed out with those bytes as \xNN (gr_printable):
 * the same stored text always reads the same, and a row never disappears for its text. */
#include "store.h"
#include "store_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- column helpers shared with store_timings.c (store_private.h) -------------------------- */

void store_col_text(sqlite3_stmt *s, int i, char *dst, size_t len)
{
  gr_printable(dst, len, (const char *)sqlite3_column_text(s, i));
}

/* The escaped forms live in a ring of buffers longer than any row. */
const char *store_col_or_null(sqlite3_stmt *s, int i)
{
  static char *ring[256];
  static unsigned next;
  const char *t = (const char *)sqlite3_column_text(s, i);
  if (!t || gr_is_printable(t))
    return t;
  size_t n = 4 * strlen(t) + 1;
  char *e = realloc(ring[next % 256], n);
  if (!e)
    return "(unprintable)";
  ring[next++ % 256] = e;
  return gr_printable(e, n, t);
}

/* fmt (formatted for src as store_prepare does) prepared, with run bound to parameter 1; NULL
 * on a database error. */
sqlite3_stmt *store_run_query(struct store *st, enum store_src src, const char *fmt, int64_t run)
{
  sqlite3_stmt *s;
  if (store_prepare(st, src, fmt, &s))
    return NULL;
  sqlite3_bind_int64(s, 1, run);
  return s;
}

/* The end of a walk over the rows of s: what the callback returned to stop, else 0 when every
 * row was read (rc SQLITE_DONE), else -1. */
int store_walk_end(sqlite3_stmt *s, int rc, int stop)
{
  sqlite3_finalize(s);
  return stop ? stop : rc == SQLITE_DONE ? 0 : -1;
}

/* ---- runs --------------------------------------------------------------------------------- */

/* The columns every schema has. 0, or -1 (no such run). */
static int run_base(struct store *st, enum store_src src, int64_t id, struct store_run *r)
{
  sqlite3_stmt *s;
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
    store_col_text(s, 1, r->commit, sizeof r->commit);
    store_col_text(s, 2, r->gpu, sizeof r->gpu);
    store_col_text(s, 3, r->started, sizeof r->started);
    store_col_text(s, 4, r->status, sizeof r->status);
    r->exit_code = sqlite3_column_int(s, 5);
    store_col_text(s, 6, r->host, sizeof r->host);
    store_col_text(s, 7, r->command, sizeof r->command);
    r->dirty = sqlite3_column_int(s, 8);
    r->sms = sqlite3_column_int(s, 9);
    store_col_text(s, 10, r->cc, sizeof r->cc);
    r->driver = sqlite3_column_int(s, 11);
    r->runtime = sqlite3_column_int(s, 12);
    r->sm_clock_mhz = sqlite3_column_int(s, 13);
    r->mem_clock_mhz = sqlite3_column_int(s, 14);
    r->seed = (uint64_t)sqlite3_column_int64(s, 15);
    rc = 0;
  }
  sqlite3_finalize(s);
  return rc;
}

/* Columns of later schemas (absent from an older baseline file: read as none), and the SM
 * clock while timing (the mean of the timings' medians). */
static void run_later(struct store *st, enum store_src src, int64_t id, struct store_run *r)
{
  sqlite3_stmt *s;
  /* schema 3 */
  if (store_prepare(st, src,
                               "SELECT coalesce(checkout_commit, ''), allow_no_gpu FROM %s.runs"
                               " WHERE id = ?",
                               &s) == 0) {
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) == SQLITE_ROW) {
      store_col_text(s, 0, r->checkout, sizeof r->checkout);
      r->allow_no_gpu = sqlite3_column_int(s, 1);
    }
    sqlite3_finalize(s);
  }
  /* schema 8: NVML's view at the start, the recorded verdict */
  if (store_prepare(st, src,
                               "SELECT coalesce(driver_release, ''), coalesce(sm_clock_now_mhz, 0),"
                               " coalesce(mem_clock_now_mhz, 0), coalesce(gpu_temp_c, 0),"
                               " coalesce(verdict, ''), coalesce(verdict_exit, -1),"
                               " coalesce(nightly_exit, -1), coalesce(verdict_summary, '')"
                               " FROM %s.runs WHERE id = ?",
                               &s) == 0) {
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) == SQLITE_ROW) {
      store_col_text(s, 0, r->driver_release, sizeof r->driver_release);
      r->sm_clock_now_mhz = sqlite3_column_int(s, 1);
      r->mem_clock_now_mhz = sqlite3_column_int(s, 2);
      r->temp_c = sqlite3_column_int(s, 3);
      store_col_text(s, 4, r->verdict, sizeof r->verdict);
      r->verdict_exit = sqlite3_column_int(s, 5);
      r->nightly_exit = sqlite3_column_int(s, 6);
      store_col_text(s, 7, r->verdict_summary, sizeof r->verdict_summary);
    }
    sqlite3_finalize(s);
  }
  /* schema 10: provenance (gpuregress's own version and commit) and the runner's name */
  if (store_prepare(st, src,
                               "SELECT coalesce(gr_version, ''), coalesce(gr_commit, ''),"
                               " coalesce(runner, '') FROM %s.runs WHERE id = ?",
                               &s) == 0) {
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) == SQLITE_ROW) {
      store_col_text(s, 0, r->gr_version, sizeof r->gr_version);
      store_col_text(s, 1, r->gr_commit, sizeof r->gr_commit);
      store_col_text(s, 2, r->runner, sizeof r->runner);
      r->runner[gr_name_ok(r->runner) ? sizeof r->runner - 1 : 0] = 0; /* no name: none */
      r->gr_version[gr_name_ok(r->gr_version) ? sizeof r->gr_version - 1 : 0] = 0;
    }
    sqlite3_finalize(s);
  }
  /* the SM clock while timing: the mean of the timings' medians */
  if (store_has_table(st, src, "timings") &&
      store_prepare(st, src,
                    "SELECT coalesce(avg(sm_clock_mhz), 0) FROM %s.timings WHERE run_id = ?"
                    " AND sm_clock_mhz > 0",
                    &s) == 0) {
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) == SQLITE_ROW)
      r->timed_sm_clock_mhz = sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
  }
}

int store_get_run(struct store *st, enum store_src src, int64_t id, struct store_run *r)
{
  memset(r, 0, sizeof *r);
  r->exit_code = -1;
  r->verdict_exit = r->nightly_exit = -1;
  if (run_base(st, src, id, r))
    return -1;
  run_later(st, src, id, r);
  return 0;
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
    return -1;
  if (cur > 0 && same_db)
    sqlite3_bind_int64(s, 1, cur);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(s, 0);
    const char *g = store_col_or_null(s, 1);
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
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return -1; /* a damaged file is not a history without runs (store_errmsg says why) */
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
    store_col_text(s, 1, commits[n], sizeof commits[n]);
    n++;
  }
  sqlite3_finalize(s);
  return n;
}

/* ---- outcomes and checks ------------------------------------------------------------------ */

/* The runner's name of run ("" where the file has none or it is not a name: gpuregress). */
static void run_runner(struct store *st, enum store_src src, int64_t run, char *dst, size_t len)
{
  struct store_run r;
  gr_fmt(dst, len, "%s", store_get_run(st, src, run, &r) == 0 ? r.runner : "");
}

#define OUTCOME_COLUMNS                                                                            \
  "algorithm, variant, kind, verdict, cases, passed, failed, skipped, errors, seconds,"            \
  " cases_to_catch, seconds_to_catch, reason, first_case, shrunk_case, reproducer"

int store_each_outcome(struct store *st, enum store_src src, int64_t run, enum store_order order,
                       store_outcome_fn fn, void *ctx)
{
  sqlite3_stmt *s;
  if (!(s = store_run_query(st, src,
                      order == STORE_BY_NAME
                          ? "SELECT " OUTCOME_COLUMNS " FROM %s.outcomes WHERE run_id = ?"
                            " ORDER BY algorithm, variant"
                          : "SELECT " OUTCOME_COLUMNS " FROM %s.outcomes WHERE run_id = ?"
                            " ORDER BY rowid",
                      run)))
    return -1;
  char runner[GR_NAME_MAX + 1], repro[4 * GR_CASE_TEXT_LEN + 256];
  run_runner(st, src, run, runner, sizeof runner);
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct store_outcome o = {
        .algorithm = store_col_or_null(s, 0),
        .variant = store_col_or_null(s, 1),
        .kind = store_col_or_null(s, 2),
        .verdict = store_col_or_null(s, 3),
        .cases = sqlite3_column_int64(s, 4),
        .passed = sqlite3_column_int64(s, 5),
        .failed = sqlite3_column_int64(s, 6),
        .skipped = sqlite3_column_int64(s, 7),
        .errors = sqlite3_column_int64(s, 8),
        .seconds = sqlite3_column_double(s, 9),
        .caught = sqlite3_column_type(s, 10) != SQLITE_NULL,
        .cases_to_catch = sqlite3_column_int64(s, 10),
        .seconds_to_catch = sqlite3_column_double(s, 11),
        .reason = store_col_or_null(s, 12),
        .first_case = store_col_or_null(s, 13),
        .shrunk_case = store_col_or_null(s, 14),
    };
    o.reproducer = gr_repro_shown(repro, sizeof repro, runner, store_col_or_null(s, 15),
                                  o.variant, o.first_case, o.shrunk_case);
    stop = fn(ctx, &o);
  }
  return store_walk_end(s, rc, stop);
}

int store_each_historical(struct store *st, int64_t run,
                          int (*fn)(void *ctx, const char *alg, const char *var), void *ctx)
{
  sqlite3_stmt *s;
  if (!(s = store_run_query(st, STORE_MAIN,
                      "SELECT DISTINCT algorithm, variant FROM outcomes WHERE kind = 'historical'"
                      " AND run_id IN (SELECT id FROM runs WHERE id <= ?1 AND coalesce(gpu_name,"
                      " '') = coalesce((SELECT gpu_name FROM runs WHERE id = ?1), ''))"
                      " ORDER BY algorithm, variant",
                      run)))
    return -1;
  int rc, stop = 0;
  while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *a = store_col_or_null(s, 0), *v = store_col_or_null(s, 1);
    stop = fn(ctx, a ? a : "", v ? v : "");
  }
  return store_walk_end(s, rc, stop);
}

int store_each_check(struct store *st, int64_t run,
                     int (*fn)(void *ctx, const struct store_check *c), void *ctx)
{
  sqlite3_stmt *s;
  if (!store_has_table(st, STORE_MAIN, "timings"))
    return 0;
  if (!(s = store_run_query(
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
    struct store_check c = {store_col_or_null(s, 0),          store_col_or_null(s, 1), store_col_or_null(s, 2),
                            store_col_or_null(s, 3),          store_col_or_null(s, 5), store_col_or_null(s, 6),
                            sqlite3_column_double(s, 4)};
    stop = fn(ctx, &c);
  }
  return store_walk_end(s, rc, stop);
}

/* ---- whole rows --------------------------------------------------------------------------- */

/* The text of column name in a row (NULL: none, or not text). */
static const char *col(const struct store_value *v, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (!strcmp(v[i].name, name))
      return v[i].type == STORE_TEXT ? v[i].s : NULL;
  return NULL;
}

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
  if (!(s = store_run_query(st, STORE_MAIN, sql[t], run)))
    return -1;
  int n = sqlite3_column_count(s), rc, stop = 0;
  n = n < 64 ? n : 64;
  char runner[GR_NAME_MAX + 1], repro[4 * GR_CASE_TEXT_LEN + 256];
  run_runner(st, STORE_MAIN, run, runner, sizeof runner);
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
      v[i].s = store_col_or_null(s, i);
    }
    if (t == STORE_TABLE_OUTCOMES) /* the reproducer as shown everywhere, not as stored */
      for (int i = 0; i < n; i++)
        if (!strcmp(v[i].name, "reproducer")) {
          v[i].s = gr_repro_shown(repro, sizeof repro, runner, v[i].s, col(v, n, "variant"),
                                  col(v, n, "first_case"), col(v, n, "shrunk_case"));
          v[i].type = v[i].s ? STORE_TEXT : STORE_NULL;
        }
    if (t == STORE_TABLE_RUN) /* a runner's name that is not one is shown as none */
      for (int i = 0; i < n; i++)
        if (!strcmp(v[i].name, "runner") && v[i].s && !gr_name_ok(v[i].s))
          v[i].type = STORE_NULL, v[i].s = NULL;
    stop = fn(ctx, v, n);
  }
  return store_walk_end(s, rc, stop);
}

int store_knows_algorithm(struct store *st, const char *alg)
{
  sqlite3_stmt *s;
  int timings = store_has_table(st, STORE_MAIN, "timings");
  if (sqlite3_prepare_v2(st->db,
                         timings ? "SELECT 1 FROM outcomes WHERE algorithm = ?1 UNION ALL"
                                   " SELECT 1 FROM timings WHERE algorithm = ?1 LIMIT 1"
                                 : "SELECT 1 FROM outcomes WHERE algorithm = ?1 LIMIT 1",
                         -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(s, 1, alg, -1, SQLITE_STATIC);
  int found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}
