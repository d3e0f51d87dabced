/* Comparing two runs. See compare.h. */
#include "compare.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gr.h"

void compare_opts_default(struct compare_opts *o)
{
  memset(o, 0, sizeof *o);
  o->min_effect = 0.05;
  o->alpha = 0.01;
}

int compare_opts_parse(struct compare_opts *o, int which, const char *text, char *why, size_t len)
{
  char buf[512];
  gr_fmt(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '='), *num = eq ? eq + 1 : tok, *end;
    double v = strtod(num, &end);
    if (end == num || *end || v < 0 || v >= (which ? 1 : 10)) {
      gr_fmt(why, len, "bad value '%s' for --%s: use a number%s or ALG=NUMBER", tok,
             which ? "alpha" : "min-effect", which ? " in (0, 1)" : " such as 0.05");
      return -1;
    }
    if (!eq) {
      if (which)
        o->alpha = v;
      else
        o->min_effect = v;
      continue;
    }
    *eq = 0;
    size_t k;
    for (k = 0; k < o->n_over && strcmp(o->over[k].alg, tok) != 0; k++)
      ;
    if (k == o->n_over) {
      if (k == COMPARE_MAX_OVERRIDES) {
        gr_fmt(why, len, "too many per-algorithm overrides");
        return -1;
      }
      o->n_over++;
      gr_fmt(o->over[k].alg, sizeof o->over[k].alg, "%s", tok);
      o->over[k].min_effect = o->over[k].alpha = -1;
    }
    if (which)
      o->over[k].alpha = v;
    else
      o->over[k].min_effect = v;
  }
  return 0;
}

double compare_min_effect(const struct compare_opts *o, const char *alg)
{
  for (size_t k = 0; k < o->n_over; k++)
    if (strcmp(o->over[k].alg, alg) == 0 && o->over[k].min_effect >= 0)
      return o->over[k].min_effect;
  return o->min_effect;
}

double compare_alpha(const struct compare_opts *o, const char *alg)
{
  for (size_t k = 0; k < o->n_over; k++)
    if (strcmp(o->over[k].alg, alg) == 0 && o->over[k].alpha >= 0)
      return o->over[k].alpha;
  return o->alpha;
}

static void col_text(sqlite3_stmt *s, int i, char *dst, size_t len)
{
  const unsigned char *t = sqlite3_column_text(s, i);
  gr_fmt(dst, len, "%s", t ? (const char *)t : "");
}

static int has_table(sqlite3 *db, const char *schema, const char *table)
{
  char sql[256];
  sqlite3_stmt *s;
  snprintf(sql, sizeof sql, "SELECT 1 FROM %s.sqlite_master WHERE type = 'table' AND name = ?",
           schema);
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  int found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}

int compare_run_brief(sqlite3 *db, const char *schema, int64_t id, struct run_brief *b)
{
  char sql[256];
  sqlite3_stmt *s;
  memset(b, 0, sizeof *b);
  snprintf(sql, sizeof sql,
           "SELECT id, git_commit, gpu_name, started_at, status FROM %s.runs WHERE id = ?", schema);
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, id);
  int rc = -1;
  if (sqlite3_step(s) == SQLITE_ROW) {
    b->id = sqlite3_column_int64(s, 0);
    col_text(s, 1, b->commit, sizeof b->commit);
    col_text(s, 2, b->gpu, sizeof b->gpu);
    col_text(s, 3, b->started, sizeof b->started);
    col_text(s, 4, b->status, sizeof b->status);
    rc = 0;
  }
  sqlite3_finalize(s);
  return rc;
}

/* What a run holds: bit 0 timings with samples, bit 1 outcomes. */
static int run_kinds(sqlite3 *db, const char *schema, int64_t id)
{
  char sql[256];
  sqlite3_stmt *s;
  int k = 0;
  if (has_table(db, schema, "timings")) {
    snprintf(sql, sizeof sql, "SELECT 1 FROM %s.timings WHERE run_id = ? AND samples > 0 LIMIT 1",
             schema);
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
      sqlite3_bind_int64(s, 1, id);
      k |= sqlite3_step(s) == SQLITE_ROW;
      sqlite3_finalize(s);
    }
  }
  snprintf(sql, sizeof sql, "SELECT 1 FROM %s.outcomes WHERE run_id = ? LIMIT 1", schema);
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(s, 1, id);
    k |= (sqlite3_step(s) == SQLITE_ROW) << 1;
    sqlite3_finalize(s);
  }
  return k;
}

int64_t compare_pick_run(sqlite3 *db, const char *schema, int64_t cur, int *other_gpu)
{
  char sql[512];
  sqlite3_stmt *s;
  int64_t best = 0, any_gpu = 0;
  int want = 0, best_score = -1;
  char gpu[128] = "";
  if (other_gpu)
    *other_gpu = 0;
  int same_db = strcmp(schema, "main") == 0;
  if (cur > 0) {
    struct run_brief b;
    if (compare_run_brief(db, "main", cur, &b) == 0)
      gr_fmt(gpu, sizeof gpu, "%s", b.gpu);
    want = run_kinds(db, "main", cur);
  }
  snprintf(sql, sizeof sql,
           "SELECT id, coalesce(gpu_name, '') FROM %s.runs WHERE status = 'finished'%s"
           " ORDER BY id DESC",
           schema, cur > 0 && same_db ? " AND id < ?" : "");
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return 0;
  if (cur > 0 && same_db)
    sqlite3_bind_int64(s, 1, cur);
  while (sqlite3_step(s) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(s, 0);
    const char *g = (const char *)sqlite3_column_text(s, 1);
    int k = run_kinds(db, schema, id);
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
  if (!best && any_gpu && !same_db) {
    if (other_gpu)
      *other_gpu = 1;
    return any_gpu;
  }
  return best;
}

int compare_attach(sqlite3 *db, const char *path, char *why, size_t len)
{
  sqlite3_stmt *s;
  if (access(path, R_OK) != 0) {
    gr_fmt(why, len, "cannot read baseline '%s': no such file or not readable", path);
    return -1;
  }
  if (sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS base", -1, &s, NULL) != SQLITE_OK)
    goto fail;
  sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE)
    goto fail;
  if (!has_table(db, "base", "runs") || !has_table(db, "base", "outcomes")) {
    gr_fmt(why, len, "baseline '%s' is not a gpuregress database (no runs table)", path);
    sqlite3_exec(db, "DETACH DATABASE base", NULL, NULL, NULL);
    return -1;
  }
  return 0;
fail:
  gr_fmt(why, len, "cannot open baseline '%s': %s", path, sqlite3_errmsg(db));
  return -1;
}

/* good: pass or caught; bad: a failure, or escaped; else (skip, error, absent) neither */
static int verdict_bad(const char *v, const char *kind)
{
  (void)kind;
  return !strcmp(v, "fail") || !strcmp(v, "crash") || !strcmp(v, "timeout") ||
         !strcmp(v, "escaped");
}
static int verdict_good(const char *v) { return !strcmp(v, "pass") || !strcmp(v, "caught"); }

/* Samples of the rows of (alg, variant, params, seed, l2) in run, in schema. */
static int load_samples(sqlite3 *db, const char *schema, int64_t run, const struct compare_timing *t,
                        double **out, size_t *n)
{
  char sql[512];
  sqlite3_stmt *s;
  size_t cap = 256;
  *n = 0;
  *out = malloc(cap * sizeof **out);
  if (!*out)
    return -1;
  snprintf(sql, sizeof sql,
           "SELECT s.ms FROM %s.samples s JOIN %s.timings t ON s.timing_id = t.id"
           " WHERE t.run_id = ? AND t.algorithm = ? AND t.variant = ? AND t.params = ?"
           " AND t.seed = ? AND t.l2 = ?",
           schema, schema);
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, run);
  sqlite3_bind_text(s, 2, t->algorithm, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 3, t->variant, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 4, t->params, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 5, (sqlite3_int64)t->seed);
  sqlite3_bind_text(s, 6, t->l2, -1, SQLITE_STATIC);
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (*n == cap) {
      double *m = realloc(*out, 2 * cap * sizeof *m);
      if (!m) {
        sqlite3_finalize(s);
        return -1;
      }
      *out = m;
      cap *= 2;
    }
    (*out)[(*n)++] = sqlite3_column_double(s, 0);
  }
  sqlite3_finalize(s);
  return 0;
}

/* The worst verdict of the rows of a key in a run (bad > good > other): "" when absent. */
static void merge_verdict(char *dst, size_t len, const char *v)
{
  if (!dst[0] || verdict_bad(v, "") || (verdict_good(v) && !verdict_bad(dst, "")))
    gr_fmt(dst, len, "%s", v);
}

static struct compare_timing *find_timing(struct compare_result *r, const char *alg,
                                          const char *var, const char *params, uint64_t seed,
                                          const char *l2)
{
  for (size_t i = 0; i < r->n_t; i++) {
    struct compare_timing *t = &r->t[i];
    if (!strcmp(t->algorithm, alg) && !strcmp(t->variant, var) && !strcmp(t->params, params) &&
        t->seed == seed && !strcmp(t->l2, l2))
      return t;
  }
  return NULL;
}

static int collect_timings(sqlite3 *db, const char *schema, int64_t run, int side,
                           struct compare_result *r, size_t *cap)
{
  char sql[512];
  sqlite3_stmt *s;
  if (!has_table(db, schema, "timings"))
    return 0;
  snprintf(sql, sizeof sql,
           "SELECT algorithm, variant, kind, params, seed, l2, verdict, samples FROM %s.timings"
           " WHERE run_id = ? ORDER BY id",
           schema);
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, run);
  while (sqlite3_step(s) == SQLITE_ROW) {
    char alg[64], var[64], kind[16], params[GR_CASE_TEXT_LEN], l2[8], verdict[16];
    col_text(s, 0, alg, sizeof alg);
    col_text(s, 1, var, sizeof var);
    col_text(s, 2, kind, sizeof kind);
    col_text(s, 3, params, sizeof params);
    uint64_t seed = (uint64_t)sqlite3_column_int64(s, 4);
    col_text(s, 5, l2, sizeof l2);
    col_text(s, 6, verdict, sizeof verdict);
    int samples = sqlite3_column_int(s, 7);
    struct compare_timing *t = find_timing(r, alg, var, params, seed, l2);
    if (!t) {
      if (samples == 0 && !verdict_bad(verdict, kind) && !side)
        continue; /* a skip only in the baseline: nothing to say */
      if (r->n_t == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        struct compare_timing *nt = realloc(r->t, nc * sizeof *nt);
        if (!nt) {
          sqlite3_finalize(s);
          return -1;
        }
        r->t = nt;
        *cap = nc;
      }
      t = &r->t[r->n_t++];
      memset(t, 0, sizeof *t);
      gr_fmt(t->algorithm, sizeof t->algorithm, "%s", alg);
      gr_fmt(t->variant, sizeof t->variant, "%s", var);
      gr_fmt(t->kind, sizeof t->kind, "%s", kind);
      gr_fmt(t->params, sizeof t->params, "%s", params);
      gr_fmt(t->l2, sizeof t->l2, "%s", l2);
      t->seed = seed;
    }
    if (side) {
      t->in_cur |= samples > 0;
      merge_verdict(t->cur_verdict, sizeof t->cur_verdict, verdict);
    } else {
      t->in_base |= samples > 0;
      merge_verdict(t->base_verdict, sizeof t->base_verdict, verdict);
    }
  }
  sqlite3_finalize(s);
  return 0;
}

static int collect_outcomes(sqlite3 *db, const char *schema, int64_t run, int side,
                            struct compare_result *r, size_t *cap)
{
  char sql[256];
  sqlite3_stmt *s;
  snprintf(sql, sizeof sql,
           "SELECT algorithm, variant, kind, verdict FROM %s.outcomes WHERE run_id = ?"
           " ORDER BY algorithm, variant",
           schema);
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, run);
  while (sqlite3_step(s) == SQLITE_ROW) {
    char alg[64], var[64];
    col_text(s, 0, alg, sizeof alg);
    col_text(s, 1, var, sizeof var);
    struct compare_outcome *o = NULL;
    for (size_t i = 0; i < r->n_oc && !o; i++)
      if (!strcmp(r->oc[i].algorithm, alg) && !strcmp(r->oc[i].variant, var))
        o = &r->oc[i];
    if (!o) {
      if (r->n_oc == *cap) {
        size_t nc = *cap ? 2 * *cap : 32;
        struct compare_outcome *no = realloc(r->oc, nc * sizeof *no);
        if (!no) {
          sqlite3_finalize(s);
          return -1;
        }
        r->oc = no;
        *cap = nc;
      }
      o = &r->oc[r->n_oc++];
      memset(o, 0, sizeof *o);
      gr_fmt(o->algorithm, sizeof o->algorithm, "%s", alg);
      gr_fmt(o->variant, sizeof o->variant, "%s", var);
      col_text(s, 2, o->kind, sizeof o->kind);
    }
    col_text(s, 3, side ? o->cur_verdict : o->base_verdict, sizeof o->cur_verdict);
  }
  sqlite3_finalize(s);
  return 0;
}

int compare_runs(sqlite3 *db, const char *base_schema, int64_t base, int64_t cur,
                 const struct compare_opts *o, struct compare_result **out, char *why, size_t len)
{
  struct compare_result *r = calloc(1, sizeof *r);
  size_t cap_t = 0, cap_o = 0;
  double *a = NULL, *b = NULL;
  if (!r)
    goto oom;
  if (compare_run_brief(db, "main", cur, &r->cur)) {
    gr_fmt(why, len, "no run %lld in the database (see 'gpuregress export --format csv')",
           (long long)cur);
    goto fail;
  }
  if (compare_run_brief(db, base_schema, base, &r->base)) {
    gr_fmt(why, len, "no baseline run %lld%s", (long long)base,
           strcmp(base_schema, "main") ? " in the baseline file" : "");
    goto fail;
  }
  r->base_other_gpu = strcmp(r->base.gpu, r->cur.gpu) != 0;
  if (collect_timings(db, base_schema, base, 0, r, &cap_t) ||
      collect_timings(db, "main", cur, 1, r, &cap_t) ||
      collect_outcomes(db, base_schema, base, 0, r, &cap_o) ||
      collect_outcomes(db, "main", cur, 1, r, &cap_o)) {
    gr_fmt(why, len, "cannot read the runs: %s", sqlite3_errmsg(db));
    goto fail;
  }
  for (size_t i = 0; i < r->n_t; i++) {
    struct compare_timing *t = &r->t[i];
    t->min_effect = compare_min_effect(o, t->algorithm);
    t->alpha = compare_alpha(o, t->algorithm);
    /* a fixed or peer variant whose output went wrong after timing; historical ones are meant
     * to be wrong */
    if (strcmp(t->kind, "historical") != 0 && verdict_bad(t->cur_verdict, t->kind) &&
        !verdict_bad(t->base_verdict, t->kind)) {
      t->regression = 1;
      r->n_regressions++;
    }
    if (!t->in_cur && !t->in_base)
      continue;
    if (!t->in_base) {
      r->n_new++;
      continue;
    }
    if (!t->in_cur) {
      r->n_gone++;
      continue;
    }
    size_t na, nb;
    if (load_samples(db, base_schema, base, t, &a, &na) ||
        load_samples(db, "main", cur, t, &b, &nb) ||
        stats_classify(a, na, b, nb, t->min_effect, t->alpha, &t->sc)) {
      gr_fmt(why, len, "cannot read the samples: %s", sqlite3_errmsg(db));
      goto fail;
    }
    free(a);
    free(b);
    a = b = NULL;
    if (r->base_other_gpu)
      t->sc.cls = STATS_UNSURE; /* another GPU model: not comparable */
    switch (t->sc.cls) {
    case STATS_SAME: r->n_same++; break;
    case STATS_FASTER: r->n_faster++; break;
    case STATS_SLOWER: r->n_slower++; break;
    case STATS_UNSURE: r->n_unsure++; break;
    }
  }
  for (size_t i = 0; i < r->n_oc; i++) {
    struct compare_outcome *c = &r->oc[i];
    int cur_bad = strcmp(c->kind, "historical") == 0 ? strcmp(c->cur_verdict, "escaped") == 0
                                                     : verdict_bad(c->cur_verdict, c->kind);
    int base_bad = strcmp(c->kind, "historical") == 0 ? strcmp(c->base_verdict, "escaped") == 0
                                                      : verdict_bad(c->base_verdict, c->kind);
    if (cur_bad && !base_bad) {
      c->regression = 1;
      r->n_regressions++;
    }
  }
  *out = r;
  return 0;
oom:
  gr_fmt(why, len, "out of memory");
fail:
  free(a);
  free(b);
  compare_result_free(r);
  return -1;
}

void compare_result_free(struct compare_result *r)
{
  if (!r)
    return;
  free(r->t);
  free(r->oc);
  free(r);
}
