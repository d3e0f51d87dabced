/* The avos GPU lifecycle (alg.h: struct gr_gpu_lifecycle): upload a case, string a variant's
 * steps together into an elementwise op, one product C = A (x) B, or a closure W <- W (+) W (x) W
 * to a fixed point, and copy the result back in the flat output layout (avos_alg.h).
 *
 * A product's size is known only after its symbolic step, so avos has a run step: run (the
 * checked run, and a benchmark's first launch) finds each product's sizes with host round trips
 * on the variant's own results, so that a historical variant whose sizes vary from run to run is
 * judged on its own, and records them (global-tier tables, entries of C, which squarings
 * compared); launch replays the same kernels with those sizes, with no host synchronisation and
 * no allocation. The cuSPARSE peer is a case of the same lifecycle: setup sizes its product,
 * run and launch repeat it.
 *
 * A product synchronises twice with the host in run (after the symbolic step for the global
 * tier's table sizes, after the scan for C's entries), a closure squaring once more when C has as
 * many entries as W (the fixed-point comparison). Device buffers grow and are reused. */
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "avos.h"
#include "avos_alg.h"
#include <gpuregress/gpu.h>
#include <gpuregress/util.h>

#define AVOS_SCRATCH_LIMIT ((size_t)2 << 30) /* global-tier tables, at most */

/* A CSR matrix on the device with grow-only buffers. */
struct avos_dmat {
  int rows, cols;
  long long nnz;
  int *ptr, *idx;
  void *val;
  size_t ptr_cap;    /* ints */
  long long val_cap; /* entries */
};

struct avos_ws {
  enum avos_type type;
  size_t tsize;
  int sms;
  int *counts;
  size_t counts_cap;
  int *lists;
  size_t lists_cap;
  void *scratch;
  size_t scratch_cap;
  void *cub_tmp;
  size_t cub_cap;
  struct avos_dev_stats *stats, *h_stats; /* device, pinned host */
  int *h_nnz;                             /* pinned host */
  unsigned tiers;                         /* 1 << AVOS_REGIME_WARP ...: tiers listed so far */
  int *stash_off, *stash_idx;
  void *stash_val;
  size_t stash_off_cap, stash_idx_cap, stash_val_cap; /* bytes */
  int stash_pct; /* percent of the stash's room the case allows (its stash=) */
};

/* What a product needed, for replays. */
struct avos_plan {
  unsigned global_slots, global_grid;
  long long nnz;
  int compared; /* closure: the squaring ran the fixed-point comparison */
  long long stash_cap;
};

static size_t avos_type_size(enum avos_type t)
{
  static const size_t sz[] = {1, 2, 4, 8};
  return sz[t];
}

static void dmat_reserve(struct avos_dmat *m, int rows, long long nnz, size_t tsize)
{
  if ((size_t)rows + 1 > m->ptr_cap) {
    if (m->ptr)
      GR_CUDA_CHECK(cudaFree(m->ptr));
    m->ptr_cap = (size_t)rows + 1;
    GR_CUDA_CHECK(cudaMalloc((void **)&m->ptr, m->ptr_cap * sizeof(int)));
  }
  if (nnz > m->val_cap || !m->idx) {
    if (m->idx)
      GR_CUDA_CHECK(cudaFree(m->idx));
    if (m->val)
      GR_CUDA_CHECK(cudaFree(m->val));
    long long cap = nnz + nnz / 4 + 16;
    GR_CUDA_CHECK(cudaMalloc((void **)&m->idx, (size_t)cap * sizeof(int)));
    GR_CUDA_CHECK(cudaMalloc(&m->val, (size_t)cap * tsize));
    m->val_cap = cap;
  }
}

static void dmat_free(struct avos_dmat *m)
{
  if (m->ptr)
    GR_CUDA_CHECK(cudaFree(m->ptr));
  if (m->idx)
    GR_CUDA_CHECK(cudaFree(m->idx));
  if (m->val)
    GR_CUDA_CHECK(cudaFree(m->val));
  memset(m, 0, sizeof *m);
}

static void dmat_upload(struct avos_dmat *m, const struct avos_csr *c, const void *tval, size_t tsize)
{
  long long nnz = avos_csr_nnz(c);
  dmat_reserve(m, c->rows, nnz, tsize);
  m->rows = c->rows;
  m->cols = c->cols;
  m->nnz = nnz;
  GR_CUDA_CHECK(cudaMemcpy(m->ptr, c->indptr, ((size_t)c->rows + 1) * sizeof(int),
                           cudaMemcpyHostToDevice));
  if (nnz) {
    GR_CUDA_CHECK(cudaMemcpy(m->idx, c->indices, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
    GR_CUDA_CHECK(cudaMemcpy(m->val, tval, (size_t)nnz * tsize, cudaMemcpyHostToDevice));
  }
}

static void ws_init(struct avos_ws *w, enum avos_type t)
{
  int dev;
  memset(w, 0, sizeof *w);
  w->type = t;
  w->tsize = avos_type_size(t);
  GR_CUDA_CHECK(cudaGetDevice(&dev));
  GR_CUDA_CHECK(cudaDeviceGetAttribute(&w->sms, cudaDevAttrMultiProcessorCount, dev));
  GR_CUDA_CHECK(cudaMalloc((void **)&w->stats, sizeof *w->stats));
  GR_CUDA_CHECK(cudaMallocHost((void **)&w->h_stats, sizeof *w->h_stats));
  GR_CUDA_CHECK(cudaMallocHost((void **)&w->h_nnz, sizeof *w->h_nnz));
}

static void ws_free(struct avos_ws *w)
{
  if (w->counts)
    GR_CUDA_CHECK(cudaFree(w->counts));
  if (w->lists)
    GR_CUDA_CHECK(cudaFree(w->lists));
  if (w->scratch)
    GR_CUDA_CHECK(cudaFree(w->scratch));
  if (w->cub_tmp)
    GR_CUDA_CHECK(cudaFree(w->cub_tmp));
  if (w->stash_off)
    GR_CUDA_CHECK(cudaFree(w->stash_off));
  if (w->stash_idx)
    GR_CUDA_CHECK(cudaFree(w->stash_idx));
  if (w->stash_val)
    GR_CUDA_CHECK(cudaFree(w->stash_val));
  if (w->stats)
    GR_CUDA_CHECK(cudaFree(w->stats));
  if (w->h_stats)
    GR_CUDA_CHECK(cudaFreeHost(w->h_stats));
  if (w->h_nnz)
    GR_CUDA_CHECK(cudaFreeHost(w->h_nnz));
  memset(w, 0, sizeof *w);
}

static void grow(void **p, size_t *cap, size_t need)
{
  if (need <= *cap && *p)
    return;
  if (*p)
    GR_CUDA_CHECK(cudaFree(*p));
  *cap = need ? need : 1;
  GR_CUDA_CHECK(cudaMalloc(p, *cap));
}

static void stats_reset_all(struct avos_ws *w, cudaStream_t st)
{
  GR_CUDA_CHECK(cudaMemsetAsync(w->stats, 0, sizeof *w->stats, st));
  /* cycle_vertex and first_overflow: AVOS_NONE */
  GR_CUDA_CHECK(cudaMemsetAsync(&w->stats->cycle_vertex, 0xff, 2 * sizeof(unsigned long long), st));
}

static void stats_reset_product(struct avos_ws *w, cudaStream_t st)
{
  size_t off = offsetof(struct avos_dev_stats, n_sym_warp);
  GR_CUDA_CHECK(cudaMemsetAsync((char *)w->stats + off, 0, sizeof *w->stats - off, st));
}

static void stats_read(struct avos_ws *w, cudaStream_t st)
{
  GR_CUDA_CHECK(cudaMemcpyAsync(w->h_stats, w->stats, sizeof *w->stats, cudaMemcpyDeviceToHost, st));
  GR_CUDA_CHECK(cudaStreamSynchronize(st));
}

/* The stash of a product for a variant that has one: room for twice the entries of A and S (a
 * squaring's result was at most 1.5 times that in 90 generated closures; rows that do not fit
 * are computed by the numeric step as without a stash), times the case's stash= percent; every
 * row's offset at -1. */
static void stash_prepare(struct avos_ws *w, const struct avos_dmat *A, const struct avos_dmat *S,
                          struct avos_args *g, struct avos_plan *pl, int replay, cudaStream_t st)
{
  if (!replay) {
    long long want = 2 * (A->nnz + (S ? S->nnz : 0)) + 1024;
    if (want > INT_MAX)
      want = INT_MAX;
    want = want / 100 * w->stash_pct + want % 100 * w->stash_pct / 100;
    grow((void **)&w->stash_off, &w->stash_off_cap, ((size_t)A->rows + 1) * sizeof(int));
    grow((void **)&w->stash_idx, &w->stash_idx_cap, (size_t)want * sizeof(int));
    grow(&w->stash_val, &w->stash_val_cap, (size_t)want * w->tsize);
    pl->stash_cap = want;
  }
  g->stash_off = w->stash_off;
  g->stash_idx = w->stash_idx;
  g->stash_val = w->stash_val;
  g->stash_cap = pl->stash_cap;
  GR_CUDA_CHECK(cudaMemsetAsync(w->stash_off, 0xff, ((size_t)A->rows + 1) * sizeof(int), st));
}

/* C = S (+) A (x) B (S may be NULL). With replay, the sizes come from *pl and nothing is read
 * back or allocated; else they are found and recorded in *pl. poison >= 0: C's entries are filled
 * with that byte before the numeric step. 0 ok, 1 the variant has no such step, 2 the product has
 * more than 2^31-1 entries. */
static int avos_product_dev(avos_launch_fn launch, struct avos_ws *w, const struct avos_dmat *A,
                            const struct avos_dmat *B, const struct avos_dmat *S, struct avos_dmat *C,
                            struct avos_plan *pl, int replay, int poison, cudaStream_t st)
{
  const int rows = A->rows;
  struct avos_args g;
  memset(&g, 0, sizeof g);
  if (!replay) {
    grow((void **)&w->counts, &w->counts_cap, ((size_t)rows + 1) * sizeof(int));
    grow((void **)&w->lists, &w->lists_cap, 7 * ((size_t)rows + 1) * sizeof(int));
    dmat_reserve(C, rows, 0, w->tsize);
  }
  g.type = w->type;
  g.rows = rows;
  g.inner = A->cols;
  g.cols = B->cols;
  g.a_ptr = A->ptr;
  g.a_idx = A->idx;
  g.a_val = A->val;
  g.b_ptr = B->ptr;
  g.b_idx = B->idx;
  g.b_val = B->val;
  if (S) {
    g.s_ptr = S->ptr;
    g.s_idx = S->idx;
    g.s_val = S->val;
  }
  g.counts = w->counts;
  g.sym_warp = w->lists;
  g.sym_block = w->lists + (size_t)(rows + 1);
  g.num_warp = w->lists + 2 * ((size_t)rows + 1);
  g.num_block = w->lists + 3 * ((size_t)rows + 1);
  g.global_rows = w->lists + 4 * ((size_t)rows + 1);
  g.group_rows = w->lists + 6 * ((size_t)rows + 1);
  g.stats = w->stats;
  if (launch(AVOS_STEP_STASH, &g, st) == 0) /* a query: the same answer in a replay */
    stash_prepare(w, A, S, &g, pl, replay, st);
  stats_reset_product(w, st);
  GR_CUDA_CHECK(cudaMemsetAsync(w->counts + rows, 0, sizeof(int), st));
  if (launch(AVOS_STEP_SYMBOLIC, &g, st))
    return 1;
  if (!replay) {
    stats_read(w, st);
    w->tiers |= (w->h_stats->n_group ? 1u << AVOS_REGIME_GROUP : 0) |
                (w->h_stats->n_sym_warp ? 1u << AVOS_REGIME_WARP : 0) |
                (w->h_stats->n_sym_block ? 1u << AVOS_REGIME_BLOCK : 0) |
                (w->h_stats->n_global ? 1u << AVOS_REGIME_GLOBAL : 0);
    if (g.stash_idx && w->h_stats->stash_used > (unsigned long long)g.stash_cap)
      w->tiers |= 1u << AVOS_REGIME_STASH_FULL;
    unsigned n_global = w->h_stats->n_global, slots = w->h_stats->global_slots;
    unsigned grid = n_global < (unsigned)w->sms ? n_global : (unsigned)w->sms;
    while (grid > 1 && (size_t)grid * slots * AVOS_GLOBAL_SLOT_BYTES > AVOS_SCRATCH_LIMIT)
      grid--;
    w->tiers |= n_global > grid ? 1u << AVOS_REGIME_GLOBAL_ROUNDS : 0;
    grow(&w->scratch, &w->scratch_cap, (size_t)grid * slots * AVOS_GLOBAL_SLOT_BYTES);
    pl->global_slots = slots;
    pl->global_grid = grid;
  }
  g.scratch = w->scratch;
  g.global_slots = pl->global_slots;
  g.global_grid = pl->global_grid;
  launch(AVOS_STEP_SYMBOLIC_GLOBAL, &g, st);
  size_t need = 0;
  GR_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, need, w->counts, C->ptr, rows + 1, st));
  if (!replay)
    grow(&w->cub_tmp, &w->cub_cap, need);
  GR_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(w->cub_tmp, need, w->counts, C->ptr, rows + 1, st));
  if (!replay) {
    GR_CUDA_CHECK(cudaMemcpyAsync(w->h_nnz, C->ptr + rows, sizeof(int), cudaMemcpyDeviceToHost, st));
    GR_CUDA_CHECK(cudaStreamSynchronize(st));
    if (*w->h_nnz < 0)
      return 2;
    pl->nnz = *w->h_nnz;
    dmat_reserve(C, rows, pl->nnz, w->tsize);
  }
  C->rows = rows;
  C->cols = B->cols;
  C->nnz = pl->nnz;
  if (poison >= 0 && C->nnz) {
    GR_CUDA_CHECK(cudaMemsetAsync(C->idx, poison, (size_t)C->nnz * sizeof(int), st));
    GR_CUDA_CHECK(cudaMemsetAsync(C->val, poison, (size_t)C->nnz * w->tsize, st));
  }
  g.c_ptr = C->ptr;
  g.c_idx = C->idx;
  g.c_val = C->val;
  g.c_cap = C->val_cap;
  launch(AVOS_STEP_NUMERIC, &g, st);
  launch(AVOS_STEP_NUMERIC_GLOBAL, &g, st);
  return 0;
}

/* Closure of W0 into buf[0]/buf[1] by repeated squaring. Without replay: until a squaring leaves
 * W unchanged (*iters and plans recorded, *fixed set) or AVOS_MAX_ITER; with replay: the recorded
 * *iters squarings. *result: the last W. Returns as avos_product_dev. */
static int avos_closure_dev(avos_launch_fn launch, struct avos_ws *w, const struct avos_dmat *W0,
                            struct avos_dmat buf[2], struct avos_plan *plans, int *iters, int *fixed,
                            int replay, int poison, cudaStream_t st, struct avos_dmat **result)
{
  const struct avos_dmat *cur = W0;
  int n = replay ? *iters : AVOS_MAX_ITER, it;
  stats_reset_all(w, st);
  *fixed = 0;
  *result = (struct avos_dmat *)W0;
  for (it = 0; it < n; it++) {
    struct avos_dmat *next = &buf[it & 1];
    int rc = avos_product_dev(launch, w, cur, cur, cur, next, &plans[it], replay, poison, st);
    if (rc)
      return rc;
    int compare = replay ? plans[it].compared : next->nnz == cur->nnz;
    plans[it].compared = compare;
    if (compare) {
      struct avos_args g;
      memset(&g, 0, sizeof g);
      g.type = w->type;
      g.rows = cur->rows;
      g.s_ptr = cur->ptr;
      g.s_idx = cur->idx;
      g.s_val = cur->val;
      g.c_ptr = next->ptr;
      g.c_idx = next->idx;
      g.c_val = next->val;
      g.c_nnz = next->nnz;
      g.stats = w->stats;
      launch(AVOS_STEP_COMPARE, &g, st);
    }
    cur = next;
    *result = next;
    if (!replay && compare) {
      stats_read(w, st);
      if (!w->h_stats->changed) {
        *fixed = 1;
        it++;
        break;
      }
    }
  }
  *iters = it;
  return 0;
}

static void status_from_stats(const struct avos_dev_stats *s, int64_t *status)
{
  status[AVOS_ST_OVERFLOW] = (int64_t)s->overflow;
  status[AVOS_ST_CYCLE] = s->cycle_vertex == AVOS_NONE ? -1 : (int64_t)s->cycle_vertex;
  status[AVOS_ST_FIRST_OVF] = s->first_overflow == AVOS_NONE ? -1 : (int64_t)s->first_overflow;
}

/* Copy a device result into the flat output. */
static void fetch_matrix(const struct gr_instance *inst, struct avos_ws *w, const struct avos_dmat *C,
                         int64_t *status, void *out)
{
  const struct avos_data *d = (const struct avos_data *)inst->priv;
  long long keep = C->nnz < d->cap ? C->nnz : d->cap;
  int32_t *ptr = (int32_t *)malloc(((size_t)C->rows + 1) * sizeof(int32_t));
  int32_t *idx = (int32_t *)malloc((size_t)(keep ? keep : 1) * sizeof(int32_t));
  char *val = (char *)malloc((size_t)(keep ? keep : 1) * d->tsize);
  if (!ptr || !idx || !val)
    gr_cuda_fail("malloc", __func__, __FILE__, __LINE__, 2);
  GR_CUDA_CHECK(cudaMemcpy(ptr, C->ptr, ((size_t)C->rows + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost));
  if (keep) {
    GR_CUDA_CHECK(cudaMemcpy(idx, C->idx, (size_t)keep * sizeof(int32_t), cudaMemcpyDeviceToHost));
    GR_CUDA_CHECK(cudaMemcpy(val, C->val, (size_t)keep * d->tsize, cudaMemcpyDeviceToHost));
  }
  status[AVOS_ST_NNZ] = C->nnz;
  avos_out_matrix(inst, out, status, ptr, idx, val, keep);
  free(ptr);
  free(idx);
  free(val);
  (void)w;
}

/* The state of one operation on the device: inputs, workspace, results, recorded plans. */
struct avos_gpu_op {
  const struct gr_instance *inst;
  avos_launch_fn launch;
  struct avos_ws w;
  /* elementwise */
  void *x, *y, *out;
  /* matrices */
  struct avos_dmat A, B, buf[2];
  struct avos_dmat *result;
  struct avos_plan plans[AVOS_MAX_ITER];
  int iters, fixed;
};

static void op_free(struct avos_gpu_op *o)
{
  if (o->x)
    GR_CUDA_CHECK(cudaFree(o->x));
  if (o->y)
    GR_CUDA_CHECK(cudaFree(o->y));
  if (o->out)
    GR_CUDA_CHECK(cudaFree(o->out));
  dmat_free(&o->A);
  dmat_free(&o->B);
  dmat_free(&o->buf[0]);
  dmat_free(&o->buf[1]);
  ws_free(&o->w);
}

static void op_upload(struct avos_gpu_op *o)
{
  const struct avos_data *d = (const struct avos_data *)o->inst->priv;
  ws_init(&o->w, d->type);
  o->w.stash_pct = d->stash_pct;
  if (d->op == AVOS_OP_SUM || d->op == AVOS_OP_PRODUCT) {
    size_t bytes = (size_t)d->n * d->tsize + 16;
    GR_CUDA_CHECK(cudaMalloc(&o->x, bytes));
    GR_CUDA_CHECK(cudaMalloc(&o->y, bytes));
    GR_CUDA_CHECK(cudaMalloc(&o->out, bytes));
    GR_CUDA_CHECK(cudaMemcpy(o->x, d->x, (size_t)d->n * d->tsize, cudaMemcpyHostToDevice));
    GR_CUDA_CHECK(cudaMemcpy(o->y, d->y, (size_t)d->n * d->tsize, cudaMemcpyHostToDevice));
    return;
  }
  dmat_upload(&o->A, &d->a, d->a_tval, d->tsize);
  if (!d->b_is_a)
    dmat_upload(&o->B, &d->b, d->b_tval, d->tsize);
}

/* Run the operation on st (replay: with the recorded sizes; poison >= 0: each product's entries
 * filled with that byte before its numeric step). 0 ok, 1 unsupported step, 2 too large. */
static int op_run(struct avos_gpu_op *o, int replay, int poison, cudaStream_t st)
{
  const struct avos_data *d = (const struct avos_data *)o->inst->priv;
  if (d->op == AVOS_OP_SUM || d->op == AVOS_OP_PRODUCT) {
    struct avos_args g;
    memset(&g, 0, sizeof g);
    g.type = d->type;
    g.n = d->n;
    g.x = o->x;
    g.y = o->y;
    g.out = o->out; /* poisoned by the harness (an output of the lifecycle) */
    g.stats = o->w.stats;
    stats_reset_all(&o->w, st);
    return o->launch(d->op == AVOS_OP_SUM ? AVOS_STEP_SUM : AVOS_STEP_PRODUCT, &g, st);
  }
  const struct avos_dmat *B = d->b_is_a ? &o->A : &o->B;
  if (d->op == AVOS_OP_SPGEMM) {
    stats_reset_all(&o->w, st);
    o->result = &o->buf[0];
    return avos_product_dev(o->launch, &o->w, &o->A, B, NULL, &o->buf[0], &o->plans[0], replay,
                            poison, st);
  }
  return avos_closure_dev(o->launch, &o->w, &o->A, o->buf, o->plans, &o->iters, &o->fixed, replay,
                          poison, st, &o->result);
}

static void op_fetch(struct avos_gpu_op *o, void *out)
{
  const struct avos_data *d = (const struct avos_data *)o->inst->priv;
  int64_t status[AVOS_STATUS_WORDS] = {0};
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  stats_read(&o->w, 0);
  status_from_stats(o->w.h_stats, status);
  if (d->op == AVOS_OP_SUM || d->op == AVOS_OP_PRODUCT) {
    status[AVOS_ST_NNZ] = d->n;
    memcpy(out, status, sizeof status);
    GR_CUDA_CHECK(cudaMemcpy((char *)out + sizeof status, o->out, (size_t)d->n * d->tsize,
                             cudaMemcpyDeviceToHost));
    return;
  }
  status[AVOS_ST_FIRST_OVF] = -1;
  if (d->op == AVOS_OP_CLOSURE) {
    status[AVOS_ST_ITER] = o->iters;
    /* after a replay, the last squaring's comparison says whether it was the fixed point */
    status[AVOS_ST_FIXED] = o->iters > 0 && o->plans[o->iters - 1].compared && !o->w.h_stats->changed;
  }
  fetch_matrix(o->inst, &o->w, o->result, status, out);
}

static const char *op_unsupported(const struct gr_variant *v, const struct avos_data *d, char *why,
                                  size_t len)
{
  static const char *const ops[] = {"sum", "product", "spgemm", "closure"};
  return gr_fmt(why, len, "variant '%s' has no kernel for op=%s", v->name, ops[d->op]);
}

/* ---- the GPU lifecycle -------------------------------------------------------------------- */

/* One case on the device: the cuSPARSE peer's state, or the operation of a variant. */
struct avos_case {
  int peer;
  void *peer_state;
  struct avos_gpu_op op;
};

static enum gr_run_status avos_setup(struct gr_gpu_case *g)
{
  const struct gr_variant *v = g->variant;
  const struct avos_data *d = (const struct avos_data *)g->inst->priv;
  if (g->bench && v->kind == GR_VARIANT_HISTORICAL && d->op == AVOS_OP_CLOSURE) {
    /* a replayed closure feeds each squaring's result to the next with the sizes recorded by
     * run; a historical variant's sizes may vary from run to run */
    gr_fmt(g->why, sizeof g->why,
           "closures of historical variants are not timed (their sizes vary run to run)");
    return GR_RUN_UNSUPPORTED;
  }
  struct avos_case *s = (struct avos_case *)calloc(1, sizeof *s);
  if (!s) {
    gr_fmt(g->why, sizeof g->why, "out of host memory");
    return GR_RUN_ERROR;
  }
  if (v->kind == GR_VARIANT_PEER) {
    s->peer = 1;
    s->peer_state = avos_cusparse_setup(g->inst, g->why, sizeof g->why);
    if (!s->peer_state) {
      free(s);
      return GR_RUN_UNSUPPORTED;
    }
    g->state = s;
    return GR_RUN_OK;
  }
  s->op.inst = g->inst;
  s->op.launch = (avos_launch_fn)v->impl;
  op_upload(&s->op);
  if (d->op == AVOS_OP_SUM || d->op == AVOS_OP_PRODUCT) {
    g->out[0] = s->op.out;
    g->out_bytes[0] = (size_t)d->n * d->tsize;
  }
  g->state = s;
  return GR_RUN_OK;
}

/* The operation with its host round trips: each product's sizes read back and recorded (on the
 * variant's own results: a historical variant whose sizes vary is judged on its own run). */
static enum gr_run_status avos_run(struct gr_gpu_case *g, void *stream)
{
  struct avos_case *s = (struct avos_case *)g->state;
  if (s->peer) {
    avos_cusparse_launch(s->peer_state, stream);
    return GR_RUN_OK;
  }
  int rc = op_run(&s->op, 0, g->poison, (cudaStream_t)stream);
  if (rc == 1) {
    op_unsupported(g->variant, (const struct avos_data *)g->inst->priv, g->why, sizeof g->why);
    return GR_RUN_UNSUPPORTED;
  }
  if (rc == 2) {
    gr_fmt(g->why, sizeof g->why, "a product has more than 2^31-1 entries");
    return GR_RUN_ERROR;
  }
  g->reached |= s->op.w.tiers;
  return GR_RUN_OK;
}

/* The same kernels with the sizes run recorded: no host synchronisation, no allocation. */
static enum gr_run_status avos_launch_case(struct gr_gpu_case *g, void *stream)
{
  struct avos_case *s = (struct avos_case *)g->state;
  if (s->peer)
    avos_cusparse_launch(s->peer_state, stream);
  else
    op_run(&s->op, 1, g->poison, (cudaStream_t)stream);
  return GR_RUN_OK;
}

static enum gr_run_status avos_fetch(struct gr_gpu_case *g, void *out)
{
  struct avos_case *s = (struct avos_case *)g->state;
  if (s->peer)
    avos_cusparse_fetch(s->peer_state, out);
  else
    op_fetch(&s->op, out);
  return GR_RUN_OK;
}

static void avos_teardown(struct gr_gpu_case *g)
{
  struct avos_case *s = (struct avos_case *)g->state;
  if (!s)
    return;
  if (s->peer)
    avos_cusparse_teardown(s->peer_state);
  else
    op_free(&s->op);
  free(s);
  g->state = NULL;
}

extern "C" const struct gr_gpu_lifecycle avos_lifecycle = {
    avos_setup, avos_launch_case, avos_fetch, avos_teardown, avos_run};
