/* radix_sort v3_warp (fixed). The scatter ranks each tile per warp with warp primitives instead of
 * v1's 8 block-wide one-bit splits: warp w owns a contiguous 512-key slice of the 4096-key tile
 * and walks it 32 keys at a time; 8 ballots find the lanes holding the same digit (a match), the
 * key's rank among them is the popcount of the lower lanes, and the running count of that digit in
 * the warp lives in s_counts[warp * RADIX + digit] in shared memory. One block sync later a column
 * scan of s_counts over the warps gives the cross-warp prefix and the tile's digit counts; every
 * key then goes to its place in a digit-sorted copy of the tile in shared memory, and the block
 * writes that copy out in runs of equal digits (coalesced). While a block works on one tile, the
 * next one (keys and values) is already on its way into the other shared buffer (cp.async), so
 * the loads overlap the ranking instead of stalling each tile.
 *
 * The fix of v2_warp_lane0: the count of a digit is written by the first lane holding that digit
 * in the warp (no lower lane shares it), so every digit present in the 32 keys gets its count.
 *
 * Measured on an H200 (CUDA events, median of 15, tests/test_radix_sort_gpu full): 2^28 keys
 * 8.12 ms = 1.29x CUB's 6.31 ms in the same run (v1_basic 12.66); 2^24 keys 0.59 ms (CUB 0.46);
 * 2^28 pairs 16.7 ms (CUB 7.43). Per pass at 2^28 keys: histogram 0.25 ms (4.2 TB/s, the copy
 * bandwidth), scan 0.005 ms, scatter 1.78 ms (8 bytes/key moved at 1.2 TB/s): the scatter is 87%
 * of the time and is bound by instruction issue, not memory (ncu at 2^24: SM 60%, DRAM 21%, 3
 * blocks of 256 per SM, limited by 80 registers and, for pairs, 74 KiB of shared memory). The
 * cp.async prefetch took 2^28 pairs from 20.2 to 16.7 ms (keys unchanged); __match_any_sync in
 * place of the 8 ballots was slower (10.1 ms at 2^28 keys). 48 bytes move per key (4 x histogram
 * read + scatter read + write) against CUB onesweep's ~36. */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "radix_sort.h"
#include "radix_sort_common.cuh"

#define RS_WARP_SLICE (32 * RADIX_SORT_ITEMS) /* keys of a tile one warp ranks */
/* dynamic shared memory: two tiles of keys, and of values for pairs */
#define RS_V3_SMEM(pairs) ((size_t)((pairs) ? 4 : 2) * RADIX_SORT_TILE * sizeof(uint32_t))

/* kernels */

template <bool PAIRS>
static __global__ __launch_bounds__(RADIX_SORT_BLOCK, 3) void rs_v3_scatter_kernel(
    const uint32_t *__restrict__ keys_in, const uint32_t *__restrict__ vals_in,
    uint32_t *__restrict__ keys_out, uint32_t *__restrict__ vals_out, int n, int shift,
    const uint32_t *__restrict__ hist, const uint32_t *__restrict__ totals, int nchunks,
    int tiles_per_chunk, int ntiles)
{
  /* dynamic: two tile buffers of keys (and of values), RS_V3_SMEM(PAIRS) bytes. Buffer `cur`
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
      if ((peers & lanes_below) == 0) /* the first lane holding this digit */
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

extern "C" int radix_sort_v3_warp_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                                         uint32_t *keys_out, const uint32_t *vals_in,
                                         uint32_t *vals_out, int n, void *stream)
{
  static const size_t smem[2] = {RS_V3_SMEM(false), RS_V3_SMEM(true)};
  static int occupancy[2];
  return rs_sort(rs_v3_scatter_kernel<false>, rs_v3_scatter_kernel<true>, smem, occupancy, d_temp,
                 temp_bytes, keys_in, keys_out, vals_in, vals_out, n, stream);
}
