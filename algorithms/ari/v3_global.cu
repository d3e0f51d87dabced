/* ari v3_global (fixed). The contingency table in global memory, for tables that do not fit in
 * one block's shared memory (k_a*k_b above ~58,000 cells on H100). Same shape as v2_shared: one
 * 128-thread block per pair, strided zeroing, atomics, ari_finish; the table of block p is slice p
 * of a scratch buffer, and pairs are processed in chunks so the scratch stays under
 * ARI_GLOBAL_SCRATCH_BYTES whatever k and P are. Slower than v2 where both apply (global atomics
 * and an L2 round trip per count), and the only choice where v2 cannot run. */
#include <cuda_runtime.h>

#include "ari.h"
#include "ari_common.cuh"
#include <gpuregress/gpu.h>

/* kernels */

static __global__ void ari_global_kernel(const int16_t *a, const int16_t *b, int n, int k_a, int k_b,
                                         unsigned *scratch, double *out, int *bad)
{
  size_t cells = (size_t)k_a * (size_t)k_b;
  unsigned *table = scratch + (size_t)blockIdx.x * cells;
  const int16_t *pa = a + (size_t)blockIdx.x * n, *pb = b + (size_t)blockIdx.x * n;
  for (size_t c = threadIdx.x; c < cells; c += blockDim.x)
    table[c] = 0;
  __syncthreads();
  if (ari_count(table, pa, pb, n, k_a, k_b, out + blockIdx.x, bad))
    return;
  ari_finish(table, n, k_a, k_b, out + blockIdx.x);
}

/* launcher */

static unsigned *scratch;    /* grown on demand, kept for the life of the process */
static size_t scratch_bytes;
static int max_chunk;        /* ari_v3_set_max_chunk: 0 none */

extern "C" void ari_v3_set_max_chunk(int pairs) { max_chunk = pairs > 0 ? pairs : 0; }

extern "C" int ari_v3_global_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b,
                                    int pairs, double *d_out, int *d_bad, void *stream)
{
  if (!ari_args_valid(n, k_a, k_b, pairs))
    return ARI_BAD_ARGS;
  if (pairs == 0)
    return 0;
  size_t table_bytes = (size_t)k_a * (size_t)k_b * sizeof(unsigned);
  size_t chunk = ARI_GLOBAL_SCRATCH_BYTES / table_bytes;
  if (chunk < 1)
    chunk = 1;
  if (max_chunk && chunk > (size_t)max_chunk)
    chunk = (size_t)max_chunk;
  if (chunk > (size_t)pairs)
    chunk = (size_t)pairs;
  if (scratch_bytes < chunk * table_bytes) {
    if (scratch)
      GR_CUDA_CHECK(cudaFree(scratch));
    scratch_bytes = chunk * table_bytes;
    GR_CUDA_CHECK(cudaMalloc((void **)&scratch, scratch_bytes));
  }
  for (size_t p = 0; p < (size_t)pairs; p += chunk) {
    size_t m = (size_t)pairs - p < chunk ? (size_t)pairs - p : chunk;
    ari_global_kernel<<<(unsigned)m, ARI_BLOCK, 0, (cudaStream_t)stream>>>(
        d_a + p * (size_t)n, d_b + p * (size_t)n, n, k_a, k_b, scratch, d_out + p, d_bad);
    GR_CUDA_LAUNCH_CHECK();
  }
  return 0;
}
