/* The sampling of one benchmark in the benchmark process (bench_child.c): one sample (CUDA
 * events around the launches, or the thread's CPU clock for a host-timed variant), the warm-up
 * that sizes the batch and the planted slowdown (GR_TEST_SLOWDOWN), and the rounds of samples
 * over fresh set-ups of the variant until the cap, the sample count or the noise target. */
#ifndef GR_BENCH_SAMPLE_H
#define GR_BENCH_SAMPLE_H

#include <stddef.h>

#include "bench_hooks.h"
#include "bench_plan.h"
#include "bench_shim.h"
#include "stats.h"

/* The samples of one benchmark (grown as needed, reused from one to the next). */
struct bench_samples {
  double *ms; /* per sample: milliseconds per launch */
  int *clk;   /* per sample: the SM clock (MHz), 0 unknown */
  size_t cap;
};

/* How one benchmark is sampled: launches per sample, the spin of a planted slowdown (ns), the
 * median of the warm-up (ms) and the slowdown factor. */
struct bench_sampling {
  long launches;
  double spin_ns, t_one, slow;
};

/* The CPU seconds of the calling thread. */
double bench_thread_seconds(void);

/* One sample of item it: on the thread's CPU clock for a host-timed variant, else with CUDA
 * events. Milliseconds per launch; *clk the SM clock. */
double bench_sample_one(const struct bench_item *it, void *state, int launches, double spin_ns,
                        int *clk);

/* The warm-up, discarded: its median sizes the hot batch (o->hot) and the planted slowdown. */
void bench_calibrate(const struct bench_item *it, void *state, const struct bench_opts *o,
                     struct bench_sampling *sm);

/* The samples of the benchmark into b (their count returned, their summary in *s), from
 * o->rounds set-ups of the variant (*state is replaced; NULL when a round's set-up failed, why
 * says so), reported to Google Benchmark's loop gs. */
size_t bench_sample_all(struct gbench_state *gs, const struct bench_item *it,
                        const struct gr_instance *inst, const struct bench_hooks *h, void **state,
                        const struct bench_opts *o, const struct bench_sampling *sm,
                        struct bench_samples *b, struct stats_summary *s, char *why, size_t len);

#endif
