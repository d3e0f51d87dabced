/* radix_sort v6_values_in_place (fixed). v5_match_or's sort (onesweep.cuh), its shapes and tiles
 * (radix_sort_v5_tile: v5's regimes are v6's), with two changes:
 *  1. Pairs past 2^24 (where v5 runs v4's kernel): the values go to digit order in place, in
 *     their own shared buffer, before the look-back, and every thread then writes a key and its
 *     value to the same output position in one loop (os_pass_in_place_kernel, 384 x 24, ranked
 *     by the atomicOr). v4's kernel writes the keys out first, keeping each one's output
 *     position in a register (24 of them a thread), then takes the values through the keys'
 *     buffer and out again.
 *  2. Past 2^19 keys, keys and pairs: the up-front histogram with a copy of the four digit
 *     histograms per lane (os_lane_histogram_kernel: no bank conflict between the lanes' shared
 *     atomics), where the device lets a block have its 128 KiB (else the plain one).
 * n <= 2^19 is v5's sort unchanged (256 x 16, 3 blocks an SM, the plain histogram).
 *
 * Why (issue 40: pairs at 2^28 at most 0.95x CUB; v4's kernel was 1.012x): ncu showed v4's pass
 * and CUB's alike (one pass of 2^26 pairs, H200, real clocks: 456 and 445 us; L2 73% and 72%,
 * DRAM 49% and 50%, no unit saturated), and the ways tried before to move the values (packed
 * digits, values late into registers, (key, value) exchanged as 64 bits, a persistent kernel
 * prefetching its next tile, 11-bit digits: v5_match_or.cu) were all slower. What differs here:
 * no register keeps an output position across the value exchange (v4's kernel sits at 80
 * registers, the limit of 2 blocks of 384 an SM), one loop computes each output position for
 * both arrays, and the values' exchange fills the time the look-back would otherwise wait. The
 * histogram: 0.47 ms of a 2^28 sort, bound by its atomics' bank conflicts (~3.5 wavefronts each
 * on random digits), ~0.29 with a copy per lane (1 GiB read at ~3.7 TB/s).
 *
 * Measured (scratch bench, stop 52: the kernels in every shape below and CUB 13.0's
 * DeviceRadixSort in one process, cold L2 (a 256 MiB memset before each sort), median of 9 (31
 * for the last table), every output equal to CUB's; H200, driver 580.159.04, 1980 MHz), time
 * against CUB's:
 *   pairs 2^28 (CUB 7.41-7.45 ms): v4's kernel 1.010-1.014x; the values in place, written with
 *     the keys, look-back first: 384x24 ballots 1.004-1.017x, atomicOr 0.991-0.994x; 448x20
 *     atomicOr 0.982-0.987x, 448x22 0.974-0.977x (384x20 1.016x, 512x16 1.07x, 256x32 1.045x,
 *     320x24 1.054x, 384x28 1.034x, 480x20 1.013x, 416x24 1.019x); + the lane histogram: 448x22
 *     0.947-0.957x, 448x20 0.957-0.963x, 384x24 0.961-0.965x (512x20 1.185x; 3 blocks an SM of
 *     256x24, 256x28, 288x22, 288x24: 1.06-1.18x); + the values before the look-back: 384x24
 *     0.934-0.935x (taken), 448x22 0.939x, 448x21 0.942x, 448x20 0.961x. Cache hints
 *     (ld.global.cs on the keys, st.global.cs on both outputs) lost 1-2% at 2^28: not taken.
 *   keys 2^28 with the lane histogram: 0.811x (v5 0.840x), any pass shape above.
 *   pairs 2^20..2^24, v5's 384 x 24 kernel (values through the keys' buffer) against the values
 *     in place, each with the plain and the lane histogram (ms):
 *       n     v5     v5 + lanes  in place + lanes  in place + plain
 *       2^20  0.0723 0.0696      0.0678            0.0708
 *       2^21  0.1012 0.0987      0.1026            0.1051
 *       2^22  0.1812 0.1781      0.1856            0.1899
 *       2^23  0.3047 0.3024      0.3122            0.3155
 *       2^24  0.5417 0.5351      0.5255            0.5319
 *     so pairs up to 2^24 keep v5's kernel (with the lane histogram), in place only beyond;
 *     keys 2^20..2^24 with the lane histogram: 0.0592 / 0.0799 / 0.1332 / 0.2278 / 0.4028 ms
 *     where v5 takes 0.0623 / 0.0828 / 0.1374 / 0.2314 / 0.4092.
 * The benchmark's figures, and v6 against v5 at every size of the sweep, are in doc/algorithms.md.
 */
#include "onesweep.cuh"

typedef os_shape<256, 16, 3, true> os_v6_small;       /* n <= RADIX_SORT_V5_SMALL_N: v5's */
typedef os_shape<384, 24, 2, true> os_v6_mid; /* keys <= ..._MID_N, pairs <= ..._PAIRS_MID_N */
typedef os_shape<448, 24, 2, true> os_v6_keys;        /* keys beyond: v5's */
typedef os_shape<384, 24, 2, true, true> os_v6_pairs; /* pairs beyond: values in place */
static_assert(os_v6_small::tile == RADIX_SORT_V5_SMALL_TILE, "v5's tiles (radix_sort.h)");
static_assert(os_v6_mid::tile == RADIX_SORT_V5_MID_TILE, "v5's tiles (radix_sort.h)");
static_assert(os_v6_keys::tile == RADIX_SORT_V5_KEYS_TILE, "v5's tiles (radix_sort.h)");
static_assert(os_v6_pairs::tile == RADIX_SORT_V4_TILE, "v5's tiles (radix_sort.h)");

/* launcher */

extern "C" int radix_sort_v6_values_in_place_launch(void *d_temp, size_t *temp_bytes,
                                                    const uint32_t *keys_in, uint32_t *keys_out,
                                                    const uint32_t *vals_in, uint32_t *vals_out,
                                                    int n, void *stream)
{
  const bool pairs = vals_in != NULL;
  if (pairs && n > radix_sort_v6_in_place_from) /* past 2^24 (radix_sort.h: a test hook) */
    return os_sort<os_v6_keys, os_v6_pairs, true>(d_temp, temp_bytes, keys_in, keys_out, vals_in,
                                                  vals_out, n, stream);
  if (n <= RADIX_SORT_V5_SMALL_N)
    return os_sort<os_v6_small, os_v6_small>(d_temp, temp_bytes, keys_in, keys_out, vals_in,
                                             vals_out, n, stream);
  if (n <= (pairs ? RADIX_SORT_V5_PAIRS_MID_N : RADIX_SORT_V5_MID_N))
    return os_sort<os_v6_mid, os_v6_mid, true>(d_temp, temp_bytes, keys_in, keys_out, vals_in,
                                               vals_out, n, stream);
  return os_sort<os_v6_keys, os_v6_pairs, true>(d_temp, temp_bytes, keys_in, keys_out, vals_in,
                                                vals_out, n, stream);
}
