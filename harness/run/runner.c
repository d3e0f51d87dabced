/* The runner: fuzzing, shrinking, confirmation, recording. See runner.h.
 * The worker processes and their protocol: wproc.c. */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "child.h"
#include "worker.h"
#include "wproc.h"

volatile int runner_interrupted;

static void runner_on_signal(int sig)
{
  (void)sig;
  runner_interrupted = 1;
}

void runner_catch_signals(void)
{
  signal(SIGINT, runner_on_signal);
  signal(SIGTERM, runner_on_signal);
  signal(SIGHUP, runner_on_signal);
}

/* ---- recording --------------------------------------------------------------------------- */

/* The cases of a variant wait here, in memory, and are written in one short transaction every
 * REC_MAX rows or REC_SECONDS: no write transaction stays open while a case runs (a long case
 * holds no lock), and a case's line is printed only once its commit worked. */
#define REC_MAX 64
#define REC_SECONDS 0.5

struct pending_case {
  struct case_row row; /* its texts point into this struct or at static strings */
  char params[GR_CASE_TEXT_LEN], why[GR_WHY_LEN];
  char line[GR_CASE_TEXT_LEN + GR_WHY_LEN / 2]; /* the log line */
};

struct recorder {
  const struct runner_opts *o;
  const struct gr_algorithm *a;
  const struct gr_variant *v;
  struct pending_case pending[REC_MAX];
  size_t n_pending;
  double last_commit, last_progress, t0;
  long cases;
  int store_failed; /* a commit failed: nothing more is recorded, the variant stops */
};

/* Write the pending cases in one transaction, then print their lines. 0 ok; -1 the store
 * failed (the message is printed once, the lines are not). */
static int recorder_commit(struct recorder *r)
{
  struct store *st = r->o->store;
  if (r->store_failed)
    return -1;
  int bad = 0;
  for (size_t i = 0; st && i < r->n_pending && !bad; i++)
    bad = store_add_case(st, r->o->run_id, &r->pending[i].row) != 0;
  if (st && (store_commit(st) || bad)) {
    fprintf(stderr, "gpuregress: cannot store the cases of %s/%s: %s\n", r->a->name, r->v->name,
            store_errmsg(st));
    r->store_failed = 1;
    r->n_pending = 0;
    return -1;
  }
  for (size_t i = 0; i < r->n_pending && r->o->log; i++)
    fprintf(r->o->log, "%s\n", r->pending[i].line);
  if (r->o->log)
    fflush(r->o->log);
  r->n_pending = 0;
  r->last_commit = now_seconds();
  return 0;
}

static void record(struct recorder *r, const struct gr_case *c, const char *phase, long index,
                   const struct case_result *res)
{
  char text[GR_CASE_TEXT_LEN];
  if (r->store_failed)
    return;
  if (r->n_pending == REC_MAX && recorder_commit(r))
    return;
  struct pending_case *p = &r->pending[r->n_pending++];
  case_params_text(c, p->params, sizeof p->params);
  gr_fmt(p->why, sizeof p->why, "%s", res->why);
  p->row = (struct case_row){r->a->name, r->v->name,   gr_variant_kind_name(r->v->kind),
                             phase,      index,        p->params,
                             c->seed,    res->verdict, res->tag,
                             p->why,     res->err,     res->seconds};
  if (r->o->log)
    snprintf(p->line, sizeof p->line, "%s/%s %s %s: %s%s%.200s", r->a->name, r->v->name, phase,
             verdict_name(res->verdict), case_format(c, text, sizeof text),
             res->why[0] ? ": " : "", res->why);
  r->cases++;
  double now = now_seconds();
  if (r->n_pending >= REC_MAX || now - r->last_commit >= REC_SECONDS)
    recorder_commit(r);
  if (r->o->tick) /* the night's progress: a long variant is not silent */
    r->o->tick(r->o->tick_ctx, r->a->name, r->v->name, r->cases);
  if (r->o->progress && now - r->last_progress >= 0.2) {
    fprintf(stderr, "\r\033[K  %s/%s: %ld cases, %.0f s", r->a->name, r->v->name, r->cases,
            now - r->t0);
    r->last_progress = now;
  }
}

/* ---- fuzzing and shrinking --------------------------------------------------------------- */

/* The variant stops: the run was interrupted or the store failed. */
static int stopping(const struct recorder *r) { return runner_interrupted || r->store_failed; }

static int same_failure(const struct case_result *a, const struct case_result *b)
{
  return a->verdict == b->verdict && strcmp(a->tag, b->tag) == 0;
}

char *runner_reproducer(const struct gr_case *c, const struct gr_variant *v, long repeat, char *buf,
                        size_t len)
{
  char text[GR_CASE_TEXT_LEN];
  /* a command a person pastes into a shell: this runner's name, the case text (file paths in
   * it) quoted for one */
  return gr_repro_command(buf, len, gr_runner_name(), case_format(c, text, sizeof text), v->name,
                          repeat);
}

/* Run c up to `runs` times in w (a fresh worker after a crash or a timeout), stopping at
 * deadline (0: none), at a skip or an error, once `enough` runs (0: no limit) failed like `like`
 * (NULL: any failure) and one passed, or after `steady` runs (0: no limit) that all failed. rec,
 * when not NULL, records each run in phase. Returns the failures; *ran gets the runs made,
 * *first the first failure (else the last result). */
static long repeat_case(struct wproc *w, const struct gr_case *c, double watchdog, long runs,
                        double deadline, long enough, long steady, const struct case_result *like,
                        struct recorder *rec, const char *phase, long *ran,
                        struct case_result *first)
{
  struct case_result res;
  long fails = 0;
  *ran = 0;
  memset(first, 0, sizeof *first);
  first->tag = "";
  while (*ran < runs && !runner_interrupted && !(rec && rec->store_failed) &&
         (!deadline || now_seconds() < deadline)) {
    if (wproc_case(w, c, watchdog, &res) == WPROC_INTERRUPTED)
      break; /* not a run: nothing recorded or counted */
    if (rec)
      record(rec, c, phase, -1, &res);
    ++*ran;
    int failed = like ? same_failure(&res, like) : verdict_is_failure(res.verdict);
    if (failed && !fails++)
      *first = res;
    else if (!fails)
      *first = res;
    if (res.verdict == VERDICT_SKIP || res.verdict == VERDICT_ERROR ||
        (enough && fails >= enough && fails < *ran) || (steady && *ran >= steady && fails == *ran))
      break;
  }
  return fails;
}

long runner_repeat_case(const struct runner_opts *o, const struct gr_case *c,
                        const struct gr_variant *v, long runs, long *ran, struct case_result *first)
{
  struct wproc w;
  wproc_init(&w, c->alg, v, &runner_interrupted);
  long fails = repeat_case(&w, c, o->watchdog, runs, 0, 0, 0, NULL, NULL, NULL, ran, first);
  wproc_close(&w);
  return fails;
}

/* The runs of a flaky case's reproducer that make it fail at least once with probability
 * 1 - FLAKY_MISS, from f failures in m runs: n with (1 - p)^n <= FLAKY_MISS, where p is the
 * lower end of the one-sided 95% Wilson interval of f / m (a cautious rate: the reproducer must
 * fail as printed, not on average). No failure seen: p is taken as 1 / (m + 1). */
#define FLAKY_MISS 1e-3
#define FLAKY_MAX_REPEAT 10000
static long flaky_repeat(long f, long m)
{
  double z = 1.645, p;
  if (m <= 0)
    return FLAKY_MAX_REPEAT;
  if (f <= 0) {
    p = 1.0 / (double)(m + 1);
  } else {
    double ph = (double)f / (double)m, z2 = z * z / (double)m;
    p = (ph + z2 / 2 - z * sqrt(ph * (1 - ph) / (double)m + z2 / (4 * (double)m))) / (1 + z2);
  }
  if (p >= 1)
    return 2;
  double n = p > 0 ? ceil(log(FLAKY_MISS) / log1p(-p)) : FLAKY_MAX_REPEAT;
  return n < 2 ? 2 : n > FLAKY_MAX_REPEAT ? FLAKY_MAX_REPEAT : (long)n;
}

#define SHRINK_CHAIN 64   /* accepted shrinking steps remembered for the confirmation */
#define CONFIRM_RUNS 2    /* a reported case must fail the same way this many times again */
#define CONFIRM_WALK 8    /* at most this many steps walked back looking for a steady one */
#define STEADY_RUNS 30    /* a confirmed check failure must fail this many more times ... */
#define FLAKY_RUNS 400    /* ... else at most this many runs measure its failure rate, ... */
#define FLAKY_FAILS 4     /* ... stopping once it failed this many times again */

/* Run c CONFIRM_RUNS more times; 1 if every run fails the same way as like. */
static int confirm(struct recorder *rec, struct wproc *w, const struct gr_case *c,
                   const struct case_result *like)
{
  struct case_result res;
  for (int k = 0; k < CONFIRM_RUNS; k++) {
    if (wproc_case(w, c, rec->o->watchdog, &res) == WPROC_INTERRUPTED)
      return 0;
    record(rec, c, "confirm", -1, &res);
    if (!same_failure(&res, like))
      return 0;
  }
  return 1;
}

/* Shrink the failing case greedily (the first simpler candidate that fails the same way is
 * taken), then confirm: the reported case must fail again the same way CONFIRM_RUNS times in a
 * row, so that a race that struck once does not leave a reproducer that passes. Walking back
 * the accepted steps, the smallest steady one is reported; if none is steady, the first failing
 * case is, marked flaky. A confirmed check failure must then fail STEADY_RUNS more times (a race
 * can fail twice in a row), else it is flaky too. A flaky case's failure rate here is measured
 * (FLAKY_RUNS, FLAKY_FAILS, at most the shrink budget) and its reproducer carries the repeat
 * count that makes it fail at least once (flaky_repeat). */
static void shrink(struct recorder *rec, struct wproc *w, const struct gr_case *first,
                   const struct case_result *first_res, struct outcome *out)
{
  const struct runner_opts *o = rec->o;
  struct gr_case *chain = malloc(SHRINK_CHAIN * sizeof *chain), cands[256];
  struct case_result *chain_res = malloc(SHRINK_CHAIN * sizeof *chain_res), res;
  size_t len = 1;
  if (!chain || !chain_res) {
    free(chain);
    free(chain_res);
    return;
  }
  chain[0] = *first;
  chain_res[0] = *first_res;
  double deadline = now_seconds() + o->shrink_budget;
  for (int improved = 1; improved && len < SHRINK_CHAIN && !stopping(rec);) {
    improved = 0;
    size_t n = case_shrink_candidates(&chain[len - 1], cands, sizeof cands / sizeof *cands);
    for (size_t i = 0; i < n && now_seconds() < deadline && !stopping(rec); i++) {
      if (wproc_case(w, &cands[i], o->watchdog, &res) == WPROC_INTERRUPTED)
        break;
      record(rec, &cands[i], "shrink", -1, &res);
      out->shrink_steps++;
      if (same_failure(&res, &chain_res[len - 1])) {
        chain[len] = cands[i];
        chain_res[len++] = res;
        improved = 1;
        break;
      }
    }
  }
  size_t pick = 0;
  out->flaky = 1;
  for (size_t k = len, walked = 0; k-- > 0 && walked < CONFIRM_WALK && !stopping(rec); walked++)
    if (confirm(rec, w, &chain[k], &chain_res[k])) {
      pick = k;
      out->flaky = 0;
      break;
    }
  if (stopping(rec) && out->flaky) { /* not confirmed for want of time: the first case stands */
    out->flaky = 0;
  } else {
    /* A race can fail twice in a row: a check failure (cheap to rerun, unlike a crash or a
     * timeout) must fail STEADY_RUNS more times to be steady. How often does a flaky case fail
     * here? Its reproducer repeats it enough to fail at least once. */
    if ((out->flaky || chain_res[pick].verdict == VERDICT_FAIL) && !stopping(rec)) {
      struct case_result again;
      long runs = 0, fails;
      double cap = o->shrink_budget > 5 ? o->shrink_budget : 5;
      fails = repeat_case(w, &chain[pick], o->watchdog, FLAKY_RUNS, now_seconds() + cap,
                          FLAKY_FAILS, out->flaky ? 0 : STEADY_RUNS, &chain_res[pick], rec,
                          "confirm", &runs, &again);
      out->flaky_fails = fails;
      out->flaky_runs = runs;
      if (out->flaky || fails < runs) {
        out->flaky = 1;
        out->repeat = flaky_repeat(fails, runs);
      }
    }
    case_format(&chain[pick], out->shrunk_case, sizeof out->shrunk_case);
  }
  gr_fmt(out->shrunk_reason, sizeof out->shrunk_reason, "%s", chain_res[pick].why);
  free(chain);
  free(chain_res);
}

void runner_order(const struct gr_variant *const *vs, size_t n, size_t *order)
{
  size_t k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++)
      if ((vs[i]->kind == GR_VARIANT_HISTORICAL) == (pass == 0))
        order[k++] = i;
}

/* Past its budget a variant goes on while a regime of it has no case and steering can still
 * aim at one (coverage_unreached_aims): through the grace, FUZZ_GRACE_FACTOR times its budget
 * and at least FUZZ_GRACE_MIN seconds more; and past the grace, up to FUZZ_CAP_FACTOR times its
 * budget and at least FUZZ_CAP_MIN seconds more, while such a regime has had no case aimed at
 * it: those cases aim at it alone. A variant of costly cases (radix_sort/v5_match_or: 5 to 10
 * cases in gpu-check's share, 7 to reach its regimes) then reaches every regime every night.
 * Without the second part, at gpu-check seed 1795974058 v5_match_or and v6_values_in_place ran 5
 * cases of about 1 s each, their shares cut by the overruns of the radix_sort variants before
 * them, and the grace ended before the 6th, the first aimed at "first or last n of a shape"
 * (n = 2^24 + 1 pairs). The fuzz phase takes the overrun from the variants after it
 * (fuzz_budget_reserve). */
#define FUZZ_GRACE_FACTOR 2.0
#define FUZZ_GRACE_MIN 2.0
#define FUZZ_CAP_FACTOR 4.0
#define FUZZ_CAP_MIN 8.0

enum fuzz_next runner_fuzz_next(double spent, double budget, const struct coverage *cv,
                                uint32_t skip, uint32_t aimed)
{
  if (spent < budget)
    return FUZZ_GO;
  uint32_t left = coverage_unreached_aims(cv, skip);
  if (!left)
    return FUZZ_STOP;
  double grace = budget * (FUZZ_GRACE_FACTOR - 1), cap = budget * (FUZZ_CAP_FACTOR - 1);
  grace = grace < FUZZ_GRACE_MIN ? FUZZ_GRACE_MIN : grace;
  cap = cap < FUZZ_CAP_MIN ? FUZZ_CAP_MIN : cap;
  if (spent < budget + grace)
    return FUZZ_GO;
  return spent < budget + cap && (left & ~aimed) ? FUZZ_GO_UNAIMED : FUZZ_STOP;
}

/* The case stream within the budget (or o->max_cases), steered toward the least reached regime,
 * each case in the worker w and recorded, until the first failure. 1 with *failing and *res
 * when a case failed, else 0. */
static int fuzz_cases(struct recorder *rec, struct wproc *w, double budget, double t0,
                      struct outcome *out, struct gr_case *failing, struct case_result *res)
{
  const struct runner_opts *o = rec->o;
  const struct gr_algorithm *a = rec->a;
  struct gr_case c;
  uint32_t unsteerable = 0; /* regimes steering found no case for (parameter limits) */
  uint32_t aimed = 0;       /* regimes a case was aimed at */
  for (long i = 0; !stopping(rec); i++) {
    enum fuzz_next next = FUZZ_GO;
    if (o->max_cases ? i >= o->max_cases
                     : i > 0 && (next = runner_fuzz_next(now_seconds() - t0, budget, &out->cov,
                                                         unsteerable, aimed)) == FUZZ_STOP)
      return 0;
    uint64_t idx = o->case_stride ? (uint64_t)i * o->case_stride + o->case_offset : (uint64_t)i;
    case_generate(a, o->seed, idx, o->limits, &c);
    /* coverage guided: while a regime has fewer than COVERAGE_WANT cases, each case aims at the
     * least reached one (coverage.h), except those steering found no case for (a regime the
     * parameter limits exclude would otherwise take the aim of every case), and past the grace
     * those aimed at already */
    int want = coverage_want(&out->cov, unsteerable | (next == FUZZ_GO_UNAIMED ? aimed : 0));
    if (want >= 0 && !coverage_steer(&out->cov, rec->v, o->seed, idx, o->limits, want, &c)) {
      unsteerable |= 1u << want;
      want = -1;
    }
    if (want >= 0)
      aimed |= 1u << want;
    if (wproc_case(w, &c, o->watchdog, res) == WPROC_INTERRUPTED)
      return 0;
    record(rec, &c, "fuzz", (long)idx, res);
    coverage_add(&out->cov, res->regimes, want);
    out->cases++;
    switch (res->verdict) {
    case VERDICT_PASS: out->passed++; break;
    case VERDICT_SKIP: out->skipped++; break;
    case VERDICT_ERROR: out->errors++; break;
    default: break;
    }
    if (verdict_is_failure(res->verdict)) {
      out->failed++;
      *failing = c;
      out->cases_to_catch = i + 1;
      out->seconds_to_catch = now_seconds() - t0;
      out->verdict = res->verdict;
      case_format(&c, out->first_case, sizeof out->first_case);
      gr_fmt(out->reason, sizeof out->reason, "%s", res->why);
      return 1;
    }
  }
  return 0;
}

/* The variant's verdict when no case failed: interrupted (no verdict), passed (a historical one
 * escaped; a fixed one's unreached regimes named), or skipped. */
static void conclude_unfailed(const struct gr_variant *v, double t0, struct outcome *out)
{
  if (runner_interrupted) { /* not run to the end: no verdict on the variant */
    out->verdict = VERDICT_SKIP;
    gr_fmt(out->reason, sizeof out->reason, "interrupted after %ld case%s: not run to the end",
           out->cases, out->cases == 1 ? "" : "s");
  } else if (out->passed > 0) {
    out->verdict = v->kind == GR_VARIANT_HISTORICAL ? VERDICT_ESCAPED : VERDICT_PASS;
    if (v->kind == GR_VARIANT_FIXED)
      coverage_unreached(&out->cov, out->uncovered, sizeof out->uncovered);
    if (out->verdict == VERDICT_ESCAPED)
      gr_fmt(out->reason, sizeof out->reason,
             "the known bug survived %ld cases in %.1f s: the checks lost the power to find it",
             out->cases, now_seconds() - t0);
  } else {
    out->verdict = VERDICT_SKIP;
    if (!out->reason[0])
      gr_fmt(out->reason, sizeof out->reason, "%s",
             out->cases ? "no case this variant can take (all skipped or errors)" : "no case ran");
  }
}

void runner_fuzz_variant(const struct runner_opts *o, const struct gr_algorithm *a,
                         const struct gr_variant *v, double budget, struct outcome *out)
{
  struct wproc w;
  wproc_init(&w, a, v, &runner_interrupted);
  struct recorder *rec = calloc(1, sizeof *rec);
  struct case_result res;
  struct gr_case failing;
  memset(out, 0, sizeof *out);
  out->alg = a;
  out->v = v;
  coverage_init(&out->cov, a, v);
  double t0 = now_seconds();
  if (!rec) {
    out->verdict = VERDICT_CRASH;
    gr_fmt(out->reason, sizeof out->reason, "out of memory");
    return;
  }
  *rec = (struct recorder){.o = o, .a = a, .v = v, .t0 = t0, .last_commit = t0};
  int r = wproc_open(&w, o->watchdog, out->reason, sizeof out->reason);
  if (r <= 0) {
    out->verdict = r == -1 ? VERDICT_CRASH : VERDICT_SKIP;
  } else if (fuzz_cases(rec, &w, budget, t0, out, &failing, &res)) {
    if (o->shrink)
      shrink(rec, &w, &failing, &res, out);
    out->verdict = v->kind == GR_VARIANT_HISTORICAL ? VERDICT_CAUGHT : out->verdict;
  } else {
    conclude_unfailed(v, t0, out);
  }
  wproc_close(&w);
  recorder_commit(rec);
  out->store_failed = rec->store_failed;
  if (o->progress)
    fprintf(stderr, "\r\033[K");
  out->seconds = now_seconds() - t0;
  free(rec);
}

enum verdict runner_one_case(const struct runner_opts *o, const struct gr_case *c,
                             const struct gr_variant *v, struct case_result *res)
{
  struct wproc w;
  wproc_init(&w, c->alg, v, &runner_interrupted);
  wproc_case(&w, c, o->watchdog, res); /* interrupted: a skip, "interrupted" */
  wproc_close(&w);
  return res->verdict;
}
