/* GPU tests of k-medoids: the GPU's SQFD against the reference (radicand within 2e-6), SQFD(x, x)
 * = 0 exactly, symmetry within the same tolerance, non-negativity, identical objects getting
 * identical distances; the score kernels equal, bit for bit, to scores summed from the GPU's own
 * distances in the content-rank orientation (small and big clusters, rows split over 1-3 ranks);
 * exact ties of duplicate signatures resolved as the reference resolves them; the timing hooks
 * (setup, launch a few times, fetch, check); v2_gpu bit-identical run to run while v1_racy_score
 * is not (reported). Exit 0 ok, 1 a failure, 77 (ctest's skip) without a CUDA device. */
#include <math.h>
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
#include "worker.h"
#include "test_util.h"

#define RAD_TOL 2e-6

/* d[i * n + m] = GPU SQFD(i, m): the assignment against the single medoid m. */
static double *gpu_matrix(const struct kmsig *ds, double alpha)
{
  int64_t n = ds->n;
  struct km_gpu *g;
  char why[GR_WHY_LEN];
  if (km_gpu_new(ds, alpha, 0, n, km_v2_score_launch, &g, why, sizeof why)) {
    printf("FAIL km_gpu_new: %s\n", why);
    test_failures++;
    return NULL;
  }
  double *d = malloc(sizeof(double) * (size_t)(n * n)), *col = malloc(sizeof(double) * (size_t)n);
  int32_t *asg = malloc(sizeof(int32_t) * (size_t)n);
  for (int64_t m = 0; m < n; m++) {
    int32_t med = (int32_t)m;
    km_gpu_backend_ops.assign(g, &med, 1, 0, n, asg, col, why, sizeof why);
    for (int64_t i = 0; i < n; i++)
      d[i * n + m] = col[i];
  }
  free(col);
  free(asg);
  km_gpu_free(g);
  return d;
}

/* The test dataset: n signatures of sig_min..sig_max centroids in 4 classes. 0 ok; -1 counted
 * as a failure. */
static int dataset(int64_t n, int sig_min, int sig_max, enum kmsig_dist dist, uint64_t seed,
                   struct kmsig *ds)
{
  char why[GR_WHY_LEN];
  struct kmsig_gen gen = {n, sig_min, sig_max, 4, dist, seed};
  if (kmsig_generate(&gen, ds, why, sizeof why)) {
    printf("FAIL generate: %s\n", why);
    test_failures++;
    return -1;
  }
  return 0;
}

static void test_distances(int64_t n, int sig_min, int sig_max, double alpha, enum kmsig_dist dist,
                           uint64_t seed)
{
  struct kmsig ds;
  if (dataset(n, sig_min, sig_max, dist, seed, &ds))
    return;
  double *g = gpu_matrix(&ds, alpha);
  struct km_ref r;
  km_ref_init(&r, &ds, alpha);
  double worst = 0, worst_sym = 0, worst_rel = 0;
  int self_bad = 0, neg = 0, dup_bad = 0;
  for (int64_t i = 0; g && i < n; i++) {
    self_bad += g[i * n + i] != 0.0;
    for (int64_t j = 0; j < n; j++) {
      double x = g[i * n + j], y = km_ref_sqfd(&r, i, j), s = g[j * n + i];
      neg += !(x >= 0);
      double e = fabs(x * x - y * y), es = fabs(x * x - s * s);
      worst = e > worst ? e : worst;
      worst_sym = es > worst_sym ? es : worst_sym;
      if (y > 0.05 && fabs(x - y) / y > worst_rel)
        worst_rel = fabs(x - y) / y;
    }
    for (int64_t j = 0; j < i; j++) /* exact copies: identical rows, bit for bit */
      if (kmsig_size(&ds, i) == kmsig_size(&ds, j) &&
          memcmp(ds.data + ds.off[i] * KMSIG_REC, ds.data + ds.off[j] * KMSIG_REC,
                 32 * (size_t)kmsig_size(&ds, i)) == 0)
        for (int64_t m = 0; m < n; m++)
          dup_bad += g[i * n + m] != g[j * n + m];
  }
  printf("%-4s GPU SQFD n=%lld sig=%d..%d alpha=%g %s: radicand error %.2e, symmetry %.2e, "
         "relative %.2e; d(x,x)!=0: %d, negative: %d, copies differing: %d\n",
         worst <= RAD_TOL && worst_sym <= RAD_TOL && !self_bad && !neg && !dup_bad ? "ok" : "FAIL",
         (long long)n, sig_min, sig_max, alpha, kmsig_dist_names[dist], worst, worst_sym,
         worst_rel, self_bad, neg, dup_bad);
  test_failures += !(worst <= RAD_TOL && worst_sym <= RAD_TOL && !self_bad && !neg && !dup_bad && g);
  free(g);
  km_ref_release(&r);
  kmsig_free(&ds);
}

/* The score kernels against scores summed here from the GPU's own distances (gpu_matrix, the same
 * tile arithmetic): each pair in the orientation of lower content rank as source, 0 for identical
 * signatures, km_score_fixed terms summed as integers. Cluster 0 holds every other object (big:
 * split tiles), the rest are small (packed); the rows are split over R = 1..3 ranks and the
 * ranks' vectors summed, as the engine's Allreduce does. Every score must be equal bit for bit. */
static void test_scores_exact(int64_t n, int sig_min, int sig_max, enum kmsig_dist dist, int k,
                              uint64_t seed)
{
  struct kmsig ds;
  char why[GR_WHY_LEN];
  if (dataset(n, sig_min, sig_max, dist, seed, &ds))
    return;
  const double alpha = 0.2;
  double *d = gpu_matrix(&ds, alpha);
  struct km_gpu *g = NULL;
  if (!d || km_gpu_new(&ds, alpha, 0, n, km_v2_score_launch, &g, why, sizeof why)) {
    printf("FAIL scores: %s\n", d ? why : "no distances");
    test_failures++;
    free(d);
    kmsig_free(&ds);
    return;
  }
  int32_t *asg = malloc(sizeof(int32_t) * (size_t)n);
  for (int64_t i = 0; i < n; i++)
    asg[i] = i % 2 ? (int32_t)(1 + (i * 7 + (int64_t)seed) % (k - 1)) : 0;
  struct km_clusters cl;
  km_clusters_build(&cl, asg, n, k);
  uint64_t *want = calloc((size_t)n, sizeof *want), *got = malloc(sizeof *got * (size_t)n);
  uint64_t *part = malloc(sizeof *part * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    int64_t m = cl.start[asg[i] + 1] - cl.start[asg[i]];
    for (int64_t p = cl.start[asg[i]]; m >= 3 && p < cl.start[asg[i] + 1]; p++) {
      int64_t j = cl.list[p];
      int c = kmsig_content_cmp(&ds, i, j);
      want[i] += km_score_fixed(c < 0 ? d[i * n + j] : c > 0 ? d[j * n + i] : 0.0);
    }
  }
  int bad = 0, small = 0, big = 0;
  for (int R = 1; R <= 3; R++) {
    memset(got, 0, sizeof *got * (size_t)n);
    for (int r = 0; r < R; r++) {
      struct km_work *w = NULL;
      int nw = 0, ns, nb;
      km_split_work(&cl, r, R, &w, &nw);
      memset(part, 0, sizeof *part * (size_t)n);
      if (nw && km_gpu_backend_ops.score(g, asg, &cl, w, nw, part, why, sizeof why))
        bad++;
      km_gpu_plan_counts(g, &ns, &nb, NULL);
      small += ns;
      big += nb;
      for (int64_t i = 0; i < n; i++)
        got[i] += part[i];
      free(w);
    }
    for (int64_t i = 0; i < n; i++)
      bad += got[i] != want[i];
  }
  printf("%-4s GPU scores n=%lld sig=%d..%d %s k=%d, rows over 1-3 ranks: %d differ from the "
         "GPU's distances summed in rank orientation (%d small, %d big tiles)\n",
         bad || !small || !big ? "FAIL" : "ok", (long long)n, sig_min, sig_max,
         kmsig_dist_names[dist], k, bad, small, big);
  test_failures += bad || !small || !big;
  km_clusters_release(&cl);
  free(asg);
  free(want);
  free(got);
  free(part);
  free(d);
  km_gpu_free(g);
  kmsig_free(&ds);
}

/* Duplicate signatures make exact ties in the reference that the GPU must resolve the same way:
 * found by the fuzzer (session 7 of issue 22): v2_gpu and mpi_gpu picked object 9 where the
 * reference picks 0 (a cluster {0, 3, 9, 15} of two duplicate pairs: SQFD(0, 9) and SQFD(9, 0)
 * differed in their last bits), and ended at an objective 35% higher. Each case must pass the
 * check on each variant given (a variant that cannot run here, mpirun missing, is skipped). */
static void test_duplicate_ties(const char *text, const char *const *variants)
{
  const struct gr_algorithm *a = &kmedoids_algorithm;
  struct gr_case c;
  struct gr_instance *inst = NULL;
  char why[GR_WHY_LEN] = "";
  EXPECT(case_parse(text, &c, why, sizeof why) == 0 && a->instance_new(&c, &inst, why, sizeof why) == 0,
         "%s: %s", text, why);
  if (!inst)
    return;
  unsigned char *o = malloc(inst->out_bytes);
  for (const char *const *vn = variants; *vn; vn++) {
    const struct gr_variant *v = gr_alg_variant(a, *vn);
    struct gr_run_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    enum gr_run_status st = v->run(v, inst, o, &ctx);
    if (st == GR_RUN_UNSUPPORTED)
      continue;
    struct gr_check_report rep;
    memset(&rep, 0, sizeof rep);
    EXPECT(st == GR_RUN_OK && a->check(inst, o, &rep) == 0, "%s on %s: %s%s", *vn, text, ctx.why,
           rep.why);
  }
  free(o);
  a->instance_free(inst);
}

static void test_hooks(const char *text)
{
  const struct gr_algorithm *a = &kmedoids_algorithm;
  struct gr_case c;
  struct gr_instance *inst;
  char why[GR_WHY_LEN] = "";
  EXPECT(case_parse(text, &c, why, sizeof why) == 0, "%s", why);
  EXPECT(a->instance_new(&c, &inst, why, sizeof why) == 0, "%s", why);
  struct bench_hooks h; /* made from the lifecycle (km_lifecycle.c) */
  EXPECT(bench_hooks_of(a, &h) && h.on_stream, "no timing hooks from kmedoids' lifecycle");
  void *st = h.setup(gr_alg_variant(a, "mpi_gpu"), inst, why, sizeof why);
  EXPECT(st == NULL && strstr(why, "kmedoids_mpi --time"),
         "the timing setup of mpi_gpu should decline with a reason: '%s'", why);
  why[0] = '\0';
  st = h.setup(gr_alg_variant(a, "v2_gpu"), inst, why, sizeof why);
  EXPECT(st != NULL, "timing setup v2_gpu: %s", why);
  if (!st)
    return;
  for (int i = 0; i < 3; i++)
    h.launch(st);
  gr_gpu_sync();
  unsigned char *out = malloc(inst->out_bytes);
  memset(out, 0xA5, inst->out_bytes);
  h.fetch(st, out);
  h.teardown(st);
  struct gr_check_report rep;
  memset(&rep, 0, sizeof rep);
  int bad = a->check(inst, out, &rep);
  printf("%-4s timing hooks on %s: %s\n", bad ? "FAIL" : "ok", text, bad ? rep.why : "checked");
  test_failures += bad;
  free(out);
  a->instance_free(inst);
}

/* v2_gpu twice bit-identical; v1_racy_score against it over a few runs (reported). */
static void test_race(const char *text)
{
  const struct gr_algorithm *a = &kmedoids_algorithm;
  struct gr_case c;
  struct gr_instance *inst;
  char why[GR_WHY_LEN];
  case_parse(text, &c, why, sizeof why);
  a->instance_new(&c, &inst, why, sizeof why);
  unsigned char *ref = malloc(inst->out_bytes), *o = malloc(inst->out_bytes);
  struct gr_run_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  const struct gr_variant *v2 = gr_alg_variant(a, "v2_gpu"),
                          *v1 = gr_alg_variant(a, "v1_racy_score");
  v2->run(v2, inst, ref, &ctx);
  int same = 1, differ = 0, failed = 0;
  for (int t = 0; t < 3; t++) {
    v2->run(v2, inst, o, &ctx);
    same &= memcmp(o, ref, inst->out_bytes) == 0;
  }
  struct gr_check_report rep;
  for (int t = 0; t < 5; t++) {
    v1->run(v1, inst, o, &ctx);
    differ += memcmp(o, ref, inst->out_bytes) != 0;
    memset(&rep, 0, sizeof rep);
    failed += a->check(inst, o, &rep) != 0;
  }
  printf("%-4s v2_gpu bit-identical over 4 runs: %s; v1_racy_score: %d of 5 runs differ, %d of 5 "
         "fail the check (%s)\n",
         same ? "ok" : "FAIL", same ? "yes" : "NO", differ, failed, text);
  test_failures += !same;
  free(ref);
  free(o);
  a->instance_free(inst);
}

int main(void)
{
  char why[GR_WHY_LEN];
  if (!worker_gpu_ready(why, sizeof why)) {
    printf("skipped: %s\n", why);
    return 77;
  }
  struct gr_gpu_info info;
  if (gr_gpu_query(&info, why, sizeof why) == 0)
    printf("device: %s (%d SMs)\n", info.name, info.sm_count);
  test_distances(48, 1, 256, 0.2, KMSIG_DIST_CLASSES, 1);
  test_distances(64, 10, 80, 0.01, KMSIG_DIST_UNIFORM, 2);
  test_distances(64, 10, 80, 2.0, KMSIG_DIST_CLASSES, 3);
  test_distances(80, 1, 40, 0.2, KMSIG_DIST_DUPLICATES, 4);
  test_scores_exact(300, 1, 40, KMSIG_DIST_DUPLICATES, 16, 21);
  test_scores_exact(240, 40, 80, KMSIG_DIST_CLASSES, 17, 22);
  test_scores_exact(200, 1, 3, KMSIG_DIST_DUPLICATES, 5, 23);
  static const char *const both[] = {"v2_gpu", "mpi_gpu", NULL}, *const v2[] = {"v2_gpu", NULL};
  test_duplicate_ties("kmedoids n=19 k=9 sig_min=1 sig_max=1 classes=1 alpha_milli=200 iters=1 "
                      "ranks=1 dist=duplicates seed=14527145493147",
                      both);
  test_duplicate_ties("kmedoids n=19 k=11 sig_min=183 sig_max=183 classes=4 alpha_milli=200 "
                      "iters=1 ranks=2 dist=duplicates seed=14527145493147",
                      both);
  /* a near-tie flip of float distances, same medoids (2 x H200, stop 43: the check failed it) */
  test_duplicate_ties("kmedoids n=14 k=4 sig_min=256 sig_max=256 classes=2 alpha_milli=1 iters=0 "
                      "ranks=1 dist=duplicates seed=245441520283404",
                      both);
  /* a medoid update decided the other way by float scores (H200, gpu-check of this stop) */
  test_duplicate_ties("kmedoids n=223 k=4 sig_min=5 sig_max=8 classes=1 alpha_milli=10 iters=1 "
                      "ranks=1 dist=classes seed=237194589288699",
                      both);
  for (int s = 1; s <= 40; s++) { /* more of the shape: duplicate pairs, k about n / 2 */
    char t[256];
    snprintf(t, sizeof t,
             "kmedoids n=%d k=%d sig_min=1 sig_max=%d classes=%d alpha_milli=200 iters=4 ranks=1 "
             "dist=duplicates seed=%d",
             12 + s % 17, 3 + s % 9, 1 + (s % 5) * 40, 1 + s % 4, 1000 + s);
    test_duplicate_ties(t, v2);
  }
  test_hooks("kmedoids n=600 k=8 sig_min=20 sig_max=40 classes=6 alpha_milli=200 iters=16 ranks=1 "
             "dist=classes seed=5");
  test_hooks("kmedoids n=3000 k=40 sig_min=40 sig_max=80 classes=16 alpha_milli=200 iters=3 "
             "ranks=1 dist=classes seed=6");
  test_race("kmedoids n=1500 k=2 sig_min=2 sig_max=6 classes=2 alpha_milli=200 iters=16 ranks=1 "
            "dist=classes seed=7");
  if (test_failures)
    printf("%d failure(s)\n", test_failures);
  else
    printf("ok\n");
  return test_failures ? 1 : 0;
}
