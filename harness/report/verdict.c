/* A night's verdict, built from the store (its JSON and JUnit forms: verdict_write.c). See
 * verdict.h. */
#define _GNU_SOURCE
#include "verdict_private.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"
#include "registry.h"

const char *rv_state_name(enum rv_state s)
{
  static const char *const names[] = {"pass", "fail", "skip", "error"};
  return names[s];
}

const char *rv_result_name(enum rv_result r)
{
  static const char *const names[] = {"ok", "failed", "no_gpu", "incomplete"};
  return names[r];
}

static const char *nz(const char *s) { return s ? s : ""; }

/* The state of a stored verdict: escaped fails, caught passes (historical bugs are meant to
 * fail); fail, crash and timeout fail the other kinds. */
static enum rv_state state_of(const char *verdict, const char *kind)
{
  int historical = strcmp(nz(kind), "historical") == 0;
  if (!strcmp(verdict, "skip"))
    return RV_SKIP;
  if (!strcmp(verdict, "error"))
    return RV_ERROR;
  if (!strcmp(verdict, "escaped"))
    return RV_FAIL;
  if (!historical && (!strcmp(verdict, "fail") || !strcmp(verdict, "crash") ||
                      !strcmp(verdict, "timeout")))
    return RV_FAIL;
  return RV_PASS;
}

/* 1: a GPU variant; 0: a CPU one or unknown to this build */
static int is_gpu_variant(const char *alg, const char *var)
{
  const struct gr_algorithm *a = registry_find(nz(alg));
  const struct gr_variant *vv = a ? gr_alg_variant(a, nz(var)) : NULL;
  return vv && (vv->flags & GR_VARIANT_GPU);
}

/* A GPU variant that was selected: did it run? Its skip reason is the reason none did. */
static void count_gpu(struct run_verdict *v, const char *verdict, const char *reason)
{
  v->gpu_selected++;
  if (strcmp(verdict, "skip") != 0)
    v->gpu_ran++;
  else if (!v->no_gpu_why[0] && reason && reason[0])
    gr_fmt(v->no_gpu_why, sizeof v->no_gpu_why, "%s", reason);
}

static int add_outcome(void *ctx, const struct store_outcome *o)
{
  struct run_verdict *v = ctx;
  const char *vd = nz(o->verdict);
  struct rv_test *t = rv_add_test(v, o->algorithm, o->kind, "outcome", vd, state_of(vd, o->kind),
                               o->seconds);
  if (!t)
    return -1;
  gr_fmt(t->name, sizeof t->name, "%s", nz(o->variant));
  if (is_gpu_variant(o->algorithm, o->variant))
    count_gpu(v, vd, o->reason);
  else
    v->cpu_passed += t->state == RV_PASS;
  v->caught += !strcmp(vd, "caught");
  v->escaped += !strcmp(vd, "escaped");
  rv_set_text(&t->message, "%s", t->state == RV_PASS ? "" : o->reason ? o->reason : vd);
  char extra[4 * GR_CASE_TEXT_LEN + 128] = "";
  size_t k = 0;
  if (o->caught)
    k += (size_t)snprintf(extra + k, sizeof extra - k, "\ncases to catch: %lld",
                          (long long)o->cases_to_catch);
  const char *const label[] = {"first case", "shrunk case", "reproduce"};
  const char *const text[] = {o->first_case, o->shrunk_case, o->reproducer};
  for (int i = 0; i < 3; i++)
    if (text[i] && k < sizeof extra)
      k += (size_t)snprintf(extra + k, sizeof extra - k, "\n%s: %s", label[i], text[i]);
  rv_set_text(&t->body, "cases: %lld, passed: %lld, failed: %lld, skipped: %lld%s",
           (long long)o->cases, (long long)o->passed, (long long)o->failed,
           (long long)o->skipped, extra);
  return 0;
}

static int add_check(void *ctx, const struct store_check *c)
{
  struct run_verdict *v = ctx;
  const char *vd = nz(c->verdict);
  struct rv_test *t =
      rv_add_test(v, c->algorithm, c->kind, "check", vd, state_of(vd, c->kind), c->seconds);
  if (!t)
    return -1;
  gr_fmt(t->name, sizeof t->name, "%s timing", nz(c->variant));
  /* a variant counts once: its outcome of fuzzing, if any, was counted */
  int counted = 0;
  for (size_t i = 0; i + 1 < v->n && !counted; i++)
    counted = !strcmp(v->tests[i].source, "outcome") && !strcmp(v->tests[i].suite, t->suite) &&
              !strcmp(v->tests[i].name, nz(c->variant));
  if (!counted)
    count_gpu(v, vd, c->reason);
  rv_set_text(&t->message, "%s", t->state == RV_PASS ? "" : c->reason && c->reason[0] ? c->reason : vd);
  rv_set_text(&t->body, "%s", nz(c->rows));
  return 0;
}

/* The timings compared with the baseline: slower fails, unsure is skipped with the reason. */
static int add_timings(struct run_verdict *v)
{
  const struct compare_result *r = v->cmp;
  for (size_t i = 0; i < r->n_t; i++) {
    const struct compare_timing *ct = &r->t[i];
    if (!ct->in_base || !ct->in_cur)
      continue;
    const char *cls = stats_class_name(ct->sc.cls);
    enum rv_state st = ct->sc.cls == STATS_SLOWER   ? RV_FAIL
                       : ct->sc.cls == STATS_UNSURE ? RV_SKIP
                                                    : RV_PASS;
    struct rv_test *t = rv_add_test(v, ct->algorithm, ct->kind, "timing", cls, st, 0);
    if (!t)
      return -1;
    gr_fmt(t->name, sizeof t->name, "%s %s [%s] vs baseline", ct->variant, ct->params, ct->l2);
    t->compared = 1;
    t->ratio = ct->sc.ratio;
    t->p = ct->sc.p;
    t->base_ms = ct->sc.base.median;
    t->cur_ms = ct->sc.cur.median;
    t->min_effect = ct->min_effect;
    t->alpha = ct->alpha;
    char what[256];
    if (ct->sc.cls == STATS_SLOWER && ct->confirm_rounds)
      gr_fmt(what, sizeof what,
             "slower: %.3fx the last good build, interleaved on this GPU (%d rounds each); "
             "%.3fx the baseline's median",
             ct->confirm_ratio, ct->confirm_rounds, ct->sc.ratio);
    else if (ct->sc.cls == STATS_SLOWER)
      gr_fmt(what, sizeof what, "slower: %.3fx the baseline's median", ct->sc.ratio);
    else if (ct->unconfirmed)
      gr_fmt(what, sizeof what, "not confirmed on this machine: %.3fx the baseline's median, %s",
             ct->sc.ratio,
             ct->unconfirmed == 1 ? "which ran on another host; no nights of this host yet"
                                  : "not held by the interleaved re-timing of the last good build");
    else if (r->base_other_gpu)
      gr_fmt(what, sizeof what, "unsure: the baseline ran on another GPU model ('%s')", r->base.gpu);
    else if (ct->sc.cls == STATS_UNSURE)
      gr_fmt(what, sizeof what,
             "unsure: ratio %.3fx with p %.2g (alpha %g, min effect %.3g%%, %zu and %zu samples, "
             "noise %.2f%% and %.2f%%): neither a significant change nor known to be the same",
             ct->sc.ratio, ct->sc.p, ct->alpha, 100 * ct->min_effect, ct->sc.base.n, ct->sc.cur.n,
             100 * ct->sc.base.noise, 100 * ct->sc.cur.noise);
    else
      gr_fmt(what, sizeof what, "%s", cls);
    char detail[512];
    gr_fmt(detail, sizeof detail,
           "%s (ratio %.4f, p %.3g, median %.6g ms -> %.6g ms, baseline run %lld%s%s, commit "
           "%.12s)",
           what, ct->sc.ratio, ct->sc.p, ct->sc.base.median, ct->sc.cur.median,
           (long long)r->base.id, v->base_file ? " of " : "", v->base_file ? v->base_file : "",
           r->base.commit);
    rv_set_text(&t->message, "%s", st == RV_PASS ? "" : detail);
    rv_set_text(&t->body, "%s\nmin effect %.3g%%, alpha %g; samples %zu -> %zu", detail,
             100 * ct->min_effect, ct->alpha, ct->sc.base.n, ct->sc.cur.n);
  }
  /* correctness transitions: the failing outcome says what it was in the baseline */
  for (size_t i = 0; i < r->n_oc; i++) {
    const struct compare_outcome *oc = &r->oc[i];
    for (size_t k = 0; oc->regression && k < v->n; k++) {
      struct rv_test *t = &v->tests[k];
      if (strcmp(t->source, "outcome") || strcmp(t->suite, oc->algorithm) ||
          strcmp(t->name, oc->variant))
        continue;
      char *old = t->message;
      t->message = NULL;
      rv_set_text(&t->message, "regression against run %lld (%s -> %s): %s", (long long)r->base.id,
               oc->base_verdict[0] ? oc->base_verdict : "-", oc->cur_verdict, nz(old));
      free(old);
    }
  }
  return 0;
}

/* The summary's tail: the comparison's counts, the open regressions ("" none). */
static void summary_tail(const struct run_verdict *v, char *tail, size_t len)
{
  if (v->cmp) {
    const struct compare_result *c = v->cmp;
    gr_fmt(tail, len, "; against run %lld: %zu same, %zu faster, %zu slower, %zu unsure, "
           "%zu correctness regressions, %zu accuracy regressions", (long long)c->base.id,
           c->n_same, c->n_faster, c->n_slower, c->n_unsure, c->n_regressions,
           c->n_acc_regressions);
  }
  if (v->open_unacked || v->open_acked || v->history_new) {
    size_t k = strlen(tail);
    snprintf(tail + k, len - k, "; %zu open regressions (%zu acknowledged)%s",
             v->open_unacked + v->open_acked, v->open_acked,
             v->history_new ? ", a step confirmed over the nights" : "");
  }
}

/* What failed, for the summary: the first three failed tests (a slower one with its ratio, an
 * open regression, a check's verdict; the first bad commit where bisect named it), else the
 * first accuracy regression ("" none). */
static void failed_names(const struct run_verdict *v, char *names, size_t len)
{
  size_t k = 0, shown = 0;
  for (size_t i = 0; i < v->n && k < len; i++) {
    const struct rv_test *t = &v->tests[i];
    if (t->state != RV_FAIL)
      continue;
    if (shown++ == 3) {
      k += (size_t)snprintf(names + k, len - k, ", ...");
      break;
    }
    if (t->compared && isfinite(t->ratio))
      k += (size_t)snprintf(names + k, len - k, "%s%s/%.*s %s %.3fx",
                            shown > 1 ? ", " : "", t->suite, (int)strcspn(t->name, " "),
                            t->name,
                            !strcmp(t->source, "history")      ? "step over the nights"
                            : !strcmp(t->source, "regression") ? "still slower"
                                                               : "slower",
                            t->ratio);
    else if (t->compared)
      k += (size_t)snprintf(names + k, len - k, "%s%s/%.*s open regression",
                            shown > 1 ? ", " : "", t->suite, (int)strcspn(t->name, " "),
                            t->name);
    else
      k += (size_t)snprintf(names + k, len - k, "%s%s/%s %s", shown > 1 ? ", " : "",
                            t->suite, t->name, t->verdict);
    if (t->first_bad[0] && k < len) /* bisect --db named its commit */
      k += (size_t)snprintf(names + k, len - k, " (first bad: %s)", t->first_bad);
  }
  /* the first accuracy regression, when nothing else is named */
  for (size_t i = 0; !names[0] && v->cmp && i < v->cmp->n_acc; i++) {
    const struct compare_accuracy *a = &v->cmp->acc[i];
    if (a->regression)
      gr_fmt(names, len, "%s/%s %s %.3f%% -> %.3f%% (%s)", a->algorithm, a->variant,
             a->metric, 100 * a->base, 100 * a->cur, a->params);
  }
}

/* The plain summary line and the exit code. */
static void conclude(struct run_verdict *v, const struct rv_opts *o)
{
  const struct store_run *r = &v->run;
  int interrupted = o->interrupted || !strcmp(r->status, "interrupted");
  int gone = !o->in_run && (!strcmp(r->status, "killed") || !strcmp(r->status, "running"));
  /* a sharded night judged as a night (not by the shard's own process) needs every shard */
  int partial = !o->in_run && v->night.shard_count > 1 &&
                v->night.shards_present < v->night.shard_count;
  int no_gpu = v->gpu_selected > 0 && v->gpu_ran == 0;
  char tail[512] = "";
  summary_tail(v, tail, sizeof tail);
  char counts[256];
  gr_fmt(counts, sizeof counts, "%zu passed (%zu historical bugs caught), %zu failed, %zu skipped, "
         "%zu errors", v->passed, v->caught, v->failed, v->skipped, v->errors);
  char shards[512] = "";
  if (partial)
    gr_fmt(shards, sizeof shards, "night '%s' holds %d of its %d shards (missing: %s; import them)",
           v->night.night, v->night.shards_present, v->night.shard_count, v->night.missing);
  if (interrupted || gone || partial) {
    v->result = RV_RESULT_INCOMPLETE;
    v->exit_code = interrupted ? 130 : GR_EXIT_ENV;
    gr_fmt(v->summary, sizeof v->summary, "incomplete: %s; %s%s",
           interrupted              ? "the run was interrupted"
           : partial                ? shards
           : !strcmp(r->status, "killed") ? "the run's process is gone (killed before it finished)"
                                          : "the run has not finished",
           counts, tail);
  } else if (v->failed || (v->cmp && (v->cmp->n_regressions || v->cmp->n_acc_regressions))) {
    v->result = RV_RESULT_FAILED;
    v->exit_code = GR_EXIT_FAIL;
    char names[400] = "";
    failed_names(v, names, sizeof names);
    gr_fmt(v->summary, sizeof v->summary, "FAILED: %s; %s%s",
           names[0] ? names : "correctness regressions against the baseline", counts, tail);
  } else if (no_gpu && !r->allow_no_gpu) {
    v->result = RV_RESULT_NO_GPU;
    v->exit_code = GR_EXIT_ENV;
    gr_fmt(v->summary, sizeof v->summary,
           "no GPU: %zu GPU variants selected and none could run (%s); %zu CPU variants passed, "
           "no historical bug of a GPU variant was looked for",
           v->gpu_selected, v->no_gpu_why[0] ? v->no_gpu_why : "no CUDA device", v->cpu_passed);
  } else {
    v->result = RV_RESULT_OK;
    v->exit_code = GR_EXIT_OK;
    v->no_gpu_allowed = no_gpu;
    if (no_gpu)
      gr_fmt(v->summary, sizeof v->summary,
             "ok without a GPU (--allow-no-gpu): %zu CPU variants passed, %zu GPU variants "
             "skipped (%s)",
             v->cpu_passed, v->gpu_selected, v->no_gpu_why[0] ? v->no_gpu_why : "no CUDA device");
    else
      gr_fmt(v->summary, sizeof v->summary, "ok: %s%s", counts, tail);
  }
}

/* The clocks of the two runs: the SM clock while timing (else at the start) and the memory
 * clock at the start, as NVML read them; a difference beyond max warns (timings of a GPU at
 * another clock are not comparable). */
static void clock_check(struct run_verdict *v, double max)
{
  const struct store_run *b = &v->cmp->base, *c = &v->cmp->cur;
  double bs = b->timed_sm_clock_mhz > 0 ? b->timed_sm_clock_mhz : b->sm_clock_now_mhz;
  double cs = c->timed_sm_clock_mhz > 0 ? c->timed_sm_clock_mhz : c->sm_clock_now_mhz;
  double bm = b->mem_clock_now_mhz, cm = c->mem_clock_now_mhz;
  size_t k = 0;
  char *w = v->clock_warning;
  size_t len = sizeof v->clock_warning;
  if (bs > 0 && cs > 0 && fabs(cs / bs - 1) > max)
    k += (size_t)snprintf(w + k, len - k, "SM clock %.0f MHz in run %lld, %.0f MHz in run %lld",
                          bs, (long long)b->id, cs, (long long)c->id);
  if (bm > 0 && cm > 0 && fabs(cm / bm - 1) > max && k < len)
    k += (size_t)snprintf(w + k, len - k, "%smemory clock %.0f MHz in run %lld, %.0f MHz in run %lld",
                          k ? "; " : "", bm, (long long)b->id, cm, (long long)c->id);
  if (k && k < len)
    snprintf(w + k, len - k, " (more than %.3g%% apart: timings may differ for it)", 100 * max);
}

int run_verdict_build(struct store *st, int64_t run, const struct rv_opts *o,
                      struct run_verdict **out, char *why, size_t len)
{
  struct run_verdict *v = calloc(1, sizeof *v);
  struct compare_opts defaults;
  if (!v) {
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  if (store_get_run(st, STORE_MAIN, run, &v->run)) {
    gr_fmt(why, len, "no run %lld in the database", (long long)run);
    goto fail;
  }
  store_get_night_info(st, STORE_MAIN, run, &v->night);
  v->base_file = o->base > 0 && o->base_src == STORE_BASE ? o->base_file : NULL;
  compare_opts_default(&defaults);
  if (o->base > 0 &&
      compare_runs(st, o->base_src, o->base, run, o->co ? o->co : &defaults, &v->cmp, why, len))
    goto fail;
  if (store_each_outcome(st, STORE_MAIN, run, STORE_BY_NAME, add_outcome, v) ||
      store_each_check(st, run, add_check, v) || (v->cmp && add_timings(v))) {
    gr_fmt(why, len, "cannot read run %lld: %s", (long long)run, store_errmsg(st));
    goto fail;
  }
  v->db_path = store_path(st);
  why[0] = 0;
  if (!o->no_history && rv_open_build(st, v, o, why, len))
    goto fail;
  if (v->cmp)
    clock_check(v, o->max_clock_diff > 0 ? o->max_clock_diff : 0.05);
  for (size_t i = 0; i < v->n; i++) {
    const struct rv_test *t = &v->tests[i];
    v->passed += t->state == RV_PASS;
    v->failed += t->state == RV_FAIL;
    v->skipped += t->state == RV_SKIP;
    v->errors += t->state == RV_ERROR;
  }
  conclude(v, o);
  *out = v;
  return 0;
fail:
  run_verdict_free(v);
  return -1;
}

void run_verdict_free(struct run_verdict *v)
{
  if (!v)
    return;
  for (size_t i = 0; i < v->n; i++) {
    free(v->tests[i].message);
    free(v->tests[i].body);
    free(v->tests[i].repro);
  }
  free(v->open);
  free(v->tests);
  compare_result_free(v->cmp);
  free(v);
}
