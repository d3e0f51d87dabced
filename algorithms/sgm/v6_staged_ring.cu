/* sgm v6_staged_ring (fixed). v5_prefetch_wta with fewer instructions a step in the line kernels
 * and the last kernel's loads of the other paths moved from a register ring to a deeper ring in
 * shared memory. The recurrence (sgm_dpx.cuh: v4_update), the path-buffer layout and every value
 * as v4's and v5's.
 * Why (issue 40; ncu on the H200 at 1920x1080 D=128 8 paths, v5, real clocks, 1980 MHz): census
 * 0.05 ms; the 7-path kernel 2.26 ms, 1.77G warp instructions (122 a warp step), 82% issue-busy:
 * bound by its instructions; the last kernel 1.07 ms, 12.7% occupancy (one warp a row), 37% of
 * DRAM bandwidth, 39% issue-busy. By SASS line (SourceCounters), a line kernel's step spent ~18
 * instructions staging (the block-wide cp.async loop: a division, two bounds tests and ~25
 * instructions a word), ~25 on costs (the padded window index recomputed for every disparity),
 * ~35 on the recurrence and ~40 on the in-image and border tests, the store address, the
 * per-path output test and register moves at the loop's merge points.
 * The line kernels (paths 2..7):
 *   - warp w stages row w of the 8-row tile, lane l copying window words l, l+32, ... (the
 *     padding index is l + 33i: no division);
 *   - a lane's K window offsets are the same for every row of a line: computed once, so that a
 *     row's loads are one LDS each at a constant offset from K tile addresses;
 *   - a tile whose 8 rows are all in the image, past the left border, with no per-path output,
 *     runs as straight-line code (no test a step); the path buffer's address runs by a constant
 *     stride;
 *   - registers capped by K (v6_paths_min_blocks): 3 blocks of 8 warps an SM at K = 4 and 8.
 * The last kernel (right-left, the sum over all paths, winner-takes-all): each warp keeps a ring
 * of NB chunks of CH pixels of the other paths' costs in shared memory, filled by 16-byte
 * cp.async copies NB-1 chunks ahead (1080p D=128: 12 pixels, 10.5 KiB a warp in flight), read
 * back one pixel a step; (CH, NB) by the bytes a pixel of the other paths takes, within 14 KiB a
 * warp so that two blocks share an SM (sgm_v6_ring, sgm.h); within an eighth of a block's opt-in
 * shared memory where that is less (RTX 30xx/40xx, L4: 99 KiB), and v4's last kernel where no
 * ring fits (there: D > 384 in 16 bits with 8 paths). Forced to 99 KiB on the H200 (a scratch
 * build, stop 51): 1080p D=128 8 paths 2.31 ms with a (2, 4) ring. Whole chunks past the left
 * border run as straight-line code, so that a pixel's sum and winner-takes-all overlap the next
 * pixel's recurrence.
 * Measured (H200, driver 580.159.04, 1980 MHz; bench, cold L2, median of 15, noise <= 0.13%;
 * v5 in the same run; libSGM 3.1.0 on the same H200 per issue 40, outside the suite):
 *   640x480 D=64:       4 paths 0.253 ms (v5 0.314), 8 paths 0.390 (0.604)
 *   1920x1080 D=128:    4 paths 1.247 ms (v5 1.673), 8 paths 2.161 (3.344; libSGM 3.41: 0.63x)
 *   2964x2000 D=256:    4 paths 4.733 ms (v5 5.854), 8 paths 9.178 (12.247; libSGM 13.13: 0.70x)
 *   2964x2000 D=270:    4 paths 5.639 ms (v5 6.805), 8 paths 10.941 (14.187)
 * ncu, 1080p D=128 8 paths: the 7-path kernel 1.38 ms, 1.03G warp instructions (71 a step),
 * 77% issue-busy, 35% warps active (80 registers); the last kernel 0.74 ms, 53% of DRAM
 * bandwidth, 49% issue-busy. 2964x2000 D=256 8 paths: 6.44 ms (v5 9.38) and 2.65 ms (v5 2.76,
 * 84% of DRAM bandwidth: bound by its reads there).
 * Steps at 1080p 8 paths (bench, same sweep): the row staging and fixed offsets plus the ring
 * 2.78 ms; the last kernel's straight-line chunks 2.64; the line kernels' straight-line tiles
 * 2.16 (K = 4 at 4 blocks an SM, 64 registers, 28 bytes spilled: the same at 8 paths, 2.7%
 * slower at 1080p 4 paths).
 * What is left: the last kernel is latency-bound (one warp a row, 8 warps an SM at 1080p): each
 * step's ~125 instructions form one chain; splitting a row between a recurrence warp and a
 * sum + winner-takes-all warp (a shared-memory hand-off) would double its warps. */
#include <type_traits>

#include "sgm_dpx.cuh"

#define V6_RING_WARP_BYTES SGM_V6_RING_WARP_BYTES /* sgm.h */

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
      uint32_t C[NP];
      v4_window_costs<K>(clv, win, lane, x, FAST || x >= D - 1, C);
      v4_update<K>(P, C, mp, p1p1, p2, pm, lane);
      const size_t pix = (size_t)y * W + x;
      if (!FAST && nat)
        v4_put_natural<K>(nat + pix * D, lane, P, D);
      v4_wta<K>(p, pix, P, osum, lane, D);
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
  sgm_warp_paths_body<v6_ops, K, T>(p, v6_tile);
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

/* The ring's budget a warp on this GPU: SGM_V6_RING_WARP_BYTES, or an eighth of what a block
 * may opt in to where that is less. */
static int v6_ring_budget()
{
  int dev = 0, optin = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
    optin = 48 * 1024;
  return optin / SGM_WARP_WARPS < V6_RING_WARP_BYTES ? optin / SGM_WARP_WARPS : V6_RING_WARP_BYTES;
}

/* the ring's shape by sgm_v6_ring (sgm.h); the shapes that cannot fit are not instantiated; with
 * none that fits this GPU, v4's last kernel (the other paths read one pixel ahead) */
template <int K, typename T, int PATHS>
static void v6_enqueue_last(const sgm_warp_params &p, cudaStream_t st)
{
  constexpr int PX = 32 * K * (int)sizeof(T) * (PATHS - 1);
  int ch = 0, nb = 0;
  if (sgm_v6_ring(PX, v6_ring_budget(), &ch, &nb)) {
    const int rows = (p.h + SGM_WARP_WARPS - 1) / SGM_WARP_WARPS;
    sgm_warp_last_kernel<v6_ops, K, T, PATHS><<<rows, SGM_WARP_THREADS, 0, st>>>(p);
    return;
  }
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

extern "C" int sgm_v6_staged_ring_launch(const struct sgm_gpu_args *a, size_t *scratch_bytes,
                                         void *stream)
{
  return sgm_warp_launch_with(
      a, scratch_bytes, stream, sgm_warp_rows_first(a),
      [](const sgm_warp_plan &pl, int paths, cudaStream_t st, auto k, auto t) {
        v6_enqueue<decltype(k)::value, typename decltype(t)::type>(pl, paths, st);
      });
}
