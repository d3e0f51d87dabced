/* Open regressions: the part of a night's verdict that looks over the nights (verdict.h).
 *
 * A regression opens on the night a benchmark (algorithm, variant, params, seed, L2 mode) is
 * slower than its baseline, or on the first night after a step to slower that `gpuregress
 * history` confirms; its reference is the median before it. `compare --record` stores the open
 * ones with the night; the next night carries them on and closes each whose median is back within
 * half its minimum effect of the reference (hysteresis). Until then each fails every night, unless an
 * acknowledgement in force (`gpuregress ack`) covers it: then it is skipped with who, when and
 * why. A step confirmed first on this night (what `history --check` fails on) fails the night
 * too. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"
#include "history.h"
#include "reproducers.h"
#include "store_first_bad.h"
#include "verdict_private.h"

/* Tonight's median of each timed benchmark. */
struct tonight {
  struct store_timing *t;
  size_t n, cap;
};

static int keep_timing(void *ctx, const struct store_timing *t)
{
  struct tonight *k = ctx;
  if (t->samples <= 0 || !(t->median_ms > 0))
    return 0;
  if (k->n == k->cap) {
    size_t nc = k->cap ? 2 * k->cap : 64;
    struct store_timing *nt = realloc(k->t, nc * sizeof *nt);
    if (!nt)
      return -1;
    k->t = nt;
    k->cap = nc;
  }
  k->t[k->n++] = *t;
  return 0;
}

/* Tonight's comparison of the benchmark of r (NULL: none). */
static struct compare_timing *timing_tonight(const struct run_verdict *v,
                                             const struct store_open_reg *r)
{
  for (size_t i = 0; v->cmp && i < v->cmp->n_t; i++) {
    struct compare_timing *t = &v->cmp->t[i];
    if (t->seed == r->seed && !strcmp(t->algorithm, r->algorithm) &&
        !strcmp(t->variant, r->variant) && !strcmp(t->params, r->params) && !strcmp(t->l2, r->l2))
      return t;
  }
  return NULL;
}

/* With an interleaved re-timing of the last good build and this one (compare --confirm), an
 * open regression is red only while the re-timing holds it: a step the history confirms tonight
 * needs COMPARE_CONFIRM_SHARE of its minimum effect there (else it is listed as not confirmed on
 * this machine, never opened), and one carried from an earlier night closes once the re-timing
 * shows less than half of that (hysteresis). Returns 1 when e closes. */
static int closed_by_retiming(struct run_verdict *v, const struct compare_opts *co,
                              struct rv_open *e)
{
  struct compare_timing *t = timing_tonight(v, &e->reg);
  if (!co->confirm || !t || t->confirm_rounds < COMPARE_CONFIRM_MIN_ROUNDS || e->fresh)
    return 0;
  double hold = COMPARE_CONFIRM_SHARE * compare_min_effect_variant(co, t->algorithm, t->variant);
  if (e->history_new && t->confirm_ratio < 1 + hold) {
    if (!t->unconfirmed) {
      t->unconfirmed = 3;
      v->cmp->n_unconfirmed++;
    }
    return 1;
  }
  return !e->history_new && t->confirm_ratio < 1 + hold / 2;
}

static double median_tonight(const struct tonight *k, const struct store_open_reg *r)
{
  for (size_t i = 0; i < k->n; i++) {
    const struct store_timing *t = &k->t[i];
    if (t->seed == r->seed && !strcmp(t->algorithm, r->algorithm) &&
        !strcmp(t->variant, r->variant) && !strcmp(t->params, r->params) && !strcmp(t->l2, r->l2))
      return t->median_ms;
  }
  return 0;
}

/* The entry of v->open for a benchmark, added (zeroed but for the key) when absent; NULL out of
 * memory. */
static struct rv_open *entry(struct run_verdict *v, const char *alg, const char *var,
                             const char *kind, const char *params, uint64_t seed, const char *l2)
{
  for (size_t i = 0; i < v->n_open; i++) {
    struct store_open_reg *r = &v->open[i].reg;
    if (r->seed == seed && !strcmp(r->algorithm, alg) && !strcmp(r->variant, var) &&
        !strcmp(r->params, params) && !strcmp(r->l2, l2))
      return &v->open[i];
  }
  if (v->n_open == v->cap_open) {
    size_t nc = v->cap_open ? 2 * v->cap_open : 16;
    struct rv_open *no = realloc(v->open, nc * sizeof *no);
    if (!no)
      return NULL;
    v->open = no;
    v->cap_open = nc;
  }
  struct rv_open *e = &v->open[v->n_open++];
  memset(e, 0, sizeof *e);
  e->test = (size_t)-1;
  gr_fmt(e->reg.algorithm, sizeof e->reg.algorithm, "%s", alg);
  gr_fmt(e->reg.variant, sizeof e->reg.variant, "%s", var);
  gr_fmt(e->reg.kind, sizeof e->reg.kind, "%s", kind ? kind : "");
  gr_fmt(e->reg.params, sizeof e->reg.params, "%s", params);
  gr_fmt(e->reg.l2, sizeof e->reg.l2, "%s", l2);
  e->reg.seed = seed;
  return e;
}

/* Set e's opening (reference, nights, p) when it has none or this one is older. */
static void opened(struct rv_open *e, int64_t opened_run, int64_t base_run, double ref_ms,
                   double p, const char *source)
{
  if (e->reg.opened_run && e->reg.opened_run <= opened_run)
    return;
  e->reg.opened_run = opened_run;
  e->reg.base_run = base_run;
  e->reg.ref_ms = ref_ms;
  e->reg.p = p;
  gr_fmt(e->reg.source, sizeof e->reg.source, "%s", source);
}

static int carry(void *ctx, const struct store_open_reg *r)
{
  struct run_verdict *v = ctx;
  struct rv_open *e = entry(v, r->algorithm, r->variant, r->kind, r->params, r->seed, r->l2);
  if (!e)
    return -1;
  opened(e, r->opened_run, r->base_run, r->ref_ms, r->p, r->source);
  return 0;
}

/* The steps of the history: one confirmed tonight opens (and fails the night); one confirmed
 * on an earlier night was recorded open then and is carried from that record, so it is not
 * opened again once closed (a reverted step would come back "since run 200" night after night);
 * only where no earlier night was recorded do the earlier steps open. */
struct from_hist {
  struct run_verdict *v;
  int64_t prev; /* the last night recorded before this one (0 none) */
};

static int from_history(void *ctx, const struct history_series *s)
{
  const struct from_hist *fh = ctx;
  struct run_verdict *v = fh->v;
  if (!s->n || s->nights[s->n - 1].run != v->run.id || strcmp(s->gpu, v->run.gpu))
    return 0;
  for (size_t i = 0; i < s->n_changes; i++) {
    const struct history_change *c = &s->changes[i];
    if (!(c->ratio > 1) || (fh->prev && !c->is_new))
      continue;
    struct rv_open *e = entry(v, s->algorithm, s->variant, s->kind, s->params, s->seed, s->l2);
    if (!e)
      return -1;
    opened(e, s->nights[c->at].run, s->nights[c->at - 1].run, c->before_ms, c->p, "history");
    if (c->is_new) {
      e->history_new = 1;
      e->step_ratio = c->ratio;
      e->step_p = c->p;
    }
    if (!(e->min_effect > 0))
      e->min_effect = s->min_effect;
  }
  return 0;
}

static int apply_ack(void *ctx, const struct store_ack *a)
{
  struct run_verdict *v = ctx;
  for (size_t i = 0; i < v->n_open; i++) {
    struct rv_open *e = &v->open[i];
    if (!e->acked && !e->closed && e->reg.opened_run <= a->through_run &&
        store_ack_covers(a, e->reg.algorithm, e->reg.variant, e->reg.params)) {
      e->acked = 1;
      e->ack = *a;
    }
  }
  return 0;
}

static void shell_quote(char *dst, size_t len, const char *s)
{
  size_t k = 0;
  if (len < 3) {
    dst[0] = 0;
    return;
  }
  if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:+-") ==
                strlen(s)) {
    gr_fmt(dst, len, "%s", s); /* nothing the shell would read otherwise */
    return;
  }
  dst[k++] = '\'';
  for (; *s && k + 6 < len; s++) {
    if (*s == '\'') {
      memcpy(dst + k, "'\\''", 4);
      k += 4;
    } else {
      dst[k++] = *s;
    }
  }
  dst[k++] = '\'';
  dst[k] = 0;
}

void rv_repro(char **dst, const char *runner, const char *alg, const char *var,
              const char *params, uint64_t seed, const char *l2, const char *against)
{
  char sel[160], kase[GR_CASE_TEXT_LEN + 200], qa[600], text[GR_CASE_TEXT_LEN + 96];
  gr_fmt(text, sizeof text, "%s/%s", alg, var);
  shell_quote(sel, sizeof sel, text);
  gr_fmt(text, sizeof text, "%s %s seed=%llu", alg, params, (unsigned long long)seed);
  shell_quote(kase, sizeof kase, text);
  shell_quote(qa, sizeof qa, against);
  rv_set_text(dst, "%s bench %s --case %s%s --against %s",
              gr_name_ok(runner) ? runner : "gpuregress", sel, kase,
              strcmp(l2, "hot") ? "" : " --hot", qa);
}

/* "A..B" of the runs' commits (short); "" when one is unknown */
static void commit_range(struct store *st, int64_t before, int64_t after, char *dst, size_t len)
{
  struct store_run a, b;
  dst[0] = 0;
  if (before <= 0 || store_get_run(st, STORE_MAIN, before, &b) ||
      store_get_run(st, STORE_MAIN, after, &a) || !a.commit[0] || !b.commit[0])
    return;
  gr_fmt(dst, len, "%.12s..%.12s", b.commit, a.commit);
}

/* The slower timings of tonight's comparison: each opens a regression and gets its reproducer
 * and commit range. */
static int from_baseline(struct store *st, struct run_verdict *v)
{
  const struct compare_result *r = v->cmp;
  if (!r || r->base_other_gpu)
    return 0;
  for (size_t i = 0; i < v->n; i++) {
    struct rv_test *t = &v->tests[i];
    if (strcmp(t->source, "timing") || t->state != RV_FAIL || !t->compared)
      continue;
    /* the row of the comparison behind this test */
    for (size_t k = 0; k < r->n_t; k++) {
      const struct compare_timing *ct = &r->t[k];
      char name[sizeof t->name];
      gr_fmt(name, sizeof name, "%s %s [%s] vs baseline", ct->variant, ct->params, ct->l2);
      if (strcmp(ct->algorithm, t->suite) || strcmp(name, t->name))
        continue;
      /* the file of the night's reproducers/ folder (export --format reproducers): that
       * benchmark of the baseline run, of this database or of the baseline file */
      char dir[256], file[400];
      reproducer_slower_name(dir, sizeof dir, ct->algorithm, ct->variant, ct->params, ct->seed,
                             ct->l2);
      gr_fmt(file, sizeof file, "reproducers/%s/baseline.db", dir);
      rv_repro(&t->repro, v->run.runner, ct->algorithm, ct->variant, ct->params, ct->seed, ct->l2,
               file);
      if (r->base.commit[0] && r->cur.commit[0]) {
        gr_fmt(t->range, sizeof t->range, "%.12s..%.12s", r->base.commit, r->cur.commit);
        rv_set_text(&t->message, "%s; commits %s", t->message ? t->message : "", t->range);
      }
      struct rv_open *e =
          entry(v, ct->algorithm, ct->variant, ct->kind, ct->params, ct->seed, ct->l2);
      if (!e)
        return -1;
      opened(e, v->run.id, v->base_file ? 0 : r->base.id, ct->sc.base.median, ct->sc.p,
             "baseline");
      e->fresh = 1;
      e->test = i;
      if (!(e->min_effect > 0))
        e->min_effect = ct->min_effect;
      break;
    }
  }
  (void)st;
  return 0;
}

/* The test of an open regression that has none tonight (carried, or a step of the history). */
static int add_open_test(struct store *st, struct run_verdict *v, struct rv_open *e)
{
  const struct store_open_reg *r = &e->reg;
  const char *verdict = e->acked ? "acknowledged" : e->history_new ? "step" : "open";
  struct rv_test *t = rv_add_test(v, r->algorithm, r->kind, e->history_new ? "history" : "regression",
                                  verdict, e->acked ? RV_SKIP : RV_FAIL, 0);
  if (!t)
    return -1;
  e->test = (size_t)(t - v->tests);
  gr_fmt(t->name, sizeof t->name, "%s %s [%s] %s", r->variant, r->params, r->l2,
         e->history_new ? "over the nights" : "open regression");
  t->compared = 1;
  t->base_ms = r->ref_ms;
  t->cur_ms = r->cur_ms;
  t->ratio = r->cur_ms > 0 ? r->cur_ms / r->ref_ms : NAN;
  t->p = e->history_new ? e->step_p : r->p;
  t->min_effect = e->min_effect;
  commit_range(st, r->base_run, r->opened_run, t->range, sizeof t->range);
  /* the file of the night's reproducers/ folder, as for a slower row (reproducers.c one_open) */
  char dir[256], file[400];
  reproducer_slower_name(dir, sizeof dir, r->algorithm, r->variant, r->params, r->seed, r->l2);
  gr_fmt(file, sizeof file, "reproducers/%s/baseline.db", dir);
  if (r->base_run > 0 || r->opened_run > 0)
    rv_repro(&t->repro, v->run.runner, r->algorithm, r->variant, r->params, r->seed, r->l2, file);
  char now[96], what[400], acked[900] = "";
  if (r->cur_ms > 0)
    gr_fmt(now, sizeof now, "%.6g ms -> %.6g ms (%+.1f%%)", r->ref_ms, r->cur_ms,
           100 * (r->cur_ms / r->ref_ms - 1));
  else
    gr_fmt(now, sizeof now, "%.6g ms before it, not timed on this night", r->ref_ms);
  if (e->history_new)
    gr_fmt(what, sizeof what,
           "a step to slower confirmed over the nights on this night (history --check): %+.1f%%, "
           "p %.2g, first night after it run %lld (%.10s)",
           100 * (e->step_ratio - 1), e->step_p, (long long)r->opened_run, e->opened_date);
  else
    gr_fmt(what, sizeof what, "open regression since run %lld (%.10s)", (long long)r->opened_run,
           e->opened_date);
  if (e->acked)
    gr_fmt(acked, sizeof acked, "; acknowledged by %s at %s: %s", e->ack.who, e->ack.at,
           e->ack.reason);
  rv_set_text(&t->message, "%s: %s, not back within %.3g%%%s%s%s", what, now,
              100 * e->min_effect, t->range[0] ? "; commits " : "", t->range, acked);
  rv_set_text(&t->body, "%s\nreproduce: %s%s%s%s", t->message ? t->message : "",
              t->repro ? t->repro : "", t->range[0] ? "\ncommits: git log " : "", t->range,
              e->acked ? "" : "\nacknowledge: gpuregress ack 'ALG/VARIANT PARAMS' --reason TEXT");
  if (!e->acked && t->body) {
    /* name the benchmark in the acknowledge line */
    char *k = strstr(t->body, "'ALG/VARIANT PARAMS'");
    if (k) {
      *k = 0;
      char *head = t->body;
      t->body = NULL;
      rv_set_text(&t->body, "%s'%s/%s %s' --reason TEXT", head, r->algorithm, r->variant,
                  r->params);
      free(head);
    }
  }
  return 0;
}

/* The first bad commit `bisect --db` named for an open regression, with it until it closes: in
 * its test's message (JUnit, Markdown, the terminal), the summary (banner, index of nights) and
 * the JSON. */
static int first_bad_commits(struct store *st, struct run_verdict *v)
{
  for (size_t i = 0; i < v->n_open; i++) {
    struct rv_open *e = &v->open[i];
    struct store_first_bad fb;
    const struct store_open_reg *r = &e->reg;
    if (e->closed || store_get_first_bad(st, r->algorithm, r->variant, r->params, r->seed, r->l2,
                                         r->opened_run, &fb) != 1)
      continue;
    gr_fmt(e->first_bad, sizeof e->first_bad, "%.12s %s", fb.sha, fb.subject);
    if (e->test < v->n) {
      struct rv_test *t = &v->tests[e->test];
      gr_fmt(t->first_bad, sizeof t->first_bad, "%s", e->first_bad);
      rv_set_text(&t->message, "%s; first bad: %s", t->message ? t->message : "", e->first_bad);
      rv_set_text(&t->body, "%s\nfirst bad: %s (%s, named %s)", t->body ? t->body : "", fb.sha,
                  fb.author_date, fb.found_at);
    }
  }
  return 0;
}

int rv_open_build(struct store *st, struct run_verdict *v, const struct rv_opts *o, char *why,
                  size_t len)
{
  struct tonight tn = {0};
  struct history_opts ho;
  history_opts_default(&ho);
  struct compare_opts dflt;
  compare_opts_default(&dflt);
  const struct compare_opts *co = o->co ? o->co : &dflt;
  v->history_checked = 1;
  int64_t prev = store_last_recorded(st, v->run.id, v->run.gpu);
  struct from_hist fh = {v, prev};
  if ((prev && store_each_open_reg(st, prev, carry, v)) || from_baseline(st, v) ||
      history_scan(st, NULL, v->run.id, NULL, NULL, &ho, from_history, &fh, why, len) < 0 ||
      store_each_timing(st, STORE_MAIN, v->run.id, keep_timing, &tn)) {
    if (!why[0])
      gr_fmt(why, len, "cannot read the history of run %lld: %s", (long long)v->run.id,
             store_errmsg(st));
    free(tn.t);
    return -1;
  }
  for (size_t i = 0; i < v->n_open; i++) {
    struct rv_open *e = &v->open[i];
    if (!(e->min_effect > 0))
      e->min_effect = compare_min_effect_variant(co, e->reg.algorithm, e->reg.variant);
    e->reg.cur_ms = median_tonight(&tn, &e->reg);
    /* hysteresis: opened at the minimum effect (confirmed), closed only back within half of
     * it, so that a borderline step does not open and close on successive nights */
    e->closed = (!e->fresh && !e->history_new && e->reg.cur_ms > 0 &&
                 e->reg.cur_ms < e->reg.ref_ms * (1 + e->min_effect / 2)) ||
                closed_by_retiming(v, co, e);
    struct store_run orun;
    if (store_get_run(st, STORE_MAIN, e->reg.opened_run, &orun) == 0)
      gr_fmt(e->opened_date, sizeof e->opened_date, "%s", orun.started);
  }
  free(tn.t);
  if (store_each_ack(st, 1, apply_ack, v) < 0) {
    gr_fmt(why, len, "cannot read the acknowledgements: %s", store_errmsg(st));
    return -1;
  }
  for (size_t i = 0; i < v->n_open; i++) {
    struct rv_open *e = &v->open[i];
    if (e->closed) {
      v->closed++;
      continue;
    }
    v->open_acked += e->acked;
    v->open_unacked += !e->acked;
    v->history_new += e->history_new;
    /* a slower timing tonight is its own failure (a fact of the comparison, acknowledged or
     * not); a step confirmed tonight gets its test beside it */
    if (e->fresh && !e->history_new)
      continue;
    if (add_open_test(st, v, e))
      return -1;
  }
  return first_bad_commits(st, v);
}

long run_verdict_open_regs(const struct run_verdict *v, struct store_open_reg **out)
{
  *out = malloc((v->n_open + 1) * sizeof **out);
  if (!*out)
    return -1;
  long n = 0;
  for (size_t i = 0; i < v->n_open; i++)
    if (!v->open[i].closed)
      (*out)[n++] = v->open[i].reg;
  return n;
}
