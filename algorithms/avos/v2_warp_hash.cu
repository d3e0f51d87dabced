/* avos v2_warp_hash (fixed). The fix of every historical variant at once, each a one-place change:
 * avos_sum takes the signed minimum of two non-zero values, so RED_ONE (-1) wins (v1_unsigned_sum
 * compared as unsigned); the MSB of int8/int16 is 31 - clz of the zero-extended 32-bit value
 * (v1_msb_small subtracted 32 - bits once more); each row owns its hash table, a warp's in shared
 * memory, accumulated with an atomic compare-and-swap applying avos_sum (v1_warp_shared_hash
 * shared one table among a warp's 32 rows and updated it with a plain read-modify-write); and a
 * row too wide for a warp's table goes to a block's shared table, then to a table in global
 * memory sized for it (v1_hash_full_drop had no fallback and dropped what did not fit).
 * Kernels: the templates of avos_common.cuh with the helpers below.
 *
 * Issue 27: a thread tier in front of the tables, in products without an S term (op=spgemm). ncu
 * of one product of the 1e6-vertex family graph (H100) put 0.68 of its 0.72 ms (kernel sum) in
 * the 8-lane tier over every row: symbolic 0.21 ms (135M warp instructions), numeric 0.47 ms
 * (202M, 47% occupancy from 24 KB of tables a block): ~200 warp instructions a row to clear,
 * probe, CAS and rank a table for rows of a few terms. Now a thread takes each row of at most
 * 16 terms and keeps its distinct columns sorted in registers (avos_list_merge); wider rows are
 * listed for the 8-lane tier. The product went from 0.579 ms (1.14-1.21x cuSPARSE) to 0.153 ms
 * (0.33x cuSPARSE, same bench run; thread tier 0.048 + 0.101 ms under ncu, now issue-bound at
 * 72-82% SM throughput). In closures the tier cost time (21k: 2.47 against 2.39 ms, 1e6: 18.85
 * against 16.62 ms: their rows are near or past 16 terms), so closure squarings keep the 8-lane
 * tier first and run as before.
 * Measured (tests/test_avos_bench.c, H100 80GB HBM3, CUDA 13.0, median of 20, warm L2): closure
 * of the 21,000-vertex family graph (55,657 entries, 1,055,595 in the closure, 5 squarings)
 * 2.37 ms replayed, 2.56 ms with the host round trips (the reference project: 13.8 ms); one
 * product of the 1e6-vertex family graph 0.58 ms against cuSPARSE's 0.47 ms (1.25x; 2.47x with
 * a warp per row before the 8-lane first tier, which costs the small closure 0.3 ms: 2.06 ms
 * before); closure of the 1e6-vertex graph (13.4e6 entries) 16.7 ms; elementwise sum/product
 * 87-95% of the device-to-device copy bandwidth. */
#include <cuda_runtime.h>

#include "avos.h"
#include "avos_common.cuh"

/* device helpers */

struct avos_ops_v2 {
  /* avos_sum: y if x == 0, x if y == 0, else the signed minimum (-1 wins) */
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
  static constexpr bool thread_rows = true; /* a thread per narrow row first */
};

/* kernels: avos_common.cuh, instantiated with avos_ops_v2 */

/* launcher */

extern "C" int avos_v2_warp_hash_launch(int step, const struct avos_args *a, void *stream)
{
  return avos_launch_common<avos_ops_v2>(step, a, stream);
}
