/* The SQLite store's opening side: the schema and its forward migrations, opening for writing
 * (refusing foreign databases, marking runs whose process is gone 'killed') and for reading
 * (query_only; store_trust.c opens read-only files, store_guard.c attaches a baseline). The
 * write side is store.c. See store.h. */
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

/* Forward migrations: migrations[i] takes user_version i to i + 1. Never edit a landed entry:
 * append a new one. */
static const char *const migrations[] = {
    /* 0 -> 1: runs, cases, outcomes */
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  started_at TEXT NOT NULL,"          /* UTC, ISO 8601 */
    "  finished_at TEXT,"
    "  status TEXT NOT NULL DEFAULT 'running'," /* running | finished | interrupted */
    "  exit_code INTEGER,"
    "  command TEXT NOT NULL,"
    "  git_commit TEXT, git_dirty INTEGER,"
    "  host TEXT,"
    "  gpu_name TEXT, gpu_sms INTEGER, gpu_cc TEXT, gpu_mem_bytes INTEGER,"
    "  driver_version INTEGER, runtime_version INTEGER,"
    "  sm_clock_mhz INTEGER, mem_clock_mhz INTEGER,"
    "  seed INTEGER NOT NULL, budget_s REAL);"
    "CREATE TABLE cases ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  algorithm TEXT NOT NULL, variant TEXT NOT NULL, kind TEXT NOT NULL,"
    "  phase TEXT NOT NULL,"               /* fuzz | shrink | confirm */
    "  case_index INTEGER,"                /* position in the run's seed stream */
    "  params TEXT NOT NULL, seed INTEGER NOT NULL,"
    "  verdict TEXT NOT NULL, tag TEXT, reason TEXT,"
    "  err REAL,"                          /* the algorithm's error metric */
    "  seconds REAL);"
    "CREATE INDEX cases_by_run ON cases(run_id, algorithm, variant);"
    "CREATE TABLE outcomes ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  algorithm TEXT NOT NULL, variant TEXT NOT NULL, kind TEXT NOT NULL,"
    "  verdict TEXT NOT NULL,"
    "  cases INTEGER, passed INTEGER, failed INTEGER, skipped INTEGER, errors INTEGER,"
    "  seconds REAL,"
    "  cases_to_catch INTEGER, seconds_to_catch REAL,"
    "  reason TEXT, first_case TEXT, shrunk_case TEXT, reproducer TEXT,"
    "  PRIMARY KEY (run_id, algorithm, variant));",
    /* 1 -> 2: timings (one row per timed (variant, case)) and samples (every timed repetition) */
    "CREATE TABLE timings ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  algorithm TEXT NOT NULL, variant TEXT NOT NULL, kind TEXT NOT NULL,"
    "  params TEXT NOT NULL, seed INTEGER NOT NULL,"  /* the bench case, as in cases */
    "  name TEXT,"                         /* the Google Benchmark name */
    "  l2 TEXT NOT NULL,"                  /* cold (flushed before each sample) | hot */
    "  launches INTEGER,"                  /* launches per sample (a sample is their mean) */
    "  samples INTEGER NOT NULL,"
    "  median_ms REAL, mean_ms REAL, min_ms REAL, max_ms REAL, stddev_ms REAL,"
    "  noise REAL,"                        /* relative standard error of the median */
    "  bytes REAL, items REAL,"            /* the work model of one launch */
    "  gbps REAL, items_per_s REAL,"       /* from the median */
    "  copy_gbps REAL,"                    /* device-to-device copy bandwidth (read + write) */
    "  pct_copy REAL,"                     /* gbps / copy_gbps * 100 */
    "  sm_clock_mhz REAL,"                 /* median SM clock over the samples; 0 unknown */
    "  seconds REAL,"                      /* wall time of setup, timing loop and check */
    "  verdict TEXT NOT NULL,"             /* output checked after the timing loop: pass | fail |"
                                           " caught | skip | crash | timeout | error */
    "  reason TEXT);"
    "CREATE INDEX timings_by_run ON timings(run_id, algorithm, variant, params);"
    "CREATE TABLE samples ("
    "  timing_id INTEGER NOT NULL REFERENCES timings(id),"
    "  idx INTEGER NOT NULL,"
    "  ms REAL NOT NULL,"
    "  sm_clock_mhz INTEGER,"              /* 0 when NVML is absent */
    "  PRIMARY KEY (timing_id, idx)) WITHOUT ROWID;",
    /* 2 -> 3: a global identity for every run (uid), so that runs from several runners merge
     * into one history (gpuregress import) and a run imported twice is recognised: random for a
     * new run (the trigger), derived from what the run recorded for an older one (the same
     * expression store_merge.c applies to a database of an older schema) */
    "ALTER TABLE runs ADD COLUMN uid TEXT;"
    "UPDATE runs SET uid = 'legacy:' || coalesce(host, '') || ':' || started_at || ':' || seed"
    "  || ':' || id;"
    "CREATE UNIQUE INDEX runs_by_uid ON runs(uid);"
    "CREATE INDEX runs_by_start ON runs(started_at);"
    "CREATE TRIGGER runs_uid AFTER INSERT ON runs WHEN new.uid IS NULL BEGIN"
    "  UPDATE runs SET uid = lower(hex(randomblob(16))) WHERE id = new.id; END;",
    /* 3 -> 4: what a night's verdict needs to be true: the process of a run (a run whose process
     * is gone is marked 'killed' on the next open), the checkout's commit when it is not the
     * build's, and whether the run was allowed to find no GPU (--allow-no-gpu) */
    "ALTER TABLE runs ADD COLUMN pid INTEGER;"
    "ALTER TABLE runs ADD COLUMN checkout_commit TEXT;" /* NULL: the same as git_commit, or none */
    "ALTER TABLE runs ADD COLUMN allow_no_gpu INTEGER NOT NULL DEFAULT 0;",
    /* 4 -> 5: coverage (fuzz cases per regime of each variant) and sanitizer (the verdict of
     * each compute-sanitizer tool on each variant, `gpuregress sanitize`) */
    "CREATE TABLE coverage ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  algorithm TEXT NOT NULL, variant TEXT NOT NULL,"
    "  regime TEXT NOT NULL,"
    "  cases INTEGER NOT NULL,"            /* fuzz cases that reached it */
    "  PRIMARY KEY (run_id, algorithm, variant, regime));"
    "CREATE TABLE sanitizer ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  algorithm TEXT NOT NULL, variant TEXT NOT NULL, kind TEXT NOT NULL,"
    "  tool TEXT NOT NULL,"                /* memcheck | racecheck | initcheck | synccheck */
    "  verdict TEXT NOT NULL,"             /* clean | finding | explained | check | error |
                                           timeout | skip */
    "  cases INTEGER, seconds REAL,"
    "  detail TEXT,"                       /* the first finding, or why */
    "  PRIMARY KEY (run_id, algorithm, variant, tool));",
    /* 5 -> 6: the work model in the algorithm's own unit (sgm: cells) against its own peak */
    "ALTER TABLE timings ADD COLUMN item_unit TEXT;"      /* what items count; NULL: bytes */
    "ALTER TABLE timings ADD COLUMN peak_items_per_s REAL;" /* the algorithm's measured peak */
    "ALTER TABLE timings ADD COLUMN pct_peak REAL;",      /* items_per_s / peak * 100 */
    /* 6 -> 7: accuracy metrics of a timed output (error rates such as SGM's bad-pixel rates
     * against a ground truth; lower is better), checked after the timing loop */
    "CREATE TABLE accuracy ("
    "  timing_id INTEGER NOT NULL REFERENCES timings(id),"
    "  metric TEXT NOT NULL,"              /* bad1, bad2, bad1_nonocc, bad2_nonocc, ... */
    "  value REAL NOT NULL,"               /* a fraction: 0.08 is 8% */
    "  PRIMARY KEY (timing_id, metric)) WITHOUT ROWID;",
    /* 7 -> 8: several GPUs and hosts (doc/fleet.md): the night a run belongs to and its shard
     * (--shard K/N, --night), the GPUs it spread over (--gpus); the GPU each timing ran on; the
     * shards folded into one night's run by import (night_parts: one row per shard run, the
     * night's own run included, so that importing a shard twice adds nothing) */
    "ALTER TABLE runs ADD COLUMN night TEXT;"         /* NULL: a run of its own */
    "ALTER TABLE runs ADD COLUMN shard_index INTEGER;" /* K of K/N, 1-based; NULL unsharded */
    "ALTER TABLE runs ADD COLUMN shard_count INTEGER;" /* N of K/N */
    "ALTER TABLE runs ADD COLUMN gpus INTEGER;"       /* GPUs the run spread over; NULL one */
    "CREATE INDEX runs_by_night ON runs(night);"
    "ALTER TABLE timings ADD COLUMN gpu_name TEXT;"   /* the model it was timed on */
    "ALTER TABLE timings ADD COLUMN gpu_uuid TEXT;"   /* the physical GPU */
    "ALTER TABLE timings ADD COLUMN host TEXT;"
    "CREATE TABLE night_parts ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id)," /* the night's run */
    "  uid TEXT NOT NULL,"                          /* the shard run's own uid */
    "  shard_index INTEGER, shard_count INTEGER,"
    "  host TEXT, gpu_name TEXT, started_at TEXT, finished_at TEXT, status TEXT,"
    "  exit_code INTEGER,"
    "  PRIMARY KEY (run_id, uid));"
    "CREATE INDEX night_parts_by_uid ON night_parts(uid);",
    /* 8 -> 9: the night's verdict as recorded (`compare --record`: what the index of nights
     * shows; the nightly's own exit code beside it), the regressions open on each recorded night
     * (carried to the next night until back within the threshold), acknowledgements
     * (`gpuregress ack`), and what NVML says of the GPU at the start of the run (the driver's
     * release, the clocks and the temperature) */
    "ALTER TABLE runs ADD COLUMN verdict TEXT;"           /* ok | failed | no_gpu | incomplete */
    "ALTER TABLE runs ADD COLUMN verdict_exit INTEGER;"   /* the verdict's exit code */
    "ALTER TABLE runs ADD COLUMN verdict_summary TEXT;"
    "ALTER TABLE runs ADD COLUMN nightly_exit INTEGER;"   /* ci/nightly's exit code */
    "ALTER TABLE runs ADD COLUMN driver_release TEXT;"    /* e.g. 580.159.04 (NVML) */
    "ALTER TABLE runs ADD COLUMN sm_clock_now_mhz INTEGER;"  /* at the start (NVML), 0 unknown */
    "ALTER TABLE runs ADD COLUMN mem_clock_now_mhz INTEGER;"
    "ALTER TABLE runs ADD COLUMN gpu_temp_c INTEGER;"
    "CREATE TABLE open_regressions ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"   /* the recorded night */
    "  algorithm TEXT NOT NULL, variant TEXT NOT NULL, kind TEXT,"
    "  params TEXT NOT NULL, seed INTEGER NOT NULL, l2 TEXT NOT NULL,"
    "  opened_run INTEGER NOT NULL,"                  /* the first night it was slower */
    "  base_run INTEGER,"                             /* the night before it (the reference) */
    "  ref_ms REAL NOT NULL,"                         /* the median before it */
    "  cur_ms REAL,"                                  /* the median of run_id, NULL not timed */
    "  p REAL,"
    "  source TEXT NOT NULL,"                         /* baseline | history */
    "  PRIMARY KEY (run_id, algorithm, variant, params, seed, l2));"
    "CREATE TABLE acks ("
    "  id INTEGER PRIMARY KEY,"
    "  benchmark TEXT NOT NULL,"                      /* ALG/VARIANT or ALG/VARIANT PARAMS */
    "  through_run INTEGER NOT NULL,"                 /* covers regressions opened up to it */
    "  who TEXT NOT NULL, at TEXT NOT NULL, reason TEXT NOT NULL,"
    "  undone_by TEXT, undone_at TEXT);",
    /* 9 -> 10: provenance (issue 37). git_commit and git_dirty are the code under test's (a
     * runner of one's own: its project's commit at build time); gpuregress's own version and
     * commit beside them; the runner's name, which the reproducers shown from the run call */
    "ALTER TABLE runs ADD COLUMN gr_version TEXT;"  /* NULL: a run of schema 9 or older */
    "ALTER TABLE runs ADD COLUMN gr_commit TEXT;"   /* "<sha>[-dirty]" or "unknown" */
    "ALTER TABLE runs ADD COLUMN runner TEXT;",     /* NULL: gpuregress */
    /* 10 -> 11: the first bad commit that `gpuregress bisect --db` named for an open regression
     * (issue 37): shown with the regression (banner, JUnit, JSON, index of nights) until it
     * closes; a regression that opens again later is another one (its own opened_run) */
    "CREATE TABLE first_bad ("
    "  algorithm TEXT NOT NULL, variant TEXT NOT NULL,"
    "  params TEXT NOT NULL, seed INTEGER NOT NULL, l2 TEXT NOT NULL,"
    "  opened_run INTEGER NOT NULL,"                 /* the regression: its first slower night */
    "  sha TEXT NOT NULL,"                           /* 40 hex digits */
    "  subject TEXT NOT NULL, author_date TEXT,"
    "  found_at TEXT NOT NULL,"                      /* when bisect named it (UTC) */
    "  PRIMARY KEY (algorithm, variant, params, seed, l2, opened_run));",
};
#define STORE_OPEN_TRIES 10 /* store_open: tries after the first one failed on a lock */
#define N_MIGRATIONS ((int)(sizeof migrations / sizeof *migrations))

_Static_assert(N_MIGRATIONS == STORE_SCHEMA_VERSION, "STORE_SCHEMA_VERSION (store_private.h) is the number of migrations");


static int exec(struct store *st, const char *sql, char *why, size_t len)
{
  char *msg = NULL;
  if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    st->err = sqlite3_extended_errcode(st->db);
    if (msg)
      gr_printable(why, len, msg);
    else
      store_db_msg(st->db, why, len);
    sqlite3_free(msg);
    return -1;
  }
  return 0;
}


int store_user_version(struct store *st, int *v, char *why, size_t len)
{
  sqlite3_stmt *s;
  if (store_first_row(st, "PRAGMA user_version", &s, why, len))
    return -1;
  *v = sqlite3_column_int(s, 0);
  sqlite3_finalize(s);
  return 0;
}

/* Bring the schema to N_MIGRATIONS. The version is read again inside one BEGIN IMMEDIATE
 * transaction holding every step, so that processes starting together on a new database wait for
 * each other (busy timeout) and each finds the work done or does all of it. */
static int migrate(struct store *st, char *why, size_t len)
{
  int v;
  if (store_user_version(st, &v, why, len))
    return -1;
  if (v == N_MIGRATIONS)
    return 0;
  if (v < N_MIGRATIONS) {
    if (exec(st, "BEGIN IMMEDIATE", why, len))
      return -1;
    if (store_user_version(st, &v, why, len))
      goto out_rollback;
    for (; v < N_MIGRATIONS; v++) {
      char sql[64];
      snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
      if (exec(st, migrations[v], why, len) || exec(st, sql, why, len))
        goto out_rollback;
    }
    if (exec(st, "COMMIT", why, len))
      goto out_rollback;
  }
  if (v > N_MIGRATIONS) {
    gr_fmt(why, len, "schema version %d is newer than this build of gpuregress (%d): use a newer build",
           v, N_MIGRATIONS);
    return -1;
  }
  return 0;
out_rollback:
  sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
  return -1;
}

/* Runs of this host still 'running' whose process is gone (or is this one, which has begun no
 * run yet) are marked 'killed': a SIGKILL, a crash of the host or an OOM kill leaves no other
 * trace. 0 ok; -1 with why. */
static int mark_killed(struct store *st, char *why, size_t len)
{
  char host[256] = "";
  sqlite3_stmt *s, *u;
  gethostname(host, sizeof host - 1);
  if (sqlite3_prepare_v2(st->db, "SELECT id, pid FROM runs WHERE status = 'running' AND host = ?"
                                 " AND pid IS NOT NULL", -1, &s, NULL) != SQLITE_OK)
    goto fail;
  if (sqlite3_prepare_v2(st->db, "UPDATE runs SET status = 'killed' WHERE id = ? AND status ="
                                 " 'running'", -1, &u, NULL) != SQLITE_OK) {
    sqlite3_finalize(s);
    goto fail;
  }
  sqlite3_bind_text(s, 1, host, -1, SQLITE_STATIC);
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    pid_t pid = (pid_t)sqlite3_column_int64(s, 1);
    if (pid > 0 && pid != getpid() && (kill(pid, 0) == 0 || errno != ESRCH))
      continue; /* alive (or not ours to signal: alive too) */
    sqlite3_reset(u);
    sqlite3_bind_int64(u, 1, sqlite3_column_int64(s, 0));
    rc = sqlite3_step(u) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
  }
  sqlite3_finalize(s);
  sqlite3_finalize(u);
  if (rc == SQLITE_OK)
    return 0;
fail:
  st->err = sqlite3_extended_errcode(st->db);
  store_db_msg(st->db, why, len);
  return -1;
}

/* The store's insert statements, prepared once (a table or column missing fails here). 0 ok;
 * -1 with why (st->err set). */
static int prepare_writes(struct store *st, char *why, size_t len)
{
  static const char add_case[] =
      "INSERT INTO cases (run_id, algorithm, variant, kind, phase, case_index, params, seed, verdict,"
      " tag, reason, err, seconds) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
  static const char add_outcome[] =
      "INSERT OR REPLACE INTO outcomes (run_id, algorithm, variant, kind, verdict, cases, passed,"
      " failed, skipped, errors, seconds, cases_to_catch, seconds_to_catch, reason, first_case,"
      " shrunk_case, reproducer) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  static const char add_timing[] =
      "INSERT INTO timings (run_id, algorithm, variant, kind, params, seed, name, l2, launches,"
      " samples, median_ms, mean_ms, min_ms, max_ms, stddev_ms, noise, bytes, items, gbps,"
      " items_per_s, copy_gbps, pct_copy, sm_clock_mhz, seconds, verdict, reason, item_unit,"
      " peak_items_per_s, pct_peak)"
      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  static const char add_sample[] =
      "INSERT INTO samples (timing_id, idx, ms, sm_clock_mhz) VALUES (?,?,?,?)";
  if (sqlite3_prepare_v2(st->db, add_case, -1, &st->add_case, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(st->db, add_outcome, -1, &st->add_outcome, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(st->db, add_timing, -1, &st->add_timing, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(st->db, add_sample, -1, &st->add_sample, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(st->db, "INSERT INTO accuracy (timing_id, metric, value) VALUES (?,?,?)",
                         -1, &st->add_accuracy, NULL) != SQLITE_OK) {
    st->err = sqlite3_extended_errcode(st->db);
    store_db_msg(st->db, why, len);
    return -1;
  }
  return 0;
}

/* One try of store_open; *busy set when it failed on a lock (SQLITE_BUSY or SQLITE_LOCKED). */
static int store_open_once(const char *path, unsigned flags, struct store **out, char *why,
                           size_t len, int *busy)
{
  char msg[GR_WHY_LEN] = "";
  struct store *st = calloc(1, sizeof *st);
  if (!st) {
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  struct stat sb;
  int rc = SQLITE_OK;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    gr_fmt(msg, sizeof msg, "not a regular file: pass --db with the path of a database file");
    rc = SQLITE_FORMAT;
    goto out_close;
  }
  /* results/ is the default home: create the directory of the default path only */
  if (strcmp(path, STORE_DEFAULT_PATH) == 0)
    mkdir("results", 0777);
  st->path = strdup(path);
  /* a URI (the path percent-encoded): store_attach gives ATTACH the file's read-only and
   * immutable forms */
  char *uri = st->path ? store_file_uri(path, "") : NULL;
  rc = uri ? sqlite3_open_v2(uri, &st->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, NULL)
           : SQLITE_NOMEM;
  free(uri);
  if (rc != SQLITE_OK) {
    if (st->db)
      store_db_msg(st->db, msg, sizeof msg);
    else
      gr_fmt(msg, sizeof msg, "%s", sqlite3_errstr(rc));
    goto out_close;
  }
  sqlite3_busy_timeout(st->db, 10000);
  sqlite3_extended_result_codes(st->db, 1);
  store_harden(st->db);
  store_budget(st->db);
  /* the first statement that reads the file tells a corrupt or foreign file apart: nothing is
   * written (not even the journal mode) before it says the file is ours or empty */
  int v;
  if (store_judge_schema(st, &v, msg, sizeof msg))
    goto out_close;
  if (v == 0 && (flags & STORE_OPEN_EXISTING)) {
    gr_fmt(msg, sizeof msg, "it is not a gpuregress database (empty): pass --db with another path");
    goto out_close;
  }
  if (v > 0 && store_quick_check(st->db, "main", msg, sizeof msg)) {
    st->err = SQLITE_CORRUPT;
    goto out_close;
  }
  /* a file of our version is refused for a column it lacks before anything is written to
   * it; an older one is migrated first */
  if (v == N_MIGRATIONS && prepare_writes(st, msg, sizeof msg))
    goto out_close;
  if (exec(st, "PRAGMA journal_mode = WAL", msg, sizeof msg) ||
      exec(st, "PRAGMA synchronous = NORMAL", msg, sizeof msg) ||
      exec(st, "PRAGMA foreign_keys = ON", msg, sizeof msg) || migrate(st, msg, sizeof msg) ||
      (v != N_MIGRATIONS && prepare_writes(st, msg, sizeof msg)) ||
      mark_killed(st, msg, sizeof msg))
    goto out_close;
  *out = st;
  return 0;
out_close:;
  int code = rc != SQLITE_OK ? rc : st->err ? st->err : sqlite3_errcode(st->db);
  *busy = (code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED;
  gr_fmt(why, len, "cannot use database '%s': %s%s", path, msg, store_open_hint(code));
  store_close(st);
  return -1;
}

int store_open(const char *path, struct store **out, char *why, size_t len)
{
  return store_open_flags(path, 0, out, why, len);
}

int store_open_flags(const char *path, unsigned flags, struct store **out, char *why, size_t len)
{
  /* processes starting together on a new database: not every step of setting it up (the
   * journal mode, a read that turns into a write) waits on the busy timeout; a lock met there is
   * tried again a few times, each after a short pause */
  for (int attempt = 0;; attempt++) {
    int busy = 0;
    if (store_open_once(path, flags, out, why, len, &busy) == 0)
      return 0;
    if (!busy || attempt == STORE_OPEN_TRIES)
      return -1;
    usleep(20000 * (useconds_t)(attempt + 1));
  }
}


void store_interrupt(struct store *st)
{
  if (st && st->db)
    sqlite3_interrupt(st->db);
}



/* ---- reading: opening read-only, the baseline file ------------------------------------- */


