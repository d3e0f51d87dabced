/* The SQLite store: runs, cases, per-variant outcomes (and, from the timing layer, timings and
 * samples). WAL, a busy timeout, prepared statements with bound parameters only, forward
 * migrations keyed by PRAGMA user_version. Cases are written inside a batch transaction that the
 * caller commits (store_commit) before it reports those cases as finished: a run killed at any
 * point leaves a consistent database holding every case it reported.
 *
 * All SQL of gpuregress lives here: store.c writes, store_read.c reads (compare, export, plot and
 * the dashboard see rows as C structs, never statements). Read-only commands open the database
 * with store_open_read: nothing is created, migrated or switched to WAL, and a write-protected
 * file can be read. */
#ifndef GR_STORE_H
#define GR_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "gr.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqlite3;
struct store;

#define STORE_DEFAULT_PATH "results/gpuregress.db"

/* Open (creating and migrating) the database at path. 0 ok; -1 with why ("cannot open ...",
 * "... is not a database", "schema version N is newer than this build (M)"). */
int store_open(const char *path, struct store **out, char *why, size_t len);
/* store_open with flags: STORE_OPEN_EXISTING refuses a new or empty file (prune). Every write
 * open judges the file before anything is written to it (not even the journal mode): a file
 * that is not a regular file, another program's database (our version without every table of
 * that version or a column the store writes, a view or virtual table named like a table of
 * ours), a schema version that is not ours or is newer, or a damaged file (PRAGMA quick_check)
 * is refused and left byte-identical. */
#define STORE_OPEN_EXISTING 0x1u
int store_open_flags(const char *path, unsigned flags, struct store **out, char *why, size_t len);
void store_close(struct store *st);
/* Stop the statement st is running (sqlite3_interrupt: safe in a signal handler); it fails
 * with "interrupted" and its transaction rolls back. A no-op between statements. */
void store_interrupt(struct store *st);
/* The underlying handle, for the tests' own queries (the harness reads through store_read.c). */
struct sqlite3 *store_db(struct store *st);
/* The schema version this build writes. */
int store_schema_version(void);

struct run_info {
  const char *command;
  const char *git_commit;
  int git_dirty;
  const char *host;
  const char *gpu_name; /* NULL or "" when there is none */
  int gpu_sms;
  const char *gpu_cc;
  int driver_version, runtime_version;
  int sm_clock_mhz, mem_clock_mhz;
  int64_t gpu_mem_bytes;
  uint64_t seed;
  double budget_s;
  const char *checkout_commit; /* the current checkout's commit where it is not git_commit */
  int allow_no_gpu;            /* --allow-no-gpu: finding no GPU is not an environment failure */
  /* NVML at the start of the run (0 / "" unknown) */
  const char *driver_release; /* the driver's release, e.g. "580.159.04" */
  int sm_clock_now_mhz, mem_clock_now_mhz, temp_c;
  /* provenance: git_commit is the code under test's; gpuregress's own beside it */
  const char *gr_version, *gr_commit; /* "0.2.0", "<sha>[-dirty]" or "unknown" */
  const char *runner;                 /* the name reproducers call the runner by */
};

/* Insert a run (status 'running', with this process's id: a later store_open on the same host
 * marks it 'killed' once that process is gone), committed at once. Returns its id, or -1 with
 * why. */
int64_t store_begin_run(struct store *st, const struct run_info *ri, char *why, size_t len);
/* Set the run's GPU description (the gpu_* columns, the driver's, the clocks) from ri: for a run
 * whose GPU was described by its benchmark processes, after its row was begun without it. 0 ok. */
int store_set_run_gpu(struct store *st, int64_t run, const struct run_info *ri);
/* Set status ('finished', 'interrupted') and exit code. 0 ok. */
int store_finish_run(struct store *st, int64_t run, const char *status, int exit_code);

struct case_row {
  const char *algorithm, *variant, *kind;
  const char *phase;  /* "fuzz", "shrink", "confirm" */
  int64_t case_index; /* position in the seed stream; -1 when not from the stream */
  const char *params; /* case text without the algorithm and the seed */
  uint64_t seed;
  enum verdict verdict;
  const char *tag, *reason;
  double err, seconds;
};
/* Add a case to the open batch (a transaction begun on demand). 0 ok, -1 on error. */
int store_add_case(struct store *st, int64_t run, const struct case_row *row);
/* Commit the open batch, if any. 0 ok. */
int store_commit(struct store *st);

struct outcome_row {
  const char *algorithm, *variant, *kind;
  enum verdict verdict;
  int64_t cases, passed, failed, skipped, errors;
  double seconds;
  int64_t cases_to_catch;  /* historical caught: cases run up to and including the catch */
  double seconds_to_catch; /* historical caught: seconds from the variant's start */
  const char *reason;      /* skip reason, or the first failure's reason */
  const char *first_case;  /* case text of the first failure */
  const char *shrunk_case; /* minimal case that still fails the same way */
  const char *reproducer;  /* command line that reproduces it */
};
/* Insert or replace the outcome of (run, algorithm, variant), committed with the open batch. */
int store_add_outcome(struct store *st, int64_t run, const struct outcome_row *row);

struct timing_row {
  const char *algorithm, *variant, *kind;
  const char *params; /* bench case text without the algorithm and the seed */
  uint64_t seed;
  const char *name;   /* Google Benchmark name */
  const char *l2;     /* "cold" or "hot" */
  int64_t launches;   /* launches per sample */
  int64_t samples;    /* 0: not timed (skip, crash): the statistics are stored as NULL */
  double median_ms, mean_ms, min_ms, max_ms, stddev_ms;
  double noise;       /* relative standard error of the median */
  double bytes, items, gbps, items_per_s, copy_gbps, pct_copy;
  const char *item_unit;   /* what items count (alg->item_unit), NULL: bytes are the unit */
  double peak_items_per_s; /* the algorithm's measured item peak, 0 none */
  double pct_peak;         /* items_per_s / peak_items_per_s * 100 */
  double sm_clock_mhz; /* median over the samples, 0 unknown */
  double seconds;
  enum verdict verdict; /* the output checked after the timing loop */
  const char *reason;
};
/* Add a timing summary to the open batch. Returns its id (for its samples), -1 on error. */
int64_t store_add_timing(struct store *st, int64_t run, const struct timing_row *row);

/* Fuzz cases of a run that reached one regime of a variant (coverage.h). 0 ok. */
int store_add_coverage(struct store *st, int64_t run, const char *alg, const char *var,
                       const char *regime, int64_t cases);
/* The verdict of one compute-sanitizer tool on one variant (`gpuregress sanitize`). */
struct sanitizer_row {
  const char *algorithm, *variant, *kind;
  const char *tool;    /* memcheck, racecheck, initcheck, synccheck */
  const char *verdict; /* clean | finding | check (a harness check failed, the tool found
                        * nothing) | error | timeout | skip */
  int64_t cases;
  double seconds;
  const char *detail; /* the first finding, the failed check or why; may be NULL */
};
int store_add_sanitizer(struct store *st, int64_t run, const struct sanitizer_row *r);
/* Add one sample (the mean of `launches` launches, in ms) of a timing to the open batch. */
int store_add_sample(struct store *st, int64_t timing, int64_t idx, double ms, int sm_clock_mhz);

/* Add an accuracy metric (an error rate, lower is better) of a timing to the open batch. */
int store_add_accuracy(struct store *st, int64_t timing, const char *metric, double value);

/* Most recent error message of the store, for callers that got -1 (a failed write's message
 * survives the rollback that follows it). */
const char *store_errmsg(struct store *st);
/* 1 once a write (case, outcome, timing, sample, commit, the end of a run) has failed since the
 * store was opened: the caller reports it and exits 2 (README). */
int store_write_failed(struct store *st);
/* The path the store was opened with. */
const char *store_path(struct store *st);

/* ---- read side (store_read.c) ------------------------------------------------------------- */

/* Open an existing gpuregress database for reading only: nothing is created, migrated or
 * switched to WAL, no statement can write (PRAGMA query_only), a write-protected file is read
 * (an older schema is read as it is: a table it lacks reads as empty), never as immutable over
 * a -wal with content. 0 ok; -1 with why ("cannot use database ...", "... is not a gpuregress
 * database", a newer schema, a -wal that cannot be read). */
int store_open_read(const char *path, struct store **out, char *why, size_t len);
/* PRAGMA SCHEMA.quick_check on db: 0 ok; -1 with why (the file is damaged). */
int store_quick_check(struct sqlite3 *db, const char *schema, char *why, size_t len);

/* 1 when the database holds outcomes or timings of algorithm alg. */
int store_knows_algorithm(struct store *st, const char *alg);

/* Where a read looks: this database, or the baseline file attached by store_attach_baseline. */
enum store_src { STORE_MAIN, STORE_BASE };

/* Attach another gpuregress database (read-only use) as STORE_BASE, opened and judged as
 * store_open_read does (store_guard.c). 0 ok; -1 with why. */
int store_attach_baseline(struct store *st, const char *path, char *why, size_t len);

struct store_run {
  int64_t id;
  char started[32], status[16], commit[64], gpu[128]; /* gpu "" when none */
  char host[128], command[1024], cc[16];
  char checkout[64];       /* the checkout's commit where it was not the build's, else "" */
  int exit_code;           /* -1 while none is recorded */
  int dirty, sms, driver;  /* driver as CUDA encodes it (12040 = 12.4); 0 unknown */
  int runtime, sm_clock_mhz, mem_clock_mhz; /* CUDA runtime (13000 = 13.0), peak clocks */
  uint64_t seed;
  int allow_no_gpu;        /* the run was allowed to find no GPU */
  /* schema 8 (empty / 0 / -1 where the run or the file has none) */
  char driver_release[32];        /* NVML: "580.159.04" */
  int sm_clock_now_mhz, mem_clock_now_mhz, temp_c; /* NVML, at the start of the run */
  double timed_sm_clock_mhz;      /* mean of the timings' median SM clocks, 0 unknown */
  char verdict[16];               /* recorded by `compare --record`: ok, failed, ... ("" none) */
  int verdict_exit, nightly_exit; /* -1 none */
  char verdict_summary[512];
  /* schema 10 ("" where the file has none: a run of gpuregress itself, runner "gpuregress") */
  char gr_version[32], gr_commit[64]; /* gpuregress's own; commit above is the code's */
  char runner[64];                    /* the runner's name for its reproducers */
};
/* The run id of src. 0 ok; -1 not found (or a database error). */
int store_get_run(struct store *st, enum store_src src, int64_t id, struct store_run *r);

/* What a run holds: STORE_HAS_TIMINGS (timings with samples), STORE_HAS_OUTCOMES. */
#define STORE_HAS_TIMINGS 1
#define STORE_HAS_OUTCOMES 2
int store_run_contents(struct store *st, enum store_src src, int64_t id);

/* The latest finished run with timings or outcomes in src; or, when cur > 0, the baseline of
 * run cur (of STORE_MAIN): the latest finished run before cur in STORE_MAIN (any, in
 * STORE_BASE) on the same GPU model, preferring one holding every kind of data cur holds; a run
 * holding none of it is no baseline. Returns its id, 0 if none, -1 on a database error (a damaged
 * file: store_errmsg). In STORE_BASE, when only runs on another GPU model exist, the latest of
 * them is returned and *other_gpu is set. */
int64_t store_pick_run(struct store *st, enum store_src src, int64_t cur, int *other_gpu);

/* The history of run: runs on its GPU model up to and including it (the earlier ones
 * finished) that hold outcomes (what = STORE_HAS_OUTCOMES) or timings (STORE_HAS_TIMINGS),
 * newest first, at most max. Fills ids and the short commits ("?" unknown); returns the count. */
int store_history(struct store *st, int64_t run, int what, int64_t *ids, char (*commits)[16],
                  int max);

/* A timings row; statistics a row lacks (nothing timed) read as 0. */
struct store_timing {
  int64_t id;
  char algorithm[64], variant[64], kind[16], l2[8], verdict[16];
  char params[GR_CASE_TEXT_LEN], reason[GR_WHY_LEN];
  uint64_t seed;
  int64_t samples, launches;
  double median_ms, min_ms, max_ms, noise, bytes, gbps, copy_gbps, pct_copy, sm_clock_mhz;
  double seconds;
  char item_unit[16];      /* "" when bytes are the unit (GB/s, % of the copy bandwidth) */
  double items_per_s, peak_items_per_s, pct_peak; /* 0 unknown */
};
/* fn returns 0 to go on; anything else stops the walk and is returned. */
typedef int (*store_timing_fn)(void *ctx, const struct store_timing *t);
/* Every timings row of run in src, in the order stored. 0 ok; -1 on a database error. */
int store_each_timing(struct store *st, enum store_src src, int64_t run, store_timing_fn fn,
                      void *ctx);
/* The first row with samples of (algorithm, variant, params, seed) in run, any L2 mode. 0 found,
 * 1 none, -1 on a database error. */
int store_find_timing(struct store *st, int64_t run, const char *alg, const char *var,
                      const char *params, uint64_t seed, struct store_timing *t);
/* The seconds the newest timings row of (alg, var, params) took, any run: what a scheduler can
 * expect it to cost. 0 found (finite, positive, under a day), 1 none, -1 on a database error. */
int store_last_seconds(struct store *st, const char *alg, const char *var, const char *params,
                       double *seconds);
/* The samples (ms) of the rows of (alg, var, params, seed, l2) in run, in a malloc'd array the
 * caller frees. 0 ok; -1 on a database error or out of memory. */
int store_samples(struct store *st, enum store_src src, int64_t run, const char *alg,
                  const char *var, const char *params, uint64_t seed, const char *l2, double **ms,
                  size_t *n);

/* An outcomes row; text columns are NULL where the row holds none (valid during the call). */
struct store_outcome {
  const char *algorithm, *variant, *kind, *verdict;
  int64_t cases, passed, failed, skipped, errors;
  double seconds;
  int caught;              /* cases_to_catch and seconds_to_catch are set */
  int64_t cases_to_catch;
  double seconds_to_catch;
  const char *reason, *first_case, *shrunk_case;
  const char *reproducer; /* made from the shrunk (else first) case, the variant and the run's
                           * runner (gr_repro_command) where the run stored one; never the
                           * stored text itself */
};
typedef int (*store_outcome_fn)(void *ctx, const struct store_outcome *o);
enum store_order { STORE_BY_INSERTION, STORE_BY_NAME };
/* Every outcome of run in src, in insertion order or by (algorithm, variant). 0 ok; -1 on a
 * database error; else what fn returned to stop. */
int store_each_outcome(struct store *st, enum store_src src, int64_t run, enum store_order order,
                       store_outcome_fn fn, void *ctx);
/* Each historical (algorithm, variant) with an outcome in a run on the GPU model of run up to
 * it, by name. 0 ok; -1 on a database error. */
int store_each_historical(struct store *st, int64_t run,
                          int (*fn)(void *ctx, const char *alg, const char *var), void *ctx);

/* The check after timing of each (algorithm, variant) of run, in order of first timing: the
 * worst verdict over its rows (a failure of a non-historical variant, else pass when a row
 * passed or caught, else error, else skip), the summed seconds, the reason of a bad row and one
 * line per row ("PARAMS: VERDICT, MEDIAN ms"). */
struct store_check {
  const char *algorithm, *variant, *kind, *verdict, *reason, *rows;
  double seconds;
};
int store_each_check(struct store *st, int64_t run,
                     int (*fn)(void *ctx, const struct store_check *c), void *ctx);

/* The accuracy metrics of run in src, each with its timing's key (none when the schema has no
 * accuracy table), in the order stored. fn returns 0 to go on. 0 ok; -1 on a database error. */
struct store_accuracy {
  char algorithm[64], variant[64], kind[16], metric[32];
  char params[GR_CASE_TEXT_LEN];
  uint64_t seed;
  double value;
};
int store_each_accuracy(struct store *st, enum store_src src, int64_t run,
                        int (*fn)(void *ctx, const struct store_accuracy *a), void *ctx);

/* Whole rows for exports: each column with its name and stored type. */
enum store_type { STORE_NULL, STORE_INT, STORE_REAL, STORE_TEXT };
struct store_value {
  const char *name;
  enum store_type type;
  int64_t i;
  double d;
  const char *s; /* STORE_TEXT */
};
enum store_table { STORE_TABLE_RUN, STORE_TABLE_OUTCOMES, STORE_TABLE_TIMINGS, STORE_TABLE_ACCURACY };
typedef int (*store_row_fn)(void *ctx, const struct store_value *cols, int ncols);
/* The run's row (STORE_TABLE_RUN), its outcomes by (algorithm, variant), its timings in the
 * order stored (none when the schema has no timings), or its accuracy metrics with their
 * timing's key (timing_id, algorithm, variant, params, seed, metric, value). 0 ok; -1 on a database error; else what
 * fn returned to stop. */
int store_each_row(struct store *st, enum store_table t, int64_t run, store_row_fn fn, void *ctx);

/* The coverage rows of run, by (algorithm, variant) in the order stored. 0 ok (none when the
 * schema has no coverage); -1 on a database error; else what fn returned to stop. */
int store_each_coverage(struct store *st, int64_t run,
                        int (*fn)(void *ctx, const char *alg, const char *var, const char *regime,
                                  int64_t cases),
                        void *ctx);
/* The sanitizer rows of the latest run up to run that has any (*from: its id, 0 when none), by
 * (algorithm, variant) in the order stored. 0 ok; -1 on a database error; else what fn
 * returned. */
int store_each_sanitizer(struct store *st, int64_t run, int64_t *from,
                         int (*fn)(void *ctx, const struct sanitizer_row *r), void *ctx);
/* ---- whole runs across databases, retention (store_merge.c, store_prune.c) --------------- */

/* Write a new gpuregress database at path holding only run (with its outcomes, timings and
 * samples, not its cases, under the same ids and identity): a baseline. path must not exist.
 * 0 ok; -1 with why. */
int store_copy_run(struct store *st, int64_t run, const char *path, char *why, size_t len);
/* store_copy_run with one benchmark kept: a slowdown reproducer's small file (reproducers.c) */
int store_copy_timing(struct store *st, int64_t run, const char *algorithm, const char *variant,
                      const char *params, const char *l2, const char *path, char *why, size_t len);

struct store_import_report {
  int64_t runs;         /* runs added */
  int64_t runs_present; /* runs of the file already here (same identity): not added again */
  int64_t cases, outcomes, timings, samples;
  int64_t folded;       /* shards folded into their night's run (store_night.c) */
  int64_t apart;        /* shards of a night that holds them already: kept as runs of their own */
};
/* Add the finished (and interrupted) runs of the gpuregress database at path that this one
 * lacks, with their cases, outcomes, timings and samples, in one transaction. A run is known by
 * its global identity (runs.uid), so importing the same file twice adds nothing. 0 ok; -1 with
 * why (not readable, not a gpuregress database, a newer schema, a database error). */
int store_import(struct store *st, const char *path, struct store_import_report *rep, char *why,
                 size_t len);

struct store_prune_opts {
  const char *before; /* runs started before this UTC time ("2026-10-01"), or NULL */
  int64_t keep_runs;  /* runs beyond the newest keep_runs, or 0 */
  int dry_run;        /* count only */
};
struct store_prune_report {
  int64_t runs;    /* old runs pruned */
  int64_t first_id, last_id;         /* the lowest and highest id among them (0 none) */
  char first_started[32], last_started[32]; /* the earliest and latest start among them */
  int64_t cases;   /* passing and skipped cases dropped */
  int64_t samples; /* raw samples dropped */
  int64_t bytes_before, bytes_after;
};
/* Retention: in the old runs (either rule; never a run still running) drop the cases that
 * passed or were skipped and the raw timing samples. Every run, outcome (with its shrunk case
 * and reproducer), failing case and timing summary stays: the history reads the summaries. Then
 * VACUUM. 0 ok; -1 with why. */
int store_prune(struct store *st, const struct store_prune_opts *o, struct store_prune_report *rep,
                char *why, size_t len);

/* ---- several GPUs and hosts (store_night.c, doc/fleet.md) --------------------------------- */
/* Record the night run belongs to (NULL: none), its shard (shard_count 0: unsharded) and the
 * GPUs it spread over (0: one), at once; then a timing row's GPU (model, UUID), host. 0 ok. */
int store_set_night(struct store *st, int64_t run, const char *night, int shard_index,
                    int shard_count, int gpus);
int store_set_timing_gpu(struct store *st, int64_t timing, const char *gpu_name,
                         const char *gpu_uuid, const char *host);
/* The GPU a timing row of src was timed on ("" each where unknown; 0 ok, -1 none), and the
 * machines a run was timed on (GPU UUIDs, else host and CPU; one a line: store_night.c). */
int store_timing_gpu(struct store *st, enum store_src src, int64_t timing, char *gpu_name,
                     size_t name_len, char *gpu_uuid, size_t uuid_len, char *host, size_t host_len);
int store_run_machines(struct store *st, enum store_src src, int64_t run, char *out, size_t len);

/* The night of a run: its id, and for a sharded night which shards it holds. */
struct store_night_info {
  char night[128];   /* "" when the run records none */
  int shard_count;   /* 0: unsharded */
  int shards_present; /* distinct shards folded into the run (itself included) */
  char missing[256]; /* the absent shards, "3, 4", or "" */
  char hosts[256];   /* the distinct hosts of its shards, comma-separated */
  int gpus;          /* GPUs the run spread over (the largest of its shards), 0: one */
};
/* 0 ok (an older schema reads as unsharded), -1 the run is not there. */
int store_get_night_info(struct store *st, enum store_src src, int64_t run,
                         struct store_night_info *n);

/* Close the database connection but keep st (path, failure flags), and open it again: around
 * forking lanes (lanes.h), which open their own connections; an SQLite connection must not
 * cross a fork. store_suspend commits first. 0 ok; store_resume -1 with why. */
int store_suspend(struct store *st);
int store_resume(struct store *st, char *why, size_t len);

/* ---- history (store_read.c) --------------------------------------------------------------- */

/* A night: a finished run, in order of start (then id). */
struct store_night {
  int64_t id;
  char started[32], commit[64], gpu[128], host[128], status[16];
  int exit_code; /* -1 none */
  int64_t failed;   /* outcomes that failed: fail, crash, timeout, escaped */
  int64_t timings;  /* timings rows with samples */
};
typedef int (*store_night_fn)(void *ctx, const struct store_night *n);
/* The finished runs started at or after since (NULL: all) and, when until > 0, not after run
 * until (by start), oldest first. 0 ok; -1 on a database error; else what fn returned. */
int store_each_night(struct store *st, const char *since, int64_t until, store_night_fn fn,
                     void *ctx);

/* One benchmark on one night: the summary of a timings row with samples. */
struct store_point {
  char algorithm[64], variant[64], kind[16], l2[8], gpu[128];
  char params[GR_CASE_TEXT_LEN];
  uint64_t seed;
  int64_t run;
  char started[32], commit[64];
  double median_ms, min_ms, max_ms, noise;
};
typedef int (*store_point_fn)(void *ctx, const struct store_point *p);
/* The timed rows of finished runs (as store_each_night selects them) of algorithm (NULL: any)
 * and variant (NULL: any), grouped by (algorithm, variant, params, seed, L2 mode, GPU model) and
 * in order of start within a group. 0 ok; -1 on a database error; else what fn returned. */
int store_each_point(struct store *st, const char *since, int64_t until, const char *alg,
                     const char *var, store_point_fn fn, void *ctx);

/* ---- recorded verdicts, open regressions, acknowledgements (store_verdict.c) ------------- */

/* A regression open on a recorded night: a benchmark found slower (against the baseline, or as
 * a step confirmed over the nights) that is not yet back within its threshold of ref_ms. */
struct store_open_reg {
  char algorithm[64], variant[64], kind[16], l2[8], source[16]; /* source: baseline | history */
  char params[GR_CASE_TEXT_LEN];
  uint64_t seed;
  int64_t opened_run; /* the first night it was slower */
  int64_t base_run;   /* the night it is measured against (ref_ms); 0 unknown */
  double ref_ms;      /* the median before it */
  double cur_ms;      /* the median on the recorded night; 0 not timed that night */
  double p;           /* of the test that opened it */
};
/* Record run's verdict (result name, exit code, summary) and the regressions open on it
 * (replacing what was recorded before), in one transaction. 0 ok; -1 with why. */
int store_record_verdict(struct store *st, int64_t run, const char *result, int exit_code,
                         const char *summary, const struct store_open_reg *open, size_t n,
                         char *why, size_t len);
/* Record the exit code of the nightly pipeline (ci/nightly) of run. 0 ok; -1 with why. */
int store_set_nightly_exit(struct store *st, int64_t run, int code, char *why, size_t len);
/* The latest run before run `before` (by start, then id) on GPU model gpu with a recorded
 * verdict; 0 none (also when the schema has no record). */
int64_t store_last_recorded(struct store *st, int64_t before, const char *gpu);
/* The latest run (by start, then id) with a recorded verdict, any GPU model; 0 none. */
int64_t store_latest_recorded(struct store *st);
/* The highest run id; 0 none. */
int64_t store_latest_run(struct store *st);
/* The regressions recorded open on run. 0 ok; -1 on a database error; else what fn returned. */
int store_each_open_reg(struct store *st, int64_t run,
                        int (*fn)(void *ctx, const struct store_open_reg *r), void *ctx);

/* An acknowledgement: a regression of a benchmark accepted (`gpuregress ack`). It covers the
 * regressions of the benchmark opened on nights up to through_run. */
struct store_ack {
  int64_t id, through_run;
  char benchmark[GR_CASE_TEXT_LEN + 160]; /* ALG/VARIANT, or ALG/VARIANT PARAMS */
  char who[128], at[32], reason[512];
  char undone_by[128], undone_at[32]; /* "" while in force */
};
/* 0 ok (*id set); -1 with why. */
int store_add_ack(struct store *st, const char *benchmark, int64_t through_run, const char *who,
                  const char *reason, int64_t *id, char *why, size_t len);
/* Undo the acknowledgements in force of benchmark (exactly as acknowledged). Returns how many,
 * -1 with why. */
int store_undo_ack(struct store *st, const char *benchmark, const char *who, char *why,
                   size_t len);
/* Every acknowledgement (in force only, when active_only), oldest first. 0 ok (none when the
 * schema has no acks); -1 on a database error; else what fn returned. */
int store_each_ack(struct store *st, int active_only,
                   int (*fn)(void *ctx, const struct store_ack *a), void *ctx);
/* 1 when the acknowledgement a covers the benchmark (alg, var, params) */
int store_ack_covers(const struct store_ack *a, const char *alg, const char *var,
                     const char *params);

#ifdef __cplusplus
}
#endif

#endif
