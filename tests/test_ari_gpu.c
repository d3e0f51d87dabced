/* The ari GPU launchers under bad labels (issue 12): a label outside [0, k) (k, -1, and 30000
 * with k = 10, which used to be an illegal address that killed the CUDA context) is rejected on
 * the device by every launcher: that pair's ARI is NaN, the flag is set, the other pairs are
 * right, and the context survives (a clean launch afterwards passes). Sizes outside what the
 * launchers take are refused before any launch (ARI_BAD_ARGS). The harness driver reports such
 * input as a "bad input" error. Exit 0 ok, 1 a failure, 77 (ctest's skip) without a CUDA device. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/ari/ari.h"
#include "algorithms/ari/ari_alg.h"
#include "case.h"
#include "gpu.h"
#include "algorithms/ari/ari_ref.h"
#include "registry.h"
#include "rng.h"
#include "test_util.h"
#include "worker.h"

static const struct {
  const char *name;
  ari_launch_fn fn;
} launchers[] = {
    {"v1_shared_uninit", ari_v1_shared_uninit_launch},
    {"v2_shared", ari_v2_shared_launch},
    {"v3_global", ari_v3_global_launch},
    {"dispatch", ari_launch},
};

/* pairs x n labels in [0, k) on the host; `poison` puts bad labels into pairs 1.. (one each). */
static void run_one(const char *name, ari_launch_fn fn, int n, int k, int pairs, int poison)
{
  size_t count = (size_t)pairs * (size_t)n;
  int16_t *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
  double *out = malloc((size_t)pairs * sizeof *out);
  struct gr_rng r;
  gr_rng_seed(&r, (uint64_t)k * 7 + (uint64_t)poison);
  for (size_t i = 0; i < count; i++) {
    a[i] = (int16_t)gr_rng_range(&r, 0, k - 1);
    b[i] = (int16_t)gr_rng_range(&r, 0, k - 1);
  }
  if (poison) { /* pairs 1..4: k (the first label past the end) in a, -1 in b, 30000 in a and b */
    const int16_t bl[5] = {0, (int16_t)k, -1, 30000, 30000};
    for (int p = 1; p < pairs && p < 5; p++)
      (p % 2 ? a : b)[(size_t)p * n + (size_t)(p * 37) % n] = bl[p];
  }
  int16_t *da, *db;
  double *dout;
  int *dbad, bad = 0;
  GR_CUDA_CHECK(cudaMalloc((void **)&da, count * sizeof *da));
  GR_CUDA_CHECK(cudaMalloc((void **)&db, count * sizeof *db));
  GR_CUDA_CHECK(cudaMalloc((void **)&dout, (size_t)pairs * sizeof *dout));
  GR_CUDA_CHECK(cudaMalloc((void **)&dbad, sizeof *dbad));
  GR_CUDA_CHECK(cudaMemcpy(da, a, count * sizeof *da, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(db, b, count * sizeof *db, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemset(dbad, 0, sizeof *dbad));
  int rc = fn(da, db, n, k, k, pairs, dout, dbad, NULL);
  if (rc == ARI_UNSUPPORTED) {
    printf("skip %s n=%d k=%d: table does not fit\n", name, n, k);
    goto out;
  }
  EXPECT(rc == ARI_OK);
  GR_CUDA_CHECK(cudaDeviceSynchronize()); /* exits on an illegal address */
  GR_CUDA_CHECK(cudaMemcpy(out, dout, (size_t)pairs * sizeof *out, cudaMemcpyDeviceToHost));
  GR_CUDA_CHECK(cudaMemcpy(&bad, dbad, sizeof bad, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int p = 0; p < pairs; p++) {
    double want = ari_reference(a + (size_t)p * n, b + (size_t)p * n, (size_t)n, k, k);
    int is_bad = poison && p >= 1 && p < 5;
    if (is_bad ? !isnan(out[p]) || !isnan(want) : !(fabs(out[p] - want) <= 1e-12)) {
      if (wrong++ < 3)
        fprintf(stderr, "%s n=%d k=%d pair %d: got %.17g, want %.17g\n", name, n, k, p, out[p],
                want);
    }
  }
  EXPECT(wrong == 0);
  EXPECT(bad == (poison ? 1 : 0));
  printf("%-4s %s n=%d k=%d pairs=%d %s: flag %d, %d wrong\n",
         wrong || bad != !!poison ? "FAIL" : "ok", name, n, k, pairs,
         poison ? "with labels k, -1, 30000" : "clean", bad, wrong);
out:
  GR_CUDA_CHECK(cudaFree(da));
  GR_CUDA_CHECK(cudaFree(db));
  GR_CUDA_CHECK(cudaFree(dout));
  GR_CUDA_CHECK(cudaFree(dbad));
  free(a);
  free(b);
  free(out);
}

static void test_bad_args(void)
{
  for (size_t l = 0; l < sizeof launchers / sizeof *launchers; l++) {
    ari_launch_fn fn = launchers[l].fn;
    EXPECT(fn(NULL, NULL, 10, 0, 3, 1, NULL, NULL, NULL) == ARI_BAD_ARGS);
    EXPECT(fn(NULL, NULL, 10, 3, 40000, 1, NULL, NULL, NULL) == ARI_BAD_ARGS);
    EXPECT(fn(NULL, NULL, -1, 3, 3, 1, NULL, NULL, NULL) == ARI_BAD_ARGS);
    EXPECT(fn(NULL, NULL, 10, 3, 3, -1, NULL, NULL, NULL) == ARI_BAD_ARGS);
  }
}

/* The harness driver on an instance whose labels were corrupted: a "bad input" error. */
static void test_driver(void)
{
  char why[GR_WHY_LEN];
  struct gr_case c;
  EXPECT(case_parse("ari n=500 k_a=10 k_b=10 pairs=8 dist=uniform seed=3", &c, why, sizeof why) ==
         0);
  struct gr_instance *inst;
  if (ari_algorithm.instance_new(&c, &inst, why, sizeof why)) {
    fprintf(stderr, "instance: %s\n", why);
    test_failures++;
    return;
  }
  struct ari_data *d = inst->priv;
  d->a[2 * 500 + 9] = 30000;
  double *out = malloc(inst->out_bytes);
  const struct gr_variant *v = gr_alg_variant(&ari_algorithm, "dispatch");
  struct gr_run_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  enum gr_run_status st = v->run(v, inst, out, &ctx);
  EXPECT(st == GR_RUN_ERROR);
  EXPECT_STR_CONTAINS(ctx.why, "bad input: a label outside [0, 10) or [0, 10) (first in pair 2");
  printf("%-4s driver: %s\n", st == GR_RUN_ERROR ? "ok" : "FAIL", ctx.why);
  free(out);
  ari_algorithm.instance_free(inst);
}

int main(void)
{
  char why[GR_WHY_LEN];
  if (!worker_gpu_ready(why, sizeof why)) {
    printf("skipped: %s\n", why);
    return 77;
  }
  for (size_t l = 0; l < sizeof launchers / sizeof *launchers; l++) {
    run_one(launchers[l].name, launchers[l].fn, 1000, 10, 64, 1);
    run_one(launchers[l].name, launchers[l].fn, 1000, 10, 64, 0); /* the context survived */
  }
  /* a table only v3 holds, reached through the dispatch */
  run_one("dispatch", ari_launch, 3000, 300, 6, 1);
  run_one("dispatch", ari_launch, 3000, 300, 6, 0);
  test_bad_args();
  test_driver();
  TEST_DONE();
}
