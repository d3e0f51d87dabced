/* Lanes: one forked process per GPU of a gpu_set (gpus.h), each pinned to its GPU
 * (CUDA_VISIBLE_DEVICES set to the GPU's UUID before anything in it starts CUDA), running jobs
 * that the parent hands out one at a time to whichever lane is idle: the parent stays CUDA-free
 * and single-threaded, and each lane is a process like the single-GPU commands were (its own
 * store connection, its own forked workers), so a crash in one lane costs only its job.
 *
 * A lane holds its GPU's lock (gpus_lock) for the length of each job: shared for fuzzing,
 * exclusive for timing. Results come back as bytes (same binary, same host: structs as they lie
 * in memory, pointers into the program's static tables included).
 *
 * Protocol (lines, then raw bytes): parent -> lane "J\t<job>\t<param>"; lane -> parent
 * "D\t<job>\t<n>" followed by n bytes of result. */
#ifndef GR_LANES_H
#define GR_LANES_H

#include <stddef.h>

#include "gpus.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lanes_spec {
  const struct gpu_set *gpus; /* one lane per GPU */
  size_t n_jobs;
  int exclusive;              /* 1: each job holds its GPU's lock exclusively (timing) */
  void *ctx;
  /* in the lane, before its first job and after its last (either may be NULL) */
  void (*begin)(void *ctx, size_t lane);
  void (*end)(void *ctx, size_t lane);
  /* in the lane: run job with the parent's param; *res gets a malloc'd result of *len bytes
   * (NULL, 0: none) */
  void (*job)(void *ctx, size_t lane, size_t job, double param, void **res, size_t *len);
  /* in the parent: the param of job as it is handed out, jobs_left counting it (NULL: 0) */
  double (*param)(void *ctx, size_t job, size_t jobs_left);
  /* in the parent: a job's result; res NULL when its lane died or it was never run (the lane
   * count went to zero, or the run was interrupted before it was handed out) */
  void (*done)(void *ctx, size_t job, size_t lane, const void *res, size_t len);
  /* in the parent, every pass of its loop (at least every quarter second; may be NULL) */
  void (*tick)(void *ctx);
  volatile int *interrupted; /* the parent's flag: stop handing out jobs, SIGTERM the lanes */
  volatile int *lane_flags[2]; /* set in a lane by its SIGTERM (may be NULL) */
};

/* Run every job of s on the lanes; returns when every job is done (s->done called once for
 * each). 0 ok; -1 with why when no lane could start. */
int lanes_run(const struct lanes_spec *s, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
