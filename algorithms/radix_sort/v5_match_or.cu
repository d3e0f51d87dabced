/* radix_sort v5_match_or (fixed). v4_onesweep's sort (onesweep.cuh: one up-front histogram, one
 * pass kernel per digit with decoupled look-back) with a cheaper ranking for keys: a warp finds
 * the lanes holding its digit by one shared-memory atomicOr per lane into the warp's word of that
 * digit, read back after a __syncwarp and cleared by the first lane of the digit, where v4 runs 8
 * ballots and 8 mask operations per key; and, with the registers that frees, longer tiles of 448
 * threads x 24 keys (10,752 keys, 2 blocks per SM) where v4 has 384 x 24, for more than 2^22 keys
 * (smaller sorts take smaller tiles: the end of this comment). Pairs of more than 2^24 keep v4's
 * kernel (384 x 24, ballots): there the atomicOr ranking was slower (below).
 *
 * Why (issue 40): the pass is issue-bound, not DRAM-bound (v4's notes: 57% of DRAM bandwidth,
 * 63% SM throughput at 2^28 on the H100, ~45% more warp instructions per key than CUB). The 8
 * ballots are most of the ranking's instructions; the atomicOr costs one shared atomic, one load
 * and one store of the word per key.
 *
 * Measured (scratch bench: onesweep.cuh's kernel in every shape below and CUB 13.0's
 * DeviceRadixSort in the same process, cold L2 (a 256 MiB memset before each sort), median of 9,
 * every output equal to CUB's; H200, driver 580.159.04, two runs), time against CUB's:
 *   keys 2^28 (CUB 6.31-6.33 ms): v4 384x24 ballots 0.937-0.938x; 384x24 atomicOr 0.928x;
 *     384x28 ballots 0.904x, atomicOr 0.881x; 512x20 0.850-0.851x; 448x24 0.840-0.844x (taken:
 *     5.30-5.34 ms); 512x24 0.892x; 384x32 0.924x; 256x40 0.938x; 256x28 with 3 blocks per SM
 *     0.876x; 256x20 with 4 0.875x; one block per SM (384x32, 512x24) 1.14-1.24x.
 *   keys 2^26: v4 0.951x, 448x24 0.855-0.857x; keys 2^24: v4 0.975-0.977x, 448x24 0.869-0.874x.
 *   pairs 2^28 (CUB 7.42-7.46 ms): v4 1.012x; atomicOr at 384x24 1.040x, 384x20 1.052x, 256x32
 *     1.032x, 320x24 1.058x; ballots at 448x20 1.036x; 256x24 x 3 blocks 1.078x. Pairs stay v4's.
 * What did not work: publishing each tile's digit counts before the ranking (a shared-memory
 * histogram of the tile, CUB's "early counts"), so that later tiles wait less in the look-back:
 * slower everywhere (keys 448x24 0.911x instead of 0.840x at 2^28, pairs 384x24 1.057x instead
 * of 1.012x): the look-back does not wait long; the instructions are what counts.
 * The 448 x 24 keys kernel spills 32 bytes a thread (72 registers under the 2-blocks-per-SM
 * cap); 512 x 20 spills 20 and runs 1% slower: the spill is not what limits it.
 *
 * Below 2^23 keys the long tile was not the fastest: at 2^16 it was 1% slower than v4 (0.0489 vs
 * 0.0484 ms). The same scratch bench over 2^12..2^24 keys (H200, cold L2, median of 15, stop 45),
 * time against CUB's:
 *   n     v4 384x24  448x24  384x24 or  256x24 or  256x16/3 or  448x16 or
 *   2^14  0.994      0.965   0.858      0.736      0.626        0.803
 *   2^16  0.943      0.952   0.866      0.733      0.646        0.769
 *   2^18  0.916      0.864   0.809      0.749      0.699        0.764
 *   2^19  0.905      0.840   0.814      0.772      0.733        0.772
 *   2^20  0.831      0.782   0.748      0.794      0.797        0.765
 *   2^22  0.927      0.861   0.817      0.893      0.850        0.797
 *   2^23  0.980      0.820   0.856      0.962      0.934        0.861
 *   2^24  0.973      0.869   0.888      1.052      1.016        0.925
 * So keys take three shapes (radix_sort.h): 256 x 16 with 3 blocks per SM up to 2^19 keys (a
 * sort of few tiles is latency-bound: short tiles finish sooner and fill more SMs), 384 x 24 up
 * to 2^22, 448 x 24 beyond; all three rank with the atomicOr.
 * Pairs, the same bench (or: atomicOr; else ballots), time against CUB's:
 *   n     v4 384x24  256x16/3 or  256x16/3  384x24 or  256x16/2  384x16
 *   2^16  0.929      0.625        0.663     0.842      0.662     0.760
 *   2^19  0.929      0.738        0.767     0.858      0.762     0.810
 *   2^20  0.887      0.870        0.893     0.825      0.890     0.946
 *   2^22  0.961      0.946        0.961     0.885      1.029     0.952
 *   2^24  1.009      1.114        1.108     0.984      1.259     1.063
 *   2^26  1.019 (ballots 448x24 1.040, 384x28 1.038, 512x20 1.050, 448x22 1.024)
 *   2^28  1.012 (448x24 1.030, 384x28 1.037, 512x20 1.091, 512x24 1.401; 384x24 or 1.040 above)
 * So pairs take 256 x 16 (atomicOr) up to 2^19, 384 x 24 with the atomicOr up to 2^24, and v4's
 * kernel beyond, where nothing measured beat it.
 * Pairs at 2^28 again (issue 40, stop 48; the same scratch bench, H200, CUB 7.41-7.45 ms, v4's
 * kernel 1.012-1.013x in every run), each value path in the pass kernel:
 *   the output positions packed as digits (g recomputed) instead of 24 registers: 1.027x (384x24),
 *     1.046x (atomicOr), 1.060x (448x24);
 *   values loaded into registers after the keys' scatter (one tile buffer): 1.14-1.38x;
 *   values loaded with the keys, one 64-bit exchange of (key, value): 1.11-1.50x at 2^28, though
 *     0.79x at 2^20 (256x32, atomicOr): fewer instructions, worse DRAM behaviour;
 *   (key, value) interleaved in the scratch between passes (two 8n-byte buffers): 2^28 1.003-1.006x
 *     (384x20, atomicOr), 2^26 0.989-0.995x, 2^24 0.956-0.961x, 2^22 0.811-0.823x (256x32), where
 *     v5 is 1.012, 1.019, 0.990, 0.882; alternating interleaved and split (one 8n buffer) loses
 *     most of it (2^28 1.033x, 2^24 0.988x). Not taken: 1% at 2^28 for twice the scratch.
 * ncu at 2^28 (locked clocks), one pass: v4's 2.23 ms, DRAM 8.01 B read and 8.0-8.1 B written
 * a pair (the minimum), 40% of DRAM throughput, 68% SM; CUB's 2.12 ms, 42% and 42%; interleaved
 * 1.99-2.15 ms, 44-48% and 36%. Neither unit is saturated: each block loads, ranks, waits in the
 * look-back and scatters in turn, two blocks an SM. The up-front histogram is 0.47 ms of the sort
 * (6% of pairs, 9% of keys) at any of 4-8 blocks an SM and 2-16 loads in flight a thread: four
 * shared atomics a key bound it.
 * A persistent pass kernel that copies its next tile into shared memory (cp.async) while it
 * ranks and scatters the current one (issue 40, stop 52; the same scratch bench, H200, CUB 7.41
 * ms, v4's kernel 1.013-1.014x): slower in every shape. Tiles from the counter, the next one
 * taken before the current one is ranked: pairs 1.36-1.71x at 2^28, keys 0.91x (384x24 atomicOr)
 * to 1.25x; tiles by block index (tile b + k * grid, every block resident: it waits on its
 * neighbours only) 1.12-1.44x for pairs (512x24 one block an SM, atomicOr, 1.118x; 384x16 with a
 * third buffer 1.12x), keys 0.93x at best (384x24 atomicOr, where the same shape not persistent
 * is 0.928x): the loads were never what the pass waited on. Its registers grow by the loop's
 * state (pairs 384x24: 184-192 bytes spilled where v4's kernel spills none).
 * ncu of one pass at 2^26 pairs (real clocks, stop 52): v4's 456 us, CUB's 445 us; DRAM 49% and
 * 50% of peak, L2 73% and 72% (the most used unit of both: Xbar2lts cycles 53% and 50%, stores
 * 23.0 and 22.8 bytes a sector), L1 51% and 53%, issue slots 54% and 39%. The same memory
 * behaviour, no unit saturated.
 * 11-bit digits, 3 passes (11, 11, 10 bits: a quarter less traffic; stop 52, same bench): 16-bit
 * counters of 2048 digits a warp, 2048 look-back words a tile, a thread speaking for 6 digits
 * (their loads in flight together), the values' copy into the counters' space once they are
 * dead: 1.90-2.14x at 2^28 pairs (384x24 the best of 384x20/24, 256x24/28/32, 320x24; ranked by
 * __match_any_sync or 11 ballots, within 1%), 1.47x keys. ncu, one pass at 2^26 pairs: 1.27 ms
 * where the 8-bit pass takes 0.46, DRAM 24%, 0.33 instructions a cycle a scheduler, stalls on the
 * look-back's loads, shared memory and barriers: the per-tile work over 2048 digits is far more
 * than the pass saved. What is left to try: the next pass's digit counted in each pass (one
 * atomic a key in the histogram). */
#include "onesweep.cuh"

/* the shapes by n (radix_sort.h: radix_sort_v5_tile): few tiles want small ones, many tiles the
 * longest */
typedef os_shape<256, 16, 3, true> os_v5_small;  /* n <= RADIX_SORT_V5_SMALL_N */
typedef os_shape<384, 24, 2, true> os_v5_mid;    /* keys <= RADIX_SORT_V5_MID_N, pairs ..._PAIRS_MID_N */
typedef os_shape<448, 24, 2, true> os_v5_keys;   /* keys beyond */
typedef os_shape<384, 24, 2, false> os_v5_pairs; /* pairs beyond: v4_onesweep's */
static_assert(os_v5_small::tile == RADIX_SORT_V5_SMALL_TILE, "radix_sort.h names the tiles");
static_assert(os_v5_mid::tile == RADIX_SORT_V5_MID_TILE, "radix_sort.h names the tiles");
static_assert(os_v5_keys::tile == RADIX_SORT_V5_KEYS_TILE, "radix_sort.h names the tiles");
static_assert(os_v5_pairs::tile == RADIX_SORT_V4_TILE, "radix_sort.h names the tiles");

/* launcher */

extern "C" int radix_sort_v5_match_or_launch(void *d_temp, size_t *temp_bytes,
                                             const uint32_t *keys_in, uint32_t *keys_out,
                                             const uint32_t *vals_in, uint32_t *vals_out, int n,
                                             void *stream)
{
  const bool pairs = vals_in != NULL;
  if (n <= RADIX_SORT_V5_SMALL_N)
    return os_sort<os_v5_small, os_v5_small>(d_temp, temp_bytes, keys_in, keys_out, vals_in,
                                             vals_out, n, stream);
  if (n <= (pairs ? RADIX_SORT_V5_PAIRS_MID_N : RADIX_SORT_V5_MID_N))
    return os_sort<os_v5_mid, os_v5_mid>(d_temp, temp_bytes, keys_in, keys_out, vals_in, vals_out,
                                         n, stream);
  return os_sort<os_v5_keys, os_v5_pairs>(d_temp, temp_bytes, keys_in, keys_out, vals_in,
                                          vals_out, n, stream);
}
