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

#include "sgm_warp.cuh"

#define V3_INF (1 << 24)
#define V3_FULL 0xffffffffu

/* device helpers */

/* element k of a raw chunk */
template <typename T, int K>
__device__ __forceinline__ int v3_elem(const uint32_t (&w)[sgm_warp_chunk<T, K>::NW], int k)
{
  const int byte = k * (int)sizeof(T);
  return (int)((w[byte / 4] >> (8 * (byte % 4))) & (sizeof(T) == 1 ? 0xffu : 0xffffu));
}

/* Pack a lane's L values (padding stored as 0) and store them at pixel pix. */
template <typename T, int K>
__device__ __forceinline__ void v3_put(T *pix, int lane, const int (&L)[K], int D)
{
  uint32_t w[sgm_warp_chunk<T, K>::NW];
#pragma unroll
  for (int i = 0; i < sgm_warp_chunk<T, K>::NW; i++)
    w[i] = 0;
#pragma unroll
  for (int k = 0; k < K; k++) {
    const int byte = k * (int)sizeof(T);
    uint32_t v = lane * K + k < D ? (uint32_t)L[k] : 0u;
    w[byte / 4] |= v << (8 * (byte % 4));
  }
  sgm_warp_store<T, K>(pix, lane, w);
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
__device__ __forceinline__ void v3_row(const sgm_warp_params &p, int y)
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
  sgm_warp_window_init<K>(win, crr, x0, lane);
  int Lp[K], mp;
  v3_reset<K>(Lp, mp, lane, D);

  sgm_warp_census<K, DIR> cen(clr, crr, x0, W, lane);

  /* LAST: the other paths' costs, loaded one pixel ahead */
  uint32_t raw[NS][NW];
  int osum[K];
  auto load_others = [&](int x) {
    const size_t pix = ((size_t)y * W + x) * DP;
#pragma unroll
    for (int q = 0; q < NS; q++)
      sgm_warp_load<T, K>(bufs + q * p.slot_elems + pix, lane, raw[q]);
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
    const int x = x0 + DIR * s;
    cen.advance(s);
    if constexpr (LAST) {
      if (s + 1 < W)
        load_others(x + DIR);
    }
    const uint32_t clv = cen.left(s), crv = cen.right(s);
    if (s)
      sgm_warp_window_slide<K, DIR>(win, crv, lane);
    int c[K];
#pragma unroll
    for (int k = 0; k < K; k++)
      c[k] = lane * K + k <= x ? __popc(clv ^ win[k]) : SGM_COST_OUTSIDE;
    v3_update<K>(Lp, c, mp, p.p1, p.p2, lane, D);
    const size_t pix = (size_t)y * W + x;
    if (nat)
      v3_put_natural<K>(nat + pix * D, lane, Lp, D);
    if constexpr (!LAST) {
      v3_put<T, K>(bufs + sgm_warp_slot(R) * p.slot_elems + pix * DP, lane, Lp, D);
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
__device__ __forceinline__ void v3_lines(const sgm_warp_params &p, int blk, uint32_t *tile)
{
  typedef sgm_warp_lines<K, R> G;
  constexpr int S = G::S, DP = G::DP, RS = G::RS, WWP = G::WWP, TILE = G::TILE;
  const G g(p, blk);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int W = p.w, H = p.h, D = p.D;
  T *const mybuf = (T *)p.buf + sgm_warp_slot(R) * p.slot_elems;
  uint16_t *nat = p.path_out ? p.path_out + (size_t)R * H * W * D : nullptr;

  int Lp[K], mp;
  v3_reset<K>(Lp, mp, lane, D);
  g.stage(p, 0, tile);
  for (int t0 = 0, tb = 0; t0 < g.nsteps; t0 += SGM_WARP_TR, tb ^= 1) {
    uint32_t *cur = tile + tb * TILE;
    g.stage(p, t0 + SGM_WARP_TR, tile + (tb ^ 1) * TILE);
    __pipeline_wait_prior(1);
    __syncthreads();
    for (int row = 0; row < SGM_WARP_TR && t0 + row < g.nsteps; row++) {
      const int t = t0 + row, y = g.y(t), x = g.cb + warp + S * y;
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

/* the launcher: the layout's kernels on this variant's scan-line functions */

SGM_WARP_OPS(v3_ops, v3_row, v3_lines);

extern "C" int sgm_v3_warp_fused_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
                                        void *stream)
{
  return sgm_warp_launch<v3_ops>(a, scratch_bytes, stream);
}
