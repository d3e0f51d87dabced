/* Change detection over each benchmark's nights. See history.h for the method. */
#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"
#include "stats.h"

#define MIN_SEGMENT 2 /* nights: a change point needs two nights on each side to be fitted */

void history_opts_default(struct history_opts *o)
{
  compare_opts_default(&o->co);
  o->co.alpha = 0.05;
  o->penalty = 3;
  o->min_nights = 3;
  o->window = 10;
}

static double median3(double a, double b, double c)
{
  return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

/* One piece of the real line of segment means mu, [lo, hi), on which candidate `owner` (the
 * first night of the last segment) gives the least cost so far. */
struct piece {
  double lo, hi;
  size_t owner;
};

/* The fit's state (history_fit): prefix sums of f and f^2, the best cost and the start of the
 * last segment per night, the candidates alive (ascending) and the pieces of the line of mu,
 * each owned by the candidate that is the least there (npc: the next line, built from pc). */
struct fit {
  double *s1, *s2, *best, s2g;
  size_t *from, *alive, n_alive;
  struct piece *pc, *npc;
  size_t n_pc, cap_pc;
};

/* Room for the pieces of the next line (each may split in three): 0, -1 out of memory. */
static int fit_grow(struct fit *F)
{
  if (2 * F->n_pc + 1 <= F->cap_pc)
    return 0;
  size_t nc = 2 * (2 * F->n_pc + 1);
  struct piece *g1 = realloc(F->pc, nc * sizeof *g1);
  if (g1)
    F->pc = g1;
  struct piece *g2 = g1 ? realloc(F->npc, nc * sizeof *g2) : NULL;
  if (!g1 || !g2)
    return -1;
  F->npc = g2;
  F->cap_pc = nc;
  return 0;
}

/* Candidate b enters: each piece keeps the mu where its owner a stays at most b's,
 *   L (mu - m)^2 <= (K_b - K_a) sigma^2 - C, over a's nights before b,
 * and b takes the rest; neighbours of one owner merge. */
static void fit_split(struct fit *F, size_t b)
{
  size_t m_pc = 0;
  for (size_t i = 0; i < F->n_pc; i++) {
    const struct piece *p = &F->pc[i];
    size_t a = p->owner;
    double L = (double)(b - a), d = F->s1[b] - F->s1[a];
    double m = d / L, c = F->s2[b] - F->s2[a] - d * d / L;
    double r = (F->best[b] - F->best[a]) * F->s2g - (c > 0 ? c : 0);
    double lo = -INFINITY, hi = -INFINITY; /* a's part: [lo, hi] */
    if (r >= 0) {
      double h = sqrt(r / L);
      lo = m - h;
      hi = m + h;
    }
    double cut_lo = p->lo > lo ? p->lo : lo, cut_hi = p->hi < hi ? p->hi : hi;
    struct piece part[3] = {{p->lo, p->hi, b}, {0, 0, a}, {0, 0, b}};
    size_t np = 1;
    if (cut_lo < cut_hi) { /* b below, a within, b above */
      part[0].hi = cut_lo;
      part[1].lo = cut_lo;
      part[1].hi = cut_hi;
      part[2].lo = cut_hi;
      part[2].hi = p->hi;
      np = 3;
    }
    for (size_t q = 0; q < np; q++) {
      if (!(part[q].lo < part[q].hi))
        continue;
      if (m_pc && F->npc[m_pc - 1].owner == part[q].owner)
        F->npc[m_pc - 1].hi = part[q].hi;
      else
        F->npc[m_pc++] = part[q];
    }
  }
  struct piece *tmp = F->pc;
  F->pc = F->npc;
  F->npc = tmp;
  F->n_pc = m_pc;
}

/* The candidates left after b entered: those owning a piece, ascending (b last). */
static void fit_prune(struct fit *F, size_t b)
{
  size_t keep = 0;
  for (size_t i = 0; i < F->n_alive; i++) {
    int owns = 0;
    for (size_t q = 0; q < F->n_pc && !owns; q++)
      owns = F->pc[q].owner == F->alive[i];
    if (owns)
      F->alive[keep++] = F->alive[i];
  }
  F->n_alive = keep;
  for (size_t q = 0; q < F->n_pc; q++)
    if (F->pc[q].owner == b) {
      F->alive[F->n_alive++] = b;
      break;
    }
}

/* best[t] and from[t]: the least over the candidates alive, in their order. */
static void fit_best(struct fit *F, size_t t, double beta)
{
  F->best[t] = INFINITY;
  F->from[t] = 0;
  for (size_t i = 0; i < F->n_alive; i++) {
    size_t s = F->alive[i];
    double m = (double)(t - s), d = F->s1[t] - F->s1[s];
    double cost = (F->s2[t] - F->s2[s] - d * d / m) / F->s2g;
    double v = F->best[s] + (cost > 0 ? cost : 0) + beta;
    if (v < F->best[t]) {
      F->best[t] = v;
      F->from[t] = s;
    }
  }
}

/* Optimal partitioning of f[0..n) (segments >= MIN_SEGMENT), with functional pruning (FPOP:
 * Maidstone, Hocking, Rigaill and Fearnhead 2017): the exact minimum of
 *   best[t] = min over s of best[s] + cost(s, t) / sigma^2 + beta
 * taken over the candidates s that can still be the last segment's start. A candidate s is the
 * function q_s(mu) = best[s] + beta + sum over its nights of (f - mu)^2 / sigma^2; two
 * candidates' functions differ by a quadratic of mu fixed once the later one starts (the nights
 * they share add alike), so the mu where each is the least is a set that only shrinks, and a
 * candidate whose set is empty can never be the minimum again: it is dropped. The pieces of the
 * line stay few (about log n), so the fit takes O(n log n) where the plain recursion over every
 * s took O(n^2); the minimum is taken by the same formula, in the same order of s, over the
 * candidates left. *work (NULL: not counted) adds the candidates and pieces visited. The first
 * night of each segment after the first into cut, ascending; returns their number, -1 out of
 * memory. */
int history_fit(const double *f, size_t n, double sigma, double beta, size_t *cut,
                size_t *work)
{
  struct fit F = {.s1 = calloc(n + 1, sizeof *F.s1), .s2 = calloc(n + 1, sizeof *F.s2),
                  .best = malloc((n + 1) * sizeof *F.best), .s2g = sigma * sigma,
                  .from = malloc((n + 1) * sizeof *F.from),
                  .alive = malloc((n + 1) * sizeof *F.alive), .pc = malloc(4 * sizeof *F.pc),
                  .npc = malloc(4 * sizeof *F.npc), .cap_pc = 4};
  int k = -1;
  if (!F.s1 || !F.s2 || !F.best || !F.from || !F.alive || !F.pc || !F.npc)
    goto out_free;
  for (size_t i = 0; i < n; i++) {
    F.s1[i + 1] = F.s1[i] + f[i];
    F.s2[i + 1] = F.s2[i] + f[i] * f[i];
  }
  F.best[0] = -beta;
  for (size_t t = 1; t <= n; t++) {
    /* the candidate whose segment reaches MIN_SEGMENT nights at t enters */
    size_t b = t - MIN_SEGMENT;
    if (t >= MIN_SEGMENT && b == 0) {
      F.pc[0] = (struct piece){-INFINITY, INFINITY, 0};
      F.n_pc = 1;
      F.alive[F.n_alive++] = 0;
    } else if (t >= MIN_SEGMENT && b >= MIN_SEGMENT && isfinite(F.best[b])) {
      if (fit_grow(&F))
        goto out_free;
      fit_split(&F, b);
      fit_prune(&F, b);
    }
    fit_best(&F, t, beta);
    if (work)
      *work += F.n_alive + F.n_pc;
  }
  k = 0;
  if (!isfinite(F.best[n])) /* too short to fit two segments: one */
    goto out_free;
  for (size_t t = F.from[n]; t > 0; t = F.from[t])
    k++;
  int i = k;
  for (size_t t = F.from[n]; t > 0; t = F.from[t])
    cut[--i] = t;
out_free:
  free(F.s1);
  free(F.s2);
  free(F.best);
  free(F.from);
  free(F.alive);
  free(F.pc);
  free(F.npc);
  return k;
}

/* The regularised incomplete beta function I_x(a, b) by its continued fraction (modified
 * Lentz), for the t distribution. */
static double beta_cf(double a, double b, double x)
{
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1), h;
  d = 1 / (fabs(d) < tiny ? tiny : d);
  h = d;
  for (int m = 1; m <= 300; m++) {
    for (int odd = 0; odd < 2; odd++) {
      double aa = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                      : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      d = 1 + aa * d;
      c = 1 + aa / c;
      d = 1 / (fabs(d) < tiny ? tiny : d);
      c = fabs(c) < tiny ? tiny : c;
      h *= d * c;
      if (odd && fabs(d * c - 1) < 1e-13)
        return h;
    }
  }
  return h;
}

static double beta_reg(double a, double b, double x)
{
  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
  return x < (a + 1) / (a + b + 2) ? front * beta_cf(a, b, x) / a
                                   : 1 - front * beta_cf(b, a, 1 - x) / b;
}

double history_welch(const double *x, size_t nx, const double *y, size_t ny)
{
  double mx = 0, my = 0, vx = 0, vy = 0;
  for (size_t i = 0; i < nx; i++)
    mx += x[i] / (double)nx;
  for (size_t i = 0; i < ny; i++)
    my += y[i] / (double)ny;
  for (size_t i = 0; i < nx; i++)
    vx += (x[i] - mx) * (x[i] - mx) / (double)(nx - 1);
  for (size_t i = 0; i < ny; i++)
    vy += (y[i] - my) * (y[i] - my) / (double)(ny - 1);
  double ex = vx / (double)nx, ey = vy / (double)ny, se2 = ex + ey;
  if (!(se2 > 0))
    return mx == my ? 1 : 0;
  double t = (my - mx) / sqrt(se2);
  double df = se2 * se2 / (ex * ex / (double)(nx - 1) + ey * ey / (double)(ny - 1));
  return beta_reg(df / 2, 0.5, df / (df + t * t));
}

static double median_of(const double *x, size_t n, double *tmp)
{
  memcpy(tmp, x, n * sizeof *x);
  return stats_median_inplace(tmp, n);
}

int history_detect(const double *ms, size_t n, double min_effect, double alpha,
                   const struct history_opts *o, struct history_change *out, size_t max)
{
  size_t mn = o->min_nights > 2 ? (size_t)o->min_nights : 2; /* the t-test needs 2 a side */
  size_t w = o->window > (int)mn ? (size_t)o->window : mn;
  if (n < 2 * mn || n < 2 * MIN_SEGMENT)
    return 0;
  double *y = malloc(n * sizeof *y), *f = malloc(n * sizeof *f), *d = malloc(n * sizeof *d);
  size_t *cut = malloc(n * sizeof *cut);
  struct history_change *ch = malloc(n * sizeof *ch);
  int nc = -1, found = 0;
  if (!y || !f || !d || !cut || !ch)
    goto out_free;
  for (size_t i = 0; i < n; i++)
    y[i] = log(ms[i]);
  /* 1. running median of 3 (the ends as they are) */
  f[0] = y[0];
  f[n - 1] = y[n - 1];
  for (size_t i = 1; i + 1 < n; i++)
    f[i] = median3(y[i - 1], y[i], y[i + 1]);
  /* 2. night-to-night noise from successive differences */
  double sigma = stats_night_noise(y, n, d);
  if (!(sigma > 0.001))
    sigma = 0.001;
  /* 3. the penalised step fit */
  nc = history_fit(f, n, sigma, o->penalty * log((double)n), cut, NULL);
  if (nc < 0)
    goto out_free;
  /* 4. confirm each change point against its neighbours until none is dropped */
  for (int dropped = 1; dropped && nc > 0;) {
    dropped = 0;
    int keep = 0;
    for (int c = 0; c < nc; c++) {
      size_t lo = c ? cut[c - 1] : 0, at = cut[c], hi = c + 1 < nc ? cut[c + 1] : n;
      size_t b0 = at - lo > w ? at - w : lo, a1 = hi - at > w ? at + w : hi;
      size_t nb = at - b0, na = a1 - at;
      struct history_change *h = &ch[c];
      memset(h, 0, sizeof *h);
      h->at = at;
      h->n_before = (int)nb;
      h->n_after = (int)na;
      int ok = nb >= mn && na >= mn;
      if (ok) {
        double before = median_of(y + b0, nb, d), after = median_of(y + at, na, d);
        h->before_ms = exp(before);
        h->after_ms = exp(after);
        h->ratio = exp(after - before);
        h->p = history_welch(y + b0, nb, y + at, na);
        ok = fabs(h->ratio - 1) >= min_effect && h->p < alpha;
      }
      if (ok)
        cut[keep++] = at;
      else
        dropped = 1;
    }
    /* a drop changes the windows of the others: test the survivors again */
    nc = keep;
    if (!dropped)
      break;
  }
  for (int c = 0; c < nc && (size_t)found < max; c++)
    out[found++] = ch[c];
out_free:
  free(y);
  free(f);
  free(d);
  free(cut);
  free(ch);
  return nc < 0 ? -1 : found;
}

/* ---- the series of the store ------------------------------------------------------------- */

struct scan {
  const struct history_opts *o;
  history_fn fn;
  void *ctx;
  struct history_series s;
  struct history_night *nights;
  size_t n, cap;
  int err;
};

static int same_key(const struct history_series *s, const struct store_point *p)
{
  return !strcmp(s->algorithm, p->algorithm) && !strcmp(s->variant, p->variant) &&
         !strcmp(s->params, p->params) && s->seed == p->seed && !strcmp(s->l2, p->l2) &&
         !strcmp(s->gpu, p->gpu);
}

/* Detect the changes of the gathered series, mark the new ones and hand it to fn. */
static int flush(struct scan *k)
{
  if (!k->n)
    return 0;
  struct history_series *s = &k->s;
  double *ms = malloc(k->n * sizeof *ms);
  struct history_change *ch = malloc(k->n * sizeof *ch), *prev = malloc(k->n * sizeof *prev);
  int rc = -1;
  if (!ms || !ch || !prev) {
    k->err = 1;
    goto out_free;
  }
  for (size_t i = 0; i < k->n; i++)
    ms[i] = k->nights[i].median_ms;
  s->min_effect = compare_min_effect_variant(&k->o->co, s->algorithm, s->variant);
  s->alpha = compare_alpha(&k->o->co, s->algorithm);
  int nc = history_detect(ms, k->n, s->min_effect, s->alpha, k->o, ch, k->n);
  int np = k->n > 1 ? history_detect(ms, k->n - 1, s->min_effect, s->alpha, k->o, prev, k->n) : 0;
  if (nc < 0 || np < 0) {
    k->err = 1;
    goto out_free;
  }
  for (int c = 0; c < nc; c++) {
    ch[c].is_new = 1;
    for (int q = 0; q < np; q++)
      if (prev[q].at == ch[c].at && (prev[q].ratio > 1) == (ch[c].ratio > 1))
        ch[c].is_new = 0;
  }
  s->nights = k->nights;
  s->n = k->n;
  s->changes = ch;
  s->n_changes = (size_t)nc;
  rc = k->fn(k->ctx, s);
out_free:
  free(ms);
  free(ch);
  free(prev);
  k->n = 0;
  return rc;
}

static int add_point(void *ctx, const struct store_point *p)
{
  struct scan *k = ctx;
  if (k->n && !same_key(&k->s, p)) {
    int rc = flush(k);
    if (rc)
      return rc;
  }
  if (k->n && k->nights[k->n - 1].run == p->run) /* a second row of one night: the first */
    return 0;
  if (!k->n) {
    struct history_series *s = &k->s;
    memset(s, 0, sizeof *s);
    gr_fmt(s->algorithm, sizeof s->algorithm, "%s", p->algorithm);
    gr_fmt(s->variant, sizeof s->variant, "%s", p->variant);
    gr_fmt(s->kind, sizeof s->kind, "%s", p->kind);
    gr_fmt(s->l2, sizeof s->l2, "%s", p->l2);
    gr_fmt(s->gpu, sizeof s->gpu, "%s", p->gpu);
    gr_fmt(s->params, sizeof s->params, "%s", p->params);
    s->seed = p->seed;
  }
  if (k->n == k->cap) {
    size_t nc = k->cap ? 2 * k->cap : 64;
    struct history_night *nn = realloc(k->nights, nc * sizeof *nn);
    if (!nn) {
      k->err = 1;
      return -1;
    }
    k->nights = nn;
    k->cap = nc;
  }
  struct history_night *h = &k->nights[k->n++];
  h->run = p->run;
  gr_fmt(h->started, sizeof h->started, "%s", p->started);
  gr_fmt(h->commit, sizeof h->commit, "%s", p->commit);
  h->median_ms = p->median_ms;
  h->min_ms = p->min_ms;
  h->max_ms = p->max_ms;
  h->noise = p->noise;
  return 0;
}

int history_scan(struct store *st, const char *since, int64_t until, const char *alg,
                 const char *var, const struct history_opts *o, history_fn fn, void *ctx, char *why,
                 size_t len)
{
  struct scan k = {.o = o, .fn = fn, .ctx = ctx};
  int rc = store_each_point(st, since, until, alg, var, add_point, &k);
  if (rc == 0)
    rc = flush(&k);
  free(k.nights);
  if (k.err) {
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  if (rc == -1)
    gr_fmt(why, len, "cannot read the history: %s", store_errmsg(st));
  return rc;
}
