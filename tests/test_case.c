/* Cases: the text form round-trips for generated cases of every algorithm, malformed text is
 * rejected with the offending token named, generation is deterministic per seed and boundary
 * biased, shrinking candidates are simpler and valid. */
#include <stdlib.h>

#include "case.h"
#include "registry.h"
#include "test_util.h"

static void expect_reject(const char *text, const char *token)
{
  struct gr_case c;
  char why[GR_WHY_LEN] = "";
  EXPECT(case_parse(text, &c, why, sizeof why) == -1);
  EXPECT_STR_CONTAINS(why, token);
}

int main(void)
{
  char text[GR_CASE_TEXT_LEN], text2[GR_CASE_TEXT_LEN], why[GR_WHY_LEN];
  for (size_t i = 0; i < registry_count; i++) {
    const struct gr_algorithm *a = registry[i];
    for (uint64_t k = 0; k < 300; k++) {
      struct gr_case c, back, again;
      case_generate(a, 42, k, NULL, &c);
      EXPECT(case_validate(&c, why, sizeof why) == 0);
      case_format(&c, text, sizeof text);
      EXPECT(case_parse(text, &back, why, sizeof why) == 0);
      case_format(&back, text2, sizeof text2);
      EXPECT(strcmp(text, text2) == 0);
      EXPECT(memcmp(back.v, c.v, sizeof c.v) == 0 && back.seed == c.seed);
      case_generate(a, 42, k, NULL, &again); /* deterministic */
      EXPECT(memcmp(again.v, c.v, sizeof c.v) == 0 && again.seed == c.seed);
      struct gr_case cands[64];
      size_t n = case_shrink_candidates(&c, cands, 64);
      for (size_t j = 0; j < n; j++) {
        EXPECT(case_validate(&cands[j], why, sizeof why) == 0);
        int simpler = 0, bigger = 0;
        for (size_t p = 0; p < a->n_params; p++) {
          simpler |= cands[j].v[p] < c.v[p];
          bigger |= cands[j].v[p] > c.v[p] && !a->fixup;
        }
        EXPECT(simpler && !bigger);
      }
    }
  }

  /* the documented example parses and round-trips */
  struct gr_case c;
  EXPECT(case_parse("ari n=891 k_a=50 k_b=50 pairs=2000 dist=uniform seed=7", &c, why, sizeof why) == 0);
  EXPECT(strcmp(case_format(&c, text, sizeof text),
                "ari n=891 k_a=50 k_b=50 pairs=2000 dist=uniform seed=7") == 0);
  /* parameters in any order, extra spaces */
  EXPECT(case_parse("ari  seed=7 dist=skewed pairs=3 k_b=2 k_a=4 n=10 ", &c, why, sizeof why) == 0);
  EXPECT(case_get(&c, "k_a") == 4 && case_get(&c, "dist") == 1 && c.seed == 7);

  /* malformed text: the offending token is named */
  expect_reject("", "empty");
  expect_reject("nosuch n=1 seed=1", "'nosuch'");
  expect_reject("ari n=891 k_a=50 k_b=50 pairs=2000 dist=uniform", "'seed=");
  expect_reject("ari n=891 k_a=50 k_b=50 pairs=2000 seed=7", "'dist'");
  expect_reject("ari n=891 k_a=50 k_b=50 pairs=2000 dist=uniform seed=7 q=1", "'q'");
  expect_reject("ari n=891 k_a=50 k_b=50 pairs=2000 dist=weird seed=7", "'weird'");
  expect_reject("ari n=89x1 k_a=50 k_b=50 pairs=2000 dist=uniform seed=7", "'n=89x1'");
  expect_reject("ari n=891 k_a=50 k_b=50 pairs=2000 dist=uniform seed=-7", "'seed=-7'");
  expect_reject("ari n=891 k_a k_b=50 pairs=2000 dist=uniform seed=7", "'k_a'");
  expect_reject("ari n=891 n=892 k_a=5 k_b=50 pairs=2000 dist=uniform seed=7", "'n' given twice");
  expect_reject("ari n=-5 k_a=50 k_b=50 pairs=2000 dist=uniform seed=7", "'n=-5' is out of range");
  expect_reject("ari n=5 k_a=0 k_b=50 pairs=2000 dist=uniform seed=7", "'k_a=0' is out of range");

  /* limits: generated cases stay inside them */
  const struct gr_algorithm *ari = registry_find("ari");
  struct case_limits lim = {0};
  EXPECT(case_limits_add(ari, &lim, "n=100..200", why, sizeof why) == 0);
  EXPECT(case_limits_add(ari, &lim, "dist=skewed", why, sizeof why) == 0);
  EXPECT(case_limits_add(ari, &lim, "k_a=5..1", why, sizeof why) == -1);
  EXPECT(case_limits_add(ari, &lim, "zz=1..2", why, sizeof why) == -1);
  EXPECT_STR_CONTAINS(why, "'zz'");
  EXPECT(case_limits_add(ari, &lim, "n=150", why, sizeof why) == -1); /* one range a parameter */
  EXPECT_STR_CONTAINS(why, "'n' given twice");
  int edge_lo = 0, edge_hi = 0;
  for (uint64_t k = 0; k < 200; k++) {
    EXPECT(case_generate(ari, 9, k, &lim, &c) == 0);
    int64_t n = case_get(&c, "n");
    EXPECT(n >= 100 && n <= 200 && case_get(&c, "dist") == 1);
    edge_lo += n == 100;
    edge_hi += n == 200;
  }
  EXPECT(edge_lo > 0 && edge_hi > 0); /* edges of a range are likely draws */

  /* ranges no valid case fits: case_generate says so, and case_format never reads past the
   * choices of an enum that holds no choice */
  const struct gr_algorithm *km = registry_find("kmedoids");
  struct case_limits none = {0};
  EXPECT(case_limits_add(km, &none, "n=1..5", why, sizeof why) == 0);
  EXPECT(case_limits_add(km, &none, "k=10..20", why, sizeof why) == 0);
  EXPECT(case_generate(km, 1, 0, &none, &c) == -1);
  EXPECT(case_validate(&c, why, sizeof why) == -1);
  case_generate(ari, 1, 0, NULL, &c);
  c.v[4] = 20; /* dist: five choices */
  EXPECT_STR_CONTAINS(case_format(&c, text, sizeof text), "dist=#20");

  /* boundary bias: the stream hits k_a*k_b around the block size often */
  int near_block = 0;
  for (uint64_t k = 0; k < 500; k++) {
    case_generate(ari, 3, k, NULL, &c);
    int64_t cells = case_get(&c, "k_a") * case_get(&c, "k_b");
    near_block += cells >= 100 && cells <= 200;
  }
  EXPECT(near_block > 50);
  TEST_DONE();
}
