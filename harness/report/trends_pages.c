/* Trends, the pages: dashboard/history-ALG.html (the GPU models of each benchmark side by side,
 * its change points listed) and, on the run's page, the index of nights and the links to the
 * history pages. The data and the plots: trends.c. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "night_verdict.h"
#include "trends.h"
#include "trends_private.h"

#include "gr.h"
#include "history.h"
#include "outfile.h"
#include "render.h"
#include "verdict.h"

#define INDEX_NIGHTS 60 /* nights listed on the run's page, newest first */

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
    size_t night = trends_night_of(t, a->run);
    trends_cat(nights, nlen, "%s%zu", nights[0] ? " " : "", night);
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
    const struct store_night *a = trends_night_row(t, t->timed[0]),
                             *b = trends_night_row(t, t->timed[t->n_timed - 1]);
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
    tpl_set(r, "night", "%zu", trends_night_of(t, n->id));
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
