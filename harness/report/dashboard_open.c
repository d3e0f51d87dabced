/* The dashboard's table of open regressions (verdict.h): since when, by how much, the commits,
 * the reproducer, and who acknowledged it. See dashboard.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "dashboard.h"
#include "template.h"
#include "gr.h"
#include "verdict.h"

/* The regressions open on this night (verdict.h): since when, by how much, the commits, the
 * reproducer, and who acknowledged it. */
void dashboard_open(const struct plot_ctx *c, struct tpl_view *v)
{
  const struct run_verdict *rv = c->verdict;
  if (!rv || !rv->history_checked)
    return;
  size_t n = 0;
  for (size_t i = 0; i < rv->n_open; i++) {
    const struct rv_open *e = &rv->open[i];
    if (e->closed)
      continue;
    struct tpl_view *r = tpl_add(v, "open");
    if (!r)
      return;
    n++;
    const struct store_open_reg *g = &e->reg;
    const struct rv_test *t = e->test < rv->n ? &rv->tests[e->test] : NULL;
    tpl_set(r, "algorithm", "%s", g->algorithm);
    tpl_set(r, "variant", "%s", g->variant);
    tpl_set(r, "params", "%s", g->params);
    tpl_set(r, "l2", "%s", g->l2);
    tpl_set(r, "since", "%lld", (long long)g->opened_run);
    tpl_set(r, "since_date", "%.10s", e->opened_date);
    tpl_set(r, "ref_ms", "%.4f", g->ref_ms);
    tpl_set(r, "cur_ms", "%s", "-");
    tpl_set(r, "change", "%s", "-");
    tpl_set(r, "range", "%s", "");
    tpl_set(r, "repro", "%s", "");
    if (g->cur_ms > 0) {
      tpl_set(r, "cur_ms", "%.4f", g->cur_ms);
      tpl_set(r, "change", "%+.1f%%", 100 * (g->cur_ms / g->ref_ms - 1));
    }
    tpl_set(r, "threshold", "%.3g%%", 100 * e->min_effect);
    if (t) {
      tpl_set(r, "range", "%s", t->range);
      tpl_set(r, "repro", "%s", t->repro ? t->repro : "");
    }
    if (e->acked) {
      tpl_set(r, "badge", "meh");
      tpl_set(r, "state", "acknowledged");
      struct tpl_view *a = tpl_add(r, "ack");
      if (a) {
        tpl_set(a, "who", "%s", e->ack.who);
        tpl_set(a, "at", "%s", e->ack.at);
        tpl_set(a, "reason", "%s", e->ack.reason);
        tpl_set(a, "undo", "gpuregress ack --undo '%s'", e->ack.benchmark);
      }
    } else {
      tpl_set(r, "badge", "bad");
      tpl_set(r, "state", "%s", e->history_new ? "step confirmed tonight" : e->fresh ? "new tonight" : "open");
      tpl_set(r, "ack_cmd", "gpuregress ack '%s/%s %s' --reason TEXT", g->algorithm, g->variant,
              g->params);
    }
  }
  tpl_set(v, "has_open", "%s", n ? "1" : "");
  tpl_set(v, "open_unacked", "%zu", rv->open_unacked);
  tpl_set(v, "open_acked", "%zu", rv->open_acked);
  if (rv->closed)
    tpl_set(v, "closed", "%zu", rv->closed);
  else
    tpl_set(v, "closed", "%s", "");
}
