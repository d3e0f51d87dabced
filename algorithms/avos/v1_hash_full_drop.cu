/* avos v1_hash_full_drop (historical). The hash insert of the original CUDA design notes
 * (doc/algorithms.md) returns "not new" when it has probed every slot of a full table ("should not happen
 * with proper sizing"), and the value step's find-or-insert returns -1, whose contribution is then
 * skipped: a row with more distinct columns than its table holds silently loses entries. Here the
 * row-private tables of v2 have no fallback: every row stays in its warp's shared table, capped at
 * AVOS_WARP_SLOTS (256) slots, so a row of more than 256 distinct columns (a deep pedigree's
 * closure, a wide random product) comes out short, with no error. The fix (v2): rows whose bound
 * exceeds the warp's table go to a block's table and then to global memory sized for them. diff
 * the two files: the fallback flag is the only difference. */
#include <cuda_runtime.h>

#include "avos.h"
#include "avos_common.cuh"

/* device helpers */

struct avos_ops_v1_drop {
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
  static constexpr bool fallback = false; /* the bug: a full table drops entries */
  static constexpr bool thread_rows = false;
};

/* kernels: avos_common.cuh, instantiated with avos_ops_v1_drop */

/* launcher */

extern "C" int avos_v1_hash_full_drop_launch(int step, const struct avos_args *a, void *stream)
{
  if (step == AVOS_STEP_SUM || step == AVOS_STEP_PRODUCT)
    return 1; /* the bug lives in the product kernels: elementwise steps are not this variant's */
  return avos_launch_common<avos_ops_v1_drop>(step, a, stream);
}
