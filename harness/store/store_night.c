/* The store's side of several GPUs and hosts (doc/fleet.md): the night and shard of a run, the
 * GPU of each timing row, the folding of a night's shards into one run on import, and closing
 * the connection around a fork. See store.h.
 *
 * Folding: the shards of one night (runs with the same night id and shard count) imported into
 * one database become one run, the night's: the first of them to arrive. Each later shard's
 * cases, outcomes, coverage, sanitizer verdicts and timings move to that run, its own row goes,
 * and night_parts keeps what it was (uid, shard, host, GPU, times, status): the index of nights,
 * the verdict, compare, history and the dashboard then read one run, as for an unsharded night.
 * A shard the night already holds (the same K imported again under another uid: a rerun) is not
 * folded: it stays a run of its own, and import says so. */
#include "store.h"
#include "store_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_set_night(struct store *st, int64_t run, const char *night, int shard_index,
                    int shard_count, int gpus)
{
  sqlite3_stmt *s;
  if (store_commit(st) ||
      sqlite3_prepare_v2(st->db,
                         "UPDATE runs SET night = ?1, shard_index = ?2, shard_count = ?3,"
                         " gpus = ?4 WHERE id = ?5",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  if (night && night[0])
    sqlite3_bind_text(s, 1, night, -1, SQLITE_TRANSIENT);
  if (shard_count > 0) {
    sqlite3_bind_int(s, 2, shard_index);
    sqlite3_bind_int(s, 3, shard_count);
  }
  if (gpus > 0)
    sqlite3_bind_int(s, 4, gpus);
  sqlite3_bind_int64(s, 5, run);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) {
    store_db_msg(st->db, st->msg, sizeof st->msg);
    st->write_failed = 1;
    return -1;
  }
  return 0;
}

int store_set_timing_gpu(struct store *st, int64_t timing, const char *gpu_name,
                         const char *gpu_uuid, const char *host)
{
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(st->db, "UPDATE timings SET gpu_name = ?1, gpu_uuid = ?2, host = ?3"
                                 " WHERE id = ?4",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  const char *v[3] = {gpu_name, gpu_uuid, host};
  for (int i = 0; i < 3; i++)
    if (v[i] && v[i][0])
      sqlite3_bind_text(s, i + 1, v[i], -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 4, timing);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) {
    store_db_msg(st->db, st->msg, sizeof st->msg);
    st->batch_failed = st->write_failed = 1;
    return -1;
  }
  return 0;
}

static void text_of(sqlite3_stmt *s, int i, char *dst, size_t len)
{
  const unsigned char *t = sqlite3_column_text(s, i);
  gr_fmt(dst, len, "%s", t ? (const char *)t : "");
}

int store_timing_gpu(struct store *st, enum store_src src, int64_t timing, char *gpu_name,
                     size_t name_len, char *gpu_uuid, size_t uuid_len, char *host,
                     size_t host_len)
{
  sqlite3_stmt *s;
  gpu_name[0] = gpu_uuid[0] = host[0] = 0;
  if (store_prepare(st, src, "SELECT gpu_name, gpu_uuid, host FROM %s.timings WHERE id = ?", &s))
    return -1; /* an older schema */
  sqlite3_bind_int64(s, 1, timing);
  int rc = -1;
  if (sqlite3_step(s) == SQLITE_ROW) {
    text_of(s, 0, gpu_name, name_len);
    text_of(s, 1, gpu_uuid, uuid_len);
    text_of(s, 2, host, host_len);
    rc = 0;
  }
  sqlite3_finalize(s);
  return rc;
}

/* The machines a run of src was timed on, one a line ("gpu UUID" for a GPU that reports one,
 * "host NAME CPU-MODEL" for a CPU timing or a GPU without a UUID), distinct and sorted; where no
 * timing names one (a database older than schema 8) "host NAME" of the run. The identity of a
 * host for its own nights and offset (compare_host_runs): the GPU, not the host name, since
 * two GPUs of one host differ as two hosts do. 0 ok; -1 none known. */
int store_run_machines(struct store *st, enum store_src src, int64_t run, char *out, size_t len)
{
  sqlite3_stmt *s;
  size_t used = 0;
  out[0] = 0;
  /* a GPU timing: its GPU's UUID; a CPU timing (or one of a GPU without a UUID): its host and
   * model (bench.c records the CPU's model as the timing's gpu_name) */
  if (!store_prepare(st, src,
                     "SELECT DISTINCT CASE WHEN coalesce(gpu_uuid, '') <> '' THEN 'gpu ' || gpu_uuid"
                     " ELSE 'host ' || host || ' ' || coalesce(gpu_name, '') END AS k"
                     " FROM %s.timings WHERE run_id = ? AND (coalesce(gpu_uuid, '') <> ''"
                     " OR coalesce(host, '') <> '') ORDER BY k",
                     &s)) {
    sqlite3_bind_int64(s, 1, run);
    while (sqlite3_step(s) == SQLITE_ROW) {
      const unsigned char *k = sqlite3_column_text(s, 0);
      size_t n = k ? strlen((const char *)k) : 0;
      if (!n || used + n + 2 > len)
        continue;
      memcpy(out + used, k, n);
      used += n;
      out[used++] = '\n';
      out[used] = 0;
    }
    sqlite3_finalize(s);
  } /* else an older schema: no machine per timing */
  if (used)
    return 0;
  /* no timing names its machine (a database older than schema 8): the run's host name */
  struct store_run r;
  if (store_get_run(st, src, run, &r) || !r.host[0])
    return -1;
  gr_fmt(out, len, "host %s\n", r.host);
  return 0;
}

int store_get_night_info(struct store *st, enum store_src src, int64_t run,
                         struct store_night_info *n)
{
  sqlite3_stmt *s;
  memset(n, 0, sizeof *n);
  if (store_prepare(st, src,
                    "SELECT coalesce(night, ''), coalesce(shard_count, 0), coalesce(shard_index, 0),"
                    " coalesce(gpus, 0), coalesce(host, '') FROM %s.runs WHERE id = ?",
                    &s))
    return 0; /* an older schema: no night, no shards */
  sqlite3_bind_int64(s, 1, run);
  if (sqlite3_step(s) != SQLITE_ROW) {
    sqlite3_finalize(s);
    return -1;
  }
  text_of(s, 0, n->night, sizeof n->night);
  n->shard_count = sqlite3_column_int(s, 1);
  int own = sqlite3_column_int(s, 2);
  n->gpus = sqlite3_column_int(s, 3);
  text_of(s, 4, n->hosts, sizeof n->hosts);
  sqlite3_finalize(s);
  if (n->shard_count <= 0)
    return 0;
  /* the shards folded in (night_parts), else the run alone */
  char *have = calloc((size_t)n->shard_count + 1, 1);
  if (!have)
    return 0;
  if (own >= 1 && own <= n->shard_count)
    have[own] = 1;
  if (store_prepare(st, src,
                    "SELECT shard_index, coalesce(host, '') FROM %s.night_parts WHERE run_id = ?",
                    &s) == 0) {
    sqlite3_bind_int64(s, 1, run);
    while (sqlite3_step(s) == SQLITE_ROW) {
      int k = sqlite3_column_int(s, 0);
      if (k >= 1 && k <= n->shard_count)
        have[k] = 1;
      char h[128];
      text_of(s, 1, h, sizeof h);
      size_t hl = strlen(h), nl = strlen(n->hosts);
      int known = 0;
      for (const char *p = n->hosts; h[0] && (p = strstr(p, h)) != NULL; p += hl)
        if ((p == n->hosts || p[-1] == ',') && (p[hl] == 0 || p[hl] == ','))
          known = 1;
      if (h[0] && !known && nl + hl + 2 < sizeof n->hosts)
        snprintf(n->hosts + nl, sizeof n->hosts - nl, "%s%s", nl ? "," : "", h);
    }
    sqlite3_finalize(s);
  }
  for (int k = 1; k <= n->shard_count; k++) {
    if (have[k]) {
      n->shards_present++;
      continue;
    }
    size_t ml = strlen(n->missing);
    if (ml + 16 < sizeof n->missing)
      snprintf(n->missing + ml, sizeof n->missing - ml, "%s%d", ml ? ", " : "", k);
  }
  free(have);
  return 0;
}

int store_suspend(struct store *st)
{
  int rc = store_commit(st);
  sqlite3_finalize(st->add_case);
  sqlite3_finalize(st->add_outcome);
  sqlite3_finalize(st->add_timing);
  sqlite3_finalize(st->add_sample);
  sqlite3_finalize(st->add_accuracy);
  st->add_case = st->add_outcome = st->add_timing = st->add_sample = st->add_accuracy = NULL;
  sqlite3_close(st->db);
  st->db = NULL;
  return rc;
}

int store_resume(struct store *st, char *why, size_t len)
{
  struct store *fresh;
  if (store_open(st->path, &fresh, why, len))
    return -1;
  char *old_path = st->path;
  int write_failed = st->write_failed;
  char msg[sizeof st->msg];
  memcpy(msg, st->msg, sizeof msg);
  *st = *fresh;
  free(fresh);
  free(old_path);
  if (write_failed) {
    st->write_failed = 1;
    memcpy(st->msg, msg, sizeof msg);
  }
  return 0;
}

/* ---- folding on import ------------------------------------------------------------------ */

static int run_sql(sqlite3 *db, const char *sql, int64_t a, int64_t b)
{
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  int np = sqlite3_bind_parameter_count(s);
  if (np >= 1)
    sqlite3_bind_int64(s, 1, a);
  if (np >= 2)
    sqlite3_bind_int64(s, 2, b);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

/* Fold run r into the night's run t (see the top of this file). 0 ok, -1 a database error. */
static int fold_one(sqlite3 *db, int64_t t, int64_t r)
{
  static const char *const steps[] = {
      /* the night's own run is its first part */
      "INSERT INTO night_parts (run_id, uid, shard_index, shard_count, host, gpu_name,"
      " started_at, finished_at, status, exit_code) SELECT id, uid, shard_index, shard_count,"
      " host, gpu_name, started_at, finished_at, status, exit_code FROM runs WHERE id = ?1"
      " AND NOT EXISTS (SELECT 1 FROM night_parts WHERE run_id = ?1)",
      "INSERT INTO night_parts (run_id, uid, shard_index, shard_count, host, gpu_name,"
      " started_at, finished_at, status, exit_code) SELECT ?1, uid, shard_index, shard_count,"
      " host, gpu_name, started_at, finished_at, status, exit_code FROM runs WHERE id = ?2",
      "UPDATE cases SET run_id = ?1 WHERE run_id = ?2",
      "UPDATE OR REPLACE outcomes SET run_id = ?1 WHERE run_id = ?2",
      "INSERT INTO coverage (run_id, algorithm, variant, regime, cases) SELECT ?1, algorithm,"
      " variant, regime, cases FROM coverage WHERE run_id = ?2 AND true"
      " ON CONFLICT (run_id, algorithm, variant, regime) DO UPDATE SET cases = cases +"
      " excluded.cases",
      "DELETE FROM coverage WHERE run_id = ?2",
      "UPDATE OR REPLACE sanitizer SET run_id = ?1 WHERE run_id = ?2",
      "UPDATE timings SET run_id = ?1 WHERE run_id = ?2",
      /* the night spans its shards: earliest start, latest end, the worst status */
      "UPDATE runs SET started_at = min(started_at, (SELECT started_at FROM runs WHERE id = ?2)),"
      " finished_at = max(coalesce(finished_at, ''), coalesce((SELECT finished_at FROM runs"
      " WHERE id = ?2), '')),"
      " status = CASE WHEN status = 'finished' THEN (SELECT status FROM runs WHERE id = ?2)"
      " ELSE status END,"
      " exit_code = max(coalesce(exit_code, 0), coalesce((SELECT exit_code FROM runs WHERE"
      " id = ?2), 0)),"
      " gpus = max(coalesce(gpus, 0), coalesce((SELECT gpus FROM runs WHERE id = ?2), 0))"
      " WHERE id = ?1",
      "DELETE FROM runs WHERE id = ?2",
  };
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
    if (run_sql(db, steps[i], t, r))
      return -1;
  return 0;
}

int store_fold_nights(sqlite3 *db, int64_t after, int64_t *folded, int64_t *apart)
{
  sqlite3_stmt *s, *q;
  *folded = *apart = 0;
  if (sqlite3_prepare_v2(db,
                         "SELECT id, night, shard_count, coalesce(shard_index, 0) FROM main.runs"
                         " WHERE id > ?1 AND night IS NOT NULL AND shard_count > 1 ORDER BY id",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_prepare_v2(db,
                         "SELECT t.id, coalesce(t.shard_index, 0) = ?3 OR EXISTS (SELECT 1 FROM"
                         " main.night_parts p WHERE p.run_id = t.id AND p.shard_index = ?3)"
                         " FROM main.runs t WHERE t.night = ?1 AND t.shard_count = ?2"
                         " ORDER BY t.id LIMIT 1",
                         -1, &q, NULL) != SQLITE_OK) {
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_bind_int64(s, 1, after);
  int rc = 0, step;
  /* the runs to fold are read first: folding deletes from the table being walked */
  int64_t (*todo)[2] = NULL;
  size_t n = 0, cap = 0;
  while ((step = sqlite3_step(s)) == SQLITE_ROW) {
    int64_t r = sqlite3_column_int64(s, 0);
    sqlite3_reset(q);
    sqlite3_bind_text(q, 1, (const char *)sqlite3_column_text(s, 1), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(q, 2, sqlite3_column_int(s, 2));
    sqlite3_bind_int(q, 3, sqlite3_column_int(s, 3));
    if (sqlite3_step(q) != SQLITE_ROW)
      continue;
    int64_t t = sqlite3_column_int64(q, 0);
    if (t == r)
      continue; /* the first of its night here: the night's run */
    if (sqlite3_column_int(q, 1)) {
      ++*apart; /* this shard of the night is here already: a rerun, kept as a run of its own */
      continue;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      void *g = realloc(todo, cap * sizeof *todo);
      if (!g) {
        rc = -1;
        break;
      }
      todo = g;
    }
    todo[n][0] = t;
    todo[n][1] = r;
    n++;
  }
  if (step != SQLITE_DONE && step != SQLITE_ROW)
    rc = -1;
  sqlite3_finalize(s);
  sqlite3_finalize(q);
  for (size_t i = 0; i < n && rc == 0; i++) {
    rc = fold_one(db, todo[i][0], todo[i][1]);
    *folded += rc == 0;
  }
  free(todo);
  return rc;
}
