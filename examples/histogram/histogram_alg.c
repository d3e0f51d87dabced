/* SPDX-License-Identifier: Apache-2.0 */
/* The example algorithm's table: a histogram of n 32-bit keys into `bins` counts.
 *
 *   parameters   n (keys), bins, dist (uniform | skewed | one_bin: how the keys spread)
 *   variants     reference (CPU), v1_shared_u16 (historical: 16-bit counters wrap past 65535
 *                hits of one bin in one block), v2_shared and v3_global (fixed)
 *   generator    boundary-biased: n near the chunk and the 16-bit limits, bins near the block
 *                size and the shared-memory limits
 *   regimes      the code paths the fuzzer must reach (one block or several, bins beyond the
 *                block, a counter past 65535, bins beyond shared memory)
 *   check        the counts sum to n, then equal the reference's
 *   timing       a sweep of four sizes (gpuregress bench)
 * It registers itself (GR_REGISTER_ALGORITHM at the end): no list to edit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/check.h>
#include <gpuregress/gpuregress.h>

#include "histogram.h"
#include "histogram_alg.h"
#include "histogram_ref.h"

enum { P_N, P_BINS, P_DIST };
enum { DIST_UNIFORM, DIST_SKEWED, DIST_ONE_BIN };

static const char *const dists[] = {"uniform", "skewed", "one_bin", NULL};

static const struct gr_param_spec hist_params[] = {
    {"n", GR_PARAM_INT, 1, 1 << 24, NULL, "keys"},
    {"bins", GR_PARAM_INT, 1, HIST_MAX_BINS, NULL, "counts (keys are in [0, bins))"},
    {"dist", GR_PARAM_ENUM, 0, 0, dists,
     "uniform; skewed (bin ~ u^4 * bins: a few hot bins); one_bin (every key is bins / 2)"},
};

static enum gr_run_status hist_run_reference(const struct gr_variant *v,
                                             const struct gr_instance *inst, void *out,
                                             struct gr_run_ctx *ctx)
{
  (void)v;
  (void)ctx;
  const struct hist_data *d = inst->priv;
  histogram_ref(d->keys, d->n, d->bins, out);
  return GR_RUN_OK;
}

static const struct gr_variant hist_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, hist_run_reference, NULL, "one loop on the CPU"},
    {"v1_shared_u16", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(hist_v1_shared_u16_launch),
     "two 16-bit counters per shared word: past 65535 hits of a bin in a block the carry hits "
     "its neighbour"},
    {"v2_shared", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(hist_v2_shared_launch), "one 32-bit shared counter per bin, up to 8192 bins (the fix)"},
    {"v3_global", GR_VARIANT_FIXED, GR_VARIANT_GPU | GR_VARIANT_NOSHMEM,
     GR_IF_CUDA(gr_gpu_lifecycle_run), GR_GPU(hist_v3_global_launch),
     "global atomics, any number of bins"},
};

static void hist_generate(struct gr_case *c, struct gr_rng *r)
{
  static const int64_t n_edges[] = {1, 255, 256, 257, 65535, 65536, 65537, HIST_CHUNK,
                                    HIST_CHUNK + 1, 3 * HIST_CHUNK - 1};
  static const int64_t bin_edges[] = {1, 2, 255, 256, 257, HIST_SHARED_BINS, HIST_SHARED_BINS + 1,
                                      HIST_U16_BINS, HIST_U16_BINS + 1, HIST_MAX_BINS};
  c->v[P_N] = gr_rng_boundary(r, 1, 1 << 22, n_edges, sizeof n_edges / sizeof *n_edges, 0.5);
  c->v[P_BINS] =
      gr_rng_boundary(r, 1, HIST_MAX_BINS, bin_edges, sizeof bin_edges / sizeof *bin_edges, 0.5);
  c->v[P_DIST] = gr_rng_range(r, 0, 2);
}

/* ---- regimes --------------------------------------------------------------------------------- */

/* The most keys of one bin within one block's chunk: from the data where the worker has it,
 * else the guess from the parameters (one_bin: the whole first chunk). */
static long hottest(const struct gr_case *c, const struct gr_instance *inst)
{
  if (inst)
    return ((const struct hist_data *)inst->priv)->max_chunk;
  long chunk = c->v[P_N] < HIST_CHUNK ? (long)c->v[P_N] : HIST_CHUNK;
  return c->v[P_DIST] == DIST_ONE_BIN || c->v[P_BINS] == 1 ? chunk : 0;
}

GR_REGIME_PREDICATE(one_block, c->v[P_N] <= HIST_CHUNK)
GR_REGIME_PREDICATE(several_blocks, c->v[P_N] > HIST_CHUNK)
GR_REGIME_PREDICATE(bins_past_block, c->v[P_BINS] > HIST_BLOCK && c->v[P_BINS] <= HIST_SHARED_BINS)
GR_REGIME_PREDICATE(bins_past_shared, c->v[P_BINS] > HIST_SHARED_BINS)
static int counter_past_16(const struct gr_case *c, const struct gr_instance *inst)
{
  return c->v[P_BINS] <= HIST_SHARED_BINS && hottest(c, inst) > 65535;
}

/* Designated initializers: fields added to struct gr_regime later (at its end, zero meaning "not
 * provided") leave this table as it is. */
static const struct gr_regime hist_regimes[] = {
    {.name = "one block", .holds = one_block},
    {.name = "several blocks", .holds = several_blocks},
    {.name = "bins > block", .variants = "v1_shared_u16 v2_shared", .holds = bins_past_block},
    {.name = "count > 65535", .variants = "v1_shared_u16 v2_shared", .holds = counter_past_16},
    {.name = "bins > shared memory", .variants = "v3_global", .holds = bins_past_shared},
};

/* ---- instance ------------------------------------------------------------------------------- */

static void hist_instance_free(struct gr_instance *inst)
{
  if (!inst)
    return;
  struct hist_data *d = inst->priv;
  if (d) {
    free(d->keys);
    free(d->ref);
  }
  free(inst->priv);
  free(inst);
}

static int hist_instance_new(const struct gr_case *c, struct gr_instance **out, char *why,
                             size_t len)
{
  struct gr_instance *inst = gr_instance_alloc(c, sizeof(struct hist_data), why, len);
  if (!inst)
    return -1;
  struct hist_data *d = inst->priv;
  d->n = (size_t)c->v[P_N];
  d->bins = (int)c->v[P_BINS];
  d->keys = malloc(d->n * sizeof *d->keys);
  d->ref = malloc((size_t)d->bins * sizeof *d->ref);
  uint32_t *chunk = calloc((size_t)d->bins, sizeof *chunk);
  if (!d->keys || !d->ref || !chunk) {
    free(chunk);
    hist_instance_free(inst);
    snprintf(why, len, "out of host memory");
    return -1;
  }
  struct gr_rng r;
  gr_rng_seed(&r, c->seed);
  for (size_t i = 0; i < d->n; i++) {
    double u = gr_rng_unit(&r);
    switch (c->v[P_DIST]) {
    case DIST_UNIFORM: d->keys[i] = (uint32_t)gr_rng_range(&r, 0, d->bins - 1); break;
    case DIST_SKEWED: d->keys[i] = (uint32_t)(u * u * u * u * d->bins); break;
    default: d->keys[i] = (uint32_t)(d->bins / 2); break;
    }
  }
  histogram_ref(d->keys, d->n, d->bins, d->ref);
  for (size_t at = 0; at < d->n; at += HIST_CHUNK) { /* for the regime "a count > 65535" */
    size_t end = at + HIST_CHUNK < d->n ? at + HIST_CHUNK : d->n;
    for (size_t i = at; i < end; i++)
      if (++chunk[d->keys[i]] > d->max_chunk)
        d->max_chunk = chunk[d->keys[i]];
    for (size_t i = at; i < end; i++)
      chunk[d->keys[i]] = 0;
  }
  free(chunk);
  inst->out_bytes = (size_t)d->bins * sizeof(uint32_t);
  inst->elem_size = sizeof(uint32_t);
  *out = inst;
  return 0;
}

static int hist_check(const struct gr_instance *inst, const void *out, struct gr_check_report *rep)
{
  const struct hist_data *d = inst->priv;
  const uint32_t *got = out;
  uint64_t total = 0;
  for (int b = 0; b < d->bins; b++)
    total += got[b];
  if (total != d->n)
    return gr_check_fail(rep, "invariant", "the counts sum to %llu, not n = %zu (%+lld)",
                         (unsigned long long)total, d->n, (long long)total - (long long)d->n);
  return gr_check_exact(got, d->ref, (size_t)d->bins, GR_ELEM_U32, "count", rep);
}

static size_t hist_device_bytes(const struct gr_case *c)
{
  return (size_t)c->v[P_N] * 4 + 4 + (size_t)c->v[P_BINS] * 4;
}

static void hist_work(const struct gr_case *c, double *bytes, double *items)
{
  *bytes = (double)c->v[P_N] * 4 + (double)c->v[P_BINS] * 4; /* read the keys, write the counts */
  *items = (double)c->v[P_N];
}

/* The timing sweep (gpuregress bench): one size per line, smallest first. */
static const char *const hist_bench_cases[] = {
    "histogram n=1048576 bins=256 dist=uniform seed=1",
    "histogram n=16777216 bins=256 dist=uniform seed=1",
    "histogram n=16777216 bins=4096 dist=skewed seed=1",
    "histogram n=16777216 bins=65536 dist=uniform seed=1",
    NULL,
};

const struct gr_algorithm histogram_algorithm = {
    .name = "histogram",
    .summary = "histogram of 32-bit keys (the out-of-tree example: examples/histogram)",
    .params = hist_params,
    .n_params = sizeof hist_params / sizeof *hist_params,
    .variants = hist_variants,
    .n_variants = sizeof hist_variants / sizeof *hist_variants,
    .generate = hist_generate,
    .device_bytes = hist_device_bytes,
    .instance_new = hist_instance_new,
    .instance_free = hist_instance_free,
    .check = hist_check,
    .work = hist_work,
    .regimes = hist_regimes,
    .n_regimes = sizeof hist_regimes / sizeof *hist_regimes,
    .bench_cases = hist_bench_cases,
    .gpu = GR_IF_CUDA(&hist_lifecycle),
};
GR_REGISTER_ALGORITHM(histogram_algorithm);
