/* ccc_time: one CCC case timed stage by stage on the GPU, end to end, and checked.
 *
 *   ccc_time 'ccc n=1000 features=20000 cat=0 max_cat=1 missing=0 values=continuous seed=1' [reps]
 *            [variant]   (default v6_paired_bands, the fastest fixed one)
 *
 * Builds the case's instance (features + the reference on every pair or a sample), then per
 * repetition: upload the features, partition (ccc_partition_launch alone), the whole variant
 * launch (partition + pairs: pairs = whole - partition), download; CUDA events around each.
 * Prints the medians and the check verdict of the last output. Exit 0 when the check passed. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpuregress/util.h>
#include "ccc.h"
#include "ccc_alg.h"
#include <gpuregress/gpu.h>

static int ccc_time_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double ccc_time_median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, ccc_time_cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: ccc_time CASE [reps] [variant]\n");
    return 2;
  }
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  const char *name = argc > 3 ? argv[3] : "v6_paired_bands";
  const struct gr_variant *v = gr_alg_variant(&ccc_algorithm, name);
  if (!v || !v->impl) {
    fprintf(stderr, "ccc_time: no GPU variant '%s'\n", name);
    return 2;
  }
  ccc_launch_fn launch = (ccc_launch_fn)v->impl;
  reps = reps < 1 ? 1 : reps > 32 ? 32 : reps;
  char why[GR_WHY_LEN];
  struct gr_case c;
  if (gr_case_parse(argv[1], &c, why, sizeof why) || c.alg != &ccc_algorithm) {
    fprintf(stderr, "ccc_time: %s\n", c.alg != &ccc_algorithm ? "not a ccc case" : why);
    return 2;
  }
  struct gr_instance *inst;
  if (ccc_algorithm.instance_new(&c, &inst, why, sizeof why)) {
    fprintf(stderr, "ccc_time: %s\n", why);
    return 1;
  }
  const struct ccc_data *d = (const struct ccc_data *)inst->priv;
  size_t F = (size_t)d->features, n = (size_t)d->n, pairs = (size_t)d->pairs;
  float *h_values;
  void *h_out;
  GR_CUDA_CHECK(cudaMallocHost((void **)&h_values, F * n * sizeof(float)));
  GR_CUDA_CHECK(cudaMallocHost(&h_out, inst->out_bytes));
  memcpy(h_values, d->values, F * n * sizeof(float));
  struct ccc_gpu g = {};
  float *values;
  uint8_t *cat_k;
  GR_CUDA_CHECK(cudaMalloc((void **)&values, F * n * sizeof(float)));
  GR_CUDA_CHECK(cudaMalloc((void **)&cat_k, F));
  GR_CUDA_CHECK(cudaMalloc((void **)&g.labels, F * ccc_label_stride(d->n)));
  GR_CUDA_CHECK(cudaMalloc((void **)&g.meta, F * sizeof(uint32_t)));
  GR_CUDA_CHECK(cudaMalloc((void **)&g.ccc, pairs * sizeof(double) + 8));
  GR_CUDA_CHECK(cudaMalloc((void **)&g.idx, pairs + 8));
  GR_CUDA_CHECK(cudaMemcpy(cat_k, d->cat_k, F, cudaMemcpyHostToDevice));
  g.n = d->n;
  g.features = d->features;
  g.lmax = d->lmax;
  g.values = values;
  g.cat_k = cat_k;
  cudaEvent_t ev[6];
  for (int e = 0; e < 6; e++)
    GR_CUDA_CHECK(cudaEventCreate(&ev[e]));
  double up[32], part[32], whole[32], down[32];
  for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
    GR_CUDA_CHECK(cudaMemset(g.ccc, 0xff, pairs * sizeof(double)));
    GR_CUDA_CHECK(cudaMemset(g.idx, 0xff, pairs));
    GR_CUDA_CHECK(cudaEventRecord(ev[0]));
    GR_CUDA_CHECK(cudaMemcpyAsync(values, h_values, F * n * sizeof(float), cudaMemcpyHostToDevice));
    GR_CUDA_CHECK(cudaEventRecord(ev[1]));
    ccc_partition_launch(&g, 0);
    GR_CUDA_CHECK(cudaEventRecord(ev[2]));
    if (launch(&g, 0)) {
      fprintf(stderr, "ccc_time: the case does not fit '%s'\n", v->name);
      return 1;
    }
    GR_CUDA_CHECK(cudaEventRecord(ev[3]));
    GR_CUDA_CHECK(cudaMemcpyAsync(h_out, g.ccc, pairs * sizeof(double), cudaMemcpyDeviceToHost));
    GR_CUDA_CHECK(cudaMemcpyAsync((char *)h_out + pairs * sizeof(double), g.idx, pairs,
                                  cudaMemcpyDeviceToHost));
    GR_CUDA_CHECK(cudaEventRecord(ev[4]));
    GR_CUDA_CHECK(cudaEventSynchronize(ev[4]));
    float ms[4];
    for (int e = 0; e < 4; e++)
      GR_CUDA_CHECK(cudaEventElapsedTime(&ms[e], ev[e], ev[e + 1]));
    if (r >= 0) {
      up[r] = ms[0];
      part[r] = ms[1];
      whole[r] = ms[2];
      down[r] = ms[3];
    }
  }
  struct gr_check_report rep = {};
  int bad = ccc_algorithm.check(inst, h_out, &rep);
  double mu = ccc_time_median(up, reps), mp = ccc_time_median(part, reps),
         mw = ccc_time_median(whole, reps), md = ccc_time_median(down, reps);
  printf("case: %s, variant %s\n", argv[1], v->name);
  printf("pairs %zu, checked against the reference: %lld pairs, reps %d (medians, ms)\n", pairs,
         (long long)d->checked, reps);
  printf(
      "  upload %.2f | partition %.2f | pairs %.2f (launch partition+pairs %.2f) | download %.2f\n",
      mu, mp, mw - mp, mw, md);
  printf(
      "  end to end (partition + pairs, features on the device): %.3f s; with transfers %.3f s\n",
      mw / 1e3, (mu + mw + md) / 1e3);
  printf("  %.3g pairs/s, %.3g part-pair ARIs/s\n", pairs / (mw / 1e3), 81.0 * pairs / (mw / 1e3));
  printf("check: %s%s%s\n", bad ? "FAIL " : "pass", bad ? rep.tag : "", bad ? rep.why : "");
  return bad ? 1 : 0;
}
