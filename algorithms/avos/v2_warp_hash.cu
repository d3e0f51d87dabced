/* avos v2_warp_hash (fixed). The fix of every historical variant at once, each a one-place change:
 * avos_sum takes the signed minimum of two non-zero values, so RED_ONE (-1) wins (v1_unsigned_sum
 * compared as unsigned); the MSB of int8/int16 is 31 - clz of the zero-extended 32-bit value
 * (v1_msb_small subtracted 32 - bits once more); each row owns its hash table, a warp's in shared
 * memory, accumulated with an atomic compare-and-swap applying avos_sum (v1_warp_shared_hash
 * shared one table among a warp's 32 rows and updated it with a plain read-modify-write); and a
 * row too wide for a warp's table goes to a block's shared table, then to a table in global
 * memory sized for it (v1_hash_full_drop had no fallback and dropped what did not fit).
 * Kernels: the templates of avos_common.cuh with the helpers below. Timings: see
 * tests/test_avos_bench.c and the report of the GPU run (closure of the 21,000-vertex family
 * graph, one product step on 1e6 vertices against cuSPARSE). */
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
};

/* kernels: avos_common.cuh, instantiated with avos_ops_v2 */

/* launcher */

extern "C" int avos_v2_warp_hash_launch(int step, const struct avos_args *a, void *stream)
{
  return avos_launch_common<avos_ops_v2>(step, a, stream);
}
