/* avos v1_unsigned_sum (historical). avos_sum as the original CUDA design notes wrote it (doc/algorithms.md,
 * "For signed types, compare as unsigned to handle negative values correctly"): two non-zero
 * values are compared as their unsigned bit patterns, with no guard for RED_ONE. -1 becomes the
 * largest value of the type and loses every sum it should win: avos_sum(-1, 5) gives 5. Shows in
 * the elementwise sum with -1 against any non-zero value, and in products whose row accumulates
 * -1 with other values (random matrices; a male's diagonal next to a cycle). The fix (v2): the
 * signed minimum. Everything else is v2_warp_hash's: diff the two files and the sum is the only
 * difference. */
#include <cuda_runtime.h>

#include "avos.h"
#include "avos_common.cuh"

/* device helpers */

struct avos_ops_v1_unsigned {
  /* avos_sum: y if x == 0, x if y == 0, else the smaller as unsigned */
  template <typename T> static __device__ __forceinline__ T sum(T x, T y)
  {
    if (x == 0)
      return y;
    if (y == 0)
      return x;
    typedef typename avos_traits<T>::ut UT;
    return ((UT)x < (UT)y) ? x : y; /* the bug: -1 is the largest unsigned value */
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
  static constexpr bool thread_rows = false;
};

/* kernels: avos_common.cuh, instantiated with avos_ops_v1_unsigned */

/* launcher */

extern "C" int avos_v1_unsigned_sum_launch(int step, const struct avos_args *a, void *stream)
{
  return avos_launch_common<avos_ops_v1_unsigned>(step, a, stream);
}
