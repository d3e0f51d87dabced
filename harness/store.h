/* The SQLite store: runs, cases, per-variant outcomes (and, from the timing layer, timings and
 * samples). WAL, a busy timeout, prepared statements with bound parameters only, forward
 * migrations keyed by PRAGMA user_version. Cases are written inside a batch transaction that the
 * caller commits (store_commit) before it reports those cases as finished: a run killed at any
 * point leaves a consistent database holding every case it reported. */
#ifndef GR_STORE_H
#define GR_STORE_H

#include <stddef.h>
#include <stdint.h>

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
void store_close(struct store *st);
/* The underlying handle, for read-only queries of other modules (compare, export, plot). */
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
};

/* Insert a run (status 'running'), committed at once. Returns its id, or -1 with why. */
int64_t store_begin_run(struct store *st, const struct run_info *ri, char *why, size_t len);
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
  double sm_clock_mhz; /* median over the samples, 0 unknown */
  double seconds;
  enum verdict verdict; /* the output checked after the timing loop */
  const char *reason;
};
/* Add a timing summary to the open batch. Returns its id (for its samples), -1 on error. */
int64_t store_add_timing(struct store *st, int64_t run, const struct timing_row *row);
/* Add one sample (the mean of `launches` launches, in ms) of a timing to the open batch. */
int store_add_sample(struct store *st, int64_t timing, int64_t idx, double ms, int sm_clock_mhz);

/* Most recent error message of the store, for callers that got -1. */
const char *store_errmsg(struct store *st);

#ifdef __cplusplus
}
#endif

#endif
