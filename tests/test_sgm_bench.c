/* GPU test and benchmark of the sgm variants (needs a CUDA device; exit 77 without one).
 *
 * 1. A grid of small targeted cases (D around every lane/warp threshold, 4 and 8 paths, 8- and
 *    16-bit path buffers, odd shapes) on every GPU variant, printing each failure: fixed variants
 *    must pass them all, v1_fullmask must be caught.
 * 2. The timing hooks on one small and one larger case per variant: setup, launch 3 times,
 *    fetch, check (fixed pass, historical caught when D % 32 != 0).
 * 3. The size sweep (the algorithm's bench_cases) for v6, v5, v4, v3 and v2_padded:
 *    CUDA events around each launch of the production pipeline, warm-up discarded, median of
 *    --reps; outputs cross-checked between the variants (and against the CPU reference for the
 *    640x480 cases). Printed with throughput (Mpixel*D/s), the ratio to v4 in the same run and
 *    the ratio to libSGM's H100 times.
 *
 * 4. Optionally (--cases N) N generated cases per variant, as tests/test_cases does.
 * Fixed variants run before the historical one, so that a crash of the latter loses nothing.
 *
 *   test_sgm_bench [--variant NAME] [--cases N] [--seed S] [--grid full|quick|none]
 *                  [--no-hooks] [--no-sweep] [--no-v2] [--sweep-case I] [--reps N]
 * Exit 0 all good, 1 a check failed, 77 no GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/sgm/sgm_alg.h"
#include "bench_hooks.h"
#include "case.h"
#include "check.h"
#include "gpu.h"
#include "gpu_timing.h"
#include "registry.h"
#include "worker.h"

/* the timing hooks of sgm (made from its lifecycle), set in main */
static struct bench_hooks H;

static int failures;

static int is_fixed(const struct gr_variant *v)
{
  return v->kind == GR_VARIANT_FIXED;
}

/* 1. targeted grid ---------------------------------------------------------------------------- */

static void grid(const struct gr_algorithm *a, const struct gr_variant *const *vs, int nv,
                 int quick)
{
  static const int ds_full[] = {1,   2,   31,  32,  33,  63,  64,  100,
                                129, 256, 257, 270, 288, 289, 385, 512};
  static const int ds_quick[] = {1, 33, 100, 270, 512};
  static const int sizes_full[][2] = {{1, 1}, {5, 3}, {37, 29}, {130, 17}, {3, 90}};
  static const int sizes_quick[][2] = {{5, 3}, {37, 29}};
  const int *ds = quick ? ds_quick : ds_full;
  const int(*sizes)[2] = quick ? sizes_quick : sizes_full;
  size_t nds = quick ? 5 : 16, nsizes = quick ? 2 : 5;
  static const int p2s[] = {120, 1000};
  printf("== targeted grid%s\n", quick ? " (quick)" : "");
  for (int vi = 0; vi < nv; vi++) {
    const struct gr_variant *v = vs[vi];
    int pass = 0, fail = 0, shown = 0, odd_fail = 0, odd = 0;
    for (size_t di = 0; di < nds; di++)
      for (size_t si = 0; si < nsizes; si++)
        for (int paths = 4; paths <= 8; paths += 4)
          for (size_t pi = 0; pi < 2; pi++) {
            char text[256], why[GR_WHY_LEN];
            snprintf(text, sizeof text,
                     "sgm w=%d h=%d d=%d p1=10 p2=%d paths=%d content=%s seed=%zu", sizes[si][0],
                     sizes[si][1], ds[di], p2s[pi], paths, si % 2 ? "noise" : "randomdot",
                     di * 100 + si);
            struct gr_case c;
            if (case_parse(text, &c, why, sizeof why)) {
              printf("BAD case '%s': %s\n", text, why);
              failures++;
              continue;
            }
            struct case_result r;
            worker_run_case(&c, v, &r);
            int ok = r.verdict == VERDICT_PASS;
            pass += ok;
            fail += !ok;
            odd += ds[di] % 32 != 0;
            odd_fail += !ok && ds[di] % 32 != 0;
            if (!ok && is_fixed(v) && shown++ < 12)
              printf("  %s FAIL %s: %s: %s\n", v->name, text, r.tag, r.why);
            if (!ok && !is_fixed(v) && shown++ < 2)
              printf("  %s caught %s: %s: %s\n", v->name, text, r.tag, r.why);
          }
    int good = is_fixed(v) ? fail == 0 : odd_fail > 0;
    printf("%-4s %-16s %-10s grid: pass %d fail %d (D %% 32 != 0: %d of %d caught/failed)\n",
           good ? "ok" : "BAD", v->name, gr_variant_kind_name(v->kind), pass, fail, odd_fail, odd);
    failures += !good;
  }
}

/* 2. timing hooks -------------------------------------------------------------------------------
 */

static void hooks(const struct gr_algorithm *a, const struct gr_variant *const *vs, int nv)
{
  static const char *const texts[] = {
      "sgm w=61 h=37 d=33 p1=10 p2=120 paths=8 content=randomdot seed=11",   /* per-path layout */
      "sgm w=333 h=211 d=100 p1=7 p2=300 paths=4 content=randomdot seed=12", /* compact, 16-bit */
  };
  printf("== timing hooks\n");
  for (size_t ti = 0; ti < 2; ti++)
    for (int vi = 0; vi < nv; vi++) {
      const struct gr_variant *v = vs[vi];
      struct gr_case c;
      struct gr_instance *inst;
      char why[GR_WHY_LEN];
      case_parse(texts[ti], &c, why, sizeof why);
      if (a->instance_new(&c, &inst, why, sizeof why)) {
        printf("BAD instance: %s\n", why);
        failures++;
        continue;
      }
      void *st = H.setup(v, inst, why, sizeof why);
      if (!st) {
        printf("BAD %s setup: %s\n", v->name, why);
        failures++;
        a->instance_free(inst);
        continue;
      }
      for (int i = 0; i < 3; i++)
        H.launch(st);
      void *out = malloc(inst->out_bytes);
      H.fetch(st, out);
      H.teardown(st);
      struct gr_check_report rep;
      memset(&rep, 0, sizeof rep);
      int failed = a->check(inst, out, &rep);
      int good = is_fixed(v) ? !failed : failed;
      printf("%-4s %-16s hooks on '%s': %s%s\n", good ? "ok" : "BAD", v->name, texts[ti],
             failed ? "check failed: " : "pass", failed ? rep.why : "");
      failures += !good;
      free(out);
      a->instance_free(inst);
    }
}

/* 4. generated cases ------------------------------------------------------------------------------
 */

static void fuzz(const struct gr_algorithm *a, const struct gr_variant *const *vs, int nv,
                 long cases, unsigned long long seed)
{
  printf("== %ld generated cases per variant (seed %llu)\n", cases, seed);
  for (int vi = 0; vi < nv; vi++) {
    const struct gr_variant *v = vs[vi];
    long pass = 0, skip = 0, fail = 0;
    double t0 = now_seconds();
    char text[GR_CASE_TEXT_LEN];
    for (long i = 0; i < cases; i++) {
      struct gr_case c;
      struct case_result r;
      case_generate(a, seed, (uint64_t)i, NULL, &c);
      worker_run_case(&c, v, &r);
      if (r.verdict == VERDICT_PASS) {
        pass++;
        continue;
      }
      if (r.verdict == VERDICT_SKIP) {
        skip++;
        continue;
      }
      if (fail++ < 5)
        printf("  %s %s: %s: %s: %s\n", v->name, is_fixed(v) ? "FAIL" : "caught",
               case_format(&c, text, sizeof text), verdict_name(r.verdict), r.why);
      if (!is_fixed(v))
        break;
    }
    int good = is_fixed(v) ? fail == 0 : fail > 0;
    printf("%-4s %-16s %-10s generated: pass %ld skip %ld fail %ld in %.1f s%s\n",
           good ? "ok" : "BAD", v->name, gr_variant_kind_name(v->kind), pass, skip, fail,
           now_seconds() - t0, !is_fixed(v) && fail ? " (caught)" : "");
    fflush(stdout);
    failures += !good;
  }
}

/* 3. sweep ----------------------------------------------------------------------------------------
 */

struct libsgm_time {
  int w, h, d, paths;
  double ms;
};
/* libSGM on an H100 (doc/algorithms.md); 0: no figure (the D = 270 goal is < 20 ms with 8 paths) */
static const struct libsgm_time libsgm[] = {
    {640, 480, 64, 8, 0.99},    {640, 480, 64, 4, 0.73},    {1920, 1080, 128, 8, 3.55},
    {1920, 1080, 128, 4, 2.42}, {2964, 2000, 256, 8, 14.2}, {2964, 2000, 256, 4, 7.28},
};

static double libsgm_ms(const struct sgm_params *p)
{
  for (size_t i = 0; i < sizeof libsgm / sizeof *libsgm; i++)
    if (libsgm[i].w == p->width && libsgm[i].h == p->height && libsgm[i].d == p->disp &&
        libsgm[i].paths == p->paths)
      return libsgm[i].ms;
  return 0;
}

struct row {
  char label[48];
  const char *variant;
  double median, min, mpds, lib, v4; /* v4: v4_packed_dpx's median on the same case */
  const char *check;
};

static void sweep(const struct gr_algorithm *a, int reps, int with_v2, int only_case,
                  struct row *rows, int *nrows)
{
  static const char *const names[] = {"v6_staged_ring", "v5_prefetch_wta", "v4_packed_dpx",
                                      "v3_warp_fused", "v2_padded"};
  enum { NV = sizeof names / sizeof *names };
  const int nvar = with_v2 ? NV : NV - 1;
  printf("== sweep (reps %d)\n", reps);
  for (int ci = 0; a->bench_cases[ci]; ci++) {
    if (only_case >= 0 && ci != only_case)
      continue;
    struct gr_case c;
    struct gr_instance *inst;
    char why[GR_WHY_LEN];
    if (case_parse(a->bench_cases[ci], &c, why, sizeof why) == -2) {
      printf("skip %s: %s\n", a->bench_cases[ci], why); /* dataset not fetched */
      continue;
    }
    if (a->instance_new(&c, &inst, why, sizeof why)) {
      printf("BAD instance: %s\n", why);
      failures++;
      continue;
    }
    struct sgm_data *d = inst->priv;
    void *outs[NV] = {NULL};
    int first_row = *nrows;
    for (int vi = 0; vi < nvar; vi++) {
      const struct gr_variant *v = gr_alg_variant(a, names[vi]);
      void *st = H.setup(v, inst, why, sizeof why);
      if (!st) {
        printf("BAD %s setup: %s\n", v->name, why);
        failures++;
        continue;
      }
      int n = vi == NV - 1 ? (reps < 5 ? reps : 5) : reps; /* v2 is slow */
      struct gpu_timing t = gpu_time(H.launch, st, 2, n, GPU_L2_WARM);
      outs[vi] = malloc(inst->out_bytes);
      H.fetch(st, outs[vi]);
      H.teardown(st);
      struct row *r = &rows[(*nrows)++];
      snprintf(r->label, sizeof r->label, "%dx%d D%d %dp", d->prm.width, d->prm.height, d->prm.disp,
               d->prm.paths);
      r->variant = v->name;
      r->median = t.median_ms;
      r->min = t.min_ms;
      r->mpds = (double)d->prm.width * d->prm.height * d->prm.disp / (r->median * 1e3);
      r->lib = libsgm_ms(&d->prm);
      r->check = "-";
      r->v4 = 0;
      if (d->prm.width * d->prm.height <= 640 * 480) { /* the CPU reference is quick here */
        struct gr_check_report rep;
        memset(&rep, 0, sizeof rep);
        int failed = a->check(inst, outs[vi], &rep);
        r->check = failed ? "FAIL ref" : "ref ok";
        if (failed) {
          printf("BAD %s %s: %s\n", v->name, r->label, rep.why);
          failures++;
        }
      }
      printf("  %-20s %-14s median %9.3f ms  min %9.3f ms\n", r->label, r->variant, r->median,
             r->min);
      fflush(stdout);
    }
    /* every variant's output equal to the last one's (v2_padded, the plain fixed baseline) */
    for (int vi = 0; vi + 1 < nvar; vi++) {
      if (!outs[vi] || !outs[nvar - 1])
        continue;
      size_t i = gr_check_first_diff(outs[vi], outs[nvar - 1], inst->out_bytes, 2);
      if (i != (size_t)-1) {
        printf("BAD %s: %s and %s differ at output element %zu\n", a->bench_cases[ci], names[vi],
               names[nvar - 1], i);
        failures++;
      } else if (!strcmp(rows[first_row + vi].check, "-"))
        rows[first_row + vi].check = nvar == NV ? "== v2" : "== v3";
    }
    double v4 = 0; /* v4's median on this case, when it ran */
    for (int i = first_row; i < *nrows; i++)
      if (!strcmp(rows[i].variant, "v4_packed_dpx"))
        v4 = rows[i].median;
    for (int i = first_row; i < *nrows; i++)
      rows[i].v4 = v4;
    for (int vi = 0; vi < NV; vi++)
      free(outs[vi]);
    a->instance_free(inst);
  }
}

static void print_table(const struct row *rows, int nrows)
{
  printf("\n%-20s %-15s %10s %10s %12s %7s %10s %7s  %s\n", "case", "variant", "median ms",
         "min ms", "Mpix*D/s", "/ v4", "libSGM ms", "ratio", "check");
  for (int i = 0; i < nrows; i++) {
    char lib[16] = "-", ratio[16] = "-", v4[16] = "-";
    if (rows[i].v4 > 0)
      snprintf(v4, sizeof v4, "%.3f", rows[i].median / rows[i].v4);
    if (rows[i].lib > 0) {
      snprintf(lib, sizeof lib, "%.2f", rows[i].lib);
      snprintf(ratio, sizeof ratio, "%.2f", rows[i].median / rows[i].lib);
    }
    printf("%-20s %-15s %10.3f %10.3f %12.0f %7s %10s %7s  %s\n", rows[i].label, rows[i].variant,
           rows[i].median, rows[i].min, rows[i].mpds, v4, lib, ratio, rows[i].check);
  }
  fflush(stdout);
}

int main(int argc, char **argv)
{
  int reps = 20, do_sweep = 1, with_v2 = 1, do_hooks = 1, grid_mode = 2; /* 2 full, 1 quick */
  int only_case = -1;
  long cases = 0;
  unsigned long long seed = 7;
  const char *only = NULL;
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
      cases = atol(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--variant") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--grid") && i + 1 < argc) {
      i++;
      grid_mode = !strcmp(argv[i], "full") ? 2 : !strcmp(argv[i], "quick") ? 1 : 0;
    } else if (!strcmp(argv[i], "--no-hooks"))
      do_hooks = 0;
    else if (!strcmp(argv[i], "--no-sweep"))
      do_sweep = 0;
    else if (!strcmp(argv[i], "--no-v2"))
      with_v2 = 0;
    else if (!strcmp(argv[i], "--sweep-case") && i + 1 < argc)
      only_case = atoi(argv[++i]);
    else {
      fprintf(stderr,
              "usage: test_sgm_bench [--variant NAME] [--cases N] [--seed S] "
              "[--grid full|quick|none] [--no-hooks] [--no-sweep] [--no-v2] [--sweep-case I] "
              "[--reps N]\n");
      return 2;
    }
  }
  if (reps < 1)
    reps = 1;
  char why[GR_WHY_LEN];
  if (!worker_gpu_ready(why, sizeof why)) {
    printf("skipped: %s\n", why);
    return 77;
  }
  struct gr_gpu_info gi;
  if (gr_gpu_query(&gi, why, sizeof why) == 0)
    printf("device: %s (%d SMs, cc %d.%d, runtime %d, driver %d)\n", gi.name, gi.sm_count,
           gi.cc_major, gi.cc_minor, gi.runtime_version, gi.driver_version);
  const struct gr_algorithm *a = registry_find("sgm");
  if (!a || !bench_hooks_of(a, &H)) {
    printf("FAIL sgm is not registered with timing hooks\n");
    return 1;
  }
  /* GPU variants, fixed before historical */
  const struct gr_variant *vs[8];
  int nv = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < a->n_variants; i++) {
      const struct gr_variant *v = &a->variants[i];
      if ((v->flags & GR_VARIANT_GPU) && is_fixed(v) == !pass && (!only || !strcmp(only, v->name)))
        vs[nv++] = v;
    }
  if (only && !nv) {
    fprintf(stderr, "no GPU variant '%s' in sgm\n", only);
    return 2;
  }
  if (grid_mode)
    grid(a, vs, nv, grid_mode == 1);
  if (do_hooks)
    hooks(a, vs, nv);
  if (cases > 0)
    fuzz(a, vs, nv, cases, seed);
  if (do_sweep) {
    struct row rows[64];
    int nrows = 0;
    sweep(a, reps, with_v2, only_case, rows, &nrows);
    print_table(rows, nrows);
  }
  printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
