/* The fuzzing phase of `run` and `fuzz`. See fuzz_phase.h. */
#define _GNU_SOURCE
#include "fuzz_phase.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case.h"
#include "fuzz_lanes.h"
#include "progress.h"

int store_outcomes(struct store *st, int64_t run, const struct outcome *out, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const struct outcome *o = &out[i];
    char repro[4 * GR_CASE_TEXT_LEN + 128] = "";
    struct gr_case sc;
    char why[GR_WHY_LEN];
    const char *best = o->shrunk_case[0] ? o->shrunk_case : o->first_case;
    if (best[0] && case_parse(best, &sc, why, sizeof why) == 0)
      runner_reproducer(&sc, o->v, o->shrunk_case[0] ? o->repeat : 0, repro, sizeof repro);
    struct outcome_row row = {o->alg->name,
                              o->v->name,
                              gr_variant_kind_name(o->v->kind),
                              o->verdict,
                              o->cases,
                              o->passed,
                              o->failed,
                              o->skipped,
                              o->errors,
                              o->seconds,
                              o->cases_to_catch,
                              o->seconds_to_catch,
                              o->reason,
                              o->first_case[0] ? o->first_case : NULL,
                              o->shrunk_case[0] ? o->shrunk_case : NULL,
                              repro[0] ? repro : NULL};
    if (store_add_outcome(st, run, &row))
      break; /* the commit below fails and says why */
    for (size_t r = 0; r < o->alg->n_regimes && r < GR_MAX_REGIMES; r++)
      if ((o->cov.applies >> r & 1) &&
          store_add_coverage(st, run, o->alg->name, o->v->name, o->alg->regimes[r].name,
                             o->cov.cases[r]))
        break; /* the same */
  }
  return store_commit(st);
}

static int runs_here(const struct fuzz_phase *fp, size_t i)
{
  return fp->gpu_ok || !(fp->vs[i]->flags & GR_VARIANT_GPU);
}

static const struct case_limits *limits_of(const struct fuzz_phase *fp, size_t i)
{
  return fp->limits && fp->limits[i].n ? &fp->limits[i] : NULL;
}

/* Over the lanes (fuzz_lanes.c), then the outcomes stored in selection order. */
static long on_lanes(const struct fuzz_phase *fp, struct outcome *out, int *store_failed,
                     char *why, size_t len)
{
  int *here = calloc(fp->n ? fp->n : 1, sizeof *here);
  const struct case_limits **lims = calloc(fp->n ? fp->n : 1, sizeof *lims);
  if (!here || !lims) {
    free(here);
    free(lims);
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < fp->n; i++) {
    here[i] = runs_here(fp, i);
    lims[i] = limits_of(fp, i);
  }
  struct fuzz_lanes_job fj = {fp->db, fp->gpus, fp->budget, lims, here, fp->progress};
  int bad = runner_fuzz_lanes(&fj, fp->st, fp->o, fp->algs, fp->vs, fp->n, out, why, len);
  free(here);
  free(lims);
  if (bad)
    return -1;
  long done = 0;
  for (; (size_t)done < fp->n && !*store_failed; done++)
    *store_failed = out[done].store_failed || store_outcomes(fp->st, fp->run, &out[done], 1);
  return done;
}

/* In this process, one variant after the other, each stored as it finishes: one lane, free when
 * the variant starts. Fuzzing shares its GPU with other fuzzing jobs, never with a benchmark
 * being timed (gpus.h): the lock is held for the phase. */
static long in_process(const struct fuzz_phase *fp, struct outcome *out, int *store_failed,
                       size_t *order)
{
  size_t active = 0;
  for (size_t i = 0; i < fp->n; i++)
    active += runs_here(fp, i) != 0;
  int gpu_lock = -1;
  struct gpu_set vis;
  char why[GR_WHY_LEN];
  if (fp->gpu_ok && gpus_list(&vis, why, sizeof why) == 0 && vis.n)
    gpu_lock = gpus_lock(&vis.slot[0], 0);
  runner_order(fp->vs, fp->n, order);
  struct runner_opts o = *fp->o;
  double t0 = now_seconds();
  double over = 0; /* seconds the variants so far ran past their shares */
  size_t done = 0;
  for (size_t k = 0; k < fp->n && !runner_interrupted && !*store_failed; k++) {
    size_t i = order[k];
    int here = runs_here(fp, i);
    double left = fp->budget - (now_seconds() - t0);
    double share = here ? fuzz_inproc_share(left, over, done, active) : 0;
    active -= here != 0;
    o.limits = limits_of(fp, i);
    runner_fuzz_variant(&o, fp->algs[i], fp->vs[i], share, &out[i]);
    if (here) {
      over += out[i].seconds > share ? out[i].seconds - share : 0;
      done++;
    }
    progress_variant(fp->progress, &out[i], "");
    *store_failed = out[i].store_failed || store_outcomes(fp->st, fp->run, &out[i], 1);
  }
  if (gpu_lock >= 0)
    close(gpu_lock);
  /* the finished ones (all, unless interrupted or the store failed), in selection order */
  long kept = 0;
  for (size_t i = 0; i < fp->n; i++)
    if (out[i].alg)
      out[kept++] = out[i];
  return kept;
}

long fuzz_phase_run(const struct fuzz_phase *fp, struct outcome *out, int *store_failed, char *why,
                    size_t len)
{
  *store_failed = 0;
  if (fp->gpus && fp->gpus->n)
    return on_lanes(fp, out, store_failed, why, len);
  size_t *order = calloc(fp->n ? fp->n : 1, sizeof *order);
  if (!order) {
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  long kept = in_process(fp, out, store_failed, order);
  free(order);
  return kept;
}
