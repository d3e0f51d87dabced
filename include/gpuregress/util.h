/* SPDX-License-Identifier: Apache-2.0 */
/* gpuregress/util.h: what an algorithm's host code uses besides the contract (public API).
 *
 * The built-in algorithms use nothing else of the harness: bounded formatting for the reasons
 * they write (why, rep->why), integer parsing, a monotonic clock, a parallel loop for CPU
 * references and checks over millions of elements, the exit statuses of gpuregress programs
 * (for a helper program of an algorithm, such as kmedoids' MPI program), and running such a
 * helper program with a deadline. */
#ifndef GR_UTIL_H
#define GR_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses of gpuregress programs (README.md, "What the output means"). */
enum {
  GR_EXIT_OK = 0,    /* everything passed, every historical bug was caught */
  GR_EXIT_FAIL = 1,  /* a check failed, a historical bug escaped, or a regression was found */
  GR_EXIT_USAGE = 2, /* bad command line, bad case text, bad input file, unusable database */
  GR_EXIT_ENV = 3,   /* environment: no CUDA device where one is required, ... */
};

/* snprintf into dst (len > 0), always terminated, truncation silent; returns dst. */
char *gr_fmt(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A whole decimal integer ('-' allowed for i64; no '+', no blank, no trailing text, no
 * overflow): 0 and *out, else -1. */
int gr_parse_i64(const char *s, int64_t *out);
int gr_parse_u64(const char *s, uint64_t *out);

/* Seconds on a monotonic clock (for durations only). */
double gr_now_seconds(void);

/* A parallel loop for the CPU side of a check or a reference: fn(ctx, lo, hi) over [0, n) cut in
 * contiguous chunks, on up to one thread per CPU this process may run on, at most
 * GR_PARALLEL_MAX threads and never fewer than `grain` items a thread (a timing lane's helper is
 * limited to one). The calling thread takes a chunk itself; where a thread cannot be started its
 * chunk runs on the caller, so the loop always completes. fn must write only what its chunk
 * owns: results in arrays indexed by item, reduced afterwards in item order, give the same
 * answer as the serial loop whatever the thread count. */
#define GR_PARALLEL_MAX 16
void gr_parallel_for(size_t n, size_t grain, void (*fn)(void *ctx, size_t lo, size_t hi),
                     void *ctx);
/* The number of threads gr_parallel_for would use for n items of this grain (1: serial). */
size_t gr_parallel_threads(size_t n, size_t grain);

/* Run a program (argv[0] looked up in PATH, argv NULL-terminated) in a process group of its
 * own, stdin from /dev/null, stdout and stderr to log_fd (>= 0), with env's NULL-terminated
 * "NAME=VALUE" entries set ("NAME?=VALUE": only where NAME is unset); the whole group is killed
 * when it runs past timeout_s seconds, and when the caller dies. Returns the program's exit
 * status (0-255), 128 + the signal that ended it, or -1 when it could not be started (errno). */
int gr_run_program(const char *const *argv, const char *const *env, int log_fd, double timeout_s);

#ifdef __cplusplus
}
#endif

#endif
