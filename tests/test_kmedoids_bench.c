/* Timing of k-medoids on the GPU (CUDA events, warm-up, median of repetitions):
 *   A. SQFD distances/s of the assignment kernel (about 60 centroids per signature; target 5e8/s
 *      on one H100);
 *   B. time per iteration (assignment + score kernels, plan resident) through the algorithm's own
 *      timing hooks for the sweep in kmedoids_algorithm.bench_cases, output checked after the
 *      timing loop; plus the wall time per step of a whole run (host planning and copies too);
 *   C. strong scaling of kmedoids_mpi --backend gpu over 1, 2 and 4 ranks (all on the GPUs this
 *      machine has: ranks share a GPU when there are fewer).
 * `quick` runs small sizes (ctest smoke run). Prints a table last. Exit 0, 1 when a check failed,
 * 77 without a CUDA device. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/kmedoids/km_engine.h"
#include "algorithms/kmedoids/km_gpu.h"
#include "algorithms/kmedoids/km_mpirun.h"
#include "algorithms/kmedoids/kmedoids_alg.h"
#include "bench_hooks.h"
#include "case.h"
#include "gpu.h"
#include "gpu_timing.h"
#include "gr.h"
#include "worker.h"

static int failures;
static char table[64][200];
static int rows;

#define ROW(...) snprintf(table[rows < 63 ? rows++ : rows], sizeof table[0], __VA_ARGS__)

static void launch_assign(void *g) { km_gpu_enqueue_assign(g); }
static void launch_score(void *g) { km_gpu_enqueue_score(g); }

/* A: the assignment kernel alone */
static void bench_sqfd(int64_t n, int sig_min, int sig_max, int k, int reps)
{
  struct kmsig ds;
  char why[GR_WHY_LEN];
  struct kmsig_gen gen = {n, sig_min, sig_max, 16, KMSIG_DIST_CLASSES, 1};
  struct km_gpu *g;
  if (kmsig_generate(&gen, &ds, why, sizeof why) ||
      km_gpu_new(&ds, 0.2, 0, n, km_v2_score_launch, &g, why, sizeof why)) {
    printf("FAIL %s\n", why);
    failures++;
    return;
  }
  int32_t *med = malloc(sizeof(int32_t) * (size_t)k), *asg = malloc(sizeof(int32_t) * (size_t)n);
  double *mind = malloc(sizeof(double) * (size_t)n);
  km_init_medoids(n, k, 42, med);
  km_gpu_backend_ops.assign(g, med, k, 0, n, asg, mind, why, sizeof why);
  double ms = gpu_time(launch_assign, g, 3, reps, GPU_L2_WARM).median_ms;
  double dist = (double)n * k, pairs = 0;
  for (int64_t i = 0; i < n; i++)
    pairs += (double)kmsig_size(&ds, i);
  double mean_sig = pairs / (double)n;
  printf("A  assignment n=%lld k=%d sig %d..%d (mean %.1f): %.3f ms, %.3e SQFD/s, %.3e centroid "
         "pairs/s\n",
         (long long)n, k, sig_min, sig_max, mean_sig, ms, dist / (ms * 1e-3),
         dist * mean_sig * mean_sig / (ms * 1e-3));
  ROW("A  SQFD/s  n=%-7lld k=%-4d sig %3d..%-3d    %9.3f ms   %.3e SQFD/s", (long long)n, k,
      sig_min, sig_max, ms, dist / (ms * 1e-3));
  free(med);
  free(asg);
  free(mind);
  km_gpu_free(g);
  kmsig_free(&ds);
}

static const struct gr_algorithm *alg = &kmedoids_algorithm;
static struct bench_hooks H; /* the timing hooks made from the lifecycle (km_lifecycle.c) */

/* B: one iteration through the timing hooks; the assignment and score kernels apart (SQFD/s of
 * each, the first iteration's clusters); the whole run's wall time (host planning and copies) */
static void bench_iteration(const char *text, const char *variant, int reps)
{
  struct gr_case c;
  struct gr_instance *inst;
  char why[GR_WHY_LEN] = "";
  if (case_parse(text, &c, why, sizeof why) || alg->instance_new(&c, &inst, why, sizeof why)) {
    printf("FAIL %s: %s\n", text, why);
    failures++;
    return;
  }
  const struct km_data *d = inst->priv;
  void *st = H.setup(gr_alg_variant(alg, variant), inst, why, sizeof why);
  if (!st) {
    printf("FAIL timing setup %s: %s\n", text, why);
    failures++;
    alg->instance_free(inst);
    return;
  }
  double ms = gpu_time(H.launch, st, 1, reps, GPU_L2_WARM).median_ms;
  unsigned char *out = malloc(inst->out_bytes);
  double t0 = now_seconds();
  H.fetch(st, out);
  double wall = now_seconds() - t0;
  H.teardown(st);
  int32_t steps;
  memcpy(&steps, out, 4);
  struct gr_check_report rep;
  memset(&rep, 0, sizeof rep);
  int bad = alg->check(inst, out, &rep);
  failures += bad;
  /* the two kernel groups apart, on the first iteration's plan */
  struct km_gpu *g;
  int64_t n = d->ds.n;
  int k = d->cfg.k;
  double ms_a = 0, ms_s = 0, dist_a = 0, dist_s = 0, pairs_s = 0;
  if (km_gpu_new(&d->ds, d->cfg.alpha, 0, n, km_v2_score_launch, &g, why, sizeof why) == 0) {
    int32_t *med = malloc(sizeof(int32_t) * (size_t)k), *asg = malloc(sizeof(int32_t) * (size_t)n);
    double *mind = malloc(sizeof(double) * (size_t)n);
    struct km_clusters cl;
    struct km_work *work;
    int nw;
    km_init_medoids(n, k, d->cfg.init_seed, med);
    km_gpu_backend_ops.assign(g, med, k, 0, n, asg, mind, why, sizeof why);
    km_clusters_build(&cl, asg, n, k);
    km_split_work(&cl, 0, 1, &work, &nw);
    uint64_t *score = calloc((size_t)n, sizeof *score);
    km_gpu_backend_ops.score(g, asg, &cl, work, nw, score, why, sizeof why);
    dist_a = (double)n * k;
    dist_s = km_gpu_enqueue_score(g);
    int n_small, n_big;
    km_gpu_plan_counts(g, &n_small, &n_big, &pairs_s);
    gr_gpu_sync();
    ms_a = gpu_time(launch_assign, g, 1, reps, GPU_L2_WARM).median_ms;
    ms_s = gpu_time(launch_score, g, 1, reps, GPU_L2_WARM).median_ms;
    free(score);
    free(work);
    km_clusters_release(&cl);
    free(med);
    free(asg);
    free(mind);
    km_gpu_free(g);
  }
  printf("B  %s %s: %.3f ms/iteration (kernels: assignment %.3f ms, %.3e SQFD/s; score %.3f ms, "
         "%.3e SQFD/s summed, %.1f%% of them evaluated); whole run %.3f s for %d steps; check "
         "%s%s\n",
         variant, text, ms, ms_a, dist_a / (ms_a * 1e-3), ms_s, dist_s / (ms_s * 1e-3),
         dist_s > 0 ? 100.0 * pairs_s / dist_s : 0.0, wall, steps, bad ? "FAIL: " : "pass",
         bad ? rep.why : "");
  ROW("B  iter    n=%-7lld k=%-4d %-7s %9.3f ms  (assign %.3e, score %.3e SQFD/s)  run %.2f s/%d "
      "steps  %s",
      (long long)n, k, variant, ms, dist_a / (ms_a * 1e-3), dist_s / (ms_s * 1e-3), wall, steps,
      bad ? "FAIL" : "pass");
  free(out);
  alg->instance_free(inst);
}

/* C: kmedoids_mpi --time with R ranks; seconds per step from its output, or -1 */
static double mpi_step_s(int ranks, const char *gen, int k, char *log, size_t len)
{
  char exe[4096], why[GR_WHY_LEN], ks[16];
  if (km_find_mpi_exe(exe, sizeof exe, why, sizeof why)) {
    gr_fmt(log, len, "%s", why);
    return -1;
  }
  gr_fmt(ks, sizeof ks, "%d", k);
  const char *args[] = {"--generate", gen, "--k", ks, "--iters", "2", "--backend", "gpu", "--time",
                        NULL};
  int rc = km_mpirun(ranks, exe, args, 600.0, log, len);
  const char *p = strstr(log, "s/step");
  if (rc != 0 || !p)
    return -1;
  while (p > log && p[-1] == ' ')
    p--;
  while (p > log && p[-1] != ' ')
    p--;
  return atof(p);
}

static void bench_scaling(const char *gen, int k, const int *ranks, int n_ranks, int gpus)
{
  double base = 0;
  for (int i = 0; i < n_ranks; i++) {
    char log[2000];
    double s = mpi_step_s(ranks[i], gen, k, log, sizeof log);
    if (s < 0) {
      printf("FAIL kmedoids_mpi -np %d: %s\n", ranks[i], log);
      failures++;
      continue;
    }
    if (i == 0)
      base = s;
    printf("C  kmedoids_mpi -np %d --generate %s --k %d: %.3f s/step (speedup %.2f; %d GPU%s "
           "shared by the ranks)\n",
           ranks[i], gen, k, s, base / s, gpus, gpus == 1 ? "" : "s");
    ROW("C  scaling ranks=%d on %d GPU%s  --generate %s --k %d   %8.3f s/step  x%.2f", ranks[i],
        gpus, gpus == 1 ? " " : "s", gen, k, s, base / s);
  }
}

int main(int argc, char **argv)
{
  int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
  char why[GR_WHY_LEN];
  if (!worker_gpu_ready(why, sizeof why)) {
    printf("skipped: %s\n", why);
    return 77;
  }
  struct gr_gpu_info info;
  gr_gpu_query(&info, why, sizeof why);
  int gpus = gr_gpu_device_count(why, sizeof why);
  printf("device: %s, %d SMs, %d GPU(s)\n", info.name, info.sm_count, gpus);
  if (!bench_hooks_of(alg, &H)) {
    printf("FAIL: kmedoids has no timing hooks\n");
    return 1;
  }
  if (quick) {
    bench_sqfd(2000, 50, 70, 32, 3);
    bench_iteration("kmedoids n=2000 k=16 sig_min=40 sig_max=80 classes=16 alpha_milli=200 "
                    "iters=2 ranks=1 dist=classes seed=1",
                    "v2_gpu", 3);
    int r[2] = {1, 2};
    bench_scaling("2000,40,80,16,1", 16, r, 2, gpus);
  } else {
    bench_sqfd(100000, 50, 70, 256, 15);
    bench_sqfd(100000, 50, 70, 32, 15);
    bench_sqfd(100000, 10, 200, 256, 7);
    for (int i = 0; alg->bench_cases[i]; i++)
      bench_iteration(alg->bench_cases[i], "v2_gpu", strstr(alg->bench_cases[i], "n=100000 k=32")
                                                         ? 3
                                                         : 7);
    int r[3] = {1, 2, 4};
    bench_scaling("100000,40,80,16,1", 32, r, 3, gpus);
  }
  printf("\n== kmedoids timing on %s (%d SMs), CUDA events, median ==\n", info.name, info.sm_count);
  for (int i = 0; i < rows; i++)
    printf("%s\n", table[i]);
  return failures ? 1 : 0;
}
