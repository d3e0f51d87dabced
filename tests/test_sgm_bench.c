/* GPU test and benchmark of the sgm variants (needs a CUDA device; exit 77 without one).
 *
 * 1. A grid of small targeted cases (D around every lane/warp threshold, 4 and 8 paths, 8- and
 *    16-bit path buffers, odd shapes) on every GPU variant, printing each failure: fixed variants
 *    must pass them all, v1_fullmask must be caught.
 * 2. The timing hooks on one small and one larger case per variant: setup, launch 3 times,
 *    fetch, check (fixed pass, historical caught when D % 32 != 0).
 * 3. The size sweep (the algorithm's bench_cases) for v3_warp_fused and v2_padded:
 *    CUDA events around each launch of the production pipeline, warm-up discarded, median of
 *    --reps; outputs cross-checked between the variants (and against the CPU reference for the
 *    640x480 cases). Printed with throughput (Mpixel*D/s) and the ratio to libSGM's H100 times.
 *
 *   test_sgm_bench [--reps N] [--no-sweep] [--no-v2]
 * Exit 0 all good, 1 a check failed, 77 no GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/sgm/sgm_alg.h"
#include "case.h"
#include "check.h"
#include "gpu.h"
#include "registry.h"
#include "worker.h"

static int failures;

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int is_fixed(const struct variant *v) { return v->kind == VARIANT_FIXED; }

/* 1. targeted grid ---------------------------------------------------------------------------- */

static void grid(const struct algorithm *a)
{
  static const int ds[] = {1, 2, 31, 32, 33, 63, 64, 100, 129, 256, 257, 270, 288, 289, 385, 512};
  static const int sizes[][2] = {{1, 1}, {5, 3}, {37, 29}, {130, 17}, {3, 90}};
  static const int p2s[] = {120, 1000};
  printf("== targeted grid\n");
  for (size_t vi = 0; vi < a->n_variants; vi++) {
    const struct variant *v = &a->variants[vi];
    if (!(v->flags & VARIANT_GPU))
      continue;
    int pass = 0, fail = 0, shown = 0, odd_fail = 0, odd = 0;
    for (size_t di = 0; di < sizeof ds / sizeof *ds; di++)
      for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
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
           good ? "ok" : "BAD", v->name, variant_kind_name(v->kind), pass, fail, odd_fail, odd);
    failures += !good;
  }
}

/* 2. timing hooks ------------------------------------------------------------------------------- */

static void hooks(const struct algorithm *a)
{
  static const char *const texts[] = {
      "sgm w=61 h=37 d=33 p1=10 p2=120 paths=8 content=randomdot seed=11",   /* per-path layout */
      "sgm w=333 h=211 d=100 p1=7 p2=300 paths=4 content=randomdot seed=12", /* compact, 16-bit */
  };
  printf("== timing hooks\n");
  for (size_t ti = 0; ti < 2; ti++)
    for (size_t vi = 0; vi < a->n_variants; vi++) {
      const struct variant *v = &a->variants[vi];
      if (!(v->flags & VARIANT_GPU))
        continue;
      struct gr_case c;
      struct gr_instance *inst;
      char why[GR_WHY_LEN];
      case_parse(texts[ti], &c, why, sizeof why);
      if (a->instance_new(&c, &inst, why, sizeof why)) {
        printf("BAD instance: %s\n", why);
        failures++;
        continue;
      }
      void *st = a->bench_setup(v, inst, why, sizeof why);
      if (!st) {
        printf("BAD %s setup: %s\n", v->name, why);
        failures++;
        a->instance_free(inst);
        continue;
      }
      for (int i = 0; i < 3; i++)
        a->bench_launch(st);
      void *out = malloc(inst->out_bytes);
      a->bench_fetch(st, out);
      a->bench_teardown(st);
      struct check_report rep;
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

/* 3. sweep ---------------------------------------------------------------------------------------- */

struct libsgm_time {
  int w, h, d, paths;
  double ms;
};
/* libSGM on an H100 (ALGORITHMS.md); 0: no figure (the D = 270 goal is < 20 ms with 8 paths) */
static const struct libsgm_time libsgm[] = {
    {640, 480, 64, 8, 0.99},    {640, 480, 64, 4, 0.73},  {1920, 1080, 128, 8, 3.55},
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
  double median, min, mpds, lib;
  const char *check;
};

static void sweep(const struct algorithm *a, int reps, int with_v2, struct row *rows, int *nrows)
{
  static const char *const names[] = {"v3_warp_fused", "v2_padded"};
  printf("== sweep (reps %d)\n", reps);
  for (int ci = 0; a->bench_cases[ci]; ci++) {
    struct gr_case c;
    struct gr_instance *inst;
    char why[GR_WHY_LEN];
    case_parse(a->bench_cases[ci], &c, why, sizeof why);
    if (a->instance_new(&c, &inst, why, sizeof why)) {
      printf("BAD instance: %s\n", why);
      failures++;
      continue;
    }
    struct sgm_data *d = inst->priv;
    void *outs[2] = {NULL, NULL};
    for (int vi = 0; vi < 1 + with_v2; vi++) {
      const struct variant *v = alg_variant(a, names[vi]);
      void *st = a->bench_setup(v, inst, why, sizeof why);
      if (!st) {
        printf("BAD %s setup: %s\n", v->name, why);
        failures++;
        continue;
      }
      int n = vi ? (reps < 5 ? reps : 5) : reps;
      double *ms = malloc((size_t)n * sizeof *ms);
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      for (int i = 0; i < 2; i++) /* warm-up */
        a->bench_launch(st);
      for (int i = 0; i < n; i++) {
        cudaEventRecord(e0, 0);
        a->bench_launch(st);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        float t;
        cudaEventElapsedTime(&t, e0, e1);
        ms[i] = t;
      }
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
      qsort(ms, (size_t)n, sizeof *ms, cmp_double);
      outs[vi] = malloc(inst->out_bytes);
      a->bench_fetch(st, outs[vi]);
      a->bench_teardown(st);
      struct row *r = &rows[(*nrows)++];
      snprintf(r->label, sizeof r->label, "%dx%d D%d %dp", d->prm.width, d->prm.height,
               d->prm.disp, d->prm.paths);
      r->variant = v->name;
      r->median = ms[n / 2];
      r->min = ms[0];
      r->mpds = (double)d->prm.width * d->prm.height * d->prm.disp / (r->median * 1e3);
      r->lib = libsgm_ms(&d->prm);
      r->check = "-";
      if (d->prm.width * d->prm.height <= 640 * 480) { /* the CPU reference is quick here */
        struct check_report rep;
        memset(&rep, 0, sizeof rep);
        int failed = a->check(inst, outs[vi], &rep);
        r->check = failed ? "FAIL ref" : "ref ok";
        if (failed) {
          printf("BAD %s %s: %s\n", v->name, r->label, rep.why);
          failures++;
        }
      }
      printf("  %-20s %-14s median %9.3f ms  min %9.3f ms\n", r->label, r->variant, r->median, r->min);
      fflush(stdout);
      free(ms);
    }
    if (outs[0] && outs[1]) {
      size_t i = check_first_diff(outs[0], outs[1], inst->out_bytes, 2);
      if (i != (size_t)-1) {
        printf("BAD %s: v3 and v2 differ at output element %zu\n", a->bench_cases[ci], i);
        failures++;
      } else {
        printf("  %-20s v3_warp_fused == v2_padded (disparities and summed costs)\n",
               rows[*nrows - 1].label);
        if (!strcmp(rows[*nrows - 2].check, "-"))
          rows[*nrows - 2].check = "== v2";
      }
    }
    free(outs[0]);
    free(outs[1]);
    a->instance_free(inst);
  }
}

int main(int argc, char **argv)
{
  int reps = 20, do_sweep = 1, with_v2 = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-sweep"))
      do_sweep = 0;
    else if (!strcmp(argv[i], "--no-v2"))
      with_v2 = 0;
    else {
      fprintf(stderr, "usage: test_sgm_bench [--reps N] [--no-sweep] [--no-v2]\n");
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
  struct gpu_info gi;
  if (gpu_query(&gi, why, sizeof why) == 0)
    printf("device: %s (%d SMs, cc %d.%d, runtime %d, driver %d)\n", gi.name, gi.sm_count,
           gi.cc_major, gi.cc_minor, gi.runtime_version, gi.driver_version);
  const struct algorithm *a = registry_find("sgm");
  grid(a);
  hooks(a);
  struct row rows[32];
  int nrows = 0;
  if (do_sweep)
    sweep(a, reps, with_v2, rows, &nrows);
  printf("\n%-20s %-14s %10s %10s %12s %10s %7s  %s\n", "case", "variant", "median ms", "min ms",
         "Mpix*D/s", "libSGM ms", "ratio", "check");
  for (int i = 0; i < nrows; i++) {
    char lib[16] = "-", ratio[16] = "-";
    if (rows[i].lib > 0) {
      snprintf(lib, sizeof lib, "%.2f", rows[i].lib);
      snprintf(ratio, sizeof ratio, "%.2f", rows[i].median / rows[i].lib);
    }
    printf("%-20s %-14s %10.3f %10.3f %12.0f %10s %7s  %s\n", rows[i].label, rows[i].variant,
           rows[i].median, rows[i].min, rows[i].mpds, lib, ratio, rows[i].check);
  }
  printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
