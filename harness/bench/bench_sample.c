/* The sampling of one benchmark in the benchmark process. See bench_sample.h. */
#define _GNU_SOURCE
#include "bench_sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gpu.h"
#include "gr.h"

/* The slowdown factor of this variant from GR_TEST_SLOWDOWN, 1 if none. */
static double slowdown_of(const struct bench_item *it)
{
  const char *env = getenv("GR_TEST_SLOWDOWN");
  char buf[512], key[256];
  if (!env || !*env)
    return 1;
  gr_fmt(buf, sizeof buf, "%s", env);
  gr_fmt(key, sizeof key, "%s/%s", it->alg->name, it->v->name);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq)
      continue;
    *eq = 0;
    if (strcmp(tok, key) == 0) {
      double f = strtod(eq + 1, NULL);
      return f > 1 && f < 100 ? f : 1;
    }
  }
  return 1;
}

/* The CPU seconds of the calling thread. */
double bench_thread_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One sample of a host-timed variant (GR_VARIANT_HOST_TIMED): `launches` calls of launch(state)
 * on the thread's CPU clock, each followed by a busy wait of spin_ns (the test slowdown). The
 * CPU clock, not the monotonic one: on a loaded CI machine a process shares its core, and a
 * host loop's wall time is the machine's (a night of the tests' stand-in benchmarks judged 2-3x
 * on a whole benchmark at a load of 9 on 2 cores). Returns the mean milliseconds per launch;
 * *clk gets 0 (no SM clock). */
static double host_sample(void (*launch)(void *), void *state, int launches, double spin_ns,
                          int *clk)
{
  double t0 = bench_thread_seconds();
  for (int k = 0; k < launches; k++) {
    launch(state);
    for (double until = bench_thread_seconds() + spin_ns * 1e-9; spin_ns > 0 && bench_thread_seconds() < until;)
      ;
  }
  *clk = 0;
  return (bench_thread_seconds() - t0) * 1e3 / launches;
}

/* One sample of item it: on the host clock for a host-timed variant, else with CUDA events on
 * the stream its launches enqueue on (bench_hooks.on_stream). */
double bench_sample_one(const struct bench_item *it, void *state, int launches, double spin_ns,
                        int *clk)
{
  struct bench_hooks h;
  bench_hooks_of(it->alg, &h);
  if (!(it->v->flags & GR_VARIANT_GPU))
    return host_sample(h.launch, state, launches, spin_ns, clk);
  return bench_gpu_sample(h.launch, state, launches, spin_ns, clk,
                          h.on_stream ? bench_gpu_stream() : NULL);
}

static int push_sample(struct bench_samples *b, size_t n, double ms, int clk)
{
  if (n == b->cap) {
    size_t nc = b->cap ? 2 * b->cap : 1024;
    double *m = realloc(b->ms, nc * sizeof *m);
    if (!m)
      return -1;
    b->ms = m;
    int *k = realloc(b->clk, nc * sizeof *k);
    if (!k)
      return -1;
    b->clk = k;
    b->cap = nc;
  }
  b->ms[n] = ms;
  b->clk[n] = clk;
  return 0;
}

/* The warm-up, discarded; its median sizes the hot batch and the test slowdown. */
void bench_calibrate(const struct bench_item *it, void *state, const struct bench_opts *o,
                     struct bench_sampling *sm)
{
  double warm[128];
  int nw = 0, clk;
  double warm_time = o->max_time / 10 < 0.02 ? o->max_time / 10 : 0.02, tw = now_seconds();
  while (nw < 2 || (now_seconds() - tw < warm_time && nw < (int)(sizeof warm / sizeof *warm)))
    warm[nw++] = bench_sample_one(it, state, 1, 0, &clk);
  sm->t_one = stats_median_inplace(warm, (size_t)nw); /* ms */
  sm->launches = 1;
  if (o->hot && sm->t_one > 0) {
    sm->launches = (long)ceil(0.1 / sm->t_one);
    sm->launches = sm->launches < 1 ? 1 : sm->launches > 1000 ? 1000 : sm->launches;
  }
  sm->slow = slowdown_of(it);
  sm->spin_ns = 0;
  if (sm->slow > 1) {
    /* the spin kernel is a launch of its own, which costs microseconds before it spins: measure
     * that and spin for the rest, so that a sample is slow times longer, also for a kernel of
     * 20 us (without this, 1.2 measured 1.29 to 1.33 on an H100) */
    double cal[16];
    for (int k = 0; k < 16; k++)
      cal[k] = bench_sample_one(it, state, 1, 1, &clk);
    double extra = (sm->slow - 1) * sm->t_one - (stats_median_inplace(cal, 16) - sm->t_one);
    sm->spin_ns = extra > 0 ? extra * 1e6 : 1; /* extra in ms */
  }
}

/* One round: samples into b from n on until the round's cap, sample count or noise target.
 * Returns the new count; why set when the samples found no memory. */
static size_t sample_round(const struct bench_item *it, void *state,
                           const struct bench_sampling *sm, struct bench_samples *b, size_t n, long r_min, long r_max, long floor_n, double r_time,
                           double r_noise, char *why, size_t len)
{
  size_t n0 = n;
  double tr = now_seconds();
  struct stats_summary s;
  int clk;
  for (;;) {
    double ms = bench_sample_one(it, state, (int)sm->launches, sm->spin_ns, &clk);
    if (push_sample(b, n, ms, clk)) {
      gr_fmt(why, len, "out of host memory for the samples");
      return n;
    }
    n++;
    long nr = (long)(n - n0);
    double el = now_seconds() - tr;
    if (nr >= r_max || (el >= r_time && nr >= floor_n) || bench_interrupted)
      return n;
    /* the noise test sorts the samples: do it about 32 times per doubling */
    if (nr >= r_min && (nr < 64 || nr % (nr / 32) == 0)) {
      stats_summarize(b->ms + n0, (size_t)nr, &s);
      if (s.noise <= r_noise)
        return n;
    }
  }
}

/* The samples come from o->rounds independent set-ups of the variant (its buffers, handles and
 * plans made again), a share of the time, sample and noise budget each: a state is a random
 * effect, and samples of one state are not independent replicates of the benchmark. Of 25
 * fresh states of the cuSPARSE peer in 5 processes on an H100, one timed 0.543 ms against
 * 0.445-0.468 for the others (0.2-0.5% noise within each): timed in one state, such a state is
 * the run's median; over three it is outvoted and shows as noise. (What moves between
 * processes instead is GR_VARIANT_HOST_BOUND's matter, compare.h.) A benchmark whose rounds
 * cannot take their floor of samples (bench_round_floor) within the cap gets fewer
 * (bench_rounds). */
size_t bench_sample_all(struct gbench_state *gs, const struct bench_item *it,
                        const struct gr_instance *inst, const struct bench_hooks *h, void **state,
                        const struct bench_opts *o, const struct bench_sampling *sm,
                        struct bench_samples *b, struct stats_summary *s, char *why, size_t len)
{
  int rounds = bench_rounds(o->rounds, sm->t_one * (double)sm->launches * sm->slow, o->max_time);
  long r_min = (o->min_samples + rounds - 1) / rounds, r_max = o->max_samples / rounds;
  long floor_n = bench_round_floor(rounds);
  double r_time = o->max_time / rounds, r_noise = o->noise * sqrt((double)rounds);
  r_max = r_max < floor_n ? floor_n : r_max;
  size_t n = 0;
  int clk;
  memset(s, 0, sizeof *s);
  while (gbench_keep_running(gs)) {
    n = 0;
    double cpu = 0; /* host CPU seconds of this thread over the sampling (set-ups left out) */
    for (int r = 0; r < rounds && !why[0] && !bench_interrupted; r++) {
      if (r > 0) { /* a fresh state, warmed up briefly */
        h->teardown(*state);
        if (!(*state = h->setup(it->v, inst, why, len))) {
          char w2[GR_WHY_LEN];
          gr_fmt(w2, sizeof w2, "set-up %d of %d failed: %s", r + 1, rounds,
                 why[0] ? why : "no reason given");
          gr_fmt(why, len, "%s", w2);
          break;
        }
        for (int k = 0; k < 2; k++)
          bench_sample_one(it, *state, (int)sm->launches, sm->spin_ns, &clk);
      }
      double cpu0 = bench_thread_seconds();
      n = sample_round(it, *state, sm, b, n, r_min, r_max, floor_n, r_time, r_noise, why, len);
      cpu += bench_thread_seconds() - cpu0;
    }
    stats_summarize(b->ms, n, s);
    gbench_set_iteration_time(gs, s->median * 1e-3 > 0 ? s->median * 1e-3 : 1e-12);
    /* cpu_time: the host's CPU time per launch (launch, events, the L2 flush), not the loop's */
    gbench_cpu_time(gs, n ? cpu / ((double)n * (double)sm->launches) : 0);
  }
  return n;
}
