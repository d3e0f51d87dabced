/* The GPU backend of the k-medoids engine (see km_gpu.h): dataset preparation and upload, tile
 * planning, and the backend operations the engine calls each iteration. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include <gpuregress/gpu.h>
#include <gpuregress/util.h>
#include "km_gpu.h"

struct km_gpu {
  int64_t n, lo, hi;
  km_score_big_fn big;
  struct km_dev_data dd;
  int32_t *sizes; /* host: centroids of each signature */
  int32_t *crank; /* host: content rank of each signature */
  /* device */
  float4 *d_cent;
  int32_t *d_off, *d_ids, *d_medoids, *d_assign, *d_list, *d_crank;
  double *d_self, *d_mind;
  unsigned long long *d_score; /* by object */
  struct km_tile *d_atiles, *d_tiles;
  int n_atiles, k, tiles_cap;
  /* last score plan */
  int32_t *list;         /* host: per work item its members, then its rows if not all, by rank */
  int64_t list_len;      /* entries of list used (at most 2n) */
  struct km_tile *tiles; /* host: small tiles first, then big ones */
  int n_small, n_big, host_tiles_cap;
  double score_distances; /* SQFD distances the plan's scores sum (rows times cluster sizes) */
  double score_pairs;     /* ... of which the tiles evaluate (sources ranked below targets) */
  cudaStream_t stream;    /* what the kernels and copies are enqueued on (km_gpu_set_stream) */
};

static const double LOG2E = 1.4426950408889634;

size_t km_gpu_device_bytes(int64_t n, int64_t total)
{
  size_t per_obj = 4 * 7 + 8 * 3 + sizeof(struct km_tile);
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

/* The host side of g and g itself. */
static void km_gpu_free_host(struct km_gpu *g)
{
  free(g->sizes);
  free(g->crank);
  free(g->list);
  free(g->tiles);
  free(g);
}

/* rank[i]: how many distinct signatures sort before i's (order: scratch of n). */
static void content_ranks(const struct kmsig *ds, int32_t *rank, int32_t *order)
{
  int64_t n = ds->n;
  for (int64_t i = 0; i < n; i++)
    order[i] = (int32_t)i;
  std::sort(order, order + n,
            [ds](int32_t a, int32_t b) { return kmsig_content_cmp(ds, a, b) < 0; });
  int32_t r = 0;
  for (int64_t t = 0; t < n; t++) {
    if (t > 0 && kmsig_content_cmp(ds, order[t - 1], order[t]) != 0)
      r++;
    rank[order[t]] = r;
  }
}

int km_gpu_new(const struct kmsig *ds, double alpha, int64_t lo, int64_t hi, km_score_big_fn big,
               struct km_gpu **out, char *why, size_t len)
{
  *out = NULL;
  int64_t n = ds->n, total = ds->total;
  if (n < 1 || n > KM_SCORE_MAX_N || total >= INT32_MAX) {
    gr_fmt(why, len,
           "%lld signatures of %lld centroids: the GPU variants take 1 to %d signatures of at "
           "most 2^31 - 2 centroids",
           (long long)n, (long long)total, KM_SCORE_MAX_N);
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
  if (g) {
    g->sizes = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
    g->crank = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
    g->list = (int32_t *)malloc(sizeof(int32_t) * 2 * (size_t)n);
  }
  if (!g || !prep || !off || !ids || !at || !g->sizes || !g->crank || !g->list) {
    free(prep);
    free(off);
    free(ids);
    free(at);
    if (g)
      km_gpu_free_host(g);
    gr_fmt(why, len, "out of host memory preparing %lld signatures of %lld centroids",
           (long long)n, (long long)total);
    return -1;
  }
  g->n = n;
  g->lo = lo;
  g->hi = hi;
  g->big = big;
  content_ranks(ds, g->crank, ids); /* ids is the scratch, then set below */
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
    km_gpu_free_host(g);
    return 1;
  }
  g->n_atiles = chunk_positions(NULL, g->sizes, lo, hi, (int)(hi - lo + 1), at);
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_cent, sizeof(float) * 8 * (size_t)(total ? total : 1)));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_off, sizeof(int32_t) * (size_t)(n + 1)));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_ids, sizeof(int32_t) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_medoids, sizeof(int32_t) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_assign, sizeof(int32_t) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_list, sizeof(int32_t) * 2 * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_crank, sizeof(int32_t) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_self, sizeof(double) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_mind, sizeof(double) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_score, sizeof(unsigned long long) * (size_t)n));
  GR_CUDA_CHECK(cudaMalloc((void **)&g->d_atiles, sizeof(struct km_tile) * (size_t)(g->n_atiles + 1)));
  GR_CUDA_CHECK(cudaMemcpy(g->d_cent, prep, sizeof(float) * 8 * (size_t)total, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(g->d_off, off, sizeof(int32_t) * (size_t)(n + 1), cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(g->d_ids, ids, sizeof(int32_t) * (size_t)n, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(g->d_crank, g->crank, sizeof(int32_t) * (size_t)n, cudaMemcpyHostToDevice));
  GR_CUDA_CHECK(cudaMemcpy(g->d_atiles, at, sizeof(struct km_tile) * (size_t)g->n_atiles,
                           cudaMemcpyHostToDevice));
  free(prep);
  free(off);
  free(ids);
  free(at);
  g->dd.cent = g->d_cent;
  g->dd.off = g->d_off;
  g->dd.self = g->d_self;
  g->dd.crank = g->d_crank;
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
  GR_CUDA_CHECK(cudaFree(g->d_crank));
  km_gpu_free_host(g);
}

void km_gpu_set_stream(struct km_gpu *g, void *stream)
{
  g->stream = (cudaStream_t)stream;
}

void km_gpu_outputs(struct km_gpu *g, void **assign, size_t *assign_bytes, void **mind,
                    size_t *mind_bytes)
{
  *assign = g->d_assign + g->lo;
  *assign_bytes = sizeof(int32_t) * (size_t)(g->hi - g->lo);
  *mind = g->d_mind + g->lo;
  *mind_bytes = sizeof(double) * (size_t)(g->hi - g->lo);
}

double km_gpu_enqueue_assign(struct km_gpu *g)
{
  km_assign_launch(&g->dd, g->d_ids, g->d_atiles, g->n_atiles, g->d_medoids, g->k, g->d_assign,
                   g->d_mind, g->stream);
  return (double)(g->hi - g->lo) * (double)g->k;
}

double km_gpu_enqueue_score(struct km_gpu *g)
{
  GR_CUDA_CHECK(
      cudaMemsetAsync(g->d_score, 0, sizeof(unsigned long long) * (size_t)g->n, g->stream));
  km_score_small_launch(&g->dd, g->d_list, g->d_assign, g->d_tiles, g->n_small, g->d_score,
                        g->stream);
  g->big(&g->dd, g->d_list, g->d_tiles + g->n_small, g->n_big, g->d_score, g->stream);
  return g->score_distances;
}

void km_gpu_enqueue_iteration(struct km_gpu *g)
{
  km_gpu_enqueue_assign(g);
  km_gpu_enqueue_score(g);
}

void km_gpu_plan_counts(const struct km_gpu *g, int *small_tiles, int *big_tiles, double *pairs)
{
  *small_tiles = g->n_small;
  *big_tiles = g->n_big;
  if (pairs)
    *pairs = g->score_pairs;
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
  /* on the stream, pageable host memory: each copy returns when the host buffer is free, the
   * copies back when they are done */
  GR_CUDA_CHECK(cudaMemcpyAsync(g->d_medoids, medoids, sizeof(int32_t) * (size_t)k,
                                cudaMemcpyHostToDevice, g->stream));
  km_gpu_enqueue_assign(g);
  GR_CUDA_CHECK(cudaMemcpyAsync(assign, g->d_assign + lo, sizeof(int32_t) * (size_t)(hi - lo),
                                cudaMemcpyDeviceToHost, g->stream));
  GR_CUDA_CHECK(cudaMemcpyAsync(mind, g->d_mind + lo, sizeof(double) * (size_t)(hi - lo),
                                cudaMemcpyDeviceToHost, g->stream));
  GR_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  /* a kernel that left an object unwritten (the buffers may hold the checked run's poison) or
   * wrote a cluster that does not exist fails here, not in the host's cluster lists */
  for (int64_t i = 0; i < hi - lo; i++)
    if (assign[i] < 0 || assign[i] >= k || !(mind[i] >= 0 && mind[i] <= 1e300)) {
      gr_fmt(why, len, "the device assigned object %lld to cluster %d at distance %g (k = %d)",
             (long long)(lo + i), (int)assign[i], mind[i], k);
      return -1;
    }
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

/* Copy objects src[0..m) to dst sorted by (content rank, object). */
static void copy_by_rank(const struct km_gpu *g, const int32_t *src, int64_t m, int32_t *dst)
{
  memcpy(dst, src, sizeof(int32_t) * (size_t)m);
  const int32_t *cr = g->crank;
  std::sort(dst, dst + m, [cr](int32_t a, int32_t b) { return cr[a] < cr[b] || (cr[a] == cr[b] && a < b); });
}

/* Pairs (source, target) of sorted sources s[0..ns) and targets t[0..nt) with the source ranked
 * strictly below: what the tiles over them evaluate. */
static double ranked_pairs(const int32_t *cr, const int32_t *s, int64_t ns, const int32_t *t,
                           int64_t nt)
{
  double pairs = 0;
  int64_t j = 0;
  for (int64_t i = 0; i < ns; i++) {
    while (j < nt && cr[t[j]] <= cr[s[i]])
      j++;
    pairs += (double)(nt - j);
  }
  return pairs;
}

/* Where a work item's sorted members (targets) and rows (sources) start in g->list. */
struct km_item_at {
  int64_t tgt, src;
  int packed;
};

/* Plan this rank's score work: per work item, its members sorted by rank into g->list, then its
 * rows sorted by rank when they are not all the members; tiles into g->tiles (small packs first,
 * then big splits). A big tile whose last target does not rank above its first source would
 * evaluate nothing and is left out. 0, or -1 when out of host memory. */
static int plan_score(struct km_gpu *g, const struct km_clusters *cl, const struct km_work *work,
                      int n_work, struct km_item_at *it)
{
  int64_t at = 0;
  int ns = 0, open = 0;
  int64_t pack_lo = 0, pack_hi = 0, pack_cents = 0;
  g->score_distances = g->score_pairs = 0;
  for (int w = 0; w <= n_work; w++) {
    int64_t m = 0, cents = 0, tgt = at;
    int small = 0;
    if (w < n_work) {
      int c = work[w].cluster;
      int64_t a = cl->start[c], rows = work[w].row_hi - work[w].row_lo;
      m = cl->start[c + 1] - a;
      it[w].tgt = it[w].src = at;
      it[w].packed = 0;
      copy_by_rank(g, cl->list + a, m, g->list + at);
      at += m;
      if (rows < m) {
        it[w].src = at;
        copy_by_rank(g, cl->list + a + work[w].row_lo, rows, g->list + at);
        at += rows;
      }
      g->score_distances += (double)rows * (double)m;
      g->score_pairs += ranked_pairs(g->crank, g->list + it[w].src, rows, g->list + tgt, m);
      if (rows == m && m <= KM_CHUNK_MAX_SRC) {
        for (int64_t p = a; p < a + m && cents <= KM_CHUNK_CENTROIDS; p++)
          cents += g->sizes[cl->list[p]];
        small = cents <= KM_CHUNK_CENTROIDS;
      }
    }
    /* a small cluster's members start where the open pack ends: it joins if it fits */
    int joins = small && open && tgt == pack_hi && pack_cents + cents <= KM_CHUNK_CENTROIDS &&
                pack_hi + m - pack_lo <= KM_CHUNK_MAX_SRC;
    if (open && !joins) { /* close the open pack */
      int32_t s0 = (int32_t)pack_lo, cnt = (int32_t)(pack_hi - pack_lo);
      if (add_tile(g, ns++, (struct km_tile){s0, cnt, s0, cnt}))
        return -1;
      open = 0;
    }
    if (!small)
      continue;
    it[w].packed = 1;
    if (!open) {
      open = 1;
      pack_lo = pack_hi = tgt;
      pack_cents = 0;
    }
    pack_hi += m;
    pack_cents += cents;
  }
  g->list_len = at;
  /* big clusters (or this rank's rows of one): source chunks x target parts */
  int nb = 0;
  for (int w = 0; w < n_work; w++) {
    if (it[w].packed)
      continue;
    int c = work[w].cluster;
    int64_t m = cl->start[c + 1] - cl->start[c], rows = work[w].row_hi - work[w].row_lo;
    int64_t part = target_part(m);
    for (int64_t p = it[w].src; p < it[w].src + rows;) {
      struct km_tile chunk;
      chunk_positions(g->list, g->sizes, p, it[w].src + rows, 1, &chunk);
      int32_t first = g->crank[g->list[chunk.src]];
      for (int64_t t = 0; t < m; t += part) {
        chunk.tgt = (int32_t)(it[w].tgt + t);
        chunk.ntgt = (int32_t)(t + part <= m ? part : m - t);
        if (g->crank[g->list[chunk.tgt + chunk.ntgt - 1]] <= first)
          continue; /* every target ranks at or below every source */
        if (add_tile(g, ns + nb++, chunk))
          return -1;
      }
      p += chunk.nsrc;
    }
  }
  g->n_small = ns;
  g->n_big = nb;
  return 0;
}

static int gpu_score(void *ctx, const int32_t *assign, const struct km_clusters *cl,
                     const struct km_work *work, int n_work, uint64_t *score, char *why,
                     size_t len)
{
  struct km_gpu *g = (struct km_gpu *)ctx;
  struct km_item_at *it = (struct km_item_at *)malloc(sizeof *it * ((size_t)n_work + 1));
  if (!it || plan_score(g, cl, work, n_work, it)) {
    free(it);
    gr_fmt(why, len, "out of host memory planning the score tiles");
    return -1;
  }
  free(it);
  int nt = g->n_small + g->n_big;
  if (nt > g->tiles_cap) {
    GR_CUDA_CHECK(cudaFree(g->d_tiles));
    g->tiles_cap = nt * 2;
    GR_CUDA_CHECK(cudaMalloc((void **)&g->d_tiles, sizeof(struct km_tile) * (size_t)g->tiles_cap));
  }
  GR_CUDA_CHECK(cudaMemcpyAsync(g->d_assign, assign, sizeof(int32_t) * (size_t)g->n,
                                cudaMemcpyHostToDevice, g->stream));
  if (g->list_len)
    GR_CUDA_CHECK(cudaMemcpyAsync(g->d_list, g->list, sizeof(int32_t) * (size_t)g->list_len,
                                  cudaMemcpyHostToDevice, g->stream));
  if (nt)
    GR_CUDA_CHECK(cudaMemcpyAsync(g->d_tiles, g->tiles, sizeof(struct km_tile) * (size_t)nt,
                                  cudaMemcpyHostToDevice, g->stream));
  km_gpu_enqueue_score(g);
  /* the engine's vector is zero on entry: the device's holds this rank's whole part */
  GR_CUDA_CHECK(cudaMemcpyAsync(score, g->d_score, sizeof(uint64_t) * (size_t)g->n,
                                cudaMemcpyDeviceToHost, g->stream));
  GR_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  return 0;
}

const struct km_backend km_gpu_backend_ops = {NULL, gpu_assign, gpu_score};
