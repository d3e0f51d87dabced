/* ccc v3_rows (fixed). v2_warp's lanes each take whole part pairs, so their summed-area lookups
 * land on random shared-memory banks (about 3.5 wavefronts a load): the shared-memory pipe bounds
 * it at about 2,300 cycles per pair per SM on an H100. Here, for two numeric features of the
 * kmax = 10 layout (n >= 91, the anchor's case), each lane takes a row cluster instead (the 54
 * clusters of feature i's 9 parts, plus one of all rows, over 32 lanes in two rounds): it reads the
 * table's two boundary rows once (all lanes on the same column at once: distinct banks or the
 * same word), forms that row band's 32 fine-column counts in registers and sums the squared cells
 * of all 9 parts of feature j with compile-time indices (CCC_F10_CELLS). Only the column prefix is
 * needed (no row pass). A part pair is then the sum of its row clusters' partial sums. Other pairs
 * (categorical, n < 91) take v2_warp's path. Measured on an H100: see NOTES.md. */
#include <cuda_runtime.h>

#include "ccc.h"
#include "ccc_common.cuh"
#include "ccc_rows.cuh"
#include <gpuregress/gpu.h>

/* A numeric x numeric pair of the kmax = 10 layout; the table is clear. */
__device__ static inline void ccc_rows_pair(const struct ccc_pair_params &pp, unsigned *T,
                                            unsigned *part, const uint8_t *labels, uint32_t mi,
                                            uint32_t mj, int i, int j, long long t, int r0a,
                                            int r1a, int r0b, int r1b, double *ccc, uint8_t *idx)
{
  const int lane = threadIdx.x & 31, sw = pp.sw;
  const unsigned Vi = CCC_META_VALID(mi), Vj = CCC_META_VALID(mj);
  ccc_pair_count(pp, T, labels, i, j);
  ccc_rows_bands(T, sw, part, r0a, r1a, r0b, r1b);
  const unsigned *all = part + (CCC_ROW_CLUSTERS - 1) * CCC_PART_STRIDE;
  const unsigned long long nn = all[CCC_MAX_PARTS];
  double fast[3];
  unsigned long long cnt[3][4];
  int pq[3];
#pragma unroll
  for (int r = 0; r < 3; r++) {
    int job = r * 32 + lane, p = job / CCC_MAX_PARTS, q = job % CCC_MAX_PARTS;
    fast[r] = -1e300;
    cnt[r][0] = cnt[r][1] = cnt[r][2] = cnt[r][3] = 0;
    pq[r] = CCC_NO_INDEX;
    if (job >= CCC_MAX_PARTS * CCC_MAX_PARTS || !(Vi >> p & 1) || !(Vj >> q & 1))
      continue;
    const unsigned *band = part + ((p + 1) * (p + 2) / 2 - 1) * CCC_PART_STRIDE;
    unsigned long long s = 0, sa = 0, sb = all[q];
    for (int a = 0; a < p + 2; a++) {
      unsigned long long rows = band[a * CCC_PART_STRIDE + CCC_MAX_PARTS];
      s += band[a * CCC_PART_STRIDE + q];
      sa += rows * rows;
    }
    fast[r] = ccc_confusion(s, sa, sb, nn, cnt[r]);
    pq[r] = p << 4 | q;
  }
  ccc_pick(fast, cnt, pq, t, ccc, idx);
}

/* kernels */

/* v3's table clearing, one word a lane at a time, and its numeric pairs */
struct ccc_v3_ops {
  __device__ static void clear(unsigned *T, int sw, int cells)
  {
    for (int c = threadIdx.x & 31; c < cells; c += 32)
      T[c] = 0;
    __syncwarp();
  }
  __device__ static void rows_pair(const struct ccc_pair_params &pp, unsigned *T, unsigned *part,
                                   const uint8_t *labels, uint32_t mi, uint32_t mj, int i, int j,
                                   long long t, int r0a, int r1a, int r0b, int r1b, double *ccc,
                                   uint8_t *idx)
  {
    ccc_rows_pair(pp, T, part, labels, mi, mj, i, j, t, r0a, r1a, r0b, r1b, ccc, idx);
  }
};

static __global__ void __launch_bounds__(CCC_WARPS * 32)
    ccc_pair_kernel(const struct ccc_pair_params pp, const uint8_t *labels, const uint32_t *meta,
                    double *ccc, uint8_t *idx)
{
  ccc_rows_kernel_body<ccc_v3_ops>(pp, labels, meta, ccc, idx);
}

/* launcher */

extern "C" int ccc_v3_rows_launch(const struct ccc_gpu *g, void *stream)
{
  return ccc_launch_with((const void *)ccc_pair_kernel,
                         CCC_ROW_CLUSTERS * CCC_PART_STRIDE * sizeof(unsigned), g, stream);
}
