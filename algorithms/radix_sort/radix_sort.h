/* GPU variants of radix_sort: stable LSD radix sort of n uint32 keys, optionally carrying one
 * uint32 value per key, 8-bit digits, 4 passes.
 *
 * Every launcher has CUB's two-phase shape: called with d_temp == NULL it only stores in
 * *temp_bytes the scratch it needs for (n, keys or pairs) on the current device and returns 0;
 * called with d_temp pointing at that much device memory it enqueues the whole sort on `stream`
 * (no allocation, no synchronisation) and returns 0. vals_in == NULL means keys only (vals_out is
 * then ignored). The inputs are left untouched and may not alias the outputs, so the same call
 * can be repeated (timing). n is at most RADIX_SORT_MAX_N. Launch errors end the process
 * (GR_CUDA_CHECK).
 *
 * v1..v3 share one pipeline (radix_sort_common.cuh): the input is cut into tiles of
 * RADIX_SORT_TILE keys and the tiles into at most one chunk per resident block (one wave); per
 * pass a histogram kernel counts each chunk's digits, a scan kernel turns the counts into each
 * chunk's starting position per digit, and a scatter kernel walks its chunk tile by tile, ranks
 * each tile's keys stably by digit in shared memory, and writes them out digit run by digit run.
 * The variants differ only in how the scatter kernel ranks a tile. v4_onesweep, v5_match_or and
 * v6_values_in_place have their own pipeline (onesweep.cuh): one histogram kernel for all 4 digits,
 * then one kernel per pass (decoupled look-back between tiles, no chunks, no scan kernel). */
#ifndef GR_ALGORITHMS_RADIX_SORT_H
#define GR_ALGORITHMS_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RADIX_SORT_BITS 8
#define RADIX_SORT_RADIX 256       /* digits per pass */
#define RADIX_SORT_PASSES 4        /* 32 / RADIX_SORT_BITS */
#define RADIX_SORT_BLOCK 256       /* threads per block of every v1..v3 kernel */
#define RADIX_SORT_ITEMS 16        /* keys per thread per tile */
#define RADIX_SORT_TILE 4096       /* RADIX_SORT_BLOCK * RADIX_SORT_ITEMS */
#define RADIX_SORT_MAX_N (1 << 28) /* largest n a case (and a launcher) takes */
#define RADIX_SORT_V4_TILE 9216        /* v4_onesweep's tile (keys and pairs), v5's for pairs */
/* v5_match_or: its shape by n and mode, each the fastest of the sweep in its range (v5_match_or.cu) */
#define RADIX_SORT_V5_SMALL_N (1 << 19)      /* n up to this: 256 threads x 16, 3 blocks per SM */
#define RADIX_SORT_V5_MID_N (1 << 22)        /* keys up to this: 384 x 24; beyond: 448 x 24 */
#define RADIX_SORT_V5_PAIRS_MID_N (1 << 24)  /* pairs up to this: 384 x 24; beyond: v4's kernel */
#define RADIX_SORT_V5_SMALL_TILE 4096
#define RADIX_SORT_V5_MID_TILE 9216
#define RADIX_SORT_V5_KEYS_TILE 10752
/* v5_match_or's tile for a sort of n keys (pairs: with values); v6_values_in_place's too */
static inline int64_t radix_sort_v5_tile(int64_t n, int pairs)
{
  if (n <= RADIX_SORT_V5_SMALL_N)
    return RADIX_SORT_V5_SMALL_TILE;
  if (n <= (pairs ? RADIX_SORT_V5_PAIRS_MID_N : RADIX_SORT_V5_MID_N))
    return RADIX_SORT_V5_MID_TILE;
  return pairs ? RADIX_SORT_V4_TILE : RADIX_SORT_V5_KEYS_TILE;
}

typedef int (*radix_sort_launch_fn)(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                                    uint32_t *keys_out, const uint32_t *vals_in, uint32_t *vals_out,
                                    int n, void *stream);

/* fixed: scatter ranks a tile by 8 stable one-bit splits through shared memory */
int radix_sort_v1_basic_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                               uint32_t *keys_out, const uint32_t *vals_in, uint32_t *vals_out,
                               int n, void *stream);
/* historical: warp-ranked scatter, per-warp digit counts written by lane 0 only */
int radix_sort_v2_warp_lane0_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                                    uint32_t *keys_out, const uint32_t *vals_in, uint32_t *vals_out,
                                    int n, void *stream);
/* fixed: warp-ranked scatter, the first lane holding each digit writes that digit's count */
int radix_sort_v3_warp_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                              uint32_t *keys_out, const uint32_t *vals_in, uint32_t *vals_out,
                              int n, void *stream);
/* fixed: onesweep: one up-front histogram of all 4 digits, then one kernel per digit that ranks
 * a tile in registers, publishes its digit counts by decoupled look-back and scatters */
int radix_sort_v4_onesweep_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                                  uint32_t *keys_out, const uint32_t *vals_in, uint32_t *vals_out,
                                  int n, void *stream);
/* fixed: v4_onesweep with keys ranked by one shared atomicOr per lane (not 8 ballots), in tiles
 * by n and mode (radix_sort_v5_tile); pairs beyond 2^24 as v4 */
int radix_sort_v5_match_or_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                                  uint32_t *keys_out, const uint32_t *vals_in, uint32_t *vals_out,
                                  int n, void *stream);
/* fixed: v5_match_or with pairs past 2^24 whose values are put in digit order in place before
 * the look-back and written with their keys, and past 2^19 the up-front histogram counted in a
 * copy per lane; v5's tiles everywhere (radix_sort_v5_tile) */
int radix_sort_v6_values_in_place_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                                         uint32_t *keys_out, const uint32_t *vals_in,
                                         uint32_t *vals_out, int n, void *stream);
/* peer: cub::DeviceRadixSort::SortKeys / SortPairs over all 32 bits */
int radix_sort_cub_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                          uint32_t *keys_out, const uint32_t *vals_in, uint32_t *vals_out, int n,
                          void *stream);

/* Test hook (tests/test_radix_sort_gpu.cu): NULL by default. When it points at an array of
 * 1 + 3 * RADIX_SORT_PASSES created cudaEvent_t, the v1..v3 launchers record events[0] before
 * their first kernel and events[1 + 3*p + k] after kernel k (0 histogram, 1 scan, 2 scatter) of
 * pass p, so a test can time the kernels one by one. v4 and v5 record the same slots: their
 * up-front histogram (and the memset before it) fills pass 0's histogram slot, their pass kernel
 * each scatter slot, and their other slots are recorded back to back (zero). */
extern void *radix_sort_trace;

/* Test hook: v6_values_in_place sorts pairs of more than this many keys with its values-in-place
 * kernel (default RADIX_SORT_V5_PAIRS_MID_N; query the scratch and sort with the same value).
 * tests/test_radix_sort_gpu lowers it to 0 to run that kernel on small cases, under
 * compute-sanitizer among others: the sanitizer lane never picks a case past 2^24, which every
 * case of the kernel is by default (each also takes the limit regime n > 2^24). */
extern int radix_sort_v6_in_place_from;

#ifdef __cplusplus
}
#endif

#endif
