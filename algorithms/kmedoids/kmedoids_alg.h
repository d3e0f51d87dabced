/* The kmedoids algorithm as the harness sees it (its table lives in kmedoids_alg.c). */
#ifndef GR_ALGORITHMS_KMEDOIDS_KMEDOIDS_ALG_H
#define GR_ALGORITHMS_KMEDOIDS_KMEDOIDS_ALG_H

#include <stdint.h>

#include <gpuregress/alg.h>
#include "datasets/kmedoids_sig.h"
#include "kmedoids_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct gr_algorithm kmedoids_algorithm;

/* Generated cases are kept at n^2 * mean_sig^2 / 2 <= this many centroid pairs (the reference's
 * distance matrix, about 0.15 s). */
#define KM_FUZZ_PAIRS 1.5e7
/* The reference is computed for cases up to this many pairs and objects; larger cases (the timing
 * sweep) are checked on a sample of objects against the invariants only. */
#define KM_REF_PAIRS 1e9
#define KM_REF_MAX_N 8192
/* Relative tolerance on objectives (doc/algorithms.md). */
#define KM_OBJ_TOL 1e-5
/* Absolute error allowed on a GPU distance's radicand (the float cross terms; measured 1e-7 to
 * 1e-6, see test_kmedoids_gpu). A distance d may then be off by RAD_TOL / (2 max(d, sqrt RAD_TOL)),
 * which matters for the GPU's own objective values when alpha is small and distances are too;
 * comparisons of the reference's double distances do not use it. */
#define KM_RAD_TOL 1e-6

/* The input and reference answer of one case. */
struct km_data {
  struct kmsig ds;
  struct km_config cfg;
  int ranks;
  struct km_ref ref;
  double *dist;         /* n x n reference distances, NULL when the case is too big */
  struct km_result res; /* the reference answer, when has_ref */
  int has_ref;
};

/* The GPU lifecycle of the in-process GPU variants (km_lifecycle.c). */
extern const struct gr_gpu_lifecycle km_lifecycle;

/* The regimes the GPU driver reports (indices in the regime table of kmedoids_alg.c). */
enum { KM_REGIME_SMALL, KM_REGIME_BIG };

/* km_ref_init and km_ref_distance_matrix with their independent terms spread over the CPUs
 * (gr_parallel_for): the same values bit for bit. n = 10,000 signatures of 40-80 centroids took
 * 0.78 s on one core of an H100 host to build (every timing lane of bench --quick waits for it). */
int km_ref_init_parallel(struct km_ref *r, const struct kmsig *ds, double alpha);
double *km_ref_distance_matrix_parallel(const struct km_ref *r);

/* Generator parameters of a case (what instance_new draws the dataset from). */
void km_case_gen(const struct gr_case *c, struct kmsig_gen *g);
/* Configuration of a case (k, alpha, iterations, initial shuffle seed). */
void km_case_config(const struct gr_case *c, struct km_config *cfg);

#ifdef __cplusplus
}
#endif

#endif
