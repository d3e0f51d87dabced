/* The GPU backend of the k-medoids engine (see km_gpu.h): dataset preparation and upload, tile
 * planning, and the backend operations the engine calls each iteration. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gr.h"
#include "km_gpu.h"

struct km_gpu {
  int64_t n, lo, hi;
  km_score_big_fn big;
  struct km_dev_data dd;
  int32_t *sizes; /* host: centroids of each signature */
  /* device */
  float4 *d_cent;
  int32_t *d_off, *d_ids, *d_medoids, *d_assign, *d_list;
  double *d_self, *d_mind;
  unsigned long long *d_score;
  struct km_tile *d_atiles, *d_tiles;
  struct km_range *d_ranges;
  struct km_dev_min *d_mins;
  int n_atiles, k, tiles_cap, ranges_cap;
  /* last score plan */
  struct km_tile *tiles; /* host: small tiles first, then big ones */
  struct km_range *ranges;
  struct km_dev_min *mins;
  int n_small, n_big, n_ranges, host_tiles_cap;
  double score_distances; /* SQFD distances of the plan (the rank's rows times cluster sizes) */
};

static const double LOG2E = 1.4426950408889634;

size_t km_gpu_device_bytes(int64_t n, int64_t total)
{
  size_t per_obj = 4 * 5 + 8 * 3 + sizeof(struct km_tile) + 16;
  return (size_t)total * 32 + (size_t)(n + 1) * per_obj + ((size_t)64 << 20);
}

/* Greedy tiles over positions [a, b) of ids (NULL: the positions are the objects): whole
 * signatures, <= KM_CHUNK_CENTROIDS centroids and KM_CHUNK_MAX_SRC sources each; at most max tiles
 * written. Returns how many. */
static int chunk_positions(const int32_t *ids, const int32_t *sizes, int64_t a, int64_t b, int max,
                           struct km_tile *tiles)
{
  int nt = 0;
  int64_t p = a;
  while (p < b && nt < max) {
    int64_t q = p, cents = 0;
    while (q < b && q - p < KM_CHUNK_MAX_SRC && cents + sizes[ids ? ids[q] : q] <= KM_CHUNK_CENTROIDS) {
      cents += sizes[ids ? ids[q] : q];
      q++;
    }
    tiles[nt++] = (struct km_tile){(int32_t)p, (int32_t)(q - p), 0, 0};
    p = q;
  }
  return nt;
}

int km_gpu_new(const struct kmsig *ds, double alpha, int64_t lo, int64_t hi, km_score_big_fn big,
               struct km_gpu **out, char *why, size_t len)
{
  *out = NULL;
  int64_t n = ds->n, total = ds->total;
  if (n < 1 || total >= INT32_MAX) {
    gr_fmt(why, len, "%lld signatures of %lld centroids: the GPU variants take 1 to 2^31 - 1",
           (long long)n, (long long)total);
    return 1;
  }
  for (int64_t i = 0; i < n; i++)
    if (kmsig_size(ds, i) > KM_MAX_SIG) {
      gr_fmt(why, len, "signature %lld has %lld centroids; the GPU kernels take at most %d",
             (long long)i, (long long)kmsig_size(ds, i), KM_MAX_SIG);
      return 1;
    }
  struct km_gpu *g = (struct km_gpu *)calloc(1, sizeof *g);
  float *prep = (float *)malloc(sizeof(float) * 8 * (size_t)total);
  int32_t *off = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n + 1));
  int32_t *ids = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  struct km_tile *at = (struct km_tile *)malloc(sizeof(struct km_tile) * (size_t)(hi - lo + 1));
  if (!g || !prep || !off || !ids || !at) {
    free(g);
    free(prep);
    free(off);
    free(ids);
    free(at);
    gr_fmt(why, len, "out of host memory preparing %lld centroids", (long long)total);
    return -1;
  }
  g->n = n;
  g->lo = lo;
  g->hi = hi;
  g->big = big;
  g->sizes = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  /* centre the coordinates (SQFD is translation invariant; smaller |x| keeps the expansion exact) */
  double center[KMSIG_DIM] = {0};
  for (int64_t c = 0; c < total; c++)
    for (int d = 0; d < KMSIG_DIM; d++)
      center[d] += ds->data[c * KMSIG_REC + d];
  for (int d = 0; d < KMSIG_DIM; d++)
    center[d] /= (double)(total ? total : 1);
  double max_norm = 0;
  for (int64_t i = 0; i < n; i++) {
    double wsum = 0;
    for (int64_t c = ds->off[i]; c < ds->off[i + 1]; c++)
      wsum += ds->data[c * KMSIG_REC + KMSIG_DIM];
    for (int64_t c = ds->off[i]; c < ds->off[i + 1]; c++) {
      double norm = 0;
      for (int d = 0; d < KMSIG_DIM; d++) {
        float x = (float)(ds->data[c * KMSIG_REC + d] - center[d]);
        prep[c * 8 + d] = x;
        norm += (double)x * x;
      }
      double w = ds->data[c * KMSIG_REC + KMSIG_DIM] / wsum;
      prep[c * 8 + 7] = (float)(log2(w) - alpha * LOG2E * norm);
      if (norm > max_norm)
        max_norm = norm;
    }
    off[i] = (int32_t)ds->off[i];
    g->sizes[i] = (int32_t)kmsig_size(ds, i);
    ids[i] = (int32_t)i;
  }
  off[n] = (int32_t)total;
  if (2.0 * alpha * LOG2E * max_norm > KM_MAX_EXPONENT) {
    gr_fmt(why, len,
           "coordinates spread too far for alpha %g (2 alpha log2(e) max|x - mean|^2 = %.1f > "
           "%.0f): the float expansion would overflow or lose precision",
           alpha, 2.0 * alpha * LOG2E * max_norm, KM_MAX_EXPONENT);
    free(prep);
    free(off);
    free(ids);
    free(at);
    free(g->sizes);
    free(g);
    return 1;
  }
  g->n_atiles = chunk_positions(NULL, g->sizes, lo, hi, (int)(hi - lo + 1), at);
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_cent, sizeof(float) * 8 * (size_t)(total ? total : 1)));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_off, sizeof(int32_t) * (size_t)(n + 1)));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_ids, sizeof(int32_t) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_medoids, sizeof(int32_t) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_assign, sizeof(int32_t) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_list, sizeof(int32_t) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_self, sizeof(double) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_mind, sizeof(double) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_score, sizeof(unsigned long long) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_atiles, sizeof(struct km_tile) * (size_t)(g->n_atiles + 1)));
  GR_CUDA_CHECK(cudaMemcpy(g->d_cent, prep, sizeof(float) * 8 * (size_t)total, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(g->d_off, off, sizeof(int32_t) * (size_t)(n + 1), cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(g->d_ids, ids, sizeof(int32_t) * (size_t)n, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(g->d_atiles, at, sizeof(struct km_tile) * (size_t)g->n_atiles,
                           cudaMemcpyHostToDevice));
  free(prep);
  free(off);
  free(ids);
  free(at);
  g->dd.cent = g->d_cent;
  g->dd.off = g->d_off;
  g->dd.self = g->d_self;
  g->dd.scale = (float)(2.0 * alpha * LOG2E);
  km_self_launch(&g->dd, (int)n, g->d_self, 0);
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  *out = g;
  return 0;
}

void km_gpu_free(struct km_gpu *g)
{
  if (!g)
    return;
  GR_CUDA_CHECK(cudaFree(g->d_cent));
  GR_CUDA_CHECK(cudaFree(g->d_off));
  GR_CUDA_CHECK(cudaFree(g->d_ids));
  GR_CUDA_CHECK(cudaFree(g->d_medoids));
  GR_CUDA_CHECK(cudaFree(g->d_assign));
  GR_CUDA_CHECK(cudaFree(g->d_list));
  GR_CUDA_CHECK(cudaFree(g->d_self));
  GR_CUDA_CHECK(cudaFree(g->d_mind));
  GR_CUDA_CHECK(cudaFree(g->d_score));
  GR_CUDA_CHECK(cudaFree(g->d_atiles));
  GR_CUDA_CHECK(cudaFree(g->d_tiles));
  GR_CUDA_CHECK(cudaFree(g->d_ranges));
  GR_CUDA_CHECK(cudaFree(g->d_mins));
  free(g->sizes);
  free(g->tiles);
  free(g->ranges);
  free(g->mins);
  free(g);
}

double km_gpu_enqueue_assign(struct km_gpu *g)
{
  km_assign_launch(&g->dd, g->d_ids, g->d_atiles, g->n_atiles, g->d_medoids, g->k, g->d_assign,
                   g->d_mind, 0);
  return (double)(g->hi - g->lo) * (double)g->k;
}

double km_gpu_enqueue_score(struct km_gpu *g)
{
  GR_CUDA_CHECK(cudaMemsetAsync(g->d_score, 0, sizeof(unsigned long long) * (size_t)g->n, 0));
  km_score_small_launch(&g->dd, g->d_list, g->d_assign, g->d_tiles, g->n_small, g->d_score, 0);
  g->big(&g->dd, g->d_list, g->d_tiles + g->n_small, g->n_big, g->d_score, 0);
  km_min_launch(g->d_list, g->d_score, g->d_ranges, g->n_ranges, g->d_mins, 0);
  return g->score_distances;
}

void km_gpu_enqueue_iteration(struct km_gpu *g)
{
  km_gpu_enqueue_assign(g);
  km_gpu_enqueue_score(g);
}

void km_gpu_plan_counts(const struct km_gpu *g, int *small_tiles, int *big_tiles)
{
  *small_tiles = g->n_small;
  *big_tiles = g->n_big;
}

static int gpu_assign(void *ctx, const int32_t *medoids, int k, int64_t lo, int64_t hi,
                      int32_t *assign, double *mind, char *why, size_t len)
{
  struct km_gpu *g = (struct km_gpu *)ctx;
  if (lo != g->lo || hi != g->hi || k > g->n) {
    gr_fmt(why, len, "assignment range [%lld, %lld) is not the one prepared", (long long)lo,
           (long long)hi);
    return -1;
  }
  g->k = k;
  GR_CUDA_CHECK(cudaMemcpy(g->d_medoids, medoids, sizeof(int32_t) * (size_t)k, cudaMemcpyHostToDevice));
  km_gpu_enqueue_assign(g);
  GR_CUDA_CHECK(cudaMemcpy(assign, g->d_assign + lo, sizeof(int32_t) * (size_t)(hi - lo),
                           cudaMemcpyDeviceToHost));
  GR_CUDA_CHECK(cudaMemcpy(mind, g->d_mind + lo, sizeof(double) * (size_t)(hi - lo),
                           cudaMemcpyDeviceToHost));
  return 0;
}

/* Grow a host array to at least want elements. 0, or -1. */
static int grow(void **p, int *cap, int want, size_t elem)
{
  if (want <= *cap)
    return 0;
  int c = *cap ? *cap : 64;
  while (c < want)
    c *= 2;
  void *q = realloc(*p, elem * (size_t)c);
  if (!q)
    return -1;
  *p = q;
  *cap = c;
  return 0;
}

/* Append a tile to the host plan. 0, or -1. */
static int add_tile(struct km_gpu *g, int at, struct km_tile t)
{
  if (grow((void **)&g->tiles, &g->host_tiles_cap, at + 1, sizeof *g->tiles))
    return -1;
  g->tiles[at] = t;
  return 0;
}

/* Targets per block for a cluster of m members split over several blocks. */
static int64_t target_part(int64_t m)
{
  int64_t p = (m + KM_TGT_PARTS_MAX - 1) / KM_TGT_PARTS_MAX;
  return p > KM_TGT_PART_MIN ? p : KM_TGT_PART_MIN;
}

/* Plan this rank's score work into g->tiles (small packs first, then big splits) and g->ranges.
 * 0, or -1 when out of host memory. */
static int plan_score(struct km_gpu *g, const struct km_clusters *cl, const struct km_work *work,
                      int n_work, char *packed)
{
  /* small clusters: whole, few centroids, packed while contiguous in the list */
  int ns = 0, open = 0;
  int64_t pack_lo = 0, pack_hi = 0, pack_cents = 0;
  for (int w = 0; w <= n_work; w++) {
    int64_t a = 0, m = 0, cents = 0;
    int small = 0;
    if (w < n_work) {
      int c = work[w].cluster;
      a = cl->start[c];
      m = cl->start[c + 1] - a;
      g->ranges[w] = (struct km_range){(int32_t)(a + work[w].row_lo), (int32_t)(a + work[w].row_hi)};
      if (work[w].row_lo == 0 && work[w].row_hi == m && m <= KM_CHUNK_MAX_SRC) {
        for (int64_t p = a; p < a + m && cents <= KM_CHUNK_CENTROIDS; p++)
          cents += g->sizes[cl->list[p]];
        small = cents <= KM_CHUNK_CENTROIDS;
      }
    }
    int joins = small && open && a == pack_hi && pack_cents + cents <= KM_CHUNK_CENTROIDS &&
                pack_hi + m - pack_lo <= KM_CHUNK_MAX_SRC;
    if (open && !joins) { /* close the open pack */
      int32_t s0 = (int32_t)pack_lo, cnt = (int32_t)(pack_hi - pack_lo);
      if (add_tile(g, ns++, (struct km_tile){s0, cnt, s0, cnt}))
        return -1;
      open = 0;
    }
    if (!small)
      continue;
    if (!open) {
      open = 1;
      pack_lo = pack_hi = a;
      pack_cents = 0;
    }
    pack_hi += m;
    pack_cents += cents;
    packed[w] = 1;
  }
  /* big clusters (or this rank's rows of one): source chunks x target parts */
  int nb = 0;
  for (int w = 0; w < n_work; w++) {
    if (packed[w])
      continue;
    int c = work[w].cluster;
    int64_t a = cl->start[c], m = cl->start[c + 1] - a, part = target_part(m);
    for (int64_t p = a + work[w].row_lo; p < a + work[w].row_hi;) {
      struct km_tile chunk;
      chunk_positions(cl->list, g->sizes, p, a + work[w].row_hi, 1, &chunk);
      for (int64_t t = 0; t < m; t += part) {
        chunk.tgt = (int32_t)(a + t);
        chunk.ntgt = (int32_t)(t + part <= m ? part : m - t);
        if (add_tile(g, ns + nb++, chunk))
          return -1;
      }
      p += chunk.nsrc;
    }
  }
  g->n_small = ns;
  g->n_big = nb;
  g->n_ranges = n_work;
  g->score_distances = 0;
  for (int w = 0; w < n_work; w++)
    g->score_distances += (double)(work[w].row_hi - work[w].row_lo) *
                          (double)(cl->start[work[w].cluster + 1] - cl->start[work[w].cluster]);
  return 0;
}

static int gpu_score(void *ctx, const int32_t *assign, const struct km_clusters *cl,
                     const struct km_work *work, int n_work, struct km_min *mins, char *why,
                     size_t len)
{
  struct km_gpu *g = (struct km_gpu *)ctx;
  char *packed = (char *)calloc((size_t)n_work + 1, 1);
  struct km_range *rg = (struct km_range *)realloc(g->ranges, sizeof *g->ranges * (size_t)(n_work + 1));
  if (rg)
    g->ranges = rg;
  struct km_dev_min *mn = (struct km_dev_min *)realloc(g->mins, sizeof *g->mins * (size_t)(n_work + 1));
  if (mn)
    g->mins = mn;
  if (!packed || !rg || !mn || plan_score(g, cl, work, n_work, packed)) {
    free(packed);
    gr_fmt(why, len, "out of host memory planning the score tiles");
    return -1;
  }
  free(packed);
  int nt = g->n_small + g->n_big;
  if (nt > g->tiles_cap) {
    GR_CUDA_CHECK(cudaFree(g->d_tiles));
    g->tiles_cap = nt * 2;
    GR_CUDA_CHECK(cudaMalloc((void **)&g->d_tiles, sizeof(struct km_tile) * (size_t)g->tiles_cap));
  }
  if (n_work > g->ranges_cap) {
    GR_CUDA_CHECK(cudaFree(g->d_ranges));
    GR_CUDA_CHECK(cudaFree(g->d_mins));
    g->ranges_cap = n_work * 2;
    GR_CUDA_CHECK(cudaMalloc((void **)&g->d_ranges, sizeof(struct km_range) * (size_t)g->ranges_cap));
    GR_CUDA_CHECK(cudaMalloc((void **)&g->d_mins, sizeof(struct km_dev_min) * (size_t)g->ranges_cap));
  }
  GR_CUDA_CHECK(cudaMemcpy(g->d_assign, assign, sizeof(int32_t) * (size_t)g->n, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(g->d_list, cl->list, sizeof(int32_t) * (size_t)g->n, cudaMemcpyHostToDevice));
  if (nt)
    GR_CUDA_CHECK(cudaMemcpy(g->d_tiles, g->tiles, sizeof(struct km_tile) * (size_t)nt,
                             cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(g->d_ranges, g->ranges, sizeof(struct km_range) * (size_t)n_work,
                           cudaMemcpyHostToDevice));
  km_gpu_enqueue_score(g);
  GR_CUDA_CHECK(cudaMemcpy(g->mins, g->d_mins, sizeof(struct km_dev_min) * (size_t)n_work,
                           cudaMemcpyDeviceToHost));
  for (int w = 0; w < n_work; w++) {
    mins[w].score = (double)g->mins[w].score / KM_SCORE_ONE;
    mins[w].obj = g->mins[w].obj;
  }
  return 0;
}

const struct km_backend km_gpu_backend_ops = {NULL, gpu_assign, gpu_score};
