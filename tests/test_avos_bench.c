/* GPU timing of the avos variants through the algorithm's GPU lifecycle, and a test of it: for
 * each bench case and each fixed or peer GPU variant, setup, run (the sizes found and recorded),
 * warm-up launches, REPS timed launches (CUDA events around each launch, which replays the
 * recorded sizes; median and minimum), then fetch and the algorithm's check on what the timing
 * loop left. Matrix operations are also timed end to end (run: the host synchronisations for
 * sizes included). Element-
 * wise throughput is reported against the device-to-device copy bandwidth measured in the same run
 * (bytes read plus written). L2 stays warm between repetitions.
 *
 *   test_avos_bench [REPS [CASES]]    defaults: 30 repetitions, every bench case
 *
 * Exit 0 ok, 1 a check failed after timing, 77 without a GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/avos/avos_alg.h"
#include "case.h"
#include "gpu.h"
#include "gpu_timing.h"
#include "registry.h"
#include "worker.h"

/* the lifecycle's steps as gpu_time's launch(state), on the default stream */
static void launch_step(void *g)
{
  struct gr_gpu_case *c = g;
  c->inst->c->alg->gpu->launch(c, NULL);
}
static void run_step(void *g)
{
  struct gr_gpu_case *c = g;
  c->inst->c->alg->gpu->run(c, NULL);
  gr_gpu_sync();
}

int main(int argc, char **argv)
{
  int reps = argc > 1 ? atoi(argv[1]) : 30;
  int ncases = argc > 2 ? atoi(argv[2]) : 1000;
  char why[GR_WHY_LEN];
  if (reps < 1)
    reps = 1;
  if (!worker_gpu_ready(why, sizeof why)) {
    printf("skipped: %s\n", why);
    return 77;
  }
  struct gr_gpu_info gi;
  if (gr_gpu_query(&gi, why, sizeof why)) {
    printf("gpu query failed: %s\n", why);
    return 3;
  }
  printf("device: %s, %d SMs, driver %d, runtime %d\n", gi.name, gi.sm_count, gi.driver_version,
         gi.runtime_version);
  double copy_gbs = gpu_copy_bandwidth((size_t)1 << 30, 10) / 1e9;
  printf("device-to-device copy: %.0f GB/s (read + write, median of 10 x 1 GiB)\n", copy_gbs);

  const struct gr_algorithm *a = registry_find("avos");
  int bad = 0;
  printf("\n%-44s %-13s %10s %10s %10s %9s %6s  %s\n", "case", "variant", "median ms", "min ms",
         "full ms", "GB/s", "%copy", "check after timing");
  for (int ci = 0; a->bench_cases[ci] && ci < ncases; ci++) {
    struct gr_case c;
    struct gr_instance *inst;
    if (case_parse(a->bench_cases[ci], &c, why, sizeof why)) {
      printf("bad bench case '%s': %s\n", a->bench_cases[ci], why);
      return 1;
    }
    double t0 = now_seconds();
    if (a->instance_new(&c, &inst, why, sizeof why)) {
      printf("%s: %s\n", a->bench_cases[ci], why);
      bad++;
      continue;
    }
    double t_ref = now_seconds() - t0;
    const struct avos_data *d = inst->priv;
    char label[64];
    static const char *const opn[] = {"sum", "product", "spgemm", "closure"};
    static const char *const tn[] = {"int8", "int16", "int32", "int64"};
    snprintf(label, sizeof label, "%s %s n=%lld", opn[d->op], tn[d->type], (long long)c.v[2]);
    if (d->op >= AVOS_OP_SPGEMM)
      printf("# %s: input %lld entries, result %lld entries, %lld squarings, CPU reference %.2f s\n",
             label, (long long)avos_csr_nnz(&d->a), (long long)d->cap,
             (long long)d->ref_status[AVOS_ST_ITER], t_ref);
    double fixed_ms[16] = {0}, peer_ms = 0;
    for (size_t vi = 0; vi < a->n_variants; vi++) {
      const struct gr_variant *v = &a->variants[vi];
      if (!(v->flags & GR_VARIANT_GPU) ||
          (v->kind != GR_VARIANT_FIXED && v->kind != GR_VARIANT_PEER))
        continue;
      const struct gr_gpu_lifecycle *lc = a->gpu;
      struct gr_gpu_case g;
      memset(&g, 0, sizeof g);
      g.variant = v;
      g.inst = inst;
      g.bench = 1;
      g.poison = GR_POISON_A;
      enum gr_run_status rs = lc->setup(&g);
      if (rs == GR_RUN_OK) {
        rs = lc->run(&g, NULL);
        gr_gpu_sync();
        if (rs != GR_RUN_OK)
          lc->teardown(&g);
      }
      if (rs != GR_RUN_OK) {
        printf("%-44s %-13s skipped: %s\n", label, v->name, g.why);
        continue;
      }
      g.timed = 1;
      g.poison = -1;
      struct gpu_timing t = gpu_time(launch_step, &g, 3, reps, GPU_L2_WARM);
      double med = t.median_ms, mn = t.min_ms, full = 0;
      if (d->op >= AVOS_OP_SPGEMM) /* run last: the check reads a replay's result */
        full = gpu_time(run_step, &g, 0, reps < 10 ? reps : 10, GPU_L2_WARM).median_ms;
      launch_step(&g);
      gr_gpu_sync();
      unsigned char *out = malloc(inst->out_bytes ? inst->out_bytes : 1);
      memset(out, GR_POISON_A, inst->out_bytes);
      lc->fetch(&g, out);
      struct gr_check_report rep;
      memset(&rep, 0, sizeof rep);
      int failed = a->check(inst, out, &rep);
      bad += failed && v->kind == GR_VARIANT_FIXED;
      double bytes, items;
      a->work(&c, &bytes, &items);
      double gbs = bytes / (med * 1e-3) / 1e9;
      char fullbuf[16] = "-";
      if (d->op >= AVOS_OP_SPGEMM)
        snprintf(fullbuf, sizeof fullbuf, "%.3f", full);
      printf("%-44s %-13s %10.3f %10.3f %10s %9.1f %5.1f%%  %s%s%s\n", label, v->name, med, mn,
             fullbuf, gbs, 100.0 * gbs / copy_gbs, failed ? "FAIL " : "pass", failed ? rep.why : "",
             "");
      if (v->kind == GR_VARIANT_FIXED && vi < 16)
        fixed_ms[vi] = med;
      else if (v->kind == GR_VARIANT_PEER)
        peer_ms = med;
      free(out);
      lc->teardown(&g);
    }
    for (size_t vi = 0; vi < a->n_variants && vi < 16; vi++) {
      if (fixed_ms[vi] <= 0)
        continue;
      if (d->op == AVOS_OP_SPGEMM && peer_ms > 0)
        printf("# %s: %s / cusparse = %.2f (goal <= 2)\n", label, a->variants[vi].name,
               fixed_ms[vi] / peer_ms);
      if (d->op == AVOS_OP_CLOSURE && c.v[2] <= 30000)
        printf("# %s: %s closure %.3f ms replayed (issue 40: <= 1.0 ms; the reference project: "
               "13.8 ms)\n",
               label, a->variants[vi].name, fixed_ms[vi]);
    }
    a->instance_free(inst);
  }
  printf("\n%s\n", bad ? "FAIL: a check failed after timing" : "ok: every check after timing passed");
  return bad ? 1 : 0;
}
