/* The Google Benchmark JSON file of `gpuregress bench --json FILE` (and of
 * --benchmark_format=json on stdout), assembled by the parent process from what each benchmark
 * process reports (its context once, then each benchmark's runs, rendered by Google Benchmark's
 * own JSON reporter: bench_shim.h), plus an entry with error_occurred for each benchmark the
 * parent had to end itself (a crash, a watchdog kill, no GPU). The file is written whole at the
 * end (a temporary file renamed into place): a crash of one benchmark never leaves it truncated
 * or split. Plain C, no GPU: tests/test_bench_json.c. */
#ifndef GR_BENCH_JSON_H
#define GR_BENCH_JSON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bench_json {
  char *context;   /* the file's opening up to and including "benchmarks": [ ; NULL: none yet */
  char *runs;      /* the benchmark objects, comma-separated */
  size_t len, cap; /* of runs */
  int oom;         /* a chunk was lost for want of memory */
};

void bench_json_init(struct bench_json *j);
void bench_json_release(struct bench_json *j);
/* The opening reported by a benchmark process (GBENCH_JSON_CONTEXT); the first one is kept. */
void bench_json_context(struct bench_json *j, const char *text, size_t len);
/* A group of runs (GBENCH_JSON_RUNS). */
void bench_json_runs(struct bench_json *j, const char *text, size_t len);
/* An entry for benchmark name (the Google Benchmark name, suffixes included) that did not
 * report: error_occurred with message, zero times in microseconds. */
void bench_json_error(struct bench_json *j, const char *name, const char *message);
/* Write the file at path ("-": stdout). Without a context from any process, a minimal one
 * holding the pairs of extra (key, value, ..., NULL) is written. 0 ok; -1 with why. */
int bench_json_write(const struct bench_json *j, const char *path, const char *const *extra,
                     char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
