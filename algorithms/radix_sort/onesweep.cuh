/* The onesweep LSD radix sort shared by radix_sort v4_onesweep and v5_match_or (their files
 * carry the design and the measurements): the up-front histogram of all four digits, then one pass
 * kernel per digit that ranks a tile in registers, publishes its digit counts by decoupled
 * look-back and scatters. What varies is a template argument: the tile's shape (os_shape, keys and
 * pairs apart) and how a warp finds the lanes holding the same digit (8 ballots, or an atomicOr
 * per lane into a per-warp word of the digit). */
#pragma once

#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "radix_sort.h"
#include "radix_sort_common.cuh" /* rs_digit, rs_warp_match, rs_block_exclusive_scan, ... */

/* A pass kernel's shape: THREADS x ITEMS keys a tile, MINB resident blocks per SM (the register
 * cap of __launch_bounds__), how a warp finds the lanes of its digit (MATCH_OR: an atomicOr per
 * lane into the warp's word of the digit, else 8 ballots), and for pairs how the values travel
 * (IN_PLACE: put in digit order in their own buffer before the look-back and written with the
 * keys, os_pass_in_place_kernel; else through the keys' buffer after the keys are out). */
template <int THREADS, int ITEMS, int MINB, bool MATCH_OR = false, bool IN_PLACE = false>
struct os_shape {
  static_assert(THREADS % 32 == 0, "whole warps");
  static constexpr int threads = THREADS, items = ITEMS, minb = MINB;
  static constexpr bool match_or = MATCH_OR, in_place = IN_PLACE;
  static constexpr size_t tile = (size_t)THREADS * ITEMS;
};

#define OS_HIST_THREADS 256 /* threads per block of the histogram kernel */
#define OS_FLAG_COUNT (1u << 30)  /* look-back word: this tile's count */
#define OS_FLAG_PREFIX (2u << 30) /* look-back word: inclusive prefix */
#define OS_VALUE ((1u << 30) - 1) /* the count bits of a look-back word (n < 2^30) */
#define OS_HIST_BLOCKS_PER_SM 4

/* device helpers */

/* A look-back word, read from L2 (never a stale L1 copy). */
__device__ static inline uint32_t os_load_relaxed(const uint32_t *p)
{
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ static inline void os_store_relaxed(uint32_t *p, uint32_t v)
{
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Asynchronous copy of 16 bytes global -> shared (cp.async; both addresses 16-byte aligned),
 * zero-filled when !valid (src is then not read); the 16-byte rs_cp_async4. */
__device__ static inline void os_cp_async16(uint32_t *dst, const uint32_t *src, bool valid)
{
  unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src),
               "r"(valid ? 16 : 0)
               : "memory");
}

/* kernels */

/* hist[p * RADIX + d] += keys with digit d in byte p, over this block's share of the keys; the
 * block also clears its share of `clear` (clear_words words, a multiple of 4, 16-byte aligned). */
static __global__ __launch_bounds__(OS_HIST_THREADS) void os_histogram_kernel(
    const uint32_t *__restrict__ keys, int n, uint32_t *__restrict__ hist,
    uint32_t *__restrict__ clear, size_t clear_words)
{
  __shared__ uint32_t s_hist[RADIX_SORT_PASSES * RADIX_SORT_RADIX];
  int tid = threadIdx.x;
  size_t stride = (size_t)gridDim.x * OS_HIST_THREADS;
  size_t first = (size_t)blockIdx.x * OS_HIST_THREADS + tid;
  for (int i = tid; i < RADIX_SORT_PASSES * RADIX_SORT_RADIX; i += OS_HIST_THREADS)
    s_hist[i] = 0;
  uint4 *c4 = (uint4 *)clear;
  for (size_t q = first; q < clear_words / 4; q += stride)
    c4[q] = make_uint4(0, 0, 0, 0);
  __syncthreads();
  size_t head = 0; /* keys before the first 16-byte boundary, counted one by one */
  if ((uintptr_t)keys & 15)
    head = (16 - ((uintptr_t)keys & 15)) / 4;
  if (head > (size_t)n)
    head = (size_t)n;
  const uint4 *k4 = (const uint4 *)(keys + head);
  size_t quads = ((size_t)n - head) / 4;
  for (size_t q = first; q < quads; q += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; u++) {
      size_t qu = q + u * stride;
      v[u] = qu < quads ? k4[qu] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < 4; u++) {
      if (q + u * stride < quads) {
        uint32_t k[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
          for (int p = 0; p < RADIX_SORT_PASSES; p++)
            atomicAdd(&s_hist[p * RADIX_SORT_RADIX + rs_digit(k[j], p * RADIX_SORT_BITS)], 1u);
      }
    }
  }
  /* the head and the tail (at most 3 keys each) go to block 0 */
  if (blockIdx.x == 0 && tid < 6) {
    size_t i = tid < 3 ? (size_t)tid : head + quads * 4 + (size_t)(tid - 3);
    if ((tid < 3 && i < head) || (tid >= 3 && i < (size_t)n)) {
#pragma unroll
      for (int p = 0; p < RADIX_SORT_PASSES; p++)
        atomicAdd(&s_hist[p * RADIX_SORT_RADIX + rs_digit(keys[i], p * RADIX_SORT_BITS)], 1u);
    }
  }
  __syncthreads();
  for (int i = tid; i < RADIX_SORT_PASSES * RADIX_SORT_RADIX; i += OS_HIST_THREADS)
    if (s_hist[i])
      atomicAdd(&hist[i], s_hist[i]);
}

/* os_histogram_kernel with a copy of the four histograms per lane, s_hist[(p * RADIX + d) * 32 +
 * lane], summed at the end: a lane's shared atomic meets no other lane's bank, where the plain
 * kernel's 4 atomics a key (~3.5 wavefronts each on random digits) bound it (0.47 ms of a 2^28
 * sort on an H200). 128 KiB of shared memory: one block of THREADS = OS_LANE_HIST_THREADS an SM,
 * where the device lets a block have it (os_lane_hist_ok). Its load loop is
 * os_histogram_kernel's, which keeps its own copy: sharing it changed v4's and v5's machine code.
 * A template, so that only the sorts that use it build it. */
#define OS_LANE_HIST_THREADS 1024
#define OS_LANE_HIST_SMEM (RADIX_SORT_PASSES * RADIX_SORT_RADIX * 32 * sizeof(uint32_t))
template <int THREADS>
static __global__ __launch_bounds__(THREADS, 1) void os_lane_histogram_kernel(
    const uint32_t *__restrict__ keys, int n, uint32_t *__restrict__ hist,
    uint32_t *__restrict__ clear, size_t clear_words)
{
  constexpr int WORDS = RADIX_SORT_PASSES * RADIX_SORT_RADIX;
  extern __shared__ uint4 s_dynamic[];
  uint32_t *s_hist = (uint32_t *)s_dynamic;
  int tid = threadIdx.x, lane = tid % 32;
  size_t stride = (size_t)gridDim.x * THREADS;
  size_t first = (size_t)blockIdx.x * THREADS + tid;
  for (int i = tid; i < WORDS * 32 / 4; i += THREADS)
    s_dynamic[i] = make_uint4(0, 0, 0, 0);
  uint4 *c4 = (uint4 *)clear;
  for (size_t q = first; q < clear_words / 4; q += stride)
    c4[q] = make_uint4(0, 0, 0, 0);
  __syncthreads();
  size_t head = 0; /* keys before the first 16-byte boundary, counted one by one */
  if ((uintptr_t)keys & 15)
    head = (16 - ((uintptr_t)keys & 15)) / 4;
  if (head > (size_t)n)
    head = (size_t)n;
  const uint4 *k4 = (const uint4 *)(keys + head);
  size_t quads = ((size_t)n - head) / 4;
  for (size_t q = first; q < quads; q += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; u++) {
      size_t qu = q + u * stride;
      v[u] = qu < quads ? k4[qu] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < 4; u++) {
      if (q + u * stride < quads) {
        uint32_t k[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
          for (int p = 0; p < RADIX_SORT_PASSES; p++)
            atomicAdd(
                &s_hist[(p * RADIX_SORT_RADIX + rs_digit(k[j], p * RADIX_SORT_BITS)) * 32 + lane],
                1u);
      }
    }
  }
  /* the head and the tail (at most 3 keys each) go to block 0 */
  if (blockIdx.x == 0 && tid < 6) {
    size_t i = tid < 3 ? (size_t)tid : head + quads * 4 + (size_t)(tid - 3);
    if ((tid < 3 && i < head) || (tid >= 3 && i < (size_t)n)) {
#pragma unroll
      for (int p = 0; p < RADIX_SORT_PASSES; p++)
        atomicAdd(
            &s_hist[(p * RADIX_SORT_RADIX + rs_digit(keys[i], p * RADIX_SORT_BITS)) * 32 + lane],
            1u);
    }
  }
  __syncthreads();
  for (int i = tid; i < WORDS; i += THREADS) {
    uint32_t sum = 0;
#pragma unroll 8
    for (int c = 0; c < 32; c++) /* from copy `lane` on: a warp's reads meet 32 banks */
      sum += s_hist[i * 32 + ((c + lane) & 31)];
    if (sum)
      atomicAdd(&hist[i], sum);
  }
}

/* Publish a tile's count of digit tid (thread tid < RADIX speaks for it; every thread calls):
 * tile 0 the inclusive prefix, seeded with the digit's output start (the exclusive scan of the
 * up-front histogram), which it returns; other tiles their count, returning 0. */
template <int WARPS>
__device__ static inline uint32_t os_publish(int tile, uint32_t count, const uint32_t *hist,
                                             uint32_t *row, uint32_t *s_warp, bool digit_thread)
{
  uint32_t prefix = 0, all;
  if (tile == 0) {
    prefix = rs_block_exclusive_scan<WARPS>(digit_thread ? hist[threadIdx.x] : 0, s_warp, &all);
    if (digit_thread)
      os_store_relaxed(row + threadIdx.x, OS_FLAG_PREFIX | (prefix + count));
  } else if (digit_thread) {
    os_store_relaxed(row + threadIdx.x, OS_FLAG_COUNT | count);
  }
  return prefix;
}

/* The steps of a pass kernel, os_pass_in_place_kernel's. A tile is THREADS x ITEMS keys; warp w
 * ranks slice w of it (32 x ITEMS keys, lane l holding keys l, l + 32, ...). os_pass_kernel (v4's
 * and v5's) keeps its own copy of them on purpose: built from these, its code changed (the .text
 * sections of v4_onesweep's and v5_match_or's cubins differ, nvcc 13.0 -arch=sm_90 -O3), and their
 * history stays anchored to the code it measured. */

/* A tile's start, every thread: the next tile from the counter (returned; *s_tile passes it
 * round), the warp's counts and match words zeroed, the tile's row of the next pass's look-back
 * cleared, the slice's keys into key (padding is digit 255, ranks last, past *valid) and, for
 * pairs, the tile's values into s_vals in input order by cp.async (one group, not waited for:
 * no register holds them meanwhile). */
template <int THREADS, int ITEMS, bool PAIRS, bool MATCH_OR>
__device__ static inline int
os_tile_begin(const uint32_t *__restrict__ keys_in, const uint32_t *__restrict__ vals_in, int n,
              uint32_t *tile_counter, uint32_t *__restrict__ next, int *s_tile, uint32_t *counts,
              uint32_t *match, uint32_t (&key)[ITEMS], uint32_t *s_vals, int *valid)
{
  constexpr int SLICE = 32 * ITEMS, TILE = THREADS * ITEMS;
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  if (tid == 0)
    *s_tile = (int)atomicAdd(tile_counter, 1u);
#pragma unroll
  for (int d = lane; d < RADIX_SORT_RADIX; d += 32) {
    counts[d] = 0;
    if (MATCH_OR)
      match[d] = 0;
  }
  __syncthreads();
  int tile = *s_tile;
  int tile_base = tile * TILE;
  *valid = min(TILE, n - tile_base);
  int slice = warp * SLICE + lane;
  if (next && tid < RADIX_SORT_RADIX)
    next[(size_t)tile * RADIX_SORT_RADIX + tid] = 0;
#pragma unroll
  for (int r = 0; r < ITEMS; r++)
    key[r] = slice + r * 32 < *valid ? keys_in[tile_base + slice + r * 32] : 0xffffffffu;
  if (PAIRS) {
    const uint32_t *src = vals_in + tile_base;
    if (*valid == TILE && ((uintptr_t)src & 15) == 0) {
#pragma unroll
      for (int i = 4 * tid; i < TILE; i += 4 * THREADS)
        os_cp_async16(s_vals + i, src + i, true);
    } else {
      for (int i = tid; i < TILE; i += THREADS)
        rs_cp_async4(s_vals + i, src + (i < *valid ? i : 0), i < *valid);
    }
    rs_cp_async_commit();
  }
  return tile;
}

/* Rank the warp's slice, 32 keys per round: rank[r / 2] gets two 16-bit ranks (< the slice) of
 * key[r] among the slice's keys of its digit, stable. counts: the warp's per-digit counts (zero
 * before, the slice's counts after); match: the warp's per-digit words (zero, MATCH_OR). */
template <int ITEMS, bool MATCH_OR>
__device__ static inline void os_rank_slice(const uint32_t (&key)[ITEMS],
                                            uint32_t (&rank)[(ITEMS + 1) / 2], int shift,
                                            uint32_t *counts, uint32_t *match)
{
  int lane = threadIdx.x % 32;
  uint32_t lanes_below = (1u << lane) - 1u;
#pragma unroll
  for (int r = 0; r < ITEMS; r++) {
    uint32_t digit = rs_digit(key[r], shift);
    uint32_t peers;
    if (MATCH_OR) { /* each lane sets its bit in its digit's word, then reads the word back */
      atomicOr(&match[digit], 1u << lane);
      __syncwarp();
      peers = match[digit];
    } else {
      peers = rs_warp_match(digit);
    }
    uint32_t before = counts[digit];
    uint32_t my_rank = before + __popc(peers & lanes_below);
    rank[r / 2] = r % 2 ? rank[r / 2] | my_rank << 16 : my_rank;
    __syncwarp();
    if ((peers & lanes_below) == 0) { /* the first lane holding this digit */
      counts[digit] = before + __popc(peers);
      if (MATCH_OR)
        match[digit] = 0;
    }
    __syncwarp();
  }
}

/* After the ranking (and a barrier), thread tid = digit: the tile's count of its digit (padding
 * included, only in the last tile, whose counts nobody reads), published at once, tile 0 the
 * inclusive prefix seeded with where the digit starts in the output (*prefix, else 0); *start
 * the digit's tile position. Every warp's count of each digit becomes the tile position of its
 * first key of the digit (s_counts). Ends with a barrier. Every thread calls. */
template <int WARPS>
__device__ static inline uint32_t os_tile_offsets(int tile, const uint32_t *hist, uint32_t *row,
                                                  uint32_t *s_counts, uint32_t *s_warp,
                                                  uint32_t *prefix, uint32_t *start)
{
  int tid = threadIdx.x;
  bool digit_thread = tid < RADIX_SORT_RADIX;
  uint32_t count = 0, all;
#pragma unroll
  for (int w = 0; w < WARPS; w++)
    count += digit_thread ? s_counts[w * RADIX_SORT_RADIX + tid] : 0;
  *prefix = os_publish<WARPS>(tile, count, hist, row, s_warp, digit_thread);
  *start = rs_block_exclusive_scan<WARPS>(count, s_warp, &all);
  uint32_t run = *start;
#pragma unroll
  for (int w = 0; w < WARPS; w++) {
    if (digit_thread) {
      uint32_t c = s_counts[w * RADIX_SORT_RADIX + tid];
      s_counts[w * RADIX_SORT_RADIX + tid] = run;
      run += c;
    }
  }
  __syncthreads();
  return count;
}

/* The slice's keys to their tile positions in s_keys (counts: the warp's tile positions of its
 * digits); rank becomes the tile position. */
template <int ITEMS>
__device__ static inline void os_place_keys(const uint32_t (&key)[ITEMS],
                                            uint32_t (&rank)[(ITEMS + 1) / 2], int shift,
                                            const uint32_t *counts, uint32_t *s_keys)
{
#pragma unroll
  for (int r = 0; r < ITEMS; r++) {
    uint32_t half = (rank[r / 2] >> (16 * (r % 2))) & 0xffffu;
    uint32_t pos = counts[rs_digit(key[r], shift)] + half;
    rank[r / 2] += (pos - half) << (16 * (r % 2));
    s_keys[pos] = key[r];
  }
}

/* Thread tid < RADIX of tile > 0: sum the counts of earlier tiles of digit tid until an
 * inclusive prefix, publish this tile's (adding count) and return the exclusive one; others
 * return prefix unchanged. */
__device__ static inline uint32_t os_look_back(int tile, uint32_t *row, uint32_t prefix,
                                               uint32_t count)
{
  int tid = threadIdx.x;
  if (tile > 0 && tid < RADIX_SORT_RADIX) {
    const uint32_t *p = row;
    for (;;) {
      p -= RADIX_SORT_RADIX;
      uint32_t w;
      do
        w = os_load_relaxed(p + tid);
      while ((w & ~OS_VALUE) == 0);
      prefix += w & OS_VALUE;
      if (w & OS_FLAG_PREFIX)
        break;
    }
    os_store_relaxed(row + tid, OS_FLAG_PREFIX | (prefix + count));
  }
  return prefix;
}

/* One digit pass: every block takes the next tile (counter), ranks it, publishes its digit counts
 * in row `tile` of `status` (look-back), and scatters its keys (and values when PAIRS) to their
 * output positions. hist: the up-front histogram of this digit (RADIX words). next: the look-back
 * rows of the next pass, whose row `tile` this block clears (NULL in the last pass). A tile is
 * THREADS x ITEMS keys; MINB blocks per SM cap the registers. */
template <bool PAIRS, int THREADS, int ITEMS, int MINB, bool MATCH_OR>
static __global__ __launch_bounds__(THREADS, MINB) void os_pass_kernel(
    const uint32_t *__restrict__ keys_in, const uint32_t *__restrict__ vals_in,
    uint32_t *__restrict__ keys_out, uint32_t *__restrict__ vals_out, int n, int shift,
    const uint32_t *__restrict__ hist, uint32_t *tile_counter, uint32_t *status,
    uint32_t *__restrict__ next)
{
  constexpr int WARPS = THREADS / 32, SLICE = 32 * ITEMS; /* a warp ranks a slice of the tile */
  constexpr int TILE = THREADS * ITEMS;
  static_assert(THREADS >= RADIX_SORT_RADIX && TILE < 65536, "tile shape (16-bit ranks)");
  extern __shared__ uint4 s_dynamic[];      /* os_smem(PAIRS, TILE) bytes: */
  uint32_t *s_keys = (uint32_t *)s_dynamic; /* the tile in digit order (keys, then values) */
  uint32_t *s_vals = s_keys + TILE;      /* its values in input order (PAIRS) */
  __shared__ uint32_t s_counts[WARPS * RADIX_SORT_RADIX]; /* per warp and digit */
  __shared__ uint32_t s_base[RADIX_SORT_RADIX]; /* output position - tile position, per digit */
  __shared__ uint32_t s_warp[WARPS];
  __shared__ uint32_t s_match[MATCH_OR ? WARPS * RADIX_SORT_RADIX : 1]; /* per warp and digit */
  __shared__ int s_tile;
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  bool digit_thread = tid < RADIX_SORT_RADIX; /* thread tid speaks for digit tid */
  uint32_t lanes_below = (1u << lane) - 1u;
  uint32_t *counts = s_counts + warp * RADIX_SORT_RADIX;

  if (tid == 0)
    s_tile = (int)atomicAdd(tile_counter, 1u);
  uint32_t *match = s_match + (MATCH_OR ? warp * RADIX_SORT_RADIX : 0);
#pragma unroll
  for (int d = lane; d < RADIX_SORT_RADIX; d += 32) {
    counts[d] = 0;
    if (MATCH_OR)
      match[d] = 0;
  }
  __syncthreads();
  int tile = s_tile;
  int tile_base = tile * TILE;
  int valid = min(TILE, n - tile_base);
  int slice = warp * SLICE + lane; /* this lane's tile position in round 0 */
  uint32_t *row = status + (size_t)tile * RADIX_SORT_RADIX;
  if (next && digit_thread)
    next[(size_t)tile * RADIX_SORT_RADIX + tid] = 0;

  uint32_t key[ITEMS];
#pragma unroll
  for (int r = 0; r < ITEMS; r++) /* padding is digit 255, ranks last, past `valid` */
    key[r] = slice + r * 32 < valid ? keys_in[tile_base + slice + r * 32] : 0xffffffffu;
  if (PAIRS) { /* the values wait in shared memory, no register holds them meanwhile */
    const uint32_t *src = vals_in + tile_base;
    if (valid == TILE && ((uintptr_t)src & 15) == 0) {
#pragma unroll
      for (int i = 4 * tid; i < TILE; i += 4 * THREADS)
        os_cp_async16(s_vals + i, src + i, true);
    } else {
      for (int i = tid; i < TILE; i += THREADS)
        rs_cp_async4(s_vals + i, src + (i < valid ? i : 0), i < valid);
    }
    rs_cp_async_commit();
  }

  /* rank within the warp's slice, 32 keys per round */
  uint32_t rank[(ITEMS + 1) / 2]; /* two 16-bit ranks (< SLICE) per register */
#pragma unroll
  for (int r = 0; r < ITEMS; r++) {
    uint32_t digit = rs_digit(key[r], shift);
    uint32_t peers;
    if (MATCH_OR) { /* each lane sets its bit in its digit's word, then reads the word back */
      atomicOr(&match[digit], 1u << lane);
      __syncwarp();
      peers = match[digit];
    } else {
      peers = rs_warp_match(digit);
    }
    uint32_t before = counts[digit];
    uint32_t my_rank = before + __popc(peers & lanes_below);
    rank[r / 2] = r % 2 ? rank[r / 2] | my_rank << 16 : my_rank;
    __syncwarp();
    if ((peers & lanes_below) == 0) { /* the first lane holding this digit */
      counts[digit] = before + __popc(peers);
      if (MATCH_OR)
        match[digit] = 0;
    }
    __syncwarp();
  }
  __syncthreads();

  /* thread tid = digit: the tile's count (padding included, only in the last tile, whose
   * counts nobody reads), published at once; tile 0 publishes the inclusive prefix, seeded with
   * where the digit starts in the output */
  uint32_t count = 0, all;
#pragma unroll
  for (int w = 0; w < WARPS; w++)
    count += digit_thread ? s_counts[w * RADIX_SORT_RADIX + tid] : 0;
  uint32_t prefix = os_publish<WARPS>(tile, count, hist, row, s_warp, digit_thread);
  /* tile position of the digit */
  uint32_t start = rs_block_exclusive_scan<WARPS>(count, s_warp, &all);
  uint32_t run = start;
#pragma unroll
  for (int w = 0; w < WARPS; w++) {
    if (digit_thread) {
      uint32_t c = s_counts[w * RADIX_SORT_RADIX + tid];
      s_counts[w * RADIX_SORT_RADIX + tid] = run;
      run += c;
    }
  }
  __syncthreads();

  /* the tile's keys in digit order; rank becomes the tile position */
#pragma unroll
  for (int r = 0; r < ITEMS; r++) {
    uint32_t half = (rank[r / 2] >> (16 * (r % 2))) & 0xffffu;
    uint32_t pos = counts[rs_digit(key[r], shift)] + half;
    rank[r / 2] += (pos - half) << (16 * (r % 2));
    s_keys[pos] = key[r];
  }

  /* look back: sum the counts of earlier tiles until an inclusive prefix */
  if (tile > 0 && digit_thread) {
    const uint32_t *p = row;
    for (;;) {
      p -= RADIX_SORT_RADIX;
      uint32_t w;
      do
        w = os_load_relaxed(p + tid);
      while ((w & ~OS_VALUE) == 0);
      prefix += w & OS_VALUE;
      if (w & OS_FLAG_PREFIX)
        break;
    }
    os_store_relaxed(row + tid, OS_FLAG_PREFIX | (prefix + count));
  }
  if (digit_thread)
    s_base[tid] = prefix - start;
  __syncthreads();

  /* out, in runs of equal digits */
  uint32_t out[PAIRS ? ITEMS : 1]; /* output position of tile position tid + r * THREADS */
#pragma unroll
  for (int r = 0; r < ITEMS; r++) {
    int i = tid + r * THREADS;
    if (i < valid) {
      uint32_t k = s_keys[i];
      uint32_t g = s_base[rs_digit(k, shift)] + (uint32_t)i;
      keys_out[g] = k;
      if (PAIRS)
        out[r] = g;
    }
  }
  if (PAIRS) { /* the values take the keys' way through s_keys */
    rs_cp_async_wait<0>();
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; r++)
      s_keys[(rank[r / 2] >> (16 * (r % 2))) & 0xffffu] = s_vals[slice + r * 32];
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; r++) {
      int i = tid + r * THREADS;
      if (i < valid)
        vals_out[out[r]] = s_keys[i];
    }
  }
}

/* One digit pass over pairs with the values in place (os_shape IN_PLACE; radix_sort v6): as
 * os_pass_kernel up to the keys in digit order in s_keys; then, before the look-back, the values
 * (copied to s_vals in input order while the keys were ranked) go to digit order in s_vals
 * itself, through registers, so that the look-back waits on tiles that had that long more to
 * publish; then every thread writes keys and values of the same tile positions together (one
 * output position each, no register holding it). */
template <int THREADS, int ITEMS, int MINB, bool MATCH_OR>
static __global__ __launch_bounds__(THREADS, MINB) void os_pass_in_place_kernel(
    const uint32_t *__restrict__ keys_in, const uint32_t *__restrict__ vals_in,
    uint32_t *__restrict__ keys_out, uint32_t *__restrict__ vals_out, int n, int shift,
    const uint32_t *__restrict__ hist, uint32_t *tile_counter, uint32_t *status,
    uint32_t *__restrict__ next)
{
  constexpr int WARPS = THREADS / 32, SLICE = 32 * ITEMS;
  constexpr int TILE = THREADS * ITEMS;
  static_assert(THREADS >= RADIX_SORT_RADIX && TILE < 65536, "tile shape (16-bit ranks)");
  extern __shared__ uint4 s_dynamic[];      /* os_smem(1, TILE) bytes: */
  uint32_t *s_keys = (uint32_t *)s_dynamic; /* the keys in digit order */
  uint32_t *s_vals = s_keys + TILE;         /* the values, in input order, then in digit order */
  __shared__ uint32_t s_counts[WARPS * RADIX_SORT_RADIX];
  __shared__ uint32_t s_base[RADIX_SORT_RADIX];
  __shared__ uint32_t s_warp[WARPS];
  __shared__ uint32_t s_match[MATCH_OR ? WARPS * RADIX_SORT_RADIX : 1];
  __shared__ int s_tile;
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  uint32_t *counts = s_counts + warp * RADIX_SORT_RADIX;
  uint32_t *match = s_match + (MATCH_OR ? warp * RADIX_SORT_RADIX : 0);
  uint32_t key[ITEMS];
  int valid;
  int tile = os_tile_begin<THREADS, ITEMS, true, MATCH_OR>(
      keys_in, vals_in, n, tile_counter, next, &s_tile, counts, match, key, s_vals, &valid);
  int slice = warp * SLICE + lane;
  uint32_t *row = status + (size_t)tile * RADIX_SORT_RADIX;
  uint32_t rank[(ITEMS + 1) / 2];
  os_rank_slice<ITEMS, MATCH_OR>(key, rank, shift, counts, match);
  __syncthreads();
  uint32_t prefix, start;
  uint32_t count = os_tile_offsets<WARPS>(tile, hist, row, s_counts, s_warp, &prefix, &start);
  os_place_keys<ITEMS>(key, rank, shift, counts, s_keys);

  /* the values to digit order: each thread's own (its slice's, which the cp.async of every
   * thread brought), then, all read, to their tile positions */
  rs_cp_async_wait<0>();
  __syncthreads();
  {
    uint32_t v[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; r++)
      v[r] = s_vals[slice + r * 32];
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; r++)
      s_vals[(rank[r / 2] >> (16 * (r % 2))) & 0xffffu] = v[r];
  }

  prefix = os_look_back(tile, row, prefix, count);
  if (tid < RADIX_SORT_RADIX)
    s_base[tid] = prefix - start;
  __syncthreads();

  /* out, in runs of equal digits: a key and its value to the same output position */
#pragma unroll
  for (int r = 0; r < ITEMS; r++) {
    int i = tid + r * THREADS;
    if (i < valid) {
      uint32_t k = s_keys[i];
      uint32_t g = s_base[rs_digit(k, shift)] + (uint32_t)i;
      keys_out[g] = k;
      vals_out[g] = s_vals[i];
    }
  }
}

/* launcher */

/* The scratch: alternate keys (and values), the histograms and tile counters, two sets of
 * look-back rows. Offsets in bytes. */
struct os_plan {
  int ntiles;
  size_t keys_alt, vals_alt, hist, counters, status[2], status_bytes, bytes;
};

static size_t os_align(size_t x)
{
  return (x + 255) & ~(size_t)255;
}

static void os_plan_make(int n, int pairs, size_t tile, struct os_plan *p)
{
  size_t data = os_align((size_t)n * sizeof(uint32_t));
  p->ntiles = (int)(((size_t)n + tile - 1) / tile);
  p->keys_alt = 0;
  p->vals_alt = data;
  p->hist = data * (pairs ? 2 : 1);
  p->counters = p->hist + RADIX_SORT_PASSES * RADIX_SORT_RADIX * sizeof(uint32_t);
  p->status_bytes = os_align((size_t)p->ntiles * RADIX_SORT_RADIX * sizeof(uint32_t));
  p->status[0] = p->counters + os_align(RADIX_SORT_PASSES * sizeof(uint32_t));
  p->status[1] = p->status[0] + p->status_bytes;
  p->bytes = p->status[1] + p->status_bytes;
}

static inline void os_trace_record(int slot, cudaStream_t stream)
{
  if (radix_sort_trace)
    GR_CUDA_CHECK(cudaEventRecord(((cudaEvent_t *)radix_sort_trace)[slot], stream));
}

typedef void (*os_pass_fn)(const uint32_t *, const uint32_t *, uint32_t *, uint32_t *, int, int,
                           const uint32_t *, uint32_t *, uint32_t *, uint32_t *);

/* The pass kernel of pairs of shape S: values in place, or through the keys' buffer. */
template <class S> static os_pass_fn os_pairs_kernel(void)
{
  if constexpr (S::in_place)
    return os_pass_in_place_kernel<S::threads, S::items, S::minb, S::match_or>;
  else
    return os_pass_kernel<true, S::threads, S::items, S::minb, S::match_or>;
}

/* Whether the current device lets a block have os_lane_histogram_kernel's shared memory (an H100
 * or H200: 227 KiB; an RTX 30xx/40xx or L4: 99 KiB, where the plain histogram runs); its limit
 * raised on the first call. One device per process, as os_sort's sm_count. A template only so
 * that a file that never calls it (v4's, v5's) does not build the kernel it names. */
template <int THREADS = OS_LANE_HIST_THREADS> static int os_lane_hist_ok(void)
{
  static int ok = -1;
  if (ok < 0) {
    int dev, optin;
    GR_CUDA_CHECK(cudaGetDevice(&dev));
    GR_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    ok = (size_t)optin >= OS_LANE_HIST_SMEM;
    if (ok)
      GR_CUDA_CHECK(cudaFuncSetAttribute((const void *)os_lane_histogram_kernel<THREADS>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)OS_LANE_HIST_SMEM));
  }
  return ok;
}

/* The sort of n keys (and values when vals_in) with the pass kernel of shape KEYS for keys and
 * PAIRS for pairs (os_shape: its size, ranking, publishing and, for pairs, the values' way), the
 * up-front histogram os_lane_histogram_kernel's with LANE_HIST where the device can, else
 * os_histogram_kernel's; the launcher contract of radix_sort.h (d_temp NULL: *temp_bytes gets the
 * scratch size). */
template <class KEYS, class PAIRS, bool LANE_HIST = false>
static int os_sort(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in, uint32_t *keys_out,
                   const uint32_t *vals_in, uint32_t *vals_out, int n, void *stream)
{
  static_assert(!KEYS::in_place, "values in place: a pairs shape");
  static int sm_count; /* one device per process */
  static int ready[2]; /* the pass kernel's dynamic shared memory limit is raised */
  int pairs = vals_in != NULL;
  os_pass_fn pass_kernel =
      pairs ? os_pairs_kernel<PAIRS>()
            : os_pass_kernel<false, KEYS::threads, KEYS::items, KEYS::minb, KEYS::match_or>;
  const int threads = pairs ? PAIRS::threads : KEYS::threads;
  const size_t tile = pairs ? PAIRS::tile : KEYS::tile;
  const size_t smem = pairs ? 2 * tile * sizeof(uint32_t) : tile * sizeof(uint32_t);
  struct os_plan p;
  os_plan_make(n, pairs, tile, &p);
  if (!d_temp) {
    *temp_bytes = p.bytes;
    return 0;
  }
  if (n <= 0)
    return 0;
  if (!sm_count) {
    int dev;
    GR_CUDA_CHECK(cudaGetDevice(&dev));
    GR_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
  }
  if (!ready[pairs]) {
    GR_CUDA_CHECK(cudaFuncSetAttribute((const void *)pass_kernel,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)smem));
    ready[pairs] = 1;
  }
  cudaStream_t s = (cudaStream_t)stream;
  char *t = (char *)d_temp;
  uint32_t *keys_alt = (uint32_t *)(t + p.keys_alt), *vals_alt = (uint32_t *)(t + p.vals_alt);
  uint32_t *hist = (uint32_t *)(t + p.hist), *counters = (uint32_t *)(t + p.counters);
  uint32_t *status[2] = {(uint32_t *)(t + p.status[0]), (uint32_t *)(t + p.status[1])};
  os_trace_record(0, s);
  GR_CUDA_CHECK(cudaMemsetAsync(hist, 0, p.status[0] - p.hist, s));
  bool lanes = false;
  if constexpr (LANE_HIST)
    if ((lanes = os_lane_hist_ok()))
      os_lane_histogram_kernel<OS_LANE_HIST_THREADS>
          <<<sm_count, OS_LANE_HIST_THREADS, OS_LANE_HIST_SMEM, s>>>(
              keys_in, n, hist, status[0], p.status_bytes / sizeof(uint32_t));
  if (!lanes)
    os_histogram_kernel<<<sm_count * OS_HIST_BLOCKS_PER_SM, OS_HIST_THREADS, 0, s>>>(
        keys_in, n, hist, status[0], p.status_bytes / sizeof(uint32_t));
  GR_CUDA_LAUNCH_CHECK();
  for (int pass = 0; pass < RADIX_SORT_PASSES; pass++) {
    /* in -> alt, alt -> out, out -> alt, alt -> out */
    const uint32_t *src_k = pass == 0 ? keys_in : pass % 2 ? keys_alt : keys_out;
    const uint32_t *src_v = pass == 0 ? vals_in : pass % 2 ? vals_alt : vals_out;
    uint32_t *dst_k = pass % 2 ? keys_out : keys_alt;
    uint32_t *dst_v = pass % 2 ? vals_out : vals_alt;
    uint32_t *next = pass + 1 < RADIX_SORT_PASSES ? status[(pass + 1) % 2] : NULL;
    /* trace: the up-front histogram stands in pass 0's histogram slot; no scan kernel */
    os_trace_record(1 + 3 * pass, s);
    os_trace_record(2 + 3 * pass, s);
    pass_kernel<<<p.ntiles, threads, smem, s>>>(
        src_k, pairs ? src_v : NULL, dst_k, pairs ? dst_v : NULL, n, pass * RADIX_SORT_BITS,
        hist + pass * RADIX_SORT_RADIX, counters + pass, status[pass % 2], next);
    GR_CUDA_LAUNCH_CHECK();
    os_trace_record(3 + 3 * pass, s);
  }
  return 0;
}
