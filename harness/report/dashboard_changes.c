/* The dashboard's comparison with the baseline (compare.h): the counts, every benchmark whose time
 * changed, the checks that regressed, the accuracy metrics. See dashboard.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "dashboard.h"
#include "gr.h"
#include "render.h"
#include "template.h"
#include "verdict.h"

/* A benchmark whose time changed (or that is new or gone): its times, its class and, when slower,
 * its commit range and the command that times it again. */
static void changed_row(const struct plot_ctx *c, struct tpl_view *row,
                        const struct compare_timing *t)
{
  int both = t->in_base && t->in_cur;
  const char *cls = !t->in_base ? "new" : !t->in_cur ? "gone" : stats_class_name(t->sc.cls);
  tpl_set(row, "algorithm", "%s", t->algorithm);
  tpl_set(row, "variant", "%s", t->variant);
  tpl_set(row, "params", "%s", t->params);
  struct tpl_view *m = both ? tpl_add(row, "both") : NULL;
  if (m) {
    tpl_set(m, "base_ms", "%.4f", t->sc.base.median);
    tpl_set(m, "new_ms", "%.4f", t->sc.cur.median);
    tpl_set(m, "ratio", "%.3fx", t->sc.ratio);
    tpl_set(m, "p", "%.1e", t->sc.p);
  }
  tpl_set(row, "class", "%s", cls);
  tpl_set(row, "badge", "%s", render_badge(cls));
  tpl_set(row, "check_regressed", "%s", t->regression ? "1" : "");
  /* a slower row: its commit range and the command that times it again */
  char name[GR_CASE_TEXT_LEN + 96];
  gr_fmt(name, sizeof name, "%s %s [%s] vs baseline", t->variant, t->params, t->l2);
  for (size_t k = 0; both && t->sc.cls == STATS_SLOWER && k < c->verdict->n; k++) {
    const struct rv_test *vt = &c->verdict->tests[k];
    if (strcmp(vt->suite, t->algorithm) || strcmp(vt->name, name) || !vt->repro)
      continue;
    struct tpl_view *rp = tpl_add(row, "repro");
    if (rp) {
      tpl_set(rp, "command", "%s", vt->repro);
      tpl_set(rp, "range", "%s", vt->range);
    }
  }
}

/* Every accuracy metric of the run against the base. */
static void add_accuracy(struct tpl_view *ch, const struct compare_result *r)
{
  tpl_set(ch, "acc_regressions", "%zu", r->n_acc_regressions);
  for (size_t i = 0; i < r->n_acc; i++) {
    const struct compare_accuracy *a = &r->acc[i];
    struct tpl_view *row = a->in_cur ? tpl_add(ch, "accuracy") : NULL;
    if (!row)
      continue;
    tpl_set(row, "algorithm", "%s", a->algorithm);
    tpl_set(row, "variant", "%s", a->variant);
    tpl_set(row, "params", "%s", a->params);
    tpl_set(row, "metric", "%s", a->metric);
    char base_txt[32] = "-";
    if (a->in_base)
      gr_fmt(base_txt, sizeof base_txt, "%.3f%%", 100 * a->base);
    tpl_set(row, "base", "%s", base_txt);
    tpl_set(row, "new", "%.3f%%", 100 * a->cur);
    tpl_set(row, "regressed", "%s", a->regression ? "1" : "");
    tpl_set(ch, "has_accuracy", "1");
  }
}

/* Changes against the verdict's baseline. */
void dashboard_changes(const struct plot_ctx *c, struct tpl_view *v)
{
  const struct compare_result *r = c->verdict ? c->verdict->cmp : NULL;
  if (!r) {
    tpl_set(v, "no_base", "1");
    return;
  }
  struct tpl_view *ch = tpl_add(v, "changes");
  if (!ch)
    return;
  int regress = r->n_slower > 0 || r->n_regressions > 0 || r->n_acc_regressions > 0;
  tpl_set(ch, "class", "%s", regress ? "bad" : r->n_unsure ? "meh" : "ok");
  tpl_set(ch, "base", "%lld", (long long)r->base.id);
  if (c->verdict->base_file)
    tpl_set(ch, "base_file", "%s", c->verdict->base_file);
  tpl_set(ch, "commit", "%s", r->base.commit);
  tpl_set(ch, "started", "%s", r->base.started);
  const size_t counts[] = {r->n_same, r->n_faster, r->n_slower,     r->n_unsure,
                           r->n_new,  r->n_gone,   r->n_regressions};
  const char *const names[] = {"same", "faster", "slower", "unsure", "new", "gone", "regressions"};
  for (int i = 0; i < 7; i++)
    tpl_set(ch, names[i], "%zu", counts[i]);
  int changed = 0, regressed = 0;
  for (size_t i = 0; i < r->n_t; i++) {
    const struct compare_timing *t = &r->t[i];
    if ((t->in_base && t->in_cur && t->sc.cls == STATS_SAME && !t->regression) ||
        (!t->in_base && !t->in_cur))
      continue;
    struct tpl_view *row = tpl_add(ch, "changed");
    changed++;
    if (!row)
      break;
    changed_row(c, row, t);
  }
  for (size_t i = 0; i < r->n_oc; i++) {
    const struct compare_outcome *oc = &r->oc[i];
    struct tpl_view *row = oc->regression ? tpl_add(ch, "regressed") : NULL;
    if (!row)
      continue;
    regressed++;
    tpl_set(row, "algorithm", "%s", oc->algorithm);
    tpl_set(row, "variant", "%s", oc->variant);
    tpl_set(row, "base_verdict", "%s", oc->base_verdict[0] ? oc->base_verdict : "-");
    tpl_set(row, "cur_verdict", "%s", oc->cur_verdict);
  }
  add_accuracy(ch, r);
  tpl_set(ch, "has_changed", "%s", changed ? "1" : "");
  tpl_set(ch, "has_regressed", "%s", regressed ? "1" : "");
}
