/* sgm v6_staged_ring (fixed). v5_prefetch_wta with fewer instructions a step in the line kernels
 * and the last kernel's loads of the other paths moved from registers to a ring in shared
 * memory, deeper. The recurrence (sgm_dpx.cuh: v4_update), the path-buffer layout and every
 * value as v4's and v5's.
 * Why (issue 40; ncu on the H200 at 1920x1080 D=128 8 paths, v5, real clocks): census 0.05 ms,
 * the 7-path kernel 2.26 ms (1.77G warp instructions, 122 a warp step, 82% issue-busy: bound by
 * its instructions), the last kernel 1.07 ms (12.7% occupancy, 37% of DRAM bandwidth, 39%
 * issue-busy: its 4-pixel register ring keeps too few bytes in flight). By SASS line, a line
 * kernel's step was ~18 instructions of staging (the tile's cp.async loop: a division, two
 * bounds tests and ~25 instructions a word, over the whole block), ~25 of costs (the padded
 * window index recomputed for every disparity), ~40 of recurrence and ~40 of loop, bounds,
 * store address and register moves.
 * The line kernels (paths 2..7): warp w stages the tile's row w, lane l copying the window words
 * l, l+32, ... (no division; the padding index is l + i); each lane's K window offsets are fixed
 * for the whole line and computed once; the tile's 8 rows are unrolled, so a row's offsets are
 * immediates; the path buffer's address runs by a constant stride a step.
 * The last kernel (right-left, the sum over all paths, winner-takes-all): each warp keeps a ring
 * of NB chunks of CH pixels of the other paths' costs in shared memory, filled by 16-byte
 * cp.async copies NB-1 chunks ahead, read back a pixel a step. (CH, NB) by the bytes a pixel of
 * the other paths takes, within 14 KiB a warp (two blocks of 8 warps an SM): sgm_v6_ring in
 * sgm.h. */
#include <type_traits>

#include "sgm_dpx.cuh"

#define V6_RING_WARP_BYTES SGM_V6_RING_WARP_BYTES

/* The line kernels: paths 2..7, block blk running 8 adjacent lines row by row (sgm_warp_lines). */
template <int K, typename T, int R>
__device__ __forceinline__ void v6_lines(const sgm_warp_params &p, int blk, uint32_t *tile)
{
  typedef sgm_warp_lines<K, R> G;
  constexpr int S = G::S, DY = G::DY, DP = G::DP, RS = G::RS, WWP = G::WWP, TILE = G::TILE;
  constexpr int NW = sgm_warp_chunk<T, K>::NW;
  static_assert(SGM_WARP_TR == SGM_WARP_WARPS, "warp w stages row w of a tile");
  static_assert(G::WW == 32 * K + 8, "the window: 32K words then 8, left census after");
  const G g(p, blk);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int W = p.w, D = p.D;
  T *const mybuf = (T *)p.buf + sgm_warp_slot(R) * p.slot_elems;
  uint16_t *const nat = p.path_out ? p.path_out + (size_t)R * p.h * W * D : nullptr;

  /* Stage the tile of steps t0 .. t0+7: row t0 + warp by this warp (one commit group). Window
   * word j (right census at xb - (DP-1) + j) goes to j + j/32; the left census at xb .. xb+7 to
   * WWP .. WWP+7. Positions outside the image read 0. */
  auto stage = [&](int t0, uint32_t *buf) {
    const int t = t0 + warp;
    if (t < g.nsteps) {
      const int yy = g.y(t), xb = g.cb + S * yy;
      const uint32_t *crow = p.cr + (size_t)yy * W, *lrow = p.cl + (size_t)yy * W;
      uint32_t *dst = buf + warp * RS;
#pragma unroll
      for (int i = 0; i < K; i++) {
        const int x = xb - (DP - 1) + 32 * i + lane;
        uint32_t *d = dst + 33 * i + lane;
        if ((unsigned)x < (unsigned)W)
          __pipeline_memcpy_async(d, crow + x, 4);
        else
          *d = 0;
      }
      if (lane < 16) { /* window words 32K .. 32K+7, then the left census */
        const bool win = lane < 8;
        const int x = win ? xb + 1 + lane : xb + lane - 8;
        uint32_t *d = win ? dst + 33 * K + lane : dst + WWP + lane - 8;
        if ((unsigned)x < (unsigned)W)
          __pipeline_memcpy_async(d, (win ? crow : lrow) + x, 4);
        else
          *d = 0;
      }
    }
    __pipeline_commit();
  };

  /* the lane's window words in a tile row: disparity lane*K + k at jj = warp + DP-1 - d */
  int off[K];
#pragma unroll
  for (int k = 0; k < K; k++) {
    const int jj = warp + DP - 1 - (lane * K + k);
    off[k] = jj + (jj >> 5);
  }
  constexpr int NP = (K + 1) / 2;
  uint32_t P[NP], pm[NP], mp;
  v4_padmask<K>(pm, lane, D);
  v4_reset<K>(P, mp, pm);
  const uint32_t p1p1 = (uint32_t)p.p1 * 0x10001u, p2 = (uint32_t)p.p2;
  /* pixel of step t: y(t)*W + cb + warp + S*y(t), moving by DY*(W + S) a step */
  const long long pstep = (long long)DY * (W + S) * DP;
  long long poff = ((long long)g.y(0) * W + g.cb + warp + (long long)S * g.y(0)) * DP;

  /* The tile's steps. FAST: all 8 rows in the line's run, every pixel in the image and past the
   * left border (every d has a pixel to match), no per-path output: straight-line code, the
   * window words at constant offsets from the K addresses of the tile. */
  auto tile_steps = [&](const int t0, const uint32_t *cur, auto fast) {
    constexpr bool FAST = decltype(fast)::value;
    const uint32_t *wk[K];
#pragma unroll
    for (int k = 0; k < K; k++)
      wk[k] = cur + off[k];
#pragma unroll
    for (int row = 0; row < SGM_WARP_TR; row++) {
      const int t = t0 + row;
      if (!FAST && t >= g.nsteps)
        break;
      const int y = g.y(t), x = g.cb + warp + S * y;
      const long long po = poff;
      poff += pstep;
      if (!FAST && (unsigned)x >= (unsigned)W) { /* this line is not in the image at this row */
        v4_reset<K>(P, mp, pm);
        continue;
      }
      const uint32_t clv = cur[row * RS + WWP + warp];
      int c[K];
      if (FAST || x >= D - 1) {
#pragma unroll
        for (int k = 0; k < K; k++)
          c[k] = __popc(clv ^ wk[k][row * RS]);
      } else {
#pragma unroll
        for (int k = 0; k < K; k++)
          c[k] = lane * K + k <= x ? __popc(clv ^ wk[k][row * RS]) : SGM_COST_OUTSIDE;
      }
      uint32_t C[NP], w[NW];
      v4_pair_costs<K>(c, C);
      v4_update<K>(P, C, mp, p1p1, p2, pm, lane);
      v4_pack<T, K>(P, pm, w);
      sgm_warp_store<T, K>(mybuf + po, lane, w);
      if (!FAST && nat)
        v4_put_natural<K>(nat + ((size_t)y * W + x) * D, lane, P, D);
    }
  };

  stage(0, tile);
  for (int t0 = 0, tb = 0; t0 < g.nsteps; t0 += SGM_WARP_TR, tb ^= 1) {
    const uint32_t *cur = tile + tb * TILE;
    stage(t0 + SGM_WARP_TR, tile + (tb ^ 1) * TILE);
    __pipeline_wait_prior(1);
    __syncthreads();
    /* x moves by at most 1 a step, one way: the tile's ends bound it */
    const int xa = g.cb + warp + S * g.y(t0), xz = g.cb + warp + S * g.y(t0 + SGM_WARP_TR - 1);
    if (!nat && t0 + SGM_WARP_TR <= g.nsteps && min(xa, xz) >= D - 1 && max(xa, xz) < W)
      tile_steps(t0, cur, std::true_type());
    else
      tile_steps(t0, cur, std::false_type());
    __syncthreads(); /* everyone is done with cur before it is staged again */
  }
}

/* The last kernel: row y (warp's) right-left, fused with the sum over every path and the
 * winner-takes-all; the other paths' costs of chunk c (pixels W-1-c*CH down to W-(c+1)*CH) in
 * ring slot c % NB, as [path][pixel m = x - (W-(c+1)*CH)][DP elements]. */
template <int K, typename T, int PATHS, int CH, int NB>
static __global__ void __launch_bounds__(SGM_WARP_THREADS) v6_last_kernel(const sgm_warp_params p)
{
  extern __shared__ uint4 v6_ring[];
  constexpr int NS = PATHS - 1, DP = 32 * K, PB = DP * (int)sizeof(T),
                NW = sgm_warp_chunk<T, K>::NW;
  constexpr int PIECES = CH * PB / 16; /* 16-byte pieces of one path in a chunk */
  constexpr int CHUNK = NS * CH * PB;  /* bytes of a chunk */
  static_assert(PB % 16 == 0, "a pixel of a path is whole 16-byte pieces");
  static_assert(NB * CHUNK <= V6_RING_WARP_BYTES, "the ring fits the warp's share");
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int y = (int)blockIdx.x * SGM_WARP_WARPS + warp;
  if (y >= p.h) /* no block-wide barrier below */
    return;
  const int W = p.w, D = p.D;
  unsigned char *const ring = reinterpret_cast<unsigned char *>(v6_ring) + warp * NB * CHUNK;
  const unsigned char *const bufs = (const unsigned char *)p.buf;
  const size_t slot_bytes = p.slot_elems * sizeof(T), row_bytes = (size_t)y * W * PB;
  const int nchunks = (W + CH - 1) / CH;

  /* chunk c into its slot (one commit group, empty past the row's end) */
  auto issue = [&](int c) {
    if (c < nchunks) {
      unsigned char *dst = ring + (c % NB) * CHUNK;
      const int xlo = W - (c + 1) * CH; /* pixel m = 0 of the chunk; < 0 in a short last one */
      const unsigned char *src = bufs + row_bytes + (long long)xlo * PB;
      const int first = xlo < 0 ? -xlo * (PB / 16) : 0; /* pieces of pixels x < 0: none */
#pragma unroll
      for (int q = 0; q < NS; q++) {
#pragma unroll
        for (int i = 0; i < (PIECES + 31) / 32; i++) {
          const int e = 32 * i + lane;
          if ((PIECES % 32 == 0 || e < PIECES) && e >= first)
            __pipeline_memcpy_async(dst + q * CH * PB + 16 * e, src + q * slot_bytes + 16 * e, 16);
        }
      }
    }
    __pipeline_commit();
  };
#pragma unroll
  for (int c = 0; c < NB - 1; c++)
    issue(c);

  const int x0 = W - 1;
  const uint32_t *clr = p.cl + (size_t)y * W, *crr = p.cr + (size_t)y * W;
  uint16_t *const nat = p.path_out ? p.path_out + (size_t)1 * p.h * W * D : nullptr;
  uint32_t win[K]; /* win[k] = right census at x - (lane*K + k) */
  sgm_warp_window_init<K>(win, crr, x0, lane);
  constexpr int NP = (K + 1) / 2;
  uint32_t P[NP], pm[NP], mp;
  v4_padmask<K>(pm, lane, D);
  v4_reset<K>(P, mp, pm);
  const uint32_t p1p1 = (uint32_t)p.p1 * 0x10001u, p2 = (uint32_t)p.p2;
  sgm_warp_census<K, -1> cen(clr, crr, x0, W, lane);

  /* The steps of chunk c from its slot. FAST: a whole chunk past the left border (every d has a
   * pixel to match), no per-path output: straight-line code, so that the independent sum and
   * winner-takes-all of one pixel overlap the recurrence's chain of the next. */
  auto chunk = [&](const int c, const unsigned char *slot, auto fast) {
    constexpr bool FAST = decltype(fast)::value;
#pragma unroll
    for (int j = 0; j < CH; j++) {
      const int s = c * CH + j, x = x0 - s;
      if (!FAST && s >= W)
        break;
      uint32_t osum[NP];
#pragma unroll
      for (int i = 0; i < NP; i++)
        osum[i] = 0;
#pragma unroll
      for (int q = 0; q < NS; q++) {
        uint32_t raw[NW];
        sgm_warp_load<T, K>((const T *)(slot + q * CH * PB + (CH - 1 - j) * PB), lane, raw);
        v4_add_raw<T, K>(raw, osum);
      }
      if (j == 0 || 32 % CH != 0) /* a new census batch starts only at a chunk's first step */
        cen.advance(s);
      const uint32_t clv = cen.left(s), crv = cen.right(s);
      if (j > 0 || s > 0)
        sgm_warp_window_slide<K, -1>(win, crv, lane);
      int cst[K];
      if (FAST || x >= D - 1) {
#pragma unroll
        for (int k = 0; k < K; k++)
          cst[k] = __popc(clv ^ win[k]);
      } else {
#pragma unroll
        for (int k = 0; k < K; k++)
          cst[k] = lane * K + k <= x ? __popc(clv ^ win[k]) : SGM_COST_OUTSIDE;
      }
      uint32_t C[NP];
      v4_pair_costs<K>(cst, C);
      v4_update<K>(P, C, mp, p1p1, p2, pm, lane);
      const size_t pix = (size_t)y * W + x;
      if (!FAST && nat)
        v4_put_natural<K>(nat + pix * D, lane, P, D);
      uint32_t Ssum[NP]; /* halves below 2^16: (31 + P2) * paths <= 65535, padding 0x7fff + 0 */
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
  };
  for (int c = 0; c < nchunks; c++) {
    __syncwarp(); /* every lane is done with chunk c-1, whose slot the next issue fills */
    issue(c + NB - 1);
    __pipeline_wait_prior(NB - 1);
    __syncwarp(); /* the other lanes' copies of chunk c are in */
    const unsigned char *slot = ring + (c % NB) * CHUNK;
    if (!nat && W - (c + 1) * CH >= D - 1) /* whole (W - (c+1)*CH >= 0) and past the border */
      chunk(c, slot, std::true_type());
    else
      chunk(c, slot, std::false_type());
  }
}

SGM_WARP_OPS(v6_ops, v4_row, v6_lines);

/* sgm_warp_paths_kernel's dispatch with a register cap by K (blocks of 8 warps an SM): 4 below
 * 4 disparities a lane, 3 at 4 and 8 (K = 4 at 4 blocks, 64 registers, spilled 28 bytes and ran
 * 1080p 4 paths 2.7% slower), 2 beyond (3 spilled ~330 bytes at K = 12 and 16) */
__host__ __device__ constexpr int v6_paths_min_blocks(int K)
{
  return K < 4 ? 4 : K <= 8 ? 3 : 2;
}
template <int K, typename T>
static __global__ void __launch_bounds__(SGM_WARP_THREADS, v6_paths_min_blocks(K))
    v6_paths_kernel(const sgm_warp_params p)
{
  extern __shared__ uint32_t v6_tile[];
  int seg = 0;
  while (seg + 1 < p.nseg && (int)blockIdx.x >= p.seg_end[seg])
    seg++;
  const int blk = (int)blockIdx.x - (seg ? p.seg_end[seg - 1] : 0);
  switch (p.seg_path[seg]) {
  case 0: {
    int y = blk * SGM_WARP_WARPS + (int)(threadIdx.x >> 5);
    if (y < p.h)
      v4_row<K, T, 0, false, 0>(p, y);
    break;
  }
  case 2: v6_lines<K, T, 2>(p, blk, v6_tile); break;
  case 3: v6_lines<K, T, 3>(p, blk, v6_tile); break;
  case 4: v6_lines<K, T, 4>(p, blk, v6_tile); break;
  case 5: v6_lines<K, T, 5>(p, blk, v6_tile); break;
  case 6: v6_lines<K, T, 6>(p, blk, v6_tile); break;
  case 7: v6_lines<K, T, 7>(p, blk, v6_tile); break;
  default: break;
  }
}

template <int K, typename T, int PATHS, int CH, int NB>
static void v6_launch_last(const sgm_warp_params &p, cudaStream_t st)
{
  constexpr size_t bytes = (size_t)SGM_WARP_WARPS * NB * (PATHS - 1) * CH * 32 * K * sizeof(T);
  if constexpr (bytes > 48 * 1024)
    GR_CUDA_CHECK(cudaFuncSetAttribute(v6_last_kernel<K, T, PATHS, CH, NB>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  const int rows = (p.h + SGM_WARP_WARPS - 1) / SGM_WARP_WARPS;
  v6_last_kernel<K, T, PATHS, CH, NB><<<rows, SGM_WARP_THREADS, bytes, st>>>(p);
}

/* the ring's shape by sgm_v6_ring (sgm.h); the shapes that cannot fit are not instantiated */
template <int K, typename T, int PATHS>
static void v6_enqueue_last(const sgm_warp_params &p, cudaStream_t st)
{
  constexpr int PX = 32 * K * (int)sizeof(T) * (PATHS - 1);
  int ch = 0, nb = 0;
  sgm_v6_ring(PX, &ch, &nb);
  if constexpr (16 * PX <= V6_RING_WARP_BYTES)
    if (ch == 4)
      return v6_launch_last<K, T, PATHS, 4, 4>(p, st);
  if constexpr (8 * PX <= V6_RING_WARP_BYTES)
    if (ch == 2)
      return v6_launch_last<K, T, PATHS, 2, 4>(p, st);
  if constexpr (4 * PX <= V6_RING_WARP_BYTES)
    if (nb == 4)
      return v6_launch_last<K, T, PATHS, 1, 4>(p, st);
  v6_launch_last<K, T, PATHS, 1, 2>(p, st);
}

template <int K, typename T>
static void v6_enqueue(const sgm_warp_plan &pl, int paths, cudaStream_t st)
{
  size_t smem = 2 * SGM_WARP_TR * sgm_warp_row_stride(K) * sizeof(uint32_t);
  v6_paths_kernel<K, T><<<pl.blocks, SGM_WARP_THREADS, smem, st>>>(pl.p);
  GR_CUDA_LAUNCH_CHECK();
  if (paths == 8)
    v6_enqueue_last<K, T, 8>(pl.p, st);
  else
    v6_enqueue_last<K, T, 4>(pl.p, st);
  GR_CUDA_LAUNCH_CHECK();
}

template <typename T> static void v6_enqueue_k(const sgm_warp_plan &pl, int paths, cudaStream_t st)
{
  switch (pl.K) {
  case 1: v6_enqueue<1, T>(pl, paths, st); break;
  case 2: v6_enqueue<2, T>(pl, paths, st); break;
  case 4: v6_enqueue<4, T>(pl, paths, st); break;
  case 8: v6_enqueue<8, T>(pl, paths, st); break;
  case 9: v6_enqueue<9, T>(pl, paths, st); break;
  case 12: v6_enqueue<12, T>(pl, paths, st); break;
  default: v6_enqueue<16, T>(pl, paths, st); break;
  }
}

extern "C" int sgm_v6_staged_ring_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
                                         void *stream)
{
  sgm_warp_plan pl;
  cudaStream_t st = (cudaStream_t)stream;
  const bool rows_first = 5 * (long long)a->width >= 8 * (long long)a->height; /* W >= 1.6 H */
  const int rc = sgm_warp_prepare(a, scratch_bytes, rows_first, st, &pl);
  if (rc || !pl.ready)
    return rc;
  if (pl.wide)
    v6_enqueue_k<uint16_t>(pl, a->paths, st);
  else
    v6_enqueue_k<uint8_t>(pl, a->paths, st);
  return 0;
}
