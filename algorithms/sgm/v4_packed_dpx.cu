/* sgm v4_packed_dpx (fixed). v3_warp_fused with the dynamic-programming step done on pairs of
 * disparities packed in 16-bit halves of one register, with Hopper's 16x2 integer min/add
 * instructions (min.u16x2, add.u16x2: DPX) doing two disparities per instruction:
 *   lo/hi neighbour pairs: one byte permute per pair (the pair shifted by one disparity);
 *   t = min(min(L, m + P2), min(lo, hi) + P1), L = C + t - m: no carries cross the halves
 *   (t >= m, all values < 2^15), padding held at 0x7fff by one max with a per-lane mask.
 * The costs skip the x - d < 0 test when the whole warp is past the left border, and the path
 * buffers are packed straight from the pairs. Same memory layout and launch structure as v3;
 * every value identical. Why: v3 is instruction-bound (~29 instructions per cell and path).
 * Measured (H100 80GB HBM3, CUDA 13.0, tests/test_sgm_bench.c, median of 30): 2964x2000 D=256
 * 8 paths 13.4 ms (v3 16.5, libSGM 14.2), D=270 15.6 ms (v3 18.8), 4 paths 6.0 ms (v3 8.0);
 * 1920x1080 D=128 8 paths 4.1 ms (v3 4.0); 640x480 D=64 8 paths 0.72 ms (v3 0.82) but 4 paths
 * 0.57 ms (v3 0.46: the longer dependent chain per pixel shows when the image is small).
 * ncu at D=256: the multi-path kernel still ALU-bound (~24 instructions per cell and path, 81%
 * issue-busy, 11.6 ms), the last kernel DRAM-bound (77% of peak, 4.1 ms).
 * Where the time goes at 1920x1080 D=128 8 paths (issue 27; bench 3.96 ms on the H100; ncu,
 * kernels alone): census 0.06 ms; the 7-path kernel 2.80 ms (2115 blocks, 48 registers, 55%
 * occupancy, 75% issue-busy, 1.77G warp instructions, writes the 1.84 GB of path buffers at 22%
 * of DRAM bandwidth); the last kernel (right-left path, sum of 8, WTA) 1.88 ms with 135 blocks of
 * 8 warps, one line a warp: 13% achieved occupancy, 23% issue-busy, 30% of DRAM bandwidth for
 * its 1.88 GB of reads. At this size the last kernel is latency-bound for want of lines, not
 * bandwidth-bound as at D=256: v5_prefetch_wta keeps its loads further ahead. */
#include "sgm_dpx.cuh"

/* the launcher: the layout's kernels on this variant's scan-line functions */

SGM_WARP_OPS(v4_ops, v4_row, v4_lines);

extern "C" int sgm_v4_packed_dpx_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
                                        void *stream)
{
  return sgm_warp_launch<v4_ops>(a, scratch_bytes, stream);
}
