/* CPU reference of k-medoids over feature signatures with the SQFD distance: serial, double
 * precision, plain loops (speed is not its job: kmedoids_alg.c runs the per-object and per-pair
 * terms below over the CPUs, each value as here).
 *
 * Definitions (doc/algorithms.md, kmedoids):
 *   weights normalised to sum to 1 per signature;
 *   f(ci, cj) = exp(-alpha * ||ci - cj||^2);
 *   cross(X, Y) = sum_i sum_j wX_i wY_j f(xi, yj), self(X) = cross(X, X);
 *   SQFD(X, Y) = sqrt(self(X) + self(Y) - 2 cross(X, Y)), 0 when the radicand <= 1e-6.
 * km_ref_sqfd(i, j) evaluates cross with the signature first in a total order on contents (size,
 * then bytes) outer: so it is symmetric bit for bit, objects with identical signatures get
 * identical distances to everything (the tie rules then see exact ties), and SQFD(i, i) = 0.
 *
 * Voronoi iteration (the output every variant produces):
 *   initial medoids: forward Fisher-Yates over 0..n-1 with gr_rng_seed(init_seed): for i < k,
 *     swap(p[i], p[gr_rng_range(i, n-1)]); medoid j = p[j] (shuffle order, not sorted);
 *   step t: assign each object to its nearest medoid (medoids scanned 0..k-1, a later one wins
 *     only if strictly closer); objective[t] = sum over objects, in index order, of that distance;
 *     if t == iters (the limit) stop;
 *     new medoid of cluster j: no member: keep the old one; fewer than 3 members: the member of
 *     lowest index; else the member with the smallest score, ties lowest index; a member's
 *     score is the sum of its distances to the members, each rounded to a multiple of 2^-40
 *     (km_score_fixed) and summed exactly as integers: so the score does not depend on the order
 *     of the sum, and members whose distances are the same multiset (duplicate signatures, a
 *     cluster of two duplicate pairs) tie exactly in every variant;
 *     if no medoid changed stop, else next step.
 *   The result is the last medoids, the assignment to them, and objective[0..steps-1]
 *   (steps <= iters + 1; the rest of the iters + 1 slots are 0). */
#ifndef GR_REFERENCE_KMEDOIDS_H
#define GR_REFERENCE_KMEDOIDS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A set of signatures (what datasets/kmedoids_sig.h generates, writes and loads). */
#define KMSIG_DIM 7
#define KMSIG_REC 8 /* floats per centroid record: 7 coordinates + weight */
struct kmsig {
  int64_t n;     /* signatures */
  int64_t total; /* centroids */
  int64_t *off;  /* n + 1 offsets: signature i is centroids [off[i], off[i+1]) */
  float *data;   /* total * KMSIG_REC floats: x0..x6, weight */
};

/* Centroids of signature i. */
static inline int64_t kmsig_size(const struct kmsig *ds, int64_t i)
{
  return ds->off[i + 1] - ds->off[i];
}

/* A total order on signature contents: size, then bytes. <0, 0 (identical signatures), >0. */
int kmsig_content_cmp(const struct kmsig *ds, int64_t i, int64_t j);

#define KM_ZERO_RADICAND 1e-6 /* SQFD is 0 when the radicand is at most this */
#define KM_SCORE_ONE 1099511627776.0 /* 2^40: a score is a sum of distances in this unit */
/* SQFD of normalised signatures is at most sqrt(2): a cluster of up to this many members scores
 * below 2^24 * 2^40 = 2^64, so its 64-bit sum cannot wrap. Runs of more objects are refused. */
#define KM_SCORE_MAX_N (1 << 23)

/* Parameters of one k-medoids run. */
struct km_config {
  int k;              /* clusters, 1 <= k <= n */
  double alpha;       /* similarity exp(-alpha ||d||^2) */
  int iters;          /* iteration limit (medoid updates), >= 0 */
  uint64_t init_seed; /* seed of the initial shuffle */
};

/* Result of a run: owned arrays (km_result_alloc / km_result_release). */
struct km_result {
  int64_t n;
  int k, iters;
  int steps;          /* assignment steps done, 1..iters+1 */
  int32_t *medoids;   /* k object indices */
  int32_t *assign;    /* n cluster indices in [0, k) */
  double *objective;  /* iters + 1 values; objective[t] after assignment step t, rest 0 */
};
int km_result_alloc(struct km_result *res, int64_t n, int k, int iters);
void km_result_release(struct km_result *res);

/* The dataset prepared for the reference distance: normalised weights and self similarities. */
struct km_ref {
  const struct kmsig *ds;
  double alpha;
  double *w;    /* ds->total normalised weights */
  double *self; /* ds->n self similarities */
};
/* 0, or -1 when out of memory. */
int km_ref_init(struct km_ref *r, const struct kmsig *ds, double alpha);
/* km_ref_init in parts: the weights, with room for the self-similarities (0, or -1 out of
 * memory); then those of objects [lo, hi), each independent of the others. */
int km_ref_alloc(struct km_ref *r, const struct kmsig *ds, double alpha);
void km_ref_self(struct km_ref *r, int64_t lo, int64_t hi);
void km_ref_release(struct km_ref *r);
/* cross(X_i, X_j) with i's centroids outer, in double. */
double km_ref_cross(const struct km_ref *r, int64_t i, int64_t j);
/* SQFD between objects i and j (symmetric bit for bit, equal for equal contents, 0 on the
 * diagonal). */
double km_ref_sqfd(const struct km_ref *r, int64_t i, int64_t j);
/* The n x n SQFD matrix (row-major), or NULL when out of memory. */
double *km_ref_distance_matrix(const struct km_ref *r);
/* Items [lo, hi) of the (n + 1) / 2 that make that matrix, into m: item t is rows t and n-1-t
 * (one row for the middle of an odd n), each pair (i, j > i) of them written on both sides of
 * the diagonal; so the items are independent and hold n - 1 pairs each. */
void km_ref_matrix_items(const struct km_ref *r, double *m, int64_t lo, int64_t hi);

/* A distance (>= 0) as a score term: round(d * 2^40), to nearest, ties to even. */
uint64_t km_score_fixed(double d);

/* The initial medoids of the definition above (k <= n). 0, or -1 when out of memory. */
int km_init_medoids(int64_t n, int k, uint64_t init_seed, int32_t *medoids);

/* Run the Voronoi iteration. dist: the n x n matrix of km_ref_distance_matrix, or NULL to
 * evaluate distances on the fly. res must be allocated for (n, k, iters). 0, or -1 on bad
 * parameters or no memory. */
int km_reference(const struct km_ref *r, const struct km_config *cfg, const double *dist,
                 struct km_result *res);

#ifdef __cplusplus
}
#endif

#endif
