/* radix_sort cub (peer). cub::DeviceRadixSort from the CUDA toolkit, the baseline the fixed
 * variants are timed against: SortKeys / SortPairs over all 32 bits, inputs untouched (CUB keeps
 * its alternate buffers inside the temporary storage). On Hopper it runs the onesweep sort: one
 * upfront histogram of all 4 digits, then one kernel per pass with decoupled look-back, about 36
 * bytes moved per key. Its output is a stable sort too, so it is checked like the others.
 * Target measured on H100: 2^28 keys 6.41 ms, 2^24 keys 0.47 ms, 2^28 pairs 8.82 ms; here on an
 * H200 (tests/test_radix_sort_gpu full): 6.31, 0.46 and 7.43 ms. */
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "radix_sort.h"

/* launcher */

extern "C" int radix_sort_cub_launch(void *d_temp, size_t *temp_bytes, const uint32_t *keys_in,
                                     uint32_t *keys_out, const uint32_t *vals_in,
                                     uint32_t *vals_out, int n, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (vals_in)
    GR_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(d_temp, *temp_bytes, keys_in, keys_out, vals_in,
                                                  vals_out, n, 0, 32, s));
  else
    GR_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(d_temp, *temp_bytes, keys_in, keys_out, n, 0, 32, s));
  if (d_temp)
    GR_CUDA_LAUNCH_CHECK();
  return 0;
}
