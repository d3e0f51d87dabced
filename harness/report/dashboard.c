/* The dashboard of `gpuregress plot`: OUT/dashboard/index.html, one self-contained page (SVG
 * plots embedded as data URIs, CSS inline, no script). The page is the template
 * harness/report/dashboard.html, which the build copies beside the binary (share/dashboard.html); this
 * file only gathers the data (verdicts, changes against the previous run on the same GPU model,
 * timings, plots) into a template view (template.h), where every value is escaped. */
#define _GNU_SOURCE
#include "dashboard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "gr.h"
#include "render.h"
#include "template.h"
#include "trends.h"
#include "verdict.h"

static const char *nz(const char *s)
{
  return s ? s : "";
}

/* Variants that did not run at all (skip, no case: no GPU, a driver too old) are folded into one
 * line per reason instead of a row of zeros each, and their regimes are left out of the coverage
 * table (not reached is not what happened to them). */
#define FOLD_REASONS 8
struct fold {
  char *reason, *names; /* names: "alg/variant, alg/variant, ..." */
  int n;
};

struct outcomes_ctx {
  struct tpl_view *v;
  int n;
  struct fold folds[FOLD_REASONS];
  char **skipped; /* "alg/variant" of every folded variant, for the coverage table */
  size_t n_skipped;
};

/* 0 folded; -1 not folded (out of memory, too many reasons: the caller keeps its row) */
static int fold_skip(struct outcomes_ctx *oc, const struct store_outcome *o)
{
  char *name = NULL;
  if (asprintf(&name, "%s/%s", nz(o->algorithm), nz(o->variant)) < 0)
    return -1;
  const char *why = nz(o->reason);
  struct fold *f = NULL;
  for (int i = 0; i < FOLD_REASONS && !f; i++)
    if (!oc->folds[i].reason || !strcmp(oc->folds[i].reason, why))
      f = &oc->folds[i];
  char **list = f ? realloc(oc->skipped, (oc->n_skipped + 1) * sizeof *list) : NULL;
  if (list)
    oc->skipped = list;
  if (!list || (!f->reason && !(f->reason = strdup(why)))) {
    free(name);
    return -1;
  }
  char *names = NULL;
  if (asprintf(&names, "%s%s%s", f->names ? f->names : "", f->names ? ", " : "", name) < 0) {
    free(name);
    return -1;
  }
  free(f->names);
  f->names = names;
  f->n++;
  oc->skipped[oc->n_skipped++] = name;
  return 0;
}

static void fold_rows(struct outcomes_ctx *oc)
{
  for (int i = 0; i < FOLD_REASONS && oc->folds[i].reason; i++) {
    struct tpl_view *r = tpl_add(oc->v, "skipped_variants");
    if (r) {
      tpl_set(r, "count", "%d", oc->folds[i].n);
      tpl_set(r, "plural", "%s", oc->folds[i].n == 1 ? "" : "s");
      tpl_set(r, "reason", "%s", oc->folds[i].reason);
      tpl_set(r, "names", "%s", oc->folds[i].names);
    }
  }
}

static void fold_free(struct outcomes_ctx *oc)
{
  for (int i = 0; i < FOLD_REASONS; i++) {
    free(oc->folds[i].reason);
    free(oc->folds[i].names);
  }
  for (size_t i = 0; i < oc->n_skipped; i++)
    free(oc->skipped[i]);
  free(oc->skipped);
}

static int add_outcome(void *ctx, const struct store_outcome *o)
{
  struct outcomes_ctx *oc = ctx;
  const char *vd = nz(o->verdict);
  oc->n++;
  if (!strcmp(vd, "skip") && o->cases == 0 && fold_skip(oc, o) == 0)
    return 0;
  struct tpl_view *r = tpl_add(oc->v, "outcomes");
  if (!r)
    return -1;
  const char *b = render_badge(vd);
  tpl_set(r, "algorithm", "%s", nz(o->algorithm));
  tpl_set(r, "variant", "%s", nz(o->variant));
  tpl_set(r, "kind", "%s", nz(o->kind));
  tpl_set(r, "verdict", "%s", vd);
  tpl_set(r, "badge", "%s", b);
  tpl_set(r, "cases", "%d", (int)o->cases);
  tpl_set(r, "passed", "%d", (int)o->passed);
  tpl_set(r, "skipped", "%d", (int)o->skipped);
  tpl_set(r, "failed", "%d", (int)o->failed);
  tpl_set(r, "seconds", "%.1f", o->seconds);
  if (o->caught)
    tpl_set(r, "to_catch", "%d cases, %.2f s", (int)o->cases_to_catch, o->seconds_to_catch);
  /* why it did not pass, and what reproduces it (else its smallest failing case) */
  if (strcmp(vd, "pass") != 0) {
    const char *cs = o->shrunk_case ? o->shrunk_case : nz(o->first_case);
    tpl_set(r, "reason", "%s", nz(o->reason));
    tpl_set(r, "code", "%s", o->reproducer ? o->reproducer : strcmp(vd, "skip") ? cs : "");
  }
  return 0;
}

/* Coverage: one row per (variant, regime) of the run; a regime no case reached is marked. The
 * variants folded above (they ran no case) have no rows. */
static int add_coverage(void *ctx, const char *alg, const char *var, const char *regime,
                        int64_t cases)
{
  struct outcomes_ctx *oc = ctx;
  size_t la = strlen(nz(alg));
  for (size_t i = 0; i < oc->n_skipped; i++)
    if (!strncmp(oc->skipped[i], nz(alg), la) && oc->skipped[i][la] == '/' &&
        !strcmp(oc->skipped[i] + la + 1, nz(var)))
      return 0;
  struct tpl_view *r = tpl_add(oc->v, "coverage");
  if (!r)
    return -1;
  tpl_set(oc->v, "has_coverage", "1");
  tpl_set(r, "algorithm", "%s", nz(alg));
  tpl_set(r, "variant", "%s", nz(var));
  tpl_set(r, "regime", "%s", nz(regime));
  tpl_set(r, "cases", "%lld", (long long)cases);
  tpl_set(r, "badge", "%s", cases ? "ok" : "meh");
  tpl_set(r, "uncovered", "%s", cases ? "" : "1");
  return 0;
}

/* Sanitizer verdicts (the latest sanitize run up to this one): one row per variant, one cell
 * per tool. A finding is good news on a historical variant and bad news on any other. */
struct sanitizer_ctx {
  struct tpl_view *v, *row;
  char last[160];
};

static int add_sanitizer(void *ctx, const struct sanitizer_row *s)
{
  struct sanitizer_ctx *sc = ctx;
  char key[160];
  gr_fmt(key, sizeof key, "%s/%s", nz(s->algorithm), nz(s->variant));
  if (!sc->row || strcmp(key, sc->last) != 0) {
    if (!(sc->row = tpl_add(sc->v, "sanitizer")))
      return -1;
    gr_fmt(sc->last, sizeof sc->last, "%s", key);
    tpl_set(sc->row, "algorithm", "%s", nz(s->algorithm));
    tpl_set(sc->row, "variant", "%s", nz(s->variant));
    tpl_set(sc->row, "kind", "%s", nz(s->kind));
    tpl_set(sc->row, "cases", "%lld", (long long)s->cases);
  }
  struct tpl_view *t = tpl_add(sc->row, "tools");
  if (!t)
    return -1;
  const char *vd = nz(s->verdict);
  int found = !strcmp(vd, "finding") || !strcmp(vd, "check") || !strcmp(vd, "error");
  int hist = s->kind && !strcmp(s->kind, "historical");
  const char *b = !strcmp(vd, "clean") ? "ok" : found ? (hist ? "ok" : "bad") : "meh";
  tpl_set(t, "tool", "%s", nz(s->tool));
  tpl_set(t, "verdict", "%s", vd);
  tpl_set(t, "badge", "%s", b);
  tpl_set(t, "detail", "%s", strcmp(vd, "clean") ? nz(s->detail) : "");
  return 0;
}

/* One variant's row of an algorithm's table: its timing (in the algorithm's unit, against the
 * peer timed in the same run) and its check's badge. */
static void timing_row(struct tpl_view *row, const struct store_timing *r,
                       const struct store_timing *peer, const char *unit)
{
  char num[32];
  tpl_set(row, "variant", "%s", r->variant);
  tpl_set(row, "kind", "%s", r->kind);
  struct tpl_view *m = r->samples > 0 ? tpl_add(row, "timed") : NULL;
  if (m) {
    tpl_set(m, "median", "%.4f", r->median_ms);
    tpl_set(m, "noise", "%.2f%%", 100 * r->noise);
    if (unit[0]) {
      tpl_set(m, "gbps", "%s", gr_si(r->items_per_s, num, sizeof num));
      tpl_set(m, "pct", "%.1f%%", r->pct_peak);
    } else {
      tpl_set(m, "gbps", "%.1f", r->gbps);
      tpl_set(m, "pct", "%.1f%%", r->pct_copy);
    }
    if (peer && peer != r)
      tpl_set(m, "vs_peer", "%.2fx", r->median_ms / peer->median_ms);
    else
      tpl_set(m, "vs_peer", "%s", "");
    tpl_set(m, "mhz", "%.0f", r->sm_clock_mhz);
  }
  /* a fixed or peer variant whose check failed counts; historical ones are meant to */
  int fixed_bad = strcmp(r->kind, "historical") && !strcmp(render_badge(r->verdict), "bad");
  tpl_set(row, "badge", "%s", fixed_bad ? "bad" : render_badge(r->verdict));
  tpl_set(row, "verdict", "%s", r->verdict);
  tpl_set(row, "reason", "%s",
          strcmp(r->verdict, "pass") && strcmp(r->verdict, "caught") ? r->reason : "");
}

/* One algorithm's timings table: a row per (case, variant), the case cell spanning its rows. */
static void add_timings(struct plot_ctx *c, struct tpl_view *v, const struct alg_view *a)
{
  struct tpl_view *al = tpl_add(v, "algorithms");
  if (!al)
    return;
  int has_peer = 0;
  for (int w = 0; w < a->nvar; w++)
    has_peer |= !strcmp(a->kind[w], "peer");
  tpl_set(al, "name", "%s", a->name);
  tpl_set(al, "has_peer", "%s", has_peer ? "1" : "");
  /* the rate in the algorithm's unit: items/s against its own peak, else GB/s against the copy */
  const char *unit = "";
  double peak = 0;
  for (int k = 0; k < a->ncases && !unit[0]; k++)
    for (int w = 0; w < a->nvar && !unit[0]; w++) {
      const struct store_timing *r = view_row_of(c, a, w, k);
      if (r && r->item_unit[0]) {
        unit = r->item_unit;
        peak = r->peak_items_per_s;
      }
    }
  tpl_set(al, "rate_head", "%s/s", unit[0] ? unit : "GB");
  char num[32];
  if (unit[0] && peak > 0)
    tpl_set(al, "pct_head", "%% of peak (%s %s/s)", gr_si(peak, num, sizeof num), unit);
  else
    tpl_set(al, "pct_head", "%s", unit[0] ? "% of peak" : "% copy bw");
  for (int k = 0; k < a->ncases; k++) {
    const struct store_timing *peer = NULL;
    int span = 0;
    for (int w = 0; w < a->nvar; w++) {
      const struct store_timing *r = view_row_of(c, a, w, k);
      span += r != NULL;
      if (r && !strcmp(r->kind, "peer") && r->samples > 0)
        peer = r;
    }
    int first = 1;
    for (int w = 0; w < a->nvar; w++) {
      const struct store_timing *r = view_row_of(c, a, w, k);
      struct tpl_view *row = r ? tpl_add(al, "rows") : NULL;
      if (!row)
        continue;
      if (first) {
        struct tpl_view *cs = tpl_add(row, "first");
        if (cs) {
          tpl_set(cs, "span", "%d", span);
          tpl_set(cs, "case", "%d", k);
          tpl_set(cs, "params", "%s", a->params[k]);
        }
        first = 0;
      }
      timing_row(row, r, peer, unit);
    }
  }
  char name[128], slug[80];
  gr_fmt(name, sizeof name, "%s_sizes", gr_slug(slug, sizeof slug, a->name));
  render_add_plot(c, al, name, name);
  tpl_set(al, "history_page", "history-%s.html", slug); /* trends.c writes it */
}

/* The banner: the verdict's result (verdict.h), never judged here. Green only when it is ok with
 * the GPU variants run and no regression is open unacknowledged. */
static void add_banner(const struct plot_ctx *c, struct tpl_view *v)
{
  const struct run_verdict *rv = c->verdict;
  const char *cls = "bad", *text = "No verdict";
  char buf[256];
  if (rv) {
    switch (rv->result) {
    case RV_RESULT_OK:
      cls = rv->no_gpu_allowed || rv->open_acked ? "meh" : "ok";
      text = rv->no_gpu_allowed ? "Passed without a GPU: the GPU variants did not run"
             : rv->open_acked   ? "Passed with acknowledged regressions (below): every check passed, "
                                  "nothing else open"
             : rv->cmp          ? "Passed: every check passed, every historical bug caught, no "
                                  "regression against the baseline or open from earlier nights"
                                : "Passed: every check passed, every historical bug caught (no "
                                  "baseline to compare with)";
      break;
    case RV_RESULT_FAILED:
      text = "FAILED: failures, escaped bugs or regressions below";
      if (rv->open_unacked) {
        gr_fmt(buf, sizeof buf, "FAILED: %zu open regression%s (below: since when, commits, how to "
               "reproduce or acknowledge)%s", rv->open_unacked, rv->open_unacked > 1 ? "s" : "",
               rv->failed > rv->open_unacked ? ", and failures below" : "");
        text = buf;
      }
      break;
    case RV_RESULT_NO_GPU: text = "No GPU: the GPU variants did not run"; break;
    case RV_RESULT_INCOMPLETE: text = "Incomplete: the run did not finish"; break;
    }
  }
  tpl_set(v, "clock_warning", "%s", "");
  tpl_set(v, "has_open", "%s", "");
  tpl_set(v, "open_unacked", "0");
  tpl_set(v, "banner_class", "%s", cls);
  tpl_set(v, "banner", "%s", text);
  tpl_set(v, "summary", "%s", rv ? rv->summary : "");
  tpl_set(v, "result", "%s", rv ? rv_result_name(rv->result) : "none");
  tpl_set(v, "verdict_exit", "%d", rv ? rv->exit_code : -1);
  if (rv && rv->clock_warning[0])
    tpl_set(v, "clock_warning", "%s", rv->clock_warning);
  dashboard_open(c, v);
}

/* The run's metadata, verdicts, changes, timings and plots. */
static void build_view(struct plot_ctx *c, struct tpl_view *v)
{
  const struct store_run *rb = &c->rb;
  tpl_set(v, "run", "%lld", (long long)c->run);
  tpl_set(v, "started", "%s", rb->started);
  tpl_set(v, "commit", "%s", rb->commit);
  tpl_set(v, "dirty", "%s", rb->dirty ? "1" : "");
  /* the runner and gpuregress's own version and commit beside the code under test's */
  tpl_set(v, "runner", "%s", rb->runner[0] ? rb->runner : "gpuregress");
  tpl_set(v, "gr_version", "%s", rb->gr_version[0] ? rb->gr_version : "unknown");
  tpl_set(v, "gr_commit", "%.12s", rb->gr_commit[0] ? rb->gr_commit : "unknown");
  tpl_set(v, "gpu", "%s", rb->gpu[0] ? rb->gpu : "no GPU");
  if (rb->sms) {
    struct tpl_view *g = tpl_add(v, "gpu_details");
    if (g) {
      tpl_set(g, "sms", "%d", rb->sms);
      tpl_set(g, "cc", "%s", rb->cc);
      if (rb->driver_release[0])
        tpl_set(g, "driver", "%s", rb->driver_release);
      else
        tpl_set(g, "driver", "CUDA %d.%d", rb->driver / 1000, rb->driver % 1000 / 10);
      tpl_set(g, "state", "%s", "");
      if (rb->sm_clock_now_mhz || rb->temp_c)
        tpl_set(g, "state", ", SM %d MHz, memory %d MHz, %d C at the start%s", rb->sm_clock_now_mhz,
                rb->mem_clock_now_mhz, rb->temp_c, "");
    }
  }
  tpl_set(v, "host", "%s", rb->host);
  tpl_set(v, "status", "%s", rb->status);
  tpl_set(v, "exit_code", "%d", rb->exit_code);
  tpl_set(v, "command", "%s", rb->command);
  struct outcomes_ctx oc = {.v = v};
  store_each_outcome(c->st, STORE_MAIN, c->run, STORE_BY_INSERTION, add_outcome, &oc);
  tpl_set(v, "has_outcomes", "%s", oc.n ? "1" : "");
  fold_rows(&oc);
  store_each_coverage(c->st, c->run, add_coverage, &oc);
  if (oc.n_skipped)
    tpl_set(v, "coverage_folded", "%zu", oc.n_skipped);
  fold_free(&oc);
  struct sanitizer_ctx sc = {v, NULL, ""};
  int64_t san_run = 0;
  store_each_sanitizer(c->st, c->run, &san_run, add_sanitizer, &sc);
  if (san_run)
    tpl_set(v, "sanitizer_run", "%lld", (long long)san_run);
  dashboard_changes(c, v);
  tpl_set(v, "has_timings", "%s", c->nalgs ? "1" : "");
  for (int i = 0; i < c->nalgs; i++)
    add_timings(c, v, &c->algs[i]);
  render_add_plot(c, v, "catch", "historical bugs caught per run");
  trends_index(c, v);
  add_banner(c, v);
  if (c->note && c->note[0])
    tpl_set(v, "note", "%s", c->note);
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%SZ", gmtime(&now));
  tpl_set(v, "generated", "%s", when);
}

int dashboard_write(struct plot_ctx *c, char *why, size_t len)
{
  char path[PATH_MAX];
  struct tpl_view *v = tpl_view_new();
  if (!v) {
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  build_view(c, v);
  gr_fmt(path, sizeof path, "%s/run-%lld.html", c->dash, (long long)c->run);
  int rc = render_page("dashboard.html", v, path, why, len);
  gr_fmt(path, sizeof path, "%s/index.html", c->dash);
  if (rc == 0)
    rc = render_page("dashboard.html", v, path, why, len);
  tpl_view_free(v);
  return rc;
}
