/* ccc v2_warp (fixed). One warp per feature pair, its (lmax+1)^2 fine-label contingency table in
 * shared memory, cleared by a loop strided by the warp size before each pair; then the shared
 * per-pair work of ccc_common.cuh (count, summed-area table, 81 part pairs, exact ARI rounding).
 * Measured on an H100: see algorithms/ccc/NOTES.md. */
#include <cuda_runtime.h>

#include "ccc.h"
#include "ccc_common.cuh"
#include <gpuregress/gpu.h>

/* kernels */

static __global__ void __launch_bounds__(CCC_WARPS * 32)
    ccc_pair_kernel(const struct ccc_pair_params pp, const uint8_t *labels, const uint32_t *meta,
                    double *ccc, uint8_t *idx)
{
  unsigned *T;
  unsigned long long *marg;
  const uint8_t *tab = ccc_block_init(pp, &T, &marg);
  const int lane = threadIdx.x & 31, cells = pp.sw * pp.sw;
  for (long long t = ccc_first_pair(); t < pp.pairs; t += ccc_pair_step()) {
    int i, j;
    uint32_t mi, mj;
    if (!ccc_pair_begin(pp, meta, t, &i, &j, &mi, &mj, ccc, idx))
      continue;
    for (int c = lane; c < cells; c += 32)
      T[c] = 0;
    __syncwarp();
    ccc_pair_run(pp, tab, T, marg, labels, mi, mj, i, j, t, ccc, idx);
  }
}

/* launcher */

extern "C" int ccc_v2_warp_launch(const struct ccc_gpu *g, void *stream)
{
  return ccc_launch_with((const void *)ccc_pair_kernel, 0, g, stream);
}
