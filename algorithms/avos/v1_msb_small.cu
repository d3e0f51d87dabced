/* avos v1_msb_small (historical). The MSB helper of the original CUDA design notes (doc/algorithms.md):
 * for int8/int16 it promotes to 32 bits and returns 31 - clz(x) - (32 - sizeof(T)*8). The
 * promotion already puts the value in the low bits, so the correction subtracts 24 (int8) or 16
 * (int16) once too often: MSB(2) of an int8 is -23. Every product of small types then shifts by a
 * negative amount (2 (x) 3 gives 3 instead of 5, overflow is never seen); int32 and int64 are
 * right. The fix (v2): 31 - clz of the zero-extended value. Everything else is v2_warp_hash's:
 * diff the two files and the MSB is the only difference. */
#include <cuda_runtime.h>

#include "avos.h"
#include "avos_common.cuh"

/* device helpers */

struct avos_ops_v1_msb {
  /* avos_sum: y if x == 0, x if y == 0, else the signed minimum (-1 wins) */
  template <typename T> static __device__ __forceinline__ T sum(T x, T y)
  {
    if (x == 0)
      return y;
    if (y == 0)
      return x;
    return x < y ? x : y;
  }
  /* floor(log2 x), as the design notes computed it for each width */
  template <typename T> static __device__ __forceinline__ int msb(T x)
  {
    if (x <= 1)
      return 0;
    typedef typename avos_traits<T>::ut UT;
    UT ux = (UT)x;
    if (sizeof(T) == 8)
      return 63 - __clzll((long long)ux);
    if (sizeof(T) == 4)
      return 31 - __clz((int)(uint32_t)ux);
    return 31 - __clz((int)(uint32_t)ux) - (32 - (int)sizeof(T) * 8); /* the bug */
  }
  static constexpr bool fallback = true;
  static constexpr bool thread_rows = false;
};

/* kernels: avos_common.cuh, instantiated with avos_ops_v1_msb */

/* launcher */

extern "C" int avos_v1_msb_small_launch(int step, const struct avos_args *a, void *stream)
{
  return avos_launch_common<avos_ops_v1_msb>(step, a, stream);
}
