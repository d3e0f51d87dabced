/* sgm v5_prefetch_wta (fixed). v4_packed_dpx with the last kernel (right-left path, sum over the
 * other paths, winner-takes-all) loading the other paths' costs up to 8 pixels ahead instead of
 * one, and the left-right blocks first in the multi-path grid; the recurrence, the layout and
 * every value as v4.
 * Why (issue 27; ncu on the H100 at 1920x1080 D=128 8 paths, v4, clocks locked by ncu): census
 * 0.06 ms, the 7-path kernel 2.80 ms, the last kernel 1.88 ms. The last kernel has one warp per
 * image row, 135 blocks of 8 warps: 13% achieved occupancy, 23% issue-busy, 30% of DRAM
 * bandwidth for its 1.88 GB of reads. Each of its 1920 steps waits for the loads issued one step
 * earlier, 7 x 128 bytes a warp: about 7 KB in flight per SM, where the copy rate needs ~20 KB
 * (bandwidth x latency / 132 SMs). The step itself is a short dependent chain (two shuffles, the
 * 16x2 update, a warp min: ~200 cycles), so with the loads far enough ahead the kernel is bound by
 * its reads, 1.88 GB at the copy rate: ~0.65 ms instead of 1.88.
 * The ring: PF slots of the lane's words of every other path, PF = 32 words / (words per pixel),
 * between 1 and 8. With 8 paths and 8-bit costs: 4 at D <= 128 (28 registers; ptxas: 78 in all
 * for K = 4, no spill), 2 at D <= 256, 1 beyond (the last kernel is then v4's; at D = 256 v4's
 * last kernel was already DRAM-bound, 77% of peak); 16-bit costs take twice the words.
 * The multi-path kernel is v4's (instruction-bound, 75% issue-busy) with one change of order:
 * its left-right blocks come first. v4 puts them last, and each runs W = 1920 steps where a
 * vertical or diagonal line runs at most H = 1080: the 135 longest blocks start in the last
 * wave and may run on with the rest of the GPU idle (to be measured). ncu's per-kernel times
 * separate the two changes: the multi-path kernel for the order, the last kernel for the ring.
 * Rejected before measuring: right-left in the multi-path kernel and a separate sum + WTA kernel
 * over every pixel. The 7-path kernel is issue-bound, so an 8th path costs ~1/7 of it (~0.4 ms),
 * and the separate sum reads all 8 buffers (~2.1 GB, ~0.75 ms): no faster than the fused last
 * kernel once its reads are in flight.
 * Measured: not yet on a GPU (the session that wrote it had no device time). */
#include "sgm_dpx.cuh"

/* Pixels of the ring: 32 registers' worth of the other paths' words, 1 to 8 pixels. */
template <int K, typename T, int PATHS> __host__ __device__ constexpr int v5_prefetch()
{
  constexpr int words = (PATHS - 1) * sgm_warp_chunk<T, K>::NW, pf = 32 / words;
  return pf < 1 ? 1 : pf > 8 ? 8 : pf;
}

template <int K, typename T, int R, bool LAST, int PATHS>
__device__ __forceinline__ void v5_row(const sgm_warp_params &p, int y)
{
  if constexpr (LAST)
    v4_row_pf<K, T, R, true, PATHS, v5_prefetch<K, T, PATHS>()>(p, y);
  else
    v4_row_pf<K, T, R, false, PATHS, 1>(p, y);
}

/* the launcher: the layout's kernels on v4's line function and this row function */

SGM_WARP_OPS(v5_ops, v5_row, v4_lines);

extern "C" int sgm_v5_prefetch_wta_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
                                          void *stream)
{
  return sgm_warp_launch<v5_ops, true>(a, scratch_bytes, stream);
}
