/* A parallel loop over CPU threads. See parallel.h. */
#define _GNU_SOURCE
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

struct chunk {
  void (*fn)(void *, size_t, size_t);
  void *ctx;
  size_t lo, hi;
};

static void *run_chunk(void *arg)
{
  struct chunk *c = arg;
  c->fn(c->ctx, c->lo, c->hi);
  return NULL;
}

static __thread size_t limit; /* gr_parallel_limit, per thread */

void gr_parallel_limit(size_t max) { limit = max; }

size_t gr_parallel_threads(size_t n, size_t grain)
{
  cpu_set_t set;
  size_t cpus = 1;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    cpus = (size_t)CPU_COUNT(&set);
  size_t by_work = n / (grain ? grain : 1);
  size_t t = cpus < by_work ? cpus : by_work;
  t = t < GR_PARALLEL_MAX ? t : GR_PARALLEL_MAX;
  t = limit && t > limit ? limit : t;
  return t ? t : 1;
}

void gr_parallel_for(size_t n, size_t grain, void (*fn)(void *ctx, size_t lo, size_t hi),
                     void *ctx)
{
  size_t t = gr_parallel_threads(n, grain);
  if (t <= 1) {
    if (n)
      fn(ctx, 0, n);
    return;
  }
  struct chunk c[GR_PARALLEL_MAX];
  pthread_t th[GR_PARALLEL_MAX];
  int started[GR_PARALLEL_MAX] = {0};
  for (size_t k = 0; k < t; k++) {
    c[k] = (struct chunk){fn, ctx, n * k / t, n * (k + 1) / t};
    if (k > 0) /* chunk 0 is the caller's */
      started[k] = pthread_create(&th[k], NULL, run_chunk, &c[k]) == 0;
  }
  run_chunk(&c[0]);
  for (size_t k = 1; k < t; k++) {
    if (started[k])
      pthread_join(th[k], NULL);
    else
      run_chunk(&c[k]); /* no thread: the caller runs it */
  }
}
