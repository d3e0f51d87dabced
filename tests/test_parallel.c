/* gr_parallel_for (harness/core/parallel.c): every item in exactly one chunk for any n and grain,
 * the thread count within its bounds, and gr_parallel_limit per calling thread (a timing lane's
 * helper keeps its builds to one thread; the loops of other threads are not limited). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "test_util.h"

static void count_chunk(void *ctx, size_t lo, size_t hi)
{
  unsigned char *seen = ctx;
  for (size_t i = lo; i < hi; i++)
    seen[i]++; /* chunks are disjoint: no two threads touch one byte */
}

static void *other_thread(void *arg)
{
  *(size_t *)arg = gr_parallel_threads(1000, 1);
  return NULL;
}

int main(void)
{
  const size_t ns[] = {0, 1, 2, 3, 17, 64, 1000, 4099};
  const size_t grains[] = {1, 8, 64, 5000};
  for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
    for (size_t g = 0; g < sizeof grains / sizeof *grains; g++) {
      unsigned char *seen = calloc(ns[a] + 1, 1);
      gr_parallel_for(ns[a], grains[g], count_chunk, seen);
      size_t bad = 0;
      for (size_t i = 0; i < ns[a]; i++)
        bad += seen[i] != 1;
      EXPECT(bad == 0, "n %zu grain %zu: %zu items not covered exactly once", ns[a], grains[g],
             bad);
      size_t t = gr_parallel_threads(ns[a], grains[g]);
      EXPECT(t >= 1 && t <= GR_PARALLEL_MAX && (t == 1 || t <= ns[a] / grains[g]),
             "n %zu grain %zu: %zu threads", ns[a], grains[g], t);
      free(seen);
    }
  size_t free_threads = gr_parallel_threads(1000, 1);
  gr_parallel_limit(1);
  EXPECT(gr_parallel_threads(1000, 1) == 1, "limit 1: %zu threads", gr_parallel_threads(1000, 1));
  unsigned char *seen = calloc(1000, 1);
  gr_parallel_for(1000, 1, count_chunk, seen);
  EXPECT(memchr(seen, 0, 1000) == NULL && memchr(seen, 2, 1000) == NULL, "limit 1: not covered once");
  free(seen);
  size_t other = 0;
  pthread_t th;
  EXPECT(pthread_create(&th, NULL, other_thread, &other) == 0 && pthread_join(th, NULL) == 0,
         "thread");
  EXPECT(other == free_threads, "the limit leaked to another thread: %zu threads, %zu unlimited",
         other, free_threads);
  gr_parallel_limit(0);
  EXPECT(gr_parallel_threads(1000, 1) == free_threads, "limit 0 restores %zu, got %zu",
         free_threads, gr_parallel_threads(1000, 1));
  TEST_DONE();
}
