/* One job of the sanitizer lane (`gpuregress sanitize`, cmd_sanitize.c): compute-sanitizer with
 * one tool over one GPU variant's cases, as a child process (child.c) writing to a log file, and
 * the verdict read from its exit status and log (sanitize_job.c). Private to cli/. */
#ifndef GR_SANITIZE_JOB_H
#define GR_SANITIZE_JOB_H

#include <stddef.h>

#include "alg.h"
#include "child.h"

#define SAN_FINDING_EXIT 86
#define SAN_MAX_CASES 64 /* cases of one variant */

#define SAN_N_TOOLS 4
/* memcheck, racecheck, initcheck, synccheck */
extern const char *const san_tools[SAN_N_TOOLS];

/* One (variant, tool) job. */
struct san_job {
  const struct algorithm *a;
  const struct variant *v;
  int tool;
  char **cases; /* texts, shared by the jobs of the variant */
  int n_cases;
  /* running */
  struct child c;
  const char *argv[SAN_MAX_CASES + 32];
  char log[64];
  double t0;
  /* result */
  const char *verdict;
  char detail[GR_WHY_LEN];
  double seconds;
};

/* compute-sanitizer on PATH, under $CUDA_HOME/bin or /usr/local/cuda/bin (or given). 0 found
 * (path). */
int san_find_sanitizer(const char *given, char *path, size_t len);
/* The tool called name (len bytes of it), -1 none. */
int san_tool_index(const char *name, size_t len);
/* Start j: compute-sanitizer --tool T ... SELF repro --in-process --variant V CASES, its output
 * to a temporary log. 0 ok; -1 with errno. */
int san_job_start(struct san_job *j, const char *sanitizer, const char *self);
/* End j (killed when timed_out) and set its verdict (clean, finding, explained, check, skip,
 * timeout, error) and detail from the exit status and the log; the log is removed. */
void san_job_finish(struct san_job *j, int timed_out);

#endif
