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
 * bandwidth-bound as at D=256: the next step is to take right-left into the multi-path kernel
 * (an 8th buffer, +0.27 GB each way) and sum + WTA in a kernel over every pixel (~2.1 GB read,
 * ~0.8 ms at the copy rate), which would bring 1.88 ms toward ~1.1. Not done: no device time
 * left to verify it in issue 27. */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include "sgm_warp.cuh"

#define V4_INF 0x7fff /* "infinity" in a 16-bit half: + P1 (<= 255) still fits */
#define V4_FULL 0xffffffffu

/* device helpers */

/* The lane's DP state: NP = (K+1)/2 registers, pair i holding elements 2i (low half) and 2i+1
 * (high half), element k being disparity lane*K + k. With K odd the high half of the last pair
 * is a dummy. Padding (d >= D) and the dummy are held at V4_INF. */
#define V4_INF2 0x7fff7fffu

/* 0x7fff in the halves that are padding or the dummy, 0 in the others. */
template <int K>
__device__ __forceinline__ void v4_padmask(uint32_t (&pm)[(K + 1) / 2], int lane, int D)
{
#pragma unroll
  for (int i = 0; i < (K + 1) / 2; i++) {
    const bool lo = 2 * i < K && lane * K + 2 * i < D,
               hi = 2 * i + 1 < K && lane * K + 2 * i + 1 < D;
    pm[i] = (lo ? 0u : 0x7fffu) | (hi ? 0u : 0x7fff0000u);
  }
}

/* The first pixel of a line is an update from L = 0 (padding at infinity) with m = 0. */
template <int K>
__device__ __forceinline__ void v4_reset(uint32_t (&P)[(K + 1) / 2], uint32_t &mp,
                                         const uint32_t (&pm)[(K + 1) / 2])
{
#pragma unroll
  for (int i = 0; i < (K + 1) / 2; i++)
    P[i] = pm[i];
  mp = 0;
}

/* One step of the recurrence on the packed pairs: P (previous L) becomes this pixel's L from
 * the cost pairs C; mp is min_d of P on entry and of the new L on return. All halves stay below
 * 2^15 and t >= m in every half, so plain 32-bit adds and subtracts never carry across halves. */
template <int K>
__device__ __forceinline__ void
v4_update(uint32_t (&P)[(K + 1) / 2], const uint32_t (&C)[(K + 1) / 2], uint32_t &mp, uint32_t p1p1,
          uint32_t p2, const uint32_t (&pm)[(K + 1) / 2], int lane)
{
  constexpr int NP = (K + 1) / 2;
  uint32_t prevw = __shfl_up_sync(V4_FULL, P[NP - 1], 1);
  uint32_t nextw = __shfl_down_sync(V4_FULL, P[0], 1);
  if (lane == 0)
    prevw = V4_INF2;
  if (lane == 31)
    nextw = V4_INF2;
  /* S[i] = (element 2i-1, element 2i): the d-1 neighbours of pair i; S[i+1] its d+1 ones */
  uint32_t S[NP + 1];
  S[0] = __byte_perm(prevw, P[0], (K & 1) ? 0x5410 : 0x5432);
#pragma unroll
  for (int i = 1; i < NP; i++)
    S[i] = __byte_perm(P[i - 1], P[i], 0x5432);
  S[NP] = (K & 1) ? nextw : __byte_perm(P[NP - 1], nextw, 0x5432);
  const uint32_t mpmp = mp * 0x10001u, cap = (mp + p2) * 0x10001u;
  uint32_t lmin = V4_INF2;
#pragma unroll
  for (int i = 0; i < NP; i++) {
    const uint32_t m = __vminu2(S[i], S[i + 1]);
    const uint32_t t = __viaddmin_u16x2(m, p1p1, __vminu2(P[i], cap));
    const uint32_t v = __vmaxu2(C[i] + t - mpmp, pm[i]);
    P[i] = v;
    lmin = __vminu2(lmin, v);
  }
  mp = __reduce_min_sync(V4_FULL, min(lmin & 0xffffu, lmin >> 16));
}

/* Pack the pairs into the lane's raw chunk (padding and dummy stored as 0). */
template <typename T, int K>
__device__ __forceinline__ void v4_pack(const uint32_t (&P)[(K + 1) / 2],
                                        const uint32_t (&pm)[(K + 1) / 2],
                                        uint32_t (&w)[sgm_warp_chunk<T, K>::NW])
{
  constexpr int NP = (K + 1) / 2;
  if constexpr (sizeof(T) == 2) {
#pragma unroll
    for (int i = 0; i < NP; i++)
      w[i] = P[i] & ~pm[i];
  } else {
#pragma unroll
    for (int j = 0; j < sgm_warp_chunk<T, K>::NW; j++) {
      const uint32_t a = P[2 * j] & ~pm[2 * j];
      const uint32_t b = 2 * j + 1 < NP ? P[2 * j + 1] & ~pm[2 * j + 1] : 0u;
      w[j] = __byte_perm(a, b, 0x6420);
    }
  }
}

/* Add a raw chunk (as stored by v4_pack) to pair sums. */
template <typename T, int K>
__device__ __forceinline__ void v4_add_raw(const uint32_t (&w)[sgm_warp_chunk<T, K>::NW],
                                           uint32_t (&sum)[(K + 1) / 2])
{
  constexpr int NP = (K + 1) / 2;
  if constexpr (sizeof(T) == 2) {
#pragma unroll
    for (int i = 0; i < NP; i++)
      sum[i] += w[i];
  } else {
#pragma unroll
    for (int j = 0; j < sgm_warp_chunk<T, K>::NW; j++) {
      sum[2 * j] += __byte_perm(w[j], 0, 0x4140);
      if (2 * j + 1 < NP)
        sum[2 * j + 1] += __byte_perm(w[j], 0, 0x4342);
    }
  }
}

template <int K> __device__ __forceinline__ int v4_half(const uint32_t (&P)[(K + 1) / 2], int k)
{
  return (int)((P[k >> 1] >> (16 * (k & 1))) & 0xffffu);
}

/* The check layout's per-path costs, natural order (only for small cases). */
template <int K>
__device__ __forceinline__ void v4_put_natural(uint16_t *out, int lane,
                                               const uint32_t (&P)[(K + 1) / 2], int D)
{
#pragma unroll
  for (int k = 0; k < K; k++)
    if (lane * K + k < D)
      out[lane * K + k] = (uint16_t)v4_half<K>(P, k);
}

/* Costs of the lane's K disparities at column x as pairs; the x - d < 0 test only where the
 * warp is within D-1 of the left border. */
template <int K>
__device__ __forceinline__ void v4_pair_costs(const int (&c)[K], uint32_t (&C)[(K + 1) / 2])
{
#pragma unroll
  for (int i = 0; i < (K + 1) / 2; i++)
    C[i] = (uint32_t)c[2 * i] | (2 * i + 1 < K ? (uint32_t)c[2 * i + 1] << 16 : 0u);
}

/* A horizontal scan line (path 0 left-right or 1 right-left) of row y, one warp. LAST: the
 * right-left path fused with the sum over the PATHS-1 other paths and the winner-takes-all. */
template <int K, typename T, int R, bool LAST, int PATHS>
__device__ __forceinline__ void v4_row(const sgm_warp_params &p, int y)
{
  constexpr int DIR = sgm_warp_dx(R), DP = 32 * K;
  constexpr int NS = LAST ? PATHS - 1 : 1;
  constexpr int NW = sgm_warp_chunk<T, K>::NW;
  const int lane = threadIdx.x & 31, W = p.w, D = p.D;
  const uint32_t *clr = p.cl + (size_t)y * W, *crr = p.cr + (size_t)y * W;
  const int x0 = DIR > 0 ? 0 : W - 1;
  T *const bufs = (T *)p.buf;
  uint16_t *nat = p.path_out ? p.path_out + (size_t)R * p.h * W * D : nullptr;

  uint32_t win[K]; /* win[k] = right census at x - (lane*K + k) */
#pragma unroll
  for (int k = 0; k < K; k++) {
    int xs = x0 - (lane * K + k);
    win[k] = xs >= 0 ? crr[xs] : 0u;
  }
  constexpr int NP = (K + 1) / 2;
  uint32_t P[NP], pm[NP], mp;
  v4_padmask<K>(pm, lane, D);
  v4_reset<K>(P, mp, pm);
  const uint32_t p1p1 = (uint32_t)p.p1 * 0x10001u, p2 = (uint32_t)p.p2;

  /* census fed 32 pixels at a time: lane j of batch b holds pixel x0 + DIR*(32b + j): its left
   * census and the right census entering the window there (d = 0 for left-right, d = 32K-1
   * for right-left) */
  uint32_t fl_cur, fr_cur, fl_nxt, fr_nxt;
  auto fetch = [&](int b, uint32_t &fl, uint32_t &fr) {
    int pos = x0 + DIR * (32 * b + lane);
    fl = 0;
    fr = 0;
    if (pos >= 0 && pos < W) {
      fl = clr[pos];
      int fi = DIR > 0 ? pos : pos - (DP - 1);
      if (fi >= 0)
        fr = crr[fi];
    }
  };
  fetch(0, fl_cur, fr_cur);
  fetch(1, fl_nxt, fr_nxt);

  /* LAST: the other paths' costs, loaded one pixel ahead */
  uint32_t raw[NS][NW];
  uint32_t osum[NP];
  auto load_others = [&](int x) {
    const size_t pix = ((size_t)y * W + x) * DP;
#pragma unroll
    for (int q = 0; q < NS; q++)
      sgm_warp_load<T, K>(bufs + q * p.slot_elems + pix, lane, raw[q]);
  };
  auto sum_others = [&]() {
#pragma unroll
    for (int i = 0; i < NP; i++)
      osum[i] = 0;
#pragma unroll
    for (int q = 0; q < NS; q++)
      v4_add_raw<T, K>(raw[q], osum);
  };
  if constexpr (LAST) {
    load_others(x0);
    sum_others();
  }

  for (int s = 0; s < W; s++) {
    const int j = s & 31, x = x0 + DIR * s;
    if (j == 0 && s) {
      fl_cur = fl_nxt;
      fr_cur = fr_nxt;
      fetch(s / 32 + 1, fl_nxt, fr_nxt);
    }
    if constexpr (LAST) {
      if (s + 1 < W)
        load_others(x + DIR);
    }
    const uint32_t clv = __shfl_sync(V4_FULL, fl_cur, j);
    const uint32_t crv = __shfl_sync(V4_FULL, fr_cur, j);
    if (s) {
      if constexpr (DIR > 0) {
        uint32_t up = __shfl_up_sync(V4_FULL, win[K - 1], 1);
#pragma unroll
        for (int k = K - 1; k > 0; k--)
          win[k] = win[k - 1];
        win[0] = lane ? up : crv;
      } else {
        uint32_t dn = __shfl_down_sync(V4_FULL, win[0], 1);
#pragma unroll
        for (int k = 0; k + 1 < K; k++)
          win[k] = win[k + 1];
        win[K - 1] = lane < 31 ? dn : crv;
      }
    }
    int c[K];
    if (x >= D - 1) {
#pragma unroll
      for (int k = 0; k < K; k++)
        c[k] = __popc(clv ^ win[k]);
    } else {
#pragma unroll
      for (int k = 0; k < K; k++)
        c[k] = lane * K + k <= x ? __popc(clv ^ win[k]) : SGM_COST_OUTSIDE;
    }
    uint32_t C[NP];
    v4_pair_costs<K>(c, C);
    v4_update<K>(P, C, mp, p1p1, p2, pm, lane);
    const size_t pix = (size_t)y * W + x;
    if (nat)
      v4_put_natural<K>(nat + pix * D, lane, P, D);
    if constexpr (!LAST) {
      uint32_t w[NW];
      v4_pack<T, K>(P, pm, w);
      sgm_warp_store<T, K>(bufs + sgm_warp_slot(R) * p.slot_elems + pix * DP, lane, w);
    } else {
      uint32_t Ssum[NP];
#pragma unroll
      for (int i = 0; i < NP; i++)
        Ssum[i] = P[i] + osum[i];
      unsigned best = 0xffffffffu;
#pragma unroll
      for (int k = 0; k < K; k++)
        if (lane * K + k < D)
          best = min(best, ((unsigned)v4_half<K>(Ssum, k) << 9) | (unsigned)(lane * K + k));
      best = __reduce_min_sync(V4_FULL, best);
      if (lane == 0) {
        p.disp_out[pix] = (uint16_t)(best & 511u);
        if (p.smin_out)
          p.smin_out[pix] = (uint16_t)(best >> 9);
      }
      if (s + 1 < W)
        sum_others();
    }
  }
}

/* Vertical and diagonal paths (R = 2..7): block blk runs 8 adjacent scan lines row by row.
 * Line c holds the pixels x = c + S*y (S = dx*dy); the block's lines are at x = xb(y) + warp. */
template <int K, typename T, int R>
__device__ __forceinline__ void v4_lines(const sgm_warp_params &p, int blk, uint32_t *tile)
{
  typedef sgm_warp_lines<K, R> G;
  constexpr int S = G::S, DP = G::DP, RS = G::RS, WWP = G::WWP, TILE = G::TILE;
  const G g(p, blk);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int W = p.w, H = p.h, D = p.D;
  T *const mybuf = (T *)p.buf + sgm_warp_slot(R) * p.slot_elems;
  uint16_t *nat = p.path_out ? p.path_out + (size_t)R * H * W * D : nullptr;

  constexpr int NP = (K + 1) / 2;
  uint32_t P[NP], pm[NP], mp;
  v4_padmask<K>(pm, lane, D);
  v4_reset<K>(P, mp, pm);
  const uint32_t p1p1 = (uint32_t)p.p1 * 0x10001u, p2 = (uint32_t)p.p2;
  g.stage(p, 0, tile);
  for (int t0 = 0, tb = 0; t0 < g.nsteps; t0 += SGM_WARP_TR, tb ^= 1) {
    uint32_t *cur = tile + tb * TILE;
    g.stage(p, t0 + SGM_WARP_TR, tile + (tb ^ 1) * TILE);
    __pipeline_wait_prior(1);
    __syncthreads();
    for (int row = 0; row < SGM_WARP_TR && t0 + row < g.nsteps; row++) {
      const int t = t0 + row, y = g.y(t), x = g.cb + warp + S * y;
      if (x < 0 || x >= W) { /* this line is not in the image at this row */
        v4_reset<K>(P, mp, pm);
        continue;
      }
      const uint32_t *rowp = cur + row * RS;
      const uint32_t clv = rowp[WWP + warp];
      int c[K];
      if (x >= D - 1) {
#pragma unroll
        for (int k = 0; k < K; k++) {
          const int jj = warp + DP - 1 - (lane * K + k);
          c[k] = __popc(clv ^ rowp[jj + (jj >> 5)]);
        }
      } else {
#pragma unroll
        for (int k = 0; k < K; k++) {
          const int d = lane * K + k, jj = warp + DP - 1 - d;
          c[k] = d <= x ? __popc(clv ^ rowp[jj + (jj >> 5)]) : SGM_COST_OUTSIDE;
        }
      }
      uint32_t C[NP], w[sgm_warp_chunk<T, K>::NW];
      v4_pair_costs<K>(c, C);
      v4_update<K>(P, C, mp, p1p1, p2, pm, lane);
      const size_t pix = (size_t)y * W + x;
      v4_pack<T, K>(P, pm, w);
      sgm_warp_store<T, K>(mybuf + pix * DP, lane, w);
      if (nat)
        v4_put_natural<K>(nat + pix * D, lane, P, D);
    }
    __syncthreads(); /* everyone is done with cur before it is staged again */
  }
}

/* the launcher: the layout's kernels on this variant's scan-line functions */

SGM_WARP_OPS(v4_ops, v4_row, v4_lines);

extern "C" int sgm_v4_packed_dpx_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
                                        void *stream)
{
  return sgm_warp_launch<v4_ops>(a, scratch_bytes, stream);
}
