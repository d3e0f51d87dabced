/* The sanitizer lane's cases (run/sanitize_pick.h), for every registered algorithm and GPU
 * variant over several seeds: every pick parses back to a valid case of its algorithm; none
 * takes a limit or large regime (under racecheck such a case ran past the cell's 75 s: ccc
 * n = 19803 for "NaN pairs" at seed 20261135, before they were left out); every regime with an
 * eligible candidate has a small pick that the parameters say takes it, among its SAN_CONFIRM
 * smallest; and where one of those takes the regime on its input, a small pick does (by the
 * guesses alone, ccc's "33+ categories" was never reached by the small picks: n = 5 cases with
 * max_cat 34, at 8 seeds of 8); and no pick is a case its variant would skip (avos' cuSPARSE
 * peer on a product with zero terms: the lane's cell was a skip at seed 1795951353). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "registry.h"
#include "sanitize_pick.h"
#include "test_util.h"

#define SAN_MAX_PICKS 64

static const uint64_t seeds[] = {1, 7, 42, 20261135, 20261201, 977, 31337, 5, 1795951353};

static void check_variant(struct san_cand *cands, size_t n, const struct gr_variant *v)
{
  const struct gr_algorithm *a = cands[0].c.alg;
  uint32_t app = coverage_applies(a, v), big = san_big_regimes(a);
  char *out[SAN_MAX_PICKS];
  int small = -1, k = san_pick_cases(cands, n, v, 2, out, SAN_MAX_PICKS, &small);
  EXPECT(k > 0 && small > 0 && small <= k, "%s/%s: %d picks, %d small", a->name, v->name, k, small);
  uint32_t mask[SAN_MAX_PICKS], real_small = 0; /* real_small: what the smallest picks take on
                                                   * their input */
  double items[SAN_MAX_PICKS];
  int skipped = 0;
  for (int q = 0; q < k; q++) {
    struct san_cand t = {.real_known = 0};
    char why[256];
    double bytes;
    EXPECT(case_parse(out[q], &t.c, why, sizeof why) == 0, "%s: %s", out[q], why);
    mask[q] = app ? coverage_mask(&t.c, v, NULL) : 0;
    a->work(&t.c, &bytes, &items[q]);
    EXPECT(!(mask[q] & big), "%s/%s picked '%s' of a limit or large regime", a->name, v->name,
           out[q]);
    if (q < small)
      real_small |= san_real_regimes(&t);
    skipped += !san_takes(&t, v);
    free(out[q]);
  }
  /* a variant that skips some cases (avos' cuSPARSE peer: a product with zero terms) is given
   * ones it computes: at seed 1795951353 its one pick was skipped and the lane said incomplete */
  EXPECT(skipped == 0, "%s/%s: %d of its %d picks are cases it skips", a->name, v->name, skipped,
         k);
  /* every regime with an eligible candidate has among the smallest picks one that takes it (by
   * the guesses) no bigger than its SAN_CONFIRM-th smallest eligible candidate, and one that
   * takes it on its input where one of those candidates does */
  for (int r = 0; r < GR_MAX_REGIMES; r++) {
    if (!(app >> r & 1) || (big >> r & 1))
      continue;
    double bound = -1;
    int worked = 0; /* the regime has an eligible candidate with work (items > 0) */
    for (size_t i = 0; i < n; i++) {
      uint32_t m = coverage_mask(&cands[i].c, v, NULL);
      worked |= (m >> r & 1) && !(m & big) && cands[i].items > 0;
    }
    for (size_t i = 0, seen = 0; i < n && seen < SAN_CONFIRM; i++) {
      uint32_t m = coverage_mask(&cands[i].c, v, NULL);
      if ((m >> r & 1) && !(m & big) && (!worked || cands[i].items > 0)) {
        bound = cands[i].items;
        seen++;
      }
    }
    if (bound < 0)
      continue;
    int found = 0, idle = 0;
    for (int q = 0; q < small; q++) {
      found |= (mask[q] >> r & 1) && items[q] <= bound;
      idle |= (mask[q] >> r & 1) && worked && items[q] <= 0;
    }
    EXPECT(found, "%s/%s: regime '%s' has no small pick of at most %g items", a->name, v->name,
           a->regimes[r].name, bound);
    EXPECT(!idle, "%s/%s: regime '%s' picked a case of no work (it launches nothing)", a->name,
           v->name, a->regimes[r].name);
    int real_one = 0;
    for (size_t i = 0, tried = 0; i < n && tried < SAN_CONFIRM && !real_one; i++) {
      uint32_t m = coverage_mask(&cands[i].c, v, NULL);
      if (!(m >> r & 1) || (m & big))
        continue;
      tried++;
      uint32_t real = san_real_regimes(&cands[i]);
      real_one = (real >> r & 1) && !(real & big);
    }
    if (real_one)
      EXPECT(real_small >> r & 1, "%s/%s: regime '%s': no small pick takes it on its input",
             a->name, v->name, a->regimes[r].name);
  }
}

int main(void)
{
  struct san_cand *cands = malloc(SAN_DRAWS * sizeof *cands);
  EXPECT(cands != NULL);
  size_t variants = 0;
  for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++)
    for (size_t i = 0; i < registry_count; i++) {
      const struct gr_algorithm *a = registry[i];
      int drawn = 0;
      for (size_t j = 0; j < a->n_variants; j++) {
        const struct gr_variant *v = &a->variants[j];
        if (!(v->flags & GR_VARIANT_GPU))
          continue;
        if (!drawn) {
          san_draw(a, seeds[s], cands, SAN_DRAWS);
          drawn = 1;
          for (size_t d = 1; d < SAN_DRAWS; d++)
            EXPECT(cands[d - 1].items < cands[d].items || (cands[d - 1].items == cands[d].items &&
                                                           cands[d - 1].bytes <= cands[d].bytes),
                   "%s: drawn out of order (items, then bytes)", a->name);
        }
        check_variant(cands, SAN_DRAWS, v);
        variants++;
      }
    }
  EXPECT(variants > 20, "only %zu variants checked", variants);
  /* the regimes no case can stand for under the tools, said by the lane: radix_sort's
   * "pairs > 2^24" (every such case is past the limit n > 2^24), where v6_values_in_place runs
   * its values-in-place kernel and v5_match_or v4's; none of sgm's */
  const struct gr_algorithm *rs = registry_find("radix_sort"), *sgm = registry_find("sgm");
  if (rs && sgm) {
    int pairs_long = -1;
    for (size_t r = 0; r < rs->n_regimes; r++)
      if (strcmp(rs->regimes[r].name, "pairs > 2^24: v4's tiles of 9216") == 0)
        pairs_long = (int)r;
    EXPECT(pairs_long >= 0, "radix_sort's regime 'pairs > 2^24: v4's tiles of 9216'");
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds && pairs_long >= 0; s++) {
      san_draw(rs, seeds[s], cands, SAN_DRAWS);
      const struct gr_variant *v6 = gr_alg_variant(rs, "v6_values_in_place");
      uint32_t left = san_left_regimes(cands, SAN_DRAWS, v6);
      EXPECT(left == 1u << pairs_long, "radix_sort/v6 at seed %llu: left 0x%x",
             (unsigned long long)seeds[s], left);
      EXPECT(san_left_regimes(cands, SAN_DRAWS, gr_alg_variant(rs, "v4_onesweep")) == 0,
             "radix_sort/v4_onesweep has a regime left");
      san_draw(sgm, seeds[s], cands, SAN_DRAWS);
      for (size_t j = 0; j < sgm->n_variants; j++)
        if (sgm->variants[j].flags & GR_VARIANT_GPU)
          EXPECT(san_left_regimes(cands, SAN_DRAWS, &sgm->variants[j]) == 0,
                 "sgm/%s has a regime left at seed %llu", sgm->variants[j].name,
                 (unsigned long long)seeds[s]);
    }
  }
  /* the cases that ran past 75 s under racecheck: ccc at seed 20261135 (n = 19803), now a case
   * of n <= 12288; and at seed 1795974058 every ccc variant's cell (n = 1097 and n = 7636 among
   * its smallest picks: ccc's items are its pairs, and of its many cases of 2 features the order
   * was the draw's), now of n <= 256 (the smallest of each regime: of equal items, fewest bytes) */
  const struct gr_algorithm *ccc = registry_find("ccc");
  static const uint64_t ccc_seeds[] = {1795974058, 20261135, 1795970664, 1795964274};
  for (size_t s = 0; ccc && s < sizeof ccc_seeds / sizeof *ccc_seeds; s++) {
    san_draw(ccc, ccc_seeds[s], cands, SAN_DRAWS);
    for (size_t j = 0; j < ccc->n_variants; j++) {
      if (!(ccc->variants[j].flags & GR_VARIANT_GPU)) /* the lane runs the GPU variants */
        continue;
      char *out[SAN_MAX_PICKS];
      int small, k = san_pick_cases(cands, SAN_DRAWS, &ccc->variants[j], 2, out, SAN_MAX_PICKS,
                                    &small);
      for (int q = 0; q < k; q++) {
        struct gr_case c;
        char why[256];
        EXPECT(case_parse(out[q], &c, why, sizeof why) == 0, "%s", why);
        EXPECT(case_get(&c, "n") <= (q < small ? 256 : 12288),
               "ccc/%s picked '%s' (%s) at seed %llu", ccc->variants[j].name, out[q],
               q < small ? "smallest of a regime" : "quantile", (unsigned long long)ccc_seeds[s]);
        free(out[q]);
      }
    }
  }
  free(cands);
  TEST_DONE();
}
