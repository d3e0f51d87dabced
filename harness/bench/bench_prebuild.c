/* Instances built ahead, on a helper thread, while the main thread starts CUDA, measures the copy
 * bandwidth and the item peaks: the host side of the first cases (inputs and CPU references,
 * up to 0.9 s a case) no longer waits for the GPU's start, which is serialised in the driver
 * across the lanes of a host (bench_plan.h, BENCH_CUDA_START_S). The helper builds the plan's
 * next cases in order and stops when the GPU is ready, after PREBUILD_MAX cases, or where the
 * cases built would need more than a quarter of the host's memory (counted by their
 * device_bytes, the best size the contract gives). A case whose build failed is built again when
 * its turn comes, which reports the failure.
 *
 * On one GPU nothing is timed while it runs: at the GPU's start the case it is on is finished
 * first and no other begins. A lane of several GPUs goes on building its own cases beside the
 * timing, at idle priority (SCHED_IDLE: it gets a CPU only where the timing thread does not want
 * it), as the other lanes' builds and checks run beside it on the host's other CPUs anyway: the
 * lanes start CUDA in turns (bench_plan.h), so the first ones have had little time to build,
 * and on 4 H100s they built 0.9 s of cases between their groups while the last ones, whose
 * cases were all built, ended 0.9 s sooner. A lane's memory budget is its share of the quarter.
 * Its builds use the lane's CPUs (gr_parallel_for: the references' costliest terms) until the
 * timing begins, then one thread (gr_parallel_limit): spread over the lane's CPUs beside the
 * timing they would share its CPU's SMT sibling and its memory bandwidth with the launches.
 * See bench_prebuild.h. */
#define _GNU_SOURCE
#include "bench_prebuild.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "parallel.h"

#define PREBUILD_MAX 8
struct prebuilt {
  const struct gr_algorithm *alg;
  char text[GR_CASE_TEXT_LEN];
  struct gr_case c; /* the instance keeps a pointer to its case: a slot is never reused */
  struct gr_instance *inst;
};
static struct {
  const struct bench_plan *p;
  pthread_t thread;
  int running;                   /* the helper was started and not joined */
  pthread_mutex_t mu;            /* guards what follows */
  pthread_cond_t built;          /* a slot was filled, or the helper ended */
  int stop;                      /* no case begins any more */
  int beside;                    /* the timing has begun beside the helper (a lane) */
  char building[GR_CASE_TEXT_LEN]; /* the case being built, "" none */
  size_t at;                     /* the item the timing is at + 1 (0: none yet) */
  size_t start, n;
  struct prebuilt slot[PREBUILD_MAX];
} PB = {.mu = PTHREAD_MUTEX_INITIALIZER, .built = PTHREAD_COND_INITIALIZER};

static void *prebuild_main(void *arg)
{
  (void)arg;
  const struct bench_plan *p = PB.p;
  double budget = 0.25 * (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE), used = 0;
  budget /= p->jobs > 1 ? (double)p->jobs : 1.0;
  char text[GR_CASE_TEXT_LEN], last[GR_CASE_TEXT_LEN] = "", why[GR_WHY_LEN];
  size_t end = p->claim ? p->n_own : p->n; /* a lane builds its own cases only */
  for (size_t i = PB.start; i < end; i++) {
    const struct bench_item *it = &p->items[i];
    case_format(&it->c, text, sizeof text);
    if (strcmp(text, last) == 0)
      continue; /* the variants of one case share its instance */
    double bytes = it->alg->device_bytes ? (double)it->alg->device_bytes(&it->c) : 0;
    pthread_mutex_lock(&PB.mu);
    int go = !PB.stop && PB.n < PREBUILD_MAX && used + bytes <= budget, past = i < PB.at;
    if (past) { /* the timing built it itself */
      pthread_mutex_unlock(&PB.mu);
      continue;
    }
    if (go)
      gr_fmt(PB.building, sizeof PB.building, "%s", text);
    struct prebuilt *b = &PB.slot[PB.n];
    /* over the lane's CPUs while CUDA starts, on one beside the timing (gr_parallel_limit) */
    gr_parallel_limit(PB.beside ? 1 : 0);
    pthread_mutex_unlock(&PB.mu);
    if (!go)
      break;
    b->alg = it->alg;
    b->c = it->c;
    gr_fmt(b->text, sizeof b->text, "%s", text);
    double t0 = now_seconds();
    if (it->alg->instance_new(&b->c, &b->inst, why, sizeof why))
      b->inst = NULL;
    else
      bench_built(p, i, now_seconds() - t0);
    used += bytes;
    gr_fmt(last, sizeof last, "%s", text);
    pthread_mutex_lock(&PB.mu);
    PB.n++;
    PB.building[0] = 0;
    pthread_cond_broadcast(&PB.built);
    pthread_mutex_unlock(&PB.mu);
  }
  pthread_mutex_lock(&PB.mu);
  PB.building[0] = 0;
  pthread_cond_broadcast(&PB.built);
  pthread_mutex_unlock(&PB.mu);
  return NULL;
}

void prebuild_start(const struct bench_plan *p, size_t start)
{
  PB.p = p;
  PB.start = start;
  PB.stop = 0;
  PB.beside = 0;
  PB.n = 0;
  PB.at = 0;
  PB.building[0] = 0;
  PB.running = pthread_create(&PB.thread, NULL, prebuild_main, NULL) == 0;
}

/* No case begins any more; the one being built is waited for. */
static void prebuild_join(void)
{
  if (!PB.running)
    return;
  pthread_mutex_lock(&PB.mu);
  PB.stop = 1;
  pthread_mutex_unlock(&PB.mu);
  pthread_join(PB.thread, NULL);
  PB.running = 0;
}

void prebuild_stop(int wait)
{
  if (!PB.running)
    return;
  if (wait) {
    prebuild_join();
    return;
  }
  pthread_mutex_lock(&PB.mu);
  PB.beside = 1;
  pthread_mutex_unlock(&PB.mu);
  struct sched_param idle = {0};
  pthread_setschedparam(PB.thread, SCHED_IDLE, &idle); /* may fail: then at its own priority */
}

struct gr_instance *prebuild_take(size_t i, const char *text, const struct gr_algorithm **alg)
{
  struct gr_instance *inst = NULL;
  pthread_mutex_lock(&PB.mu);
  PB.at = i + 1;
  for (;;) {
    for (size_t k = 0; k < PB.n && !inst; k++) /* taken over, its case stays in its slot */
      if (PB.slot[k].inst && strcmp(PB.slot[k].text, text) == 0) {
        inst = PB.slot[k].inst;
        *alg = PB.slot[k].alg;
        PB.slot[k].inst = NULL;
      }
    if (inst || !PB.running || strcmp(PB.building, text) != 0)
      break;
    pthread_cond_wait(&PB.built, &PB.mu); /* being built: wait rather than build it twice */
  }
  pthread_mutex_unlock(&PB.mu);
  return inst;
}

void prebuild_free(void)
{
  prebuild_join();
  for (size_t k = 0; k < PB.n; k++)
    if (PB.slot[k].inst)
      PB.slot[k].alg->instance_free(PB.slot[k].inst);
  PB.n = 0;
}
