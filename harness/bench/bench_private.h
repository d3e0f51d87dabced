/* Between bench.c (the timing layer's parent) and bench_lanes.c (the same over several GPUs);
 * not for other callers. */
#ifndef GR_BENCH_PRIVATE_H
#define GR_BENCH_PRIVATE_H

#include <stddef.h>

#include "bench.h"

/* The plan in one benchmark process after another, on the one GPU this process sees (bench.c);
 * as bench_execute without --gpus. */
enum gr_status bench_execute_here(struct bench_plan *p, const struct bench_opts *o, char *why,
                                  size_t len);

/* The plan over the lanes of o->gpus (bench_lanes.c): the (algorithm, case) groups dealt to the
 * lanes up front, the largest first to the least loaded, each lane timing its groups in one
 * benchmark process while it holds its GPU's lock exclusively; with one GPU, the whole plan in
 * one process. Statuses as bench_execute's. */
enum gr_status bench_execute_lanes(struct bench_plan *p, const struct bench_opts *o, char *why,
                                   size_t len);

#endif
