/* CPU reference of k-medoids with SQFD: serial, double precision. See kmedoids.h. */
#include "kmedoids_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/rng.h>

int km_result_alloc(struct km_result *res, int64_t n, int k, int iters)
{
  memset(res, 0, sizeof *res);
  res->n = n;
  res->k = k;
  res->iters = iters;
  res->medoids = calloc((size_t)k, sizeof *res->medoids);
  res->assign = calloc((size_t)(n ? n : 1), sizeof *res->assign);
  res->objective = calloc((size_t)iters + 1, sizeof *res->objective);
  if (!res->medoids || !res->assign || !res->objective) {
    km_result_release(res);
    return -1;
  }
  return 0;
}

void km_result_release(struct km_result *res)
{
  if (!res)
    return;
  free(res->medoids);
  free(res->assign);
  free(res->objective);
  memset(res, 0, sizeof *res);
}

int km_ref_alloc(struct km_ref *r, const struct kmsig *ds, double alpha)
{
  memset(r, 0, sizeof *r);
  r->ds = ds;
  r->alpha = alpha;
  r->w = malloc(sizeof(double) * (size_t)(ds->total ? ds->total : 1));
  r->self = malloc(sizeof(double) * (size_t)(ds->n ? ds->n : 1));
  if (!r->w || !r->self) {
    km_ref_release(r);
    return -1;
  }
  for (int64_t i = 0; i < ds->n; i++) {
    double sum = 0;
    for (int64_t c = ds->off[i]; c < ds->off[i + 1]; c++)
      sum += ds->data[c * KMSIG_REC + KMSIG_DIM];
    for (int64_t c = ds->off[i]; c < ds->off[i + 1]; c++)
      r->w[c] = ds->data[c * KMSIG_REC + KMSIG_DIM] / sum;
  }
  return 0;
}

void km_ref_self(struct km_ref *r, int64_t lo, int64_t hi)
{
  for (int64_t i = lo; i < hi; i++)
    r->self[i] = km_ref_cross(r, i, i);
}

int km_ref_init(struct km_ref *r, const struct kmsig *ds, double alpha)
{
  if (km_ref_alloc(r, ds, alpha))
    return -1;
  km_ref_self(r, 0, ds->n);
  return 0;
}

void km_ref_release(struct km_ref *r)
{
  if (!r)
    return;
  free(r->w);
  free(r->self);
  memset(r, 0, sizeof *r);
}

double km_ref_cross(const struct km_ref *r, int64_t i, int64_t j)
{
  const struct kmsig *ds = r->ds;
  double sum = 0;
  for (int64_t a = ds->off[i]; a < ds->off[i + 1]; a++) {
    const float *x = ds->data + a * KMSIG_REC;
    double row = 0;
    for (int64_t b = ds->off[j]; b < ds->off[j + 1]; b++) {
      const float *y = ds->data + b * KMSIG_REC;
      double d2 = 0;
      for (int d = 0; d < KMSIG_DIM; d++) {
        double t = (double)x[d] - (double)y[d];
        d2 += t * t;
      }
      row += r->w[b] * exp(-r->alpha * d2);
    }
    sum += r->w[a] * row;
  }
  return sum;
}

int kmsig_content_cmp(const struct kmsig *ds, int64_t i, int64_t j)
{
  int64_t si = kmsig_size(ds, i), sj = kmsig_size(ds, j);
  if (si != sj)
    return si < sj ? -1 : 1;
  return memcmp(ds->data + ds->off[i] * KMSIG_REC, ds->data + ds->off[j] * KMSIG_REC,
                sizeof(float) * KMSIG_REC * (size_t)si);
}

double km_ref_sqfd(const struct km_ref *r, int64_t i, int64_t j)
{
  if (kmsig_content_cmp(r->ds, j, i) < 0) { /* the signature first in content order is outer */
    int64_t t = i;
    i = j;
    j = t;
  }
  double rad = r->self[i] + r->self[j] - 2.0 * km_ref_cross(r, i, j);
  return rad <= KM_ZERO_RADICAND ? 0.0 : sqrt(rad);
}

void km_ref_matrix_items(const struct km_ref *r, double *m, int64_t lo, int64_t hi)
{
  int64_t n = r->ds->n;
  for (int64_t t = lo; t < hi; t++) {
    int64_t rows[2] = {t, n - 1 - t};
    for (int k = 0; k < (rows[1] > rows[0] ? 2 : 1); k++) {
      int64_t i = rows[k];
      m[i * n + i] = 0.0;
      for (int64_t j = i + 1; j < n; j++)
        m[i * n + j] = m[j * n + i] = km_ref_sqfd(r, i, j);
    }
  }
}

double *km_ref_distance_matrix(const struct km_ref *r)
{
  int64_t n = r->ds->n;
  double *m = malloc(sizeof(double) * (size_t)(n ? n * n : 1));
  if (m)
    km_ref_matrix_items(r, m, 0, (n + 1) / 2);
  return m;
}

int km_init_medoids(int64_t n, int k, uint64_t init_seed, int32_t *medoids)
{
  int32_t *p = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
  if (!p)
    return -1;
  struct gr_rng g;
  gr_rng_seed(&g, init_seed);
  for (int64_t i = 0; i < n; i++)
    p[i] = (int32_t)i;
  for (int i = 0; i < k; i++) {
    int64_t j = gr_rng_range(&g, i, n - 1);
    int32_t t = p[i];
    p[i] = p[j];
    p[j] = t;
    medoids[i] = p[i];
  }
  free(p);
  return 0;
}

uint64_t km_score_fixed(double d)
{
  return (uint64_t)llrint(d * KM_SCORE_ONE);
}

static double dist_of(const struct km_ref *r, const double *dist, int64_t i, int64_t j)
{
  return dist ? dist[i * r->ds->n + j] : km_ref_sqfd(r, i, j);
}

int km_reference(const struct km_ref *r, const struct km_config *cfg, const double *dist,
                 struct km_result *res)
{
  int64_t n = r->ds->n;
  int k = cfg->k;
  if (k < 1 || k > n || n > KM_SCORE_MAX_N || cfg->iters < 0 || res->n != n || res->k != k ||
      res->iters != cfg->iters)
    return -1;
  int32_t *next = malloc(sizeof(int32_t) * (size_t)k);
  int32_t *members = malloc(sizeof(int32_t) * (size_t)n);
  int64_t *start = malloc(sizeof(int64_t) * ((size_t)k + 1));
  if (!next || !members || !start) {
    free(next);
    free(members);
    free(start);
    return -1;
  }
  if (km_init_medoids(n, k, cfg->init_seed, res->medoids)) {
    free(next);
    free(members);
    free(start);
    return -1;
  }
  memset(res->objective, 0, sizeof(double) * ((size_t)cfg->iters + 1));
  for (int t = 0;; t++) {
    /* assignment: nearest medoid, a later medoid only if strictly closer */
    double obj = 0;
    for (int64_t i = 0; i < n; i++) {
      double best = INFINITY;
      int arg = 0;
      for (int j = 0; j < k; j++) {
        double d = dist_of(r, dist, i, res->medoids[j]);
        if (d < best) {
          best = d;
          arg = j;
        }
      }
      res->assign[i] = arg;
      obj += best;
    }
    res->objective[t] = obj;
    res->steps = t + 1;
    if (t == cfg->iters)
      break;
    /* clusters: members in ascending index order */
    memset(start, 0, sizeof(int64_t) * ((size_t)k + 1));
    for (int64_t i = 0; i < n; i++)
      start[res->assign[i] + 1]++;
    for (int j = 0; j < k; j++)
      start[j + 1] += start[j];
    for (int64_t i = 0; i < n; i++)
      members[start[res->assign[i]]++] = (int32_t)i;
    for (int j = k; j > 0; j--)
      start[j] = start[j - 1];
    start[0] = 0;
    /* update */
    int changed = 0;
    for (int j = 0; j < k; j++) {
      int64_t a = start[j], b = start[j + 1];
      int32_t m = res->medoids[j];
      if (b - a >= 1 && b - a < 3) {
        m = members[a];
      } else if (b - a >= 3) {
        uint64_t best = UINT64_MAX;
        for (int64_t s = a; s < b; s++) {
          uint64_t sum = 0;
          for (int64_t u = a; u < b; u++)
            sum += km_score_fixed(dist_of(r, dist, members[s], members[u]));
          if (sum < best) {
            best = sum;
            m = members[s];
          }
        }
      }
      next[j] = m;
      changed |= m != res->medoids[j];
    }
    if (!changed)
      break;
    memcpy(res->medoids, next, sizeof(int32_t) * (size_t)k);
  }
  free(next);
  free(members);
  free(start);
  return 0;
}
