/* The k-medoids iteration as every non-reference variant runs it: one rank of R (R = 1 in the
 * in-process variants, mpirun's ranks in kmedoids_mpi), a compute backend (GPU or CPU) and a
 * communicator (single process or MPI) behind two small tables of functions.
 *
 * Per step, rank r of R:
 *   assignment of objects [n*r/R, n*(r+1)/R) by the backend; assignments and distances exchanged
 *     (Allgatherv): every rank holds all of them; objective = their sum in index order;
 *   cluster lists (members ascending); the score work, sum over clusters of |C|^2 (clusters of
 *     fewer than 3 members cost 0: they keep their first member), split into R equal-cost
 *     ranges: rank r scores the source rows of each cluster whose cost falls in its range, so a
 *     big cluster is shared by several ranks; the backend adds its part of the scores
 *     (kmedoids_ref.h: distances in units of 2^-40, summed as integers) into a vector of n, by
 *     object; the vectors are summed over the ranks (Allreduce, exact and order-free), and every
 *     rank derives the same new medoids (smallest score, ties lowest object index). A backend
 *     whose distances are not symmetric bit for bit (the GPU's) evaluates each pair once, in an
 *     orientation fixed by the two signatures' contents, and adds it to both members' scores:
 *     those can belong to another rank's rows, hence the sum over ranks.
 * The semantics are those of kmedoids_ref.h. */
#ifndef GR_ALGORITHMS_KMEDOIDS_KM_ENGINE_H
#define GR_ALGORITHMS_KMEDOIDS_KM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "datasets/kmedoids_sig.h"
#include "kmedoids_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Members of each cluster: list[start[j] .. start[j+1]) ascending object indices. */
struct km_clusters {
  int k;
  int64_t n;
  int32_t *list;  /* n */
  int64_t *start; /* k + 1 */
};

/* Source rows [row_lo, row_hi) of cluster `cluster` (rows: positions in its member list). */
struct km_work {
  int32_t cluster;
  int64_t row_lo, row_hi;
};

struct km_backend {
  void *ctx;
  /* Objects [lo, hi): nearest medoid (a later one only if strictly closer) into assign[i - lo],
   * its distance into mind[i - lo]. 0, or -1 with why. */
  int (*assign)(void *ctx, const int32_t *medoids, int k, int64_t lo, int64_t hi, int32_t *assign,
                double *mind, char *why, size_t len);
  /* The work items' part of the scores, added into score[object] (n entries, zero on entry):
   * summed over the ranks, score[i] is the sum over i's cluster of km_score_fixed(SQFD(i, j)).
   * assign is the full assignment. 0, or -1 with why. */
  int (*score)(void *ctx, const int32_t *assign, const struct km_clusters *cl,
               const struct km_work *work, int n_work, uint64_t *score, char *why, size_t len);
};

struct km_comm {
  void *ctx;
  int rank, size;
  /* In place: rank r filled [displs[r], displs[r] + counts[r]) of assign and mind; afterwards
   * every rank holds all of both. 0, or -1. */
  int (*allgather_assign)(void *ctx, int32_t *assign, double *mind, const int *counts,
                          const int *displs);
  /* In place: score (n entries) becomes the sum of every rank's. 0, or -1. */
  int (*allreduce_score)(void *ctx, uint64_t *score, int64_t n);
};

/* The single-process communicator (rank 0 of 1). */
extern const struct km_comm km_comm_single;

/* Seconds spent per phase over a run (the calling rank's wall clock). */
struct km_stats {
  int steps;
  double assign_s, exchange_s, plan_s, score_s, total_s;
};

/* Run the iteration for n objects (at most KM_SCORE_MAX_N) with cfg on this rank. res allocated
 * for (n, k, iters); stats may be NULL. 0, or -1 with why. */
int km_engine_run(const struct km_config *cfg, int64_t n, const struct km_backend *be,
                  const struct km_comm *comm, struct km_result *res, struct km_stats *stats,
                  char *why, size_t len);

/* Cluster lists of an assignment. 0, or -1 when out of memory. */
int km_clusters_build(struct km_clusters *cl, const int32_t *assign, int64_t n, int k);
void km_clusters_release(struct km_clusters *cl);
/* Rank `rank` of `size`'s score work for cl: *work (malloc'ed, caller frees) and its count. 0, or
 * -1 when out of memory. Every source row of every cluster of >= 3 members goes to exactly one
 * rank; a rank's rows of one cluster are one item. */
int km_split_work(const struct km_clusters *cl, int rank, int size, struct km_work **work,
                  int *n_work);
/* Objects [lo, hi) of rank `rank` of `size` in the assignment split. */
void km_rank_range(int64_t n, int rank, int size, int64_t *lo, int64_t *hi);

/* The CPU backend: double precision, the reference's own SQFD (bit-identical distances), with a
 * cache of evaluated distances when n <= KM_CPU_CACHE_MAX_N. */
#define KM_CPU_CACHE_MAX_N 8192
struct km_cpu;
struct km_cpu *km_cpu_new(const struct kmsig *ds, double alpha);
void km_cpu_free(struct km_cpu *c);
extern const struct km_backend km_cpu_backend_ops; /* ctx: a struct km_cpu * */

#ifdef __cplusplus
}
#endif

#endif
