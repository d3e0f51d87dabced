/* Trends: the history of every benchmark on the dashboard. For each algorithm, one plot per
 * benchmark (variant, params, L2 mode) and GPU model: the nightly median with the band of the
 * night's min-max, the dates and commits on the x axis (one position per timed night), a linear
 * y axis spanning at least -12%..+12% of the typical level (a 10% step is a tenth of the plot),
 * and the change points of history.c as red dashed lines labelled with the change and the commit
 * range. The page history-ALG.html lays the GPU models of one benchmark side by side; the run's
 * page gets the index of nights (date, commit, GPU, verdict, changes first seen that night, a link
 * to its page) and the links to the history pages.
 *
 * plots/trend_<alg>.dat, one block per gnuplot `index`:
 *   block 0:      night  "label"          (every timed night; labels on a few: MM-DD and commit)
 *   block 2k-1:   night  median_ms  min_ms  max_ms          (series k)
 *   block 2k:     night - 0.5  "label"   (its change points; when none, one line at -10) */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trends.h"

#include "night_verdict.h"

#include "gr.h"
#include "outfile.h"
#include "history.h"
#include "render.h"
#include "stats.h"
#include "verdict.h"

#define INDEX_NIGHTS 60 /* nights listed on the run's page, newest first */
#define TREND_RECENT 90 /* the latest nights plotted one by one; older ones summarised */
#define TREND_BIN 7     /* older nights: a point per this many */

struct trend_series {
  struct history_series s; /* its arrays point into the two below */
  struct history_night *nights;
  struct history_change *changes;
  int plot; /* number of its plot within the algorithm (1..) */
};

struct trends {
  struct store_night *nights; /* every night up to the run, oldest first */
  size_t n_nights, cap_nights;
  int64_t *timed; /* the runs with timings: the x axis (night k = timed[k - 1]) */
  size_t n_timed;
  struct trend_series *s;
  size_t n, cap;
};

void trends_free(struct trends *t)
{
  if (!t)
    return;
  for (size_t i = 0; i < t->n; i++) {
    free(t->s[i].nights);
    free(t->s[i].changes);
  }
  free(t->s);
  free(t->nights);
  free(t->timed);
  free(t);
}

static int keep_night(void *ctx, const struct store_night *n)
{
  struct trends *t = ctx;
  if (t->n_nights == t->cap_nights) {
    size_t nc = t->cap_nights ? 2 * t->cap_nights : 64;
    struct store_night *nn = realloc(t->nights, nc * sizeof *nn);
    int64_t *nt = realloc(t->timed, nc * sizeof *nt);
    if (nt)
      t->timed = nt;
    if (!nn || !nt)
      return -1;
    t->nights = nn;
    t->cap_nights = nc;
  }
  t->nights[t->n_nights++] = *n;
  if (n->timings > 0)
    t->timed[t->n_timed++] = n->id;
  return 0;
}

static int keep_series(void *ctx, const struct history_series *s)
{
  struct trends *t = ctx;
  if (t->n == t->cap) {
    size_t nc = t->cap ? 2 * t->cap : 64;
    struct trend_series *ns = realloc(t->s, nc * sizeof *ns);
    if (!ns)
      return -1;
    t->s = ns;
    t->cap = nc;
  }
  struct trend_series *k = &t->s[t->n];
  memset(k, 0, sizeof *k);
  k->s = *s;
  k->nights = malloc(s->n * sizeof *k->nights);
  k->changes = malloc((s->n_changes + 1) * sizeof *k->changes);
  if (!k->nights || !k->changes) {
    free(k->nights);
    free(k->changes);
    return -1;
  }
  memcpy(k->nights, s->nights, s->n * sizeof *k->nights);
  memcpy(k->changes, s->changes, s->n_changes * sizeof *k->changes);
  k->s.nights = k->nights;
  k->s.changes = k->changes;
  t->n++;
  return 0;
}

void trends_load(struct plot_ctx *c)
{
  struct history_opts o;
  char why[GR_WHY_LEN];
  history_opts_default(&o);
  struct trends *t = calloc(1, sizeof *t);
  if (!t)
    return;
  if (store_each_night(c->st, NULL, c->run, keep_night, t) ||
      history_scan(c->st, NULL, c->run, NULL, NULL, &o, keep_series, t, why, sizeof why)) {
    trends_free(t);
    return;
  }
  c->trends = t;
}

/* The night number (1-based position on the x axis) of run; 0 when it has none. */
static size_t night_of(const struct trends *t, int64_t run)
{
  for (size_t i = 0; i < t->n_timed; i++)
    if (t->timed[i] == run)
      return i + 1;
  return 0;
}

static const struct store_night *night_row(const struct trends *t, int64_t run)
{
  for (size_t i = 0; i < t->n_nights; i++)
    if (t->nights[i].id == run)
      return &t->nights[i];
  return NULL;
}

/* "+10.0% c019..c020": a change point's label */
static void change_label(const struct trend_series *k, const struct history_change *h, char *dst,
                         size_t len)
{
  gr_fmt(dst, len, "%+.1f%% %.7s..%.7s", 100 * (h->ratio - 1), k->nights[h->at - 1].commit,
         k->nights[h->at].commit);
}

/* Append to a growing string; -1 when it is full. */
static int cat(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cat(char *dst, size_t len, const char *fmt, ...)
{
  size_t n = strlen(dst);
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(dst + n, len - n, fmt, ap);
  va_end(ap);
  return k < 0 || (size_t)k >= len - n ? -1 : 0;
}

/* One series into the data file: the latest TREND_RECENT nights a point each (band: the 95%
 * interval of the night's median, median * (1 +- 2 noise)), the older ones summarised a point
 * per TREND_BIN nights (at the middle of their nights: the median of their medians, band: the
 * quartiles of those medians). A year of nights is ~130 points, not 365, and no band is one
 * night's outlier sample. */
static void write_series(FILE *f, const struct trends *t, const struct trend_series *k)
{
  size_t n = k->s.n, old = n > TREND_RECENT ? n - TREND_RECENT : 0;
  for (size_t j = 0; j < old; j += TREND_BIN) {
    size_t m = old - j < TREND_BIN ? old - j : TREND_BIN;
    double v[TREND_BIN], x = 0;
    for (size_t q = 0; q < m; q++) {
      v[q] = k->nights[j + q].median_ms;
      x += (double)night_of(t, k->nights[j + q].run);
    }
    double mid = stats_median_inplace(v, m); /* sorted */
    fprintf(f, "%.2f %.9g %.9g %.9g\n", x / (double)m, mid, v[m / 4], v[(3 * m) / 4]);
  }
  for (size_t j = old; j < n; j++) {
    const struct history_night *h = &k->nights[j];
    double e = 2 * (h->noise > 0 ? h->noise : 0) * h->median_ms;
    fprintf(f, "%zu %.9g %.9g %.9g\n", night_of(t, h->run), h->median_ms, h->median_ms - e,
            h->median_ms + e);
  }
}

/* plots/trend_<alg>.dat and its plots for the series [first, end) of one algorithm */
static void plot_algorithm(struct plot_ctx *c, size_t first, size_t end)
{
  struct trends *t = c->trends;
  const char *alg = t->s[first].s.algorithm;
  char path[PATH_MAX], base[PATH_MAX], slug[80], q[PATH_MAX + 16];
  gr_slug(slug, sizeof slug, alg);
  gr_fmt(base, sizeof base, "%s/trend_%s_", c->plots_dir, slug);
  gr_fmt(path, sizeof path, "%s/trend_%s.dat", c->plots_dir, slug);
  struct outfile out;
  size_t vlen = 64 * 1024;
  char *vars = malloc(vlen);
  FILE *f = vars ? view_data_open(c, &out, path) : NULL;
  if (!f) {
    free(vars);
    return;
  }
  fprintf(f, "# %s: the labelled nights (a tick each, about a dozen): night label\n", alg);
  size_t every = t->n_timed > 12 ? (t->n_timed + 11) / 12 : 1;
  for (size_t i = 0; i < t->n_timed; i++) {
    const struct store_night *n = night_row(t, t->timed[i]);
    /* the last night's tick only where the regular one before it is not too close */
    int last = i + 1 == t->n_timed && i % every > every / 2;
    if (n && (i % every == 0 || last))
      fprintf(f, "%zu \"%.5s\\n%.7s\"\n", i + 1, n->started + 5, n->commit[0] ? n->commit : "?");
  }
  fprintf(f, "\n\n");
  vars[0] = 0;
  int plot = 0, full = 0;
  for (size_t i = first; i < end; i++) {
    struct trend_series *k = &t->s[i];
    k->plot = ++plot;
    fprintf(f, "# %d: %s %s [%s] on %s: night median_ms band_lo band_hi (the latest %d nights"
               " each; older ones a point per %d nights: their middle, the median of their medians"
               " and its quartiles)\n",
            plot, k->s.variant, k->s.params, k->s.l2, k->s.gpu, TREND_RECENT, TREND_BIN);
    double *med = malloc(k->s.n * sizeof *med);
    if (med)
      for (size_t j = 0; j < k->s.n; j++)
        med[j] = k->nights[j].median_ms;
    write_series(f, t, k);
    fprintf(f, "\n\n# change points: night label\n");
    for (size_t j = 0; j < k->s.n_changes; j++) {
      char label[128];
      change_label(k, &k->changes[j], label, sizeof label);
      view_gp_clean(label);
      fprintf(f, "%.1f \"%s\"\n", (double)night_of(t, k->nights[k->changes[j].at].run) - 0.5,
              label);
    }
    if (!k->s.n_changes) /* the block, off the plot (gnuplot crashes on labels with no point) */
      fprintf(f, "-10 \"\"\n");
    fprintf(f, "\n\n");
    /* the y range: the medians of the latest nights, the 2nd to 98th percentile of the older
     * ones (a single odd night does not flatten a year), and at least 12% either side of the
     * typical level */
    double lo = INFINITY, hi = 0, mid = 0;
    if (med) {
      size_t old = k->s.n > TREND_RECENT ? k->s.n - TREND_RECENT : 0;
      for (size_t j = old; j < k->s.n; j++) {
        lo = fmin(lo, med[j]);
        hi = fmax(hi, med[j]);
      }
      if (old) {
        stats_median_inplace(med, old); /* sorts them */
        lo = fmin(lo, med[(size_t)(0.02 * (double)(old - 1))]);
        hi = fmax(hi, med[(size_t)(0.98 * (double)(old - 1) + 0.5)]);
      }
      mid = stats_median_inplace(med, k->s.n);
    }
    free(med);
    char title[512];
    gr_fmt(title, sizeof title, "%s  %s%s  (%s)", k->s.variant, k->s.params,
           strcmp(k->s.l2, "cold") ? "  [L2 hot]" : "", k->s.gpu[0] ? k->s.gpu : "no GPU");
    char qt[1100];
    full |= cat(vars, vlen, "t%d=%s; yl%d=%.9g; yh%d=%.9g; ", plot, view_gp_str(qt, sizeof qt, title), plot,
                fmin(lo * 0.97, mid * 0.88), plot, fmax(hi * 1.03, mid * 1.12));
  }
  if (view_data_close(c, &out)) {
    free(vars);
    return;
  }
  full |= cat(vars, vlen, "datafile=%s; ", view_gp_str(q, sizeof q, path));
  full |= cat(vars, vlen, "outprefix=%s; nseries=%d; nnights=%zu; ", view_gp_str(q, sizeof q, base),
              plot, t->n_timed);
  /* the same plots, standalone with gnuplot's mousing (wheel zoom, pan, values under the
   * pointer), beside the pages: linked from them, not embedded */
  gr_fmt(base, sizeof base, "%s/trend_%s_", c->dash, slug);
  full |= cat(vars, vlen, "mouseprefix=%s", view_gp_str(q, sizeof q, base));
  if (!full && plot)
    view_gnuplot(c, "plot_trend.gp", vars);
  free(vars);
}

void trends_plot(struct plot_ctx *c)
{
  struct trends *t = c->trends;
  if (!t)
    return;
  /* the series come grouped by algorithm */
  for (size_t i = 0, j; i < t->n; i = j) {
    for (j = i; j < t->n && !strcmp(t->s[j].s.algorithm, t->s[i].s.algorithm); j++)
      ;
    plot_algorithm(c, i, j);
  }
}

/* the change points of one series into the list `list` of v; their night numbers appended to
 * nights */
static void add_changes(const struct trends *t, const struct trend_series *k, struct tpl_view *v,
                        const char *list, char *nights, size_t nlen)
{
  for (size_t j = 0; j < k->s.n_changes; j++) {
    const struct history_change *h = &k->changes[j];
    const struct history_night *b = &k->nights[h->at - 1], *a = &k->nights[h->at];
    struct tpl_view *r = tpl_add(v, list);
    if (!r)
      return;
    size_t night = night_of(t, a->run);
    cat(nights, nlen, "%s%zu", nights[0] ? " " : "", night);
    tpl_set(r, "night", "%zu", night);
    tpl_set(r, "run", "%lld", (long long)a->run);
    tpl_set(r, "pct", "%+.1f%%", 100 * (h->ratio - 1));
    tpl_set(r, "badge", "%s", h->ratio > 1 ? "bad" : "ok");
    tpl_set(r, "direction", "%s", h->ratio > 1 ? "slower" : "faster");
    tpl_set(r, "before_ms", "%.4f", h->before_ms);
    tpl_set(r, "after_ms", "%.4f", h->after_ms);
    tpl_set(r, "p", "%.1e", h->p);
    tpl_set(r, "date_before", "%.10s", b->started);
    tpl_set(r, "date_after", "%.10s", a->started);
    tpl_set(r, "commit_before", "%.10s", b->commit);
    tpl_set(r, "commit_after", "%.10s", a->commit);
    tpl_set(r, "variant", "%s", k->s.variant);
    tpl_set(r, "params", "%s", k->s.params);
    tpl_set(r, "gpu", "%s", k->s.gpu[0] ? k->s.gpu : "no GPU");
  }
}

/* 1 when series a and b are one benchmark (on two GPU models, or the same) */
static int same_bench(const struct history_series *a, const struct history_series *b)
{
  return !strcmp(a->variant, b->variant) && !strcmp(a->params, b->params) && a->seed == b->seed &&
         !strcmp(a->l2, b->l2);
}

/* dashboard/history-<alg>.html for the series [first, end) */
static int page_algorithm(struct plot_ctx *c, size_t first, size_t end, char *why, size_t len)
{
  struct trends *t = c->trends;
  const char *alg = t->s[first].s.algorithm;
  struct tpl_view *v = tpl_view_new();
  char *done = calloc(end - first, 1);
  if (!v || !done) {
    tpl_view_free(v);
    free(done);
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  struct history_opts o;
  history_opts_default(&o);
  tpl_set(v, "algorithm", "%s", alg);
  tpl_set(v, "run", "%lld", (long long)c->run);
  tpl_set(v, "nights", "%zu", t->n_timed);
  tpl_set(v, "min_effect", "%.3g%%", 100 * compare_min_effect(&o.co, alg));
  tpl_set(v, "alpha", "%g", compare_alpha(&o.co, alg));
  tpl_set(v, "min_nights", "%d", o.min_nights);
  if (t->n_timed) {
    const struct store_night *a = night_row(t, t->timed[0]),
                             *b = night_row(t, t->timed[t->n_timed - 1]);
    tpl_set(v, "first", "%.10s", a ? a->started : "");
    tpl_set(v, "last", "%.10s", b ? b->started : "");
  }
  size_t total = 0;
  char scratch[4096];
  for (size_t i = first; i < end; i++) {
    scratch[0] = 0;
    add_changes(t, &t->s[i], v, "changes", scratch, sizeof scratch);
    total += t->s[i].s.n_changes;
  }
  tpl_set(v, "has_changes", "%s", total ? "1" : "");
  /* one section per benchmark, its GPU models side by side */
  for (size_t i = first; i < end; i++) {
    if (done[i - first])
      continue;
    const struct history_series *s = &t->s[i].s;
    struct tpl_view *b = tpl_add(v, "benchmarks");
    if (!b)
      break;
    char nights[1024] = "";
    tpl_set(b, "variant", "%s", s->variant);
    tpl_set(b, "kind", "%s", s->kind);
    tpl_set(b, "params", "%s", s->params);
    tpl_set(b, "l2", "%s", s->l2);
    tpl_set(b, "key", "%s/%s/%s/%s", alg, s->variant, s->params, s->l2);
    for (size_t j = i; j < end; j++) {
      const struct trend_series *k = &t->s[j];
      if (done[j - first] || !same_bench(s, &k->s))
        continue;
      done[j - first] = 1;
      struct tpl_view *g = tpl_add(b, "gpus");
      if (!g)
        break;
      char name[128];
      char slug[80];
      gr_fmt(name, sizeof name, "trend_%s_%d", gr_slug(slug, sizeof slug, alg), k->plot);
      render_add_plot(c, g, name, name);
      tpl_set(g, "gpu", "%s", k->s.gpu[0] ? k->s.gpu : "no GPU");
      char mouse[PATH_MAX];
      gr_fmt(mouse, sizeof mouse, "%s/%s.svg", c->dash, name);
      tpl_set(g, "zoom", "%s", access(mouse, R_OK) == 0 ? name : "");
      tpl_set(g, "count", "%zu", k->s.n);
      tpl_set(g, "latest", "%.4f", k->nights[k->s.n - 1].median_ms);
      add_changes(t, k, g, "marks", nights, sizeof nights);
    }
    tpl_set(b, "change_nights", "%s", nights);
  }
  free(done);
  char path[PATH_MAX];
  char slug[80];
  gr_fmt(path, sizeof path, "%s/history-%s.html", c->dash, gr_slug(slug, sizeof slug, alg));
  int rc = render_page("history.html", v, path, why, len);
  tpl_view_free(v);
  return rc;
}

int trends_pages(struct plot_ctx *c, char *why, size_t len)
{
  struct trends *t = c->trends;
  if (!t)
    return 0;
  for (size_t i = 0, j; i < t->n; i = j) {
    for (j = i; j < t->n && !strcmp(t->s[j].s.algorithm, t->s[i].s.algorithm); j++)
      ;
    if (page_algorithm(c, i, j, why, len))
      return -1;
  }
  return 0;
}

void trends_index(struct plot_ctx *c, struct tpl_view *v)
{
  struct trends *t = c->trends;
  if (!t)
    return;
  for (size_t i = 0, j; i < t->n; i = j) {
    for (j = i; j < t->n && !strcmp(t->s[j].s.algorithm, t->s[i].s.algorithm); j++)
      ;
    size_t changes = 0;
    for (size_t k = i; k < j; k++)
      changes += t->s[k].s.n_changes;
    struct tpl_view *h = tpl_add(v, "history_pages");
    if (!h)
      return;
    tpl_set(h, "algorithm", "%s", t->s[i].s.algorithm);
    char slug[80];
    tpl_set(h, "href", "history-%s.html", gr_slug(slug, sizeof slug, t->s[i].s.algorithm));
    tpl_set(h, "benchmarks", "%zu", j - i);
    tpl_set(h, "changes", "%zu", changes);
  }
  tpl_set(v, "has_nights", "%s", t->n_nights ? "1" : "");
  size_t shown = 0;
  for (size_t i = t->n_nights; i-- > 0 && shown < INDEX_NIGHTS; shown++) {
    const struct store_night *n = &t->nights[i];
    struct tpl_view *r = tpl_add(v, "nights");
    if (!r)
      return;
    size_t slower = 0, faster = 0;
    for (size_t k = 0; k < t->n; k++)
      for (size_t q = 0; q < t->s[k].s.n_changes; q++)
        if (t->s[k].nights[t->s[k].changes[q].at].run == n->id) {
          slower += t->s[k].changes[q].ratio > 1;
          faster += t->s[k].changes[q].ratio <= 1;
        }
    char page[PATH_MAX];
    gr_fmt(page, sizeof page, "%s/run-%lld.html", c->dash, (long long)n->id);
    tpl_set(r, "run", "%lld", (long long)n->id);
    tpl_set(r, "night", "%zu", night_of(t, n->id));
    tpl_set(r, "date", "%.16s", n->started);
    tpl_set(r, "commit", "%.10s", n->commit);
    tpl_set(r, "gpu", "%s", n->gpu[0] ? n->gpu : "no GPU");
    tpl_set(r, "host", "%s", n->host);
    dashboard_night_verdict(c, n, r);
    tpl_set(r, "slower", "%zu", slower);
    tpl_set(r, "faster", "%zu", faster);
    tpl_set(r, "slower_badge", "%s", slower ? "bad" : "ok");
    if (n->id == c->run || access(page, R_OK) == 0)
      tpl_set(r, "href", "run-%lld.html", (long long)n->id);
    if (n->id == c->run)
      tpl_set(r, "current", "1");
  }
}
