/* Unit tests of radix_sort's CPU side: the reference against known answers and against qsort on
 * (key, input index), the checker against outputs broken on purpose (each must fail with the
 * reason a person needs), the generator (deterministic, in range, the distributions it claims),
 * the bench case texts and the work model. Exit 0 ok, 1 a test failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/radix_sort/radix_sort.h"
#include "algorithms/radix_sort/radix_sort_alg.h"
#include "case.h"
#include "check.h"
#include "algorithms/radix_sort/radix_sort_ref.h"
#include "registry.h"
#include "test_util.h"

static void test_known_answers(void)
{
  const uint32_t keys[] = {3, 1, 0xffffffffu, 2, 1, 0, 0x100u, 1};
  const uint32_t vals[] = {10, 11, 12, 13, 14, 15, 16, 17};
  const uint32_t want_k[] = {0, 1, 1, 1, 2, 3, 0x100u, 0xffffffffu};
  const uint32_t want_v[] = {15, 11, 14, 17, 13, 10, 16, 12}; /* equal keys keep input order */
  uint32_t k[8], v[8];
  EXPECT(radix_sort_reference(keys, vals, k, v, 8) == 0, "reference failed");
  EXPECT(memcmp(k, want_k, sizeof k) == 0, "keys differ");
  EXPECT(memcmp(v, want_v, sizeof v) == 0, "values differ (stability)");
  EXPECT(radix_sort_reference(keys, NULL, k, NULL, 8) == 0 && memcmp(k, want_k, sizeof k) == 0,
         "keys-only sort differs");
  EXPECT(radix_sort_reference(keys, vals, k, v, 0) == 0, "n = 0 failed");
}

struct kv {
  uint32_t key, idx;
};

static int kv_cmp(const void *a, const void *b)
{
  const struct kv *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The reference equals qsort on (key, index) over generated cases of every distribution. */
static void test_reference_vs_qsort(const struct gr_algorithm *a)
{
  struct case_limits lim = {0};
  char why[GR_WHY_LEN], text[GR_CASE_TEXT_LEN];
  EXPECT(case_limits_add(a, &lim, "n=0..70000", why, sizeof why) == 0, "%s", why);
  for (int i = 0; i < 120; i++) {
    struct gr_case c;
    struct gr_instance *inst;
    case_generate(a, 7, (uint64_t)i, &lim, &c);
    c.v[1] = 1; /* pairs: values name the input index */
    if (a->instance_new(&c, &inst, why, sizeof why)) {
      EXPECT(0, "instance: %s", why);
      continue;
    }
    const struct radix_sort_data *d = inst->priv;
    struct kv *t = malloc((d->n + 1) * sizeof *t);
    for (size_t j = 0; j < d->n; j++) {
      t[j].key = d->keys[j];
      t[j].idx = (uint32_t)j;
    }
    qsort(t, d->n, sizeof *t, kv_cmp);
    size_t bad = d->n;
    for (size_t j = 0; j < d->n && bad == d->n; j++)
      if (d->ref_keys[j] != t[j].key || (d->ref_vals[j] ^ d->salt) != t[j].idx)
        bad = j;
    EXPECT(bad == d->n, "%s: reference differs from qsort at %zu",
           case_format(&c, text, sizeof text), bad);
    free(t);
    a->instance_free(inst);
  }
}

/* One case's instance and a copy of its reference output to break. */
static struct gr_instance *make(const struct gr_algorithm *a, const char *text, uint32_t **out)
{
  struct gr_case *c = malloc(sizeof *c);
  char why[GR_WHY_LEN];
  struct gr_instance *inst = NULL;
  if (case_parse(text, c, why, sizeof why) || a->instance_new(c, &inst, why, sizeof why)) {
    printf("FAIL cannot build '%s': %s\n", text, why);
    exit(1);
  }
  const struct radix_sort_data *d = inst->priv;
  *out = malloc(inst->out_bytes + 4);
  memcpy(*out, d->ref_keys, d->n * 4);
  if (d->pairs)
    memcpy(*out + d->n, d->ref_vals, d->n * 4);
  return inst;
}

static void drop(const struct gr_algorithm *a, struct gr_instance *inst, uint32_t *out)
{
  const struct gr_case *c = inst->c;
  a->instance_free(inst);
  free((void *)c);
  free(out);
}

/* check(out) fails with a reason containing `want` (or passes when want is NULL). */
static void expect_check(const struct gr_algorithm *a, struct gr_instance *inst,
                         const uint32_t *out, const char *want, const char *what)
{
  struct gr_check_report rep;
  memset(&rep, 0, sizeof rep);
  int failed = a->check(inst, out, &rep);
  if (!want)
    EXPECT(!failed, "%s: the reference output failed: %s", what, rep.why);
  else
    EXPECT(failed && strstr(rep.why, want), "%s: want a failure saying '%s', got %s'%s'", what,
           want, failed ? "" : "a pass ", rep.why);
}

static void test_checker(const struct gr_algorithm *a)
{
  uint32_t *out;
  struct gr_instance *inst = make(a, "radix_sort n=5000 mode=pairs dist=few_unique seed=3", &out);
  const struct radix_sort_data *d = inst->priv;
  size_t n = d->n;
  expect_check(a, inst, out, NULL, "reference");

  /* stability: swap the values of two equal neighbouring keys */
  size_t i = 0;
  while (i + 1 < n && out[i] != out[i + 1])
    i++;
  uint32_t t = out[n + i];
  out[n + i] = out[n + i + 1];
  out[n + i + 1] = t;
  expect_check(a, inst, out, "not stable", "swapped values of equal keys");
  out[n + i + 1] = out[n + i];
  out[n + i] = t;

  /* a value beside another key */
  size_t j = n - 1;
  while (j > 0 && out[j] == out[0])
    j--;
  t = out[n];
  out[n] = out[n + j];
  out[n + j] = t;
  expect_check(a, inst, out, "do not follow their keys", "values of different keys swapped");
  out[n + j] = out[n];
  out[n] = t;

  /* a value that no input had; a value twice */
  t = out[n + 7];
  out[n + 7] = (uint32_t)(n + 5) ^ d->salt;
  expect_check(a, inst, out, "not an input value", "foreign value");
  out[n + 7] = out[n + 8];
  expect_check(a, inst, out, "", "duplicated value");
  out[n + 7] = t;

  /* an element left unwritten (poison) */
  t = out[100];
  out[100] = 0xa5a5a5a5u;
  expect_check(a, inst, out, "poison", "unwritten key");
  out[100] = t;
  expect_check(a, inst, out, NULL, "restored");
  drop(a, inst, out);

  /* keys only: out of order, and a duplicated key */
  inst = make(a, "radix_sort n=3000 mode=keys dist=uniform seed=4", &out);
  t = out[10];
  out[10] = out[11];
  out[11] = t;
  expect_check(a, inst, out, "out of order", "swapped neighbours");
  out[11] = out[10];
  expect_check(a, inst, out, "not a permutation", "duplicated key");
  drop(a, inst, out);

  /* n = 0: nothing to write, nothing to fail */
  inst = make(a, "radix_sort n=0 mode=pairs dist=uniform seed=1", &out);
  expect_check(a, inst, out, NULL, "n = 0");
  drop(a, inst, out);
}

static void test_generator(const struct gr_algorithm *a)
{
  char t1[GR_CASE_TEXT_LEN], t2[GR_CASE_TEXT_LEN], why[GR_WHY_LEN];
  int seen_dist[16] = {0}, large = 0, band = 0;
  for (int i = 0; i < 2000; i++) {
    struct gr_case c1, c2, back;
    case_generate(a, 11, (uint64_t)i, NULL, &c1);
    case_generate(a, 11, (uint64_t)i, NULL, &c2);
    case_format(&c1, t1, sizeof t1);
    case_format(&c2, t2, sizeof t2);
    EXPECT(strcmp(t1, t2) == 0, "not deterministic: '%s' vs '%s'", t1, t2);
    EXPECT(c1.v[0] >= 0 && c1.v[0] <= (1 << 26), "n out of the fuzz range: %s", t1);
    EXPECT(case_parse(t1, &back, why, sizeof why) == 0 && memcmp(back.v, c1.v, sizeof c1.v) == 0,
           "'%s' does not round-trip: %s", t1, why);
    seen_dist[c1.v[2]]++;
    large += c1.v[0] > (1 << 22);
    band += c1.v[0] >= 4096 && c1.v[0] <= 8193;
  }
  for (int k = 0; k < 9; k++)
    EXPECT(seen_dist[k] > 0, "distribution %d never drawn", k);
  EXPECT(large > 0 && large < 2000 / 20, "%d of 2000 cases above 2^22", large);
  EXPECT(band > 20, "only %d cases between one and two tiles", band);

  /* lane_digits: every byte's digit differs across each aligned group of 32 keys */
  uint32_t *out;
  struct gr_instance *inst = make(a, "radix_sort n=4096 mode=keys dist=lane_digits seed=5", &out);
  const struct radix_sort_data *d = inst->priv;
  int ok = 1;
  for (size_t g = 0; g + 32 <= d->n && ok; g += 32)
    for (int b = 0; b < 4 && ok; b++) {
      unsigned seen[8] = {0};
      for (int l = 0; l < 32; l++) {
        unsigned digit = (d->keys[g + l] >> (8 * b)) & 0xff;
        ok &= !(seen[digit / 32] & (1u << (digit % 32)));
        seen[digit / 32] |= 1u << (digit % 32);
      }
    }
  EXPECT(ok, "lane_digits repeats a digit inside a group of 32");
  drop(a, inst, out);

  /* and4: digit 0 dominates (each bit set with p = 1/16) */
  inst = make(a, "radix_sort n=10000 mode=keys dist=and4 seed=5", &out);
  d = inst->priv;
  size_t zero = 0;
  for (size_t k = 0; k < d->n; k++)
    zero += (d->keys[k] & 0xff) == 0;
  EXPECT(zero > d->n / 2, "and4: only %zu of %zu low bytes are 0", zero, d->n);
  drop(a, inst, out);
}

static void test_bench_cases(const struct gr_algorithm *a)
{
  char why[GR_WHY_LEN];
  int count = 0;
  double bytes, items;
  for (const char *const *t = a->bench_cases; *t; t++, count++) {
    struct gr_case c;
    EXPECT(case_parse(*t, &c, why, sizeof why) == 0, "bench case '%s': %s", *t, why);
    a->work(&c, &bytes, &items);
    EXPECT(items == (double)c.v[0] && bytes == items * (c.v[1] ? 68 : 36),
           "work model of '%s': %g bytes, %g items", *t, bytes, items);
  }
  EXPECT(count == 14, "%d bench cases, want 2^16..2^28 keys and pairs", count);
#ifdef GR_HOST_ONLY /* GPU code: none in a host-only build (GR_IF_CUDA) */
  EXPECT(!a->gpu, "a GPU lifecycle in a host-only build");
#else
  EXPECT(a->gpu && a->gpu->setup && a->gpu->launch && a->gpu->fetch && a->gpu->teardown,
         "GPU lifecycle missing");
#endif
  EXPECT(!a->bench_setup && !a->bench_launch && !a->bench_fetch && !a->bench_teardown,
         "timing hooks of its own beside the lifecycle");
}

/* v5_match_or's shape by n and mode, and the regimes that name each shape's cases: the tile at
 * each edge of a shape, and every regime drawn by the generator */
static int holds(const struct gr_algorithm *a, const char *name, int64_t n, int pairs)
{
  struct gr_case c;
  memset(&c, 0, sizeof c);
  c.alg = a;
  c.v[0] = n;
  c.v[1] = pairs;
  for (size_t i = 0; i < a->n_regimes; i++)
    if (strcmp(a->regimes[i].name, name) == 0)
      return a->regimes[i].holds(&c, NULL);
  EXPECT(0, "no regime '%s'", name);
  return -1;
}

static void test_v5_shapes(const struct gr_algorithm *a)
{
  static const struct {
    int64_t n;
    int pairs;
    int64_t tile;
  } t[] = {{1, 0, 4096},
           {RADIX_SORT_V5_SMALL_N, 0, 4096},
           {RADIX_SORT_V5_SMALL_N + 1, 0, 9216},
           {RADIX_SORT_V5_MID_N, 0, 9216},
           {RADIX_SORT_V5_MID_N + 1, 0, 10752},
           {RADIX_SORT_V5_SMALL_N, 1, 4096},
           {RADIX_SORT_V5_SMALL_N + 1, 1, 9216},
           {RADIX_SORT_V5_MID_N + 1, 1, 9216},
           {RADIX_SORT_V5_PAIRS_MID_N, 1, 9216},
           {RADIX_SORT_V5_PAIRS_MID_N + 1, 1, RADIX_SORT_V4_TILE}};
  for (size_t i = 0; i < sizeof t / sizeof *t; i++)
    EXPECT(radix_sort_v5_tile(t[i].n, t[i].pairs) == t[i].tile, "v5 tile of n=%lld %s: %lld",
           (long long)t[i].n, t[i].pairs ? "pairs" : "keys",
           (long long)radix_sort_v5_tile(t[i].n, t[i].pairs));
  const char *one = "one tile of 4096", *small = "n <= 2^19: partial last tile of 4096",
             *mid = "keys <= 2^22, pairs <= 2^24: partial tile of 9216",
             *keys_long = "keys > 2^22: partial last tile of 10752",
             *pairs_long = "pairs > 2^24: v4's tiles of 9216", *edge = "first or last n of a shape";
  EXPECT(holds(a, one, 4096, 0) == 1 && holds(a, one, 4097, 1) == 0, "one tile of 4096");
  EXPECT(holds(a, one, 1, 1) == 1 && holds(a, one, 0, 0) == 0 && holds(a, one, 0, 1) == 0,
         "one tile of 4096 takes n >= 1 (n = 0 launches nothing)");
  EXPECT(holds(a, small, 4097, 0) == 1 && holds(a, small, 8192, 1) == 0 &&
             holds(a, small, RADIX_SORT_V5_SMALL_N + 1, 0) == 0,
         "partial tiles of 4096");
  EXPECT(holds(a, mid, RADIX_SORT_V5_SMALL_N + 1, 0) == 1 && holds(a, mid, 9216 * 100, 0) == 0 &&
             holds(a, mid, RADIX_SORT_V5_MID_N, 0) == 1 &&
             holds(a, mid, RADIX_SORT_V5_PAIRS_MID_N, 1) == 1 &&
             holds(a, mid, RADIX_SORT_V5_MID_N + 1, 0) == 0 &&
             holds(a, mid, RADIX_SORT_V5_MID_N + 1, 1) == 1 &&
             holds(a, mid, RADIX_SORT_V5_PAIRS_MID_N + 1, 1) == 0,
         "partial tiles of 9216");
  EXPECT(holds(a, keys_long, RADIX_SORT_V5_MID_N + 1, 0) == 1 &&
             holds(a, keys_long, RADIX_SORT_V5_MID_N + 1, 1) == 0 &&
             holds(a, keys_long, 10752 * 400, 0) == 0,
         "partial tiles of 10752");
  EXPECT(holds(a, pairs_long, RADIX_SORT_V5_PAIRS_MID_N + 1, 1) == 1 &&
             holds(a, pairs_long, RADIX_SORT_V5_PAIRS_MID_N, 1) == 0 &&
             holds(a, pairs_long, RADIX_SORT_V5_PAIRS_MID_N + 1, 0) == 0,
         "pairs past 2^24");
  EXPECT(holds(a, edge, RADIX_SORT_V5_SMALL_N, 1) == 1 &&
             holds(a, edge, RADIX_SORT_V5_SMALL_N + 1, 0) == 1 &&
             holds(a, edge, RADIX_SORT_V5_MID_N, 0) == 1 &&
             holds(a, edge, RADIX_SORT_V5_PAIRS_MID_N + 1, 1) == 1 &&
             holds(a, edge, RADIX_SORT_V5_MID_N + 1, 0) == 1 &&
             holds(a, edge, RADIX_SORT_V5_MID_N + 1, 1) == 0 &&
             holds(a, edge, RADIX_SORT_V5_PAIRS_MID_N, 1) == 1 &&
             holds(a, edge, RADIX_SORT_V5_SMALL_N + 2, 0) == 0,
         "the edges of the shapes");
  /* the generator draws every one of them (the parent's steering aside) */
  const char *names[] = {one, small, mid, keys_long, pairs_long, edge};
  int seen[6] = {0};
  for (int i = 0; i < 20000; i++) {
    struct gr_case c;
    case_generate(a, 23, (uint64_t)i, NULL, &c);
    for (int k = 0; k < 6; k++)
      seen[k] += holds(a, names[k], c.v[0], (int)c.v[1]) == 1;
  }
  for (int k = 0; k < 6; k++)
    EXPECT(seen[k] > 0, "the generator never draws '%s' in 20000 cases", names[k]);
}

int main(void)
{
  const struct gr_algorithm *a = registry_find("radix_sort");
  if (!a) {
    printf("FAIL radix_sort not in the registry\n");
    return 1;
  }
  test_known_answers();
  test_reference_vs_qsort(a);
  test_checker(a);
  test_generator(a);
  test_bench_cases(a);
  test_v5_shapes(a);
  printf("%s (%d failures)\n", test_failures ? "FAIL" : "ok", test_failures);
  return test_failures ? 1 : 0;
}
