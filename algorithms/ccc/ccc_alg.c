/* The ccc algorithm's table: parameters, variants, generator, instance (features + reference),
 * checker and work model.
 *
 * A case is a features x n table drawn from a few latent variables (so that features correlate
 * and the maximum ARI is not near 0 everywhere): numeric features as continuous values, values
 * with ties (a few levels, constants, fewer distinct values than k), categorical features with up
 * to max_cat codes, missing cells (NaN) in about half the features. With 3 features or more the
 * last one is the first scaled by 2 (same partitions: CCC = 1, checked on the variant's output).
 *
 * Exactness: the GPU counts are exact integers and its ARI is rounded exactly as ari's reference
 * (ccc_ari_exact), so values and part pairs must be bit-identical. The reference covers every
 * pair while pairs x 81 x n stays under CCC_REF_BUDGET, else a seeded sample of pairs; the range,
 * the NaN pattern (a feature with no part of two clusters) and the index are checked on every
 * pair. */
#include "ccc_alg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccc.h"
#include <gpuregress/check.h>
#include <gpuregress/util.h>

#define CCC_REF_BUDGET 2e8 /* part-pair-objects the reference may count per case */

static const char *const values_names[] = {"continuous", "ties", "mixed", NULL};
enum { VALUES_CONTINUOUS, VALUES_TIES, VALUES_MIXED };

enum { P_N, P_FEATURES, P_CAT, P_MAX_CAT, P_MISSING, P_VALUES };
static const struct gr_param_spec ccc_params[] = {
    [P_N] = {"n", GR_PARAM_INT, 1, CCC_MAX_N, NULL, "objects (columns of the table)"},
    [P_FEATURES] = {"features", GR_PARAM_INT, 2, 20000, NULL, "features (rows): pairs = f(f-1)/2"},
    [P_CAT] = {"cat", GR_PARAM_INT, 0, 100, NULL, "percent of the features that are categorical"},
    [P_MAX_CAT] = {"max_cat", GR_PARAM_INT, 1, CCC_MAX_CAT, NULL,
                   "most categories of a categorical feature"},
    [P_MISSING] = {"missing", GR_PARAM_INT, 0, 90, NULL,
                   "percent of missing cells in the features that have some (about half)"},
    [P_VALUES] = {"values", GR_PARAM_ENUM, 0, 0, values_names,
                  "numeric values: continuous, with ties, or a mix with constants"},
};

/* ---- reference ------------------------------------------------------------------------- */

static enum gr_run_status ccc_run_reference(const struct gr_variant *v,
                                            const struct gr_instance *inst, void *out,
                                            struct gr_run_ctx *ctx)
{
  (void)v;
  const struct ccc_data *d = inst->priv;
  if (d->checked != d->pairs) {
    gr_fmt(ctx->why, sizeof ctx->why, "%lld pairs are beyond the CPU reference's budget",
           (long long)d->pairs);
    return GR_RUN_UNSUPPORTED;
  }
  memcpy(out, d->ref, (size_t)d->pairs * sizeof(double));
  memcpy((char *)out + (size_t)d->pairs * sizeof(double), d->ref_idx, (size_t)d->pairs);
  return GR_RUN_OK;
}

static const struct gr_variant ccc_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, ccc_run_reference, NULL,
     "sorted ranks, exact integer contingencies per part pair, ari's reference finish"},
    {"v1_warp_uninit", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(ccc_v1_warp_uninit_launch),
     "warp's table cleared only where lane < cells: stale counts from the previous pair (ccc-gpu)"},
    {"v2_warp", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(ccc_v2_warp_launch),
     "warp per pair, fine-label table + summed-area lookups, exact ARI rounding"},
    {"v3_rows", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(ccc_v3_rows_launch),
     "numeric pairs (n >= 91) by row clusters: conflict-free table reads, cells in registers"},
    {"v4_lean_rows", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(ccc_v4_lean_rows_launch),
     "v3_rows in fewer instructions: 16-byte clears, part-major part-pair sums, no 128-bit divide"},
    {"v5_quick_pick", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(ccc_v5_quick_pick_launch),
     "v4 with a float pre-selection, one IEEE division for the near-maximal ARIs, a 16-bit table"},
    {"v6_paired_bands", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(ccc_v6_paired_bands_launch),
     "v5 with two row clusters a lane (half the part sums' reads), a leaner count, flat estimates"},
};

/* ---- cases ----------------------------------------------------------------------------- */

static double ccc_ref_cost(int64_t n, int64_t features)
{
  return (double)features * (double)(features - 1) / 2 * 81.0 * (double)n;
}

/* More pairs than the persistent grid of any variant has warps (132 SMs x at most 16 blocks of 4
 * warps, nominal: the parent never asks the device): every warp takes several pairs. */
#define CCC_NOMINAL_WARPS (132 * 16 * 4)
/* the generator's cases past it: features above this, n at most CCC_MANY_N */
#define CCC_MANY_FEATURES 131
#define CCC_MANY_N 400

static void ccc_fixup(struct gr_case *c)
{
  /* generated cases stay fully checkable, except those past the persistent grid (many features,
   * n <= CCC_MANY_N): their reference is a seeded sample of pairs (about 2e8 part-pair-objects),
   * every pair's range, NaN pattern and index checked */
  if (c->v[P_FEATURES] >= CCC_MANY_FEATURES && c->v[P_FEATURES] <= 2 * CCC_MANY_FEATURES &&
      c->v[P_N] <= CCC_MANY_N)
    return;
  while (c->v[P_FEATURES] > 2 && ccc_ref_cost(c->v[P_N], c->v[P_FEATURES]) > CCC_REF_BUDGET / 4)
    c->v[P_FEATURES] = c->v[P_FEATURES] * 3 / 4 < 2 ? 2 : c->v[P_FEATURES] * 3 / 4;
}

static void ccc_generate(struct gr_case *c, struct gr_rng *r)
{
  static const int64_t n_edges[] = {1,  2,  3,   4,   6,   7,   15,  16,   31,   32,   33,   90,
                                    91, 99, 100, 511, 512, 513, 891, 1000, 1024, 4096, 20000};
  static const int64_t f_edges[] = {2, 3, 4, 5, 31, 32, 33, 64, 100};
  static const int64_t cat_edges[] = {1, 2, 3, 10, 31, 32, 33, 50, 64};
  c->v[P_N] = gr_rng_boundary(r, 1, 20000, n_edges, sizeof n_edges / sizeof *n_edges, 0.5);
  c->v[P_FEATURES] = gr_rng_boundary(r, 2, 100, f_edges, sizeof f_edges / sizeof *f_edges, 0.5);
  static const int64_t pct[] = {0, 0, 10, 30, 50, 100};
  c->v[P_CAT] = pct[gr_rng_range(r, 0, 5)];
  c->v[P_MAX_CAT] =
      gr_rng_boundary(r, 1, CCC_MAX_CAT, cat_edges, sizeof cat_edges / sizeof *cat_edges, 0.6);
  static const int64_t miss[] = {0, 0, 5, 20, 50, 90};
  c->v[P_MISSING] = miss[gr_rng_range(r, 0, 5)];
  c->v[P_VALUES] = gr_rng_range(r, 0, 2);
  if (gr_rng_chance(r, 0.03)) { /* past the persistent grid: several pairs per warp */
    c->v[P_FEATURES] = gr_rng_range(r, CCC_MANY_FEATURES, CCC_MANY_FEATURES + 40);
    c->v[P_N] =
        gr_rng_range(r, 1, 4) == 1 ? gr_rng_range(r, 2, 90) : gr_rng_range(r, 91, CCC_MANY_N);
  } else if (gr_rng_chance(r, 0.05)) { /* the partition's values past 48 KiB of shared memory */
    c->v[P_N] = gr_rng_range(r, 12289, CCC_MAX_N);
  }
}

/* ---- regimes: the code paths the fuzzer must reach ----------------------------------------- */

/* The partition kernel keeps a feature's n values in shared memory (past 12,288 floats: beyond
 * the default 48 KiB, the opt-in); quantile partitions with kmax = 10 from n >= 91 (fewer
 * below); the pair kernels take categorical pairs (up to 64 categories: a table past 33 x 33
 * fine labels) by the general path, numeric pairs of the kmax = 10 layout by v3's rows path;
 * pairs with a feature that has no valid part are NaN without a table; missing values are
 * skipped per pair; and the persistent grid gives each warp several pairs once there are more
 * pairs than warps. Where the worker has the data, the predicates read it (cat_k, lmax, the
 * reference's valid parts); the parent guesses from the parameters. */
static int numeric_features(const struct gr_case *c, const struct gr_instance *inst)
{
  if (!inst)
    return c->v[P_CAT] < 100 ? 2 : 0;
  const struct ccc_data *d = inst->priv;
  int m = 0;
  for (int f = 0; f < d->features; f++)
    m += d->cat_k[f] == 0;
  return m;
}
static int cat_features(const struct gr_case *c, const struct gr_instance *inst)
{
  if (!inst)
    return c->v[P_CAT] > 0;
  const struct ccc_data *d = inst->priv;
  int m = 0;
  for (int f = 0; f < d->features; f++)
    m += d->cat_k[f] != 0;
  return m;
}
static int r_kmax10(const struct gr_case *c, const struct gr_instance *inst)
{
  return c->v[P_N] >= 91 && numeric_features(c, inst) >= 2;
}
GR_REGIME_PREDICATE(r_small_n, c->v[P_N] < 91)
static int r_categorical(const struct gr_case *c, const struct gr_instance *inst)
{
  return cat_features(c, inst) > 0;
}
static int r_wide_table(const struct gr_case *c, const struct gr_instance *inst)
{
  if (!inst)
    return c->v[P_CAT] > 0 && c->v[P_MAX_CAT] > 32;
  return ((const struct ccc_data *)inst->priv)->lmax > 32;
}
static int r_missing(const struct gr_case *c, const struct gr_instance *inst)
{
  if (!inst || c->v[P_MISSING] == 0)
    return c->v[P_MISSING] > 0;
  const struct ccc_data *d = inst->priv;
  for (size_t i = 0; i < (size_t)d->features * (size_t)d->n; i++)
    if (isnan(d->values[i]))
      return 1;
  return 0;
}
static int r_nan_pair(const struct gr_case *c, const struct gr_instance *inst)
{
  if (!inst)
    return c->v[P_VALUES] == VALUES_MIXED && c->v[P_CAT] < 100 && c->v[P_FEATURES] >= 4;
  const struct ccc_data *d = inst->priv;
  for (int f = 0; f < d->features; f++)
    if (!d->feat[f].valid)
      return 1;
  return 0;
}
GR_REGIME_PREDICATE(r_big_partition, c->v[P_N] > 12288)
GR_REGIME_PREDICATE(r_many_pairs,
                    c->v[P_FEATURES] * (c->v[P_FEATURES] - 1) / 2 > CCC_NOMINAL_WARPS)

static const struct gr_regime ccc_regimes[] = {
    {"numeric pairs, kmax 10", NULL, r_kmax10, 0},
    {"n < 91 (kmax < 10)", NULL, r_small_n, 0},
    {"categorical pairs", NULL, r_categorical, 0},
    {"33+ categories", NULL, r_wide_table, 0},
    {"missing values", NULL, r_missing, 0},
    {"NaN pairs", NULL, r_nan_pair, 0},
    {"partition > 48 KiB", NULL, r_big_partition, GR_REGIME_LARGE},
    {"several pairs a warp", NULL, r_many_pairs, GR_REGIME_LIMIT},
};

static size_t ccc_device_bytes(const struct gr_case *c)
{
  size_t f = (size_t)c->v[P_FEATURES], n = (size_t)c->v[P_N], pairs = f * (f - 1) / 2;
  return f * n * sizeof(float) + f * ccc_label_stride((int)n) + f * 5 + pairs * 9;
}

static void ccc_work(const struct gr_case *c, double *bytes, double *items)
{
  double f = (double)c->v[P_FEATURES], pairs = f * (f - 1) / 2;
  *bytes = f * (double)c->v[P_N] * sizeof(float) + pairs * 9;
  *items = pairs;
}

/* ---- instance -------------------------------------------------------------------------- */

static double ccc_gauss(struct gr_rng *r)
{
  double u = gr_rng_unit(r), v = gr_rng_unit(r);
  return sqrt(-2.0 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

/* A smooth function of one latent value, chosen per feature. */
static double ccc_shape(int kind, double z)
{
  switch (kind) {
  case 0: return z;
  case 1: return z * z;
  case 2: return sin(2.0 * z);
  default: return fabs(z) - 0.5 * z;
  }
}

/* Feature f's values (row x of n) and its cat_k. */
static void ccc_draw_feature(struct ccc_data *d, const struct gr_case *c, const double *z, int f,
                             struct gr_rng *r)
{
  int n = d->n;
  float *x = d->values + (size_t)f * n;
  int lat = (int)gr_rng_range(r, 0, 2), kind = (int)gr_rng_range(r, 0, 3);
  double noise = gr_rng_chance(r, 0.2) ? 0.0 : gr_rng_unit(r) * 2.0;
  d->cat_k[f] = 0;
  if (gr_rng_chance(r, (double)c->v[P_CAT] / 100)) {
    int k = (int)gr_rng_range(r, 1, c->v[P_MAX_CAT]);
    d->cat_k[f] = (uint8_t)k;
    int shift = (int)gr_rng_range(r, 0, k - 1);
    for (int o = 0; o < n; o++) {
      double g = ccc_shape(kind, z[(size_t)lat * n + o]) + noise * ccc_gauss(r);
      int code = (int)(k / (1.0 + exp(-g)));
      code = code >= k ? k - 1 : code;
      if (gr_rng_chance(r, 0.1))
        code = (int)gr_rng_range(r, 0, k - 1);
      x[o] = (float)((code + shift) % k);
    }
  } else {
    int mode = (int)c->v[P_VALUES];
    if (mode == VALUES_MIXED)
      mode = gr_rng_chance(r, 0.5) ? VALUES_CONTINUOUS : 2 + (int)gr_rng_range(r, 0, 2);
    int levels = mode == VALUES_TIES ? (int)gr_rng_range(r, 2, 12)
                 : mode == 2         ? 1
                                     : (int)gr_rng_range(r, 2, 5);
    for (int o = 0; o < n; o++) {
      double g = ccc_shape(kind, z[(size_t)lat * n + o]) + noise * ccc_gauss(r);
      if (mode != VALUES_CONTINUOUS) /* a few levels: ties, a constant, fewer values than k */
        g = floor(levels / (1.0 + exp(-g)));
      x[o] = (float)g;
    }
  }
  if (c->v[P_MISSING] > 0 && gr_rng_chance(r, 0.5))
    for (int o = 0; o < n; o++)
      if (gr_rng_chance(r, (double)c->v[P_MISSING] / 100))
        x[o] = NAN;
}

static void ccc_instance_free(struct gr_instance *inst)
{
  if (!inst)
    return;
  struct ccc_data *d = inst->priv;
  if (d) {
    free(d->values);
    free(d->cat_k);
    free(d->feat);
    free(d->labels);
    free(d->check_pair);
    free(d->ref);
    free(d->ref_idx);
    free(d); /* gr_instance_alloc's private part: its own allocation */
  }
  free(inst);
}

/* The reference CCC of the checked pairs, spread over the CPUs (gr_parallel_for): each pair is
 * ccc_reference_pair's on its own, so the values are the serial loop's bit for bit; a thread has
 * its own scratch. n = 1000, 500 features (124,750 pairs) took 0.80 s on one core of an H100
 * host. 0 ok, -1 out of memory. */
struct ref_job {
  struct ccc_data *d;
  int failed;
};

static void ref_chunk(void *ctx, size_t lo, size_t hi)
{
  struct ref_job *job = ctx;
  struct ccc_data *d = job->d;
  int16_t *scratch = malloc(2 * (size_t)d->n * sizeof *scratch);
  if (!scratch) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  for (size_t s = lo; s < hi; s++) {
    int i, j;
    ccc_pair_of(d->check_pair[s], d->features, &i, &j);
    d->ref[s] = ccc_reference_pair(&d->feat[i], &d->feat[j], d->n, scratch, &d->ref_idx[s]);
  }
  free(scratch);
}

static int ccc_reference_pairs(struct ccc_data *d)
{
  struct ref_job job = {d, 0};
  gr_parallel_for((size_t)d->checked, 64, ref_chunk, &job);
  return job.failed ? -1 : 0;
}

static int ccc_instance_new(const struct gr_case *c, struct gr_instance **out, char *why,
                            size_t len)
{
  struct gr_instance *inst = gr_instance_alloc(c, sizeof(struct ccc_data), why, len);
  if (!inst)
    return -1;
  struct ccc_data *d = inst->priv;
  d->n = (int)c->v[P_N];
  d->features = (int)c->v[P_FEATURES];
  d->pairs = (int64_t)d->features * (d->features - 1) / 2;
  size_t n = (size_t)d->n, F = (size_t)d->features;
  double cost = ccc_ref_cost(d->n, d->features);
  d->checked = cost <= CCC_REF_BUDGET ? d->pairs : (int64_t)(CCC_REF_BUDGET / (81.0 * d->n)) + 1;
  if (d->checked > d->pairs)
    d->checked = d->pairs;
  d->values = malloc(F * n * sizeof *d->values);
  d->cat_k = malloc(F);
  d->feat = calloc(F, sizeof *d->feat);
  d->labels = malloc(F * CCC_MAX_PARTS * n * sizeof *d->labels);
  d->check_pair = malloc((size_t)d->checked * sizeof *d->check_pair);
  d->ref = malloc((size_t)d->checked * sizeof *d->ref);
  d->ref_idx = malloc((size_t)d->checked);
  double *z = malloc(3 * n * sizeof *z);
  if (!d->values || !d->cat_k || !d->feat || !d->labels || !d->check_pair || !d->ref ||
      !d->ref_idx || !z) {
    gr_fmt(why, len, "cannot allocate %zu MiB of host memory for the features",
           (F * n * (4 + 2 * CCC_MAX_PARTS)) >> 20);
    goto out_free;
  }
  struct gr_rng r;
  gr_rng_seed(&r, c->seed);
  for (size_t i = 0; i < 3 * n; i++)
    z[i] = ccc_gauss(&r);
  for (int f = 0; f < d->features; f++)
    ccc_draw_feature(d, c, z, f, &r);
  d->dup = d->features >= 3;
  if (d->dup) {
    d->cat_k[F - 1] = d->cat_k[0];
    for (size_t o = 0; o < n; o++)
      d->values[(F - 1) * n + o] = d->cat_k[0] ? d->values[o] : 2.0f * d->values[o];
  }
  struct ccc_layout lay;
  ccc_layout_init(&lay, d->n);
  d->lmax = lay.L;
  for (size_t f = 0; f < F; f++) {
    if (d->cat_k[f] > d->lmax)
      d->lmax = d->cat_k[f];
    d->feat[f].labels = d->labels + f * CCC_MAX_PARTS * n;
    if (ccc_reference_partition(d->values + f * n, d->n, d->cat_k[f], &d->feat[f])) {
      gr_fmt(why, len, "cannot partition feature %zu", f);
      goto out_free;
    }
  }
  /* the pairs to check: all, or every pair of feature 0 and a seeded sample of the rest */
  if (d->checked == d->pairs) {
    for (int64_t t = 0; t < d->pairs; t++)
      d->check_pair[t] = t;
  } else {
    int64_t k = 0, row0 = d->features - 1 < d->checked / 2 ? d->features - 1 : d->checked / 2;
    for (; k < row0; k++)
      d->check_pair[k] = k;
    int64_t rest = d->checked - row0, span = d->pairs - row0;
    for (int64_t s = 0; s < rest; s++) /* one pair in each of `rest` equal slices */
      d->check_pair[k++] = row0 + s * span / rest + gr_rng_range(&r, 0, span / rest - 1);
  }
  if (ccc_reference_pairs(d)) {
    gr_fmt(why, len, "out of host memory for the reference's scratch");
    goto out_free;
  }
  free(z);
  inst->out_bytes = (size_t)d->pairs * 9;
  inst->elem_size = 1;
  *out = inst;
  return 0;
out_free:
  free(z);
  ccc_instance_free(inst);
  return -1;
}

/* ---- check ----------------------------------------------------------------------------- */

static int ccc_same(double a, double b)
{
  return (isnan(a) && isnan(b)) || a == b;
}

static int ccc_check(const struct gr_instance *inst, const void *out, struct gr_check_report *rep)
{
  const struct ccc_data *d = inst->priv;
  const double *x = out;
  const uint8_t *idx = (const uint8_t *)out + (size_t)d->pairs * sizeof(double);
  /* every pair: range, NaN pattern, index */
  int64_t t = 0;
  for (int i = 0; i < d->features; i++)
    for (int j = i + 1; j < d->features; j++, t++) {
      const struct ccc_ref_feature *a = &d->feat[i], *b = &d->feat[j];
      int none = !a->valid || !b->valid;
      if (none != isnan(x[t]) || (!none && !(x[t] >= 0 && x[t] <= 1)))
        return gr_check_fail(rep, "bounds", "pair %lld (features %d, %d): ccc = %.17g, expected %s",
                             (long long)t, i, j, x[t], none ? "NaN" : "a value in [0, 1]");
      int p = idx[t] >> 4, q = idx[t] & 15;
      if (none ? idx[t] != CCC_NO_INDEX
               : (p >= a->parts || q >= b->parts || !(a->valid >> p & 1) || !(b->valid >> q & 1)))
        return gr_check_fail(rep, "bounds",
                             "pair %lld (features %d, %d): part pair 0x%02x is not valid",
                             (long long)t, i, j, idx[t]);
    }
  /* the checked pairs: bit-identical value and part pair */
  int64_t bad = 0, first = -1;
  for (int64_t s = 0; s < d->checked; s++) {
    int64_t p = d->check_pair[s];
    if (!ccc_same(x[p], d->ref[s]) || idx[p] != d->ref_idx[s]) {
      if (first < 0)
        first = s;
      bad++;
    }
  }
  if (bad) {
    int64_t p = d->check_pair[first];
    int i, j;
    ccc_pair_of(p, d->features, &i, &j);
    rep->err = fabs(x[p] - d->ref[first]);
    return gr_check_fail(rep, "parity",
                         "%lld of %lld checked pairs differ; first pair %lld (features %d, %d): "
                         "ccc %.17g part pair 0x%02x, reference %.17g part pair 0x%02x",
                         (long long)bad, (long long)d->checked, (long long)p, i, j, x[p], idx[p],
                         d->ref[first], d->ref_idx[first]);
  }
  if (d->dup && d->feat[0].valid) {
    int64_t p = d->features - 2; /* pair (0, features-1) */
    if (x[p] != 1.0)
      return gr_check_fail(rep, "invariant",
                           "feature 0 against itself scaled by 2: ccc = %.17g, not 1", x[p]);
  }
  return 0;
}

/* The timing sweep: small shapes, a 2,000-feature slice of the anchor, the 1,000 x 20,000 shape,
 * and the anchor itself (20,000 features x 1,000 objects, 2e8 pairs: ccc-gpu's 86 s on an RTX
 * 4090), last so that the quick sweep never runs it. */
static const char *const ccc_bench_cases[] = {
    "ccc n=1000 features=500 cat=0 max_cat=1 missing=0 values=continuous seed=1",
    "ccc n=891 features=500 cat=30 max_cat=50 missing=20 values=mixed seed=1",
    "ccc n=1000 features=2000 cat=0 max_cat=1 missing=0 values=continuous seed=1",
    "ccc n=20000 features=1000 cat=0 max_cat=1 missing=0 values=continuous seed=1",
    "ccc n=1000 features=20000 cat=0 max_cat=1 missing=0 values=continuous seed=1",
    NULL,
};

const struct gr_algorithm ccc_algorithm = {
    .name = "ccc",
    .summary = "Clustermatch Correlation Coefficient of every feature pair (partitions + max ARI)",
    .params = ccc_params,
    .n_params = sizeof ccc_params / sizeof *ccc_params,
    .variants = ccc_variants,
    .n_variants = sizeof ccc_variants / sizeof *ccc_variants,
    .generate = ccc_generate,
    .fixup = ccc_fixup,
    .device_bytes = ccc_device_bytes,
    .instance_new = ccc_instance_new,
    .instance_free = ccc_instance_free,
    .check = ccc_check,
    .work = ccc_work,
    .regimes = ccc_regimes,
    .n_regimes = sizeof ccc_regimes / sizeof *ccc_regimes,
    .bench_cases = ccc_bench_cases,
    .gpu = GR_IF_CUDA(&ccc_lifecycle),
};
GR_REGISTER_ALGORITHM(ccc_algorithm);
