/* One job of the sanitizer lane (`gpuregress sanitize`): compute-sanitizer with
 * one tool over one GPU variant's cases, as a child process (child.c) writing to a log file, and
 * the verdict read from its exit status and log (sanitize_job.c); the lane that plans and runs
 * the jobs: sanitize_lane.h. */
#ifndef GR_SANITIZE_JOB_H
#define GR_SANITIZE_JOB_H

#include <stddef.h>

#include "alg.h"
#include "child.h"
#include "gpus.h"

#define SAN_FINDING_EXIT 86
#define SAN_MAX_CASES 64 /* cases of one variant */

#define SAN_N_TOOLS 4
#define SAN_INITCHECK 2 /* san_tools[SAN_INITCHECK] */
/* memcheck, racecheck, initcheck, synccheck */
extern const char *const san_tools[SAN_N_TOOLS];

/* One (variant, tool) job. */
struct san_job {
  const struct gr_algorithm *a;
  const struct gr_variant *v;
  int tool;
  char **cases; /* texts, shared by the jobs of the variant */
  int n_cases;  /* this tool's: the first n_cases of cases */
  const char *logs; /* folder the tool's log is kept in (--logs), or NULL: removed */
  char cvd[160];     /* "CUDA_VISIBLE_DEVICES=<GPU>" (sanitize --gpus), "" none */
  int gpu;           /* the --gpus slot it runs on, -1 none */
  uint32_t left;     /* the variant's regimes no picked case stands for (san_left_regimes) */
  /* running */
  const char *env[3];
  struct child c;
  const char *argv[SAN_MAX_CASES + 32];
  char log[64];
  double t0;
  /* result */
  const char *verdict;
  char detail[GR_WHY_LEN];
  double seconds;
  int findings; /* distinct findings (reports agreeing in what, kernel and place count once) */
};

/* The verdict lines of variant name in a repro log ("NAME KIND VERDICT WHY"): how many passed
 * and how many were skipped, why with the first skip's reason ("" none). 0 ok, -1 the log cannot
 * be read. A cell whose cases were all skipped is a skip, not clean: the tool saw no kernel. */
int san_repro_counts(const char *path, const char *name, int *passed, int *skipped, char *why,
                     size_t len);
/* racecheck and initcheck: slow (hundreds to thousands of times the kernel's time), they run
 * the smallest case of each regime only */
int san_slow_tool(int tool);

/* Pin j to the GPU of gpus (none: no pinning) with the fewest of the running jobs
 * jobs[live[0..running)] on it: CUDA_VISIBLE_DEVICES in its environment. */
void san_job_pin(struct san_job *j, const struct gpu_set *gpus, const struct san_job *jobs,
                 const size_t *live, size_t running);

/* compute-sanitizer on PATH, under $CUDA_HOME/bin or /usr/local/cuda/bin (or given). 0 found
 * (path). */
int san_find_sanitizer(const char *given, char *path, size_t len);
/* The tool called name (len bytes of it), -1 none. */
int san_tool_index(const char *name, size_t len);
/* Start j: compute-sanitizer --tool T ... SELF repro --in-process --variant V CASES, its output
 * to a temporary log. 0 ok; -1 with errno. */
int san_job_start(struct san_job *j, const char *sanitizer, const char *self);
/* End j (killed when timed_out: 1 its own timeout, 2 the end of the lane's budget) and set its
 * verdict (clean, finding, explained, check, skip, timeout, error) and detail from the exit
 * status and the log (sanitizer_log.h: a finding's detail names its kernel, file:line and case;
 * explained when the algorithm's sanitizer_explained covers every finding); the log is removed,
 * or kept as LOGS/ALG.VARIANT.TOOL.log. */
void san_job_finish(struct san_job *j, int timed_out);

#endif
