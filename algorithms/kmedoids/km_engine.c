/* The k-medoids iteration shared by the GPU variants and kmedoids_mpi, the work split, and the
 * CPU backend. See km_engine.h. */
#include "km_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/util.h>

/* single-process communicator */

static int single_allgather_assign(void *ctx, int32_t *assign, double *mind, const int *counts,
                                   const int *displs)
{
  return 0;
}

static int single_allreduce_score(void *ctx, uint64_t *score, int64_t n)
{
  return 0;
}

const struct km_comm km_comm_single = {NULL, 0, 1, single_allgather_assign, single_allreduce_score};

/* clusters and the work split */

void km_rank_range(int64_t n, int rank, int size, int64_t *lo, int64_t *hi)
{
  *lo = n / size * rank + n % size * rank / size;
  *hi = n / size * (rank + 1) + n % size * (rank + 1) / size;
}

int km_clusters_build(struct km_clusters *cl, const int32_t *assign, int64_t n, int k)
{
  memset(cl, 0, sizeof *cl);
  cl->k = k;
  cl->n = n;
  cl->list = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
  cl->start = calloc((size_t)k + 1, sizeof(int64_t));
  if (!cl->list || !cl->start) {
    km_clusters_release(cl);
    return -1;
  }
  for (int64_t i = 0; i < n; i++)
    cl->start[assign[i] + 1]++;
  for (int j = 0; j < k; j++)
    cl->start[j + 1] += cl->start[j];
  for (int64_t i = 0; i < n; i++)
    cl->list[cl->start[assign[i]]++] = (int32_t)i;
  for (int j = k; j > 0; j--)
    cl->start[j] = cl->start[j - 1];
  cl->start[0] = 0;
  return 0;
}

void km_clusters_release(struct km_clusters *cl)
{
  if (!cl)
    return;
  free(cl->list);
  free(cl->start);
  memset(cl, 0, sizeof *cl);
}

/* floor(t * r / s) without overflow for t < 2^62, r <= s */
static int64_t cost_cut(int64_t t, int r, int s)
{
  return t / s * r + t % s * r / s;
}

/* smallest row whose start cost base + row*m is >= c (rows of m each), clamped to [0, m] */
static int64_t first_row_at(int64_t c, int64_t base, int64_t m)
{
  if (c <= base)
    return 0;
  int64_t r = (c - base + m - 1) / m;
  return r > m ? m : r;
}

int km_split_work(const struct km_clusters *cl, int rank, int size, struct km_work **work,
                  int *n_work)
{
  *work = NULL;
  *n_work = 0;
  int64_t total = 0;
  for (int j = 0; j < cl->k; j++) {
    int64_t m = cl->start[j + 1] - cl->start[j];
    if (m >= 3)
      total += m * m;
  }
  int64_t lo = cost_cut(total, rank, size), hi = cost_cut(total, rank + 1, size);
  struct km_work *w = malloc(sizeof *w * (size_t)(cl->k ? cl->k : 1));
  if (!w)
    return -1;
  int nw = 0;
  int64_t base = 0;
  for (int j = 0; j < cl->k && base < hi; j++) {
    int64_t m = cl->start[j + 1] - cl->start[j];
    if (m < 3)
      continue;
    int64_t a = first_row_at(lo, base, m), b = first_row_at(hi, base, m);
    if (b > a)
      w[nw++] = (struct km_work){j, a, b};
    base += m * m;
  }
  *work = w;
  *n_work = nw;
  return 0;
}

/* the iteration */

int km_engine_run(const struct km_config *cfg, int64_t n, const struct km_backend *be,
                  const struct km_comm *comm, struct km_result *res, struct km_stats *stats,
                  char *why, size_t len)
{
  int k = cfg->k, R = comm->size, err = -1;
  struct km_stats st;
  memset(&st, 0, sizeof st);
  double t_start = gr_now_seconds();
  if (n > KM_SCORE_MAX_N) {
    gr_fmt(why, len, "%lld objects: at most %d (a score of more members could wrap its 64 bits)",
           (long long)n, KM_SCORE_MAX_N);
    return -1;
  }
  if (k < 1 || k > n || cfg->iters < 0 || res->n != n || res->k != k || res->iters != cfg->iters) {
    gr_fmt(why, len, "bad run parameters: n=%lld k=%d iters=%d", (long long)n, k, cfg->iters);
    return -1;
  }
  double *mind = malloc(sizeof(double) * (size_t)n);
  int *counts = malloc(sizeof(int) * (size_t)R), *displs = malloc(sizeof(int) * (size_t)R);
  uint64_t *score = malloc(sizeof(uint64_t) * (size_t)n);
  int32_t *next = malloc(sizeof(int32_t) * (size_t)k);
  struct km_clusters cl;
  struct km_work *work = NULL;
  memset(&cl, 0, sizeof cl);
  if (!mind || !counts || !displs || !score || !next) {
    gr_fmt(why, len, "out of host memory for %lld objects", (long long)n);
    goto out_free;
  }
  for (int r = 0; r < R; r++) {
    int64_t a, b;
    km_rank_range(n, r, R, &a, &b);
    displs[r] = (int)a;
    counts[r] = (int)(b - a);
  }
  int64_t lo = displs[comm->rank], hi = lo + counts[comm->rank];
  if (km_init_medoids(n, k, cfg->init_seed, res->medoids)) {
    gr_fmt(why, len, "out of host memory for the initial shuffle");
    goto out_free;
  }
  memset(res->objective, 0, sizeof(double) * ((size_t)cfg->iters + 1));
  for (int t = 0;; t++) {
    double t0 = gr_now_seconds();
    if (be->assign(be->ctx, res->medoids, k, lo, hi, res->assign + lo, mind + lo, why, len))
      goto out_free;
    double t1 = gr_now_seconds();
    if (comm->allgather_assign(comm->ctx, res->assign, mind, counts, displs)) {
      gr_fmt(why, len, "exchange of the assignments failed");
      goto out_free;
    }
    double t2 = gr_now_seconds();
    st.assign_s += t1 - t0;
    st.exchange_s += t2 - t1;
    double obj = 0;
    for (int64_t i = 0; i < n; i++)
      obj += mind[i];
    res->objective[t] = obj;
    res->steps = st.steps = t + 1;
    if (t == cfg->iters)
      break;
    km_clusters_release(&cl);
    free(work);
    work = NULL;
    int n_work = 0;
    if (km_clusters_build(&cl, res->assign, n, k) ||
        km_split_work(&cl, comm->rank, R, &work, &n_work)) {
      gr_fmt(why, len, "out of host memory for the cluster lists");
      goto out_free;
    }
    double t3 = gr_now_seconds();
    memset(score, 0, sizeof(uint64_t) * (size_t)n);
    if (n_work && be->score(be->ctx, res->assign, &cl, work, n_work, score, why, len))
      goto out_free;
    double t4 = gr_now_seconds();
    if (comm->allreduce_score(comm->ctx, score, n)) {
      gr_fmt(why, len, "exchange of the scores failed");
      goto out_free;
    }
    double t5 = gr_now_seconds();
    st.plan_s += t3 - t2;
    st.score_s += t4 - t3;
    st.exchange_s += t5 - t4;
    int changed = 0;
    for (int j = 0; j < k; j++) {
      int64_t a = cl.start[j], m = cl.start[j + 1] - a;
      int32_t med = res->medoids[j];
      if (m >= 1 && m < 3) {
        med = cl.list[a];
      } else if (m >= 3) { /* members ascending: the first smallest is the lowest object */
        uint64_t best = UINT64_MAX;
        for (int64_t p = a; p < a + m; p++)
          if (score[cl.list[p]] < best) {
            best = score[cl.list[p]];
            med = cl.list[p];
          }
      }
      next[j] = med;
      changed |= med != res->medoids[j];
    }
    if (!changed)
      break;
    memcpy(res->medoids, next, sizeof(int32_t) * (size_t)k);
  }
  err = 0;
out_free:
  st.total_s = gr_now_seconds() - t_start;
  if (stats)
    *stats = st;
  km_clusters_release(&cl);
  free(work);
  free(mind);
  free(counts);
  free(displs);
  free(score);
  free(next);
  return err;
}

/* CPU backend */

struct km_cpu {
  struct km_ref ref;
  double *cache; /* n x n, NaN where not evaluated yet; NULL when n is too large */
};

struct km_cpu *km_cpu_new(const struct kmsig *ds, double alpha)
{
  struct km_cpu *c = calloc(1, sizeof *c);
  if (!c || km_ref_init(&c->ref, ds, alpha)) {
    free(c);
    return NULL;
  }
  if (ds->n <= KM_CPU_CACHE_MAX_N) {
    size_t cells = (size_t)ds->n * (size_t)ds->n;
    c->cache = malloc(sizeof(double) * (cells ? cells : 1));
    for (size_t i = 0; c->cache && i < cells; i++)
      c->cache[i] = NAN;
  }
  return c;
}

void km_cpu_free(struct km_cpu *c)
{
  if (!c)
    return;
  km_ref_release(&c->ref);
  free(c->cache);
  free(c);
}

static double cpu_dist(struct km_cpu *c, int64_t i, int64_t j)
{
  if (!c->cache)
    return km_ref_sqfd(&c->ref, i, j);
  int64_t n = c->ref.ds->n;
  double *p = &c->cache[i * n + j];
  if (isnan(*p))
    *p = c->cache[j * n + i] = km_ref_sqfd(&c->ref, i, j);
  return *p;
}

static int cpu_assign(void *ctx, const int32_t *medoids, int k, int64_t lo, int64_t hi,
                      int32_t *assign, double *mind, char *why, size_t len)
{
  struct km_cpu *c = ctx;
  for (int64_t i = lo; i < hi; i++) {
    double best = INFINITY;
    int arg = 0;
    for (int j = 0; j < k; j++) {
      double d = cpu_dist(c, i, medoids[j]);
      if (d < best) {
        best = d;
        arg = j;
      }
    }
    assign[i - lo] = arg;
    mind[i - lo] = best;
  }
  return 0;
}

/* The reference's distances are symmetric bit for bit: each row's score is summed here whole. */
static int cpu_score(void *ctx, const int32_t *assign, const struct km_clusters *cl,
                     const struct km_work *work, int n_work, uint64_t *score, char *why,
                     size_t len)
{
  struct km_cpu *c = ctx;
  for (int w = 0; w < n_work; w++) {
    const int32_t *mem = cl->list + cl->start[work[w].cluster];
    int64_t m = cl->start[work[w].cluster + 1] - cl->start[work[w].cluster];
    for (int64_t s = work[w].row_lo; s < work[w].row_hi; s++) {
      uint64_t sum = 0;
      for (int64_t u = 0; u < m; u++)
        sum += km_score_fixed(cpu_dist(c, mem[s], mem[u]));
      score[mem[s]] += sum;
    }
  }
  return 0;
}

const struct km_backend km_cpu_backend_ops = {NULL, cpu_assign, cpu_score};
