/* The fuzzing phase of `run` spread over the GPUs of the host: one lane process per GPU
 * (lanes.h), each fuzzing whole variants as runner_fuzz_variant does on one GPU. See
 * fuzz_lanes.h. */
#define _GNU_SOURCE
#include "fuzz_lanes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "progress.h"

/* The fuzzing phase spread over lanes: job j is part j % parts of variant order[j / parts] (the
 * historical variants first: runner_order; a variant is split into parts, each a share of its
 * case stream, only when there are more GPUs than variants). The budget is shared so that every
 * variant gets as much as the others and the phase ends on time: a job handed out with m jobs
 * (this one included) not yet handed out gets the largest share s such that those m jobs, each
 * of s seconds, fit in what is left of the budget on the lanes, each lane free from the end of
 * the share of the job it runs (fuzz_budget_share). A variant that ends early (a historical bug caught
 * in a few cases) hands its time back to the jobs after it. Before, a job got left * lanes / m:
 * the busy lanes counted as free and jobs as divisible, so the shares grew as the phase went and
 * the last variants had what was left (4 GPUs, 240 s: about 40 s a variant, then sgm v3, v4 and
 * v5 30, 20 and 11 s). */
struct fuzz_lanes {
  const struct fuzz_lanes_job *fj;
  struct runner_opts o;        /* the template: each lane sets its own store */
  const struct gr_algorithm *const *algs;
  const struct gr_variant *const *vs;
  size_t parts, lanes, n_jobs;
  const int *runs_here;        /* per variant: 0 when it skips at once (a GPU variant, no GPU) */
  size_t *order;               /* [n]: the variant of each rank (runner_order) */
  size_t active_left;          /* jobs of variants that run here, not yet handed out */
  double t0;
  double *job_end;             /* [jobs]: when a running job's share ends (t0-relative), else 0 */
  double *job_share;           /* [jobs]: the share each job was handed */
  double over;                 /* seconds the finished jobs ran past their shares, summed */
  size_t done;                 /* finished jobs that ran here */
  double *busy;                /* [lanes]: scratch of fuzz_lane_param */
  struct outcome *part_out;    /* [n * parts] */
  struct store *lane_store;    /* in a lane: its own connection */
  char lane_why[GR_WHY_LEN];   /* in a lane: why it has none */
};

static void fuzz_lane_begin(void *ctx, size_t lane)
{
  struct fuzz_lanes *f = ctx;
  (void)lane;
  if (store_open(f->fj->db, &f->lane_store, f->lane_why, sizeof f->lane_why))
    f->lane_store = NULL;
}

static void fuzz_lane_end(void *ctx, size_t lane)
{
  (void)lane;
  store_close(((struct fuzz_lanes *)ctx)->lane_store);
}

double fuzz_budget_share(double left, const double *busy, size_t n, size_t m)
{
  double best = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 1; k <= m; k++) {
      double s = (left - busy[i]) / (double)k;
      if (!(s > best))
        break; /* smaller for every larger k */
      size_t fit = 0;
      for (size_t l = 0; l < n && fit < m; l++)
        if (left - busy[l] >= s * (1 - 1e-9))
          fit += (size_t)((left - busy[l]) / s + 1e-9);
      if (fit >= m)
        best = s;
    }
  return best;
}

double fuzz_budget_reserve(double left, double over, size_t done, size_t m)
{
  if (!done || !(over > 0))
    return left;
  double r = left - over / (double)done * (double)m;
  return r > 0 ? r : 0;
}

double fuzz_inproc_share(double left, double over, size_t done, size_t m)
{
  const double free_now = 0;
  double avail = m ? fuzz_budget_reserve(left, over, done, m) : 0;
  return avail > 0 ? fuzz_budget_share(avail, &free_now, 1, m) : 0;
}

static double fuzz_lane_param(void *ctx, size_t job, size_t jobs_left)
{
  struct fuzz_lanes *f = ctx;
  (void)jobs_left;
  if (!f->runs_here[f->order[job / f->parts]])
    return 0;
  double now = now_seconds() - f->t0, left = f->fj->budget - now;
  size_t m = f->active_left ? f->active_left : 1;
  f->active_left -= f->active_left > 0;
  /* the lanes: those running a job are free at the end of its share, the others (this job's
   * lane among them) now */
  size_t n = 0;
  for (size_t k = 0; k < f->n_jobs && n + 1 < f->lanes; k++)
    if (f->job_end[k] > 0)
      f->busy[n++] = f->job_end[k] > now ? f->job_end[k] - now : 0;
  while (n < f->lanes)
    f->busy[n++] = 0;
  double avail = fuzz_budget_reserve(left, f->over, f->done, m);
  double share = avail > 0 ? fuzz_budget_share(avail, f->busy, n, m) : 0;
  share = share > left ? left : share;
  f->job_end[job] = now + share > 0 ? now + share : 1e-9; /* running, even with no time */
  f->job_share[job] = share;
  return share;
}

static void fuzz_lane_job(void *ctx, size_t lane, size_t job, double share, void **res, size_t *len)
{
  struct fuzz_lanes *f = ctx;
  size_t i = f->order[job / f->parts], part = job % f->parts;
  struct outcome *out = malloc(sizeof *out);
  (void)lane;
  *res = out;
  *len = out ? sizeof *out : 0;
  if (!out)
    return;
  if (!f->lane_store) {
    memset(out, 0, sizeof *out);
    out->alg = f->algs[i];
    out->v = f->vs[i];
    out->verdict = VERDICT_SKIP;
    out->store_failed = 1;
    gr_fmt(out->reason, sizeof out->reason, "%s", f->lane_why);
    fprintf(stderr, "gpuregress: %s\n", f->lane_why);
    return;
  }
  struct runner_opts o = f->o;
  o.store = f->lane_store;
  o.limits = f->fj->limits ? f->fj->limits[i] : NULL;
  o.case_stride = f->parts > 1 ? f->parts : 0;
  o.case_offset = part;
  if (o.max_cases && f->parts > 1) /* --cases N: the parts draw cases 0 .. N-1 between them */
    o.max_cases = (o.max_cases + (long)f->parts - 1 - (long)part) / (long)f->parts;
  runner_fuzz_variant(&o, f->algs[i], f->vs[i], share, out);
}

static void fuzz_lane_done(void *ctx, size_t job, size_t lane, const void *res, size_t len)
{
  struct fuzz_lanes *f = ctx;
  size_t i = f->order[job / f->parts];
  struct outcome *out = &f->part_out[i * f->parts + job % f->parts]; /* by variant */
  (void)lane;
  f->job_end[job] = 0;
  if (res && len == sizeof *out) {
    memcpy(out, res, sizeof *out);
    if (f->runs_here[i]) {
      double past = out->seconds - f->job_share[job];
      f->over += past > 0 ? past : 0;
      f->done++;
    }
    char part[48] = "";
    if (f->parts > 1)
      gr_fmt(part, sizeof part, " (part %zu of %zu)", job % f->parts + 1, f->parts);
    progress_variant(f->fj->progress, out, part);
    return;
  }
  memset(out, 0, sizeof *out);
  out->alg = f->algs[i];
  out->v = f->vs[i];
  coverage_init(&out->cov, out->alg, out->v);
  out->verdict = runner_interrupted ? VERDICT_SKIP : VERDICT_CRASH;
  gr_fmt(out->reason, sizeof out->reason, "%s",
         runner_interrupted ? "interrupted before it ran" : "its lane process died");
}

/* In the parent while the lanes run: a line after a silence (progress.h). */
static void fuzz_lane_tick(void *ctx)
{
  struct fuzz_lanes *f = ctx;
  progress_tick(f->fj->progress, NULL, -1);
}

/* The outcome of a variant from its parts: the counts and regimes summed; the first failure
 * found (the earliest in seconds) stands for the variant, with its case and shrinking. */
static void merge_parts(struct outcome *dst, const struct outcome *p, size_t n)
{
  size_t f = n;
  for (size_t k = 0; k < n; k++)
    if ((verdict_is_failure(p[k].verdict) || p[k].verdict == VERDICT_CAUGHT) &&
        (f == n || p[k].seconds_to_catch < p[f].seconds_to_catch))
      f = k;
  *dst = p[f < n ? f : 0];
  if (n == 1)
    return;
  dst->cases = dst->passed = dst->failed = dst->skipped = dst->errors = 0;
  dst->seconds = 0;
  int interrupted = 0;
  for (size_t k = 0; k < n; k++) {
    dst->cases += p[k].cases;
    dst->passed += p[k].passed;
    dst->failed += p[k].failed;
    dst->skipped += p[k].skipped;
    dst->errors += p[k].errors;
    dst->store_failed |= p[k].store_failed;
    dst->seconds = p[k].seconds > dst->seconds ? p[k].seconds : dst->seconds;
    interrupted |= p[k].verdict == VERDICT_SKIP && strstr(p[k].reason, "interrupted") != NULL;
    if (k != (f < n ? f : 0))
      for (int r = 0; r < GR_MAX_REGIMES; r++) {
        dst->cov.cases[r] += p[k].cov.cases[r];
        dst->cov.missed[r] += p[k].cov.missed[r];
      }
  }
  if (f < n)
    return;
  dst->uncovered[0] = 0;
  if (interrupted) {
    dst->verdict = VERDICT_SKIP;
    gr_fmt(dst->reason, sizeof dst->reason, "interrupted after %ld case%s: not run to the end",
           dst->cases, dst->cases == 1 ? "" : "s");
  } else if (dst->passed > 0) {
    dst->verdict = dst->v->kind == GR_VARIANT_HISTORICAL ? VERDICT_ESCAPED : VERDICT_PASS;
    dst->reason[0] = 0;
    if (dst->v->kind == GR_VARIANT_FIXED)
      coverage_unreached(&dst->cov, dst->uncovered, sizeof dst->uncovered);
    if (dst->verdict == VERDICT_ESCAPED)
      gr_fmt(dst->reason, sizeof dst->reason,
             "the known bug survived %ld cases in %.1f s on %zu GPUs: the checks lost the power to "
             "find it", dst->cases, dst->seconds, n);
  }
}

int runner_fuzz_lanes(const struct fuzz_lanes_job *fj, struct store *st,
                      const struct runner_opts *o, const struct gr_algorithm *const *algs,
                      const struct gr_variant *const *vs, size_t n, struct outcome *out, char *why,
                      size_t len)
{
  size_t lanes = fj->gpus->n, active = 0;
  for (size_t i = 0; i < n; i++)
    active += fj->runs_here[i] != 0;
  size_t parts = active && lanes > active ? lanes / active : 1;
  struct fuzz_lanes f = {.fj = fj, .o = *o, .algs = algs, .vs = vs, .parts = parts, .lanes = lanes,
                         .runs_here = fj->runs_here, .active_left = active * parts,
                         .t0 = now_seconds()};
  f.o.progress = 0; /* lanes side by side: no variant line, the night's progress only */
  f.o.tick = NULL; /* the parent's, not the lanes' */
  if (fj->progress)
    fj->progress->total = n * parts;
  f.part_out = calloc(n * parts, sizeof *f.part_out);
  f.order = calloc(n ? n : 1, sizeof *f.order);
  f.n_jobs = n * parts;
  f.job_end = calloc(f.n_jobs ? f.n_jobs : 1, sizeof *f.job_end);
  f.job_share = calloc(f.n_jobs ? f.n_jobs : 1, sizeof *f.job_share);
  f.busy = calloc(lanes ? lanes : 1, sizeof *f.busy);
  if (!f.part_out || !f.order || !f.job_end || !f.job_share || !f.busy) {
    free(f.part_out);
    free(f.order);
    free(f.job_end);
    free(f.job_share);
    free(f.busy);
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  runner_order(vs, n, f.order);
  struct lanes_spec spec = {
      .gpus = fj->gpus, .n_jobs = n * parts, .exclusive = 0, .ctx = &f,
      .begin = fuzz_lane_begin, .end = fuzz_lane_end, .job = fuzz_lane_job,
      .param = fuzz_lane_param, .done = fuzz_lane_done, .tick = fuzz_lane_tick,
      .interrupted = &runner_interrupted,
      .lane_flags = {&runner_interrupted, NULL}};
  store_suspend(st);
  int rc = lanes_run(&spec, why, len);
  if (store_resume(st, why, len))
    rc = -1;
  for (size_t i = 0; i < n && rc == 0; i++)
    merge_parts(&out[i], &f.part_out[i * parts], parts);
  free(f.part_out);
  free(f.order);
  free(f.job_end);
  free(f.job_share);
  free(f.busy);
  return rc;
}
