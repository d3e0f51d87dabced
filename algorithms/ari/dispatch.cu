/* ari dispatch (fixed): the entry a caller uses. Picks v2_shared when the k_a x k_b table fits in
 * the device's per-block shared memory (queried, not assumed), v3_global otherwise. */
#include <cuda_runtime.h>

#include "ari.h"
#include "gpu.h"

extern "C" int ari_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b, int pairs,
                          double *d_out, void *stream)
{
  int dev, optin;
  GR_CUDA_CHECK(cudaGetDevice(&dev));
  GR_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if ((size_t)k_a * (size_t)k_b * sizeof(unsigned) <= (size_t)optin)
    return ari_v2_shared_launch(d_a, d_b, n, k_a, k_b, pairs, d_out, stream);
  return ari_v3_global_launch(d_a, d_b, n, k_a, k_b, pairs, d_out, stream);
}
