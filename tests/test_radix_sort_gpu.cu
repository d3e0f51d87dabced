/* GPU test and benchmark of radix_sort through its timing hooks, the way the timer calls them:
 * setup once, launch many times, fetch (bench_hooks.h), then the output is checked against the
 * reference (fixed and peer variants must pass, the historical one must be caught).
 *
 *   test_radix_sort_gpu [quick|full|small [CASES [VARIANT]]|in-place [CASES [NMAX]]|profile]
 *
 * quick (ctest, label gpu): the hooks on small and odd sizes, timing at 2^20.
 * small: only CASES (16) generated cases of n <= 20000 per GPU variant (or VARIANT alone) through
 * the worker (two runs, poisoned output and shared memory), short enough for compute-sanitizer.
 * in-place: small's cases (of n <= NMAX, default 20000: two or three tiles) on v6_values_in_place
 * with its values-in-place kernel (and the lane histogram) for pairs of every n
 * (radix_sort_v6_in_place_from = 0; by default only past 2^24, which the sanitizer lane never
 * picks); quick runs 16 of them too.
 * profile: one v3_warp sort of 2^24 keys and one of 2^24 pairs, nothing else (for ncu).
 * full: also the speed table at 2^24 and 2^28 keys and pairs for v1_basic, v3_warp, v4_onesweep,
 * v5_match_or, v6_values_in_place and cub (CUDA events around each launch, 3 warm-up launches,
 * median of 15; L2 warm, back to back), the per-kernel split of v4, v3 and v1 at the largest size
 * (radix_sort_trace), and the device's copy bandwidth (1 GiB device-to-device, read + write
 * counted) for the % column; goals: v3_warp within 2x cub at 2^28 keys, v4_onesweep within issue
 * 15's ratios. Exit 0 ok, 1 a check failed or a goal was missed, 77 no GPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/radix_sort/radix_sort.h"
#include "algorithms/radix_sort/radix_sort_alg.h"
#include "bench_hooks.h"
#include "case.h"
#include "gpu.h"
#include "gpu_timing.h"
#include "registry.h"
#include "worker.h"

/* the timing hooks of radix_sort (made from its lifecycle), set in main */
static struct bench_hooks H;

#define WARMUP 3
#define REPS 15

static int failures;

/* Instance of case text (kept for the whole test; exits on a bad text). */
static struct gr_instance *instance(const struct gr_algorithm *a, const char *text)
{
  struct gr_case *c = (struct gr_case *)malloc(sizeof *c);
  struct gr_instance *inst;
  char why[GR_WHY_LEN];
  if (case_parse(text, c, why, sizeof why) || a->instance_new(c, &inst, why, sizeof why)) {
    printf("FAIL cannot build '%s': %s\n", text, why);
    exit(1);
  }
  return inst;
}

static void instance_drop(const struct gr_algorithm *a, struct gr_instance *inst)
{
  const struct gr_case *c = inst->c;
  a->instance_free(inst);
  free((void *)c);
}

/* Fetch and check. 1 when the output is right. A plain comparison with the reference first (fast
 * at 2^28), the checker for the reason when it differs. */
static int fetch_and_check(const struct gr_algorithm *a, const struct gr_instance *inst,
                           void *state, char *why, size_t len)
{
  const struct radix_sort_data *d = (const struct radix_sort_data *)inst->priv;
  uint32_t *out = (uint32_t *)malloc(inst->out_bytes + 4);
  H.fetch(state, out);
  int ok = memcmp(out, d->ref_keys, d->n * 4) == 0 &&
           (!d->pairs || memcmp(out + d->n, d->ref_vals, d->n * 4) == 0);
  why[0] = 0;
  if (!ok) {
    struct gr_check_report rep;
    memset(&rep, 0, sizeof rep);
    if (a->check(inst, out, &rep))
      gr_fmt(why, len, "%s", rep.why);
    else
      gr_fmt(why, len, "differs from the reference but passes the checker (checker bug)");
  }
  free(out);
  return ok;
}

/* The hooks on odd sizes: setup, 3 launches, fetch, check. */
static void test_hooks(const struct gr_algorithm *a)
{
  static const char *const cases[] = {
      "radix_sort n=0 mode=pairs dist=uniform seed=1",
      "radix_sort n=1 mode=keys dist=uniform seed=1",
      "radix_sort n=4097 mode=pairs dist=lane_digits seed=2",
      "radix_sort n=100003 mode=keys dist=and3 seed=3",
      "radix_sort n=2162689 mode=pairs dist=uniform seed=4",
  };
  char why[GR_WHY_LEN];
  for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
    struct gr_instance *inst = instance(a, cases[ci]);
    for (size_t vi = 0; vi < a->n_variants; vi++) {
      const struct gr_variant *v = &a->variants[vi];
      void *st = H.setup(v, inst, why, sizeof why);
      if (!st) {
        if (v->flags & GR_VARIANT_GPU) {
          printf("FAIL %s %s: setup refused: %s\n", cases[ci], v->name, why);
          failures++;
        }
        continue;
      }
      for (int i = 0; i < 3; i++)
        H.launch(st);
      int ok = fetch_and_check(a, inst, st, why, sizeof why);
      H.teardown(st);
      int hist = v->kind == GR_VARIANT_HISTORICAL, trivial = inst->out_bytes <= 8;
      if (hist && !trivial) /* must be caught wherever more than one warp of keys varies */
        ok = !ok;
      printf("%-4s hooks %-48s %-14s %s%s\n", ok ? "ok" : "FAIL", cases[ci], v->name,
             hist && !trivial ? (ok ? "caught: " : "ESCAPED") : "", why);
      failures += !ok;
    }
    instance_drop(a, inst);
  }
}

/* v6_values_in_place's values-in-place kernel on small cases: the hook lowered to 0 routes every
 * pairs sort there (half of the generated cases are pairs). */
static void test_small(const struct gr_algorithm *a, int cases, const char *only, long nmax);
static void test_in_place(const struct gr_algorithm *a, int cases, long nmax)
{
  int was = radix_sort_v6_in_place_from;
  radix_sort_v6_in_place_from = 0;
  printf("     v6_values_in_place with its values-in-place kernel for pairs of every n:\n");
  test_small(a, cases, "v6_values_in_place", nmax);
  radix_sort_v6_in_place_from = was;
}

/* Generated small cases through the worker, as test_cases does. */
static void test_small(const struct gr_algorithm *a, int cases, const char *only, long nmax)
{
  struct case_limits lim;
  memset(&lim, 0, sizeof lim);
  char why[GR_WHY_LEN], text[GR_CASE_TEXT_LEN], limit[48];
  snprintf(limit, sizeof limit, "n=0..%ld", nmax);
  if (case_limits_add(a, &lim, limit, why, sizeof why)) {
    printf("FAIL %s\n", why);
    exit(1);
  }
  for (size_t vi = 0; vi < a->n_variants; vi++) {
    const struct gr_variant *v = &a->variants[vi];
    if (!(v->flags & GR_VARIANT_GPU) || (only && strcmp(only, v->name) != 0))
      continue;
    int pass = 0, fail = 0;
    for (int i = 0; i < cases; i++) {
      struct gr_case c;
      struct case_result r;
      case_generate(a, 5, (uint64_t)i, &lim, &c);
      worker_run_case(&c, v, &r);
      if (r.verdict == VERDICT_PASS)
        pass++;
      else if (!fail++)
        printf("     %s %s: %s: %s\n", v->name, case_format(&c, text, sizeof text),
               verdict_name(r.verdict), r.why);
    }
    int ok = v->kind == GR_VARIANT_HISTORICAL ? fail > 0 : fail == 0;
    printf("%-4s small %-14s pass %d fail %d\n", ok ? "ok" : "FAIL", v->name, pass, fail);
    failures += !ok;
  }
}

struct timing {
  double med, min;
  int ok;
};

static struct timing time_variant(const struct gr_algorithm *a, const struct gr_variant *v,
                                  const struct gr_instance *inst, int reps)
{
  struct timing t = {0, 0, 0};
  char why[GR_WHY_LEN];
  void *st = H.setup(v, inst, why, sizeof why);
  if (!st) {
    printf("FAIL %s: setup: %s\n", v->name, why);
    failures++;
    return t;
  }
  struct gpu_timing g = gpu_time(H.launch, st, WARMUP, reps, GPU_L2_WARM);
  t.med = g.median_ms;
  t.min = g.min_ms;
  t.ok = fetch_and_check(a, inst, st, why, sizeof why);
  if (!t.ok) {
    printf("FAIL %s after the timing loop: %s\n", v->name, why);
    failures++;
  }
  H.teardown(st);
  return t;
}

/* Per-kernel times of one variant (mean of 5 traced launches), printed per pass. */
static void split_variant(const struct gr_algorithm *a, const struct gr_variant *v,
                          const struct gr_instance *inst)
{
  const int slots = 1 + 3 * RADIX_SORT_PASSES;
  cudaEvent_t ev[1 + 3 * RADIX_SORT_PASSES];
  char why[GR_WHY_LEN];
  for (int i = 0; i < slots; i++)
    GR_CUDA_CHECK(cudaEventCreate(&ev[i]));
  void *st = H.setup(v, inst, why, sizeof why);
  if (!st)
    return;
  H.launch(st);
  double sum[1 + 3 * RADIX_SORT_PASSES] = {0};
  radix_sort_trace = ev;
  for (int r = 0; r < 5; r++) {
    H.launch(st);
    GR_CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 1; i < slots; i++) {
      float x;
      GR_CUDA_CHECK(cudaEventElapsedTime(&x, ev[i - 1], ev[i]));
      sum[i] += x / 5;
    }
  }
  radix_sort_trace = NULL;
  const struct radix_sort_data *d = (const struct radix_sort_data *)inst->priv;
  double n = (double)d->n, total = 0;
  printf("split %s n=%zu %s (ms; GB/s of the bytes each kernel must move)\n", v->name, d->n,
         d->pairs ? "pairs" : "keys");
  for (int p = 0; p < RADIX_SORT_PASSES; p++) {
    double h = sum[1 + 3 * p], s = sum[2 + 3 * p], c = sum[3 + 3 * p];
    double hb = 4 * n, cb = (d->pairs ? 16 : 8) * n;
    printf("  pass %d: histogram %.3f (%.0f GB/s)  scan %.3f  scatter %.3f (%.0f GB/s)\n", p, h,
           hb / h / 1e6, s, c, cb / c / 1e6);
    total += h + s + c;
  }
  printf("  total %.3f ms\n", total);
  H.teardown(st);
  for (int i = 0; i < slots; i++)
    GR_CUDA_CHECK(cudaEventDestroy(ev[i]));
}

int main(int argc, char **argv)
{
  int full = argc > 1 && strcmp(argv[1], "full") == 0;
  char why[GR_WHY_LEN];
  if (!worker_gpu_ready(why, sizeof why)) {
    printf("skipped: %s\n", why);
    return 77;
  }
  const struct gr_algorithm *a = registry_find("radix_sort");
  struct gr_gpu_info info;
  if (!a || !bench_hooks_of(a, &H) || gr_gpu_query(&info, why, sizeof why)) {
    printf("FAIL %s\n", a ? why : "radix_sort not in the registry");
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "profile") == 0) {
    static const char *const texts[] = {"radix_sort n=16777216 mode=keys dist=uniform seed=1",
                                        "radix_sort n=16777216 mode=pairs dist=uniform seed=1"};
    for (int i = 0; i < 2; i++) {
      struct gr_instance *inst = instance(a, texts[i]);
      void *st = H.setup(gr_alg_variant(a, "v3_warp"), inst, why, sizeof why);
      H.launch(st);
      int ok = fetch_and_check(a, inst, st, why, sizeof why);
      printf("%s profile %s %s\n", ok ? "ok" : "FAIL", texts[i], why);
      failures += !ok;
      H.teardown(st);
      instance_drop(a, inst);
    }
    return failures ? 1 : 0;
  }
  if (argc > 1 && strcmp(argv[1], "small") == 0) {
    test_small(a, argc > 2 ? atoi(argv[2]) : 16, argc > 3 ? argv[3] : NULL, 20000);
    printf("%s (%d failures)\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
  }
  if (argc > 1 && strcmp(argv[1], "in-place") == 0) {
    test_in_place(a, argc > 2 ? atoi(argv[2]) : 16, argc > 3 ? atol(argv[3]) : 20000);
    printf("%s (%d failures)\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
  }
  test_hooks(a);
  test_in_place(a, 16, 20000);

  double bw = gpu_copy_bandwidth((size_t)1 << 30, 10);
  static const char *const quick_cases[] = {"radix_sort n=1048576 mode=keys dist=uniform seed=1",
                                            "radix_sort n=1048576 mode=pairs dist=uniform seed=1"};
  static const char *const full_cases[] = {"radix_sort n=16777216 mode=keys dist=uniform seed=1",
                                           "radix_sort n=16777216 mode=pairs dist=uniform seed=1",
                                           "radix_sort n=268435456 mode=keys dist=uniform seed=1",
                                           "radix_sort n=268435456 mode=pairs dist=uniform seed=1"};
  const char *const *cases = full ? full_cases : quick_cases;
  size_t ncases = full ? 4 : 2;
  static const char *const timed[] = {"v1_basic",           "v3_warp", "v4_onesweep", "v5_match_or",
                                      "v6_values_in_place", "cub"};
  const int ntimed = sizeof timed / sizeof *timed, peer = ntimed - 1;
  char lines[32][200];
  int nlines = 0;
  for (size_t ci = 0; ci < ncases; ci++) {
    struct gr_instance *inst = instance(a, cases[ci]);
    const struct radix_sort_data *d = (const struct radix_sort_data *)inst->priv;
    struct timing t[sizeof timed / sizeof *timed];
    for (int k = 0; k < ntimed; k++)
      t[k] = time_variant(a, gr_alg_variant(a, timed[k]), inst, full ? REPS : 5);
    double bytes, items;
    a->work(inst->c, &bytes, &items);
    for (int k = 0; k < ntimed; k++)
      gr_fmt(lines[nlines++], sizeof lines[0],
             "n=2^%-2d %-5s  %-11s %8.3f %8.3f %8.2f %7.1f%%  %5.2fx  %s", __builtin_ctzll(d->n),
             d->pairs ? "pairs" : "keys", timed[k], t[k].med, t[k].min, items / t[k].med / 1e6,
             100.0 * bytes / (t[k].med * 1e-3) / bw, t[k].med / t[peer].med,
             t[k].ok ? "ok" : "WRONG");
    if (full && d->n == ((size_t)1 << 28) && !d->pairs && t[1].med > 2 * t[peer].med) {
      printf("FAIL v3_warp at 2^28 keys: %.3f ms, more than 2x cub's %.3f ms\n", t[1].med,
             t[peer].med);
      failures++;
    }
    /* issue 15's goals for v4_onesweep: 2^28 keys 1.10x cub, 2^28 pairs 1.30x, 2^24 keys 1.20x */
    int big = d->n == ((size_t)1 << 28);
    double goal = d->pairs ? 1.30 : big ? 1.10 : 1.20;
    if (full && (big || !d->pairs) && t[2].med > goal * t[peer].med) {
      printf("FAIL v4_onesweep at 2^%d %s: %.3f ms, more than %.2fx cub's %.3f ms\n",
             __builtin_ctzll(d->n), d->pairs ? "pairs" : "keys", t[2].med, goal, t[peer].med);
      failures++;
    }
    if (ci + 1 == ncases || (full && ci == 2)) {
      split_variant(a, gr_alg_variant(a, "v4_onesweep"), inst);
      split_variant(a, gr_alg_variant(a, "v3_warp"), inst);
      split_variant(a, gr_alg_variant(a, "v1_basic"), inst);
    }
    instance_drop(a, inst);
  }
  printf("\ndevice: %s, %d SMs, copy bandwidth %.0f GB/s (1 GiB device-to-device, read + write)\n",
         info.name, info.sm_count, bw / 1e9);
  printf("times: CUDA events around one whole sort, %d warm-up, median of %d, L2 warm\n", WARMUP,
         full ? REPS : 5);
  printf("%% copy: floor bytes (36/key keys, 68/pair pairs) per second over the copy bandwidth\n");
  printf("case          variant     median ms   min ms  Gkeys/s  %%copy   vs cub  check\n");
  for (int i = 0; i < nlines; i++)
    printf("%s\n", lines[i]);
  printf("%s (%d failures)\n", failures ? "FAIL" : "ok", failures);
  return failures ? 1 : 0;
}
