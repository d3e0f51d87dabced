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

/* The lanes' lists of bench --gpus (bench_lanes.c, described at its top), for ng groups of
 * items (group g: the gc[g] items from gs[g], expected to take gcost[g] seconds) over nl lanes:
 * the groups dealt costliest first to the least loaded lane; job j's list, the items
 * idx[start[j] .. start[j] + count[j]) with their groups in gid, holds its own groups first
 * (n_own[j] items, costliest group first), then, with several jobs, every other group, those
 * planned to begin last first. With one job, its list is the plan in order. idx and gid hold
 * nl times the items, start, count and n_own nl entries (struct bench_lists: bench_plan.h);
 * *jobs: how many (a lane with no group of its own gets none). 0 ok, -1 out of memory. */
int bench_lane_lists(size_t nl, const size_t *gs, const size_t *gc, const double *gcost,
                     size_t ng, struct bench_lists *l, size_t *jobs);

/* What the lanes of bench --gpus did, for the report (the ratio of --gpus all to --gpus 1 is
 * decided by the last lane to end): per job, where jobs > 1, one line into buf (at most len
 * bytes, NUL-terminated): its GPU (gpu[job], nvidia-smi's index, -1 unknown), when its CUDA start
 * was over and when it ended (ready[job], end[job], seconds from t0; <= 0 unknown), the groups it
 * timed (claim[g] == job + 1), of its own and taken over from another lane, the seconds they were
 * expected to take (gcost) and their cases' builds (built_s, where known), and the own groups
 * another lane timed. Returns the length written. */
size_t bench_lanes_timeline(char *buf, size_t len, size_t jobs, const struct bench_lists *l,
                            size_t ng, const int *claim, const double *gcost,
                            const double *built_s, const double *ready, const double *end,
                            double t0, const int *gpu);

#endif
