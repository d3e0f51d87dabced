/* The radix_sort algorithm's table: parameters, variants, boundary-biased generator, instance
 * (input keys, values and the reference sort), checker and work model.
 *
 * A case is n uint32 keys drawn from one distribution, sorted alone (mode=keys) or with one uint32
 * value each (mode=pairs). Values are vals[i] = i ^ salt (salt drawn per case), so every value
 * names the input index it came from and a checker can follow it back to its key.
 *
 * Checks, in the order a person wants to read them: the output keys are a permutation of the
 * input (else which key appears how often where, and whether it is the output poison); they are
 * in order; in pairs mode every value came from the input, sits beside the key it came with,
 * appears once, and equal keys keep their input order (stability); finally the output equals the
 * reference exactly, keys and values.
 *
 * Work model, for throughput and % of the copy bandwidth: items = n keys; bytes = the floor an
 * LSD sort with 8-bit digits must move, 36 bytes per key for keys (one read for the histograms of
 * all 4 digits, then 4 passes of read + write: 4 + 4 x 8) and 68 per pair for pairs (4 + 4 x 16:
 * the values are read and written in each pass, never histogrammed). v1..v3 move 48 and 80 (a
 * histogram read per pass); v4_onesweep about 36.4 and 68.4 (its look-back rows). */
#include "radix_sort_alg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/check.h>
#include <gpuregress/util.h>
#include "radix_sort.h"
#include "radix_sort_ref.h"

#define FUZZ_MAX_N ((int64_t)1 << 26)  /* generated cases stay at or below this */
#define SMALL_MAX_N ((int64_t)1 << 20) /* and most of them at or below this */

static const char *const mode_names[] = {"keys", "pairs", NULL};
enum { MODE_KEYS, MODE_PAIRS };

static const char *const dist_names[] = {"all_equal", "sorted", "reverse", "few_unique",  "uniform",
                                         "and2",      "and3",   "and4",    "lane_digits", NULL};
enum {
  DIST_ALL_EQUAL,   /* one random value */
  DIST_SORTED,      /* uniform, sorted ascending */
  DIST_REVERSE,     /* uniform, sorted descending */
  DIST_FEW_UNIQUE,  /* 2..16 random values */
  DIST_UNIFORM,     /* uniform 32-bit */
  DIST_AND2,        /* reduced entropy: AND of 2 uniform words (bits set with p = 1/4) */
  DIST_AND3,        /* ... of 3 (1/8) */
  DIST_AND4,        /* ... of 4 (1/16): digit 0 dominates */
  DIST_LANE_DIGITS, /* every byte's low 5 bits differ across each aligned group of 32 keys */
};

enum { P_N, P_MODE, P_DIST };
static const struct gr_param_spec radix_sort_params[] = {
    [P_N] = {"n", GR_PARAM_INT, 0, RADIX_SORT_MAX_N, NULL, "keys to sort"},
    [P_MODE] = {"mode", GR_PARAM_ENUM, 0, 0, mode_names, "keys only, or key/value pairs"},
    [P_DIST] = {"dist", GR_PARAM_ENUM, 0, 0, dist_names, "key distribution"},
};

/* reference "variant": the CPU reference itself, checked against the invariants */
static enum gr_run_status radix_sort_run_reference(const struct gr_variant *v,
                                                   const struct gr_instance *inst, void *out,
                                                   struct gr_run_ctx *ctx)
{
  (void)v;
  const struct radix_sort_data *d = inst->priv;
  uint32_t *o = out;
  if (radix_sort_reference(d->keys, d->vals, o, d->pairs ? o + d->n : NULL, d->n)) {
    gr_fmt(ctx->why, sizeof ctx->why, "out of host memory for the reference sort");
    return GR_RUN_ERROR;
  }
  return GR_RUN_OK;
}

/* ---- regimes: the code paths the fuzzer must reach ----------------------------------------- */

/* Above this n a chunk holds several tiles (the multi-tile counter paths): one wave of 3 blocks
 * of 256 threads on each of an H100's 132 SMs, 4096 keys a tile (nominal: the parent never asks
 * the device; an H200 has the same 132 SMs). */
#define NOMINAL_ONE_WAVE_N ((int64_t)132 * 3 * RADIX_SORT_TILE)

/* The one-tile regimes take n >= 1: n = 0 launches nothing (counted, an n = 0 sort stood for
 * v5_match_or's and v6_values_in_place's "one tile of 4096" at gpu-check seed 1795974058). */
GR_REGIME_PREDICATE(one_tile, c->v[P_N] > 0 && c->v[P_N] <= RADIX_SORT_TILE)
GR_REGIME_PREDICATE(several_tiles, c->v[P_N] > RADIX_SORT_TILE)
GR_REGIME_PREDICATE(partial_tile, c->v[P_N] > RADIX_SORT_TILE && c->v[P_N] % RADIX_SORT_TILE != 0)
GR_REGIME_PREDICATE(tiles_per_chunk, c->v[P_N] > NOMINAL_ONE_WAVE_N)

/* The onesweep tiles (radix_sort.h): v4_onesweep's 9216 (384 threads x 24 keys) for keys and
 * pairs; v5_match_or's by n and mode (4096 up to 2^19; 9216 for keys up to 2^22 and pairs up to
 * 2^24; beyond, 10752 for keys and v4's 9216 for pairs), which are v6_values_in_place's too (its
 * pairs past 2^24 take its values-in-place kernel, and its histogram changes past 2^19). */
static int64_t os5_tile(const struct gr_case *c)
{
  return radix_sort_v5_tile(c->v[P_N], c->v[P_MODE] == MODE_PAIRS);
}
static int64_t os5_mid_n(const struct gr_case *c)
{
  return c->v[P_MODE] == MODE_PAIRS ? RADIX_SORT_V5_PAIRS_MID_N : RADIX_SORT_V5_MID_N;
}
GR_REGIME_PREDICATE(os_one_tile, c->v[P_N] > 0 && c->v[P_N] <= RADIX_SORT_V4_TILE)
GR_REGIME_PREDICATE(os_several_tiles, c->v[P_N] > RADIX_SORT_V4_TILE)
GR_REGIME_PREDICATE(os_partial_tile,
                    c->v[P_N] > RADIX_SORT_V4_TILE && c->v[P_N] % RADIX_SORT_V4_TILE != 0)
GR_REGIME_PREDICATE(os5_one_tile, c->v[P_N] > 0 && c->v[P_N] <= os5_tile(c))
GR_REGIME_PREDICATE(os5_small_partial, c->v[P_N] > os5_tile(c) &&
                                           c->v[P_N] <= RADIX_SORT_V5_SMALL_N &&
                                           c->v[P_N] % os5_tile(c) != 0)
GR_REGIME_PREDICATE(os5_mid_partial, c->v[P_N] > RADIX_SORT_V5_SMALL_N && c->v[P_N] <= os5_mid_n(c) &&
                                         c->v[P_N] % os5_tile(c) != 0)
GR_REGIME_PREDICATE(os5_keys_long_partial, c->v[P_MODE] == MODE_KEYS && c->v[P_N] > os5_mid_n(c) &&
                                               c->v[P_N] % os5_tile(c) != 0)
GR_REGIME_PREDICATE(os5_pairs_long, c->v[P_MODE] == MODE_PAIRS && c->v[P_N] > os5_mid_n(c))
/* the last n of a shape and the first of the next */
GR_REGIME_PREDICATE(os5_shape_edge,
                    c->v[P_N] == RADIX_SORT_V5_SMALL_N || c->v[P_N] == RADIX_SORT_V5_SMALL_N + 1 ||
                        c->v[P_N] == os5_mid_n(c) || c->v[P_N] == os5_mid_n(c) + 1)

/* Limits of the counters: a digit with 65,536 keys or more (a 16-bit count overflows: the
 * scan's totals, v4's look-back prefixes), more than 2^24 keys (a float or 24-bit index loses
 * keys), and beyond 2^25 keys with few distinct digits, where one chunk of v1..v3 (21+ tiles of
 * 4096) holds 65,536 keys or more of one digit (its per-chunk histogram count). */
static int few_digits(const struct gr_case *c)
{
  int64_t d = c->v[P_DIST];
  return d == DIST_ALL_EQUAL || d == DIST_FEW_UNIQUE || d == DIST_SORTED || d == DIST_REVERSE;
}
static int digit_64k(const struct gr_case *c, const struct gr_instance *inst)
{
  (void)inst;
  int64_t n = c->v[P_N], d = c->v[P_DIST];
  return (d == DIST_ALL_EQUAL && n > 65536) || (d == DIST_FEW_UNIQUE && n > 16 * 65536) ||
         ((d == DIST_SORTED || d == DIST_REVERSE) && n > 256 * 65536);
}
GR_REGIME_PREDICATE(over_2_24, c->v[P_N] > (int64_t)1 << 24)
GR_REGIME_PREDICATE(over_2_25_few, c->v[P_N] > (int64_t)1 << 25 && few_digits(c))

static const struct gr_regime radix_sort_regimes[] = {
    {"one tile", "v1_basic v2_warp_lane0 v3_warp", one_tile, 0},
    {"several tiles", "v1_basic v2_warp_lane0 v3_warp", several_tiles, 0},
    {"partial last tile", "v1_basic v2_warp_lane0 v3_warp", partial_tile, 0},
    {"several tiles per chunk", "v1_basic v2_warp_lane0 v3_warp", tiles_per_chunk, 0},
    {"one tile of 9216", "v4_onesweep", os_one_tile, 0},
    {"several tiles of 9216", "v4_onesweep", os_several_tiles, 0},
    {"partial last tile of 9216", "v4_onesweep", os_partial_tile, 0},
    {"one tile of 4096", "v5_match_or v6_values_in_place", os5_one_tile, 0},
    {"n <= 2^19: partial last tile of 4096", "v5_match_or v6_values_in_place", os5_small_partial,
     0},
    {"keys <= 2^22, pairs <= 2^24: partial tile of 9216", "v5_match_or v6_values_in_place",
     os5_mid_partial, 0},
    {"keys > 2^22: partial last tile of 10752", "v5_match_or v6_values_in_place",
     os5_keys_long_partial, 0},
    {"pairs > 2^24: v4's tiles of 9216", "v5_match_or v6_values_in_place", os5_pairs_long, 0},
    {"first or last n of a shape", "v5_match_or v6_values_in_place", os5_shape_edge,
     GR_REGIME_LIMIT},
    {"a digit of 65536+ keys", NULL, digit_64k, 0},
    {"n > 2^24", NULL, over_2_24, GR_REGIME_LIMIT},
    {"n > 2^25, few digits", "v1_basic v2_warp_lane0 v3_warp", over_2_25_few, GR_REGIME_LIMIT},
};

static const struct gr_variant radix_sort_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, radix_sort_run_reference, NULL,
     "stable LSD counting sort, 11-bit digits (3 passes), on the CPU"},
    {"v1_basic", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(radix_sort_v1_basic_launch),
     "per pass histogram, scan and scatter; the scatter sorts each tile by 8 one-bit splits in "
     "shared memory"},
    {"v2_warp_lane0", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(radix_sort_v2_warp_lane0_launch),
     "warp-ranked scatter where only lane 0 writes its warp's per-digit count: other digits get "
     "none (gpu-sorting issue #17)"},
    {"v3_warp", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(radix_sort_v3_warp_launch),
     "warp-ranked scatter (ballot match); the first lane holding each digit writes its count "
     "(the fix)"},
    {"v4_onesweep", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(radix_sort_v4_onesweep_launch),
     "onesweep: one up-front histogram of all 4 digits, then per digit one kernel that ranks a "
     "tile of 384 x 24 in registers (8 ballots), publishes its counts by decoupled look-back and "
     "scatters"},
    {"v5_match_or", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(radix_sort_v5_match_or_launch),
     "v4_onesweep whose keys are ranked by one shared atomicOr per lane instead of 8 ballots, in "
     "tiles of 256 x 16 up to 2^19 keys, 384 x 24 up to 2^22 (pairs 2^24), 448 x 24 beyond "
     "(2^28 keys 0.84x CUB where v4 is 0.94x; 2^16 0.65x where v4 is 0.94x); pairs beyond 2^24 "
     "as v4"},
    {"v6_values_in_place", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(radix_sort_v6_values_in_place_launch),
     "v5_match_or with pairs past 2^24 whose values are put in digit order in place before the "
     "look-back and written with their keys, and past 2^19 the up-front histogram counted in a "
     "copy per lane (2^28 pairs 0.94x CUB where v5 is 1.01x, 2^28 keys 0.81x where v5 is 0.84x)"},
    {"cub", GR_VARIANT_PEER, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(radix_sort_cub_launch), "cub::DeviceRadixSort SortKeys / SortPairs, all 32 bits"},
};

static void radix_sort_generate(struct gr_case *c, struct gr_rng *r)
{
  /* warp, block, a warp's slice of a tile, the tile; tiles that fill one wave of chunks for 2..6
   * blocks per SM on 132 SMs (one more tile makes every chunk two tiles) */
  /* clang-format off */
  static const int64_t n_edges[] = {
      0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 511, 512, 513, 4095, 4096, 4097, 8191, 8192, 8193,
      12288, 65536, 1 << 20, 264 * RADIX_SORT_TILE, 396 * RADIX_SORT_TILE, 528 * RADIX_SORT_TILE,
      660 * RADIX_SORT_TILE, 792 * RADIX_SORT_TILE, RADIX_SORT_V5_SMALL_N, RADIX_SORT_V5_MID_N,
      RADIX_SORT_V5_PAIRS_MID_N};
  /* clang-format on */
  static const int64_t tiles[] = {32,
                                  RADIX_SORT_BLOCK,
                                  32 * RADIX_SORT_ITEMS,
                                  RADIX_SORT_TILE,
                                  RADIX_SORT_V4_TILE,
                                  RADIX_SORT_V5_KEYS_TILE};
  int64_t pick = gr_rng_range(r, 0, 99);
  if (pick < 25) { /* an edge, +-1 */
    c->v[P_N] = gr_rng_boundary(r, 0, FUZZ_MAX_N, n_edges, sizeof n_edges / sizeof *n_edges, 1.0);
  } else if (pick < 50) { /* every size from one tile to two tiles + 1 */
    int64_t t = tiles[gr_rng_range(r, 0, sizeof tiles / sizeof *tiles - 1)];
    c->v[P_N] = gr_rng_range(r, t, 2 * t + 1);
  } else if (pick < 97) {
    c->v[P_N] = gr_rng_boundary(r, 0, SMALL_MAX_N, NULL, 0, 0.0);
  } else { /* a few large ones: anywhere up to 2^26, or just past the limits 2^24 and 2^25 */
    int64_t at = gr_rng_range(r, 0, 2);
    c->v[P_N] = at == 0 ? gr_rng_log_range(r, SMALL_MAX_N, FUZZ_MAX_N)
                        : ((int64_t)1 << (23 + at)) + gr_rng_range(r, 1, (int64_t)1 << 21);
  }
  c->v[P_MODE] = gr_rng_range(r, MODE_KEYS, MODE_PAIRS);
  c->v[P_DIST] = gr_rng_chance(r, 0.3) ? DIST_UNIFORM : gr_rng_range(r, 0, DIST_LANE_DIGITS);
  if (c->v[P_N] > SMALL_MAX_N && gr_rng_chance(r, 0.5)) /* large: counters of one digit fill up */
    c->v[P_DIST] =
        gr_rng_chance(r, 0.6) ? DIST_ALL_EQUAL : gr_rng_range(r, DIST_SORTED, DIST_FEW_UNIQUE);
  else if (c->v[P_N] > 65536 && c->v[P_N] <= 4 * 65536 && gr_rng_chance(r, 0.2))
    c->v[P_DIST] = DIST_ALL_EQUAL; /* one digit past 65,535 keys, cheaply */
}

static size_t radix_sort_device_bytes(const struct gr_case *c)
{
  /* input, output and one alternate buffer (ours or CUB's), plus histograms */
  size_t data = (size_t)c->v[P_N] * sizeof(uint32_t) * (c->v[P_MODE] == MODE_PAIRS ? 2 : 1);
  return 3 * data + ((size_t)8 << 20);
}

static void radix_sort_work(const struct gr_case *c, double *bytes, double *items)
{
  double n = (double)c->v[P_N];
  *bytes = n * (c->v[P_MODE] == MODE_PAIRS ? 68.0 : 36.0);
  *items = n;
}

/* n keys of distribution dist into k. 0, or -1 (out of memory). */
static int draw_keys(uint32_t *k, size_t n, int dist, struct gr_rng *r)
{
  switch (dist) {
  case DIST_ALL_EQUAL: {
    uint32_t v = gr_rng_u32(r);
    for (size_t i = 0; i < n; i++)
      k[i] = v;
    return 0;
  }
  case DIST_SORTED:
  case DIST_REVERSE: {
    uint32_t *t = malloc((n ? n : 1) * sizeof *t);
    if (!t)
      return -1;
    for (size_t i = 0; i < n; i++)
      t[i] = gr_rng_u32(r);
    int rc = radix_sort_reference(t, NULL, k, NULL, n);
    for (size_t i = 0; rc == 0 && dist == DIST_REVERSE && i < n / 2; i++) {
      uint32_t x = k[i];
      k[i] = k[n - 1 - i];
      k[n - 1 - i] = x;
    }
    free(t);
    return rc;
  }
  case DIST_FEW_UNIQUE: {
    uint32_t table[16];
    int m = (int)gr_rng_range(r, 2, 16);
    for (int j = 0; j < m; j++)
      table[j] = gr_rng_u32(r);
    for (size_t i = 0; i < n; i++)
      k[i] = table[gr_rng_range(r, 0, m - 1)];
    return 0;
  }
  case DIST_AND2:
  case DIST_AND3:
  case DIST_AND4: {
    int words = 2 + (dist - DIST_AND2);
    for (size_t i = 0; i < n; i++) {
      uint32_t v = gr_rng_u32(r);
      for (int w = 1; w < words; w++)
        v &= gr_rng_u32(r);
      k[i] = v;
    }
    return 0;
  }
  case DIST_LANE_DIGITS: {
    uint32_t salt = gr_rng_u32(r) & 0x1f1f1f1fu; /* a 5-bit xor per byte */
    for (size_t i = 0; i < n; i++) {
      uint32_t lane = (uint32_t)(i & 31) * 0x01010101u;
      k[i] = (gr_rng_u32(r) & 0xe0e0e0e0u) | (lane ^ salt);
    }
    return 0;
  }
  case DIST_UNIFORM:
  default:
    for (size_t i = 0; i < n; i++)
      k[i] = gr_rng_u32(r);
    return 0;
  }
}

static void fingerprint(const uint32_t *k, size_t n, uint64_t fp[2]);

static void radix_sort_instance_free(struct gr_instance *inst)
{
  if (!inst)
    return;
  struct radix_sort_data *d = inst->priv;
  if (d) {
    free(d->keys);
    free(d->vals);
    free(d->ref_keys);
    free(d->ref_vals);
    free(d);
  }
  free(inst);
}

static int radix_sort_instance_new(const struct gr_case *c, struct gr_instance **out, char *why,
                                   size_t len)
{
  struct gr_instance *inst = gr_instance_alloc(c, sizeof(struct radix_sort_data), why, len);
  if (!inst)
    return -1;
  struct radix_sort_data *d = inst->priv;
  d->n = (size_t)c->v[P_N];
  d->pairs = c->v[P_MODE] == MODE_PAIRS;
  size_t bytes = (d->n ? d->n : 1) * sizeof(uint32_t);
  d->keys = malloc(bytes);
  d->ref_keys = malloc(bytes);
  if (d->pairs) {
    d->vals = malloc(bytes);
    d->ref_vals = malloc(bytes);
  }
  if (!d->keys || !d->ref_keys || (d->pairs && (!d->vals || !d->ref_vals)))
    goto out_nomem;
  struct gr_rng r;
  gr_rng_seed(&r, c->seed);
  d->salt = gr_rng_u32(&r);
  if (draw_keys(d->keys, d->n, (int)c->v[P_DIST], &r))
    goto out_nomem;
  for (size_t i = 0; d->pairs && i < d->n; i++)
    d->vals[i] = (uint32_t)i ^ d->salt;
  if (radix_sort_reference(d->keys, d->vals, d->ref_keys, d->ref_vals, d->n))
    goto out_nomem;
  fingerprint(d->keys, d->n, d->fingerprint);
  inst->out_bytes = d->n * sizeof(uint32_t) * (d->pairs ? 2 : 1);
  inst->elem_size = sizeof(uint32_t);
  *out = inst;
  return 0;
out_nomem:
  gr_fmt(why, len, "cannot allocate %zu MiB of host memory for %zu keys",
         (bytes * (d->pairs ? 6 : 3)) >> 20, d->n);
  radix_sort_instance_free(inst);
  return -1;
}

/* Copies of x in sorted s[0..n). */
static size_t count_of(const uint32_t *s, size_t n, uint32_t x)
{
  size_t lo = 0, hi = n; /* first index with s[i] >= x */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t c = 0;
  while (lo + c < n && s[lo + c] == x)
    c++;
  return c;
}

/* A hash of the multiset of keys, independent of their order: two sums of two different 64-bit
 * mixes of each key. Equal multisets give equal fingerprints; different ones collide with
 * probability about 2^-128. */
static uint64_t mix64(uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static void fingerprint(const uint32_t *k, size_t n, uint64_t fp[2])
{
  fp[0] = fp[1] = 0;
  for (size_t i = 0; i < n; i++) {
    fp[0] += mix64(k[i]);
    fp[1] += mix64(k[i] ^ 0x5bd1e9955bd1e995ull);
  }
}

/* The output keys are a permutation of the input keys: 0, or 1 with rep filled. The fingerprint
 * decides; only a mismatch pays for sorting the output to say which key is off. */
static int check_permutation(const struct radix_sort_data *d, const uint32_t *ok,
                             struct gr_check_report *rep)
{
  size_t n = d->n;
  uint64_t fp[2];
  fingerprint(ok, n, fp);
  if (fp[0] == d->fingerprint[0] && fp[1] == d->fingerprint[1])
    return 0;
  uint32_t *s = malloc((n ? n : 1) * sizeof *s);
  if (!s || radix_sort_reference(ok, NULL, s, NULL, n)) {
    free(s);
    return gr_check_fail(rep, "memory", "out of host memory to check %zu output keys", n);
  }
  size_t first = n, differ = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != d->ref_keys[i]) {
      differ++;
      if (first == n)
        first = i;
    }
  }
  if (first == n) { /* not reached unless two multisets collide */
    free(s);
    return gr_check_fail(rep, "invariant",
                         "output keys: fingerprint differs from the input's but "
                         "the sorted keys are equal (a hash collision)");
  }
  /* the smaller of the two is the key whose count differs */
  uint32_t x = s[first] < d->ref_keys[first] ? s[first] : d->ref_keys[first];
  size_t in_out = count_of(s, n, x), in_in = count_of(d->ref_keys, n, x);
  char poison[160] = "";
  static const uint32_t poisons[] = {GR_POISON_A * 0x01010101u, GR_POISON_B * 0x01010101u};
  for (int p = 0; p < 2; p++) {
    size_t po = count_of(s, n, poisons[p]), pi = count_of(d->ref_keys, n, poisons[p]);
    if (po > pi)
      gr_fmt(poison, sizeof poison,
             "; %zu more elements hold the output poison 0x%08x than the "
             "input: left unwritten",
             po - pi, poisons[p]);
  }
  free(s);
  return gr_check_fail(
      rep, "invariant",
      "output keys are not a permutation of the input: key 0x%08x appears %zu times "
      "in the output, %zu in the input%s (sorted, the two differ at %zu of %zu "
      "places)",
      x, in_out, in_in, poison, differ, n);
}

/* In pairs mode: every value came from the input, beside its own key, once, and equal keys keep
 * their input order. 0, or 1 with rep filled. */
static int check_values(const struct radix_sort_data *d, const uint32_t *ok, const uint32_t *ov,
                        struct gr_check_report *rep)
{
  size_t n = d->n;
  unsigned char *seen = calloc(n / 8 + 1, 1);
  if (!seen)
    return gr_check_fail(rep, "memory", "out of host memory to check %zu values", n);
  int bad = 1;
  for (size_t i = 0; i < n; i++) {
    size_t j = ov[i] ^ d->salt; /* the input index this value came from */
    if (j >= n) {
      gr_check_fail(rep, "invariant",
                    "value %zu = 0x%08x is not an input value (values are index ^ 0x%08x; it "
                    "would be index %zu of %zu)",
                    i, ov[i], d->salt, j, n);
      goto out_free;
    }
    if (d->keys[j] != ok[i]) {
      gr_check_fail(
          rep, "invariant",
          "values do not follow their keys: output %zu holds key 0x%08x with the value of "
          "input %zu, whose key is 0x%08x",
          i, ok[i], j, d->keys[j]);
      goto out_free;
    }
    if (seen[j / 8] & (1u << (j % 8))) {
      gr_check_fail(rep, "invariant", "the value of input %zu appears twice (again at output %zu)",
                    j, i);
      goto out_free;
    }
    seen[j / 8] |= (unsigned char)(1u << (j % 8));
    if (i > 0 && ok[i - 1] == ok[i] && (ov[i - 1] ^ d->salt) > j) {
      gr_check_fail(rep, "invariant",
                    "not stable: equal keys 0x%08x at outputs %zu and %zu come from inputs %zu and "
                    "%zu (in reverse order)",
                    ok[i], i - 1, i, (size_t)(ov[i - 1] ^ d->salt), j);
      goto out_free;
    }
  }
  bad = 0;
out_free:
  free(seen);
  return bad;
}

static int radix_sort_check(const struct gr_instance *inst, const void *out,
                            struct gr_check_report *rep)
{
  const struct radix_sort_data *d = inst->priv;
  const uint32_t *ok = out, *ov = d->pairs ? ok + d->n : NULL;
  if (check_permutation(d, ok, rep))
    return 1;
  for (size_t i = 0; i + 1 < d->n; i++)
    if (ok[i] > ok[i + 1])
      return gr_check_fail(rep, "invariant",
                           "output keys out of order: key %zu = 0x%08x > key %zu = 0x%08x", i,
                           ok[i], i + 1, ok[i + 1]);
  if (d->pairs && check_values(d, ok, ov, rep))
    return 1;
  if (gr_check_exact(ok, d->ref_keys, d->n, GR_ELEM_U32, "key", rep))
    return 1;
  if (d->pairs && gr_check_exact(ov, d->ref_vals, d->n, GR_ELEM_U32, "value", rep))
    return 1;
  return 0;
}

static const char *const radix_sort_bench_cases[] = {
#define BENCH(e)                                                                                   \
  "radix_sort n=" #e " mode=keys dist=uniform seed=1",                                             \
      "radix_sort n=" #e " mode=pairs dist=uniform seed=1"
    BENCH(65536),    BENCH(262144),   BENCH(1048576),   BENCH(4194304),
    BENCH(16777216), BENCH(67108864), BENCH(268435456), NULL,
#undef BENCH
};

const struct gr_algorithm radix_sort_algorithm = {
    .name = "radix_sort",
    .summary = "LSD radix sort of uint32 keys and key/value pairs, 8-bit digits (4 passes)",
    .params = radix_sort_params,
    .n_params = sizeof radix_sort_params / sizeof *radix_sort_params,
    .variants = radix_sort_variants,
    .n_variants = sizeof radix_sort_variants / sizeof *radix_sort_variants,
    .generate = radix_sort_generate,
    .device_bytes = radix_sort_device_bytes,
    .instance_new = radix_sort_instance_new,
    .instance_free = radix_sort_instance_free,
    .check = radix_sort_check,
    .work = radix_sort_work,
    .regimes = radix_sort_regimes,
    .n_regimes = sizeof radix_sort_regimes / sizeof *radix_sort_regimes,
    .bench_cases = radix_sort_bench_cases,
    .gpu = GR_IF_CUDA(&radix_sort_lifecycle),
};
GR_REGISTER_ALGORITHM(radix_sort_algorithm);
