/* The kmedoids algorithm's table: parameters, variants, boundary-biased generator, instance
 * (signatures + reference answer), checker, work model and timing hooks.
 *
 * A case is a dataset of n signatures drawn by datasets/kmedoids_sig (latent classes, sig_min..
 * sig_max centroids each) and a run of k-medoids on it (k clusters, alpha, an iteration limit);
 * `ranks` is how many MPI ranks the mpi_* variants start. The output is the final medoids, the
 * assignment and the objective after each step (km_mpirun.h gives the layout).
 *
 * Check: the same medoids and assignment as the reference (then the objective trace within
 * KM_OBJ_TOL relative, except after the reference path's first near tie: a path that flips it
 * and comes back to the same end). Where float summation flips a near tie and the path differs, the
 * output passes only if every object sits at its nearest medoid (within tolerance), a converged
 * run's medoids minimise their clusters' scores (within tolerance), and either the objective,
 * recomputed in double, is within KM_OBJ_TOL of the reference's (plus the moved objects'
 * tolerance when the medoids agree), or, with other medoids, the reference's own path passed a
 * near tie (an assignment or a medoid update float distances may decide the other way:
 * path_near_tie) and step 0 agrees; the relative difference is then the case's error metric (the
 * harness has no channel for a note on a pass). Always: indices in range, every
 * field written, each medoid in its own cluster (or at distance 0 from the medoid it joined), the
 * objective never increasing. Cases too big for the reference are checked on a sample. */
#include "kmedoids_alg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuregress/util.h>
#include <gpuregress/check.h>
#include "km_engine.h"
#include "km_gpu.h"
#include "km_mpirun.h"
#include "kmedoids.h"

enum { P_N, P_K, P_SIG_MIN, P_SIG_MAX, P_CLASSES, P_ALPHA, P_ITERS, P_RANKS, P_DIST, P_DATA };
/* the generator's distributions, then "file": the signatures of data= */
static const char *const km_dist_names[] = {"classes", "uniform", "duplicates", "file", NULL};
#define KM_DIST_FILE KMSIG_DIST_COUNT_
_Static_assert(KMSIG_DIST_COUNT_ == 3, "km_dist_names follows enum kmsig_dist");
static const struct gr_param_spec km_params[] = {
    [P_N] = {"n", GR_PARAM_INT, 1, 1000000, NULL, "objects (image signatures)"},
    [P_K] = {"k", GR_PARAM_INT, 1, 1000000, NULL, "clusters, 1..n"},
    [P_SIG_MIN] = {"sig_min", GR_PARAM_INT, 1, 256, NULL, "fewest centroids per signature"},
    [P_SIG_MAX] = {"sig_max", GR_PARAM_INT, 1, 256, NULL, "most centroids per signature"},
    [P_CLASSES] = {"classes", GR_PARAM_INT, 1, 1000, NULL, "latent image classes of the generator"},
    [P_ALPHA] = {"alpha_milli", GR_PARAM_INT, 1, 5000, NULL,
                 "similarity exp(-alpha d^2), alpha in thousandths (200: 0.2)"},
    [P_ITERS] = {"iters", GR_PARAM_INT, 0, 100, NULL, "iteration limit (medoid updates)"},
    [P_RANKS] = {"ranks", GR_PARAM_INT, 1, 4, NULL, "MPI ranks of the mpi_* variants"},
    [P_DIST] = {"dist", GR_PARAM_ENUM, 0, 0, km_dist_names,
                "signature distribution (file: the signatures of data=)"},
    [P_DATA] = {"data", GR_PARAM_FILE, 0, 0, NULL,
                "signature file (datasets/kmedoids_sig.h): n, sig_min and sig_max from it"},
};

static const char *const km_bench_case_list[] = {
    "kmedoids n=10000 k=32 sig_min=40 sig_max=80 classes=16 alpha_milli=200 iters=2 ranks=1 "
    "dist=classes seed=1",
    "kmedoids n=10000 k=256 sig_min=40 sig_max=80 classes=16 alpha_milli=200 iters=2 ranks=1 "
    "dist=classes seed=1",
    "kmedoids n=100000 k=32 sig_min=40 sig_max=80 classes=16 alpha_milli=200 iters=2 ranks=1 "
    "dist=classes seed=1",
    "kmedoids n=100000 k=256 sig_min=40 sig_max=80 classes=16 alpha_milli=200 iters=2 ranks=1 "
    "dist=classes seed=1",
    NULL,
};

/* case parameters */

void km_case_gen(const struct gr_case *c, struct kmsig_gen *g)
{
  memset(g, 0, sizeof *g);
  g->n = c->v[P_N];
  g->sig_min = (int)c->v[P_SIG_MIN];
  g->sig_max = (int)c->v[P_SIG_MAX];
  g->classes = (int)c->v[P_CLASSES];
  g->dist = (enum kmsig_dist)c->v[P_DIST];
  g->seed = c->seed;
}

void km_case_config(const struct gr_case *c, struct km_config *cfg)
{
  cfg->k = (int)c->v[P_K];
  cfg->alpha = (double)c->v[P_ALPHA] / 1000.0;
  cfg->iters = (int)c->v[P_ITERS];
  cfg->init_seed = c->seed ^ 0x6b6d65646f696473ull; /* "kmedoids" */
}

/* centroid pairs of the n x n distance matrix, half of it */
static double ref_pairs(const struct gr_case *c)
{
  double n = (double)c->v[P_N], sig = 0.5 * (double)(c->v[P_SIG_MIN] + c->v[P_SIG_MAX]);
  return 0.5 * n * n * sig * sig;
}

static void km_fixup(struct gr_case *c)
{
  int64_t *v = c->v;
  if (v[P_DIST] == KM_DIST_FILE) /* the file fixes the data */
    return;
  if (v[P_SIG_MIN] > v[P_SIG_MAX])
    v[P_SIG_MIN] = v[P_SIG_MAX];
  while (ref_pairs(c) > KM_FUZZ_PAIRS) {
    if (v[P_SIG_MAX] > 16) {
      v[P_SIG_MAX] = v[P_SIG_MAX] * 3 / 4;
      if (v[P_SIG_MIN] > v[P_SIG_MAX])
        v[P_SIG_MIN] = v[P_SIG_MAX];
    } else {
      v[P_N] = v[P_N] * 3 / 4;
    }
  }
  if (v[P_N] < 1)
    v[P_N] = 1;
  if (v[P_K] > v[P_N])
    v[P_K] = v[P_N];
}

static void km_generate(struct gr_case *c, struct gr_rng *r)
{
  static const int64_t n_edges[] = {1, 2, 3, 4, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257};
  static const int64_t big_n_edges[] = {200, 255, 256, 257, 500, 511, 512, 513, 1000, 1500};
  static const int64_t sig_edges[] = {1, 2, 10, 16, 31, 32, 33, 60, 63, 64, 65, 128, 200, 255, 256};
  static const int64_t class_edges[] = {1, 2, 3, 4, 8, 16, 32};
  static const int64_t alpha_edges[] = {10, 50, 200, 1000, 2000};
  static const int64_t iter_edges[] = {0, 1, 2, 3, 16, 32};
  int64_t *v = c->v;
  v[P_CLASSES] =
      gr_rng_boundary(r, 1, 32, class_edges, sizeof class_edges / sizeof *class_edges, 0.6);
  v[P_ALPHA] = gr_rng_chance(r, 0.6)
                   ? 200
                   : gr_rng_boundary(r, 10, 2000, alpha_edges,
                                     sizeof alpha_edges / sizeof *alpha_edges, 0.5);
  v[P_ITERS] = gr_rng_chance(r, 0.6) ? 16
                                     : gr_rng_boundary(r, 0, 32, iter_edges,
                                                       sizeof iter_edges / sizeof *iter_edges, 0.6);
  v[P_RANKS] = gr_rng_range(r, 1, 4);
  v[P_DIST] =
      gr_rng_chance(r, 0.5) ? KMSIG_DIST_CLASSES : gr_rng_range(r, 1, KMSIG_DIST_COUNT_ - 1);
  int mode = (int)gr_rng_range(r, 0, 9);
  if (mode < 4) { /* few big clusters, split over many blocks (and ranks) */
    v[P_N] =
        gr_rng_boundary(r, 200, 1500, big_n_edges, sizeof big_n_edges / sizeof *big_n_edges, 0.5);
    v[P_SIG_MIN] = gr_rng_range(r, 1, 8);
    v[P_SIG_MAX] = v[P_SIG_MIN] + gr_rng_range(r, 0, 12);
    v[P_K] = gr_rng_range(r, 1, 4);
    if (gr_rng_chance(r, 0.15)) { /* one cluster past 1024 members: 64 target parts, many tiles */
      v[P_N] = gr_rng_range(r, KM_TGT_PARTS_MAX * KM_TGT_PART_MIN + 1, 1500);
      v[P_SIG_MIN] = gr_rng_range(r, 1, 3);
      v[P_SIG_MAX] = v[P_SIG_MIN] + gr_rng_range(r, 0, 3);
      v[P_K] = 1;
    }
  } else if (mode < 8) { /* anything, k at its thresholds */
    v[P_N] = gr_rng_boundary(r, 1, 400, n_edges, sizeof n_edges / sizeof *n_edges, 0.5);
    v[P_SIG_MIN] = gr_rng_boundary(r, 1, 256, sig_edges, sizeof sig_edges / sizeof *sig_edges, 0.5);
    v[P_SIG_MAX] = gr_rng_boundary(r, 1, 256, sig_edges, sizeof sig_edges / sizeof *sig_edges, 0.5);
    if (v[P_SIG_MIN] > v[P_SIG_MAX]) {
      int64_t t = v[P_SIG_MIN];
      v[P_SIG_MIN] = v[P_SIG_MAX];
      v[P_SIG_MAX] = t;
    }
    int64_t n = v[P_N], cl = v[P_CLASSES];
    int64_t k_edges[] = {1, 2, 3, cl - 1, cl, cl + 1, 2 * cl, n / 2, n - 1, n};
    v[P_K] = gr_rng_boundary(r, 1, n, k_edges, sizeof k_edges / sizeof *k_edges, 0.7);
  } else { /* big signatures, few objects */
    v[P_N] = gr_rng_range(r, 2, 40);
    v[P_SIG_MIN] =
        gr_rng_boundary(r, 32, 256, sig_edges, sizeof sig_edges / sizeof *sig_edges, 0.5);
    v[P_SIG_MAX] =
        gr_rng_boundary(r, v[P_SIG_MIN], 256, sig_edges, sizeof sig_edges / sizeof *sig_edges, 0.5);
    v[P_K] = gr_rng_range(r, 1, v[P_N]);
  }
}

static int km_validate(const struct gr_case *c, char *why, size_t len)
{
  if ((c->v[P_DIST] == KM_DIST_FILE) != (c->file[P_DATA] != NULL)) {
    gr_fmt(why, len, "'dist=file' and 'data=FILE' go together");
    return -1;
  }
  if (c->v[P_K] > c->v[P_N]) {
    gr_fmt(why, len, "'k' = %lld is more than 'n' = %lld", (long long)c->v[P_K],
           (long long)c->v[P_N]);
    return -1;
  }
  if (c->v[P_SIG_MIN] > c->v[P_SIG_MAX]) {
    gr_fmt(why, len, "'sig_min' = %lld is more than 'sig_max' = %lld", (long long)c->v[P_SIG_MIN],
           (long long)c->v[P_SIG_MAX]);
    return -1;
  }
  if ((double)c->v[P_N] * (double)c->v[P_SIG_MAX] >= (double)INT32_MAX) {
    gr_fmt(why, len, "'n * sig_max' = %.0f centroids is beyond 2^31",
           (double)c->v[P_N] * (double)c->v[P_SIG_MAX]);
    return -1;
  }
  return 0;
}

static size_t km_device_bytes(const struct gr_case *c)
{
#ifdef GR_HOST_ONLY /* no GPU variant can run: nothing to reserve */
  (void)c;
  return 0;
#else
  size_t one = km_gpu_device_bytes(c->v[P_N], c->v[P_N] * c->v[P_SIG_MAX]);
  return one * (size_t)c->v[P_RANKS];
#endif
}

/* Per iteration: n*k assignment distances and, with equal clusters, n*n/k score distances, each of
 * mean_sig^2 centroid pairs; the dataset is read about twice. items: SQFD distances. */
static void km_work_model(const struct gr_case *c, double *bytes, double *items)
{
  double n = (double)c->v[P_N], k = (double)c->v[P_K];
  double sig = 0.5 * (double)(c->v[P_SIG_MIN] + c->v[P_SIG_MAX]);
  *items = n * k + n * ceil(n / k);
  *bytes = 2.0 * n * sig * 32.0;
}

/* instance */

static void km_instance_free(struct gr_instance *inst)
{
  if (!inst)
    return;
  struct km_data *d = inst->priv;
  if (d) {
    km_result_release(&d->res);
    free(d->dist);
    km_ref_release(&d->ref);
    kmsig_free(&d->ds);
    free(d);
  }
  free(inst);
}

/* The signatures of data=: loaded, within the parameters' ranges; the fewest and most centroids
 * of a signature in *smin, *smax. 0 ok, -1 with why. */
static int km_load(const struct gr_case *c, struct kmsig *ds, int64_t *smin, int64_t *smax,
                   char *why, size_t len)
{
  char path[GR_CASE_PATH_LEN * 3];
  if (!gr_case_file(c, "data", path, sizeof path)) {
    gr_fmt(why, len, "'dist=file' needs data=FILE");
    return -1;
  }
  if (kmsig_load(path, ds, why, len))
    return -1;
  *smin = INT64_MAX;
  *smax = 0;
  for (int64_t i = 0; i < ds->n; i++) {
    int64_t sz = kmsig_size(ds, i);
    *smin = sz < *smin ? sz : *smin;
    *smax = sz > *smax ? sz : *smax;
  }
  if (ds->n > km_params[P_N].max || *smax > km_params[P_SIG_MAX].max || *smin < 1) {
    gr_fmt(why, len, "'%s': %lld signatures of %lld to %lld centroids; cases take at most %lld of "
           "1 to %lld", path, (long long)ds->n, (long long)*smin, (long long)*smax,
           (long long)km_params[P_N].max, (long long)km_params[P_SIG_MAX].max);
    kmsig_free(ds);
    return -1;
  }
  return 0;
}

/* The signature file's header and size, before the case hashes it. */
static int km_check_file(const char *param, const char *path, char *why, size_t len)
{
  (void)param;
  return kmsig_check(path, why, len) ? -1 : 0;
}

static int km_data_params(struct gr_case *c, uint32_t *filled, char *why, size_t len)
{
  struct kmsig ds;
  int64_t smin, smax;
  memset(&ds, 0, sizeof ds);
  if (km_load(c, &ds, &smin, &smax, why, len))
    return -1;
  c->v[P_N] = ds.n;
  c->v[P_SIG_MIN] = smin;
  c->v[P_SIG_MAX] = smax;
  c->v[P_CLASSES] = 1;
  c->v[P_DIST] = KM_DIST_FILE;
  kmsig_free(&ds);
  *filled = 1u << P_N | 1u << P_SIG_MIN | 1u << P_SIG_MAX | 1u << P_CLASSES | 1u << P_DIST;
  return 0;
}

/* The reference's per-object and per-pair terms over the CPUs (kmedoids_alg.h) */

static void self_chunk(void *ctx, size_t lo, size_t hi)
{
  km_ref_self(ctx, (int64_t)lo, (int64_t)hi);
}

int km_ref_init_parallel(struct km_ref *r, const struct kmsig *ds, double alpha)
{
  if (km_ref_alloc(r, ds, alpha))
    return -1;
  gr_parallel_for((size_t)ds->n, 64, self_chunk, r);
  return 0;
}

struct matrix_job {
  const struct km_ref *r;
  double *m;
};

static void matrix_chunk(void *ctx, size_t lo, size_t hi)
{
  const struct matrix_job *mj = ctx;
  km_ref_matrix_items(mj->r, mj->m, (int64_t)lo, (int64_t)hi);
}

double *km_ref_distance_matrix_parallel(const struct km_ref *r)
{
  int64_t n = r->ds->n;
  struct matrix_job mj = {r, malloc(sizeof(double) * (size_t)(n ? n * n : 1))};
  if (mj.m)
    gr_parallel_for((size_t)(n + 1) / 2, 8, matrix_chunk, &mj);
  return mj.m;
}

static int km_instance_new(const struct gr_case *c, struct gr_instance **out, char *why, size_t len)
{
  struct gr_instance *inst = gr_instance_alloc(c, sizeof(struct km_data), why, len);
  if (!inst)
    return -1;
  struct km_data *d = inst->priv;
  struct kmsig_gen g;
  km_case_gen(c, &g);
  km_case_config(c, &d->cfg);
  d->ranks = (int)c->v[P_RANKS];
  int64_t smin, smax;
  if (c->v[P_DIST] == KM_DIST_FILE ? km_load(c, &d->ds, &smin, &smax, why, len)
                                   : kmsig_generate(&g, &d->ds, why, len))
    goto out_fail;
  if (d->ds.n != c->v[P_N]) {
    gr_fmt(why, len, "the data holds %lld signatures, the case says n=%lld", (long long)d->ds.n,
           (long long)c->v[P_N]);
    goto out_fail;
  }
  if (km_ref_init_parallel(&d->ref, &d->ds, d->cfg.alpha)) {
    gr_fmt(why, len, "out of host memory for the reference");
    goto out_fail;
  }
  if (ref_pairs(c) <= KM_REF_PAIRS && c->v[P_N] <= KM_REF_MAX_N) {
    d->dist = km_ref_distance_matrix_parallel(&d->ref);
    if (!d->dist || km_result_alloc(&d->res, d->ds.n, d->cfg.k, d->cfg.iters) ||
        km_reference(&d->ref, &d->cfg, d->dist, &d->res)) {
      gr_fmt(why, len, "out of host memory for the reference (n = %lld)", (long long)d->ds.n);
      goto out_fail;
    }
    d->has_ref = 1;
  }
  inst->out_bytes = km_out_layout(d->ds.n, d->cfg.k, d->cfg.iters).bytes;
  inst->elem_size = 4;
  *out = inst;
  return 0;
out_fail:
  km_instance_free(inst);
  return -1;
}

/* check */

static double km_d(const struct km_data *d, int64_t i, int64_t j)
{
  return d->dist ? d->dist[i * d->ds.n + j] : km_ref_sqfd(&d->ref, i, j);
}

/* How far a float distance near d may be from the double one. */
static double dist_slack(double d)
{
  return KM_RAD_TOL / (2.0 * fmax(d, sqrt(KM_RAD_TOL)));
}

/* The nearest-medoid check of the sampled objects i = s * stride: each one's distance to its
 * own medoid and to the nearest (the first of equals), computed in parallel (without the
 * distance matrix each is an SQFD of two signatures: 64 objects x k = 256 medoids took 0.75 s
 * on one core), judged afterwards in object order. */
struct near_job {
  const struct km_data *d;
  const int32_t *med, *asg;
  int64_t stride;
  double *dx, *best;
  int *arg;
};

static void near_chunk(void *ctx, size_t lo, size_t hi)
{
  const struct near_job *j = ctx;
  for (size_t s = lo; s < hi; s++) {
    int64_t i = (int64_t)s * j->stride;
    double best = INFINITY;
    int arg = 0;
    for (int m = 0; m < j->d->cfg.k; m++) {
      double dm = km_d(j->d, i, j->med[m]);
      if (dm < best) {
        best = dm;
        arg = m;
      }
    }
    j->dx[s] = km_d(j->d, i, j->med[j->asg[i]]);
    j->best[s] = best;
    j->arg[s] = arg;
  }
}

/* Converged output: every medoid minimises its cluster's score within tolerance. 0, or 1. */
static int check_converged(const struct km_data *d, const int32_t *med, const int32_t *asg,
                           struct gr_check_report *rep)
{
  int64_t n = d->ds.n;
  int k = d->cfg.k, bad = 0;
  struct km_clusters cl;
  if (km_clusters_build(&cl, asg, n, k))
    return gr_check_fail(rep, "memory", "out of host memory for the cluster lists");
  for (int j = 0; j < k && !bad; j++) {
    int64_t a = cl.start[j], m = cl.start[j + 1] - a;
    if (m >= 1 && m < 3 && med[j] != cl.list[a])
      bad = gr_check_fail(rep, "parity",
                          "cluster %d of %lld members: medoid %d is not its first "
                          "member %d",
                          j, (long long)m, med[j], cl.list[a]);
    if (m < 3)
      continue;
    double best = INFINITY, mine = 0, slack = 0;
    for (int64_t s = a; s < a + m; s++) {
      double sc = 0;
      for (int64_t u = a; u < a + m; u++) {
        double x = km_d(d, cl.list[s], cl.list[u]);
        sc += x;
        if (cl.list[s] == med[j])
          slack += dist_slack(x);
      }
      if (sc < best)
        best = sc;
      if (cl.list[s] == med[j])
        mine = sc;
    }
    if (mine > best * (1 + KM_OBJ_TOL) + 2 * slack)
      bad = gr_check_fail(rep, "parity",
                          "converged, but cluster %d's medoid %d scores %.12g and a member scores "
                          "%.12g",
                          j, med[j], mine, best);
  }
  km_clusters_release(&cl);
  return bad;
}

/* The reference's assignment step t of its path: each object's nearest medoid (a later medoid
 * only if strictly closer) into asg; 1 when some object's second-nearest is within the distance
 * tolerance of its nearest (a near tie float distances may resolve the other way). *slack
 * gets the step's summed distance tolerance. */
static int replay_assign(const struct km_data *d, const int32_t *med, int32_t *asg, double *slack)
{
  int tie = 0;
  *slack = 0;
  for (int64_t i = 0; i < d->ds.n; i++) {
    double best = INFINITY, second = INFINITY;
    for (int j = 0; j < d->cfg.k; j++) {
      double x = km_d(d, i, med[j]);
      if (x < best) {
        second = best;
        best = x;
        asg[i] = j;
      } else if (x < second) {
        second = x;
      }
    }
    tie |= second - best <= best * KM_OBJ_TOL + 2 * dist_slack(best);
    *slack += dist_slack(best);
  }
  return tie;
}

/* The reference's medoid update of cluster cl.list[a..b) (at least 3 members): the member of the
 * least exact score (the reference's rule) into *m; 1 when a runner-up scores within the score
 * tolerance (the members' summed distance tolerances) of it. */
static int replay_update(const struct km_data *d, const struct km_clusters *cl, int64_t a,
                         int64_t b, int32_t *m)
{
  uint64_t best = UINT64_MAX;
  double best_d = INFINITY, best_slack = 0, second_d = INFINITY, second_slack = 0;
  for (int64_t s = a; s < b; s++) {
    uint64_t sum = 0;
    double sd = 0, slack = 0;
    for (int64_t u = a; u < b; u++) {
      double x = km_d(d, cl->list[s], cl->list[u]);
      sum += km_score_fixed(x);
      sd += x;
      slack += dist_slack(x);
    }
    if (sum < best) {
      best = sum;
      *m = cl->list[s];
    }
    if (sd < best_d) {
      second_d = best_d, second_slack = best_slack;
      best_d = sd, best_slack = slack;
    } else if (sd < second_d) {
      second_d = sd, second_slack = slack;
    }
  }
  return second_d - best_d <= best_d * KM_OBJ_TOL + best_slack + second_slack;
}

/* The reference's path replayed (its initial medoids, its steps): 1 when it passed a near tie, an
 * assignment or a medoid update that float distances may decide the other way, which takes the
 * run down another path (a fixed variant's different path is accepted only then); *slack0 gets
 * step 0's summed distance tolerance (its objective depends on the initial medoids alone) and
 * *first the first step whose objective a near tie may change (a tie in assignment t: t; in the
 * update after it: t + 1; the number of steps when there is none); -1 out of memory. */
static int path_near_tie(const struct km_data *d, double *slack0, int *first)
{
  int64_t n = d->ds.n;
  int k = d->cfg.k, tie = 0;
  *first = d->res.steps;
  int32_t *med = malloc(sizeof(int32_t) * (size_t)k), *asg = malloc(sizeof(int32_t) * (size_t)n);
  if (!med || !asg || km_init_medoids(n, k, d->cfg.init_seed, med)) {
    free(med), free(asg);
    return -1;
  }
  for (int t = 0; t < d->res.steps; t++) {
    double slack;
    if (replay_assign(d, med, asg, &slack) && !tie) {
      tie = 1;
      *first = t;
    }
    if (t == 0)
      *slack0 = slack;
    struct km_clusters cl;
    if (t + 1 == d->res.steps || km_clusters_build(&cl, asg, n, k))
      break;
    for (int j = 0; j < k; j++) {
      int64_t a = cl.start[j], b = cl.start[j + 1];
      if (b - a >= 1 && b - a < 3)
        med[j] = cl.list[a];
      else if (b - a >= 3 && replay_update(d, &cl, a, b, &med[j]) && !tie) {
        tie = 1;
        *first = t + 1;
      }
    }
    km_clusters_release(&cl);
  }
  free(med), free(asg);
  return tie;
}

static int km_check(const struct gr_instance *inst, const void *out, struct gr_check_report *rep)
{
  const struct km_data *d = inst->priv;
  int64_t n = d->ds.n;
  int k = d->cfg.k, iters = d->cfg.iters;
  struct km_out_layout l = km_out_layout(n, k, iters);
  const unsigned char *o = out;
  int32_t head[2];
  memcpy(head, o, sizeof head);
  const double *obj = (const double *)(o + l.objective);
  const int32_t *med = (const int32_t *)(o + l.medoids), *asg = (const int32_t *)(o + l.assign);
  int steps = head[0];
  if (steps < 1 || steps > iters + 1)
    return gr_check_fail(rep, "bounds", "steps = %d outside [1, %d]", steps, iters + 1);
  if (head[1] != 0)
    return gr_check_fail(rep, "bounds", "the word after 'steps' holds %#x, not 0 (left unwritten?)",
                         (unsigned)head[1]);
  for (int t = 0; t <= iters; t++) {
    if (t < steps && !(obj[t] >= 0 && isfinite(obj[t])))
      return gr_check_fail(rep, "bounds", "objective[%d] = %g is not a finite non-negative sum", t,
                           obj[t]);
    if (t >= steps && obj[t] != 0)
      return gr_check_fail(rep, "bounds", "objective[%d] = %g past the %d steps is not 0", t,
                           obj[t], steps);
  }
  for (int j = 0; j < k; j++)
    if (med[j] < 0 || med[j] >= n)
      return gr_check_fail(rep, "bounds", "medoid %d = %d outside [0, %lld)", j, med[j],
                           (long long)n);
  for (int64_t i = 0; i < n; i++)
    if (asg[i] < 0 || asg[i] >= k)
      return gr_check_fail(rep, "bounds", "object %lld assigned to %d outside [0, %d)",
                           (long long)i, asg[i], k);
  for (int j = 0; j < k; j++) {
    int c = asg[med[j]];
    if (c != j && km_d(d, med[j], med[c]) != 0)
      return gr_check_fail(rep, "invariant",
                           "medoid %d (object %d) is assigned to cluster %d at distance %.9g", j,
                           med[j], c, km_d(d, med[j], med[c]));
  }
  /* the output's own objective, in double, and how far float distances may move a sum of them */
  double sum = 0, slack = 0;
  int64_t stride = d->has_ref || n <= 64 ? 1 : n / 64, ns = (n + stride - 1) / stride;
  struct near_job nj = {d, med, asg, stride, malloc(sizeof(double) * (size_t)ns),
                        malloc(sizeof(double) * (size_t)ns), malloc(sizeof(int) * (size_t)ns)};
  if (!nj.dx || !nj.best || !nj.arg) {
    free(nj.dx), free(nj.best), free(nj.arg);
    return gr_check_fail(rep, "memory", "out of host memory for the nearest-medoid check");
  }
  /* a thread takes at least 8 objects, or 4096 with the matrix (lookups, not SQFDs) */
  gr_parallel_for((size_t)ns, d->dist ? 4096 : 8, near_chunk, &nj);
  int bad = 0;
  for (int64_t s = 0; s < ns && !bad; s++) {
    int64_t i = s * stride;
    double dx = nj.dx[s], best = nj.best[s];
    int arg = nj.arg[s];
    if (dx > best * (1 + KM_OBJ_TOL) + 2 * dist_slack(best))
      bad = gr_check_fail(rep, "parity",
                          "object %lld is assigned to cluster %d (medoid %d) at distance %.9g, but "
                          "cluster %d (medoid %d) is at %.9g",
                          (long long)i, asg[i], med[asg[i]], dx, arg, med[arg], best);
    sum += dx;
    slack += dist_slack(dx);
  }
  free(nj.dx), free(nj.best), free(nj.arg);
  if (bad)
    return 1;
  slack *= (double)stride;
  for (int t = 0; t + 1 < steps; t++)
    if (obj[t + 1] > obj[t] * (1 + KM_OBJ_TOL) + 2 * slack)
      return gr_check_fail(rep, "invariant",
                           "objective increased from step %d to %d: %.12g -> %.12g", t, t + 1,
                           obj[t], obj[t + 1]);
  if (!d->has_ref) /* too big for the reference: the sample above */
    return 0;
  if (fabs(obj[steps - 1] - sum) > KM_OBJ_TOL * sum + slack)
    return gr_check_fail(
        rep, "parity",
        "reported objective %.12g but the output's medoids and assignment give %.12g",
        obj[steps - 1], sum);
  const struct km_result *ref = &d->res;
  double ref_obj = ref->objective[ref->steps - 1];
  int same = steps == ref->steps && memcmp(med, ref->medoids, 4 * (size_t)k) == 0 &&
             memcmp(asg, ref->assign, 4 * (size_t)n) == 0;
  if (same) {
    /* The same end, but the path to it may have flipped a near tie and come back (H200, stop 47:
     * cluster 1 of 88 members at alpha 0.049, two members scoring 1.9e-5 apart; v2_gpu took the
     * other, its objective[2] 0.33% above the reference's, then both reached the same medoids):
     * an objective past the reference's first near tie may differ, the final one may not. */
    double worst = 0, slack0 = 0;
    int tie_at = -1;
    for (int t = 0; t < steps; t++) {
      double e = fabs(obj[t] - ref->objective[t]);
      if (e > KM_OBJ_TOL * ref->objective[t] + slack) {
        if (tie_at < 0 && t + 1 < steps && path_near_tie(d, &slack0, &tie_at) < 0)
          return gr_check_fail(rep, "memory", "out of host memory for the reference's path");
        if (t + 1 == steps || t < tie_at)
          return gr_check_fail(rep, "parity", "objective[%d] = %.12g, reference %.12g%s", t, obj[t],
                               ref->objective[t],
                               t + 1 == steps ? ""
                               : tie_at < steps
                                   ? " (before the reference's first near tie)"
                                   : " (the reference's path has no near tie to flip)");
      }
      if (ref->objective[t] > 0 && e / ref->objective[t] > worst)
        worst = e / ref->objective[t];
    }
    rep->err = worst;
    return 0;
  }
  /* a different path: accepted only as a near-tie flip */
  int first = 0;
  while (first < k && med[first] == ref->medoids[first])
    first++;
  double rel = fabs(sum - ref_obj) / (ref_obj > 0 ? ref_obj : 1.0);
  if (rel > KM_OBJ_TOL && first < k) {
    /* other medoids: the reference's path must have passed a near tie (an update whose
     * runner-up scores within tolerance: 2 x H200, gpu-check of this stop, cluster 1 of 34 at
     * alpha 0.01 with two members 1.8e-6 apart), and step 0, which depends on the initial medoids
     * alone, must agree (2 x its distance tolerance) */
    double slack0 = 0;
    int first_tie, tie = path_near_tie(d, &slack0, &first_tie);
    if (tie < 0)
      return gr_check_fail(rep, "memory", "out of host memory for the reference's path");
    if (!tie || fabs(obj[0] - ref->objective[0]) > KM_OBJ_TOL * ref->objective[0] + 2 * slack0)
      return gr_check_fail(
          rep, "parity",
          "medoids differ from the reference (cluster %d: object %d, reference %d; %d steps, "
          "reference %d) and so does the objective: %.12g vs %.12g (relative %.2e > %.0e)%s",
          first, med[first], ref->medoids[first], steps, ref->steps, sum, ref_obj, rel,
          KM_OBJ_TOL,
          tie ? "; step 0 differs too" : "; the reference's path has no near tie to flip");
    if (steps <= iters && check_converged(d, med, asg, rep))
      return 1;
    rep->err = rel; /* the flip, reported as the error metric */
    return 0;
  }
  /* The same medoids, another assignment (or number of steps): each moved object passed the
   * nearest check, so it may cost up to its distance tolerance over the reference's nearest; the
   * sum of those tolerances over the moved objects is what the objective may differ by. */
  double moved = 0;
  int64_t at = -1;
  if (first == k)
    for (int64_t i = 0; i < n; i++)
      if (asg[i] != ref->assign[i]) {
        at = at < 0 ? i : at;
        moved += 2 * dist_slack(km_d(d, i, med[ref->assign[i]]));
      }
  if (fabs(sum - ref_obj) > KM_OBJ_TOL * (ref_obj > 0 ? ref_obj : 1.0) + moved) {
    at = at < 0 ? 0 : at;
    return gr_check_fail(
        rep, "parity",
        "the same medoids, but the assignment differs from the reference (object %d: cluster %d, "
        "reference %d; %d steps, reference %d) and so does the objective: %.12g vs %.12g "
        "(relative %.2e > %.0e and the moved objects' tolerance %.2g)",
        (int)at, asg[at], ref->assign[at], steps, ref->steps, sum, ref_obj, rel, KM_OBJ_TOL,
        moved);
  }
  if (steps <= iters && check_converged(d, med, asg, rep))
    return 1;
  rep->err = rel; /* the flip, reported as the error metric */
  return 0;
}

/* variants */

static enum gr_run_status km_run_reference(const struct gr_variant *v,
                                           const struct gr_instance *inst, void *out,
                                           struct gr_run_ctx *ctx)
{
  const struct km_data *d = inst->priv;
  if (!d->has_ref) {
    gr_fmt(ctx->why, sizeof ctx->why,
           "case too big for the serial reference (%lld objects; it takes n <= %d and "
           "n^2 sig^2 / 2 <= %.0e centroid pairs)",
           (long long)d->ds.n, KM_REF_MAX_N, KM_REF_PAIRS);
    return GR_RUN_UNSUPPORTED;
  }
  struct km_result res;
  if (km_result_alloc(&res, d->ds.n, d->cfg.k, d->cfg.iters) ||
      km_reference(&d->ref, &d->cfg, d->dist, &res)) {
    km_result_release(&res);
    gr_fmt(ctx->why, sizeof ctx->why, "reference failed: out of host memory");
    return GR_RUN_ERROR;
  }
  km_out_pack(&res, out);
  km_result_release(&res);
  return GR_RUN_OK;
}

/* mpirun -np ranks kmedoids_mpi --backend BACKEND on the case's dataset, written to a temp file */
static enum gr_run_status km_run_mpi(const struct gr_instance *inst, void *out,
                                     struct gr_run_ctx *ctx, const char *backend)
{
  const struct km_data *d = inst->priv;
  char exe[4096], why[GR_WHY_LEN];
  if (km_find_mpi_exe(exe, sizeof exe, ctx->why, sizeof ctx->why))
    return GR_RUN_UNSUPPORTED;
  const char *tmp = getenv("TMPDIR");
  char data_path[4096], out_path[4200];
  gr_fmt(data_path, sizeof data_path, "%s/km_case_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(data_path);
  if (fd < 0) {
    gr_fmt(ctx->why, sizeof ctx->why, "cannot create a temporary file: %s", strerror(errno));
    return GR_RUN_ERROR;
  }
  close(fd);
  gr_fmt(out_path, sizeof out_path, "%s.out", data_path);
  enum gr_run_status rs = GR_RUN_ERROR;
  if (kmsig_write(&d->ds, data_path, why, sizeof why)) {
    gr_fmt(ctx->why, sizeof ctx->why, "%s", why);
    goto out_unlink;
  }
  char k[32], alpha[64], iters[32], seed[32], log[400];
  gr_fmt(k, sizeof k, "%d", d->cfg.k);
  gr_fmt(alpha, sizeof alpha, "%.17g", d->cfg.alpha);
  gr_fmt(iters, sizeof iters, "%d", d->cfg.iters);
  gr_fmt(seed, sizeof seed, "%llu", (unsigned long long)d->cfg.init_seed);
  const char *args[] = {"--data", data_path, "--k", k, "--alpha", alpha, "--iters", iters,
                        "--init-seed", seed, "--backend", backend, "--out", out_path, NULL};
  int rc = km_mpirun(d->ranks, exe, args, 600.0, log, sizeof log);
  if (rc == KM_MPIRUN_NOT_FOUND) {
    gr_fmt(ctx->why, sizeof ctx->why, "cannot start mpirun (install openmpi-bin): %s", log);
    rs = GR_RUN_UNSUPPORTED;
    goto out_unlink;
  }
  if (rc != 0) {
    gr_fmt(ctx->why, sizeof ctx->why, "mpirun -np %d kmedoids_mpi --backend %s: exit %d: %s",
           d->ranks, backend, rc, log);
    goto out_unlink;
  }
  if (km_result_read(out_path, d->ds.n, d->cfg.k, d->cfg.iters, out, ctx->why, sizeof ctx->why))
    goto out_unlink;
  rs = GR_RUN_OK;
out_unlink:
  unlink(data_path);
  unlink(out_path);
  return rs;
}

static enum gr_run_status km_run_mpi_gpu(const struct gr_variant *v, const struct gr_instance *inst,
                                         void *out, struct gr_run_ctx *ctx)
{
  return km_run_mpi(inst, out, ctx, "gpu");
}

static enum gr_run_status km_run_mpi_cpu(const struct gr_variant *v, const struct gr_instance *inst,
                                         void *out, struct gr_run_ctx *ctx)
{
  return km_run_mpi(inst, out, ctx, "cpu");
}

/* ---- regimes: the code paths the fuzzer must reach ----------------------------------------- */

/* Small clusters are packed whole into tiles, big ones split over many blocks: the GPU driver
 * reports which its last score plan held (ctx->reached). Without the input (the parent
 * steering) a guess from an average cluster of n/k objects of up to sig_max centroids. */
static int big_guess(const struct gr_case *c)
{
  int64_t m = c->v[P_N] / (c->v[P_K] > 0 ? c->v[P_K] : 1);
  return m > KM_CHUNK_MAX_SRC || m * c->v[P_SIG_MAX] > KM_CHUNK_CENTROIDS;
}
static int r_small(const struct gr_case *c, const struct gr_instance *inst)
{
  return !inst && !big_guess(c);
}
static int r_big(const struct gr_case *c, const struct gr_instance *inst)
{
  return !inst && big_guess(c);
}
/* The limits of the score plan, exact where k = 1 (one cluster of all n objects, split whole on
 * one rank): more than KM_CHUNK_MAX_SRC members, several source chunks; more than
 * KM_TGT_PARTS_MAX x KM_TGT_PART_MIN (1024), the target parts reach their cap of 64 and widen
 * past 16 targets, and the tiles (5+ chunks x 64 parts: 320+) outnumber the SMs twice over. */
GR_REGIME_PREDICATE(r_src_chunks, c->v[P_K] == 1 && c->v[P_N] > KM_CHUNK_MAX_SRC)
GR_REGIME_PREDICATE(r_parts_cap,
                    c->v[P_K] == 1 && c->v[P_N] > KM_TGT_PARTS_MAX * KM_TGT_PART_MIN)
/* Near ties: at alpha <= 0.01 every similarity is close to 1 and a distance is the root of a
 * radicand far below the self terms it is the difference of, so float distances of big
 * signatures flip near ties that double does not (2 x H200, stop 43: the check took such a flip
 * for a wrong answer). */
GR_REGIME_PREDICATE(r_near_ties, c->v[P_ALPHA] <= 10 && c->v[P_SIG_MAX] >= 128)
GR_REGIME_PREDICATE(r_one_rank, c->v[P_RANKS] == 1)
GR_REGIME_PREDICATE(r_ranks, c->v[P_RANKS] > 1)

static const struct gr_regime km_regimes[] = {
    [KM_REGIME_SMALL] = {"small clusters", "v1_racy_score v2_gpu", r_small, 0},
    [KM_REGIME_BIG] = {"big clusters", "v1_racy_score v2_gpu", r_big, 0},
    {"1 cluster, 2+ chunks", "v1_racy_score v2_gpu", r_src_chunks, 0},
    {"64 target parts", "v1_racy_score v2_gpu", r_parts_cap, GR_REGIME_LIMIT},
    {"near ties, small alpha", "v2_gpu", r_near_ties, 0},
    {"one rank", "mpi_gpu mpi_cpu", r_one_rank, 0},
    {"several ranks", "mpi_gpu mpi_cpu", r_ranks, 0},
};

static const struct gr_variant km_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, km_run_reference, NULL,
     "serial double precision, distance matrix cached, definitions of doc/algorithms.md"},
    {"v1_racy_score", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(km_v1_racy_score_launch),
     "big-cluster partial scores added with a plain += across blocks: lost updates"},
    {"v2_gpu", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run), GR_GPU(km_v2_score_launch),
     "resident dataset, register-tiled SQFD; partial scores added with an integer atomicAdd"},
    {"mpi_gpu", GR_VARIANT_FIXED, GR_VARIANT_GPU, km_run_mpi_gpu, NULL,
     "mpirun -np ranks kmedoids_mpi, one GPU per rank (shared when fewer)"},
    {"mpi_cpu", GR_VARIANT_FIXED, 0, km_run_mpi_cpu, NULL,
     "mpirun -np ranks kmedoids_mpi with the CPU backend: the distributed logic without a GPU"},
};

const struct gr_algorithm kmedoids_algorithm = {
    .name = "kmedoids",
    .summary = "k-medoids (Voronoi iteration) over image feature signatures with SQFD, MPI + CUDA",
    .params = km_params,
    .n_params = sizeof km_params / sizeof *km_params,
    .variants = km_variants,
    .n_variants = sizeof km_variants / sizeof *km_variants,
    .generate = km_generate,
    .fixup = km_fixup,
    .validate = km_validate,
    .device_bytes = km_device_bytes,
    .instance_new = km_instance_new,
    .instance_free = km_instance_free,
    .check = km_check,
    .work = km_work_model,
    .regimes = km_regimes,
    .n_regimes = sizeof km_regimes / sizeof *km_regimes,
    .bench_cases = km_bench_case_list,
    .gpu = GR_IF_CUDA(&km_lifecycle),
    .data_params = km_data_params,
    .check_file = km_check_file,
};
GR_REGISTER_ALGORITHM(kmedoids_algorithm);
