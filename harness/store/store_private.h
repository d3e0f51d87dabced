/* What store.c (the write side) and store_read.c (the read side) share; no other file includes
 * this. */
#ifndef GR_STORE_PRIVATE_H
#define GR_STORE_PRIVATE_H

#include <sqlite3.h>

#include "store.h"

struct store {
  sqlite3 *db;
  char *path; /* as opened: store_copy_run attaches it */
  int in_batch;
  int batch_failed; /* a write of the open batch failed: store_commit rolls it back */
  int write_failed; /* a write failed since the store was opened */
  int err; /* extended SQLite code of the last failure (opening or writing), 0 none */
  char msg[256]; /* the message of the last failed write, kept across the rollback; "" none */
  sqlite3_stmt *add_case, *add_outcome, *add_timing, *add_sample, *add_accuracy;
};

/* The hint that follows "cannot use database 'PATH': MESSAGE" for the SQLite result code of the
 * failure ("" when there is none). */
const char *store_open_hint(int code);
/* PRAGMA user_version into *v. 0 ok; -1 with why (st->err set). */
int store_user_version(struct store *st, int *v, char *why, size_t len);

/* Prepare sql (a printf format whose every %s is the schema name of src). 0 ok, -1 error. */
int store_prepare(struct store *st, enum store_src src, const char *fmt, sqlite3_stmt **s);
/* 1 when src has the table */
int store_has_table(struct store *st, enum store_src src, const char *table);

#endif
