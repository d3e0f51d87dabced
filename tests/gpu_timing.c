/* The GPU timing loop of the test programs: see gpu_timing.h. */
#include "gpu_timing.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "gpu.h"

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

struct gpu_timing gpu_time(void (*fn)(void *), void *arg, int warm, int reps, int l2)
{
  struct gpu_timing t = {0, 0};
  if (reps < 1)
    return t;
  void *scrub = NULL;
  int dev, l2_bytes = 0;
  if (l2 == GPU_L2_SCRUB) {
    GR_CUDA_CHECK(cudaGetDevice(&dev));
    GR_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, dev));
    GR_CUDA_CHECK(cudaMalloc(&scrub, (size_t)l2_bytes));
  }
  cudaEvent_t e0, e1;
  GR_CUDA_CHECK(cudaEventCreate(&e0));
  GR_CUDA_CHECK(cudaEventCreate(&e1));
  for (int i = 0; i < warm; i++)
    fn(arg);
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  double *ms = malloc(sizeof *ms * (size_t)reps);
  if (!ms)
    abort();
  for (int i = 0; i < reps; i++) {
    if (scrub)
      GR_CUDA_CHECK(cudaMemsetAsync(scrub, i & 0xff, (size_t)l2_bytes, 0));
    float x;
    GR_CUDA_CHECK(cudaEventRecord(e0, 0));
    fn(arg);
    GR_CUDA_CHECK(cudaEventRecord(e1, 0));
    GR_CUDA_CHECK(cudaEventSynchronize(e1));
    GR_CUDA_CHECK(cudaEventElapsedTime(&x, e0, e1));
    ms[i] = x;
  }
  qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
  t.median_ms = reps % 2 ? ms[reps / 2] : (ms[reps / 2 - 1] + ms[reps / 2]) / 2;
  t.min_ms = ms[0];
  free(ms);
  GR_CUDA_CHECK(cudaEventDestroy(e0));
  GR_CUDA_CHECK(cudaEventDestroy(e1));
  if (scrub)
    GR_CUDA_CHECK(cudaFree(scrub));
  return t;
}

struct copy_args {
  void *dst, *src;
  size_t bytes;
};

static void copy_once(void *arg)
{
  struct copy_args *c = arg;
  GR_CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, 0));
}

double gpu_copy_bandwidth(size_t bytes, int reps)
{
  struct copy_args c = {NULL, NULL, bytes};
  GR_CUDA_CHECK(cudaMalloc(&c.dst, bytes));
  GR_CUDA_CHECK(cudaMalloc(&c.src, bytes));
  GR_CUDA_CHECK(cudaMemset(c.src, 1, bytes));
  double ms = gpu_time(copy_once, &c, 3, reps, GPU_L2_WARM).median_ms;
  GR_CUDA_CHECK(cudaFree(c.dst));
  GR_CUDA_CHECK(cudaFree(c.src));
  return 2.0 * (double)bytes / (ms * 1e-3);
}
