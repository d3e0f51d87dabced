/* The timing layer's plan (bench_plan.c): its items, their results, the options and the work
 * model's rates. What the parent (bench.c), the benchmark process (bench_child.c) and the
 * summary (bench_report.c) share; the whole timing layer is described in bench.h. */
#ifndef GR_BENCH_PLAN_H
#define GR_BENCH_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "alg.h"
#include "case.h"
#include "gpu.h"
#include "gpus.h"
#include "gr.h"
#include "stats.h"
#include "store.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bench_item {
  const struct gr_algorithm *alg;
  const struct gr_variant *v;
  struct gr_case c;
  int case_no;                       /* position of the case in its algorithm's sweep */
  char params[GR_CASE_TEXT_LEN];     /* the case text without the algorithm and the seed */
  char name[GR_CASE_TEXT_LEN + 128]; /* the Google Benchmark name */
};

struct bench_result {
  int done;              /* 0: not run (filtered out, interrupted) */
  enum verdict verdict;  /* pass, fail, caught, skip, crash, timeout, error */
  char reason[GR_WHY_LEN];
  long launches;         /* per sample */
  struct stats_summary s; /* milliseconds */
  double bytes, items;   /* the work model */
  double gbps, items_per_s, pct_copy, clock_mhz, seconds;
  double peak_items_per_s, pct_peak; /* the algorithm's item peak (0 none) and % of it */
  enum gr_status status; /* GR_STATUS_NO_GPU: skipped because the process found no device */
  struct gr_metrics acc; /* accuracy metrics of the output checked after timing */
};

#define BENCH_MAX_SKIPPED 8
/* An algorithm's peak of items per second (alg->item_peak), measured by the child. */
struct bench_peak {
  const struct gr_algorithm *alg;
  double items_per_s; /* 0 unknown */
  char name[64];      /* what was measured ("DPX recurrence peak") */
};

/* The lanes' lists of bench --gpus (bench_private.h, bench_lane_lists). */
struct bench_lists {
  size_t *idx, *gid, *start, *count, *n_own;
};

struct bench_plan {
  struct bench_item *items;
  struct bench_result *res;
  size_t n;
  /* sweep cases left out because their dataset is not fetched, with the reason */
  char skipped[BENCH_MAX_SKIPPED][GR_CASE_TEXT_LEN + GR_WHY_LEN];
  size_t n_skipped;
  double copy_gbps; /* measured by the child; 0 unknown */
  char gpu_name[128];
  char gpu_uuid[48]; /* the physical GPU, "" unknown (several GPUs: the last lane's) */
  /* the description of the GPU the benchmark process found (gr_gpu_query), for the run's row where
   * the parent did not probe (bench --gpus); several GPUs: the first lane's */
  struct gr_gpu_info gpu;
  int have_gpu;
  struct bench_peak peaks[16]; /* one per algorithm of the plan with an item_peak */
  size_t n_peaks;
  /* A lane's copy of the plan under bench --gpus with several GPUs (bench_lanes.c); NULL and 0
   * elsewhere. The lane's list holds its own groups first (n_own items: its instances are built
   * ahead), then the other lanes' in the order it may take them over once its own are done. An
   * item of group group[i] is timed only by the lane that claims claim[group[i]] first with its
   * claim_tag (memory shared by the lanes): the others skip it, saying so ("X", bench_child.h). */
  int *claim;
  const size_t *group;
  int claim_tag;
  size_t n_own;
  /* The lanes start CUDA one at a time, in the order of their jobs (bench_turn_wait): turns
   * counts the starts that are over (shared). A group of another lane is taken over only where
   * its owner would not end it before this lane could (bench_take): lists (every job's
   * list, bench_private.h) and gcost (each group's expected seconds) as dealt, free_at[job] when
   * that job is expected to begin its next own group (now_seconds; shared, set by the job). */
  int *turns;
  const struct bench_lists *lists;
  size_t jobs;
  const double *gcost;
  double *free_at;
  double *built_s; /* per group: the seconds its case took to build in a lane, 0 unknown (shared) */
  double *ready_at; /* per job: when its CUDA context was up (now_seconds; shared), 0 not yet */
};

/* 1 when this process times item i: no claims (one GPU), or its group is this lane's claim,
 * taken now if no lane had it; 0 when another lane took the group first. */
int bench_claim(const struct bench_plan *p, size_t i);

/* A CUDA start (context, first allocations) takes 0.25-0.5 s on an H100 or H200 host, and the
 * driver serialises the starts of a host's processes: four at once were all ready after
 * 1.1-1.3 s, four one after another at 0.35, 0.73, 1.09 and 1.52 s (plain libcuda, 4 H100s).
 * Lanes that take turns begin timing one by one instead of all late; each job is expected free
 * (free_at) after its turn. */
#define BENCH_CUDA_START_S 0.35

/* Wait until `turns` (shared) reaches mine, or until it has not moved for `stall` seconds (the
 * lane before died or waits for its GPU: the start goes on unordered). */
void bench_turn_wait(const int *turns, int mine, double stall);
/* This lane's CUDA start is over (or failed): the next may start. */
void bench_turn_pass(int *turns);
/* In a lane's benchmark process (nothing without turns): its CUDA start is over, the next lane's
 * turn; ok 0: it found no GPU, and the other lanes take over every group of it. */
void bench_lane_started(struct bench_plan *p, int ok);

/* When group g's owner (the job whose own groups hold it) is expected to begin it, at `now`
 * (p: a lane's plan with lists, gcost, free_at and built_s): when that job is free (free_at, or
 * now if past) plus, for each of its own groups ahead of g that no lane has claimed, its
 * expected seconds and its build where its case is not built yet (see bench_take). *owner: that
 * job (p->jobs when none owns g). */
double bench_owner_begin(const struct bench_plan *p, size_t g, double now, size_t *owner);

/* 1 when this lane times item i (claimed now where needed), 0 when it leaves it to another:
 * another lane claimed its group; or the group is another lane's own and that owner would end it
 * no later than this lane: this lane would end it at now + its build + its expected seconds, the
 * owner at bench_owner_begin + its build (none where its case is built) + the same seconds; or
 * it is *declined (a group declined at its first item stays declined for the rest). A build is
 * guessed from built_s: the group's own where a lane built its case, else the longest of a case
 * of its algorithm, else 0. On the first item of an own group the job's free_at becomes now +
 * the group's expected seconds + its build. */
int bench_take(const struct bench_plan *p, size_t i, double now, size_t *declined);
/* Item i's case took `seconds` to build in this lane (built_s; nothing without lanes). */
void bench_built(const struct bench_plan *p, size_t i, double seconds);

/* The fewest timed samples a round of a benchmark takes, over `rounds` rounds: 3 (a median), and
 * 6 over all rounds: compare's rank test (Mann-Whitney U at alpha 0.01) can call a change
 * between two runs of 5 samples or more each (smallest p 0.008), never between 3 and 3 (0.1). */
int bench_round_floor(int rounds);

/* The rounds (independent set-ups, --rounds) a benchmark is sampled over: asked, or fewer (at
 * least 1) where the rounds' floors of samples of sample_ms each would take them past the cap
 * max_time (seconds). A launch of 0.94 ms keeps 3 rounds; one of 0.94 s (kmedoids n=100000)
 * gets 1 round of 6 samples, not 3 of 3 with 2 warm-ups each (15 launches, 17.7 s, for a 1 s
 * cap). */
int bench_rounds(int asked, double sample_ms, double max_time);

/* The peak of algorithm a in p, NULL when a has none or it is not measured yet. */
const struct bench_peak *bench_peak_of(const struct bench_plan *p, const struct gr_algorithm *a);

struct bench_opts {
  int hot;           /* 1: L2 left warm, launches batched */
  double max_time;   /* seconds of sampling per item (the cap) */
  double noise;      /* target relative noise of the median */
  long min_samples, max_samples;
  int rounds;        /* independent set-ups the samples are drawn from, the budgets shared */
  double watchdog;   /* seconds without a word from the child before it is killed */
  int display;       /* 0 quiet, 1 Google Benchmark's console table on stderr, 2 its own format */
  const char *json;  /* Google Benchmark JSON output file ("-": stdout), or NULL */
  const char *commit; /* the code under test's commit, for the JSON's context */
  const char *gr_version, *gr_commit; /* gpuregress's own, beside it (NULL: unknown) */
  char **gb_args;    /* Google Benchmark flags (--benchmark_*) passed through */
  int n_gb_args;
  struct store *store; /* NULL: nothing stored */
  int64_t run_id;
  const struct gpu_set *gpus; /* NULL or none: the one visible GPU; else each (algorithm, case)
                               * is timed wholly on one of them, one lane per GPU (lanes.h),
                               * never beside another job on that GPU (gpus_lock) */
  int progress_lines; /* 1: a line on stderr per benchmark timed (run's timing phase on a pipe:
                       * a CI log is not silent while it times) */
};

void bench_opts_default(struct bench_opts *o);

/* Build the plan: for each algorithm with bench hooks among algs[i] (paired with vs[i]), each
 * GPU variant of kind fixed, historical or peer among vs, each bench case chosen by `sizes`
 * (NULL: all; else comma-separated indices into the algorithm's sweep, 0 = smallest, or ranges
 * A-B) or, with quick, the two smallest and the real-data ones; plus `cases`, explicit case texts, for the
 * algorithms they name. Ordered by algorithm, case, variant. A sweep case reading a dataset
 * that is not fetched ("data:" files missing) is left out and listed in skipped. 0 ok, -1 with
 * why (a bad size list, a bad case text, nothing to time). */
int bench_plan_new(const struct gr_algorithm *const *algs, const struct gr_variant *const *vs,
                   size_t n, const char *sizes, int quick, const char *const *cases, size_t n_cases,
                   struct bench_plan **out, char *why, size_t len);
void bench_plan_free(struct bench_plan *p);

/* The work model of an item (alg->work) turned into rates at a median of median_ms: the one
 * place it is applied (the parent's stored rates; the child's Google Benchmark counters). */
struct bench_rate {
  double bytes, items;              /* per launch */
  double gbps, items_per_s, pct_copy; /* 0 when the median is 0; pct_copy 0 without a copy rate */
  double peak_items_per_s, pct_peak;  /* the algorithm's item peak and items_per_s over it; 0 none */
};
void bench_rates(const struct bench_plan *p, const struct bench_item *it, double median_ms,
                 struct bench_rate *r);
/* The same for item i at its result's median (p->res[i].s.median), into p->res[i]. */
void bench_result_rates(struct bench_plan *p, size_t i);


/* Set by the CLI's signal handler: stop after the running item (bench_plan.c). */
extern volatile int bench_interrupted;

#ifdef __cplusplus
}
#endif

#endif
