/* ccc v1_warp_uninit (historical). The seed's bug (doc/algorithms.md, ccc-gpu's
 * get_contingency_matrix_shared) in this kernel's shape: the warp clears its contingency table with
 * `if (lane < cells) T[lane] = 0;`, so only the first 32 of the (lmax+1)^2 cells (1089 for numeric
 * features) start at zero and the rest keep the previous pair's summed-area table (or whatever an
 * earlier kernel left in shared memory): counts far too large, ARIs out of range. Fixed in v2_warp
 * by a loop strided by the warp size. Kept faithfully: diff this file against v2_warp.cu and the
 * clearing line is the only difference. */
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
    if (lane < cells) /* the bug: cells past the warp size keep stale contents */
      T[lane] = 0;
    __syncwarp();
    ccc_pair_run(pp, tab, T, marg, labels, mi, mj, i, j, t, ccc, idx);
  }
}

/* launcher */

extern "C" int ccc_v1_warp_uninit_launch(const struct ccc_gpu *g, void *stream)
{
  return ccc_launch_with((const void *)ccc_pair_kernel, 0, g, stream);
}
