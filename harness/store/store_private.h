/* What the store's files share (store_open.c, store.c: the write side, store_read.c and
 * store_timings.c: the read side, store_merge.c, store_trust.c, store_judge.c and store_guard.c:
 * files from elsewhere, store_prune.c: retention); no other file includes this. */
#ifndef GR_STORE_PRIVATE_H
#define GR_STORE_PRIVATE_H

#include <sqlite3.h>

#include "store.h"

/* The schema version this build writes: the number of store_open.c's migrations (checked there). */
#define STORE_SCHEMA_VERSION 11

struct store {
  sqlite3 *db;
  char *path; /* as opened: store_copy_run attaches it */
  int in_batch;
  int batch_failed; /* a write of the open batch failed: store_commit rolls it back */
  int write_failed; /* a write failed since the store was opened */
  int err; /* extended SQLite code of the last failure (opening or writing), 0 none */
  char msg[256]; /* the message of the last failed write, kept across the rollback; "" none */
  char emsg[256]; /* store_errmsg's printable copy of SQLite's message */
  sqlite3_stmt *add_case, *add_outcome, *add_timing, *add_sample, *add_accuracy;
};

/* The hint that follows "cannot use database 'PATH': MESSAGE" for the SQLite result code of the
 * failure ("" when there is none). */
const char *store_open_hint(int code);
/* The first row of sql in *s (finalize it). 0 ok; -1 with why (st->err set), *s finalized. */
int store_first_row(struct store *st, const char *sql, sqlite3_stmt **s, char *why, size_t len);
/* PRAGMA user_version into *v. 0 ok; -1 with why (st->err set). */
int store_user_version(struct store *st, int *v, char *why, size_t len);

/* Prepare sql (a printf format whose every %s is the schema name of src). 0 ok, -1 error. */
int store_prepare(struct store *st, enum store_src src, const char *fmt, sqlite3_stmt **s);
/* 1 when src has the table */
int store_has_table(struct store *st, enum store_src src, const char *table);

/* The read side's column helpers (store_read.c). */
/* Column i as text into dst ("" for NULL), printable: control characters and bytes that are not
 * UTF-8 as \xNN (gr_printable). */
void store_col_text(sqlite3_stmt *s, int i, char *dst, size_t len);
/* Column i as text, NULL for NULL, printable like store_col_text; valid until the next step of
 * the statement, like SQLite's own. */
const char *store_col_or_null(sqlite3_stmt *s, int i);
/* fmt (formatted for src as store_prepare does) prepared, with run bound to parameter 1; NULL
 * on a database error. */
sqlite3_stmt *store_run_query(struct store *st, enum store_src src, const char *fmt, int64_t run);
/* The end of a walk over the rows of s: what the callback returned to stop, else 0 when every
 * row was read (rc SQLITE_DONE), else -1. */
int store_walk_end(sqlite3_stmt *s, int rc, int stop);

/* Files from elsewhere (store_trust.c, store_guard.c). */
/* What the file open in st is, before anything is written to it: 0 ours or empty (*v its schema
 * version, 0 empty); -1 with why (another program's database, a schema version not ours or
 * newer). */
int store_judge_schema(struct store *st, int *v, char *why, size_t len);
/* SQLite's defences on a connection: SQLITE_DBCONFIG_DEFENSIVE, trusted_schema off. */
void store_harden(sqlite3 *db);
/* A budget on every statement of db (a progress handler counting, reset as each statement
 * starts): one that runs past GR_SQL_BUDGET million virtual-machine steps (default
 * 2000) is stopped with SQLITE_INTERRUPT, which rolls back the transaction it was in. */
void store_budget(sqlite3 *db);
/* db's last error message as a terminal may show it (gr_printable: SQLite's messages quote
 * names stored in the file), or what the budget stopped; returns buf. */
const char *store_db_msg(sqlite3 *db, char *buf, size_t len);
/* 0 when every table of ours that schema version v has is a table of schema (as SQLite parsed
 * it) and no object named like a table of ours (any case) is a view or a virtual table; -1
 * with why. v 0 checks the kinds only. */
int store_judge_tables(sqlite3 *db, const char *schema, int64_t v, char *why, size_t len);
/* "file:PATH[?QUERY]" with PATH percent-encoded (SQLite's URI file names; every connection
 * opens its files as URIs); NULL out of memory, else the caller frees it. */
char *store_file_uri(const char *path, const char *query);
/* The size of PATH-wal, 0 none or empty. */
int64_t store_wal_bytes(const char *path);
/* -1 with why when PATH-wal holds anything: what immutable=1 would ignore; else 0. */
int store_wal_refused(const char *path, char *why, size_t len);
/* ATTACH path AS schema (a name of ours) on db: as it is, then read-only, then immutable where
 * the file cannot be written (never over a -wal with content: store_wal_refused), as
 * store_open_read opens. 0 ok; -1 with why (printable). */
int store_attach(sqlite3 *db, const char *path, const char *schema, char *why, size_t len);
/* The rows of the runs of src (attached) that runs_filter (over src.runs x, ?3 = only) picks:
 * 0 all can be imported as they are; -1 with why naming the run that stops the file (ids not
 * whole or not unique, rows of no run or timing, a name of a shape gpuregress never gives, text
 * where a number belongs); -2 a database error. Needs store_sql_name_ok as gr_name_ok(x). Both
 * in store_judge.c. */
int store_judge_import(sqlite3 *db, const char *runs_filter, int64_t only, char *why, size_t len);
/* The time now in UTC as stored in the database: YYYY-MM-DDTHH:MM:SSZ (store.c). */
void store_utc_now(char *buf, size_t len);
/* 1 when table of schema (main, src) has column; 0 when not or on an error (store_trust.c). */
int store_has_column(sqlite3 *db, const char *schema, const char *table, const char *column);
/* SQL function gr_name_ok(x): 1 when x is text of a name gpuregress gives (gr_name_ok). */
void store_sql_name_ok(sqlite3_context *cx, int argc, sqlite3_value **argv);

/* Fold the runs above id `after` that are shards of a night already here into that night's run
 * (store_night.c); *folded counts them, *apart the reruns of a shard kept as runs of their own.
 * 0 ok, -1 a database error (db's message). */
int store_fold_nights(sqlite3 *db, int64_t after, int64_t *folded, int64_t *apart);

#endif
