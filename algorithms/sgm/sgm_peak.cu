/* sgm's peak for "% of peak" in the timing tables: how many cost-volume cell updates (one
 * disparity of one path at one pixel: L = C + min(L, L(d-1) + P1, L(d+1) + P1, m + P2) - m) this
 * GPU performs per second with v4_packed_dpx's own instruction sequence for the recurrence (two
 * disparities per register, Hopper's 16x2 DPX min/add: per pair one byte permute, three mins,
 * one add-min, one max, an add and a subtract) and every operand in registers: no loads, no
 * stores, no shuffles, no cost computation. A roof of the aggregation, not a reachable rate: a
 * kernel at 50% of it spends as many instructions elsewhere (costs, shuffles, memory) as on the
 * recurrence. Measured once per benchmark process (about 10 ms); on GPUs without DPX the
 * intrinsics are emulated and the peak is that of the emulation. */
#include <cuda_runtime.h>
#include <stdio.h>

#include <gpuregress/gpu.h>
#include "sgm_alg.h"

#define PEAK_PAIRS 8     /* packed pairs per thread: 16 disparities, independent chains */
#define PEAK_STEPS 2048  /* recurrence steps per thread */
#define PEAK_THREADS 256
#define PEAK_BLOCKS_PER_SM 8

/* kernels */

static __global__ void __launch_bounds__(PEAK_THREADS)
    sgm_peak_kernel(uint32_t seed, uint32_t p1p1, uint32_t p2, uint32_t pad, int steps,
                    uint32_t *sink)
{
  uint32_t P[PEAK_PAIRS], C[PEAK_PAIRS];
  const uint32_t t0 = seed + blockIdx.x * PEAK_THREADS + threadIdx.x;
#pragma unroll
  for (int i = 0; i < PEAK_PAIRS; i++) {
    P[i] = (t0 * 0x9e3779b1u + (uint32_t)i * 0x00250013u) & 0x00ff00ffu;
    C[i] = (t0 ^ ((uint32_t)i * 0x00110007u)) & 0x001f001fu;
  }
  uint32_t mp = 0;
  for (int s = 0; s < steps; s++) {
    uint32_t S[PEAK_PAIRS + 1];
    S[0] = __byte_perm(P[PEAK_PAIRS - 1], P[0], 0x5432);
#pragma unroll
    for (int i = 1; i < PEAK_PAIRS; i++)
      S[i] = __byte_perm(P[i - 1], P[i], 0x5432);
    S[PEAK_PAIRS] = __byte_perm(P[PEAK_PAIRS - 1], P[0], 0x5432);
    const uint32_t mpmp = mp * 0x10001u, cap = (mp + p2) * 0x10001u;
    uint32_t lmin = 0x7fff7fffu;
#pragma unroll
    for (int i = 0; i < PEAK_PAIRS; i++) {
      const uint32_t m = __vminu2(S[i], S[i + 1]);
      const uint32_t t = __viaddmin_u16x2(m, p1p1, __vminu2(P[i], cap));
      const uint32_t v = __vmaxu2(C[i] + t - mpmp, pad);
      P[i] = v;
      lmin = __vminu2(lmin, v);
    }
    mp = min(lmin & 0xffffu, lmin >> 16);
  }
  uint32_t acc = mp;
#pragma unroll
  for (int i = 0; i < PEAK_PAIRS; i++)
    acc ^= P[i];
  if (acc == seed) /* never in practice: keeps the work */
    *sink = acc;
}

/* launcher */

extern "C" double sgm_peak_cells(char *name, size_t len)
{
  int dev, sms;
  GR_CUDA_CHECK(cudaGetDevice(&dev));
  GR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int blocks = sms * PEAK_BLOCKS_PER_SM;
  uint32_t *sink;
  cudaEvent_t a, b;
  GR_CUDA_CHECK(cudaMalloc(&sink, sizeof *sink));
  GR_CUDA_CHECK(cudaEventCreate(&a));
  GR_CUDA_CHECK(cudaEventCreate(&b));
  float best = 0;
  for (int rep = 0; rep < 6; rep++) { /* the first is a warm-up; the fastest of the others */
    GR_CUDA_CHECK(cudaEventRecord(a, 0));
    sgm_peak_kernel<<<blocks, PEAK_THREADS>>>(0x1234567u + (uint32_t)rep, 0x000a000au, 120, 0,
                                             PEAK_STEPS, sink);
    GR_CUDA_LAUNCH_CHECK();
    GR_CUDA_CHECK(cudaEventRecord(b, 0));
    GR_CUDA_CHECK(cudaEventSynchronize(b));
    float ms;
    GR_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    if (rep > 0 && (best == 0 || ms < best))
      best = ms;
  }
  GR_CUDA_CHECK(cudaEventDestroy(a));
  GR_CUDA_CHECK(cudaEventDestroy(b));
  GR_CUDA_CHECK(cudaFree(sink));
  if (name && len)
    snprintf(name, len, "DPX recurrence peak");
  double cells = (double)blocks * PEAK_THREADS * 2 * PEAK_PAIRS * PEAK_STEPS;
  return best > 0 ? cells / (best * 1e-3) : 0;
}
