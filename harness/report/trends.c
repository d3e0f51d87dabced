/* Trends: the history of every benchmark on the dashboard. For each algorithm, one plot per
 * benchmark (variant, params, L2 mode) and GPU model: the nightly median with the band of the
 * night's min-max, the dates and commits on the x axis (one position per timed night), a linear
 * y axis spanning at least -12%..+12% of the typical level (a 10% step is a tenth of the plot),
 * and the change points of history.c as red dashed lines labelled with the change and the commit
 * range (this file: loading and plotting). The page history-ALG.html lays the GPU models of one benchmark side by side; the run's
 * page gets the index of nights (date, commit, GPU, verdict, changes first seen that night, a link
 * to its page) and the links to the history pages (trends_pages.c).
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
#include "trends_private.h"

#include "night_verdict.h"

#include "gr.h"
#include "outfile.h"
#include "history.h"
#include "render.h"
#include "stats.h"
#include "verdict.h"

#define TREND_RECENT 90 /* the latest nights plotted one by one; older ones summarised */
#define TREND_BIN 7     /* older nights: a point per this many */

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
  free(t->by_id);
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

static int index_nights(struct trends *t);

void trends_load(struct plot_ctx *c)
{
  struct history_opts o;
  char why[GR_WHY_LEN];
  history_opts_default(&o);
  struct trends *t = calloc(1, sizeof *t);
  if (!t)
    return;
  if (store_each_night(c->st, NULL, c->run, keep_night, t) || index_nights(t) ||
      history_scan(c->st, NULL, c->run, NULL, NULL, &o, keep_series, t, why, sizeof why)) {
    trends_free(t);
    return;
  }
  c->trends = t;
}

static int pos_cmp(const void *a, const void *b)
{
  int64_t x = ((const struct trend_pos *)a)->run, y = ((const struct trend_pos *)b)->run;
  return (x > y) - (x < y);
}

/* t->by_id from the nights read. 0 ok, -1 out of memory. */
static int index_nights(struct trends *t)
{
  t->by_id = malloc((t->n_nights + 1) * sizeof *t->by_id);
  if (!t->by_id)
    return -1;
  for (size_t i = 0, k = 0; i < t->n_nights; i++) {
    t->by_id[i] = (struct trend_pos){t->nights[i].id, i, 0};
    if (t->nights[i].timings > 0) /* the same order as timed */
      t->by_id[i].night = ++k;
  }
  qsort(t->by_id, t->n_nights, sizeof *t->by_id, pos_cmp);
  return 0;
}

static const struct trend_pos *find_pos(const struct trends *t, int64_t run)
{
  struct trend_pos key = {run, 0, 0};
  return t->by_id ? bsearch(&key, t->by_id, t->n_nights, sizeof key, pos_cmp) : NULL;
}

/* The night number (1-based position on the x axis) of run; 0 when it has none. */
size_t trends_night_of(const struct trends *t, int64_t run)
{
  const struct trend_pos *p = find_pos(t, run);
  return p ? p->night : 0;
}

const struct store_night *trends_night_row(const struct trends *t, int64_t run)
{
  const struct trend_pos *p = find_pos(t, run);
  return p ? &t->nights[p->row] : NULL;
}

/* "+10.0% c019..c020": a change point's label */
static void change_label(const struct trend_series *k, const struct history_change *h, char *dst,
                         size_t len)
{
  gr_fmt(dst, len, "%+.1f%% %.7s..%.7s", 100 * (h->ratio - 1), k->nights[h->at - 1].commit,
         k->nights[h->at].commit);
}

/* Append to a growing string; -1 when it is full. */
int trends_cat(char *dst, size_t len, const char *fmt, ...)
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
      x += (double)trends_night_of(t, k->nights[j + q].run);
    }
    double mid = stats_median_inplace(v, m); /* sorted */
    fprintf(f, "%.2f %.9g %.9g %.9g\n", x / (double)m, mid, v[m / 4], v[(3 * m) / 4]);
  }
  for (size_t j = old; j < n; j++) {
    const struct history_night *h = &k->nights[j];
    double e = 2 * (h->noise > 0 ? h->noise : 0) * h->median_ms;
    fprintf(f, "%zu %.9g %.9g %.9g\n", trends_night_of(t, h->run), h->median_ms, h->median_ms - e,
            h->median_ms + e);
  }
}

/* The labelled nights of the trend's data file (a tick each, about a dozen). */
static void write_ticks(FILE *f, const struct trends *t, const char *alg)
{
  fprintf(f, "# %s: the labelled nights (a tick each, about a dozen): night label\n", alg);
  size_t every = t->n_timed > 12 ? (t->n_timed + 11) / 12 : 1;
  for (size_t i = 0; i < t->n_timed; i++) {
    const struct store_night *n = trends_night_row(t, t->timed[i]);
    /* the last night's tick only where the regular one before it is not too close */
    int last = i + 1 == t->n_timed && i % every > every / 2;
    if (n && (i % every == 0 || last)) {
      /* MM-DD and the commit; a stored text is a label in quotes (no quote of its own) */
      char day[8], commit[8];
      gr_fmt(day, sizeof day, "%.5s", strlen(n->started) > 5 ? n->started + 5 : "?");
      gr_fmt(commit, sizeof commit, "%.7s", n->commit[0] ? n->commit : "?");
      view_gp_clean(day);
      view_gp_clean(commit);
      fprintf(f, "%zu \"%s\\n%s\"\n", i + 1, day, commit);
    }
  }
  fprintf(f, "\n\n");
}

/* Series k's change points (night label) as the data file's block. */
static void write_changes(FILE *f, const struct trends *t, const struct trend_series *k)
{
  fprintf(f, "\n\n# change points: night label\n");
  for (size_t j = 0; j < k->s.n_changes; j++) {
    char label[128];
    change_label(k, &k->changes[j], label, sizeof label);
    view_gp_clean(label);
    fprintf(f, "%.1f \"%s\"\n", (double)trends_night_of(t, k->nights[k->changes[j].at].run) - 0.5,
            label);
  }
  if (!k->s.n_changes) /* the block, off the plot (gnuplot crashes on labels with no point) */
    fprintf(f, "-10 \"\"\n");
  fprintf(f, "\n\n");
}

/* The y range of series k's plot (its title's yl and yh) from its nights' medians. */
static void y_range(const struct trend_series *k, double *lo_out, double *hi_out, double *mid_out)
{
  double *med = malloc(k->s.n * sizeof *med);
  if (med)
    for (size_t j = 0; j < k->s.n; j++)
      med[j] = k->nights[j].median_ms;
  /* the medians of the latest nights, the 2nd to 98th percentile of the older
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
  *lo_out = lo;
  *hi_out = hi;
  *mid_out = mid;
}

/* Series k as plot number plot: its blocks of the data file and its gnuplot variables
 * (title, y range) appended to vars; 1 when vars is full. */
static int plot_series(FILE *f, struct trends *t, struct trend_series *k, int plot, char *vars,
                       size_t vlen)
{
  k->plot = plot;
  fprintf(f, "# %d: %s %s [%s] on %s: night median_ms band_lo band_hi (the latest %d nights"
             " each; older ones a point per %d nights: their middle, the median of their medians"
             " and its quartiles)\n",
          plot, k->s.variant, k->s.params, k->s.l2, k->s.gpu, TREND_RECENT, TREND_BIN);
  write_series(f, t, k);
  write_changes(f, t, k);
  double lo, hi, mid;
  y_range(k, &lo, &hi, &mid);
  char title[512];
  gr_fmt(title, sizeof title, "%s  %s%s  (%s)", k->s.variant, k->s.params,
         strcmp(k->s.l2, "cold") ? "  [L2 hot]" : "", k->s.gpu[0] ? k->s.gpu : "no GPU");
  char qt[1100];
  return trends_cat(vars, vlen, "t%d=%s; yl%d=%.9g; yh%d=%.9g; ", plot,
                    view_gp_str(qt, sizeof qt, title), plot, fmin(lo * 0.97, mid * 0.88), plot,
                    fmax(hi * 1.03, mid * 1.12));
}

/* plots/trend_<alg>.dat and its plots for the series [first, end) of one algorithm */
static void plot_algorithm(struct plot_ctx *c, size_t first, size_t end)
{
  struct trends *t = c->trends;
  const char *alg = t->s[first].s.algorithm;
  char path[PATH_MAX], base[PATH_MAX], slug[80], q[PATH_MAX + 16];
  gr_slug(slug, sizeof slug, alg);
  gr_fmt(base, sizeof base, "%s/trend_%s_", c->gp_plots, slug);
  gr_fmt(path, sizeof path, "%s/trend_%s.dat", c->plots_dir, slug);
  struct outfile out;
  size_t vlen = 64 * 1024;
  char *vars = malloc(vlen);
  FILE *f = vars ? view_data_open(c, &out, path) : NULL;
  if (!f) {
    free(vars);
    return;
  }
  write_ticks(f, t, alg);
  vars[0] = 0;
  int plot = 0, full = 0;
  for (size_t i = first; i < end; i++)
    full |= plot_series(f, t, &t->s[i], ++plot, vars, vlen);
  if (view_data_close(c, &out)) {
    free(vars);
    return;
  }
  full |= trends_cat(vars, vlen, "datafile=%s; ", view_gp_str(q, sizeof q, path));
  full |= trends_cat(vars, vlen, "outprefix=%s; nseries=%d; nnights=%zu; ", view_gp_str(q, sizeof q, base),
              plot, t->n_timed);
  /* the same plots, standalone with gnuplot's mousing (wheel zoom, pan, values under the
   * pointer), beside the pages: linked from them, not embedded */
  gr_fmt(base, sizeof base, "%s/trend_%s_", c->gp_dash, slug);
  full |= trends_cat(vars, vlen, "mouseprefix=%s", view_gp_str(q, sizeof q, base));
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

