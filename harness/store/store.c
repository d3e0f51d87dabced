/* The SQLite store's write side: runs, cases, outcomes, coverage, sanitizer verdicts, timings,
 * samples and accuracy, in short batches; a failed write is remembered and reaches the caller.
 * Opening and the schema are store_open.c. See store.h. */
#include "store.h"
#include "store_private.h"

#include "alg.h"

#include <errno.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

sqlite3 *store_db(struct store *st) { return st->db; }

const char *store_errmsg(struct store *st)
{
  return st->msg[0] ? st->msg : store_db_msg(st->db, st->emsg, sizeof st->emsg);
}

/* Remember why a write failed (the rollback that follows would replace SQLite's message); -1. */
static int write_failed(struct store *st)
{
  if (!st->msg[0])
    store_db_msg(st->db, st->msg, sizeof st->msg);
  st->err = sqlite3_extended_errcode(st->db);
  st->write_failed = 1;
  if (st->in_batch)
    st->batch_failed = 1;
  return -1;
}

int store_write_failed(struct store *st) { return st->write_failed; }

const char *store_path(struct store *st) { return st->path; }

void store_utc_now(char *buf, size_t len)
{
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
  if (v)
    sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(s, i);
}

/* The run's GPU description, bound from parameter `first` on in the order of GPU_COLUMNS. */
#define GPU_COLUMNS                                                                                \
  "gpu_name, gpu_sms, gpu_cc, gpu_mem_bytes, driver_version, runtime_version, sm_clock_mhz,"      \
  " mem_clock_mhz, driver_release, sm_clock_now_mhz, mem_clock_now_mhz, gpu_temp_c"
#define GPU_N_COLUMNS 12
static void bind_gpu(sqlite3_stmt *s, int first, const struct run_info *ri)
{
  bind_text(s, first, ri->gpu_name && ri->gpu_name[0] ? ri->gpu_name : NULL);
  sqlite3_bind_int(s, first + 1, ri->gpu_sms);
  bind_text(s, first + 2, ri->gpu_cc);
  sqlite3_bind_int64(s, first + 3, ri->gpu_mem_bytes);
  sqlite3_bind_int(s, first + 4, ri->driver_version);
  sqlite3_bind_int(s, first + 5, ri->runtime_version);
  sqlite3_bind_int(s, first + 6, ri->sm_clock_mhz);
  sqlite3_bind_int(s, first + 7, ri->mem_clock_mhz);
  bind_text(s, first + 8, ri->driver_release && ri->driver_release[0] ? ri->driver_release : NULL);
  sqlite3_bind_int(s, first + 9, ri->sm_clock_now_mhz);
  sqlite3_bind_int(s, first + 10, ri->mem_clock_now_mhz);
  sqlite3_bind_int(s, first + 11, ri->temp_c);
}

int64_t store_begin_run(struct store *st, const struct run_info *ri, char *why, size_t len)
{
  static const char sql[] =
      "INSERT INTO runs (started_at, command, git_commit, git_dirty, host, seed, budget_s, pid,"
      " checkout_commit, allow_no_gpu, gr_version, gr_commit, runner, " GPU_COLUMNS ")"
      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  sqlite3_stmt *s;
  char now[32];
  if (store_commit(st) || sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
    gr_fmt(why, len, "cannot record the run: %s",
           store_db_msg(st->db, st->emsg, sizeof st->emsg));
    return -1;
  }
  store_utc_now(now, sizeof now);
  bind_text(s, 1, now);
  bind_text(s, 2, ri->command);
  bind_text(s, 3, ri->git_commit);
  sqlite3_bind_int(s, 4, ri->git_dirty);
  bind_text(s, 5, ri->host);
  sqlite3_bind_int64(s, 6, (sqlite3_int64)ri->seed);
  sqlite3_bind_double(s, 7, ri->budget_s);
  sqlite3_bind_int64(s, 8, (sqlite3_int64)getpid());
  bind_text(s, 9, ri->checkout_commit && ri->checkout_commit[0] ? ri->checkout_commit : NULL);
  sqlite3_bind_int(s, 10, ri->allow_no_gpu);
  bind_text(s, 11, ri->gr_version);
  bind_text(s, 12, ri->gr_commit);
  bind_text(s, 13, ri->runner && ri->runner[0] ? ri->runner : NULL);
  bind_gpu(s, 14, ri);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) {
    gr_fmt(why, len, "cannot record the run: %s",
           store_db_msg(st->db, st->emsg, sizeof st->emsg));
    return -1;
  }
  return (int64_t)sqlite3_last_insert_rowid(st->db);
}

int store_set_run_gpu(struct store *st, int64_t run, const struct run_info *ri)
{
  static const char sql[] = "UPDATE runs SET (" GPU_COLUMNS ") = (?,?,?,?,?,?,?,?,?,?,?,?)"
                            " WHERE id = ?";
  sqlite3_stmt *s;
  if (store_commit(st) || sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  bind_gpu(s, 1, ri);
  sqlite3_bind_int64(s, GPU_N_COLUMNS + 1, run);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  return rc == SQLITE_DONE ? 0 : -1;
}

static int update_run_row(struct store *st, int64_t run, const char *status, int exit_code)
{
  sqlite3_stmt *s;
  char now[32];
  if (sqlite3_prepare_v2(st->db,
                         "UPDATE runs SET finished_at = ?, status = ?, exit_code = ? WHERE id = ?",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  store_utc_now(now, sizeof now);
  bind_text(s, 1, now);
  bind_text(s, 2, status);
  sqlite3_bind_int(s, 3, exit_code);
  sqlite3_bind_int64(s, 4, run);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  return rc == SQLITE_DONE ? 0 : -1;
}

int store_finish_run(struct store *st, int64_t run, const char *status, int exit_code)
{
  store_commit(st); /* a failed batch is rolled back: the run's row is still worth updating */
  if (update_run_row(st, run, status, exit_code) == 0)
    return 0;
  /* A full disk (or a file size limit) stops the write-ahead log first: it only grows until a
   * checkpoint. Whether the one frame of this update still fits behind the last committed batch
   * depends on where that batch stopped, so a run would stay 'running' one time in a few. A
   * checkpoint copies the committed frames into the database file (a few pages: most frames
   * rewrite the same leaf) and empties the log, whose next write then starts at its front. */
  int ck = sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
  if (ck == SQLITE_OK && update_run_row(st, run, status, exit_code) == 0)
    return 0;
  return write_failed(st);
}

static int begin_batch(struct store *st)
{
  if (st->in_batch)
    return st->batch_failed ? -1 : 0;
  if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
    return write_failed(st);
  st->in_batch = 1;
  st->batch_failed = 0;
  return 0;
}

int store_commit(struct store *st)
{
  if (!st->in_batch)
    return 0;
  int ok = !st->batch_failed && sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
  if (!ok)
    write_failed(st);
  if (!ok && !sqlite3_get_autocommit(st->db))
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
  st->in_batch = st->batch_failed = 0;
  if (ok)
    st->msg[0] = 0;
  return ok ? 0 : -1;
}

int store_add_case(struct store *st, int64_t run, const struct case_row *r)
{
  sqlite3_stmt *s = st->add_case;
  if (begin_batch(st))
    return -1;
  sqlite3_reset(s);
  sqlite3_bind_int64(s, 1, run);
  bind_text(s, 2, r->algorithm);
  bind_text(s, 3, r->variant);
  bind_text(s, 4, r->kind);
  bind_text(s, 5, r->phase);
  if (r->case_index >= 0)
    sqlite3_bind_int64(s, 6, r->case_index);
  else
    sqlite3_bind_null(s, 6);
  bind_text(s, 7, r->params);
  sqlite3_bind_int64(s, 8, (sqlite3_int64)r->seed);
  bind_text(s, 9, verdict_name(r->verdict));
  bind_text(s, 10, r->tag && r->tag[0] ? r->tag : NULL);
  bind_text(s, 11, r->reason && r->reason[0] ? r->reason : NULL);
  sqlite3_bind_double(s, 12, r->err);
  sqlite3_bind_double(s, 13, r->seconds);
  return sqlite3_step(s) == SQLITE_DONE ? 0 : write_failed(st);
}

int store_add_outcome(struct store *st, int64_t run, const struct outcome_row *r)
{
  sqlite3_stmt *s = st->add_outcome;
  if (begin_batch(st))
    return -1;
  sqlite3_reset(s);
  sqlite3_bind_int64(s, 1, run);
  bind_text(s, 2, r->algorithm);
  bind_text(s, 3, r->variant);
  bind_text(s, 4, r->kind);
  bind_text(s, 5, verdict_name(r->verdict));
  sqlite3_bind_int64(s, 6, r->cases);
  sqlite3_bind_int64(s, 7, r->passed);
  sqlite3_bind_int64(s, 8, r->failed);
  sqlite3_bind_int64(s, 9, r->skipped);
  sqlite3_bind_int64(s, 10, r->errors);
  sqlite3_bind_double(s, 11, r->seconds);
  if (r->verdict == VERDICT_CAUGHT) {
    sqlite3_bind_int64(s, 12, r->cases_to_catch);
    sqlite3_bind_double(s, 13, r->seconds_to_catch);
  } else {
    sqlite3_bind_null(s, 12);
    sqlite3_bind_null(s, 13);
  }
  bind_text(s, 14, r->reason && r->reason[0] ? r->reason : NULL);
  bind_text(s, 15, r->first_case);
  bind_text(s, 16, r->shrunk_case);
  bind_text(s, 17, r->reproducer);
  return sqlite3_step(s) == SQLITE_DONE ? 0 : write_failed(st);
}

/* Insert one row inside the batch: sql with its parameters bound in order from the arguments,
 * one per letter of types ('i' int64_t, 'd' double, 't' text, NULL or "" bound as NULL). 0 ok. */
static int add_row(struct store *st, const char *sql, const char *types, ...)
{
  sqlite3_stmt *s;
  if (begin_batch(st))
    return -1;
  if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
    return write_failed(st);
  va_list ap;
  va_start(ap, types);
  for (int i = 0; types[i]; i++) {
    if (types[i] == 'i') {
      sqlite3_bind_int64(s, i + 1, va_arg(ap, int64_t));
    } else if (types[i] == 'd') {
      sqlite3_bind_double(s, i + 1, va_arg(ap, double));
    } else {
      const char *t = va_arg(ap, const char *);
      bind_text(s, i + 1, t && t[0] ? t : NULL);
    }
  }
  va_end(ap);
  int rc = sqlite3_step(s);
  if (rc != SQLITE_DONE)
    write_failed(st); /* before finalize: its message */
  sqlite3_finalize(s);
  return rc == SQLITE_DONE ? 0 : -1;
}

int store_add_coverage(struct store *st, int64_t run, const char *alg, const char *var,
                       const char *regime, int64_t cases)
{
  return add_row(st,
                 "INSERT OR REPLACE INTO coverage (run_id, algorithm, variant, regime, cases)"
                 " VALUES (?,?,?,?,?)",
                 "ittti", run, alg, var, regime, cases);
}

int store_add_sanitizer(struct store *st, int64_t run, const struct sanitizer_row *r)
{
  return add_row(st,
                 "INSERT OR REPLACE INTO sanitizer (run_id, algorithm, variant, kind, tool, verdict,"
                 " cases, seconds, detail) VALUES (?,?,?,?,?,?,?,?,?)",
                 "itttttidt", run, r->algorithm, r->variant, r->kind, r->tool, r->verdict, r->cases,
                 r->seconds, r->detail);
}

int64_t store_add_timing(struct store *st, int64_t run, const struct timing_row *r)
{
  sqlite3_stmt *s = st->add_timing;
  if (begin_batch(st))
    return -1;
  sqlite3_reset(s);
  sqlite3_bind_int64(s, 1, run);
  bind_text(s, 2, r->algorithm);
  bind_text(s, 3, r->variant);
  bind_text(s, 4, r->kind);
  bind_text(s, 5, r->params);
  sqlite3_bind_int64(s, 6, (sqlite3_int64)r->seed);
  bind_text(s, 7, r->name);
  bind_text(s, 8, r->l2);
  sqlite3_bind_int64(s, 9, r->launches);
  sqlite3_bind_int64(s, 10, r->samples);
  const double v[] = {r->median_ms, r->mean_ms, r->min_ms,      r->max_ms,    r->stddev_ms,
                      r->noise,     r->bytes,   r->items,       r->gbps,      r->items_per_s,
                      r->copy_gbps, r->pct_copy, r->sm_clock_mhz, r->seconds};
  for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
    if (r->samples > 0 || i >= 6) /* no samples: no statistics (NULL), the work model stays */
      sqlite3_bind_double(s, 11 + i, v[i]);
    else
      sqlite3_bind_null(s, 11 + i);
  bind_text(s, 25, verdict_name(r->verdict));
  bind_text(s, 26, r->reason && r->reason[0] ? r->reason : NULL);
  bind_text(s, 27, r->item_unit);
  if (r->peak_items_per_s > 0)
    sqlite3_bind_double(s, 28, r->peak_items_per_s);
  else
    sqlite3_bind_null(s, 28);
  if (r->peak_items_per_s > 0 && r->samples > 0)
    sqlite3_bind_double(s, 29, r->pct_peak);
  else
    sqlite3_bind_null(s, 29);
  if (sqlite3_step(s) != SQLITE_DONE)
    return write_failed(st);
  return (int64_t)sqlite3_last_insert_rowid(st->db);
}

int store_add_sample(struct store *st, int64_t timing, int64_t idx, double ms, int sm_clock_mhz)
{
  sqlite3_stmt *s = st->add_sample;
  if (begin_batch(st))
    return -1;
  sqlite3_reset(s);
  sqlite3_bind_int64(s, 1, timing);
  sqlite3_bind_int64(s, 2, idx);
  sqlite3_bind_double(s, 3, ms);
  sqlite3_bind_int(s, 4, sm_clock_mhz);
  return sqlite3_step(s) == SQLITE_DONE ? 0 : write_failed(st);
}

int store_add_accuracy(struct store *st, int64_t timing, const char *metric, double value)
{
  sqlite3_stmt *s = st->add_accuracy;
  if (begin_batch(st))
    return -1;
  sqlite3_reset(s);
  sqlite3_bind_int64(s, 1, timing);
  sqlite3_bind_text(s, 2, metric, -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s, 3, value);
  return sqlite3_step(s) == SQLITE_DONE ? 0 : write_failed(st);
}

/* ---- what every file of the store uses (here, below store_open.c, store_trust.c and
 * store_guard.c, so that none of them calls another back) ---------------------------------- */

int store_schema_version(void) { return STORE_SCHEMA_VERSION; }

int store_first_row(struct store *st, const char *sql, sqlite3_stmt **s, char *why, size_t len)
{
  *s = NULL;
  if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) == SQLITE_OK && sqlite3_step(*s) == SQLITE_ROW)
    return 0;
  st->err = sqlite3_extended_errcode(st->db);
  store_db_msg(st->db, why, len);
  sqlite3_finalize(*s);
  *s = NULL;
  return -1;
}

const char *store_open_hint(int code)
{
  switch (code & 0xff) { /* the primary code of an extended one */
  case SQLITE_NOTADB: return ": move the file away or pass --db with another path";
  case SQLITE_CANTOPEN:
  case SQLITE_READONLY: return ": check that the directory exists and is writable, or pass --db";
  default: return "";
  }
}

void store_close(struct store *st)
{
  if (!st)
    return;
  if (st->in_batch)
    store_commit(st);
  sqlite3_finalize(st->add_case);
  sqlite3_finalize(st->add_outcome);
  sqlite3_finalize(st->add_timing);
  sqlite3_finalize(st->add_sample);
  sqlite3_finalize(st->add_accuracy);
  sqlite3_close(st->db);
  free(st->path);
  free(st);
}

/* Prepare sql (a printf format whose %s are all the schema name) for src. 0 ok. */
int store_prepare(struct store *st, enum store_src src, const char *fmt, sqlite3_stmt **s)
{
  char sql[2048];
  const char *n = src == STORE_BASE ? "base" : "main";
  snprintf(sql, sizeof sql, fmt, n, n, n, n);
  return sqlite3_prepare_v2(st->db, sql, -1, s, NULL) == SQLITE_OK ? 0 : -1;
}

int store_has_table(struct store *st, enum store_src src, const char *table)
{
  sqlite3_stmt *s;
  if (store_prepare(st, src, "SELECT 1 FROM %s.sqlite_master WHERE type = 'table' AND name = ?", &s))
    return 0;
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  int found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}
