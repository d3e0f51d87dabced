/* GPU kernels of k-medoids with SQFD: the device-resident dataset layout, the work tiles, and one
 * C-callable launcher per kernel (kernels are private to their files).
 *
 * Dataset on the device, prepared once (km_gpu.cu): centroid c is two float4,
 *   cent[2c]   = (x0, x1, x2, x3), cent[2c+1] = (x4, x5, x6, b)
 * with x the coordinates minus the dataset mean and b = log2(w) - alpha*log2(e)*|x|^2 (w the
 * normalised weight), so that
 *   w_i w_j exp(-alpha ||x_i - x_j||^2) = 2^(b_i + s x_i.x_j) * 2^(b_j),  s = 2 alpha log2(e):
 * a source centroid held in registers as (s x_i, b_i) meets a target centroid kept in shared
 * memory as (x_j, 2^b_j) with 7 FMAs, one ex2 and one FMA. Per-centroid row sums are float
 * (at most KM_MAX_SIG terms), everything from there on is double. off[i] is the first centroid of
 * object i (n + 1 entries, int32). self[i] = cross(i, i) computed by the same arithmetic as every
 * cross term, so SQFD(i, i) = 0 exactly.
 *
 * Work is cut into tiles: a block takes up to KM_CHUNK_CENTROIDS centroids of sources (whole
 * signatures, consecutive in a list), holds them in registers, and streams targets through
 * shared memory (double-buffered). Launch errors end the process (GR_CUDA_CHECK).
 *
 * Scores (kmedoids_ref.h: sums of distances in units of 2^-40, as integers). A float cross term
 * depends on which signature is the source: SQFD(i, j) and SQFD(j, i) differ in their last bits,
 * and a cluster of two duplicate pairs {a, a', b, b'}, whose members a and b tie exactly in the
 * reference, would be decided by that rounding (the fuzzer found it: another medoid, another
 * local optimum). So the score kernels evaluate each pair once, with the signature of lower
 * content rank (crank: an order on the signatures' bytes, equal for equal signatures) as the
 * source, and add the distance to both members' scores; pairs of equal rank (identical
 * signatures) are 0 and skipped. Every tile holds sources and targets sorted by rank, so about half
 * the tiles and, in the others, the warps whose sources all rank at or above the target skip the
 * work: a score costs half the distances it sums. */
#ifndef GR_ALGORITHMS_KMEDOIDS_KMEDOIDS_H
#define GR_ALGORITHMS_KMEDOIDS_KMEDOIDS_H

#include <stdint.h>

#include "kmedoids_ref.h" /* KM_SCORE_ONE */

#ifdef __cplusplus
extern "C" {
#endif

#define KM_BLOCK 256          /* threads per tile block */
#define KM_PER_THREAD 4       /* source centroids each thread holds */
#define KM_CHUNK_CENTROIDS (KM_BLOCK * KM_PER_THREAD)
#define KM_CHUNK_MAX_SRC 256  /* source signatures per tile */
#define KM_MAX_SIG 256        /* centroids per signature the GPU variants take */
#define KM_TGT_PART_MIN 16    /* a split big cluster: at least this many targets per block */
#define KM_TGT_PARTS_MAX 64   /* ... and at most this many target parts per cluster */
#define KM_MAX_EXPONENT 100.0 /* s * max|x|^2 above this: the float expansion is refused */

/* A tile: sources list[src .. src+nsrc), targets tlist[tgt .. tgt+ntgt) (positions). */
struct km_tile {
  int32_t src, nsrc, tgt, ntgt;
};

/* Device pointers of the prepared dataset (see above). */
struct km_dev_data {
  const void *cent; /* float4 pairs */
  const int32_t *off;
  const double *self;
  const int32_t *crank; /* content rank of each object (equal signatures, equal ranks) */
  float scale;          /* s = 2 alpha log2(e) */
};

/* self[i] for every object (one block per object). */
void km_self_launch(const struct km_dev_data *d, int n, double *self, void *stream);
/* Assignment: tiles over ids (sources) and the k medoids (targets, tgt/ntgt ignored). Writes
 * assign[obj] and mind[obj] for every source object. */
void km_assign_launch(const struct km_dev_data *d, const int32_t *ids, const struct km_tile *tiles,
                      int n_tiles, const int32_t *medoids, int k, int32_t *assign, double *mind,
                      void *stream);
/* Scores of small clusters packed several per tile (sources = targets = whole clusters, each
 * sorted by rank; a source only meets targets of its own cluster). Writes score[obj] (fixed point)
 * of every member: a small cluster is whole in its tile. */
void km_score_small_launch(const struct km_dev_data *d, const int32_t *list, const int32_t *assign,
                           const struct km_tile *tiles, int n_tiles, unsigned long long *score,
                           void *stream);

/* Scores of big clusters, one cluster per tile, split over several tiles (sources in chunks,
 * targets in parts, both sorted by rank); each tile adds its part of the sources' and the targets'
 * scores into score[obj] (zeroed by the caller). The variants differ in how they add. */
typedef void (*km_score_big_fn)(const struct km_dev_data *d, const int32_t *list,
                                const struct km_tile *tiles, int n_tiles, unsigned long long *score,
                                void *stream);
/* historical: parts added with a plain += (read-modify-write race between blocks) */
void km_v1_racy_score_launch(const struct km_dev_data *d, const int32_t *list,
                             const struct km_tile *tiles, int n_tiles, unsigned long long *score,
                             void *stream);
/* fixed: parts added with an integer atomicAdd (exact and order-independent) */
void km_v2_score_launch(const struct km_dev_data *d, const int32_t *list,
                        const struct km_tile *tiles, int n_tiles, unsigned long long *score,
                        void *stream);

#ifdef __cplusplus
}
#endif

#endif
