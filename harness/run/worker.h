/* Running one case of one variant inside the current process: the core of a worker. The runner
 * (runner.c) wraps it in a child process (child.c) so that a crash or hang ends only that child; tests call
 * it directly. */
#ifndef GR_WORKER_H
#define GR_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"
#include "gr.h"

#ifdef __cplusplus
extern "C" {
#endif

struct case_result {
  enum verdict verdict; /* PASS, FAIL, SKIP or ERROR here; CRASH and TIMEOUT come from the runner */
  const char *tag;      /* failure class (check_report.tag), "" on pass */
  double err;           /* the algorithm's error metric */
  double seconds;       /* wall time of the whole case: input, reference, two runs, checks */
  uint32_t regimes;     /* the regimes (alg.h) the case reached, when it ran (pass or fail) */
  char why[GR_WHY_LEN];
  enum gr_status status; /* set by the runner: GR_STATUS_NO_GPU when skipped for want of a GPU */
};

/* 1 if this process can run GPU variants (this initialises CUDA), else 0 with why. */
int worker_gpu_ready(char *why, size_t len);

/* Run case c on variant v: build the instance (input + reference); run the variant twice, with
 * output poison 0xA5 then 0x5A and, for GPU variants, shared memory filled with a different
 * pattern before each run; check the first output against the reference and the invariants; ask
 * the two outputs to be bit-identical (determinism, every element written, no read of stale
 * shared memory). A GPU variant without a GPU is skipped with the reason; a case that needs more
 * device memory than is free is an error that says both sizes. */
void worker_run_case(const struct gr_case *c, const struct gr_variant *v, struct case_result *res);

/* The checks of worker_run_case, each alone for measuring which one catches a bug (doc/sanitizers.md,
 * who catches what): GR_CHECKS in the environment, a comma-separated list of these names,
 * keeps only those (unset: all). parity and invariants both come from the algorithm's check,
 * which stops at its first failure: a failure tagged with a check not kept counts as a pass.
 * Without determinism, output or smem, the two runs are not compared; without output the two
 * runs get the same output poison, without smem the same shared-memory pattern. */
#define WORKER_CHECK_PARITY 0x1u      /* "parity": tags parity, bounds and any other check tag */
#define WORKER_CHECK_INVARIANTS 0x2u  /* "invariants": tag invariant */
#define WORKER_CHECK_DETERMINISM 0x4u /* "determinism": the two runs compared */
#define WORKER_CHECK_OUTPUT 0x8u      /* "output": different output poison, runs compared */
#define WORKER_CHECK_SMEM 0x10u       /* "smem": different shared-memory fill, runs compared */
#define WORKER_CHECK_ALL 0x1fu
/* The mask GR_CHECKS asks for; WORKER_CHECK_ALL when unset; 0 with why on an unknown name. */
unsigned worker_checks(char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
