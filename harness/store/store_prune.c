/* Retention (`gpuregress prune`): in the runs older than a date or beyond the newest N, the
 * cases that passed or were skipped and the raw samples dropped, then VACUUM. See store.h. */
#include "store.h"
#include "store_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int64_t file_bytes(const char *path)
{
  struct stat sb;
  return stat(path, &sb) == 0 ? (int64_t)sb.st_size : 0;
}

/* The old runs, ?1 the cutoff date (NULL none), ?2 the runs to keep (0 no limit): started
 * before the cutoff, or beyond the newest keep_runs; never a run that is still running */
#define PRUNE_OLD                                                                                  \
  "SELECT id FROM runs WHERE status != 'running' AND ((?1 IS NOT NULL AND started_at < ?1 AND"   \
  " started_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*') OR (?2 > 0 AND id NOT IN"     \
  " (SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT ?2)))"

/* One statement of store_prune over prune_old: the temporary table, or for a dry run (a
 * read-only connection: nothing is written, not even a temporary table) the same rows as a
 * common table expression; the cutoffs bound. 0 ok (*n its first column, else the rows it
 * changed), -1 a database error. */
static int prune_step(struct store *st, const struct store_prune_opts *o, const char *sql,
                      int64_t *n)
{
  sqlite3_stmt *s;
  char full[1024];
  gr_fmt(full, sizeof full, "%s%s", o->dry_run ? "WITH prune_old(id) AS (" PRUNE_OLD ") " : "",
         sql);
  if (sqlite3_prepare_v2(st->db, full, -1, &s, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_bind_parameter_count(s) >= 1 && o->before && o->before[0])
    sqlite3_bind_text(s, 1, o->before, -1, SQLITE_STATIC);
  if (sqlite3_bind_parameter_count(s) >= 2)
    sqlite3_bind_int64(s, 2, o->keep_runs);
  int rc = sqlite3_step(s);
  if (n)
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : (int64_t)sqlite3_changes64(st->db);
  sqlite3_finalize(s);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int store_prune(struct store *st, const struct store_prune_opts *o, struct store_prune_report *rep,
                char *why, size_t len)
{
  /* what is dropped: passing cases (and skipped ones), the detail (every other verdict stays);
   * raw samples (history reads the per-run summaries in timings). A dry run counts them. */
  static const char *const steps[] = {
      "FROM cases WHERE run_id IN (SELECT id FROM prune_old) AND verdict IN ('pass', 'skip')",
      "FROM samples WHERE timing_id IN (SELECT t.id FROM timings t JOIN prune_old o"
      " ON t.run_id = o.id)",
  };
  sqlite3_stmt *s;
  char sql[512];
  memset(rep, 0, sizeof *rep);
  rep->bytes_before = file_bytes(st->path);
  if (store_commit(st) ||
      sqlite3_exec(st->db, o->dry_run ? "BEGIN" : "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
    goto fail;
  if (!o->dry_run && (sqlite3_exec(st->db, "DROP TABLE IF EXISTS temp.prune_old", NULL, NULL,
                                   NULL) != SQLITE_OK ||
                      prune_step(st, o, "CREATE TEMP TABLE prune_old AS " PRUNE_OLD, NULL)))
    goto fail_rollback;
  if (prune_step(st, o, "SELECT count(*) FROM prune_old", &rep->runs))
    goto fail_rollback;
  /* what is dropped, for the message: the ids and the starts of the old runs */
  gr_fmt(sql, sizeof sql, "%sSELECT min(r.id), max(r.id), min(r.started_at), max(r.started_at)"
         " FROM runs r JOIN prune_old o ON r.id = o.id",
         o->dry_run ? "WITH prune_old(id) AS (" PRUNE_OLD ") " : "");
  if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
    goto fail_rollback;
  if (o->dry_run && o->before && o->before[0])
    sqlite3_bind_text(s, 1, o->before, -1, SQLITE_STATIC);
  if (o->dry_run)
    sqlite3_bind_int64(s, 2, o->keep_runs);
  if (sqlite3_step(s) == SQLITE_ROW) {
    rep->first_id = sqlite3_column_int64(s, 0);
    rep->last_id = sqlite3_column_int64(s, 1);
    gr_printable(rep->first_started, sizeof rep->first_started,
                 (const char *)sqlite3_column_text(s, 2));
    gr_printable(rep->last_started, sizeof rep->last_started,
                 (const char *)sqlite3_column_text(s, 3));
  }
  sqlite3_finalize(s);
  int64_t *const counts[] = {&rep->cases, &rep->samples};
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
    if (i == 1 && !store_has_table(st, STORE_MAIN, "samples"))
      break;
    gr_fmt(sql, sizeof sql, "%s %s", o->dry_run ? "SELECT count(*)" : "DELETE", steps[i]);
    if (prune_step(st, o, sql, counts[i]))
      goto fail_rollback;
  }
  if (!o->dry_run)
    sqlite3_exec(st->db, "DROP TABLE temp.prune_old", NULL, NULL, NULL);
  if (sqlite3_exec(st->db, o->dry_run ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    goto fail_rollback;
  /* give the space back to the file system (and fold the WAL into the file) */
  if (!o->dry_run &&
      (sqlite3_exec(st->db, "VACUUM", NULL, NULL, NULL) != SQLITE_OK ||
       sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) != SQLITE_OK))
    goto fail;
  rep->bytes_after = o->dry_run ? rep->bytes_before : file_bytes(st->path);
  return 0;
fail_rollback:
  gr_fmt(why, len, "cannot prune: %s", store_errmsg(st));
  sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
  return -1;
fail:
  gr_fmt(why, len, "cannot prune: %s", store_errmsg(st));
  return -1;
}
