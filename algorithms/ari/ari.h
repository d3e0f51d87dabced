/* GPU variants of the batched Adjusted Rand Index: P pairs of partitions in one launch, one
 * 128-thread block per pair, k_a x k_b contingency table built with atomics.
 *
 * Layout: a and b are P x n int16 labels on the device (pair p at a + p*n, b + p*n), labels in
 * [0, k_a) and [0, k_b); out holds P doubles. Each launcher returns 0, 1 (ARI_UNSUPPORTED, the
 * harness's GR_RUN_UNSUPPORTED) when its table does not fit where it keeps it, or ARI_BAD_ARGS for
 * sizes outside n >= 0, 1 <= k <= 32767, pairs >= 0 (nothing launched). Launch errors end the
 * process (GR_CUDA_CHECK).
 *
 * Labels are validated on the device, in the kernel that reads them (the CPU reference rejects
 * them too): a pair holding a label outside its [0, k) gets NaN for its ARI, the label is never
 * used as an address, and d_bad (a device int the caller zeroes, or NULL) is set to 1. The
 * launch stays asynchronous: the caller reads d_bad after synchronizing the stream, as it does
 * for d_out (a synchronous status would cost every launch a stream synchronization). */
#ifndef GR_ALGORITHMS_ARI_H
#define GR_ALGORITHMS_ARI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARI_BLOCK 128
#define ARI_MAX_K 32767 /* labels are int16 */

enum { ARI_OK = 0, ARI_UNSUPPORTED = 1, ARI_BAD_ARGS = 2 };

/* The sizes every launcher accepts (checked on the host, before anything is launched). */
static inline int ari_args_valid(int n, int k_a, int k_b, int pairs)
{
  return n >= 0 && pairs >= 0 && k_a >= 1 && k_a <= ARI_MAX_K && k_b >= 1 && k_b <= ARI_MAX_K;
}

typedef int (*ari_launch_fn)(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b,
                             int pairs, double *d_out, int *d_bad, void *stream);

/* historical: shared-memory table zeroed only where tid < k_a*k_b */
int ari_v1_shared_uninit_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b,
                                int pairs, double *d_out, int *d_bad, void *stream);
/* fixed: shared-memory table, strided zeroing; tables up to the per-block shared-memory limit */
int ari_v2_shared_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b, int pairs,
                         double *d_out, int *d_bad, void *stream);
/* fixed: table in global memory, any k; pairs processed in chunks that fit the scratch budget */
int ari_v3_global_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b, int pairs,
                         double *d_out, int *d_bad, void *stream);
/* the public entry: v2 when the table fits in shared memory, else v3 */
int ari_launch(const int16_t *d_a, const int16_t *d_b, int n, int k_a, int k_b, int pairs,
               double *d_out, int *d_bad, void *stream);

/* Bytes of global scratch v3 uses at most. */
#define ARI_GLOBAL_SCRATCH_BYTES (256u << 20)

/* The most pairs one v3 launch takes (0, the default: as many as ARI_GLOBAL_SCRATCH_BYTES
 * holds). A seam for the harness (the case parameter 'chunk'), so that the chunking path runs
 * on cases small enough to fuzz; it applies to v3_global and to dispatch's use of it. */
void ari_v3_set_max_chunk(int pairs);

#ifdef __cplusplus
}
#endif

#endif
