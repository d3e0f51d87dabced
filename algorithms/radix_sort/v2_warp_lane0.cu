/* radix_sort v2_warp_lane0 (historical). The warp-ranked scatter as it was first written
 * (konard/gpu-sorting, Metal `radix_scatter_simd`, PR #12; found in issue #17: "SIMD GPU Radix Sort
 * FAILED VERIFICATION" at 2,684,354 keys on an Apple M3 Pro while the basic sort verified). Each
 * warp ranks its keys by digit with warp primitives and keeps its per-digit counts in shared memory
 * for the cross-warp prefix, but only lane 0 writes:
 *     if (lane == 0) counts[warp * RADIX + digit] = warp_count;
 * so only lane 0's digit gets a count; every other digit present in the 32 keys keeps a stale
 * count (0 on the first round), later rounds and later warps rank on top of it, keys collide in the
 * digit-sorted tile, some places are never written, and keys land in wrong output positions (the
 * output holds duplicates, leftover tile contents and poison). Any 32 consecutive keys holding more
 * than one digit value, in more than one round or warp, expose it; all-equal keys hide it.
 * Fixed in v3_warp (the first lane holding each digit writes its count); everything else is
 * v3_warp line for line, so `diff v2_warp_lane0.cu v3_warp.cu` shows the bug. The output guard
 * (g < n) keeps the wrong positions inside the output buffer. */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "radix_sort.h"
#include "radix_sort_common.cuh"

#define RS_WARP_SLICE (32 * RADIX_SORT_ITEMS) /* keys of a tile one warp ranks */
/* dynamic shared memory: two tiles of keys, and of values for pairs */
#define RS_V2_SMEM(pairs) ((size_t)((pairs) ? 4 : 2) * RADIX_SORT_TILE * sizeof(uint32_t))

/* kernels */

template <bool PAIRS>
static __global__ __launch_bounds__(RADIX_SORT_BLOCK, 3) void rs_v2_scatter_kernel(
    const uint32_t *__restrict__ keys_in, const uint32_t *__restrict__ vals_in,
    uint32_t *__restrict__ keys_out, uint32_t *__restrict__ vals_out, int n, int shift,
    const uint32_t *__restrict__ hist, const uint32_t *__restrict__ totals, int nchunks,
    int tiles_per_chunk, int ntiles)
{
  /* dynamic: two tile buffers of keys (and of values), RS_V2_SMEM(PAIRS) bytes. Buffer `cur`
   * holds this tile, first in input order (as fetched), then in digit order; buffer cur ^ 1
   * receives the next tile meanwhile. */
  extern __shared__ uint32_t s_tiles[];
  __shared__ uint32_t s_counts[RS_WARPS * RADIX_SORT_RADIX]; /* per warp and digit */
  __shared__ uint32_t s_start[RADIX_SORT_RADIX];             /* tile-local start of each digit */
  __shared__ uint32_t s_base[RADIX_SORT_RADIX];              /* output position of the next key */
  __shared__ uint32_t s_warp[RS_WARPS];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  uint32_t lanes_below = (1u << lane) - 1u;
  uint32_t *counts = s_counts + warp * RADIX_SORT_RADIX;
  int slice = warp * RS_WARP_SLICE + lane; /* this lane's tile position in round 0 */

  s_base[tid] = rs_chunk_base(hist, totals, nchunks, s_warp);
  int tile_begin = (int)blockIdx.x * tiles_per_chunk;
  int tile_end = min(tile_begin + tiles_per_chunk, ntiles);
  if (tile_begin < tile_end)
    rs_stage_tile(s_tiles, s_tiles + 2 * RADIX_SORT_TILE, keys_in, PAIRS ? vals_in : NULL, n,
                  tile_begin);
  rs_cp_async_commit();
  for (int tile = tile_begin; tile < tile_end; tile++) {
    int cur = (tile - tile_begin) & 1;
    uint32_t *s_keys = s_tiles + cur * RADIX_SORT_TILE;
    uint32_t *s_vals = s_tiles + (2 + cur) * RADIX_SORT_TILE; /* used only for PAIRS */
    if (tile + 1 < tile_end)
      rs_stage_tile(s_tiles + (cur ^ 1) * RADIX_SORT_TILE, s_tiles + (3 - cur) * RADIX_SORT_TILE,
                    keys_in, PAIRS ? vals_in : NULL, n, tile + 1);
    rs_cp_async_commit();  /* (empty on the last tile: one group per tile either way) */
    rs_cp_async_wait<1>(); /* this tile's group is complete */
    __syncthreads();
    int tile_base = tile * RADIX_SORT_TILE;
    int valid = min(RADIX_SORT_TILE, n - tile_base);
    int left = valid - slice; /* this lane's keys r with r * 32 < left exist */
    uint32_t key[RADIX_SORT_ITEMS];
    uint32_t rank[RADIX_SORT_ITEMS / 2]; /* two 16-bit ranks (< 512) per register */
#pragma unroll
    for (int r = 0; r < RADIX_SORT_ITEMS; r++) /* padding ranks last, past `valid` */
      key[r] = r * 32 < left ? s_keys[slice + r * 32] : 0xffffffffu;
    for (int d = lane; d < RADIX_SORT_RADIX; d += 32)
      counts[d] = 0;
    __syncwarp();

    /* rank within the warp's slice, 32 keys per round */
#pragma unroll
    for (int r = 0; r < RADIX_SORT_ITEMS; r++) {
      uint32_t digit = rs_digit(key[r], shift);
      uint32_t peers = rs_warp_match(digit);
      uint32_t before = counts[digit];
      uint32_t warp_count = before + __popc(peers); /* keys of this digit in the warp so far */
      uint32_t my_rank = before + __popc(peers & lanes_below);
      rank[r / 2] = r % 2 ? rank[r / 2] | my_rank << 16 : my_rank;
      __syncwarp();
      if (lane == 0) /* the bug: only lane 0's digit gets its count */
        counts[digit] = warp_count;
      __syncwarp();
    }
    __syncthreads();

    /* cross-warp prefix per digit (thread tid = digit), tile counts, tile-local digit starts */
    uint32_t run = 0;
    for (int w = 0; w < RS_WARPS; w++) {
      uint32_t c = s_counts[w * RADIX_SORT_RADIX + tid];
      s_counts[w * RADIX_SORT_RADIX + tid] = run;
      run += c;
    }
    uint32_t tile_count = run, all;
    s_start[tid] = rs_block_exclusive_scan(tile_count, s_warp, &all);
    __syncthreads();

    /* the tile in digit order, in place: every key is in registers; values go through them */
    uint32_t pos[RADIX_SORT_ITEMS];
#pragma unroll
    for (int r = 0; r < RADIX_SORT_ITEMS; r++) {
      uint32_t digit = rs_digit(key[r], shift);
      pos[r] = s_start[digit] + counts[digit] + ((rank[r / 2] >> (16 * (r % 2))) & 0xffffu);
      s_keys[pos[r]] = key[r];
    }
    if (PAIRS) {
      uint32_t val[RADIX_SORT_ITEMS];
#pragma unroll
      for (int r = 0; r < RADIX_SORT_ITEMS; r++)
        val[r] = s_vals[slice + r * 32];
      __syncthreads();
#pragma unroll
      for (int r = 0; r < RADIX_SORT_ITEMS; r++)
        s_vals[pos[r]] = val[r];
    }
    __syncthreads();

    /* out, in runs of equal digits */
    for (int i = tid; i < valid; i += RADIX_SORT_BLOCK) {
      uint32_t k = s_keys[i], digit = rs_digit(k, shift);
      uint32_t g = s_base[digit] + (uint32_t)i - s_start[digit];
      if (g < (uint32_t)n) {
        keys_out[g] = k;
        if (PAIRS)
          vals_out[g] = s_vals[i];
      }
    }
    __syncthreads();
    s_base[tid] += tile_count;
  }
}

/* launcher */

extern "C" int radix_sort_v2_warp_lane0_launch(void *d_temp, size_t *temp_bytes,
                                               const uint32_t *keys_in, uint32_t *keys_out,
                                               const uint32_t *vals_in, uint32_t *vals_out, int n,
                                               void *stream)
{
  static const size_t smem[2] = {RS_V2_SMEM(false), RS_V2_SMEM(true)};
  static int occupancy[2];
  return rs_sort(rs_v2_scatter_kernel<false>, rs_v2_scatter_kernel<true>, smem, occupancy, d_temp,
                 temp_bytes, keys_in, keys_out, vals_in, vals_out, n, stream);
}
