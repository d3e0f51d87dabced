/* Comparing two runs. See compare.h. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"
#include "registry.h"

/* good: pass or caught; bad: a failure, or escaped; else (skip, error, absent) neither */
static int verdict_bad(const char *v, const char *kind)
{
  (void)kind;
  return !strcmp(v, "fail") || !strcmp(v, "crash") || !strcmp(v, "timeout") ||
         !strcmp(v, "escaped");
}
static int verdict_good(const char *v) { return !strcmp(v, "pass") || !strcmp(v, "caught"); }

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

/* A zeroed new element at the end of the array *items of *n, grown by doubling; NULL out of
 * memory. */
static void *push(void **items, size_t *n, size_t *cap, size_t size)
{
  if (*n == *cap) {
    size_t nc = *cap ? 2 * *cap : 32;
    void *ni = realloc(*items, nc * size);
    if (!ni)
      return NULL;
    *items = ni;
    *cap = nc;
  }
  void *e = (char *)*items + (*n)++ * size;
  memset(e, 0, size);
  return e;
}

struct collect {
  struct compare_result *r;
  size_t cap_t, cap_o;
  int side; /* 0 base, 1 cur */
  struct store *st;
  enum store_src src;
};

static int collect_timing(void *ctx, const struct store_timing *row)
{
  struct collect *cl = ctx;
  struct compare_result *r = cl->r;
  struct compare_timing *t =
      find_timing(r, row->algorithm, row->variant, row->params, row->seed, row->l2);
  if (!t) {
    if (row->samples == 0 && !verdict_bad(row->verdict, row->kind) && !cl->side)
      return 0; /* a skip only in the baseline: nothing to say */
    if (!(t = push((void **)&r->t, &r->n_t, &cl->cap_t, sizeof *t)))
      return -1;
    gr_fmt(t->algorithm, sizeof t->algorithm, "%s", row->algorithm);
    gr_fmt(t->variant, sizeof t->variant, "%s", row->variant);
    gr_fmt(t->kind, sizeof t->kind, "%s", row->kind);
    gr_fmt(t->params, sizeof t->params, "%s", row->params);
    gr_fmt(t->l2, sizeof t->l2, "%s", row->l2);
    t->seed = row->seed;
  }
  if (row->samples > 0 && cl->st) /* the GPU it was timed on */
    store_timing_gpu(cl->st, cl->src, row->id, cl->side ? t->cur_gpu : t->base_gpu,
                     sizeof t->cur_gpu, cl->side ? t->cur_uuid : t->base_uuid, sizeof t->cur_uuid,
                     cl->side ? t->cur_host : t->base_host, sizeof t->cur_host);
  if (cl->side) {
    t->in_cur |= row->samples > 0;
    merge_verdict(t->cur_verdict, sizeof t->cur_verdict, row->verdict);
  } else {
    t->in_base |= row->samples > 0;
    merge_verdict(t->base_verdict, sizeof t->base_verdict, row->verdict);
  }
  return 0;
}

static int collect_outcome(void *ctx, const struct store_outcome *oc)
{
  struct collect *cl = ctx;
  struct compare_result *r = cl->r;
  const char *alg = oc->algorithm ? oc->algorithm : "", *var = oc->variant ? oc->variant : "";
  struct compare_outcome *o = NULL;
  for (size_t i = 0; i < r->n_oc && !o; i++)
    if (!strcmp(r->oc[i].algorithm, alg) && !strcmp(r->oc[i].variant, var))
      o = &r->oc[i];
  if (!o) {
    if (!(o = push((void **)&r->oc, &r->n_oc, &cl->cap_o, sizeof *o)))
      return -1;
    gr_fmt(o->algorithm, sizeof o->algorithm, "%s", alg);
    gr_fmt(o->variant, sizeof o->variant, "%s", var);
    gr_fmt(o->kind, sizeof o->kind, "%s", oc->kind ? oc->kind : "");
  }
  gr_fmt(cl->side ? o->cur_verdict : o->base_verdict, sizeof o->cur_verdict, "%s",
         oc->verdict ? oc->verdict : "");
  return 0;
}

struct collect_acc {
  struct compare_result *r;
  size_t cap;
  int side;
};

static int collect_accuracy(void *ctx, const struct store_accuracy *row)
{
  struct collect_acc *cl = ctx;
  struct compare_result *r = cl->r;
  struct compare_accuracy *a = NULL;
  for (size_t i = 0; i < r->n_acc && !a; i++) {
    struct compare_accuracy *e = &r->acc[i];
    if (!strcmp(e->algorithm, row->algorithm) && !strcmp(e->variant, row->variant) &&
        !strcmp(e->params, row->params) && e->seed == row->seed && !strcmp(e->metric, row->metric))
      a = e;
  }
  if (!a) {
    if (!(a = push((void **)&r->acc, &r->n_acc, &cl->cap, sizeof *a)))
      return -1;
    gr_fmt(a->algorithm, sizeof a->algorithm, "%s", row->algorithm);
    gr_fmt(a->variant, sizeof a->variant, "%s", row->variant);
    gr_fmt(a->params, sizeof a->params, "%s", row->params);
    gr_fmt(a->metric, sizeof a->metric, "%s", row->metric);
    a->seed = row->seed;
  }
  /* the worst (highest) value of the run: a case timed cold and hot gives two */
  if (cl->side) {
    a->cur = a->in_cur && a->cur > row->value ? a->cur : row->value;
    a->in_cur = 1;
  } else {
    a->base = a->in_base && a->base > row->value ? a->base : row->value;
    a->in_base = 1;
  }
  return 0;
}

/* The medians of each compared benchmark in the nights before cur (store_each_point: grouped by
 * benchmark and GPU model, oldest first within a group), the last COMPARE_NOISE_NIGHTS kept. */
struct nights {
  struct compare_result *r;
  int64_t cur;
  double (*ms)[COMPARE_NOISE_NIGHTS]; /* per timing, a ring */
  int *n;                             /* per timing, medians seen */
  struct compare_timing *last;        /* the timing of the group seen last (NULL: none) */
  char last_key[GR_CASE_TEXT_LEN + 400];
  int64_t *host;                      /* this host's runs, ascending; NULL: the model's */
  long n_host;
};

static int cmp_id(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int collect_night(void *ctx, const struct store_point *pt)
{
  struct nights *nt = ctx;
  if (pt->run == nt->cur || !(pt->median_ms > 0) || !isfinite(pt->median_ms))
    return 0;
  if (nt->host && !bsearch(&pt->run, nt->host, (size_t)nt->n_host, sizeof *nt->host, cmp_id))
    return 0; /* another host of the model: its offset is not this one's */
  char key[sizeof nt->last_key];
  gr_fmt(key, sizeof key, "%s\t%s\t%s\t%llu\t%s\t%s", pt->algorithm, pt->variant, pt->params,
         (unsigned long long)pt->seed, pt->l2, pt->gpu);
  if (strcmp(key, nt->last_key)) {
    gr_fmt(nt->last_key, sizeof nt->last_key, "%s", key);
    struct compare_timing *t =
        find_timing(nt->r, pt->algorithm, pt->variant, pt->params, pt->seed, pt->l2);
    /* the current row's GPU model, else the run's */
    const char *model = t && t->cur_gpu[0] ? t->cur_gpu : nt->r->cur.gpu;
    nt->last = t && t->in_base && t->in_cur && !strcmp(model, pt->gpu) ? t : NULL;
  }
  if (nt->last) {
    size_t i = (size_t)(nt->last - nt->r->t);
    nt->ms[i][nt->n[i]++ % COMPARE_NOISE_NIGHTS] = pt->median_ms;
  }
  return 0;
}

/* night_noise, level_ms and nights of every compared timing (0 where the history is short),
 * from this host's own nights where it has COMPARE_MIN_NOISE_NIGHTS or more, else from the GPU
 * model's. 0 ok, -1 out of memory or a database error. */
static int night_noise(struct store *st, struct compare_result *r, int64_t cur)
{
  struct nights nt = {r, cur, calloc(r->n_t + 1, sizeof *nt.ms), calloc(r->n_t + 1, sizeof *nt.n),
                      NULL, "", NULL, 0};
  int rc = -1;
  nt.n_host = compare_host_runs(st, cur, &nt.host);
  if (nt.n_host < 0)
    goto out;
  if (nt.n_host < COMPARE_MIN_NOISE_NIGHTS) {
    free(nt.host);
    nt.host = NULL;
  } else {
    qsort(nt.host, (size_t)nt.n_host, sizeof *nt.host, cmp_id);
  }
  if (!nt.ms || !nt.n || store_each_point(st, NULL, cur, NULL, NULL, collect_night, &nt))
    goto out;
  for (size_t i = 0; i < r->n_t; i++) {
    int m = nt.n[i] < COMPARE_NOISE_NIGHTS ? nt.n[i] : COMPARE_NOISE_NIGHTS;
    r->t[i].nights = m;
    r->t[i].night_noise = 0;
    if (m < COMPARE_MIN_NOISE_NIGHTS)
      continue;
    double y[COMPARE_NOISE_NIGHTS], d[COMPARE_NOISE_NIGHTS];
    int first = nt.n[i] - m; /* the oldest kept, in ring order */
    for (int k = 0; k < m; k++)
      y[k] = log(nt.ms[i][(first + k) % COMPARE_NOISE_NIGHTS]);
    r->t[i].night_noise = stats_night_noise(y, (size_t)m, d);
    r->t[i].host_nights = nt.host != NULL;
    for (int k = 0; k < m; k++)
      d[k] = y[k];
    qsort(d, (size_t)m, sizeof *d, cmp_double);
    r->t[i].level_ms = exp(m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]));
  }
  rc = 0;
out:
  free(nt.host);
  free(nt.ms);
  free(nt.n);
  return rc;
}

/* One benchmark of the two runs: its minimum effect and alpha, a check that went wrong after
 * timing (a regression), new or gone, else its samples classified (stats_classify), paired by GPU
 * model and confirmed on one machine (compare_confirm_row); r's counts follow. 0, or -1 with why
 * (the samples could not be read). */
static int judge_timing(struct store *st, enum store_src base_src, int64_t base, int64_t cur,
                        struct compare_result *r, struct compare_timing *t,
                        const struct compare_opts *o, char *why, size_t len)
{
  t->min_effect = compare_min_effect_variant(o, t->algorithm, t->variant);
  /* two nights' medians differ by sqrt(2) times the noise of one */
  double e = o->night_sigmas * sqrt(2.0) * t->night_noise;
  if (e > t->min_effect)
    t->min_effect = e;
  t->alpha = compare_alpha(o, t->algorithm);
  /* a fixed or peer variant whose output went wrong after timing; historical ones are meant
   * to be wrong */
  if (strcmp(t->kind, "historical") != 0 && verdict_bad(t->cur_verdict, t->kind) &&
      !verdict_bad(t->base_verdict, t->kind)) {
    t->regression = 1;
    r->n_regressions++;
  }
  if (!t->in_cur && !t->in_base)
    return 0;
  if (!t->in_base) {
    r->n_new++;
    return 0;
  }
  if (!t->in_cur) {
    r->n_gone++;
    return 0;
  }
  double *a = NULL, *b = NULL;
  size_t na, nb;
  if (store_samples(st, base_src, base, t->algorithm, t->variant, t->params, t->seed, t->l2,
                    &a, &na) ||
      store_samples(st, STORE_MAIN, cur, t->algorithm, t->variant, t->params, t->seed, t->l2,
                    &b, &nb) ||
      stats_classify(a, na, b, nb, t->min_effect, t->alpha, &t->sc)) {
    gr_fmt(why, len, "cannot read the samples: %s", store_errmsg(st));
    free(a);
    free(b);
    return -1;
  }
  free(a);
  free(b);
  /* rows are paired by GPU model: the rows' own where both record it (a night spread over
   * several GPUs and hosts), else the runs' */
  if (t->base_gpu[0] && t->cur_gpu[0]) {
    t->other_model = strcmp(t->base_gpu, t->cur_gpu) != 0;
    t->other_device = !t->other_model &&
                      ((t->base_uuid[0] && t->cur_uuid[0] && strcmp(t->base_uuid, t->cur_uuid)) ||
                       (t->base_host[0] && t->cur_host[0] && strcmp(t->base_host, t->cur_host)));
  } else {
    t->other_model = r->base_other_gpu;
  }
  r->n_other_model += t->other_model;
  r->n_other_device += t->other_device;
  if (t->other_model)
    t->sc.cls = STATS_UNSURE; /* another GPU model: not comparable */
  else
    compare_confirm_row(r, t, o); /* red only where confirmed on one machine */
  r->n_unconfirmed += t->unconfirmed != 0;
  r->n_confirmed += t->confirm_rounds && t->sc.cls == STATS_SLOWER;
  switch (t->sc.cls) {
  case STATS_SAME: r->n_same++; break;
  case STATS_FASTER: r->n_faster++; break;
  case STATS_SLOWER: r->n_slower++; break;
  case STATS_UNSURE: r->n_unsure++; break;
  }
  return 0;
}

/* The accuracy metrics of both runs, a loss over o->max_accuracy_loss a regression. 0, or -1
 * with why. */
static int judge_accuracy(struct store *st, enum store_src base_src, int64_t base, int64_t cur,
                          struct compare_result *r, const struct compare_opts *o, char *why,
                          size_t len)
{
  struct collect_acc ca = {r, 0, 0}; /* one array, one capacity: the side changes between runs */
  int bad_acc = store_each_accuracy(st, base_src, base, collect_accuracy, &ca);
  ca.side = 1;
  if (bad_acc || store_each_accuracy(st, STORE_MAIN, cur, collect_accuracy, &ca)) {
    gr_fmt(why, len, "cannot read the accuracy metrics: %s", store_errmsg(st));
    return -1;
  }
  for (size_t i = 0; i < r->n_acc; i++) {
    struct compare_accuracy *m = &r->acc[i];
    if (m->in_base && m->in_cur && m->cur - m->base > o->max_accuracy_loss) {
      m->regression = 1;
      r->n_acc_regressions++;
    }
  }
  return 0;
}

/* A check that passed in the base run and fails now (a historical variant: escaped now) is a
 * regression. */
static void judge_outcomes(struct compare_result *r)
{
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
}

int compare_runs(struct store *st, enum store_src base_src, int64_t base, int64_t cur,
                 const struct compare_opts *o, struct compare_result **out, char *why, size_t len)
{
  struct compare_result *r = calloc(1, sizeof *r);
  struct collect cb = {r, 0, 0, 0, st, base_src}, cc = {r, 0, 0, 1, st, STORE_MAIN};
  if (!r)
    goto oom;
  if (store_get_run(st, STORE_MAIN, cur, &r->cur)) {
    gr_fmt(why, len, "no run %lld in the database (see 'gpuregress export --format csv')",
           (long long)cur);
    goto fail;
  }
  if (store_get_run(st, base_src, base, &r->base)) {
    gr_fmt(why, len, "no baseline run %lld%s", (long long)base,
           base_src == STORE_BASE ? " in the baseline file" : "");
    goto fail;
  }
  r->base_other_gpu = strcmp(r->base.gpu, r->cur.gpu) != 0;
  if (store_each_timing(st, base_src, base, collect_timing, &cb) ||
      store_each_timing(st, STORE_MAIN, cur, collect_timing, &cc) ||
      store_each_outcome(st, base_src, base, STORE_BY_NAME, collect_outcome, &cb) ||
      store_each_outcome(st, STORE_MAIN, cur, STORE_BY_NAME, collect_outcome, &cc)) {
    gr_fmt(why, len, "cannot read the runs: %s", store_errmsg(st));
    goto fail;
  }
  if (o->night_sigmas > 0 && night_noise(st, r, cur)) {
    gr_fmt(why, len, "cannot read the history of the benchmarks: %s", store_errmsg(st));
    goto fail;
  }
  if (compare_confirm_load(r, o, why, len))
    goto fail;
  for (size_t i = 0; i < r->n_t; i++)
    if (judge_timing(st, base_src, base, cur, r, &r->t[i], o, why, len))
      goto fail;
  if (judge_accuracy(st, base_src, base, cur, r, o, why, len))
    goto fail;
  judge_outcomes(r);
  *out = r;
  return 0;
oom:
  gr_fmt(why, len, "out of memory");
fail:
  compare_result_free(r);
  return -1;
}

void compare_result_free(struct compare_result *r)
{
  if (!r)
    return;
  free(r->t);
  free(r->oc);
  free(r->acc);
  free(r);
}
