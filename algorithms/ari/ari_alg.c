/* The ari algorithm's table: parameters, variants, boundary-biased generator, instance (labels +
 * reference), checker and work model.
 *
 * A case is P pairs of partitions of n objects with k_a and k_b clusters, drawn from one label
 * distribution. When P >= 4 the last three pairs are derived from pair 0, so the invariants are
 * checked on the variant's own output in the same launch: pair P-3 is (b0, a0) (symmetry),
 * pair P-2 is (a0 relabelled by a permutation, b0) (relabelling), pair P-1 is (a0, a0) (= 1).
 * Pair 0 then uses min(k_a, k_b) clusters in both partitions so that it can be swapped.
 *
 * Tolerance: 1e-12 absolute. The GPU counts are exact 64-bit integers; only the products
 * tp*tn, fn*fp and the denominator are formed in double, each within 2^-53 relative, and both
 * products are at most half the denominator, so the ARI is within ~1e-15 of the exact value. The
 * historical bug is off by 1e-3 to 1e1. */
#include "ari_alg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ari.h"
#include <gpuregress/check.h>
#include <gpuregress/util.h>
#include "ari_ref.h"

#define ARI_TOL 1e-12

/* Nominal per-block shared-memory limit used for the generator's anchors (H100/H200: 227 KiB).
 * The generator runs in the parent, which never touches CUDA; the variants query the real one. */
#define NOMINAL_SMEM_CELLS (232448 / 4)

static const char *const dist_names[] = {"uniform", "skewed", "singletons", "one_cluster",
                                         "all_distinct", NULL};
enum { DIST_UNIFORM, DIST_SKEWED, DIST_SINGLETONS, DIST_ONE, DIST_DISTINCT };

enum { P_N, P_KA, P_KB, P_PAIRS, P_DIST, P_CHUNK };
static const struct gr_param_spec ari_params[] = {
    [P_N] = {"n", GR_PARAM_INT, 1, 100000000, NULL, "objects per partition"},
    [P_KA] = {"k_a", GR_PARAM_INT, 1, 32767, NULL, "clusters of the first partition of each pair"},
    [P_KB] = {"k_b", GR_PARAM_INT, 1, 32767, NULL, "clusters of the second partition"},
    [P_PAIRS] = {"pairs", GR_PARAM_INT, 1, 1000000, NULL, "pairs in one launch (one block each)"},
    [P_DIST] = {"dist", GR_PARAM_ENUM, 0, 0, dist_names, "label distribution"},
    [P_CHUNK] = {"chunk", GR_PARAM_INT, 0, 1000000, NULL,
                 "most pairs per v3_global launch (0: what its 256 MiB scratch holds)"},
};

/* reference "variant": the CPU reference itself, checked against the invariants */
static enum gr_run_status ari_run_reference(const struct gr_variant *v,
                                            const struct gr_instance *inst, void *out,
                                            struct gr_run_ctx *ctx)
{
  (void)v;
  const struct ari_data *d = inst->priv;
  double *o = out;
  if (d->templates) { /* a repeated instance: the reference of 2^31 labels would take a minute */
    gr_fmt(ctx->why, sizeof ctx->why,
           "%d pairs repeat %d drawn ones: beyond what the CPU reference computes per case",
           d->pairs, d->templates);
    return GR_RUN_UNSUPPORTED;
  }
  for (int p = 0; p < d->pairs; p++)
    o[p] = ari_reference(d->a + (size_t)p * d->n, d->b + (size_t)p * d->n, (size_t)d->n, d->k_a,
                         d->k_b);
  return GR_RUN_OK;
}

static const struct gr_variant ari_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, ari_run_reference, NULL,
     "exact 64-bit contingency, 128-bit pair-confusion products"},
    {"v1_shared_uninit", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(ari_v1_shared_uninit_launch),
     "shared table zeroed only where tid < k_a*k_b: stale counts from earlier blocks (ccc-gpu)"},
    {"v2_shared", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(ari_v2_shared_launch),
     "shared table zeroed by a loop strided by the block size (the fix)"},
    {"v3_global", GR_VARIANT_FIXED, GR_VARIANT_GPU | GR_VARIANT_NOSHMEM,
     GR_IF_CUDA(gr_gpu_lifecycle_run), GR_GPU(ari_v3_global_launch),
     "table in global memory for any k, pairs chunked to a scratch budget"},
    {"dispatch", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(ari_launch),
     "the public entry: v2_shared when the table fits the device's shared memory, else v3_global"},
};

/* Beyond this many labels (pairs * n) an instance repeats ARI_TEMPLATES drawn pairs instead of
 * drawing every one (see ari_instance_new): the reference costs the templates only, the host
 * holds the templates only, and the device replicates them (ari_driver.cu). Only the cases past
 * 2^31 labels are that large (fixup keeps the others under 4e7, the timing sweep under 2^27). */
#define ARI_REPEAT_LABELS ((int64_t)1 << 30)
#define ARI_TEMPLATES 16
/* The limit case past 2^31 labels: this many pairs of n = ARI_HUGE_N */
#define ARI_HUGE_N 65600
#define ARI_HUGE_PAIRS 32750

static void ari_fixup(struct gr_case *c)
{
  /* keep a generated case cheap enough for the CPU reference: pairs * (n + cells) <= 4e7, except
   * the repeated cases past 2^31 labels (drawn as such: pairs * n > 2^31, cells <= 1024), whose
   * reference costs 16 pairs */
  int64_t per_pair = c->v[P_N] + c->v[P_KA] * c->v[P_KB];
  if (c->v[P_PAIRS] * c->v[P_N] > ((int64_t)1 << 31) && c->v[P_KA] * c->v[P_KB] <= 1024 &&
      c->v[P_PAIRS] * c->v[P_N] <= ((int64_t)1 << 31) + ((int64_t)1 << 27))
    return;
  int64_t max_pairs = 40000000 / (per_pair > 0 ? per_pair : 1);
  if (max_pairs < 1)
    max_pairs = 1;
  if (c->v[P_PAIRS] > max_pairs)
    c->v[P_PAIRS] = max_pairs;
}

static void ari_generate(struct gr_case *c, struct gr_rng *r)
{
  static const int64_t n_edges[] = {1, 2, 3, 31, 32, 33, 127, 128, 129, 891, 1000, 4096, 65536, 100000};
  static const int64_t pair_edges[] = {1, 2, 3, 4, 5, 132, 264, 2000, 4000};
  c->v[P_N] = gr_rng_boundary(r, 1, 100000, n_edges, sizeof n_edges / sizeof *n_edges, 0.5);
  int mode = (int)gr_rng_range(r, 0, 9);
  if (mode < 4) { /* table around the block size */
    int64_t ka = gr_rng_range(r, 1, ARI_BLOCK);
    c->v[P_KA] = ka;
    c->v[P_KB] = (ARI_BLOCK + ka - 1) / ka + gr_rng_range(r, -1, 1);
  } else if (mode < 6) { /* table around the shared-memory capacity */
    int64_t ka = gr_rng_range(r, 100, 1000);
    c->v[P_KA] = ka;
    c->v[P_KB] = NOMINAL_SMEM_CELLS / ka + gr_rng_range(r, -1, 1);
  } else {
    static const int64_t k_edges[] = {1, 2, 11, 12, 20, 50, 128, 241, 1000};
    c->v[P_KA] = gr_rng_boundary(r, 1, 1000, k_edges, sizeof k_edges / sizeof *k_edges, 0.4);
    c->v[P_KB] = gr_rng_boundary(r, 1, 1000, k_edges, sizeof k_edges / sizeof *k_edges, 0.4);
  }
  if (gr_rng_chance(r, 0.5)) { /* swap so either side may be the large one */
    int64_t t = c->v[P_KA];
    c->v[P_KA] = c->v[P_KB];
    c->v[P_KB] = t;
  }
  for (int i = P_KA; i <= P_KB; i++)
    c->v[i] = c->v[i] < 1 ? 1 : c->v[i] > 1000 ? 1000 : c->v[i];
  c->v[P_PAIRS] =
      gr_rng_boundary(r, 1, 4000, pair_edges, sizeof pair_edges / sizeof *pair_edges, 0.5);
  c->v[P_DIST] = gr_rng_chance(r, 0.4) ? DIST_UNIFORM : gr_rng_range(r, 1, 4);
  /* v3's chunking: a 256 MiB scratch needs pairs * k_a * k_b * 4 bytes beyond what the CPU
   * reference affords, so a small chunk stands in for it: around the pair count, and tiny */
  /* a few large ones, past the limits: n > 65,536 (n^2 and a cell's square past 2^32), one
   * cell of 65,536+ objects, 65,536+ pairs (a launch grid past 65,535 blocks), pairs * n labels
   * past 2^24 and past 2^31 (int offsets; repeated pairs, see ari_instance_new) */
  if (gr_rng_chance(r, 0.05)) {
    /* the case past 2^31 labels costs seconds (8.6 GB of labels): one large case in 40 */
    switch (gr_rng_chance(r, 0.025) ? 4 : (int)gr_rng_range(r, 0, 3)) {
    case 0: /* n past 65,536 */
      c->v[P_N] = gr_rng_range(r, 65537, 140000);
      c->v[P_PAIRS] = gr_rng_range(r, 1, 64);
      break;
    case 1: /* one cell of more than 65,535 objects */
      c->v[P_N] = gr_rng_range(r, 65537, 140000);
      c->v[P_PAIRS] = gr_rng_range(r, 1, 32);
      c->v[P_DIST] = gr_rng_chance(r, 0.7) ? DIST_ONE : DIST_SINGLETONS;
      break;
    case 2: /* a grid past 65,535 blocks */
      c->v[P_PAIRS] = gr_rng_range(r, 65536, 70000);
      c->v[P_N] = gr_rng_range(r, 1, 400);
      c->v[P_KA] = gr_rng_range(r, 1, 12);
      c->v[P_KB] = gr_rng_range(r, 1, 12);
      break;
    case 3: /* past 2^24 labels */
      c->v[P_N] = gr_rng_range(r, 4000, 20000);
      c->v[P_PAIRS] = ((int64_t)1 << 24) / c->v[P_N] + gr_rng_range(r, 1, 200);
      c->v[P_KA] = gr_rng_range(r, 1, 60);
      c->v[P_KB] = gr_rng_range(r, 1, 60);
      break;
    default: /* past 2^31 labels */
      c->v[P_N] = ARI_HUGE_N;
      c->v[P_PAIRS] = ARI_HUGE_PAIRS + gr_rng_range(r, 0, 16);
      c->v[P_KA] = gr_rng_range(r, 1, 32);
      c->v[P_KB] = gr_rng_range(r, 1, 32);
      c->v[P_DIST] = gr_rng_range(r, DIST_UNIFORM, DIST_SINGLETONS);
      break;
    }
    c->v[P_CHUNK] = 0;
    return;
  }
  if (gr_rng_chance(r, 0.3)) {
    int64_t p = c->v[P_PAIRS];
    int64_t picks[] = {1, 2, 3, p - 1, p / 2 + 1, p, gr_rng_range(r, 1, p)};
    c->v[P_CHUNK] = picks[gr_rng_range(r, 0, 6)];
    if (c->v[P_CHUNK] < 1)
      c->v[P_CHUNK] = 1;
  }
}

/* ---- regimes: the code paths the fuzzer must reach ----------------------------------------- */

static int64_t cells(const struct gr_case *c) { return c->v[P_KA] * c->v[P_KB]; }

/* pairs per v3 launch, as v3_global computes it */
static int64_t v3_chunk(const struct gr_case *c)
{
  int64_t chunk = (int64_t)ARI_GLOBAL_SCRATCH_BYTES / (cells(c) * 4);
  chunk = chunk < 1 ? 1 : chunk;
  return c->v[P_CHUNK] > 0 && c->v[P_CHUNK] < chunk ? c->v[P_CHUNK] : chunk;
}

GR_REGIME_PREDICATE(small_table, cells(c) <= ARI_BLOCK)
GR_REGIME_PREDICATE(large_table, cells(c) > ARI_BLOCK && cells(c) <= NOMINAL_SMEM_CELLS)
GR_REGIME_PREDICATE(global_table, cells(c) > NOMINAL_SMEM_CELLS)
GR_REGIME_PREDICATE(one_chunk, c->v[P_PAIRS] <= v3_chunk(c))
GR_REGIME_PREDICATE(chunks, c->v[P_PAIRS] > v3_chunk(c))
static int global_chunks(const struct gr_case *c, const struct gr_instance *inst)
{
  return global_table(c, inst) && chunks(c, inst);
}

/* v1/v2: the zeroing loop runs once (table within the block) or strides; v3: one launch or a
 * chunk loop; dispatch: which of the two it takes, and v3's chunk loop behind it. The shared
 * capacity is the nominal H100/H200 one (the parent never asks the device). */
/* The limits: n past 65,536 (n^2, tn and the squared sums need 64 bits); a cell of 65,536
 * objects or more (a 16-bit count; its square past 2^32); a launch of 65,536 blocks or more
 * (one per pair: the 65,535 cap of gridDim.y and z); pairs * n labels past 2^24 and past 2^31
 * (32-bit offsets into the labels). */
static int64_t labels(const struct gr_case *c) { return c->v[P_PAIRS] * c->v[P_N]; }
static int big_cell(const struct gr_case *c, const struct gr_instance *inst)
{
  (void)inst;
  int64_t n = c->v[P_N], d = c->v[P_DIST];
  return n > 65536 && (d == DIST_ONE || cells(c) == 1 ||
                       (d == DIST_SINGLETONS && n - c->v[P_KA] - c->v[P_KB] > 65536));
}
GR_REGIME_PREDICATE(n_64k, c->v[P_N] > 65536)
GR_REGIME_PREDICATE(grid_64k, c->v[P_PAIRS] > 65535)
GR_REGIME_PREDICATE(labels_2_24, labels(c) > (int64_t)1 << 24)
GR_REGIME_PREDICATE(labels_2_31, labels(c) > (int64_t)1 << 31)

static const struct gr_regime ari_regimes[] = {
    {"table <= block", "v1_shared_uninit v2_shared dispatch", small_table, 0},
    {"table > block", "v1_shared_uninit v2_shared dispatch", large_table, 0},
    {"one chunk", "v3_global", one_chunk, 0},
    {"several chunks", "v3_global", chunks, 0},
    {"global table", "dispatch", global_table, 0},
    {"global, several chunks", "dispatch", global_chunks, 0},
    {"n > 65536", NULL, n_64k, 0},
    {"a cell of 65536+", NULL, big_cell, GR_REGIME_LIMIT},
    {"65536+ blocks", NULL, grid_64k, GR_REGIME_LIMIT},
    {"labels > 2^24", NULL, labels_2_24, GR_REGIME_LARGE},
    {"labels > 2^31", NULL, labels_2_31, GR_REGIME_LIMIT},
};

static int ari_validate(const struct gr_case *c, char *why, size_t len)
{
  if (c->v[P_PAIRS] * c->v[P_N] > (int64_t)1 << 40) {
    gr_fmt(why, len, "'pairs*n' = %lld labels is beyond what one launch can address",
           (long long)(c->v[P_PAIRS] * c->v[P_N]));
    return -1;
  }
  return 0;
}

static size_t ari_device_bytes(const struct gr_case *c)
{
  size_t labels = (size_t)c->v[P_PAIRS] * (size_t)c->v[P_N] * 2 * sizeof(int16_t);
  size_t table = (size_t)c->v[P_KA] * (size_t)c->v[P_KB] * sizeof(unsigned);
  size_t scratch = table > ARI_GLOBAL_SCRATCH_BYTES ? table : ARI_GLOBAL_SCRATCH_BYTES;
  return labels + (size_t)c->v[P_PAIRS] * sizeof(double) + scratch;
}

static void ari_work(const struct gr_case *c, double *bytes, double *items)
{
  double labels = (double)c->v[P_PAIRS] * (double)c->v[P_N];
  *bytes = labels * 2 * sizeof(int16_t) + (double)c->v[P_PAIRS] * sizeof(double);
  *items = labels;
}

/* Labels of one partition of n objects into k clusters drawn from dist. */
static void draw_labels(int16_t *x, int n, int k, int dist, struct gr_rng *r)
{
  switch (dist) {
  case DIST_UNIFORM:
    for (int i = 0; i < n; i++)
      x[i] = (int16_t)gr_rng_range(r, 0, k - 1);
    return;
  case DIST_SKEWED: /* cluster j with probability ~ decreasing like u^3 */
    for (int i = 0; i < n; i++) {
      double u = gr_rng_unit(r);
      x[i] = (int16_t)(int)(u * u * u * k);
    }
    return;
  case DIST_SINGLETONS: /* clusters 1..k-1 hold one object each, the rest is cluster 0 */
  case DIST_DISTINCT:   /* round-robin: every cluster as equal as n allows */
    for (int i = 0; i < n; i++)
      x[i] = (int16_t)(dist == DIST_DISTINCT ? i % k : (i + 1 < k ? i + 1 : 0));
    for (int i = n - 1; i > 0; i--) {
      int j = (int)gr_rng_range(r, 0, i);
      int16_t t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
    return;
  case DIST_ONE:
  default:
    memset(x, 0, (size_t)n * sizeof *x);
    return;
  }
}

static void ari_instance_free(struct gr_instance *inst)
{
  if (!inst)
    return;
  struct ari_data *d = inst->priv;
  if (d) {
    free(d->a);
    free(d->b);
    free(d->ref);
    free(d);
  }
  free(inst);
}

static int ari_instance_new(const struct gr_case *c, struct gr_instance **out, char *why, size_t len)
{
  struct gr_instance *inst = gr_instance_alloc(c, sizeof(struct ari_data), why, len);
  if (!inst)
    return -1;
  struct ari_data *d = inst->priv;
  d->n = (int)c->v[P_N];
  d->k_a = (int)c->v[P_KA];
  d->k_b = (int)c->v[P_KB];
  d->pairs = (int)c->v[P_PAIRS];
  d->chunk = (int)c->v[P_CHUNK];
  size_t labels = (size_t)d->pairs * (size_t)d->n;
  d->derived = d->pairs >= 4;
  /* past ARI_REPEAT_LABELS labels only ARI_TEMPLATES pairs are drawn and the body repeats them
   * (pair p is template p % ARI_TEMPLATES, replicated on the device): every pair is computed and
   * compared, a repeat against its template's reference (a check by periodicity) */
  if ((int64_t)labels > ARI_REPEAT_LABELS && ari_body_pairs(d) > ARI_TEMPLATES)
    d->templates = ARI_TEMPLATES;
  size_t stored = ari_stored_pairs(d) * (size_t)d->n;
  d->a = malloc((stored ? stored : 1) * sizeof *d->a);
  d->b = malloc((stored ? stored : 1) * sizeof *d->b);
  d->ref = malloc((size_t)d->pairs * sizeof *d->ref);
  if (!d->a || !d->b || !d->ref) {
    gr_fmt(why, len, "cannot allocate %zu MiB of host memory for the labels",
           (stored * 4) >> 20);
    ari_instance_free(inst);
    return -1;
  }
  struct gr_rng r;
  gr_rng_seed(&r, c->seed);
  int dist = (int)c->v[P_DIST], n = d->n;
  int drawn = d->templates ? d->templates : ari_body_pairs(d);
  for (int p = 0; p < drawn; p++) {
    int ka = d->k_a, kb = d->k_b;
    if (p == 0 && d->derived)
      ka = kb = d->k_a < d->k_b ? d->k_a : d->k_b;
    draw_labels(d->a + (size_t)p * n, n, ka, dist, &r);
    draw_labels(d->b + (size_t)p * n, n, kb, dist, &r);
  }
  if (d->derived) {
    int P = d->pairs, k = d->k_a < d->k_b ? d->k_a : d->k_b;
    int16_t *a0 = d->a, *b0 = d->b;
    int16_t perm[32768];
    for (int i = 0; i < k; i++)
      perm[i] = (int16_t)i;
    for (int i = k - 1; i > 0; i--) {
      int j = (int)gr_rng_range(&r, 0, i);
      int16_t t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    size_t s3 = ari_stored_pair(d, P - 3) * n, s2 = ari_stored_pair(d, P - 2) * n,
           s1 = ari_stored_pair(d, P - 1) * n;
    for (int i = 0; i < n; i++) {
      d->a[s3 + i] = b0[i];
      d->b[s3 + i] = a0[i];
      d->a[s2 + i] = perm[a0[i]];
      d->b[s2 + i] = b0[i];
      d->a[s1 + i] = a0[i];
      d->b[s1 + i] = a0[i];
    }
  }
  for (int p = 0; p < d->pairs; p++) {
    size_t at = ari_stored_pair(d, p);
    if (d->templates && (int)at != p && p < ari_body_pairs(d)) /* a repeat */
      d->ref[p] = d->ref[at];
    else
      d->ref[p] = ari_reference(d->a + at * n, d->b + at * n, (size_t)n, d->k_a, d->k_b);
  }
  inst->out_bytes = (size_t)d->pairs * sizeof(double);
  inst->elem_size = sizeof(double);
  *out = inst;
  return 0;
}

static int ari_check(const struct gr_instance *inst, const void *out, struct gr_check_report *rep)
{
  const struct ari_data *d = inst->priv;
  const double *x = out;
  if (gr_check_range_f64(x, d->ref, (size_t)d->pairs, -0.5 - ARI_TOL, 1.0 + ARI_TOL, "pair", rep))
    return 1;
  if (gr_check_close_f64(x, d->ref, (size_t)d->pairs, ARI_TOL, 0.0, "pair", rep))
    return 1;
  if (d->derived) {
    int P = d->pairs;
    if (x[P - 3] != x[0])
      return gr_check_fail(rep, "invariant",
                           "symmetry: ARI(b0, a0) = %.17g but ARI(a0, b0) = %.17g", x[P - 3], x[0]);
    if (x[P - 2] != x[0])
      return gr_check_fail(rep, "invariant",
                           "relabelling: ARI(perm(a0), b0) = %.17g but ARI(a0, b0) = %.17g",
                           x[P - 2], x[0]);
    if (x[P - 1] != 1.0)
      return gr_check_fail(rep, "invariant", "ARI(a0, a0) = %.17g, not 1", x[P - 1]);
  }
  return 0;
}

/* The timing sweep: the CCC shape (n = 1000 objects, thousands of pairs, k up to 10 and the
 * categorical k = 50), larger n, and a table only v3_global can hold. */
static const char *const ari_bench_cases[] = {
    "ari n=1000 k_a=10 k_b=10 pairs=4000 dist=uniform seed=1",
    "ari n=1000 k_a=50 k_b=50 pairs=4000 dist=uniform seed=1",
    "ari n=1000 k_a=10 k_b=10 pairs=64000 dist=uniform seed=1",
    "ari n=100000 k_a=10 k_b=10 pairs=1000 dist=uniform seed=1",
    "ari n=100000 k_a=300 k_b=300 pairs=264 dist=uniform seed=1",
    NULL,
};

const struct gr_algorithm ari_algorithm = {
    .name = "ari",
    .summary = "Adjusted Rand Index of many partition pairs in one launch (the CCC building block)",
    .params = ari_params,
    .n_params = sizeof ari_params / sizeof *ari_params,
    .variants = ari_variants,
    .n_variants = sizeof ari_variants / sizeof *ari_variants,
    .generate = ari_generate,
    .fixup = ari_fixup,
    .validate = ari_validate,
    .device_bytes = ari_device_bytes,
    .instance_new = ari_instance_new,
    .instance_free = ari_instance_free,
    .check = ari_check,
    .work = ari_work,
    .regimes = ari_regimes,
    .n_regimes = sizeof ari_regimes / sizeof *ari_regimes,
    .defaults = "chunk=0",
    .bench_cases = ari_bench_cases,
    .gpu = GR_IF_CUDA(&ari_lifecycle),
};
GR_REGISTER_ALGORITHM(ari_algorithm);
