/* The GPU backend of the k-medoids engine: the dataset prepared and uploaded once (it stays
 * resident across iterations), the assignment of one object range, and the score work of one
 * rank planned on the host into tiles (small clusters packed, big clusters split) and run by the
 * shared kernels plus the variant's big-cluster score kernel. Uses the current CUDA device and the
 * default stream unless told another (km_gpu_set_stream). */
#ifndef GR_ALGORITHMS_KMEDOIDS_KM_GPU_H
#define GR_ALGORITHMS_KMEDOIDS_KM_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "datasets/kmedoids_sig.h"
#include "km_engine.h"
#include "kmedoids.h"

#ifdef __cplusplus
extern "C" {
#endif

struct km_gpu;

/* Prepare ds for alpha on the device; this rank assigns objects [lo, hi); big clusters are scored
 * by `big`. 0 ok; 1 when the dataset is beyond what the kernels take (a signature of more than
 * KM_MAX_SIG centroids, coordinates too spread for the float expansion), with why; CUDA errors end
 * the process. */
int km_gpu_new(const struct kmsig *ds, double alpha, int64_t lo, int64_t hi, km_score_big_fn big,
               struct km_gpu **out, char *why, size_t len);
void km_gpu_free(struct km_gpu *g);
extern const struct km_backend km_gpu_backend_ops; /* ctx: a struct km_gpu * */

/* Device memory km_gpu_new and the iterations take for n objects of `total` centroids. */
size_t km_gpu_device_bytes(int64_t n, int64_t total);

/* The stream (a cudaStream_t; NULL, the default, until set) that the backend's kernels and
 * copies are enqueued on from now on. */
void km_gpu_set_stream(struct km_gpu *g, void *stream);
/* The device buffers of the assignment of this rank's objects (nearest medoid, int32, and its
 * distance, double): the assignment kernel writes every entry before the backend reads it. */
void km_gpu_outputs(struct km_gpu *g, void **assign, size_t *assign_bytes, void **mind,
                    size_t *mind_bytes);

/* Timing: enqueue on the stream (km_gpu_set_stream), without synchronising or copying, the
 * kernels of one iteration as last run: the assignment against the medoids last uploaded, then
 * the score kernels of the last planned score work (memset, small, big). Needs one assign and one
 * score call before. */
void km_gpu_enqueue_iteration(struct km_gpu *g);
/* Enqueue only the assignment kernel; returns the SQFD distances it computes. */
double km_gpu_enqueue_assign(struct km_gpu *g);
/* Enqueue only the score kernels of the last plan (memset, small, big); returns the SQFD distances
 * the scores sum (each evaluated once for two scores: see km_gpu_plan_counts). */
double km_gpu_enqueue_score(struct km_gpu *g);
/* The last score plan: small (packed) and big (split) tiles, and the distances the tiles evaluate
 * (pairs whose source ranks below the target; pairs may be NULL). */
void km_gpu_plan_counts(const struct km_gpu *g, int *small_tiles, int *big_tiles, double *pairs);

#ifdef __cplusplus
}
#endif

#endif
