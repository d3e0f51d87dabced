/* The avos algorithm's table: parameters, variants, boundary-biased generator, instance (input +
 * reference), checker and work model.
 *
 * A case is one operation (`op`) in one integer type (`type`):
 *   sum, product  elementwise over n values drawn towards -1, 0, 1, powers of two (and +-1),
 *                 values near the type's maximum, and (product) pairs whose MSBs add up to the
 *                 overflow boundary, just below or just at it;
 *   spgemm        C = A (x) B: A = B = the relationship matrix of a generated genealogy
 *                 (`shape` family or pedigree), or two random sparse matrices (`shape` random, at
 *                 most `deg` entries a row, values drawn as above);
 *   closure       of a generated genealogy, by repeated squaring to a fixed point.
 * Generated cases lean on what exposes the historical variants: -1 against other values, int8
 * and int16, rows with more distinct columns than a warp's table (256) and than a block's (2048),
 * row counts around multiples of 32.
 *
 * Checks: exact equality with the reference (status words, row pointers, columns, values), the
 * structure of the result, and the invariants: parity (every non-zero off-diagonal entry of
 * column j has the parity of j's gender, the diagonal is the gender) on inputs, products and
 * closures of genealogies; a closure is a fixed point; an acyclic genealogy reports no cycle and
 * an injected one is reported (or its paths overflowed, which is reported); overflow counts agree. */
#include "avos_alg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/check.h>
#include <gpuregress/util.h>
#include "datasets/avos_csr_text.h"
#include "datasets/genealogy.h"

static const char *const op_names[] = {"sum", "product", "spgemm", "closure", NULL};
static const char *const type_names[] = {"int8", "int16", "int32", "int64", NULL};
static const char *const shape_names[] = {"family", "pedigree", "random", "file", NULL};

enum { P_OP, P_TYPE, P_N, P_SHAPE, P_GENS, P_COLLAPSE, P_CYCLE, P_DEG, P_DATA, P_STASH };
static const struct gr_param_spec avos_params[] = {
    [P_OP] = {"op", GR_PARAM_ENUM, 0, 0, op_names,
              "elementwise sum or product, one CSR product, closure"},
    [P_TYPE] = {"type", GR_PARAM_ENUM, 0, 0, type_names, "integer type of the values"},
    [P_N] = {"n", GR_PARAM_INT, 0, 268435456, NULL,
             "elements (sum, product) or vertices (matrices)"},
    [P_SHAPE] = {"shape", GR_PARAM_ENUM, 0, 0, shape_names,
                 "matrices: generated family, full pedigree (wide closure rows), random (spgemm), "
                 "file (the genealogy of data=)"},
    [P_GENS] = {"gens", GR_PARAM_INT, 1, 62, NULL, "family: generations per family"},
    [P_COLLAPSE] = {"collapse", GR_PARAM_INT, 0, 100, NULL, "percent of couples who are relatives"},
    [P_CYCLE] = {"cycle", GR_PARAM_INT, 0, 1, NULL, "1: a person is made a parent of an ancestor"},
    [P_DEG] = {"deg", GR_PARAM_INT, 1, 4096, NULL, "random: most entries in a row of A and of B"},
    [P_DATA] = {"data", GR_PARAM_FILE, 0, 0, NULL,
                "spgemm, closure: a genealogy's relationship matrix, avos-csr text (n from it)"},
    [P_STASH] = {"stash", GR_PARAM_INT, 0, 100, NULL,
                 "closure, v3_split_rows: percent of its stash's room (twice the entries of a "
                 "squaring's inputs); rows that find none are computed again by the numeric step"},
};

#define MAX_ELEMENTWISE_FUZZ 4194304 /* generated elementwise cases (the CPU reference is cheap) */
#define MAX_ELEMENTWISE_LARGE 20971520 /* ... and the large ones, past 2^24 (2^24 + 2^22) */
/* The elementwise kernels' grid: at most 16 blocks of 256 per SM (132 on an H100/H200, nominal:
 * the parent never asks the device), 16 bytes per thread and step; past it a grid-stride loop */
#define NOMINAL_EW_THREADS ((int64_t)132 * 16 * 256)
#define MAX_FAMILY 20000
#define MAX_PEDIGREE 16383
#define MAX_RANDOM 4096
#define MAX_MATRIX 16777216 /* vertices of any matrix case */

static int is_matrix(int op) { return op == AVOS_OP_SPGEMM || op == AVOS_OP_CLOSURE; }

/* values */

static void tval_set(void *base, int64_t i, enum avos_type t, int64_t v)
{
  switch (t) {
  case AVOS_INT8: ((int8_t *)base)[i] = (int8_t)v; break;
  case AVOS_INT16: ((int16_t *)base)[i] = (int16_t)v; break;
  case AVOS_INT32: ((int32_t *)base)[i] = (int32_t)v; break;
  case AVOS_INT64: ((int64_t *)base)[i] = v; break;
  }
}

static int64_t tval_get(const void *base, int64_t i, enum avos_type t)
{
  switch (t) {
  case AVOS_INT8: return ((const int8_t *)base)[i];
  case AVOS_INT16: return ((const int16_t *)base)[i];
  case AVOS_INT32: return ((const int32_t *)base)[i];
  case AVOS_INT64: return ((const int64_t *)base)[i];
  }
  return 0;
}

/* A value with its MSB at b (b >= 1), low bits random. */
static int64_t value_at_msb(struct gr_rng *r, int b)
{
  int64_t lo = (int64_t)1 << b;
  return lo + (int64_t)(gr_rng_u64(r) & (uint64_t)(lo - 1));
}

/* A boundary-biased valid value of the type. */
static int64_t draw_value(struct gr_rng *r, int bits)
{
  int64_t max = avos_max_value(bits);
  int k = (int)gr_rng_range(r, 0, 99);
  int b = (int)gr_rng_range(r, 1, bits - 2);
  if (k < 18)
    return -1;
  if (k < 25)
    return 0;
  if (k < 35)
    return 1;
  if (k < 42)
    return gr_rng_range(r, 2, 3);
  if (k < 57)
    return (int64_t)1 << b;
  if (k < 67) {
    int64_t v = ((int64_t)1 << b) + (gr_rng_chance(r, 0.5) ? 1 : -1);
    return v < 2 ? 2 : v;
  }
  if (k < 75)
    return max - gr_rng_range(r, 0, 2);
  return value_at_msb(r, b);
}

/* cases */

/* A random product with wide rows: n >= WIDE_N and deg in WIDE_DEG_LO..WIDE_DEG_HI give about a
 * thousand product rows past 2048 distinct columns (the global tier, and more global rows than
 * the global grid has blocks); the reference then counts about 2.6e7 terms. */
#define WIDE_N 3500
#define WIDE_DEG_LO 130
#define WIDE_DEG_HI 170
static int wide_rows(const struct gr_case *c)
{
  return c->v[P_SHAPE] == AVOS_SHAPE_RANDOM && c->v[P_N] >= WIDE_N && c->v[P_DEG] >= WIDE_DEG_LO &&
         c->v[P_DEG] <= WIDE_DEG_HI;
}

static void avos_fixup(struct gr_case *c)
{
  int64_t *v = c->v;
  if (!is_matrix((int)v[P_OP])) {
    v[P_SHAPE] = AVOS_SHAPE_FAMILY;
    v[P_GENS] = 1;
    v[P_COLLAPSE] = 0;
    v[P_CYCLE] = 0;
    v[P_DEG] = 1;
    if (v[P_N] > MAX_ELEMENTWISE_LARGE)
      v[P_N] = MAX_ELEMENTWISE_LARGE;
    return;
  }
  if (v[P_OP] == AVOS_OP_CLOSURE && v[P_SHAPE] == AVOS_SHAPE_RANDOM)
    v[P_SHAPE] = AVOS_SHAPE_FAMILY;
  if (v[P_SHAPE] == AVOS_SHAPE_FILE) /* the file fixes the data */
    return;
  switch ((int)v[P_SHAPE]) {
  case AVOS_SHAPE_FAMILY: {
    v[P_DEG] = 1;
    int64_t cap = MAX_FAMILY;
    if (v[P_OP] == AVOS_OP_CLOSURE) { /* closures of deep, collapsed families grow fast */
      double g = (double)v[P_GENS];
      double lim = 4e6 / (g * g * (1.0 + (double)v[P_COLLAPSE] / 10.0));
      if (lim < cap)
        cap = lim < 16 ? 16 : (int64_t)lim;
    }
    if (v[P_N] > cap)
      v[P_N] = cap;
    break;
  }
  case AVOS_SHAPE_PEDIGREE:
    v[P_DEG] = 1;
    v[P_GENS] = 1;
    if (v[P_N] > MAX_PEDIGREE)
      v[P_N] = MAX_PEDIGREE;
    break;
  default: /* random: about n * deg^2 / 4 product terms, at most 1e7 (the wide-row cases 2.6e7) */
    v[P_GENS] = 1;
    v[P_COLLAPSE] = 0;
    v[P_CYCLE] = 0;
    if (v[P_N] > MAX_RANDOM)
      v[P_N] = MAX_RANDOM;
    if (v[P_N] > 0 && v[P_DEG] > v[P_N])
      v[P_DEG] = v[P_N];
    if (wide_rows(c))
      break;
    while (v[P_DEG] > 1 && v[P_N] * v[P_DEG] * v[P_DEG] > 40000000)
      v[P_DEG] = v[P_DEG] * 7 / 8;
    break;
  }
}

static void avos_generate(struct gr_case *c, struct gr_rng *r)
{
  static const int64_t ew_edges[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 255, 256, 257, 1023, 1024, 65536, 1 << 20};
  static const int64_t fam_edges[] = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 5000, 20000};
  static const int64_t ped_edges[] = {0,   1,   2,   3,   7,   31,   32,   33,   63,   64,   65,  127, 128,
                                      129, 255, 256, 257, 511, 512, 513, 1023, 2047, 4095, 8191, 16383};
  static const int64_t rnd_edges[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 2048, 4096};
  static const int64_t deg_edges[] = {1, 2, 8, 15, 16, 17, 31, 32, 33, 64, 127, 128, 129, 255, 256, 257, 512, 1024};
  static const int64_t gen_edges[] = {1, 2, 3, 6, 7, 8, 12, 15, 16, 24, 31, 32, 62};
  static const int64_t col_edges[] = {0, 10, 30, 50, 90, 100};
  static const int64_t stash_edges[] = {0, 1, 10, 25, 50};
#define N_OF(a) (sizeof(a) / sizeof *(a))
  int k = (int)gr_rng_range(r, 0, 99);
  c->v[P_OP] = k < 20 ? AVOS_OP_SUM : k < 40 ? AVOS_OP_PRODUCT : k < 70 ? AVOS_OP_SPGEMM : AVOS_OP_CLOSURE;
  c->v[P_TYPE] = gr_rng_range(r, 0, 3);
  c->v[P_GENS] = 1;
  c->v[P_COLLAPSE] = 0;
  c->v[P_CYCLE] = 0;
  c->v[P_DEG] = 1;
  c->v[P_SHAPE] = AVOS_SHAPE_FAMILY;
  c->v[P_STASH] = 100;
  if (!is_matrix((int)c->v[P_OP])) {
    c->v[P_N] = gr_rng_boundary(r, 0, MAX_ELEMENTWISE_FUZZ, ew_edges, N_OF(ew_edges), 0.4);
    if (gr_rng_chance(r, 0.08)) { /* large: past the grid (a second stride) or, rarer (2-3 s a
                                   * case on an H100 host: drawing the values), past 2^24 */
      int64_t vec = 16 >> c->v[P_TYPE];
      c->v[P_N] = gr_rng_chance(r, 0.8)
                      ? NOMINAL_EW_THREADS * vec + gr_rng_range(r, 1, NOMINAL_EW_THREADS * vec / 4)
                      : ((int64_t)1 << 24) + gr_rng_range(r, 1, (int64_t)1 << 22);
    }
    return;
  }
  int s = (int)gr_rng_range(r, 0, 99);
  if (c->v[P_OP] == AVOS_OP_SPGEMM)
    c->v[P_SHAPE] = s < 35 ? AVOS_SHAPE_FAMILY : s < 60 ? AVOS_SHAPE_PEDIGREE : AVOS_SHAPE_RANDOM;
  else
    c->v[P_SHAPE] = s < 55 ? AVOS_SHAPE_FAMILY : AVOS_SHAPE_PEDIGREE;
  switch ((int)c->v[P_SHAPE]) {
  case AVOS_SHAPE_FAMILY:
    c->v[P_N] = gr_rng_boundary(r, 0, MAX_FAMILY, fam_edges, N_OF(fam_edges), 0.4);
    c->v[P_GENS] = gr_rng_boundary(r, 1, 62, gen_edges, N_OF(gen_edges), 0.5);
    c->v[P_COLLAPSE] = gr_rng_chance(r, 0.6) ? col_edges[gr_rng_range(r, 0, N_OF(col_edges) - 1)]
                                             : gr_rng_range(r, 0, 100);
    c->v[P_CYCLE] = gr_rng_chance(r, 0.25);
    break;
  case AVOS_SHAPE_PEDIGREE:
    c->v[P_N] = gr_rng_boundary(r, 0, MAX_PEDIGREE, ped_edges, N_OF(ped_edges), 0.6);
    c->v[P_COLLAPSE] = gr_rng_chance(r, 0.5) ? 0 : gr_rng_range(r, 0, 100);
    c->v[P_CYCLE] = gr_rng_chance(r, 0.25);
    break;
  default:
    c->v[P_N] = gr_rng_boundary(r, 0, MAX_RANDOM, rnd_edges, N_OF(rnd_edges), 0.5);
    c->v[P_DEG] = gr_rng_boundary(r, 1, 4096, deg_edges, N_OF(deg_edges), 0.5);
    if (gr_rng_chance(r, 0.2)) { /* wide rows: the global tier */
      c->v[P_N] = gr_rng_range(r, WIDE_N, MAX_RANDOM);
      c->v[P_DEG] = gr_rng_range(r, WIDE_DEG_LO, WIDE_DEG_HI);
    }
    break;
  }
  /* a quarter of the closures squeeze the stash: the generated genealogies never outgrow it
   * (a squaring's result is at most 1.5 times its inputs' entries, the room 2 times) */
  if (c->v[P_OP] == AVOS_OP_CLOSURE && gr_rng_chance(r, 0.25))
    c->v[P_STASH] = stash_edges[gr_rng_range(r, 0, N_OF(stash_edges) - 1)];
#undef N_OF
}

static int avos_validate(const struct gr_case *c, char *why, size_t len)
{
  if ((c->v[P_SHAPE] == AVOS_SHAPE_FILE) != (c->file[P_DATA] != NULL)) {
    gr_fmt(why, len, "'shape=file' and 'data=FILE' go together");
    return -1;
  }
  if (c->file[P_DATA] && !is_matrix((int)c->v[P_OP])) {
    gr_fmt(why, len, "'data=FILE' is a matrix: 'op=spgemm' or 'op=closure'");
    return -1;
  }
  if (c->v[P_OP] == AVOS_OP_CLOSURE && c->v[P_SHAPE] == AVOS_SHAPE_RANDOM) {
    gr_fmt(why, len, "'op=closure' takes the genealogy shapes (family, pedigree), not 'shape=random'");
    return -1;
  }
  if (is_matrix((int)c->v[P_OP]) && c->v[P_N] > MAX_MATRIX) {
    gr_fmt(why, len, "'n=%lld' vertices is beyond the %d a matrix case may have", (long long)c->v[P_N],
           MAX_MATRIX);
    return -1;
  }
  return 0;
}

static size_t type_size(int t) { return (size_t)1 << t; }

static size_t avos_device_bytes(const struct gr_case *c)
{
  size_t n = (size_t)c->v[P_N], ts = type_size((int)c->v[P_TYPE]);
  if (!is_matrix((int)c->v[P_OP]))
    return 3 * n * ts + 4096;
  if (c->v[P_SHAPE] == AVOS_SHAPE_RANDOM) {
    size_t deg = (size_t)c->v[P_DEG];
    return n * deg * deg / 4 * (4 + ts) * 3 + n * 64 + ((size_t)64 << 20);
  }
  /* genealogies: about 3 entries a row; products 3x that; closures up to a few hundred a row, in
   * W and two results, plus v3_split_rows' stash (room for 4 W) */
  const int closure = c->v[P_OP] == AVOS_OP_CLOSURE;
  size_t per_row = closure ? 400 : 16;
  return n * per_row * (4 + ts) * (closure ? 7 : 3) + n * 64 + ((size_t)64 << 20);
}

static void avos_work(const struct gr_case *c, double *bytes, double *items)
{
  double n = (double)c->v[P_N], ts = (double)type_size((int)c->v[P_TYPE]);
  if (!is_matrix((int)c->v[P_OP])) { /* read x and y, write out */
    *bytes = 3.0 * n * ts;
    *items = n;
    return;
  }
  /* An estimate from the parameters: entries of the input read, one B row per A entry, the
   * result written. Genealogies hold about 2.6 entries a row (3.5 a row in a product); closures
   * repeat about log2(gens)+2 squarings over a result of about 20 entries a row. */
  double nnz_a, terms, nnz_c;
  if (c->v[P_SHAPE] == AVOS_SHAPE_RANDOM) {
    double d = (double)c->v[P_DEG] / 2.0;
    nnz_a = n * d;
    terms = n * d * d;
    nnz_c = terms < n * n ? terms : n * n;
  } else {
    nnz_a = 2.6 * n;
    terms = 2.6 * nnz_a;
    nnz_c = 3.5 * n;
  }
  double squarings = 1.0;
  if (c->v[P_OP] == AVOS_OP_CLOSURE) {
    int g = (int)c->v[P_GENS], s = 2;
    while ((1 << (s - 2)) < g)
      s++;
    squarings = s;
    nnz_a = nnz_c = 20.0 * n;
    terms = 20.0 * nnz_a;
  }
  *bytes = squarings * ((nnz_a + terms) * (4.0 + ts) + nnz_c * (4.0 + ts) + 8.0 * n);
  *items = squarings * terms;
}

/* instance */

static void data_free(struct avos_data *d)
{
  if (!d)
    return;
  free(d->x);
  free(d->y);
  free(d->ref_vals);
  if (d->b_tval != d->a_tval)
    free(d->b_tval);
  free(d->a_tval);
  avos_csr_release(&d->a);
  avos_csr_release(&d->b);
  avos_csr_release(&d->ref);
  free(d->gender);
  free(d);
}

static void avos_instance_free(struct gr_instance *inst)
{
  if (!inst)
    return;
  data_free(inst->priv);
  free(inst);
}

static void *typed_values(const struct avos_csr *m, enum avos_type t)
{
  int64_t nnz = avos_csr_nnz(m);
  void *v = malloc((size_t)(nnz ? nnz : 1) * type_size(t));
  if (v)
    for (int64_t i = 0; i < nnz; i++)
      tval_set(v, i, t, m->values[i]);
  return v;
}

/* A random n x n matrix: row lengths boundary-biased in [0, deg], distinct sorted columns. */
static int random_matrix(struct avos_csr *m, int32_t n, int32_t deg, int bits, struct gr_rng *r)
{
  if (deg > n)
    deg = n;
  int32_t *len = malloc(((size_t)n + 1) * sizeof *len);
  uint8_t *mark = calloc((size_t)n + 1, 1);
  int64_t nnz = 0;
  if (!len || !mark)
    goto fail;
  for (int32_t i = 0; i < n; i++) {
    int64_t anchors[] = {0, 1, deg / 2, deg - 1, deg};
    len[i] = deg ? (int32_t)gr_rng_boundary(r, 0, deg, anchors, 5, 0.5) : 0;
    nnz += len[i];
  }
  if (avos_csr_alloc(m, n, n, nnz))
    goto fail;
  int64_t q = 0;
  for (int32_t i = 0; i < n; i++) {
    /* Floyd's sampling of len[i] distinct columns, then in order */
    for (int32_t j = n - len[i]; j < n; j++) {
      int32_t t = (int32_t)gr_rng_range(r, 0, j);
      mark[mark[t] ? j : t] = 1;
    }
    for (int32_t j = 0; j < n; j++)
      if (mark[j]) {
        m->indices[q] = j;
        m->values[q++] = draw_value(r, bits);
        mark[j] = 0;
      }
    m->indptr[i + 1] = (int32_t)q;
  }
  free(len);
  free(mark);
  return 0;
fail:
  free(len);
  free(mark);
  return -1;
}

/* Entries of the structural product pattern of A * B (stored entries, whatever their values). */
static int64_t structural_nnz(const struct avos_csr *a, const struct avos_csr *b)
{
  int32_t *mark = malloc(((size_t)b->cols + 1) * sizeof *mark);
  if (!mark)
    return -1;
  for (int32_t j = 0; j < b->cols; j++)
    mark[j] = -1;
  int64_t nnz = 0;
  for (int32_t i = 0; i < a->rows; i++)
    for (int32_t p = a->indptr[i]; p < a->indptr[i + 1]; p++) {
      int32_t k = a->indices[p];
      for (int32_t q = b->indptr[k]; q < b->indptr[k + 1]; q++)
        if (mark[b->indices[q]] != i) {
          mark[b->indices[q]] = i;
          nnz++;
        }
    }
  free(mark);
  return nnz;
}

static void status_init(int64_t *st)
{
  memset(st, 0, AVOS_STATUS_WORDS * sizeof *st);
  st[AVOS_ST_CYCLE] = -1;
  st[AVOS_ST_FIRST_OVF] = -1;
}

/* The reference answer of an elementwise case: values (typed) and status. */
static void elementwise_reference(const struct avos_data *d, void *vals, int64_t *st)
{
  status_init(st);
  st[AVOS_ST_NNZ] = d->n;
  for (int64_t i = 0; i < d->n; i++) {
    int64_t x = tval_get(d->x, i, d->type), y = tval_get(d->y, i, d->type), v;
    if (d->op == AVOS_OP_SUM) {
      v = avos_sum(x, y);
    } else {
      int ovf = 0;
      v = avos_product(x, y, d->bits, &ovf);
      if (ovf) {
        st[AVOS_ST_OVERFLOW]++;
        if (st[AVOS_ST_FIRST_OVF] < 0)
          st[AVOS_ST_FIRST_OVF] = i;
      }
    }
    tval_set(vals, i, d->type, v);
  }
}

/* The reference answer of a matrix case. 0 ok, -1 with why. */
static int matrix_reference(const struct avos_data *d, struct avos_csr *res, struct avos_stats *rs,
                            int64_t *st, char *why, size_t len)
{
  status_init(st);
  if (d->op == AVOS_OP_SPGEMM) {
    memset(rs, 0, sizeof *rs);
    rs->cycle_vertex = -1;
    if (avos_spgemm_parallel(&d->a, d->b_is_a ? &d->a : &d->b, NULL, d->bits, res, rs, why, len))
      return -1;
  } else if (avos_closure_by(&d->a, d->bits, avos_spgemm_parallel, res, rs, why, len)) {
    return -1;
  }
  st[AVOS_ST_NNZ] = avos_csr_nnz(res);
  st[AVOS_ST_OVERFLOW] = rs->overflow;
  st[AVOS_ST_CYCLE] = rs->cycle_vertex;
  st[AVOS_ST_ITER] = rs->iterations;
  st[AVOS_ST_FIXED] = rs->fixed_point;
  return 0;
}

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

void avos_out_matrix(const struct gr_instance *inst, void *out, const int64_t *status,
                     const int32_t *indptr, const int32_t *indices, const void *values, int64_t nnz)
{
  const struct avos_data *d = inst->priv;
  char *o = out;
  int64_t keep = nnz < d->cap ? nnz : d->cap;
  size_t ptr_end = d->off_ptr + ((size_t)d->a.rows + 1) * sizeof(int32_t);
  size_t idx_end = d->off_idx + (size_t)d->cap * sizeof(int32_t);
  size_t val_end = d->off_val + (size_t)d->cap * d->tsize;
  memcpy(o, status, AVOS_STATUS_WORDS * sizeof(int64_t));
  memcpy(o + d->off_ptr, indptr, ((size_t)d->a.rows + 1) * sizeof(int32_t));
  if (keep > 0) {
    memcpy(o + d->off_idx, indices, (size_t)keep * sizeof(int32_t));
    memcpy(o + d->off_val, values, (size_t)keep * d->tsize);
  }
  /* alignment padding: written, so that two runs compare equal byte for byte */
  memset(o + ptr_end, 0, d->off_idx - ptr_end);
  memset(o + idx_end, 0, d->off_val - idx_end);
  memset(o + val_end, 0, inst->out_bytes - val_end);
}

static void write_reference_out(const struct gr_instance *inst, void *out, const struct avos_csr *m,
                                const int64_t *st)
{
  const struct avos_data *d = inst->priv;
  int64_t nnz = avos_csr_nnz(m);
  void *tv = typed_values(m, d->type);
  if (!tv)
    return;
  avos_out_matrix(inst, out, st, m->indptr, m->indices, tv, nnz);
  free(tv);
}

/* The genealogy of data=, as values of `bits` bits: loaded and checked to be a relationship
 * matrix. 0 ok; -1 with why naming the file. */
static int load_genealogy(const struct gr_case *c, int bits, struct avos_csr *m, char *why,
                          size_t len)
{
  char path[GR_CASE_PATH_LEN * 3], inner[GR_WHY_LEN];
  if (!gr_case_file(c, "data", path, sizeof path)) {
    gr_fmt(why, len, "'shape=file' needs data=FILE");
    return -1;
  }
  if (avos_csr_load_text(path, bits, m, why, len))
    return -1;
  if (m->rows > MAX_MATRIX || genealogy_validate(m, inner, sizeof inner)) {
    if (m->rows > MAX_MATRIX)
      gr_fmt(inner, sizeof inner, "%lld vertices, more than the %d a case may have",
             (long long)m->rows, MAX_MATRIX);
    gr_fmt(why, len, "'%s' is not a genealogy this suite takes: %s", path, inner);
    avos_csr_release(m);
    return -1;
  }
  return 0;
}

/* The gender of each person: the diagonal of the relationship matrix. 0 ok, -1 out of memory. */
static int set_gender(struct avos_data *d)
{
  d->gender = malloc((size_t)d->a.rows + 1);
  if (!d->gender)
    return -1;
  for (int32_t i = 0; i < d->a.rows; i++)
    d->gender[i] = (int8_t)avos_csr_get(&d->a, i, i);
  return 0;
}

/* The matrix text's header, before the case hashes the file. */
static int avos_check_file(const char *param, const char *path, char *why, size_t len)
{
  (void)param;
  return avos_csr_check_text(path, why, len);
}

static int avos_data_params(struct gr_case *c, uint32_t *filled, char *why, size_t len)
{
  struct avos_csr m;
  if (load_genealogy(c, 8 * (int)type_size((int)c->v[P_TYPE]), &m, why, len))
    return -1;
  c->v[P_N] = m.rows;
  avos_csr_release(&m);
  c->v[P_SHAPE] = AVOS_SHAPE_FILE;
  c->v[P_GENS] = 1;
  c->v[P_COLLAPSE] = c->v[P_CYCLE] = 0;
  c->v[P_DEG] = 1;
  *filled = 1u << P_N | 1u << P_SHAPE | 1u << P_GENS | 1u << P_COLLAPSE | 1u << P_CYCLE |
            1u << P_DEG;
  return 0;
}

static int avos_instance_new(const struct gr_case *c, struct gr_instance **out, char *why, size_t len)
{
  struct gr_instance *inst = gr_instance_alloc(c, sizeof(struct avos_data), why, len);
  if (!inst)
    return -1;
  struct avos_data *d = inst->priv;
  inst->elem_size = 1; /* differences are named by byte offset in the flat output */
  d->op = (int)c->v[P_OP];
  d->shape = (int)c->v[P_SHAPE];
  d->stash_pct = (int)c->v[P_STASH];
  d->type = (enum avos_type)c->v[P_TYPE];
  d->tsize = type_size(d->type);
  d->bits = 8 * (int)d->tsize;
  struct gr_rng r;
  gr_rng_seed(&r, c->seed);
  if (!is_matrix(d->op)) {
    d->n = c->v[P_N];
    size_t bytes = (size_t)(d->n ? d->n : 1) * d->tsize;
    d->x = malloc(bytes);
    d->y = malloc(bytes);
    d->ref_vals = malloc(bytes);
    if (!d->x || !d->y || !d->ref_vals)
      goto out_of_memory;
    for (int64_t i = 0; i < d->n; i++) {
      int64_t x = draw_value(&r, d->bits), y = draw_value(&r, d->bits);
      if (d->op == AVOS_OP_PRODUCT && gr_rng_chance(&r, 0.3)) { /* MSBs at the overflow boundary */
        int bx = (int)gr_rng_range(&r, 0, d->bits - 3);
        int by = d->bits - 1 - bx - (int)gr_rng_range(&r, 0, 1);
        if (by > d->bits - 2)
          by = d->bits - 2;
        x = bx ? value_at_msb(&r, bx) : 1;
        y = value_at_msb(&r, by < 1 ? 1 : by);
      }
      tval_set(d->x, i, d->type, x);
      tval_set(d->y, i, d->type, y);
    }
    elementwise_reference(d, d->ref_vals, d->ref_status);
    inst->out_bytes = AVOS_STATUS_WORDS * sizeof(int64_t) + (size_t)d->n * d->tsize;
    *out = inst;
    return 0;
  }
  if (d->shape == AVOS_SHAPE_RANDOM) {
    if (random_matrix(&d->a, (int32_t)c->v[P_N], (int32_t)c->v[P_DEG], d->bits, &r) ||
        random_matrix(&d->b, (int32_t)c->v[P_N], (int32_t)c->v[P_DEG], d->bits, &r))
      goto out_of_memory;
  } else if (d->shape == AVOS_SHAPE_FILE) {
    if (load_genealogy(c, d->bits, &d->a, why, len))
      goto fail;
    d->b_is_a = 1;
    d->cycle_injected = -1; /* unknown: the reference tells, below */
    if (set_gender(d))
      goto out_of_memory;
  } else {
    struct genealogy_opts o = {d->shape == AVOS_SHAPE_PEDIGREE ? GENEALOGY_PEDIGREE : GENEALOGY_FAMILY,
                               c->v[P_N], (int)c->v[P_GENS], (int)c->v[P_COLLAPSE],
                               (int)c->v[P_CYCLE], c->seed};
    struct genealogy_info info;
    if (genealogy_generate(&o, &d->a, &info, why, len))
      goto fail;
    if (genealogy_validate(&d->a, why, len) || avos_check_parity(&d->a, NULL, why, len)) {
      char inner[GR_WHY_LEN];
      gr_fmt(inner, sizeof inner, "%s", why);
      gr_fmt(why, len, "generated genealogy is not valid: %s", inner);
      goto fail;
    }
    d->b_is_a = 1;
    d->cycle_injected = info.cycle_from >= 0;
    if (set_gender(d))
      goto out_of_memory;
  }
  d->a_tval = typed_values(&d->a, d->type);
  d->b_tval = d->b_is_a ? d->a_tval : typed_values(&d->b, d->type);
  if (!d->a_tval || !d->b_tval)
    goto out_of_memory;
  if (matrix_reference(d, &d->ref, &d->ref_stats, d->ref_status, why, len))
    goto fail;
  if (d->cycle_injected < 0) /* a genealogy from a file has a cycle when the reference finds one */
    d->cycle_injected = d->ref_status[AVOS_ST_CYCLE] >= 0;
  if (d->op == AVOS_OP_SPGEMM)
    d->peer_comparable = structural_nnz(&d->a, d->b_is_a ? &d->a : &d->b) == avos_csr_nnz(&d->ref);
  d->cap = avos_csr_nnz(&d->ref);
  d->off_ptr = AVOS_STATUS_WORDS * sizeof(int64_t);
  d->off_idx = align8(d->off_ptr + ((size_t)d->a.rows + 1) * sizeof(int32_t));
  d->off_val = align8(d->off_idx + (size_t)d->cap * sizeof(int32_t));
  inst->out_bytes = align8(d->off_val + (size_t)d->cap * d->tsize);
  *out = inst;
  return 0;
out_of_memory:
  gr_fmt(why, len, "out of host memory for the case's input");
fail:
  avos_instance_free(inst);
  return -1;
}

/* reference variant */

static enum gr_run_status avos_run_reference(const struct gr_variant *v,
                                             const struct gr_instance *inst, void *out,
                                             struct gr_run_ctx *ctx)
{
  (void)v;
  const struct avos_data *d = inst->priv;
  if (!is_matrix(d->op)) {
    int64_t st[AVOS_STATUS_WORDS];
    elementwise_reference(d, (char *)out + sizeof st, st);
    memcpy(out, st, sizeof st);
    return GR_RUN_OK;
  }
  struct avos_csr res;
  struct avos_stats rs;
  int64_t st[AVOS_STATUS_WORDS];
  if (matrix_reference(d, &res, &rs, st, ctx->why, sizeof ctx->why))
    return GR_RUN_ERROR;
  write_reference_out(inst, out, &res, st);
  avos_csr_release(&res);
  return GR_RUN_OK;
}

/* check */

static const char *status_name(int w)
{
  static const char *const names[] = {"entries", "overflows", "cycle vertex", "squarings",
                                      "fixed point", "pattern-only mark", "first overflow", "spare"};
  return names[w];
}

static int check_status(const struct avos_data *d, const int64_t *st, struct gr_check_report *rep)
{
  for (int w = 0; w < AVOS_STATUS_WORDS; w++) {
    if (w == AVOS_ST_NNZ || st[w] == d->ref_status[w])
      continue;
    const char *tag = w == AVOS_ST_OVERFLOW || w == AVOS_ST_FIRST_OVF ? "overflow"
                      : w == AVOS_ST_CYCLE                            ? "cycle"
                                                                      : "parity";
    return gr_check_fail(rep, tag, "%s: %lld, reference %lld%s", status_name(w), (long long)st[w],
                         (long long)d->ref_status[w],
                         w == AVOS_ST_OVERFLOW ? " (an overflow is reported, never wrapped)" : "");
  }
  return 0;
}

static int check_elementwise(const struct avos_data *d, const void *out,
                             struct gr_check_report *rep)
{
  const int64_t *st = out;
  const char *vals = (const char *)out + AVOS_STATUS_WORDS * sizeof(int64_t);
  const char *opn = d->op == AVOS_OP_SUM ? "avos_sum" : "avos_product";
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < d->n; i++)
    if (tval_get(vals, i, d->type) != tval_get(d->ref_vals, i, d->type) && !bad++)
      first = i;
  if (bad)
    return gr_check_fail(
        rep, "parity",
        "element %lld: %s(%lld, %lld) = %lld, reference %lld; %lld of %lld "
        "elements differ",
        (long long)first, opn, (long long)tval_get(d->x, first, d->type),
        (long long)tval_get(d->y, first, d->type), (long long)tval_get(vals, first, d->type),
        (long long)tval_get(d->ref_vals, first, d->type), (long long)bad, (long long)d->n);
  if (st[AVOS_ST_NNZ] != d->n)
    return gr_check_fail(rep, "parity", "status says %lld elements, the case has %lld",
                         (long long)st[AVOS_ST_NNZ], (long long)d->n);
  if (check_status(d, st, rep))
    return 1;
  /* invariants of the definitions, on the output itself */
  for (int64_t i = 0; i < d->n; i++) {
    int64_t x = tval_get(d->x, i, d->type), y = tval_get(d->y, i, d->type);
    int64_t v = tval_get(vals, i, d->type);
    if (d->op == AVOS_OP_SUM) {
      if ((v != x && v != y) || (x && y && v > (x < y ? x : y)) || (v == 0 && (x || y)))
        return gr_check_fail(rep, "invariant",
                             "element %lld: avos_sum(%lld, %lld) = %lld is not the "
                             "non-zero minimum",
                             (long long)i, (long long)x, (long long)y, (long long)v);
      continue;
    }
    if (v == 0 || x == 0 || y == 0 || y == -1 || y == 1)
      continue;
    int64_t xs = x == -1 ? 1 : x, low = ((int64_t)1 << avos_msb(y)) - 1;
    if ((v & low) != (y & low) || avos_msb(v) != avos_msb(xs) + avos_msb(y) || v < 2)
      return gr_check_fail(rep, "invariant",
                           "element %lld: avos_product(%lld, %lld) = %lld does not "
                           "append y's path to x's",
                           (long long)i, (long long)x, (long long)y, (long long)v);
  }
  return 0;
}

/* The output's matrix as a CSR with int64 values (values converted); 0 ok, -1 out of memory. */
static int out_as_csr(const struct avos_data *d, const void *out, struct avos_csr *m)
{
  const char *o = out;
  int64_t nnz = d->cap;
  if (avos_csr_alloc(m, d->a.rows, d->b_is_a ? d->a.cols : d->b.cols, nnz))
    return -1;
  memcpy(m->indptr, o + d->off_ptr, ((size_t)d->a.rows + 1) * sizeof(int32_t));
  memcpy(m->indices, o + d->off_idx, (size_t)nnz * sizeof(int32_t));
  for (int64_t i = 0; i < nnz; i++)
    m->values[i] = tval_get(o + d->off_val, i, d->type);
  return 0;
}

static int check_matrix(const struct avos_data *d, const void *out, struct gr_check_report *rep)
{
  const int64_t *st = out;
  const char *o = out;
  const int32_t *ptr = (const int32_t *)(o + d->off_ptr);
  const int32_t *idx = (const int32_t *)(o + d->off_idx);
  const char *vals = o + d->off_val;
  const struct avos_csr *ref = &d->ref;
  int pattern_only = st[AVOS_ST_PATTERN] == 1;
  int32_t rows = ref->rows;
  if (st[AVOS_ST_NNZ] != d->cap) {
    int32_t r = 0;
    while (r < rows && ptr[r + 1] - ptr[r] == ref->indptr[r + 1] - ref->indptr[r])
      r++;
    if (r < rows)
      return gr_check_fail(rep, "parity",
                           "%lld entries, reference %lld; row %d has %d entries, reference %d",
                           (long long)st[AVOS_ST_NNZ], (long long)d->cap, r, ptr[r + 1] - ptr[r],
                           ref->indptr[r + 1] - ref->indptr[r]);
    return gr_check_fail(rep, "parity", "%lld entries, reference %lld", (long long)st[AVOS_ST_NNZ],
                         (long long)d->cap);
  }
  if (ptr[0] != 0 || ptr[rows] != d->cap)
    return gr_check_fail(rep, "bounds", "row pointers run from %d to %d, expected 0 to %lld",
                         ptr[0], ptr[rows], (long long)d->cap);
  int64_t bad_rows = 0;
  char first[GR_WHY_LEN] = "";
  for (int32_t r = 0; r < rows; r++) {
    if (ptr[r + 1] < ptr[r] || ptr[r + 1] > d->cap)
      return gr_check_fail(rep, "bounds", "row %d: row pointers %d then %d", r, ptr[r], ptr[r + 1]);
    int32_t n = ptr[r + 1] - ptr[r], rn = ref->indptr[r + 1] - ref->indptr[r];
    for (int32_t k = 0; k < n; k++) {
      int32_t c = idx[ptr[r] + k];
      if (c < 0 || c >= ref->cols || (k && c <= idx[ptr[r] + k - 1]))
        return gr_check_fail(rep, "bounds", "row %d: column %d %s", r, c,
                             c < 0 || c >= ref->cols ? "out of range"
                                                     : "not after the previous one");
    }
    int differs = n != rn;
    for (int32_t k = 0; k < n && !differs; k++) {
      int32_t p = ptr[r] + k, q = ref->indptr[r] + k;
      differs = idx[p] != ref->indices[q] || (!pattern_only && tval_get(vals, p, d->type) != ref->values[q]);
    }
    if (differs && !bad_rows++) {
      int32_t k = 0;
      while (k < n && k < rn && idx[ptr[r] + k] == ref->indices[ref->indptr[r] + k] &&
             (pattern_only || tval_get(vals, ptr[r] + k, d->type) == ref->values[ref->indptr[r] + k]))
        k++;
      if (k < n && k < rn)
        gr_fmt(first, sizeof first, "row %d entry %d: (col %d, %lld), reference (col %d, %lld)", r, k,
               idx[ptr[r] + k], (long long)tval_get(vals, ptr[r] + k, d->type),
               ref->indices[ref->indptr[r] + k], (long long)ref->values[ref->indptr[r] + k]);
      else
        gr_fmt(first, sizeof first, "row %d: %d entries, reference %d", r, n, rn);
    }
  }
  if (bad_rows)
    return gr_check_fail(rep, "parity", "%s; %lld of %d rows differ", first, (long long)bad_rows,
                         rows);
  if (pattern_only)
    return 0;
  if (check_status(d, st, rep))
    return 1;
  /* invariants */
  struct avos_csr m;
  char why[GR_WHY_LEN];
  if (out_as_csr(d, out, &m))
    return gr_check_fail(rep, "memory", "out of host memory for the check");
  int rc = 0;
  if (d->gender && avos_check_parity(&m, d->gender, why, sizeof why))
    rc = gr_check_fail(rep, "invariant", "%s", why);
  if (!rc && d->gender && !d->cycle_injected && st[AVOS_ST_CYCLE] >= 0)
    rc = gr_check_fail(rep, "cycle",
                       "a cycle through vertex %lld is reported in an acyclic genealogy",
                       (long long)st[AVOS_ST_CYCLE]);
  if (!rc && d->op == AVOS_OP_CLOSURE) {
    if (d->cycle_injected && st[AVOS_ST_CYCLE] < 0 && st[AVOS_ST_OVERFLOW] == 0)
      rc = gr_check_fail(rep, "cycle",
                         "the injected cycle is reported neither as a cycle nor as an "
                         "overflow of its paths");
    else if (st[AVOS_ST_FIXED] != 1)
      rc = gr_check_fail(rep, "invariant", "no fixed point after %lld squarings",
                         (long long)st[AVOS_ST_ITER]);
    else {
      struct avos_csr f;
      struct avos_stats fs = {0, -1, 0, 0};
      if (avos_spgemm_parallel(&m, &m, &m, d->bits, &f, &fs, why, sizeof why))
        rc = gr_check_fail(rep, "invariant", "fixed-point check: %s", why);
      else {
        if (!avos_csr_equal(&f, &m))
          rc = gr_check_fail(rep, "invariant",
                             "the closure is not a fixed point: W (+) W (x) W has %lld "
                             "entries, W %lld",
                             (long long)avos_csr_nnz(&f), (long long)avos_csr_nnz(&m));
        avos_csr_release(&f);
      }
    }
  }
  avos_csr_release(&m);
  return rc;
}

static int avos_check(const struct gr_instance *inst, const void *out, struct gr_check_report *rep)
{
  const struct avos_data *d = inst->priv;
  return is_matrix(d->op) ? check_matrix(d, out, rep) : check_elementwise(d, out, rep);
}

/* ---- regimes: the code paths the fuzzer must reach ----------------------------------------- */

static int op_is(const struct gr_case *c, int op) { return c->v[P_OP] == op; }
/* An op's regime takes a case with elements: n = 0 launches nothing. (Counted, an n = 0 sum was
 * once the only sum of v1_unsigned_sum's share in gpu-check, seed 1795970664, and its bug, which
 * any sum with a -1 shows, escaped 6 cases.) */
static int op_runs(const struct gr_case *c, int op)
{
  return op_is(c, op) && c->v[P_N] > 0;
}
GR_REGIME_PREDICATE(r_sum, op_runs(c, AVOS_OP_SUM))
GR_REGIME_PREDICATE(r_product, op_runs(c, AVOS_OP_PRODUCT))
GR_REGIME_PREDICATE(r_spgemm, op_runs(c, AVOS_OP_SPGEMM))
GR_REGIME_PREDICATE(r_closure, op_runs(c, AVOS_OP_CLOSURE))
/* The tiers of v2_warp_hash's products: the driver reports the tiers the symbolic steps listed
 * rows for (ctx->reached). Without the input (inst NULL, the parent steering) a guess from the
 * parameters: the widest product row of a random case is about min(n, deg^2 / 4) entries, a
 * genealogy closure's up to n; a warp holds 128 entries, a block 2048. */
static int64_t row_guess(const struct gr_case *c)
{
  if (!is_matrix((int)c->v[P_OP]))
    return 0;
  int64_t w = c->v[P_SHAPE] == 2 ? c->v[P_DEG] * c->v[P_DEG] / 4
                                 : (op_is(c, AVOS_OP_CLOSURE) ? c->v[P_N] / 2 : 8);
  return w < c->v[P_N] ? w : c->v[P_N];
}
static int r_warp(const struct gr_case *c, const struct gr_instance *inst)
{
  return !inst && row_guess(c) > 32;
}
static int r_block(const struct gr_case *c, const struct gr_instance *inst)
{
  return !inst && row_guess(c) > 128;
}
/* the global tier: measured on the data (the reference's rows), the wide-row random products
 * reach it for sure (about 1,150 rows past 2048 of 4000), the other guesses rarely */
static int r_global(const struct gr_case *c, const struct gr_instance *inst)
{
  return !inst && op_is(c, AVOS_OP_SPGEMM) && wide_rows(c);
}
/* rows of one product (the thread tier runs there, not in closures) wider than its 16 terms */
static int r_group(const struct gr_case *c, const struct gr_instance *inst)
{
  return !inst && op_is(c, AVOS_OP_SPGEMM) && row_guess(c) > 16;
}

/* A result row wider than a warp's hash table (AVOS_WARP_SLOTS in avos_common.cuh): where
 * v1_hash_full_drop loses entries. On the data, the reference's widest row; without it, the
 * guess. Without this regime the fuzzer reached such rows by chance: on an H100 (gpu-check,
 * 150 s) the bug escaped 42 cases, having been caught after 19 to 28 cases in earlier runs. */
#define AVOS_TABLE_SLOTS 256
static int r_full_table(const struct gr_case *c, const struct gr_instance *inst)
{
  if (!is_matrix((int)c->v[P_OP]))
    return 0;
  if (!inst)
    return row_guess(c) > AVOS_TABLE_SLOTS;
  const struct avos_csr *m = &((const struct avos_data *)inst->priv)->ref;
  for (int32_t r = 0; r < m->rows; r++)
    if (m->indptr[r + 1] - m->indptr[r] > AVOS_TABLE_SLOTS)
      return 1;
  return 0;
}

/* Limits: the elementwise grid-stride loop taking a second round (more 16-byte vectors than
 * the capped grid has threads) and past 2^24 elements; a long closure (families of 32+
 * generations: 5+ squarings; their paths overflow int8/int16 values); more global-tier rows than
 * the global grid has blocks (at most one per SM: each block takes several wide rows; the driver
 * reports it). */
static int64_t ew_vectors(const struct gr_case *c) { return c->v[P_N] / (16 >> c->v[P_TYPE]); }
GR_REGIME_PREDICATE(r_ew_strides, !is_matrix((int)c->v[P_OP]) && ew_vectors(c) > NOMINAL_EW_THREADS)
GR_REGIME_PREDICATE(r_ew_2_24, !is_matrix((int)c->v[P_OP]) && c->v[P_N] > (int64_t)1 << 24)
/* v3_split_rows: a squaring's rows outgrow the stash (the driver reports it). The parent's guess,
 * sound by arithmetic: the room is (2 (|A| + |S|) + 1024) stash / 100 (avos_driver.cu,
 * stash_prepare), a squaring's A and S are W, W has every vertex's diagonal (|W| >= n) and the
 * result holds W; with stash <= 10 the room is below |W| once |W| > 171: n >= 256 overflows. */
static int r_stash_full(const struct gr_case *c, const struct gr_instance *inst)
{
  return !inst && op_is(c, AVOS_OP_CLOSURE) && c->v[P_STASH] <= 10 && c->v[P_N] >= 256;
}
/* A long closure: on the data, the reference's closure took 5+ products (the paths of 16+
 * generations) or a path overflowed its type. Without the input, families of 32+ generations
 * of 128+ people: a family of 32 generations of 1 (n = 1, once this regime's case in gpu-check,
 * seed 1795982465) or 32 people is 1 to 9 generations deep, of 128 people 6 to 28, 4 to 6
 * products. */
static int r_long_closure(const struct gr_case *c, const struct gr_instance *inst)
{
  if (!op_runs(c, AVOS_OP_CLOSURE))
    return 0;
  if (inst) {
    const struct avos_data *d = inst->priv;
    return d->ref_status[AVOS_ST_ITER] >= 5 || d->ref_status[AVOS_ST_OVERFLOW] > 0;
  }
  return c->v[P_SHAPE] == AVOS_SHAPE_FAMILY && c->v[P_GENS] >= 32 && c->v[P_N] >= 128;
}

/* An int8/int16 product term whose right operand is 2 or more and whose left is none of -1, 0
 * and 1: the one term of the product that takes the MSB of a small type and shifts by it (a term
 * with an operand in {-1, 0, 1} is decided before; a left operand of -1 or 1 shifted by the
 * right's MSB gives the right operand back, right MSB or wrong). Where v1_msb_small's bug shows,
 * and the only way to it: without this regime its share went to the other regimes' int32 and
 * int64 cases and a 3.5 s product past 2^24, and the bug escaped 6 cases (gpu-check, H200, seed
 * 1795982465). On the data: such a pair of x and y (elementwise), or an entry of A of that kind
 * in a column k whose row of B has a value of 2 or more (a closure: W's parent of a parent, three
 * generations). Without it, the guess: a small type, and n >= 1 (product) or 3 (matrices). */
static int small_left(int64_t v)
{
  return v != 0 && v != 1 && v != -1;
}
static int small_shift_terms(const struct avos_data *d)
{
  if (d->op == AVOS_OP_PRODUCT) {
    for (int64_t i = 0; i < d->n; i++)
      if (small_left(tval_get(d->x, i, d->type)) && tval_get(d->y, i, d->type) >= 2)
        return 1;
    return 0;
  }
  const struct avos_csr *a = &d->a, *b = d->b_is_a ? &d->a : &d->b;
  if (!is_matrix(d->op) || !a->rows || !b->rows)
    return 0;
  uint8_t *col = calloc((size_t)b->rows, 1); /* column k of A has a left operand of that kind */
  int hit = 0;
  if (!col)
    return 0;
  for (int64_t e = 0; e < avos_csr_nnz(a); e++)
    if (small_left(a->values[e]) && a->indices[e] >= 0 && a->indices[e] < b->rows)
      col[a->indices[e]] = 1;
  for (int32_t k = 0; k < b->rows && !hit; k++)
    for (int64_t e = b->indptr[k]; col[k] && e < b->indptr[k + 1] && !hit; e++)
      hit = b->values[e] >= 2;
  free(col);
  return hit;
}
static int r_small_shift(const struct gr_case *c, const struct gr_instance *inst)
{
  if (c->v[P_TYPE] > AVOS_INT16)
    return 0;
  if (inst)
    return small_shift_terms(inst->priv);
  return op_runs(c, AVOS_OP_PRODUCT) ||
         (is_matrix((int)c->v[P_OP]) && (c->v[P_N] >= 3 || c->v[P_SHAPE] == AVOS_SHAPE_FILE));
}

/* The ops each variant has kernels for: the hash-table historical ones are products only, the
 * cuSPARSE peer one product. */
#define AVOS_ELEMENTWISE "v1_unsigned_sum v1_msb_small v2_warp_hash v3_split_rows"
#define AVOS_CLOSURES                                                                              \
  "v1_unsigned_sum v1_msb_small v1_warp_shared_hash v1_hash_full_drop v2_warp_hash v3_split_rows"
#define AVOS_TIERED "v2_warp_hash v3_split_rows" /* the fixed tiers (the driver reports them) */
/* the variants whose product shifts by a small type's MSB with their own code, v1_msb_small's
 * bug included (not v1_unsigned_sum: its bug is in the sum, which its first case must meet) */
#define AVOS_SHIFTS "v1_msb_small v2_warp_hash v3_split_rows"
static const struct gr_regime avos_regimes[] = {
    [AVOS_REGIME_SUM] = {"sum", AVOS_ELEMENTWISE, r_sum, 0},
    [AVOS_REGIME_PRODUCT] = {"product", AVOS_ELEMENTWISE, r_product, 0},
    [AVOS_REGIME_SPGEMM] = {"spgemm", NULL, r_spgemm, 0},
    [AVOS_REGIME_CLOSURE] = {"closure", AVOS_CLOSURES, r_closure, 0},
    [AVOS_REGIME_WARP] = {"warp tier", AVOS_TIERED, r_warp, 0},
    [AVOS_REGIME_BLOCK] = {"block tier", AVOS_TIERED, r_block, 0},
    [AVOS_REGIME_GLOBAL] = {"global tier", AVOS_TIERED, r_global, GR_REGIME_LARGE},
    [AVOS_REGIME_GROUP] = {"8-lane tier", AVOS_TIERED, r_group, 0},
    [AVOS_REGIME_GLOBAL_ROUNDS] = {"global rows > grid", AVOS_TIERED, r_global, GR_REGIME_LARGE},
    [AVOS_REGIME_LONG_CLOSURE] = {"closure of 32+ gens", AVOS_CLOSURES, r_long_closure, 0},
    [AVOS_REGIME_EW_STRIDES] = {"grid-stride rounds", AVOS_ELEMENTWISE, r_ew_strides,
                                GR_REGIME_LIMIT},
    [AVOS_REGIME_EW_2_24] = {"n > 2^24", AVOS_ELEMENTWISE, r_ew_2_24, GR_REGIME_LIMIT},
    [AVOS_REGIME_FULL_TABLE] = {"rows past a warp table", "v1_hash_full_drop", r_full_table,
                                GR_REGIME_EARLY},
    [AVOS_REGIME_STASH_FULL] = {"stash full", "v3_split_rows", r_stash_full, 0},
    [AVOS_REGIME_SMALL_SHIFT] = {"int8/int16 shifts", AVOS_SHIFTS, r_small_shift, GR_REGIME_EARLY},
};

/* table */

static const struct gr_variant avos_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, avos_run_reference, NULL,
     "direct definitions in 64-bit integers, dense row accumulator, repeated squaring"},
    {"v1_unsigned_sum", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(avos_v1_unsigned_sum_launch),
     "avos_sum compares as unsigned without a RED_ONE guard: -1 loses every sum"},
    {"v1_msb_small", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(avos_v1_msb_small_launch),
     "MSB of int8/int16 as 31 - clz(x) - (32 - bits): negative shifts in every small-type product"},
    {"v1_warp_shared_hash", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(avos_v1_warp_shared_hash_launch),
     "thread per row, one shared hash table per warp for its 32 rows, non-atomic accumulation"},
    {"v1_hash_full_drop", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(avos_v1_hash_full_drop_launch),
     "no fallback: a full row table answers 'not new' and entries beyond 256 columns vanish"},
    {"v2_warp_hash", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(avos_v2_warp_hash_launch),
     "a thread per row of <= 16 terms (sorted in registers), then row-private tables (8 lanes, "
     "warp, block, global memory), exact atomic avos_sum, signed sum, right MSB"},
    {"v3_split_rows", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(avos_v3_split_rows_launch),
     "v2's tables; a closure squaring in one pass (whole rows into a stash, copied by the "
     "numeric step), rows routed by terms too, 2048-slot block tables on full grids, terms "
     "placed a warp window at a time, avos_sum by atomicMin"},
    {"cusparse", GR_VARIANT_PEER, GR_VARIANT_GPU | GR_VARIANT_NOSHMEM | GR_VARIANT_HOST_BOUND,
     GR_IF_CUDA(gr_gpu_lifecycle_run), NULL,
     "cuSPARSE SpGEMM, float plus-times on the same pattern (op=spgemm): timed; only its pattern "
     "is "
     "checked, on cases with no zero avos terms"},
};

int avos_peer_takes(const struct gr_instance *inst, char *why, size_t len)
{
  const struct avos_data *d = (const struct avos_data *)inst->priv;
  if (d->op != AVOS_OP_SPGEMM) {
    gr_fmt(why, len, "the cuSPARSE peer computes one product (op=spgemm) only");
    return -1;
  }
  if (!d->peer_comparable) {
    gr_fmt(why, len,
           "the avos product has zero terms here (parity filters, overflow or explicit "
           "zeros): its pattern is not the structural one cuSPARSE computes");
    return -1;
  }
  return 0;
}

/* the variants' host-side answer to "would your run skip this case" (the sanitizer lane's picks) */
static int avos_takes(const struct gr_variant *v, const struct gr_instance *inst, char *why,
                      size_t len)
{
  return v->kind == GR_VARIANT_PEER ? avos_peer_takes(inst, why, len) : 0;
}

/* compute-sanitizer findings examined (gpuregress sanitize; README, who catches what) */
static const char *const avos_sanitizer_explained[] = {
    "v2_warp_hash racecheck avos_symbolic_block_kernel: s_stop is a give-up flag that only ever "
    "goes from 0 to 1 (any thread that sees the table half full sets it); the others read it "
    "volatile to stop early, and the decision that matters is read after __syncthreads: a stale "
    "read costs a few extra inserts (the table has room for twice the limit), never a wrong "
    "result (racecheck on the H100 reports the write/read pair as a hazard)",
    "v3_split_rows racecheck avos_symbolic_block_kernel: the same give-up flag as v2_warp_hash's "
    "(set 0 to 1 by any thread that sees the table half full, read volatile to stop inserting, "
    "decided after __syncthreads)",
    NULL,
};

static const char *const avos_bench_cases[] = {
    "avos op=closure type=int32 n=21000 shape=family gens=12 collapse=90 cycle=0 deg=1 seed=1",
    "avos op=spgemm type=int32 n=1000000 shape=family gens=12 collapse=30 cycle=0 deg=1 seed=1",
    "avos op=sum type=int32 n=67108864 shape=family gens=1 collapse=0 cycle=0 deg=1 seed=1",
    "avos op=product type=int32 n=67108864 shape=family gens=1 collapse=0 cycle=0 deg=1 seed=1",
    "avos op=product type=int64 n=33554432 shape=family gens=1 collapse=0 cycle=0 deg=1 seed=1",
    "avos op=sum type=int8 n=134217728 shape=family gens=1 collapse=0 cycle=0 deg=1 seed=1",
    "avos op=closure type=int32 n=1000000 shape=family gens=12 collapse=30 cycle=0 deg=1 seed=1",
    NULL,
};

const struct gr_algorithm avos_algorithm = {
    .name = "avos",
    .summary = "AVOS semiring of red/black genealogy graphs: elementwise sum/product, CSR x CSR "
               "product, transitive closure",
    .params = avos_params,
    .n_params = sizeof avos_params / sizeof *avos_params,
    .defaults = "stash=100",
    .variants = avos_variants,
    .n_variants = sizeof avos_variants / sizeof *avos_variants,
    .generate = avos_generate,
    .fixup = avos_fixup,
    .validate = avos_validate,
    .device_bytes = avos_device_bytes,
    .instance_new = avos_instance_new,
    .instance_free = avos_instance_free,
    .check = avos_check,
    .work = avos_work,
    .regimes = avos_regimes,
    .takes = avos_takes,
    .sanitizer_explained = avos_sanitizer_explained,
    .n_regimes = sizeof avos_regimes / sizeof *avos_regimes,
    .bench_cases = avos_bench_cases,
    .data_params = avos_data_params,
    .check_file = avos_check_file,
    .gpu = GR_IF_CUDA(&avos_lifecycle),
};
GR_REGISTER_ALGORITHM(avos_algorithm);
