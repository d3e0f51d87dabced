/* The work model as the timing tables show it (no GPU needed: the results are filled in by
 * hand): an algorithm with an item unit (sgm: cost-volume cells, W*H*D*paths) is reported in
 * items per second and % of its own measured peak; one without (ari) in GB/s and % of the copy
 * bandwidth. bench_rates is the one place the model is applied. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "bench.h"
#include "registry.h"
#include "test_util.h"

/* Fill item i's result as the parent does (bench.c), at a median of ms milliseconds. */
static void fake_result(struct bench_plan *p, size_t i, double ms)
{
  struct bench_result *r = &p->res[i];
  r->done = 1;
  r->verdict = VERDICT_PASS;
  r->s.n = 30;
  r->s.median = ms;
  bench_result_rates(p, i);
}

int main(void)
{
  const struct gr_algorithm *sgm = registry_find("sgm"), *ari = registry_find("ari");
  const struct gr_algorithm *algs[] = {sgm, ari};
  const struct gr_variant *vs[] = {gr_alg_variant(sgm, "v4_packed_dpx"),
                                   gr_alg_variant(ari, "v2_shared")};
  struct bench_plan *p;
  char why[GR_WHY_LEN];
  EXPECT(bench_plan_new(algs, vs, 2, "0", 0, NULL, 0, &p, why, sizeof why) == 0);
  EXPECT(p->n == 2 && p->items[0].alg == sgm);
  EXPECT_STR_CONTAINS(p->items[0].params, "w=640 h=480 d=64 p1=10 p2=120 paths=4");
  p->copy_gbps = 3000;
  p->peaks[p->n_peaks++] = (struct bench_peak){sgm, 1e12, "DPX recurrence peak"};

  /* 640 x 480 x 64 disparities x 4 paths = 78.6M cells in 0.5 ms: 157G cells/s, 15.7% of 1T */
  struct bench_rate rate;
  bench_rates(p, &p->items[0], 0.5, &rate);
  EXPECT_NEAR(rate.items, 640.0 * 480 * 64 * 4, 0.5);
  EXPECT_NEAR(rate.items_per_s, 640.0 * 480 * 64 * 4 / 0.5e-3, 1);
  EXPECT_NEAR(rate.pct_peak, 15.72864, 1e-3);
  EXPECT(rate.peak_items_per_s == 1e12);
  bench_rates(p, &p->items[1], 0.5, &rate); /* ari: no item peak */
  EXPECT(rate.peak_items_per_s == 0 && rate.pct_peak == 0 && rate.pct_copy > 0);

  fake_result(p, 0, 0.5);
  fake_result(p, 1, 0.5);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  struct bench_opts o;
  bench_opts_default(&o);
  bench_print_summary(f, p, &o);
  fclose(f);
  EXPECT_STR_CONTAINS(text, "sgm peak 1T cells/s (DPX recurrence peak, measured here)");
  EXPECT_STR_CONTAINS(text, "78.6M cells)");
  EXPECT_STR_CONTAINS(text, "cells/s  %peak");
  EXPECT_STR_CONTAINS(text, "157G  15.7%");
  EXPECT_STR_CONTAINS(text, "GB/s  %copy"); /* ari keeps bytes */
  if (test_failures || getenv("GR_TEST_VERBOSE"))
    fputs(text, stderr);
  free(text);
  bench_plan_free(p);

  /* the rounds a benchmark is sampled over: their floors of samples within the cap, else fewer;
   * 6 samples at least in all, so that compare can call a change (3 against 3: never) */
  EXPECT(bench_round_floor(3) == 3 && bench_round_floor(2) == 3 && bench_round_floor(1) == 6);
  EXPECT(bench_rounds(3, 0.94, 1.0) == 3);   /* a 0.94 ms launch: as asked */
  EXPECT(bench_rounds(3, 100, 1.0) == 3);    /* 9 x 0.1 s = 0.9 s: within the cap */
  EXPECT(bench_rounds(3, 120, 1.0) == 2);    /* 9 x 0.12 s past it, 6 x 0.12 s within */
  EXPECT(bench_rounds(3, 940, 1.0) == 1);    /* kmedoids n=100000: one round of 6 */
  EXPECT(bench_rounds(3, 9, 0.25) == 3);     /* --quick's kmedoids n=10000 (9 ms): as asked */
  EXPECT(bench_rounds(16, 0.001, 1.0) == 16);
  EXPECT(bench_rounds(1, 940, 1.0) == 1 && bench_rounds(0, 1, 1.0) == 1);
  TEST_DONE();
}
