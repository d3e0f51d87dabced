/* Instances built ahead in the benchmark process (bench_child.c), on a helper thread, while the
 * main thread starts CUDA; not for other callers. See bench_prebuild.c. */
#ifndef GR_BENCH_PREBUILD_H
#define GR_BENCH_PREBUILD_H

#include <stddef.h>

#include "bench_plan.h"

/* Build the cases of p's items from `start` on (a lane's own items only) on a helper thread. */
void prebuild_start(const struct bench_plan *p, size_t start);
/* The GPU is ready: no case begins any more. wait 1: also wait for the case being built; 0: it
 * is finished beside the timing, at idle priority (prebuild_take waits for it). */
void prebuild_stop(int wait);
/* The instance built ahead for the case printed as `text` (waiting for it while it is being
 * built), handed over with its algorithm in *alg; NULL when it was not built ahead. */
struct gr_instance *prebuild_take(const char *text, const struct algorithm **alg);
/* Wait for the helper and free the instances built ahead and never taken. */
void prebuild_free(void);

#endif
