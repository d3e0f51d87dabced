/* sgm v5_prefetch_wta (fixed). v4_packed_dpx with the last kernel (right-left path, sum over the
 * other paths, winner-takes-all) loading the other paths' costs up to 8 pixels ahead instead of
 * one, the ring's depth chosen per image from the bytes it keeps in flight; and, on wide images,
 * the left-right blocks first in the multi-path grid. The recurrence, the layout and every value
 * as v4's.
 * Why (issue 27; ncu on the H100 at 1920x1080 D=128 8 paths, v4, ncu's locked clocks): census
 * 0.06 ms, the 7-path kernel 2.83 ms (74% SM throughput: issue-bound), the last kernel 1.39 ms
 * with 135 blocks of 8 warps, one row a warp: 12.7% achieved occupancy, 40% of DRAM bandwidth.
 * Each of its 1920 steps waited for the loads issued one step earlier, 7 x 128 bytes a warp:
 * ~7 KB in flight per SM, where the copy rate needs about bandwidth x latency / SMs ~ 25 KB.
 * The ring: PF slots of the lane's words of every other path (slot s % PF holds pixel s until its
 * step, then takes pixel s + PF). PF is the largest power of two with PF x (a warp's bytes per
 * step) x (warps per SM, rows / SMs, at most 24) <= 32 KB, at most 32 words of registers (8
 * pixels): 1080p 8 paths PF 4 (ring of 28 registers, 78 in all, no spill), 4 paths 8; 640x480
 * 4 and 8; 2964x2000 D=256 4 paths 2, D=256 8 paths and D=270 1 (there the kernel was already
 * DRAM-bound, and a deeper ring measured slower: D=270 4 paths PF 3 +2.3%, D=256 8 paths PF 2
 * +0.2%, D=256 4 paths PF 5 +0.2% where PF 2 is -1.6%).
 * Rows first: the left-right blocks are the longest (W steps; a vertical or diagonal line is at
 * most H); at the end of the grid they ran on with the GPU half idle at 1920x1080 (rows first:
 * -1.6% there), but the same order cost 0.2-1% at 640x480 (W/H 1.33) and 1.5-4% at 2964x2000
 * (W/H 1.48): taken where W >= 1.6 H.
 * Measured (H100 80GB HBM3, bench, cold L2, medians; v4 in the same run): 640x480 D=64 4 paths
 * 0.317 ms (v4 0.454), 8 paths 0.601 (0.711); 1920x1080 D=128 4 paths 1.68 (1.94), 8 paths
 * 3.37 (3.60; libSGM 3.47); 2964x2000 D=256 4 paths 5.94 (6.04), 8 paths 13.23 (13.23);
 * D=270 6.97 / 15.43 (the same as v4: the ring is 1 deep there, v4's last kernel). ncu, 1080p
 * 8 paths: the last kernel 1.27 ms (from 1.39), 44% of DRAM bandwidth; the occupancy is still
 * 12.7% (one warp per row is all the parallelism a right-left scan has).
 * Tried and rejected: the left-right path moved into the last kernel (each warp runs its row
 * left-right, then right-left over what it wrote: the multi-path kernel loses 1/7 of its work,
 * 2.83 -> 2.56 ms, but the last kernel, latency-bound, grows 1.27 -> 1.85 ms: 1080p 8 paths 3.63
 * ms, 2964x2000 up to +9%); a ring of 3 (not a power of two: 1080p 8 paths 3.66 ms). Not tried:
 * a sum + WTA kernel over every pixel with right-left in the multi-path kernel (~2.1 GB of reads,
 * ~0.75 ms at the copy rate, plus 1/7 more multi-path work: no better on paper). */
#include "sgm_dpx.cuh"

/* Pixels of the ring a lane's registers can hold: 32 words of the other paths' costs, 1 to 8. */
template <int K, typename T, int PATHS> __host__ __device__ constexpr int v5_pf_cap()
{
  constexpr int words = (PATHS - 1) * sgm_warp_chunk<T, K>::NW, pf = 32 / words;
  return pf < 1 ? 1 : pf > 8 ? 8 : pf;
}

/* The ring's depth for h rows (see the header): a power of two, at most cap. */
static int v5_pick_pf(int cap, int words, int h)
{
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms < 1)
    sms = 132;
  double warps = (double)((h + SGM_WARP_WARPS - 1) / SGM_WARP_WARPS * SGM_WARP_WARPS) / sms;
  if (warps > 24) /* 3 blocks of 8 warps fit an SM at this kernel's ~80 registers */
    warps = 24;
  const double per_slot = words * 4.0 * 32.0 * warps; /* bytes in flight per SM per pixel ahead */
  int pf = 1;
  while (pf * 2 <= cap && pf * 2 * per_slot <= 32768.0)
    pf *= 2;
  return pf;
}

/* The last kernel: right-left on row y fused with the sum over every path and the
 * winner-takes-all, the other paths PF pixels ahead. */
template <int K, typename T, int PATHS, int PF>
static __global__ void __launch_bounds__(SGM_WARP_THREADS) v5_last_kernel(const sgm_warp_params p)
{
  const int y = (int)blockIdx.x * SGM_WARP_WARPS + (int)(threadIdx.x >> 5);
  if (y < p.h)
    v4_row_pf<K, T, 1, true, PATHS, PF>(p, y);
}

SGM_WARP_OPS(v5_ops, v4_row, v4_lines);

template <int K, typename T, int PATHS>
static void v5_enqueue_last(const sgm_warp_params &p, cudaStream_t st)
{
  constexpr int cap = v5_pf_cap<K, T, PATHS>();
  const int rows = (p.h + SGM_WARP_WARPS - 1) / SGM_WARP_WARPS;
  const int pf = v5_pick_pf(cap, (PATHS - 1) * sgm_warp_chunk<T, K>::NW, p.h);
  if constexpr (cap >= 8)
    if (pf >= 8) {
      v5_last_kernel<K, T, PATHS, 8><<<rows, SGM_WARP_THREADS, 0, st>>>(p);
      return;
    }
  if constexpr (cap >= 4)
    if (pf >= 4) {
      v5_last_kernel<K, T, PATHS, 4><<<rows, SGM_WARP_THREADS, 0, st>>>(p);
      return;
    }
  if constexpr (cap >= 2)
    if (pf >= 2) {
      v5_last_kernel<K, T, PATHS, 2><<<rows, SGM_WARP_THREADS, 0, st>>>(p);
      return;
    }
  v5_last_kernel<K, T, PATHS, 1><<<rows, SGM_WARP_THREADS, 0, st>>>(p);
}

template <int K, typename T> static void v5_enqueue(const sgm_warp_plan &pl, int paths, cudaStream_t st)
{
  size_t smem = 2 * SGM_WARP_TR * sgm_warp_row_stride(K) * sizeof(uint32_t);
  sgm_warp_paths_kernel<v5_ops, K, T><<<pl.blocks, SGM_WARP_THREADS, smem, st>>>(pl.p);
  GR_CUDA_LAUNCH_CHECK();
  if (paths == 8)
    v5_enqueue_last<K, T, 8>(pl.p, st);
  else
    v5_enqueue_last<K, T, 4>(pl.p, st);
  GR_CUDA_LAUNCH_CHECK();
}

extern "C" int sgm_v5_prefetch_wta_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
                                          void *stream)
{
  return sgm_warp_launch_with(
      a, scratch_bytes, stream, sgm_warp_rows_first(a),
      [](const sgm_warp_plan &pl, int paths, cudaStream_t st, auto k, auto t) {
        v5_enqueue<decltype(k)::value, typename decltype(t)::type>(pl, paths, st);
      });
}
