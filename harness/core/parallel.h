/* A parallel loop for the CPU side of a check or a reference: fn(ctx, lo, hi) over [0, n) cut in
 * contiguous chunks, on up to one thread per CPU this process may run on (sched_getaffinity: a
 * timing lane bound to its GPU's NUMA node keeps to it), at most GR_PARALLEL_MAX threads and never
 * fewer than `grain` items a thread. The calling thread takes a chunk itself; where a thread
 * cannot be started its chunk runs on the caller, so the loop always completes. fn must write
 * only what its chunk owns: results in arrays indexed by item, reduced afterwards in item order,
 * give the same answer as the serial loop whatever the thread count. */
#ifndef GR_PARALLEL_H
#define GR_PARALLEL_H

#include <stddef.h>

#include <gpuregress/util.h> /* gr_parallel_for, gr_parallel_threads, GR_PARALLEL_MAX */

/* At most max threads for the loops the calling thread starts from now on (0: no limit of its
 * own). A timing lane's helper building cases beside the timing keeps to 1 (bench_prebuild.c):
 * its threads would share the lane's CPUs, and their SMT siblings, with the launches. */
void gr_parallel_limit(size_t max);

#endif
