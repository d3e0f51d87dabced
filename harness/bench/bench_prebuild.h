/* Instances built ahead in the benchmark process (bench_child.c), on a helper thread, while the
 * main thread starts CUDA; not for other callers. See bench_prebuild.c. */
#ifndef GR_BENCH_PREBUILD_H
#define GR_BENCH_PREBUILD_H

#include <stddef.h>

#include "bench_plan.h"

/* Build the cases of p's items from `start` on (a lane's own items only) on a helper thread. */
void prebuild_start(const struct bench_plan *p, size_t start);
/* The GPU is ready. wait 1: no case begins any more, and the one being built is waited for;
 * 0: the helper goes on beside the timing at idle priority (a lane of several GPUs). */
void prebuild_stop(int wait);
/* The timing is at item i: the instance built ahead for its case, printed as `text` (waited for
 * while it is being built), handed over with its algorithm in *alg; NULL when it was not built
 * ahead (the helper then skips the cases of items up to i). */
struct gr_instance *prebuild_take(size_t i, const char *text, const struct gr_algorithm **alg);
/* Wait for the helper and free the instances built ahead and never taken. */
void prebuild_free(void);

#endif
