/* The sanitizer lane (`gpuregress sanitize`): which (variant, tool) jobs it runs on which cases
 * (san_plan_make), and running them, several at once, within a budget (san_lane_run). One job is
 * sanitize_job.h; the cases of a variant are sanitize_pick.h's. */
#ifndef GR_SANITIZE_LANE_H
#define GR_SANITIZE_LANE_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"
#include "gpus.h"
#include "sanitize_job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the lane covers. */
struct san_select {
  unsigned kinds;         /* 1 << enum gr_variant_kind */
  long slice, slices;     /* the variants i (GPU ones of the kinds, in order): i % slices == slice */
  long per_regime;        /* cases per regime */
  uint64_t seed;          /* the case stream */
  const int *want;        /* [SAN_N_TOOLS]: 1 for the tools to run */
  const char *logs;       /* the folder each tool's log is kept in, or NULL */
};

/* The jobs: for each selected GPU variant, its cases and one job per wanted tool (the slow
 * tools, racecheck and initcheck, on the smallest case of each regime; initcheck decided "skip"
 * on historical variants). */
struct san_plan {
  struct san_job *jobs;
  size_t n_jobs;
  char **texts; /* the case texts, SAN_MAX_CASES per selected variant */
  size_t n_texts;
};

/* The plan of the n selected variants (vs[i] of algs[i]). 0 ok; -1 out of memory (p empty). */
int san_plan_make(const struct gr_algorithm *const *algs, const struct gr_variant *const *vs,
                  size_t n, const struct san_select *s, struct san_plan *p);
void san_plan_free(struct san_plan *p);

/* How the lane runs. */
struct san_lane {
  long jobs;                  /* at once */
  double budget, timeout;     /* the lane's seconds; one job's */
  const struct gpu_set *gpus; /* each job pinned to the least busy of them (n 0: none) */
  const char *sanitizer, *self;
  volatile int *interrupted;  /* set by a signal: no job starts after it */
};

/* Run the jobs, at most l->jobs at once, each within l->timeout, none started after the budget
 * and none running past it (stopped: timeout); a line on stderr as each ends. A job with a
 * verdict already (decided in the plan) is not run; one without cases is a skip. */
void san_lane_run(struct san_job *jobs, size_t n, const struct san_lane *l);

#ifdef __cplusplus
}
#endif

#endif
