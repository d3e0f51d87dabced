/* GPU variants of the batched Adjusted Rand Index: P pairs of partitions in one launch, one
 * 128-thread block per pair, k_a x k_b contingency table built with atomics.
 *
 * Layout: a and b are P x n int16 labels on the device (pair p at a + p*n, b + p*n), labels in
 * [0, k_a) and [0, k_b); out holds P doubles. Each launcher returns 0, or 1 (RUN_UNSUPPORTED)
 * when its table does not fit where it keeps it. Launch errors end the process (GR_CUDA_CHECK). */
#ifndef GR_ALGORITHMS_ARI_H
#define GR_ALGORITHMS_ARI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARI_BLOCK 128

typedef int (*ari_launch_fn)(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b,
                             int pairs, double *d_out, void *stream);

/* historical: shared-memory table zeroed only where tid < k_a*k_b */
int ari_v1_shared_uninit_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b,
                                int pairs, double *d_out, void *stream);
/* fixed: shared-memory table, strided zeroing; tables up to the per-block shared-memory limit */
int ari_v2_shared_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b, int pairs,
                         double *d_out, void *stream);
/* fixed: table in global memory, any k; pairs processed in chunks that fit the scratch budget */
int ari_v3_global_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b, int pairs,
                         double *d_out, void *stream);
/* the public entry: v2 when the table fits in shared memory, else v3 */
int ari_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b, int pairs,
               double *d_out, void *stream);

/* Bytes of global scratch v3 uses at most. */
#define ARI_GLOBAL_SCRATCH_BYTES (256u << 20)

#ifdef __cplusplus
}
#endif

#endif
