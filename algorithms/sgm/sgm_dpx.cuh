/* The v4 recurrence (sgm v4_packed_dpx, v5_prefetch_wta): the dynamic-programming step on pairs
 * of disparities packed in the 16-bit halves of one register (Hopper's 16x2 min/add, DPX), the
 * horizontal-line function (row: path 0 or 1, LAST: right-left fused with the sum over the other
 * paths and the winner-takes-all) and the line-block function (paths 2..7) of the layout in
 * sgm_warp.cuh. The design and its measurements: v4_packed_dpx.cu; what v5 changes: v5_*.cu.
 * PF (row only): in the LAST row, how many pixels ahead the other paths' costs are loaded, a
 * register ring of PF slots (1: one pixel ahead, v4's order of loads and sums). Moving v4's row
 * here changed its last kernels' registers by -5..+5 (one case +21: K = 16, 16-bit, 4 paths;
 * ptxas, no spill anywhere): the bench of the next GPU session re-times v4 beside v5. */
#pragma once

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

/* Two pieces of a horizontal line's step for v6's last kernel. v4_row_pf below keeps its own
 * copies: calling these from it changed v5's machine code (ptxas: a different cubin), and v4's
 * and v5's code stays as their history measured it. */

/* The costs of a horizontal line's step as pairs: the lane's K disparities at column x against
 * the window win (win[k] = right census at x - (lane*K + k)); past_border: x >= D-1 (every d
 * has a pixel to match), else d > x costs SGM_COST_OUTSIDE. */
template <int K>
__device__ __forceinline__ void v4_window_costs(uint32_t clv, const uint32_t (&win)[K], int lane,
                                                int x, bool past_border, uint32_t (&C)[(K + 1) / 2])
{
  int c[K];
  if (past_border) {
#pragma unroll
    for (int k = 0; k < K; k++)
      c[k] = __popc(clv ^ win[k]);
  } else {
#pragma unroll
    for (int k = 0; k < K; k++)
      c[k] = lane * K + k <= x ? __popc(clv ^ win[k]) : SGM_COST_OUTSIDE;
  }
  v4_pair_costs<K>(c, C);
}

/* The sum over all paths and the winner-takes-all at pixel pix: this path's L (P) plus the other
 * paths' sum (osum, packed alike; halves stay below 2^16: (31 + P2) * paths <= 65535, padding
 * 0x7fff + 0); the lowest d of the least sum, its sum, written by lane 0. */
template <int K>
__device__ __forceinline__ void v4_wta(const sgm_warp_params &p, size_t pix,
                                       const uint32_t (&P)[(K + 1) / 2],
                                       const uint32_t (&osum)[(K + 1) / 2], int lane, int D)
{
  constexpr int NP = (K + 1) / 2;
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
}

/* A horizontal scan line (path 0 left-right or 1 right-left) of row y, one warp. LAST: the
 * right-left path fused with the sum over the PATHS-1 other paths and the winner-takes-all, the
 * other paths' costs loaded PF pixels ahead into a ring of registers (slot s % PF holds pixel s
 * until its step, then takes pixel s + PF: the loop is unrolled by PF so every slot index is a
 * constant). */
template <int K, typename T, int R, bool LAST, int PATHS, int PF>
__device__ __forceinline__ void v4_row_pf(const sgm_warp_params &p, int y)
{
  static_assert(PF >= 1 && (LAST || PF == 1), "a prefetch ring only where other paths are read");
  constexpr int DIR = sgm_warp_dx(R), DP = 32 * K;
  constexpr int NS = LAST ? PATHS - 1 : 1;
  constexpr int NW = sgm_warp_chunk<T, K>::NW;
  const int lane = threadIdx.x & 31, W = p.w, D = p.D;
  const uint32_t *clr = p.cl + (size_t)y * W, *crr = p.cr + (size_t)y * W;
  const int x0 = DIR > 0 ? 0 : W - 1;
  T *const bufs = (T *)p.buf;
  uint16_t *nat = p.path_out ? p.path_out + (size_t)R * p.h * W * D : nullptr;

  uint32_t win[K]; /* win[k] = right census at x - (lane*K + k) */
  sgm_warp_window_init<K>(win, crr, x0, lane);
  constexpr int NP = (K + 1) / 2;
  uint32_t P[NP], pm[NP], mp;
  v4_padmask<K>(pm, lane, D);
  v4_reset<K>(P, mp, pm);
  const uint32_t p1p1 = (uint32_t)p.p1 * 0x10001u, p2 = (uint32_t)p.p2;

  sgm_warp_census<K, DIR> cen(clr, crr, x0, W, lane);

  /* LAST: the other paths' costs of step s in ring slot s % PF; osum their sum at this step.
   * PF == 1 keeps v4's order: the next pixel loaded at the start of a step, summed at its end. */
  uint32_t raw[PF][NS][NW];
  uint32_t osum[NP];
  auto load_others = [&](int x, uint32_t (&dst)[NS][NW]) {
    const size_t pix = ((size_t)y * W + x) * DP;
#pragma unroll
    for (int q = 0; q < NS; q++)
      sgm_warp_load<T, K>(bufs + q * p.slot_elems + pix, lane, dst[q]);
  };
  auto sum_others = [&](const uint32_t (&src)[NS][NW]) {
#pragma unroll
    for (int i = 0; i < NP; i++)
      osum[i] = 0;
#pragma unroll
    for (int q = 0; q < NS; q++)
      v4_add_raw<T, K>(src[q], osum);
  };
  if constexpr (LAST) {
#pragma unroll
    for (int u = 0; u < PF; u++)
      if (u < W)
        load_others(x0 + DIR * u, raw[u]);
    if constexpr (PF == 1)
      sum_others(raw[0]);
  }

  /* step s of the line; u = s % PF, a constant once the ring's loop is unrolled */
  auto step = [&](const int s, const int u) {
    const int x = x0 + DIR * s;
    if constexpr (LAST && PF > 1) {
      sum_others(raw[u]);
      if (s + PF < W)
        load_others(x + DIR * PF, raw[u]);
    }
    cen.advance(s);
    if constexpr (LAST && PF == 1) {
      if (s + 1 < W)
        load_others(x + DIR, raw[0]);
    }
    const uint32_t clv = cen.left(s), crv = cen.right(s);
    if (s)
      sgm_warp_window_slide<K, DIR>(win, crv, lane);
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
      if constexpr (PF == 1) {
        if (s + 1 < W)
          sum_others(raw[0]);
      }
    }
  };
  if constexpr (PF == 1) {
    for (int s = 0; s < W; s++)
      step(s, 0);
  } else {
    for (int s0 = 0; s0 < W; s0 += PF) {
#pragma unroll
      for (int u = 0; u < PF; u++)
        if (s0 + u < W)
          step(s0 + u, u);
    }
  }
}

/* v4's row: the other paths one pixel ahead */
template <int K, typename T, int R, bool LAST, int PATHS>
__device__ __forceinline__ void v4_row(const sgm_warp_params &p, int y)
{
  v4_row_pf<K, T, R, LAST, PATHS, 1>(p, y);
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
