/* radix_sort v4_onesweep (fixed). One read of the keys for all four digit histograms, then one
 * kernel per digit that ranks, publishes and scatters each tile in a single sweep (the design of
 * Adinets and Merrill's "Onesweep", 2022), where v1..v3 read the keys twice per digit (histogram,
 * then scatter) and wait on a scan kernel in between.
 *
 * Up front, os_histogram_kernel counts the 4 digits of every key at once (shared-memory atomics
 * per block, one global atomic per block and bin) and clears the first look-back buffer. Then per
 * digit, os_pass_kernel runs one block of 384 threads per tile of 384 x 24 = 9216 keys. A block
 * takes its tile index from an atomic counter, so tiles start in index order whatever order the
 * hardware starts blocks in: every tile a block waits on belongs to a block already running, and
 * the look-back cannot deadlock. The block loads its keys straight into registers (coalesced; warp
 * w owns the 32 x 24 keys of slice w, in input order; values wait in shared memory through
 * cp.async) and ranks them per warp 32 at a time: 8 ballots find the lanes holding the same digit,
 * the rank is the popcount of the lower ones plus the warp's running count of that digit in shared
 * memory (stable: slice order is input order). One block sync later, thread d sums digit d over
 * the warps and publishes the tile's count of d in the tile's look-back row, then walks back over
 * the rows of earlier tiles until it meets an inclusive prefix; tile 0 seeds the chain with the
 * output start of each digit (the exclusive scan of the up-front histogram), so a prefix is
 * directly an output position. A row entry is one 32-bit word, the flag in its top 2 bits (0
 * nothing yet, 1 this tile's count, 2 the inclusive prefix through this tile) and the count below,
 * stored and loaded whole (relaxed, gpu scope), so no reader can see a flag without its value. The
 * keys, then the values, go through shared memory into digit order, so each digit's run leaves the
 * block at consecutive output addresses. Each pass clears its tile's row of the next pass's
 * look-back buffer, so nothing runs between passes.
 *
 * Bytes per key: 4 (histogram read) + 4 x 8 (read + write per pass) + ~0.3 of look-back rows (1
 * KiB per tile of 9216 keys cleared, written and read back) = ~36.3, against the work model's
 * floor of 36 (v3: 48); pairs ~68.3 against 68 (v3: 80).
 *
 * The shape (issue 27). The pass is issue-bound, not DRAM-bound: ncu at 2^28 pairs (H100) saw
 * 57% of DRAM bandwidth, 63% SM throughput and 1.04G warp instructions per pass for 512 x 15
 * tiles, against CUB's 62% DRAM, 41% SM and 0.71G with 384 x 23 tiles. Two things moved it: the
 * register cap (__launch_bounds__ with MINB = 2: without it the templated kernel took 86-90
 * registers, one block of 512 per SM, 9.56 ms for 2^28 keys; the old one happened to get 64) and
 * longer tiles (fewer per-tile barriers,
 * scans and look-back rows per key, longer digit runs per store). A sweep of shapes on the H100
 * (scratch bench, cold L2, CUB in the same process, medians of 9), 2^28 keys / pairs vs CUB:
 * 512 x 15 (the previous shape) 1.013 / 1.055; 384 x 20 1.013 / 1.031; 384 x 24 0.937 / 1.000
 * (0.937 / 1.005 in a second run); 512 x 20 0.914 / 1.039; 384 x 28 0.910 / 1.060; 384 x 30
 * 0.927 / 1.193; 256 x 40 0.956 / 1.001; 256 x 30 0.960 / 1.036. Beyond ~64-85 registers the
 * pairs kernel spills (its values' output positions stay in registers between the key and the
 * value scatter), so 384 x 24 is taken for both: no spills, the best pairs time, keys at 0.94x
 * (a later sweep of pairs shapes: 384 x 23 1.004, 384 x 22 1.011, 448 x 20 1.015, 320 x 28
 * 1.023, 352 x 26 1.063, 384 x 24 1.007 in that run). Measured with the suite's own timing
 * (gpuregress bench, H100, cold L2, CUB in the same run): 2^28 pairs 8.706 ms against CUB's
 * 8.745 (0.996x), 2^28 keys 5.966 against 6.371 (0.937x); the scratch bench at 2^24: keys 0.458
 * against 0.470 ms (0.974x), pairs 0.606 against 0.614 (0.987x). Pairs are level with CUB, not
 * ahead: the pass still issues ~45% more instructions per key than CUB's (ranking by 8 ballots
 * and the second trip of the values through shared memory), the next thing to cut.
 * What did not work: __match_any_sync for the digit peers instead of the 8 ballots (1.46x CUB
 * for pairs, 1.60x for keys at 2^28: match.any is slow on the H100); permuting the values beside
 * the keys through a third shared buffer so that keys and values leave in one loop (384 x 20:
 * 8.95 against 8.99 ms, noise); taking the values into registers before the key scatter and
 * writing them in place (512 x 15: 2.44 against 2.30 ms at 2^26 pairs).
 *
 * Earlier measurements, 512 x 15 tiles (gpuregress bench, cold L2, CUB in the same run):
 * 2^28 keys 6.35 ms = 0.99x CUB (v3 10.22), 2^28 pairs 9.22 ms = 1.06x (v3 21.03), 2^24 keys
 * 0.457 ms = 0.97x, 2^24 pairs 0.624 ms = 1.01x; 51% and 66% of the copy bandwidth at 2^28. Where
 * the time goes at 2^28 (tests/test_radix_sort_gpu full, radix_sort_trace): the up-front histogram
 * with its memset and the clearing of 68 MiB of look-back rows 0.48 ms (keys read at 2.2 TB/s),
 * then each pass 1.47 ms for keys (8 bytes/key at 1.46 TB/s) and 2.19 ms for pairs (16 at 1.97):
 * the passes are 92% of the sort. The tile size mattered most: 256 threads x 15 keys (3840 a tile)
 * gave 6.80 ms for 2^28 keys and 11.81 for pairs, 1.06x and 1.35x CUB (digit runs half as long per
 * tile, twice the tiles to look back over and to pay the per-tile syncs for). Holding the values
 * in registers instead of shared memory took 106 registers (2 blocks of 256 per SM) and 12.22 ms
 * for 2^28 pairs. */
#include "onesweep.cuh"

/* The pass kernel's shape, keys and pairs alike: 384 threads x 24 keys (the sweep above). */
typedef os_shape<384, 24, 2> os_v4_shape;
static_assert(os_v4_shape::tile == RADIX_SORT_V4_TILE, "radix_sort.h names the tile");

/* launcher */

extern "C" int radix_sort_v4_onesweep_launch(void *d_temp, size_t *temp_bytes,
                                             const uint32_t *keys_in, uint32_t *keys_out,
                                             const uint32_t *vals_in, uint32_t *vals_out, int n,
                                             void *stream)
{
  return os_sort<os_v4_shape, os_v4_shape>(d_temp, temp_bytes, keys_in, keys_out, vals_in,
                                                  vals_out, n, stream);
}
