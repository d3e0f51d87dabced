/* A C interface to Google Benchmark (harness/bench/bench_shim.cc, the only C++ of the harness). The
 * timing layer (bench.c) registers one benchmark per (algorithm, variant, case) with a C body;
 * each runs for exactly one iteration with manual time: the body collects its own samples
 * (CUDA events, adaptive stop) and reports their median as the iteration time (real_time), its
 * host CPU time per launch as cpu_time, so Google Benchmark's console and JSON reporters show
 * the GPU median, and its flags (--benchmark_filter, --benchmark_repetitions, ...) apply as
 * usual. The JSON goes to a callback (the parent process assembles the file: bench_json.h). */
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
/* Register a benchmark: one iteration per repetition, manual time, reported in microseconds
 * (the unit Google Benchmark's tools/compare.py prints kernels of tens of microseconds in). */
void gbench_register(const char *name, gbench_fn fn, void *arg);
/* A key of the JSON's "context" (GPU, driver, runtime, commit, clocks); before gbench_run. */
void gbench_context(const char *key, const char *value);
/* What gbench_run hands to its JSON callback: the opening of the file with its "context" (once),
 * then each group of runs as JSON objects separated by commas (no leading comma), rendered by
 * Google Benchmark's own JSON reporter. */
enum { GBENCH_JSON_CONTEXT, GBENCH_JSON_RUNS };
typedef void (*gbench_json_fn)(void *ctx, int what, const char *text, size_t len);
/* Run the registered benchmarks that --benchmark_filter selects, in registration order.
 * display: 0 no console table, 1 the console table on stderr, 2 Google Benchmark's default
 * display (format from --benchmark_format) on stdout (with json set: nothing, the JSON is
 * json's). json: NULL, or the callback above. Returns the number run. */
size_t gbench_run(int display, gbench_json_fn json, void *ctx);
void gbench_shutdown(void);

/* Inside a body: the `for (auto _ : state)` loop, the manual time of this iteration, counters
 * shown beside the time and written to the JSON, and skipping with a message. */
int gbench_keep_running(struct gbench_state *st);
void gbench_set_iteration_time(struct gbench_state *st, double seconds);
/* The host CPU time of this iteration in seconds: reported as cpu_time instead of the process
 * CPU time of the whole body that Google Benchmark measures. */
void gbench_cpu_time(struct gbench_state *st, double seconds);
void gbench_counter(struct gbench_state *st, const char *name, double value);
void gbench_label(struct gbench_state *st, const char *label);
void gbench_skip(struct gbench_state *st, const char *msg);

#ifdef __cplusplus
}
#endif

#endif
