/* CUDA side of the timing layer. See bench_gpu.h. */
#include "bench_gpu.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gr.h"
#include "nvml.h"

/* device helpers */

__device__ static unsigned long long global_ns(void)
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* kernels */

/* Busy-wait for ns nanoseconds of the global timer: the test-only slowdown. */
static __global__ void spin_kernel(unsigned long long ns)
{
  unsigned long long t0 = global_ns();
  while (global_ns() - t0 < ns)
    ;
}

/* host side */

static struct {
  int open, cold;
  cudaStream_t stream; /* the samples' stream (blocking: work on the legacy default stream
                        * serialises with it) */
  cudaEvent_t start, stop;
  void *flush;
  size_t flush_bytes;
} g;

extern "C" int bench_gpu_sm_clock(void) { return gr_nvml_clock(GR_NVML_CLOCK_SM); }

extern "C" int bench_gpu_open(int cold, char *why, size_t len)
{
  if (g.open)
    return 0;
  struct gr_gpu_info info;
  if (gr_gpu_query(&info, why, len))
    return -1;
  GR_CUDA_CHECK(cudaEventCreate(&g.start));
  GR_CUDA_CHECK(cudaEventCreate(&g.stop));
  GR_CUDA_CHECK(cudaStreamCreate(&g.stream));
  g.cold = cold;
  if (cold) {
    g.flush_bytes = 2 * (info.l2_bytes ? info.l2_bytes : (size_t)64 << 20);
    GR_CUDA_CHECK(cudaMalloc(&g.flush, g.flush_bytes));
  }
  g.open = 1;
  return 0;
}

extern "C" void bench_gpu_close(void)
{
  if (!g.open)
    return;
  cudaEventDestroy(g.start);
  cudaEventDestroy(g.stop);
  cudaStreamDestroy(g.stream);
  if (g.flush)
    cudaFree(g.flush);
  memset(&g, 0, sizeof g);
}

extern "C" double bench_gpu_copy_gbps(void)
{
  size_t free_b, total_b;
  GR_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  size_t bytes = free_b / 4 < ((size_t)1 << 30) ? free_b / 4 : ((size_t)1 << 30);
  bytes &= ~(size_t)0xfffff;
  if (bytes == 0)
    return 0;
  void *a, *b;
  GR_CUDA_CHECK(cudaMalloc(&a, bytes));
  GR_CUDA_CHECK(cudaMalloc(&b, bytes));
  GR_CUDA_CHECK(cudaMemset(a, 1, bytes));
  GR_CUDA_CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); /* warm-up */
  float ms[9];
  for (int i = 0; i < 9; i++) {
    GR_CUDA_CHECK(cudaEventRecord(g.start, 0));
    GR_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
    GR_CUDA_CHECK(cudaEventRecord(g.stop, 0));
    GR_CUDA_CHECK(cudaEventSynchronize(g.stop));
    GR_CUDA_CHECK(cudaEventElapsedTime(&ms[i], g.start, g.stop));
  }
  for (int i = 1; i < 9; i++) /* median by insertion sort */
    for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
      float t = ms[j];
      ms[j] = ms[j - 1];
      ms[j - 1] = t;
    }
  GR_CUDA_CHECK(cudaFree(a));
  GR_CUDA_CHECK(cudaFree(b));
  return ms[4] > 0 ? 2.0 * (double)bytes / (ms[4] * 1e-3) / 1e9 : 0;
}

extern "C" void *bench_gpu_stream(void) { return g.open ? (void *)g.stream : NULL; }

extern "C" double bench_gpu_sample(void (*launch)(void *), void *state, int launches,
                                   double spin_ns, int *sm_clock_mhz, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (g.cold)
    GR_CUDA_CHECK(cudaMemsetAsync(g.flush, (int)(launches & 0xff), g.flush_bytes, s));
  GR_CUDA_CHECK(cudaEventRecord(g.start, s));
  for (int i = 0; i < launches; i++) {
    launch(state);
    GR_CUDA_LAUNCH_CHECK();
    if (spin_ns > 0) {
      spin_kernel<<<1, 1, 0, s>>>((unsigned long long)spin_ns);
      GR_CUDA_LAUNCH_CHECK();
    }
  }
  GR_CUDA_CHECK(cudaEventRecord(g.stop, s));
  GR_CUDA_CHECK(cudaEventSynchronize(g.stop));
  float ms = 0;
  GR_CUDA_CHECK(cudaEventElapsedTime(&ms, g.start, g.stop));
  if (sm_clock_mhz)
    *sm_clock_mhz = bench_gpu_sm_clock();
  return (double)ms / launches;
}
