/* The sanitizer lane's cases (run/sanitize_pick.h), for every registered algorithm and GPU
 * variant over several seeds: every pick parses back to a valid case of its algorithm; none
 * takes a limit or large regime (under racecheck such a case ran past the cell's 75 s: ccc
 * n = 19803 for "NaN pairs" at seed 20261135, before they were left out); the smallest pick of
 * each regime comes first and is the smallest eligible candidate; and every regime of the
 * variant that has an eligible candidate gets one. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "registry.h"
#include "sanitize_pick.h"
#include "test_util.h"

#define SAN_MAX_PICKS 64

static const uint64_t seeds[] = {1, 7, 42, 20261135, 20261201, 977, 31337, 5};

static uint32_t big_of(const struct algorithm *a)
{
  uint32_t big = 0;
  for (size_t r = 0; r < a->n_regimes && r < GR_MAX_REGIMES; r++)
    if (a->regimes[r].flags & (REGIME_LIMIT | REGIME_LARGE))
      big |= 1u << r;
  return big;
}

static void check_variant(const struct san_cand *cands, size_t n, const struct variant *v)
{
  const struct algorithm *a = cands[0].c.alg;
  uint32_t app = coverage_applies(a, v), big = big_of(a);
  char *out[SAN_MAX_PICKS];
  int small = -1, k = san_pick_cases(cands, n, v, 2, out, SAN_MAX_PICKS, &small);
  EXPECT(k > 0 && small > 0 && small <= k, "%s/%s: %d picks, %d small", a->name, v->name, k, small);
  uint32_t mask[SAN_MAX_PICKS];
  double items[SAN_MAX_PICKS];
  for (int q = 0; q < k; q++) {
    struct gr_case c;
    char why[256];
    double bytes;
    EXPECT(case_parse(out[q], &c, why, sizeof why) == 0, "%s: %s", out[q], why);
    mask[q] = app ? coverage_mask(&c, v, NULL) : 0;
    a->work(&c, &bytes, &items[q]);
    EXPECT(!(mask[q] & big), "%s/%s picked '%s' of a limit or large regime", a->name, v->name,
           out[q]);
    free(out[q]);
  }
  /* every regime with an eligible candidate has among the smallest picks one that takes it and
   * is no bigger than its smallest eligible candidate */
  for (int r = 0; r < GR_MAX_REGIMES; r++) {
    if (!(app >> r & 1) || (big >> r & 1))
      continue;
    double least = -1;
    for (size_t i = 0; i < n && least < 0; i++) {
      uint32_t m = coverage_mask(&cands[i].c, v, NULL);
      if ((m >> r & 1) && !(m & big))
        least = cands[i].items;
    }
    if (least < 0)
      continue;
    int found = 0;
    for (int q = 0; q < small; q++)
      found |= (mask[q] >> r & 1) && items[q] <= least;
    EXPECT(found, "%s/%s: regime '%s' has no small pick of %g items", a->name, v->name,
           a->regimes[r].name, least);
  }
}

int main(void)
{
  struct san_cand *cands = malloc(SAN_DRAWS * sizeof *cands);
  EXPECT(cands != NULL);
  size_t variants = 0;
  for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++)
    for (size_t i = 0; i < registry_count; i++) {
      const struct algorithm *a = registry[i];
      int drawn = 0;
      for (size_t j = 0; j < a->n_variants; j++) {
        const struct variant *v = &a->variants[j];
        if (!(v->flags & VARIANT_GPU))
          continue;
        if (!drawn) {
          san_draw(a, seeds[s], cands, SAN_DRAWS);
          drawn = 1;
          for (size_t d = 1; d < SAN_DRAWS; d++)
            EXPECT(cands[d - 1].items <= cands[d].items, "%s: drawn out of order", a->name);
        }
        check_variant(cands, SAN_DRAWS, v);
        variants++;
      }
    }
  EXPECT(variants > 20, "only %zu variants checked", variants);
  /* the case that ran past 75 s: ccc at seed 20261135, now a case of n <= 12288 */
  const struct algorithm *ccc = registry_find("ccc");
  if (ccc) {
    san_draw(ccc, 20261135, cands, SAN_DRAWS);
    for (size_t j = 0; j < ccc->n_variants; j++) {
      char *out[SAN_MAX_PICKS];
      int small, k = san_pick_cases(cands, SAN_DRAWS, &ccc->variants[j], 2, out, SAN_MAX_PICKS,
                                    &small);
      for (int q = 0; q < k; q++) {
        struct gr_case c;
        char why[256];
        EXPECT(case_parse(out[q], &c, why, sizeof why) == 0, "%s", why);
        EXPECT(case_get(&c, "n") <= 12288, "ccc/%s picked '%s'", ccc->variants[j].name, out[q]);
        free(out[q]);
      }
    }
  }
  free(cands);
  TEST_DONE();
}
