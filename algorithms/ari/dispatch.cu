/* ari dispatch (fixed): the entry a caller uses. v2_shared when the k_a x k_b table fits in the
 * device's per-block shared memory (queried by v2, not assumed), v3_global otherwise. */
#include "ari.h"
#include <gpuregress/gpu.h>

extern "C" int ari_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b, int pairs,
                          double *d_out, int *d_bad, void *stream)
{
  /* v2 declines (returns 1) exactly when its table does not fit: one rule, kept in v2 */
  int rc = ari_v2_shared_launch(d_a, d_b, n, k_a, k_b, pairs, d_out, d_bad, stream);
  if (rc != 1)
    return rc;
  return ari_v3_global_launch(d_a, d_b, n, k_a, k_b, pairs, d_out, d_bad, stream);
}
