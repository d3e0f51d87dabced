/* radix_sort v1_basic (fixed). The textbook scatter: each 4096-key tile is sorted by the pass's
 * digit in shared memory with 8 stable one-bit splits (Satish, Harris and Garland 2009), one per
 * bit of the digit from low to high. A split counts the zeros of the bit among each thread's 16
 * keys, scans the counts over the block, and moves every key to its new place: zeros first, in
 * order, then ones, in order. After the 8th split the tile is in digit order; the start of each
 * digit's run is where the digit changes, and the block writes the runs out (coalesced) at the
 * chunk's running position for that digit.
 *
 * Plain and obviously stable, and no warp-level ranking; the price is 8 block-wide scans and 8
 * trips of every key (and value) through shared memory per tile per pass, where v3_warp ranks the
 * whole digit at once with ballots. Measured on an H200: 2^28 keys 12.66 ms (2.0x CUB, v3_warp
 * 8.12), 2^28 pairs 22.3 ms; its scatter moves 0.74 TB/s (keys). */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "radix_sort.h"
#include "radix_sort_common.cuh"

/* shared-memory index of tile position i, padded by one word every 32 so that thread t reading
 * its positions t*16 + j (j fixed) hits 32 different banks */
#define RS_PAD(i) ((i) + ((i) >> 5))
#define RS_TILE_PADDED RS_PAD(RADIX_SORT_TILE)

/* device helpers */

/* Move this thread's keys (positions tid*ITEMS + j of the tile) to their place after a stable
 * split on bit `bit`, through s_keys/s_vals, and read back the thread's new keys. */
template <bool PAIRS>
__device__ static inline void rs_split(uint32_t *key, uint32_t *val, int bit, uint32_t *s_keys,
                                       uint32_t *s_vals, uint32_t *s_warp)
{
  int tid = threadIdx.x;
  uint32_t zeros = 0;
#pragma unroll
  for (int j = 0; j < RADIX_SORT_ITEMS; j++)
    zeros += ((key[j] >> bit) & 1u) ^ 1u;
  uint32_t total_zeros;
  /* the scan synchronises first: every thread is done reading the previous arrangement */
  uint32_t z = rs_block_exclusive_scan(zeros, s_warp, &total_zeros);
#pragma unroll
  for (int j = 0; j < RADIX_SORT_ITEMS; j++) {
    uint32_t idx = (uint32_t)(tid * RADIX_SORT_ITEMS + j);
    uint32_t pos;
    if ((key[j] >> bit) & 1u)
      pos = total_zeros + idx - z; /* ones before idx = idx - zeros before idx */
    else
      pos = z++;
    s_keys[RS_PAD(pos)] = key[j];
    if (PAIRS)
      s_vals[RS_PAD(pos)] = val[j];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < RADIX_SORT_ITEMS; j++) {
    key[j] = s_keys[RS_PAD(tid * RADIX_SORT_ITEMS + j)];
    if (PAIRS)
      val[j] = s_vals[RS_PAD(tid * RADIX_SORT_ITEMS + j)];
  }
}

/* kernels */

template <bool PAIRS>
static __global__ __launch_bounds__(RADIX_SORT_BLOCK) void rs_v1_scatter_kernel(
    const uint32_t *__restrict__ keys_in, const uint32_t *__restrict__ vals_in,
    uint32_t *__restrict__ keys_out, uint32_t *__restrict__ vals_out, int n, int shift,
    const uint32_t *__restrict__ hist, const uint32_t *__restrict__ totals, int nchunks,
    int tiles_per_chunk, int ntiles)
{
  __shared__ uint32_t s_keys[RS_TILE_PADDED];
  __shared__ uint32_t s_vals[PAIRS ? RS_TILE_PADDED : 1];
  __shared__ uint32_t s_start[RADIX_SORT_RADIX]; /* tile-local start of each digit's run */
  __shared__ uint32_t s_end[RADIX_SORT_RADIX];   /* and its end (start = end = 0: absent) */
  __shared__ uint32_t s_base[RADIX_SORT_RADIX];  /* output position of the next key */
  __shared__ uint32_t s_warp[RS_WARPS];
  int tid = threadIdx.x;

  s_base[tid] = rs_chunk_base(hist, totals, nchunks, s_warp);
  int tile_end = min((int)blockIdx.x * tiles_per_chunk + tiles_per_chunk, ntiles);
  for (int tile = (int)blockIdx.x * tiles_per_chunk; tile < tile_end; tile++) {
    int tile_base = tile * RADIX_SORT_TILE;
    int valid = min(RADIX_SORT_TILE, n - tile_base);
    /* coalesced load into shared memory, then each thread takes 16 consecutive positions */
    for (int i = tid; i < RADIX_SORT_TILE; i += RADIX_SORT_BLOCK) {
      s_keys[RS_PAD(i)] = i < valid ? keys_in[tile_base + i] : 0xffffffffu; /* padding last */
      if (PAIRS)
        s_vals[RS_PAD(i)] = i < valid ? vals_in[tile_base + i] : 0u;
    }
    s_start[tid] = 0;
    s_end[tid] = 0;
    __syncthreads();
    uint32_t key[RADIX_SORT_ITEMS], val[PAIRS ? RADIX_SORT_ITEMS : 1];
#pragma unroll
    for (int j = 0; j < RADIX_SORT_ITEMS; j++) {
      key[j] = s_keys[RS_PAD(tid * RADIX_SORT_ITEMS + j)];
      if (PAIRS)
        val[j] = s_vals[RS_PAD(tid * RADIX_SORT_ITEMS + j)];
    }
    for (int b = 0; b < RADIX_SORT_BITS; b++) {
      rs_split<PAIRS>(key, val, shift + b, s_keys, s_vals, s_warp);
    }

    /* digit runs: where the digit changes (positions past `valid` are padding) */
#pragma unroll
    for (int j = 0; j < RADIX_SORT_ITEMS; j++) {
      int i = tid * RADIX_SORT_ITEMS + j;
      if (i >= valid)
        break;
      uint32_t digit = rs_digit(key[j], shift);
      uint32_t prev = j > 0   ? rs_digit(key[j - 1], shift)
                      : i > 0 ? rs_digit(s_keys[RS_PAD(i - 1)], shift)
                              : RADIX_SORT_RADIX;
      if (digit != prev)
        s_start[digit] = (uint32_t)i;
      if (i + 1 == valid ||
          digit != (j + 1 < RADIX_SORT_ITEMS ? rs_digit(key[j + 1], shift)
                                             : rs_digit(s_keys[RS_PAD(i + 1)], shift)))
        s_end[digit] = (uint32_t)i + 1;
    }
    __syncthreads();

    /* out, in runs of equal digits */
    for (int i = tid; i < valid; i += RADIX_SORT_BLOCK) {
      uint32_t k = s_keys[RS_PAD(i)], digit = rs_digit(k, shift);
      uint32_t g = s_base[digit] + (uint32_t)i - s_start[digit];
      if (g < (uint32_t)n) {
        keys_out[g] = k;
        if (PAIRS)
          vals_out[g] = s_vals[RS_PAD(i)];
      }
    }
    __syncthreads();
    s_base[tid] += s_end[tid] - s_start[tid];
  }
}

/* launcher */

extern "C" int radix_sort_v1_basic_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                                          uint32_t *keys_out, const uint32_t *vals_in,
                                          uint32_t *vals_out, int n, void *stream)
{
  static const size_t smem[2] = {0, 0}; /* static shared memory only */
  static int occupancy[2];
  return rs_sort(rs_v1_scatter_kernel<false>, rs_v1_scatter_kernel<true>, smem, occupancy, d_temp,
                 temp_bytes, keys_in, keys_out, vals_in, vals_out, n, stream);
}
