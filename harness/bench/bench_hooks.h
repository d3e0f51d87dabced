/* The timing hooks of an algorithm: made from its GPU lifecycle (alg.h: .gpu) when it has one,
 * else its own bench_setup / bench_launch / bench_fetch / bench_teardown. */
#ifndef GR_BENCH_HOOKS_H
#define GR_BENCH_HOOKS_H

#include <stddef.h>

#include "alg.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bench_hooks {
  void *(*setup)(const struct gr_variant *v, const struct gr_instance *inst, char *why,
                 size_t len);
  void (*launch)(void *state);
  void (*fetch)(void *state, void *out);
  void (*teardown)(void *state);
  /* 1: launch enqueues on bench_gpu_stream() (a lifecycle's launch gets the stream the samples
   * are timed on); 0: on the default stream (the older bench_* hooks) */
  int on_stream;
};

/* h for algorithm a: 1 when a can be timed (a lifecycle, or all four bench hooks), else 0 (h
 * zeroed). */
int bench_hooks_of(const struct gr_algorithm *a, struct bench_hooks *h);

#ifdef __cplusplus
}
#endif

#endif
