/* avos v3_split_rows (fixed). v2_warp_hash's semiring, tables and tiers, with a closure squaring
 * done in one pass over its terms and its heavy rows spread over more of the GPU (avos_common.cuh:
 * avos_split, Ops::split_rows).
 *
 * Why (issue 40: the 21k-vertex family's closure at most 1.0 ms; v2 2.36-2.41 ms). The closure is
 * 5 squarings; the last two have 13.0M and 14.1M product terms but only 1.06M entries (a row of up
 * to 6,363 terms has at most 306 columns: the same ancestor reached by many paths). ncu of v2's
 * closure (H200, kernel durations): 2.5 of its 3.1 ms in those two squarings, in three kernels:
 *   numeric warp tier (rows of 33..128 columns, one warp a row however many terms): 0.36-0.42 ms
 *     each, 20% SM throughput, 23% warps active;
 *   numeric block tier (more than 128 columns): 0.41-0.43 ms, 2 blocks an SM (72 KB of tables
 *     each, 25% occupancy), IPC 1.33; stall samples: 29% in the binary search that places each
 *     term of a 256-term chunk, 16% at the block barriers, 19% hash and compare-and-swap;
 *   symbolic block tier: 0.24-0.26 ms, 4 blocks an SM where 8 fit.
 * What v3 does, each measured on the 21k closure (H200, test_avos_bench, median of 20, v2 in the
 * same process at 2.35-2.41 ms):
 *   - the numeric step routes a row by its terms as well as its columns (more than 64 terms leave
 *     the 8-lane tier, more than 512 the warp tier); block tables of 2048 slots (rows of more than
 *     1024 columns go to the global tier), so 5 numeric blocks share an SM; persistent grids of as
 *     many blocks as fit; a block places its terms a warp window at a time (one search for 32
 *     terms, avos_block_products_window) and folds values with atomicMin after a plain read:
 *     1.63 ms;
 *   - fused squarings (C = S (+) A (x) B with S): the symbolic step computes each row whole
 *     (values, overflows, cycles, column order) into a stash, and the numeric step only copies
 *     the stashed rows into C; rows that find no room in the stash (twice the entries of A and
 *     S) are computed by the numeric step as before: 1.05-1.07 ms (kernel sum under ncu 1.31 ms:
 *     the fused block tier 0.34 ms in each of the two heavy squarings, the 8-lane tier 35 us in
 *     each squaring);
 *   - ranking a block's entries by buckets of their column range instead of all pairs, and the
 *     copies of long stashed rows by a warp: no change measured (1.07 ms).
 * What did not work: splitting a block-tier row's entries of A among its warps (warp w from 32 w
 * on, strides of 256) instead of balancing its terms: 3.35 ms, a row's few long B rows left most
 * warps idle. One product (op=spgemm) is not fused: most of its rows are the thread tier's and
 * the stash's copy cost 4% (0.159 against 0.153 ms on the 1e6 family). Everything else (the
 * elementwise ops, the thread tier, the global tier, the output order) is v2's.
 * The stash's limit is fuzzed: the case parameter stash= (percent of its room, default 100)
 * squeezes it in a quarter of the generated closures, and the driver reports the regime 'stash
 * full' when a squaring's rows outgrew it (42 of 280 closures in a 55 s fuzz, all passing).
 * Stop 46's result (H200, 1980 MHz): 21k closure 1.079 ms (bench --quick of gpu-check) and
 * 1.092 ms (test_avos_bench) against v2's 2.390 and 2.410. Then (stop 47), fewer instructions in
 * the fused block tier (ncu: 156M warp instructions in a heavy squaring, IPC 2.52 of 4, 36% of
 * cycles with no eligible warp; the binary search that found a window's first entry was 26% of
 * the instructions, the product's chain of special cases about 40 a term):
 *   - a warp finds its window's entry by ballots over 32 entries from its previous window's entry
 *     (avos_block_products_window): 138M instructions, 0.981 ms;
 *   - the product's special cases decided by the right operand, as selects (avos_product_split,
 *     in the matrix kernels: in the elementwise one they made the int32 product of 2^26 elements
 *     6% slower, 0.239 against v2's 0.225 ms, so it keeps the notes' chain), and the emit's
 *     buckets by a float scale instead of a 64-bit division: 0.970-0.977 ms.
 * Tried and dropped (same runs): loading the next window's B entries before this window's terms
 * go to the table (0.989 ms, no change: the compiler already overlapped them); staging only the
 * columns in the emit and reading values from the table, 28 KB of dynamic shared memory so that 6
 * blocks share an SM instead of 5 (1.22-1.38 ms: the passes over the sparse table run the
 * bucket arithmetic with few lanes active, 248M instructions where 138M were).
 * Final (H200, 1980 MHz; v2 in the same run): 21k closure 0.965 ms (bench --quick of gpu-check,
 * cold L2) and 0.978 ms (test_avos_bench) against v2's 2.388 and 2.407 (0.40x); the 1e6-vertex
 * closure 12.92-12.97 against 16.50-16.54 ms (0.78x); the 1e6 spgemm 0.150-0.153 ms against
 * 0.157-0.159; elementwise ops the same kernels. What is left: the fused block tier is still 60%
 * of the closure (0.30 ms under ncu in each heavy squaring) and issue-bound. */
#include <cuda_runtime.h>

#include "avos.h"
#include "avos_common.cuh"

/* device helpers */

struct avos_ops_v3 {
  /* avos_sum: y if x == 0, x if y == 0, else the signed minimum (-1 wins): the slots fold it with
   * atomicMin from LLONG_MAX */
  template <typename T> static __device__ __forceinline__ T sum(T x, T y)
  {
    if (x == 0)
      return y;
    if (y == 0)
      return x;
    return x < y ? x : y;
  }
  /* floor(log2 x) for x >= 2, 0 for x <= 1 */
  template <typename T> static __device__ __forceinline__ int msb(T x)
  {
    if (x <= 1)
      return 0;
    typedef typename avos_traits<T>::ut UT;
    UT ux = (UT)x;
    if (sizeof(T) == 8)
      return 63 - __clzll((long long)ux);
    return 31 - __clz((int)(uint32_t)ux);
  }
  static constexpr bool fallback = true;
  static constexpr bool thread_rows = true; /* a thread per narrow row first (one product) */
  static constexpr bool split_rows = true;
};

/* kernels: avos_common.cuh, instantiated with avos_ops_v3 */

/* launcher */

extern "C" int avos_v3_split_rows_launch(int step, const struct avos_args *a, void *stream)
{
  return avos_launch_common<avos_ops_v3>(step, a, stream);
}
