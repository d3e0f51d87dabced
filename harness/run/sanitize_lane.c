/* The sanitizer lane's plan and its run. See sanitize_lane.h. */
#define _GNU_SOURCE
#include "sanitize_lane.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"
#include "sanitize_pick.h"

/* initcheck is not run on a historical variant: decided here, with the reason */
static void skip_initcheck(struct san_job *j)
{
  j->verdict = "skip";
  gr_fmt(j->detail, sizeof j->detail,
         "initcheck runs on fixed and peer variants only (on radix_sort/v2_warp_lane0 it ran past "
         "90 s even on its 3 smallest cases: a known bug that keeps reading uninitialised memory "
         "makes the tool crawl; memcheck and racecheck still run)");
}

int san_plan_make(const struct gr_algorithm *const *algs, const struct gr_variant *const *vs,
                  size_t n, const struct san_select *s, struct san_plan *p)
{
  memset(p, 0, sizeof *p);
  p->jobs = calloc(n * SAN_N_TOOLS + 1, sizeof *p->jobs);
  p->texts = calloc(n * SAN_MAX_CASES + 1, sizeof *p->texts);
  p->n_texts = n * SAN_MAX_CASES;
  struct san_cand *cands = malloc(SAN_DRAWS * sizeof *cands);
  if (!p->jobs || !p->texts || !cands) {
    free(cands);
    san_plan_free(p);
    return -1;
  }
  const struct gr_algorithm *drawn = NULL;
  long nth = -1; /* index among the GPU variants of the selected kinds, for the slice */
  for (size_t i = 0; i < n; i++) {
    const struct gr_algorithm *a = algs[i];
    const struct gr_variant *v = vs[i];
    if (!(v->flags & GR_VARIANT_GPU) || !(s->kinds >> v->kind & 1))
      continue;
    if (++nth % s->slices != s->slice)
      continue;
    if (a != drawn) {
      san_draw(a, s->seed, cands, SAN_DRAWS);
      drawn = a;
    }
    char **mine = p->texts + i * SAN_MAX_CASES;
    int small, nc = san_pick_cases(cands, SAN_DRAWS, v, s->per_regime, mine, SAN_MAX_CASES, &small);
    uint32_t left = san_left_regimes(cands, SAN_DRAWS, v);
    for (int t = 0; t < SAN_N_TOOLS; t++) {
      if (!s->want[t])
        continue;
      struct san_job *j = &p->jobs[p->n_jobs++];
      *j = (struct san_job){.a = a,
                            .v = v,
                            .tool = t,
                            .cases = mine,
                            .n_cases = san_slow_tool(t) ? small : nc,
                            .logs = s->logs,
                            .left = left};
      if (t == SAN_INITCHECK && v->kind == GR_VARIANT_HISTORICAL)
        skip_initcheck(j);
    }
  }
  free(cands);
  return 0;
}

void san_plan_free(struct san_plan *p)
{
  for (size_t i = 0; p->texts && i < p->n_texts; i++)
    free(p->texts[i]);
  free(p->texts);
  free(p->jobs);
  memset(p, 0, sizeof *p);
}

/* Start job j, or decide it without running it. 1 started. */
static int start_job(struct san_job *j, const struct san_lane *l, double t0,
                     const struct san_job *jobs, const size_t *live, size_t running)
{
  if (j->verdict) /* decided in the plan: not run */
    return 0;
  if (!j->n_cases) {
    j->verdict = "skip";
    gr_fmt(j->detail, sizeof j->detail, "no case of this variant was drawn");
    return 0;
  }
  if (now_seconds() - t0 >= l->budget) {
    j->verdict = "skip";
    gr_fmt(j->detail, sizeof j->detail, "the lane's budget (%.0f s) was spent", l->budget);
    return 0;
  }
  san_job_pin(j, l->gpus, jobs, live, running); /* the least busy GPU of --gpus */
  if (san_job_start(j, l->sanitizer, l->self)) {
    j->verdict = "error";
    gr_fmt(j->detail, sizeof j->detail, "cannot start compute-sanitizer: %s", strerror(errno));
    return 0;
  }
  return 1;
}

void san_lane_run(struct san_job *jobs, size_t n, const struct san_lane *l)
{
  size_t next = 0, running = 0;
  double t0 = now_seconds();
  size_t *live = calloc((size_t)l->jobs, sizeof *live);
  if (!live)
    return;
  while ((next < n || running) && !*l->interrupted) {
    while (running < (size_t)l->jobs && next < n) {
      struct san_job *j = &jobs[next++];
      if (start_job(j, l, t0, jobs, live, running))
        live[running++] = (size_t)(j - jobs);
    }
    for (size_t i = 0; i < running;) {
      struct san_job *j = &jobs[live[i]];
      int done = child_wait(&j->c, 0.05);
      double now = now_seconds();
      int late = done ? 0 : now - j->t0 > l->timeout ? 1 : now - t0 > l->budget ? 2 : 0;
      if (done || late) {
        san_job_finish(j, late);
        live[i] = live[--running];
        fprintf(stderr, "  %s/%s %s: %s (%.1f s)\n", j->a->name, j->v->name, san_tools[j->tool],
                j->verdict, j->seconds);
      } else {
        i++;
      }
    }
  }
  for (size_t i = 0; i < running; i++)
    san_job_finish(&jobs[live[i]], 1);
  free(live);
}
