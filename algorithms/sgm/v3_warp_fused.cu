/* sgm v3_warp_fused (fixed). What v2_padded does with a block of D threads and three barriers per
 * pixel, this does with one warp per scan line and no block reduction at all:
 * - a warp owns a scan line; lane l holds disparities [l*K, l*K + K), K = ceil(D/32) rounded up
 *   to one of 1, 2, 4, 8, 9, 12, 16. Disparities >= D are padding held at "infinity" (2^24): they
 *   never win a minimum and are never stored where anyone reads them. The warp is always whole,
 *   so the shuffles and __reduce_min_sync (the minimum over d, one instruction) are legal for
 *   every D: the v1 bug cannot occur. d-1 and d+1 across lanes: one shfl_up and one shfl_down.
 * - the matching cost is computed on the fly from the census (no cost volume). Horizontal lines
 *   keep the right-census window in registers and slide it by one shuffle per pixel, fed 32
 *   pixels at a time; vertical and diagonal lines are run 8 adjacent lines per block, row by
 *   row, the block staging 8 rows of the right-census window in shared memory with cp.async one
 *   tile ahead (lines that are not in the image at a row just reset).
 * - every path but right-left writes its L (uint8 when 31 + P2 <= 255, else uint16) to its own
 *   buffer, all of them in one launch (so small images still fill the GPU); the right-left path
 *   runs last, reads the others one pixel ahead, adds them to its own L and takes the winner:
 *   no cost-volume and no separate sum pass. Buffers store each lane's K values in "planes" of
 *   16-byte vectors so that every access is a coalesced vector access.
 * Measured (H100 80GB HBM3, CUDA 13.0, tests/test_sgm_bench.c, median of 30): 1920x1080 D=128
 * 8 paths 4.03 ms, 2964x2000 D=256 8 paths 16.5 ms (3.3x faster than v2_padded), D=270 18.8 ms;
 * 640x480 D=64 4 paths 0.46 ms. Instruction-bound: ~29 instructions per cell and path, the
 * multi-path kernel 74% issue-busy with DRAM at 22% (ncu). */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <string.h>

#include "sgm.h"
#include "sgm_common.cuh"

#define V3_WARPS 8 /* scan lines per block */
#define V3_THREADS (V3_WARPS * 32)
#define V3_TR 8 /* rows per shared-memory tile of the line kernels */
#define V3_INF (1 << 24)
#define V3_FULL 0xffffffffu

/* device helpers */

struct v3_params {
  const uint32_t *cl, *cr; /* census, w*h each */
  int w, h, D, p1, p2;
  void *buf;         /* path buffers: slot of path r is r == 0 ? 0 : r - 1 (right-left has none) */
  size_t slot_elems; /* elements per slot: w*h*32K */
  uint16_t *path_out, *disp_out, *smin_out;
  int nseg; /* the multi-path launch: segment i runs path seg_path[i] ... */
  int seg_path[8];
  int seg_end[8]; /* ... on blocks [seg_end[i-1], seg_end[i]) */
};

__host__ __device__ constexpr int v3_dx(int r)
{
  return r == 0 ? 1 : r == 1 ? -1 : r <= 3 ? 0 : r == 4 || r == 7 ? 1 : -1;
}
__host__ __device__ constexpr int v3_dy(int r)
{
  return r <= 1 ? 0 : r == 2 || r == 4 || r == 6 ? 1 : -1;
}
__host__ __device__ constexpr int v3_slot(int r)
{
  return r == 0 ? 0 : r - 1;
}

/* Shared-memory words of one tile row of the line kernels: the right-census window (32K + 8
 * words, one pad word per 32 against bank conflicts) then the 8 left-census words. */
__host__ __device__ constexpr int v3_window_words(int K)
{
  return 32 * K + 8;
}
__host__ __device__ constexpr int v3_row_stride(int K)
{
  return v3_window_words(K) + v3_window_words(K) / 32 + 1 + 8;
}

/* A lane's K values of type T as a little-endian packed image ("raw": element k at byte
 * k*sizeof(T)), and the buffer layout: per pixel 32K elements made of planes, one plane per
 * piece of the lane chunk (pieces: whole 16-byte vectors, then the remainder split into
 * descending powers of two); a plane of piece width P holds lane l's piece at l*P. */
template <typename T, int K> struct v3_chunk {
  static constexpr int VW = 16 / (int)sizeof(T);          /* elements per 16-byte vector */
  static constexpr int NV = K / VW;                       /* whole vectors */
  static constexpr int R = K % VW;                        /* remainder elements */
  static constexpr int NW = (K * (int)sizeof(T) + 3) / 4; /* raw words */
};

template <typename T, int K, int P>
__device__ __forceinline__ void v3_load_piece(const T *pix, int lane,
                                              uint32_t (&w)[v3_chunk<T, K>::NW])
{
  typedef v3_chunk<T, K> C;
  if constexpr (P < C::VW && (C::R & P) != 0) {
    constexpr int start = C::NV * C::VW + (C::R & ~(2 * P - 1));
    constexpr int byte = start * (int)sizeof(T), bytes = P * (int)sizeof(T);
    const T *src = pix + 32 * start + lane * P;
    if constexpr (bytes == 8) {
      uint2 q = *reinterpret_cast<const uint2 *>(src);
      w[byte / 4] = q.x;
      w[byte / 4 + 1] = q.y;
    } else if constexpr (bytes == 4) {
      w[byte / 4] = *reinterpret_cast<const uint32_t *>(src);
    } else {
      uint32_t v = bytes == 2 ? static_cast<uint32_t>(*reinterpret_cast<const uint16_t *>(src))
                              : static_cast<uint32_t>(*reinterpret_cast<const uint8_t *>(src));
      if constexpr (byte % 4 == 0)
        w[byte / 4] = v;
      else
        w[byte / 4] |= v << (8 * (byte % 4));
    }
  }
}

template <typename T, int K>
__device__ __forceinline__ void v3_load(const T *pix, int lane, uint32_t (&w)[v3_chunk<T, K>::NW])
{
  typedef v3_chunk<T, K> C;
#pragma unroll
  for (int v = 0; v < C::NV; v++) {
    uint4 q = *reinterpret_cast<const uint4 *>(pix + 32 * (v * C::VW) + lane * C::VW);
    w[4 * v] = q.x;
    w[4 * v + 1] = q.y;
    w[4 * v + 2] = q.z;
    w[4 * v + 3] = q.w;
  }
  v3_load_piece<T, K, 8>(pix, lane, w);
  v3_load_piece<T, K, 4>(pix, lane, w);
  v3_load_piece<T, K, 2>(pix, lane, w);
  v3_load_piece<T, K, 1>(pix, lane, w);
}

template <typename T, int K, int P>
__device__ __forceinline__ void v3_store_piece(T *pix, int lane,
                                               const uint32_t (&w)[v3_chunk<T, K>::NW])
{
  typedef v3_chunk<T, K> C;
  if constexpr (P < C::VW && (C::R & P) != 0) {
    constexpr int start = C::NV * C::VW + (C::R & ~(2 * P - 1));
    constexpr int byte = start * (int)sizeof(T), bytes = P * (int)sizeof(T);
    T *dst = pix + 32 * start + lane * P;
    if constexpr (bytes == 8) {
      *reinterpret_cast<uint2 *>(dst) = make_uint2(w[byte / 4], w[byte / 4 + 1]);
    } else if constexpr (bytes == 4) {
      *reinterpret_cast<uint32_t *>(dst) = w[byte / 4];
    } else {
      uint32_t v = w[byte / 4] >> (8 * (byte % 4));
      if constexpr (bytes == 2)
        *reinterpret_cast<uint16_t *>(dst) = (uint16_t)v;
      else
        *reinterpret_cast<uint8_t *>(dst) = (uint8_t)v;
    }
  }
}

template <typename T, int K>
__device__ __forceinline__ void v3_store(T *pix, int lane, const uint32_t (&w)[v3_chunk<T, K>::NW])
{
  typedef v3_chunk<T, K> C;
#pragma unroll
  for (int v = 0; v < C::NV; v++)
    *reinterpret_cast<uint4 *>(pix + 32 * (v * C::VW) + lane * C::VW) =
        make_uint4(w[4 * v], w[4 * v + 1], w[4 * v + 2], w[4 * v + 3]);
  v3_store_piece<T, K, 8>(pix, lane, w);
  v3_store_piece<T, K, 4>(pix, lane, w);
  v3_store_piece<T, K, 2>(pix, lane, w);
  v3_store_piece<T, K, 1>(pix, lane, w);
}

/* element k of a raw chunk */
template <typename T, int K>
__device__ __forceinline__ int v3_elem(const uint32_t (&w)[v3_chunk<T, K>::NW], int k)
{
  const int byte = k * (int)sizeof(T);
  return (int)((w[byte / 4] >> (8 * (byte % 4))) & (sizeof(T) == 1 ? 0xffu : 0xffffu));
}

/* Pack a lane's L values (padding stored as 0) and store them at pixel pix. */
template <typename T, int K>
__device__ __forceinline__ void v3_put(T *pix, int lane, const int (&L)[K], int D)
{
  uint32_t w[v3_chunk<T, K>::NW];
#pragma unroll
  for (int i = 0; i < v3_chunk<T, K>::NW; i++)
    w[i] = 0;
#pragma unroll
  for (int k = 0; k < K; k++) {
    const int byte = k * (int)sizeof(T);
    uint32_t v = lane * K + k < D ? (uint32_t)L[k] : 0u;
    w[byte / 4] |= v << (8 * (byte % 4));
  }
  v3_store<T, K>(pix, lane, w);
}

/* One step of the recurrence for the lane's K disparities: Lp (the previous pixel's L, padding
 * at V3_INF) becomes this pixel's L from costs c; mp is the minimum of Lp over d on entry and of
 * the new L on return. The first pixel of a line is this with Lp = 0, mp = 0 (gives L = C). */
template <int K>
__device__ __forceinline__ void v3_update(int (&Lp)[K], const int (&c)[K], int &mp, int p1, int p2,
                                          int lane, int D)
{
  int left = __shfl_up_sync(V3_FULL, Lp[K - 1], 1);
  int right = __shfl_down_sync(V3_FULL, Lp[0], 1);
  if (lane == 0)
    left = V3_INF;
  if (lane == 31)
    right = V3_INF;
  const int cap = mp + p2;
  int lmin = V3_INF, L[K];
#pragma unroll
  for (int k = 0; k < K; k++) {
    int lo = k ? Lp[k - 1] : left;
    int hi = k + 1 < K ? Lp[k + 1] : right;
    int t = min(min(Lp[k], cap), min(lo, hi) + p1);
    int v = lane * K + k < D ? c[k] + t - mp : V3_INF;
    L[k] = v;
    lmin = min(lmin, v);
  }
#pragma unroll
  for (int k = 0; k < K; k++)
    Lp[k] = L[k];
  mp = (int)__reduce_min_sync(V3_FULL, (unsigned)lmin);
}

template <int K> __device__ __forceinline__ void v3_reset(int (&Lp)[K], int &mp, int lane, int D)
{
#pragma unroll
  for (int k = 0; k < K; k++)
    Lp[k] = lane * K + k < D ? 0 : V3_INF;
  mp = 0;
}

/* The check layout's per-path costs, natural order (only for small cases). */
template <int K>
__device__ __forceinline__ void v3_put_natural(uint16_t *out, int lane, const int (&L)[K], int D)
{
#pragma unroll
  for (int k = 0; k < K; k++)
    if (lane * K + k < D)
      out[lane * K + k] = (uint16_t)L[k];
}

/* A horizontal scan line (path 0 left-right or 1 right-left) of row y, one warp. LAST: the
 * right-left path fused with the sum over the PATHS-1 other paths and the winner-takes-all. */
template <int K, typename T, int R, bool LAST, int PATHS>
__device__ __forceinline__ void v3_row(const v3_params &p, int y)
{
  constexpr int DIR = v3_dx(R), DP = 32 * K;
  constexpr int NS = LAST ? PATHS - 1 : 1;
  constexpr int NW = v3_chunk<T, K>::NW;
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
  int Lp[K], mp;
  v3_reset<K>(Lp, mp, lane, D);

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
  int osum[K];
  auto load_others = [&](int x) {
    const size_t pix = ((size_t)y * W + x) * DP;
#pragma unroll
    for (int q = 0; q < NS; q++)
      v3_load<T, K>(bufs + q * p.slot_elems + pix, lane, raw[q]);
  };
  auto sum_others = [&]() {
#pragma unroll
    for (int k = 0; k < K; k++) {
      int s = 0;
#pragma unroll
      for (int q = 0; q < NS; q++)
        s += v3_elem<T, K>(raw[q], k);
      osum[k] = s;
    }
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
    const uint32_t clv = __shfl_sync(V3_FULL, fl_cur, j);
    const uint32_t crv = __shfl_sync(V3_FULL, fr_cur, j);
    if (s) {
      if constexpr (DIR > 0) {
        uint32_t up = __shfl_up_sync(V3_FULL, win[K - 1], 1);
#pragma unroll
        for (int k = K - 1; k > 0; k--)
          win[k] = win[k - 1];
        win[0] = lane ? up : crv;
      } else {
        uint32_t dn = __shfl_down_sync(V3_FULL, win[0], 1);
#pragma unroll
        for (int k = 0; k + 1 < K; k++)
          win[k] = win[k + 1];
        win[K - 1] = lane < 31 ? dn : crv;
      }
    }
    int c[K];
#pragma unroll
    for (int k = 0; k < K; k++)
      c[k] = lane * K + k <= x ? __popc(clv ^ win[k]) : SGM_COST_OUTSIDE;
    v3_update<K>(Lp, c, mp, p.p1, p.p2, lane, D);
    const size_t pix = (size_t)y * W + x;
    if (nat)
      v3_put_natural<K>(nat + pix * D, lane, Lp, D);
    if constexpr (!LAST) {
      v3_put<T, K>(bufs + v3_slot(R) * p.slot_elems + pix * DP, lane, Lp, D);
    } else {
      unsigned best = 0xffffffffu;
#pragma unroll
      for (int k = 0; k < K; k++)
        if (lane * K + k < D)
          best = min(best, ((unsigned)(Lp[k] + osum[k]) << 9) | (unsigned)(lane * K + k));
      best = __reduce_min_sync(V3_FULL, best);
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
__device__ __forceinline__ void v3_lines(const v3_params &p, int blk, uint32_t *tile)
{
  constexpr int DX = v3_dx(R), DY = v3_dy(R), S = DX * DY, DP = 32 * K;
  constexpr int WW = v3_window_words(K), RS = v3_row_stride(K), WWP = RS - 8;
  constexpr int TILE = V3_TR * RS, ROW_LOAD = WW + 8;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int W = p.w, H = p.h, D = p.D;
  const int cb = (S > 0 ? -(H - 1) : 0) + blk * V3_WARPS; /* the block's first line */
  int ylo = 0, yhi = H - 1; /* rows where any of the block's lines is in the image */
  if (S > 0) {
    ylo = max(0, -(cb + V3_WARPS - 1));
    yhi = min(H - 1, W - 1 - cb);
  } else if (S < 0) {
    ylo = max(0, cb - (W - 1));
    yhi = min(H - 1, cb + V3_WARPS - 1);
  }
  const int nsteps = yhi - ylo + 1;
  T *const mybuf = (T *)p.buf + v3_slot(R) * p.slot_elems;
  uint16_t *nat = p.path_out ? p.path_out + (size_t)R * H * W * D : nullptr;

  /* stage the rows of steps t0 .. t0+V3_TR-1: window x in [xb - (DP-1), xb + 8] of the right
   * census (positions outside the image as 0), then the left census at xb .. xb+7 */
  auto stage = [&](int t0, uint32_t *buf) {
    for (int i = threadIdx.x; i < V3_TR * ROW_LOAD; i += V3_THREADS) {
      int row = i / ROW_LOAD, j = i - row * ROW_LOAD, t = t0 + row;
      if (t >= nsteps)
        break;
      int y = DY > 0 ? ylo + t : yhi - t, xb = cb + S * y, x;
      const uint32_t *src;
      uint32_t *dst;
      if (j < WW) {
        x = xb - (DP - 1) + j;
        src = p.cr;
        dst = buf + row * RS + j + (j >> 5);
      } else {
        x = xb + (j - WW);
        src = p.cl;
        dst = buf + row * RS + WWP + (j - WW);
      }
      if (x >= 0 && x < W)
        __pipeline_memcpy_async(dst, src + (size_t)y * W + x, 4);
      else
        *dst = 0;
    }
    __pipeline_commit();
  };

  int Lp[K], mp;
  v3_reset<K>(Lp, mp, lane, D);
  stage(0, tile);
  for (int t0 = 0, tb = 0; t0 < nsteps; t0 += V3_TR, tb ^= 1) {
    uint32_t *cur = tile + tb * TILE;
    stage(t0 + V3_TR, tile + (tb ^ 1) * TILE);
    __pipeline_wait_prior(1);
    __syncthreads();
    for (int row = 0; row < V3_TR && t0 + row < nsteps; row++) {
      const int t = t0 + row, y = DY > 0 ? ylo + t : yhi - t, x = cb + warp + S * y;
      if (x < 0 || x >= W) { /* this line is not in the image at this row */
        v3_reset<K>(Lp, mp, lane, D);
        continue;
      }
      const uint32_t *rowp = cur + row * RS;
      const uint32_t clv = rowp[WWP + warp];
      int c[K];
#pragma unroll
      for (int k = 0; k < K; k++) {
        const int d = lane * K + k, jj = warp + DP - 1 - d;
        c[k] = d <= x ? __popc(clv ^ rowp[jj + (jj >> 5)]) : SGM_COST_OUTSIDE;
      }
      v3_update<K>(Lp, c, mp, p.p1, p.p2, lane, D);
      const size_t pix = (size_t)y * W + x;
      v3_put<T, K>(mybuf + pix * DP, lane, Lp, D);
      if (nat)
        v3_put_natural<K>(nat + pix * D, lane, Lp, D);
    }
    __syncthreads(); /* everyone is done with cur before it is staged again */
  }
}

/* kernels */

/* Every path but right-left, each block on one segment (one path) of the grid. */
template <int K, typename T>
static __global__ void __launch_bounds__(V3_THREADS) v3_paths_kernel(const v3_params p)
{
  extern __shared__ uint32_t v3_tile[];
  int seg = 0;
  while (seg + 1 < p.nseg && (int)blockIdx.x >= p.seg_end[seg])
    seg++;
  const int blk = (int)blockIdx.x - (seg ? p.seg_end[seg - 1] : 0);
  switch (p.seg_path[seg]) {
  case 0: {
    int y = blk * V3_WARPS + (int)(threadIdx.x >> 5);
    if (y < p.h)
      v3_row<K, T, 0, false, 0>(p, y);
    break;
  }
  case 2: v3_lines<K, T, 2>(p, blk, v3_tile); break;
  case 3: v3_lines<K, T, 3>(p, blk, v3_tile); break;
  case 4: v3_lines<K, T, 4>(p, blk, v3_tile); break;
  case 5: v3_lines<K, T, 5>(p, blk, v3_tile); break;
  case 6: v3_lines<K, T, 6>(p, blk, v3_tile); break;
  case 7: v3_lines<K, T, 7>(p, blk, v3_tile); break;
  default: break;
  }
}

/* The right-left path, the sum over all paths and the winner-takes-all. */
template <int K, typename T, int PATHS>
static __global__ void __launch_bounds__(V3_THREADS) v3_last_kernel(const v3_params p)
{
  int y = (int)blockIdx.x * V3_WARPS + (int)(threadIdx.x >> 5);
  if (y < p.h)
    v3_row<K, T, 1, true, PATHS>(p, y);
}

/* launcher */

template <int K, typename T>
static void v3_enqueue(const v3_params &p, int paths, int blocks, cudaStream_t stream)
{
  size_t smem = 2 * V3_TR * v3_row_stride(K) * sizeof(uint32_t);
  v3_paths_kernel<K, T><<<blocks, V3_THREADS, smem, stream>>>(p);
  GR_CUDA_LAUNCH_CHECK();
  int rows = (p.h + V3_WARPS - 1) / V3_WARPS;
  if (paths == 8)
    v3_last_kernel<K, T, 8><<<rows, V3_THREADS, 0, stream>>>(p);
  else
    v3_last_kernel<K, T, 4><<<rows, V3_THREADS, 0, stream>>>(p);
  GR_CUDA_LAUNCH_CHECK();
}

template <typename T>
static void v3_enqueue_k(int K, const v3_params &p, int paths, int blocks, cudaStream_t stream)
{
  switch (K) {
  case 1: v3_enqueue<1, T>(p, paths, blocks, stream); break;
  case 2: v3_enqueue<2, T>(p, paths, blocks, stream); break;
  case 4: v3_enqueue<4, T>(p, paths, blocks, stream); break;
  case 8: v3_enqueue<8, T>(p, paths, blocks, stream); break;
  case 9: v3_enqueue<9, T>(p, paths, blocks, stream); break;
  case 12: v3_enqueue<12, T>(p, paths, blocks, stream); break;
  default: v3_enqueue<16, T>(p, paths, blocks, stream); break;
  }
}

/* Disparities per lane for D: the smallest instantiated K with 32K >= D. */
static int v3_pick_k(int D)
{
  static const int ks[] = {1, 2, 4, 8, 9, 12, 16};
  for (int i = 0; i < 7; i++)
    if (32 * ks[i] >= D)
      return ks[i];
  return 16;
}

extern "C" int sgm_v3_warp_fused_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
                                        void *stream)
{
  if (a->disp > 512 || (a->paths != 4 && a->paths != 8))
    return 1;
  const int K = v3_pick_k(a->disp), wide = SGM_COST_MAX + a->p2 > 255;
  const size_t n = (size_t)a->width * a->height, esize = wide ? 2 : 1;
  const size_t slot_elems = n * 32 * K;
  const size_t census = sgm_align256(n * sizeof(uint32_t)), slot = sgm_align256(slot_elems * esize);
  const size_t need = 2 * census + (size_t)(a->paths - 1) * slot;
  if (!a->scratch) {
    *scratch_bytes = need;
    return 0;
  }
  v3_params p;
  memset(&p, 0, sizeof p);
  char *base = (char *)a->scratch;
  p.cl = (const uint32_t *)base;
  p.cr = (const uint32_t *)(base + census);
  p.w = a->width;
  p.h = a->height;
  p.D = a->disp;
  p.p1 = a->p1;
  p.p2 = a->p2;
  p.buf = base + 2 * census;
  p.slot_elems = slot / esize; /* the aligned slot, in elements */
  p.path_out = a->path_out;
  p.disp_out = a->disp_out;
  p.smin_out = a->smin_out;
  /* segments: diagonals (the most blocks) first, then vertical, then left-right */
  static const int order8[] = {4, 5, 6, 7, 2, 3, 0}, order4[] = {2, 3, 0};
  const int *order = a->paths == 8 ? order8 : order4;
  int blocks = 0;
  p.nseg = a->paths - 1;
  for (int i = 0; i < p.nseg; i++) {
    int r = order[i], lines = v3_dy(r) == 0   ? a->height
                              : v3_dx(r) == 0 ? a->width
                                              : a->width + a->height - 1;
    blocks += (lines + V3_WARPS - 1) / V3_WARPS;
    p.seg_path[i] = r;
    p.seg_end[i] = blocks;
  }
  cudaStream_t st = (cudaStream_t)stream;
  sgm_census_launch(a->left, a->right, a->width, a->height, (uint32_t *)p.cl, (uint32_t *)p.cr, st);
  if (wide)
    v3_enqueue_k<uint16_t>(K, p, a->paths, blocks, st);
  else
    v3_enqueue_k<uint8_t>(K, p, a->paths, blocks, st);
  return 0;
}
