/* A red night is a confirmed one, on one machine (compare.h): the baseline and the noise of a
 * benchmark come from its own host's nights where it has them, and a slowdown is red only where
 * it holds on this machine: against this host's own nights, or in the interleaved re-timing of
 * the last good build and this one on the same GPU (ci/nightly runs it through ci/pr-check into
 * a folder: base.db, head.db, one run a round, rounds alternating base, head, base, head ...).
 *
 * Why: a GPU context falls per process into one of two modes (radix_sort n=65536 on an H100:
 * 4-5% apart), and hosts of one model differ by a steady offset (ari at 20 us: 7.7% between two
 * H200 hosts). A night's median against the night before cannot tell either from a change of
 * the code; the same GPU timing both builds in alternating processes can. Each build's level
 * there is the mean of the faster half of its rounds' medians (a round is a process; with a
 * process in the upper mode on 30% of its starts the faster half is the lower mode's), and a
 * slowdown holds where this build's is COMPARE_CONFIRM_SHARE of the minimum effect over the
 * last good build's. On that model (1% between processes, 30% of them 4.5% up), simulated:
 * with 10 rounds of each build an unchanged benchmark is confirmed slower 6.2 times in 10000, a 5%
 * step 9907 times; with 12 rounds 2.3 and 9952; with 16 rounds (ci/nightly's default) 0.1 and
 * 9992 (400000 and 20000 trials). A night re-times every benchmark in the upper mode (30% of them
 * on that model), so the rate per benchmark must be that small: tests/synth_model.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "gr.h"

/* 1 when two lists of store_run_machines share a machine. */
static int same_machine(const char *a, const char *b)
{
  for (const char *p = a; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    for (const char *q = b; *q;) {
      const char *f = strchr(q, '\n');
      size_t m = f ? (size_t)(f - q) : strlen(q);
      if (n && n == m && !memcmp(p, q, n))
        return 1;
      q += m + (f != NULL);
    }
    p += n + (e != NULL);
  }
  return 0;
}

long compare_host_runs(struct store *st, int64_t cur, int64_t **ids)
{
  int64_t model[COMPARE_HOST_RUNS + 1];
  char commits[COMPARE_HOST_RUNS + 1][16];
  char mine[4096], theirs[4096];
  *ids = NULL;
  /* the same machine: a GPU by its UUID, a CPU by its host and model (store_run_machines) */
  if (store_run_machines(st, STORE_MAIN, cur, mine, sizeof mine))
    return 0;
  int n = store_history(st, cur, STORE_HAS_TIMINGS, model, commits, COMPARE_HOST_RUNS + 1);
  if (n < 0)
    return -1;
  int64_t *out = malloc((size_t)(n + 1) * sizeof *out);
  if (!out)
    return -1;
  long k = 0;
  for (int i = 0; i < n; i++) {
    if (model[i] == cur || store_run_machines(st, STORE_MAIN, model[i], theirs, sizeof theirs))
      continue;
    if (same_machine(mine, theirs))
      out[k++] = model[i];
  }
  *ids = out;
  return k;
}

int64_t compare_pick_base(struct store *st, int64_t cur, int64_t model_base)
{
  int64_t *ids = NULL;
  long n = compare_host_runs(st, cur, &ids);
  int64_t base = model_base;
  /* this host's last night, when the run has timings to compare (else the model's pick, which
   * prefers a run holding every kind of data the run holds) */
  if (n > 0 && model_base > 0 && (store_run_contents(st, STORE_MAIN, cur) & STORE_HAS_TIMINGS) &&
      ids[0] != model_base)
    base = ids[0];
  free(ids);
  return base;
}

/* The rounds of one side: per timing, the medians of its rounds (at most
 * COMPARE_CONFIRM_MAX_ROUNDS) and how many. */
struct rounds {
  struct compare_result *r;
  double (*ms)[COMPARE_CONFIRM_MAX_ROUNDS];
  int *n;
};

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The mean of the faster half (rounded up) of x[0..n), sorted in place. */
static double faster_half(double *x, int n)
{
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  int k = (n + 1) / 2;
  double s = 0;
  for (int i = 0; i < k; i++)
    s += x[i];
  return s / k;
}

static int keep_round(void *ctx, const struct store_timing *row)
{
  struct rounds *k = ctx;
  if (row->samples <= 0 || !(row->median_ms > 0) || !isfinite(row->median_ms))
    return 0;
  for (size_t i = 0; i < k->r->n_t; i++) {
    const struct compare_timing *t = &k->r->t[i];
    if (t->seed == row->seed && !strcmp(t->algorithm, row->algorithm) &&
        !strcmp(t->variant, row->variant) && !strcmp(t->params, row->params) &&
        !strcmp(t->l2, row->l2)) {
      if (k->n[i] < COMPARE_CONFIRM_MAX_ROUNDS)
        k->ms[i][k->n[i]++] = row->median_ms;
      break;
    }
  }
  return 0;
}

/* Every run of the file at path (its latest run's GPU model) into k. 0 ok; -1 with why. */
static int read_rounds(const char *path, struct rounds *k, char *why, size_t len)
{
  struct store *st;
  char err[GR_WHY_LEN];
  if (store_open_read(path, &st, err, sizeof err)) {
    gr_fmt(why, len, "cannot read the re-timing '%s' (--confirm): %s", path, err);
    return -1;
  }
  int64_t ids[256];
  char commits[256][16];
  int64_t last = store_latest_run(st);
  int n = last > 0 ? store_history(st, last, STORE_HAS_TIMINGS, ids, commits, 256) : 0;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++)
    if (store_each_timing(st, STORE_MAIN, ids[i], keep_round, k)) {
      gr_fmt(why, len, "cannot read the re-timing '%s': %s", path, store_errmsg(st));
      rc = -1;
    }
  store_close(st);
  return rc;
}

int compare_confirm_load(struct compare_result *r, const struct compare_opts *o, char *why,
                         size_t len)
{
  if (!o->confirm || !r->n_t)
    return 0;
  struct rounds side[2] = {{r, calloc(r->n_t, sizeof *side[0].ms), calloc(r->n_t, sizeof(int))},
                           {r, calloc(r->n_t, sizeof *side[0].ms), calloc(r->n_t, sizeof(int))}};
  int rc = -1;
  if (!side[0].ms || !side[0].n || !side[1].ms || !side[1].n) {
    gr_fmt(why, len, "out of memory");
    goto out;
  }
  for (int s = 0; s < 2; s++) {
    char path[4096];
    gr_fmt(path, sizeof path, "%s/%s", o->confirm, s ? "head.db" : "base.db");
    if (read_rounds(path, &side[s], why, len))
      goto out;
  }
  for (size_t i = 0; i < r->n_t; i++) {
    int n = side[0].n[i] < side[1].n[i] ? side[0].n[i] : side[1].n[i];
    r->t[i].confirm_rounds = n;
    r->t[i].confirm_ratio = n ? faster_half(side[1].ms[i], side[1].n[i]) /
                                    faster_half(side[0].ms[i], side[0].n[i])
                              : 0;
  }
  rc = 0;
out:
  for (int s = 0; s < 2; s++) {
    free(side[s].ms);
    free(side[s].n);
  }
  return rc;
}

void compare_confirm_row(const struct compare_result *r, struct compare_timing *t,
                         const struct compare_opts *o)
{
  double plain = compare_min_effect_variant(o, t->algorithm, t->variant);
  int slower = t->sc.cls == STATS_SLOWER;
  /* the screen: slower against the baseline, or (significantly) half the minimum effect above
   * it, or half of it above the level of the host's nights (a night in the lower mode after one
   * in the upper reads as no change; a 5% step measures under 5% on half of its nights) */
  t->candidate = slower || (t->sc.ratio >= 1 + plain / 2 && t->sc.p < t->alpha) ||
                 (t->level_ms > 0 && t->sc.cur.median >= t->level_ms * (1 + plain / 2));
  if (o->confirm && t->confirm_rounds >= COMPARE_CONFIRM_MIN_ROUNDS) {
    if (!t->candidate)
      return;
    if (t->confirm_ratio >= 1 + COMPARE_CONFIRM_SHARE * plain) {
      t->sc.cls = STATS_SLOWER; /* holds on this GPU, interleaved */
    } else if (slower) {
      t->sc.cls = STATS_UNSURE;
      t->unconfirmed = 2;
    }
    return;
  }
  /* no re-timing: against another host, red only once this host has nights of its own */
  int other_host = t->other_device || (r->base.host[0] && r->cur.host[0] &&
                                       strcmp(r->base.host, r->cur.host) != 0);
  if (slower && other_host && !t->host_nights) {
    t->sc.cls = STATS_UNSURE;
    t->unconfirmed = 1;
  }
}
