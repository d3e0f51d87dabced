/* What sgm v3_warp_fused and v4_packed_dpx share: the layout (a warp per scan line, 8 lines per
 * block; every path but right-left writes its L to its own slot of the path buffers, each lane's
 * K values in planes of 16-byte vectors), the staging of the line kernels, the two kernels and
 * the host launcher (scratch layout, segment order, the instantiations over K and the element
 * type). The variants differ in the dynamic-programming step only: each gives its horizontal-line
 * and line-block device functions through an Ops type:
 *   Ops::row<K, T, R, LAST, PATHS>(p, y)   path R = 0 or 1 on row y (LAST: right-left + sum + WTA)
 *   Ops::lines<K, T, R>(p, blk, tile)      paths R = 2..7, block blk (sgm_warp_lines below)
 * (SGM_WARP_OPS makes one) and its launcher is sgm_warp_launch<Ops> (v5 enqueues its own last
 * kernel after sgm_warp_prepare). */
#pragma once

#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <string.h>

#include <type_traits>

#include "sgm.h"
#include "sgm_common.cuh"

#define SGM_WARP_WARPS 8 /* scan lines per block */
#define SGM_WARP_THREADS (SGM_WARP_WARPS * 32)
#define SGM_WARP_TR 8 /* rows per shared-memory tile of the line kernels */

struct sgm_warp_params {
  const uint32_t *cl, *cr; /* census, w*h each */
  int w, h, D, p1, p2;
  void *buf;         /* path buffers: slot of path r is r == 0 ? 0 : r - 1 (right-left has none) */
  size_t slot_elems; /* elements per slot: w*h*32K */
  uint16_t *path_out, *disp_out, *smin_out;
  int nseg; /* the multi-path launch: segment i runs path seg_path[i] ... */
  int seg_path[8];
  int seg_end[8]; /* ... on blocks [seg_end[i-1], seg_end[i]) */
};

__host__ __device__ constexpr int sgm_warp_dx(int r)
{
  return r == 0 ? 1 : r == 1 ? -1 : r <= 3 ? 0 : r == 4 || r == 7 ? 1 : -1;
}
__host__ __device__ constexpr int sgm_warp_dy(int r)
{
  return r <= 1 ? 0 : r == 2 || r == 4 || r == 6 ? 1 : -1;
}
__host__ __device__ constexpr int sgm_warp_slot(int r)
{
  return r == 0 ? 0 : r - 1;
}

/* Shared-memory words of one tile row of the line kernels: the right-census window (32K + 8
 * words, one pad word per 32 against bank conflicts) then the 8 left-census words. */
__host__ __device__ constexpr int sgm_warp_window_words(int K)
{
  return 32 * K + 8;
}
__host__ __device__ constexpr int sgm_warp_row_stride(int K)
{
  return sgm_warp_window_words(K) + sgm_warp_window_words(K) / 32 + 1 + 8;
}

/* A lane's K values of type T as a little-endian packed image ("raw": element k at byte
 * k*sizeof(T)), and the buffer layout: per pixel 32K elements made of planes, one plane per
 * piece of the lane chunk (pieces: whole 16-byte vectors, then the remainder split into
 * descending powers of two); a plane of piece width P holds lane l's piece at l*P. */
template <typename T, int K> struct sgm_warp_chunk {
  static constexpr int VW = 16 / (int)sizeof(T);          /* elements per 16-byte vector */
  static constexpr int NV = K / VW;                       /* whole vectors */
  static constexpr int R = K % VW;                        /* remainder elements */
  static constexpr int NW = (K * (int)sizeof(T) + 3) / 4; /* raw words */
};

template <typename T, int K, int P>
__device__ __forceinline__ void sgm_warp_load_piece(const T *pix, int lane,
                                                    uint32_t (&w)[sgm_warp_chunk<T, K>::NW])
{
  typedef sgm_warp_chunk<T, K> C;
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
__device__ __forceinline__ void sgm_warp_load(const T *pix, int lane,
                                              uint32_t (&w)[sgm_warp_chunk<T, K>::NW])
{
  typedef sgm_warp_chunk<T, K> C;
#pragma unroll
  for (int v = 0; v < C::NV; v++) {
    uint4 q = *reinterpret_cast<const uint4 *>(pix + 32 * (v * C::VW) + lane * C::VW);
    w[4 * v] = q.x;
    w[4 * v + 1] = q.y;
    w[4 * v + 2] = q.z;
    w[4 * v + 3] = q.w;
  }
  sgm_warp_load_piece<T, K, 8>(pix, lane, w);
  sgm_warp_load_piece<T, K, 4>(pix, lane, w);
  sgm_warp_load_piece<T, K, 2>(pix, lane, w);
  sgm_warp_load_piece<T, K, 1>(pix, lane, w);
}

template <typename T, int K, int P>
__device__ __forceinline__ void sgm_warp_store_piece(T *pix, int lane,
                                                     const uint32_t (&w)[sgm_warp_chunk<T, K>::NW])
{
  typedef sgm_warp_chunk<T, K> C;
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
__device__ __forceinline__ void sgm_warp_store(T *pix, int lane,
                                               const uint32_t (&w)[sgm_warp_chunk<T, K>::NW])
{
  typedef sgm_warp_chunk<T, K> C;
#pragma unroll
  for (int v = 0; v < C::NV; v++)
    *reinterpret_cast<uint4 *>(pix + 32 * (v * C::VW) + lane * C::VW) =
        make_uint4(w[4 * v], w[4 * v + 1], w[4 * v + 2], w[4 * v + 3]);
  sgm_warp_store_piece<T, K, 8>(pix, lane, w);
  sgm_warp_store_piece<T, K, 4>(pix, lane, w);
  sgm_warp_store_piece<T, K, 2>(pix, lane, w);
  sgm_warp_store_piece<T, K, 1>(pix, lane, w);
}

/* The census a horizontal line's warp reads, 32 pixels at a time: lane j of batch b holds pixel
 * x0 + DIR*(32b + j), its left census and the right census entering the window there (d = 0 for
 * left-right, d = 32K-1 for right-left); the next batch is loaded while this one is used. */
template <int K, int DIR> struct sgm_warp_census {
  const uint32_t *clr, *crr;
  int x0, w, lane;
  uint32_t fl_cur, fr_cur, fl_nxt, fr_nxt;

  __device__ __forceinline__ void fetch(int b, uint32_t &fl, uint32_t &fr) const
  {
    int pos = x0 + DIR * (32 * b + lane);
    fl = 0;
    fr = 0;
    if (pos >= 0 && pos < w) {
      fl = clr[pos];
      int fi = DIR > 0 ? pos : pos - (32 * K - 1);
      if (fi >= 0)
        fr = crr[fi];
    }
  }
  __device__ __forceinline__ sgm_warp_census(const uint32_t *l, const uint32_t *r, int x, int w_,
                                             int ln)
      : clr(l), crr(r), x0(x), w(w_), lane(ln)
  {
    fetch(0, fl_cur, fr_cur);
    fetch(1, fl_nxt, fr_nxt);
  }
  /* at step s of the line: a new batch every 32 steps */
  __device__ __forceinline__ void advance(int s)
  {
    if ((s & 31) == 0 && s) {
      fl_cur = fl_nxt;
      fr_cur = fr_nxt;
      fetch(s / 32 + 1, fl_nxt, fr_nxt);
    }
  }
  /* step s's left census and the right census entering the window, in every lane */
  __device__ __forceinline__ uint32_t left(int s) const
  {
    return __shfl_sync(0xffffffffu, fl_cur, s & 31);
  }
  __device__ __forceinline__ uint32_t right(int s) const
  {
    return __shfl_sync(0xffffffffu, fr_cur, s & 31);
  }
};

/* The right image's census words a horizontal line's warp compares with at its first pixel x0:
 * lane l holds disparities l*K .. l*K + K-1, win[k] = right census at x0 - (l*K + k), 0 left of
 * the image. */
template <int K>
__device__ __forceinline__ void sgm_warp_window_init(uint32_t (&win)[K], const uint32_t *crr,
                                                     int x0, int lane)
{
#pragma unroll
  for (int k = 0; k < K; k++) {
    int xs = x0 - (lane * K + k);
    win[k] = xs >= 0 ? crr[xs] : 0u;
  }
}

/* The window one pixel further along DIR: every disparity's word moves to the next one (across
 * lanes at the edges), and disparity 0 (DIR > 0: lane 0; DIR < 0: the window runs the other way,
 * lane 31's last) takes crv, the right census at the new pixel. */
template <int K, int DIR>
__device__ __forceinline__ void sgm_warp_window_slide(uint32_t (&win)[K], uint32_t crv, int lane)
{
  if constexpr (DIR > 0) {
    uint32_t up = __shfl_up_sync(0xffffffffu, win[K - 1], 1);
#pragma unroll
    for (int k = K - 1; k > 0; k--)
      win[k] = win[k - 1];
    win[0] = lane ? up : crv;
  } else {
    uint32_t dn = __shfl_down_sync(0xffffffffu, win[0], 1);
#pragma unroll
    for (int k = 0; k + 1 < K; k++)
      win[k] = win[k + 1];
    win[K - 1] = lane < 31 ? dn : crv;
  }
}

/* A block of the line kernels (R = 2..7: vertical and diagonal paths) runs 8 adjacent scan lines
 * row by row. Line c holds the pixels x = c + S*y (S = dx*dy); the block's lines are at
 * x = cb + S*y + warp. Rows ylo..yhi are those where any of them is in the image, walked in the
 * path's direction: step t is row y(t). */
template <int K, int R> struct sgm_warp_lines {
  static constexpr int DX = sgm_warp_dx(R), DY = sgm_warp_dy(R), S = DX * DY, DP = 32 * K;
  static constexpr int WW = sgm_warp_window_words(K), RS = sgm_warp_row_stride(K), WWP = RS - 8;
  static constexpr int TILE = SGM_WARP_TR * RS, ROW_LOAD = WW + 8;
  int cb, ylo, yhi, nsteps;

  __device__ __forceinline__ sgm_warp_lines(const sgm_warp_params &p, int blk)
  {
    const int W = p.w, H = p.h;
    cb = (S > 0 ? -(H - 1) : 0) + blk * SGM_WARP_WARPS; /* the block's first line */
    ylo = 0;
    yhi = H - 1;
    if (S > 0) {
      ylo = max(0, -(cb + SGM_WARP_WARPS - 1));
      yhi = min(H - 1, W - 1 - cb);
    } else if (S < 0) {
      ylo = max(0, cb - (W - 1));
      yhi = min(H - 1, cb + SGM_WARP_WARPS - 1);
    }
    nsteps = yhi - ylo + 1;
  }

  __device__ __forceinline__ int y(int t) const { return DY > 0 ? ylo + t : yhi - t; }

  /* Stage the rows of steps t0 .. t0+SGM_WARP_TR-1 into buf (one commit group): window x in
   * [xb - (DP-1), xb + 8] of the right census (positions outside the image as 0), then the left
   * census at xb .. xb+7. */
  __device__ __forceinline__ void stage(const sgm_warp_params &p, int t0, uint32_t *buf) const
  {
    const int W = p.w;
    for (int i = threadIdx.x; i < SGM_WARP_TR * ROW_LOAD; i += SGM_WARP_THREADS) {
      int row = i / ROW_LOAD, j = i - row * ROW_LOAD, t = t0 + row;
      if (t >= nsteps)
        break;
      int yy = y(t), xb = cb + S * yy, x;
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
        __pipeline_memcpy_async(dst, src + (size_t)yy * W + x, 4);
      else
        *dst = 0;
    }
    __pipeline_commit();
  }
};

/* The Ops type of a variant whose scan-line functions are ROW and LINES (function templates with
 * the parameters above). */
#define SGM_WARP_OPS(NAME, ROW, LINES)                                                             \
  struct NAME {                                                                                    \
    template <int K, typename T, int R, bool LAST, int PATHS>                                      \
    static __device__ __forceinline__ void row(const sgm_warp_params &p, int y)                    \
    {                                                                                              \
      ROW<K, T, R, LAST, PATHS>(p, y);                                                             \
    }                                                                                              \
    template <int K, typename T, int R>                                                            \
    static __device__ __forceinline__ void lines(const sgm_warp_params &p, int blk, uint32_t *t)   \
    {                                                                                              \
      LINES<K, T, R>(p, blk, t);                                                                   \
    }                                                                                              \
  }

/* kernels */

/* Every path but right-left, each block on one segment (one path) of the grid: the body of a
 * multi-path kernel, tile its dynamic shared memory. */
template <class Ops, int K, typename T>
__device__ __forceinline__ void sgm_warp_paths_body(const sgm_warp_params &p, uint32_t *tile)
{
  int seg = 0;
  while (seg + 1 < p.nseg && (int)blockIdx.x >= p.seg_end[seg])
    seg++;
  const int blk = (int)blockIdx.x - (seg ? p.seg_end[seg - 1] : 0);
  switch (p.seg_path[seg]) {
  case 0: {
    int y = blk * SGM_WARP_WARPS + (int)(threadIdx.x >> 5);
    if (y < p.h)
      Ops::template row<K, T, 0, false, 0>(p, y);
    break;
  }
  case 2: Ops::template lines<K, T, 2>(p, blk, tile); break;
  case 3: Ops::template lines<K, T, 3>(p, blk, tile); break;
  case 4: Ops::template lines<K, T, 4>(p, blk, tile); break;
  case 5: Ops::template lines<K, T, 5>(p, blk, tile); break;
  case 6: Ops::template lines<K, T, 6>(p, blk, tile); break;
  case 7: Ops::template lines<K, T, 7>(p, blk, tile); break;
  default: break;
  }
}

template <class Ops, int K, typename T>
static __global__ void __launch_bounds__(SGM_WARP_THREADS)
    sgm_warp_paths_kernel(const sgm_warp_params p)
{
  extern __shared__ uint32_t sgm_warp_tile[];
  sgm_warp_paths_body<Ops, K, T>(p, sgm_warp_tile);
}

/* The right-left path, the sum over all paths and the winner-takes-all. */
template <class Ops, int K, typename T, int PATHS>
static __global__ void __launch_bounds__(SGM_WARP_THREADS)
    sgm_warp_last_kernel(const sgm_warp_params p)
{
  int y = (int)blockIdx.x * SGM_WARP_WARPS + (int)(threadIdx.x >> 5);
  if (y < p.h)
    Ops::template row<K, T, 1, true, PATHS>(p, y);
}

/* launcher */

template <class Ops, int K, typename T>
static void sgm_warp_enqueue(const sgm_warp_params &p, int paths, int blocks, cudaStream_t stream)
{
  size_t smem = 2 * SGM_WARP_TR * sgm_warp_row_stride(K) * sizeof(uint32_t);
  sgm_warp_paths_kernel<Ops, K, T><<<blocks, SGM_WARP_THREADS, smem, stream>>>(p);
  GR_CUDA_LAUNCH_CHECK();
  int rows = (p.h + SGM_WARP_WARPS - 1) / SGM_WARP_WARPS;
  if (paths == 8)
    sgm_warp_last_kernel<Ops, K, T, 8><<<rows, SGM_WARP_THREADS, 0, stream>>>(p);
  else
    sgm_warp_last_kernel<Ops, K, T, 4><<<rows, SGM_WARP_THREADS, 0, stream>>>(p);
  GR_CUDA_LAUNCH_CHECK();
}

/* f(std::integral_constant<int, K>()) for K, one of sgm_warp_pick_k's (16 for any other) */
template <class F> static void sgm_warp_with_k(int K, F &&f)
{
  switch (K) {
  case 1: f(std::integral_constant<int, 1>()); break;
  case 2: f(std::integral_constant<int, 2>()); break;
  case 4: f(std::integral_constant<int, 4>()); break;
  case 8: f(std::integral_constant<int, 8>()); break;
  case 9: f(std::integral_constant<int, 9>()); break;
  case 12: f(std::integral_constant<int, 12>()); break;
  default: f(std::integral_constant<int, 16>()); break;
  }
}

/* The layout's scratch and parameters for args a: the census images then PATHS-1 slots of path
 * buffers, and the multi-path grid's segments: diagonals (the most blocks) first, then vertical,
 * then left-right; or left-right first (rows_first: a row is W steps, a vertical or diagonal line
 * at most H, so that the longest blocks do not run alone at the grid's end). Returns 1 for an
 * unsupported configuration; 0 with *scratch_bytes set when a->scratch is NULL (pl->ready 0); 0
 * with the census launched on stream and *pl ready otherwise. */
struct sgm_warp_plan {
  sgm_warp_params p;
  int K, wide, blocks, ready;
};

static int sgm_warp_prepare(const struct sgm_gpu_args *a, size_t *scratch_bytes, bool rows_first,
                            cudaStream_t stream, sgm_warp_plan *pl)
{
  memset(pl, 0, sizeof *pl);
  if (a->disp > 512 || (a->paths != 4 && a->paths != 8))
    return 1;
  const int K = sgm_warp_pick_k(a->disp), wide = SGM_COST_MAX + a->p2 > 255;
  const size_t n = (size_t)a->width * a->height, esize = wide ? 2 : 1;
  const size_t slot_elems = n * 32 * K;
  const size_t census = sgm_align256(n * sizeof(uint32_t)), slot = sgm_align256(slot_elems * esize);
  const size_t need = 2 * census + (size_t)(a->paths - 1) * slot;
  if (!a->scratch) {
    *scratch_bytes = need;
    return 0;
  }
  sgm_warp_params &p = pl->p;
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
  static const int order8[] = {4, 5, 6, 7, 2, 3, 0}, order4[] = {2, 3, 0};
  static const int rows8[] = {0, 4, 5, 6, 7, 2, 3}, rows4[] = {0, 2, 3};
  const int *order = a->paths == 8 ? (rows_first ? rows8 : order8) : (rows_first ? rows4 : order4);
  int blocks = 0;
  p.nseg = a->paths - 1;
  for (int i = 0; i < p.nseg; i++) {
    int r = order[i], lines = sgm_warp_dy(r) == 0   ? a->height
                              : sgm_warp_dx(r) == 0 ? a->width
                                                    : a->width + a->height - 1;
    blocks += (lines + SGM_WARP_WARPS - 1) / SGM_WARP_WARPS;
    p.seg_path[i] = r;
    p.seg_end[i] = blocks;
  }
  sgm_census_launch(a->left, a->right, a->width, a->height, (uint32_t *)p.cl, (uint32_t *)p.cr,
                    stream);
  pl->K = K;
  pl->wide = wide;
  pl->blocks = blocks;
  pl->ready = 1;
  return 0;
}

/* A type as a value, for generic lambdas. */
template <typename T> struct sgm_warp_type {
  typedef T type;
};

/* An sgm_launch_fn on this layout: the plan (rows_first: the left-right blocks first in the
 * multi-path grid), then enq(pl, paths, stream, std::integral_constant<int, K>(),
 * sgm_warp_type<T>()) with the plan's K and element type T (uint16_t for 16-bit path costs). */
template <class Enq>
static int sgm_warp_launch_with(const struct sgm_gpu_args *a, size_t *scratch_bytes, void *stream,
                                bool rows_first, Enq &&enq)
{
  sgm_warp_plan pl;
  cudaStream_t st = (cudaStream_t)stream;
  const int rc = sgm_warp_prepare(a, scratch_bytes, rows_first, st, &pl);
  if (rc || !pl.ready)
    return rc;
  if (pl.wide)
    sgm_warp_with_k(pl.K, [&](auto k) { enq(pl, a->paths, st, k, sgm_warp_type<uint16_t>()); });
  else
    sgm_warp_with_k(pl.K, [&](auto k) { enq(pl, a->paths, st, k, sgm_warp_type<uint8_t>()); });
  return 0;
}

/* Rows first where W >= 1.6 H (v5_prefetch_wta.cu says why). */
static inline bool sgm_warp_rows_first(const struct sgm_gpu_args *a)
{
  return 5 * (long long)a->width >= 8 * (long long)a->height;
}

/* The sgm_launch_fn of a variant built on this layout (v3, v4). */
template <class Ops>
static int sgm_warp_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes, void *stream)
{
  return sgm_warp_launch_with(
      a, scratch_bytes, stream, false,
      [](const sgm_warp_plan &pl, int paths, cudaStream_t st, auto k, auto t) {
        sgm_warp_enqueue<Ops, decltype(k)::value, typename decltype(t)::type>(pl.p, paths,
                                                                              pl.blocks, st);
      });
}
