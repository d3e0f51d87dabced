/* A C interface to Google Benchmark (harness/bench_shim.cc, the only C++ of the harness). The
 * timing layer (bench.c) registers one benchmark per (algorithm, variant, case) with a C body;
 * each runs for exactly one iteration with manual time: the body collects its own samples
 * (CUDA events, adaptive stop) and reports their median as the iteration time, so Google
 * Benchmark's console and JSON reporters show the median, and its flags (--benchmark_filter,
 * --benchmark_repetitions, --benchmark_out, ...) apply as usual. */
#ifndef GR_BENCH_SHIM_H
#define GR_BENCH_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gbench_state; /* a benchmark::State */
typedef void (*gbench_fn)(struct gbench_state *st, void *arg);

/* Parse Google Benchmark's own flags (--benchmark_*) out of argv; argv[0] is a program name.
 * 0 ok; -1 with why naming the first argument it does not know. */
int gbench_init(int argc, char **argv, char *why, size_t len);
/* Register a benchmark: one iteration per repetition, manual time, reported in milliseconds. */
void gbench_register(const char *name, gbench_fn fn, void *arg);
/* Run the registered benchmarks that --benchmark_filter selects, in registration order.
 * display: 0 no console table, 1 the console table on stderr, 2 Google Benchmark's default
 * display (format from --benchmark_format) on stdout. Returns the number run. */
size_t gbench_run(int display);
void gbench_shutdown(void);

/* Inside a body: the `for (auto _ : state)` loop, the manual time of this iteration, counters
 * shown beside the time and written to the JSON, and skipping with a message. */
int gbench_keep_running(struct gbench_state *st);
void gbench_set_iteration_time(struct gbench_state *st, double seconds);
void gbench_counter(struct gbench_state *st, const char *name, double value);
void gbench_label(struct gbench_state *st, const char *label);
void gbench_skip(struct gbench_state *st, const char *msg);

#ifdef __cplusplus
}
#endif

#endif
