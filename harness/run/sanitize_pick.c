/* The sanitizer lane's cases: see sanitize_pick.h. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "gr.h"
#include "sanitize_pick.h"

static int by_work(const void *x, const void *y)
{
  const struct san_cand *a = x, *b = y;
  if (a->items != b->items)
    return a->items < b->items ? -1 : 1;
  return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

void san_draw(const struct gr_algorithm *a, uint64_t seed, struct san_cand *cands, size_t n)
{
  for (size_t d = 0; d < n; d++) {
    case_generate(a, seed, d, NULL, &cands[d].c);
    a->work(&cands[d].c, &cands[d].bytes, &cands[d].items);
    cands[d].real = cands[d].takes = 0;
    cands[d].real_known = 0;
  }
  qsort(cands, n, sizeof *cands, by_work);
}

/* Build cand's input once (on the host) and note the regimes it takes and the variants that take
 * it (bit i: a->variants[i]); both 0 when the instance cannot be made. */
static void inspect(struct san_cand *cand)
{
  if (cand->real_known)
    return;
  const struct gr_algorithm *a = cand->c.alg;
  struct gr_instance *inst = NULL;
  char why[GR_WHY_LEN];
  cand->real = cand->takes = 0;
  cand->real_known = -1;
  if (a->instance_new(&cand->c, &inst, why, sizeof why) == 0 && inst) {
    for (size_t r = 0; r < a->n_regimes && r < GR_MAX_REGIMES; r++)
      if (a->regimes[r].holds && a->regimes[r].holds(&cand->c, inst))
        cand->real |= 1u << r;
    for (size_t i = 0; i < a->n_variants && i < 32; i++)
      if (!a->takes || a->takes(&a->variants[i], inst, why, sizeof why) == 0)
        cand->takes |= 1u << i;
    a->instance_free(inst);
    cand->real_known = 1;
  }
}

uint32_t san_real_regimes(struct san_cand *cand)
{
  inspect(cand);
  return cand->real;
}

int san_takes(struct san_cand *cand, const struct gr_variant *v)
{
  const struct gr_algorithm *a = cand->c.alg;
  const size_t i = (size_t)(v - a->variants);
  if (!a->takes || i >= 32)
    return 1;
  inspect(cand);
  return cand->takes >> i & 1;
}

/* Among the SAN_CONFIRM first of match[from..m): the first that v takes and, for r >= 0, that
 * takes regime r (and no big one) on its input; else the first that v takes; else match[from]. */
static size_t confirmed(struct san_cand *cands, const size_t *match, size_t m, size_t from, int r,
                        uint32_t big, const struct gr_variant *v)
{
  size_t any = m; /* the first that v takes, in the regime or not */
  for (size_t q = from; q < m && q < from + SAN_CONFIRM; q++) {
    struct san_cand *c = &cands[match[q]];
    int in_regime = 1;
    if (r >= 0) {
      uint32_t real = san_real_regimes(c);
      in_regime = (real >> r & 1) && !(real & big);
    }
    if ((!in_regime && any < m) || !san_takes(c, v))
      continue;
    if (in_regime)
      return match[q];
    any = q;
  }
  return match[any < m ? any : from];
}

uint32_t san_big_regimes(const struct gr_algorithm *a)
{
  uint32_t big = 0;
  for (size_t r = 0; r < a->n_regimes && r < GR_MAX_REGIMES; r++)
    big |= (uint32_t)((a->regimes[r].flags & (GR_REGIME_LIMIT | GR_REGIME_LARGE)) != 0) << r;
  return big;
}

uint32_t san_left_regimes(const struct san_cand *cands, size_t n, const struct gr_variant *v)
{
  if (!n)
    return 0;
  const struct gr_algorithm *a = cands[0].c.alg;
  uint32_t app = coverage_applies(a, v), big = san_big_regimes(a), want = 0, seen = 0;
  for (size_t r = 0; r < a->n_regimes && r < GR_MAX_REGIMES; r++)
    if ((app >> r & 1) && !(big >> r & 1) && a->regimes[r].holds)
      want |= 1u << r;
  for (size_t i = 0; want && i < n; i++) {
    uint32_t m = coverage_mask(&cands[i].c, v, NULL);
    if (!(m & big))
      seen |= m & want;
  }
  return want & ~seen;
}

int san_pick_cases(struct san_cand *cands, size_t n, const struct gr_variant *v, long per,
                   char **out, int max, int *n_small)
{
  *n_small = 0;
  if (!n)
    return 0;
  const struct gr_algorithm *a = cands[0].c.alg;
  uint32_t app = coverage_applies(a, v);
  /* a limit regime's cases (2^31 labels, 2^25 keys, 2e7 cells) and a large one's run for
   * minutes under the tools, whichever regime they are picked for: ccc n = 19803 (past 48 KiB
   * of partition), the fewest pairs of "NaN pairs", took racecheck past 75 s */
  uint32_t big = san_big_regimes(a);
  int k = 0;
  size_t *match = malloc(n * sizeof *match);
  uint32_t *mask = malloc(n * sizeof *mask);
  if (!match || !mask) {
    free(match);
    free(mask);
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    mask[i] = app ? coverage_mask(&cands[i].c, v, NULL) : 0;
  for (long j = 0; j < per; j++) {
    for (int r = -1; r < GR_MAX_REGIMES && k < max; r++) {
      if (r < 0 ? app != 0 : !(app >> r & 1) || (big >> r & 1))
        continue;
      /* a case of no work (n = 0) launches nothing for the tool to see: the regime's cases with
       * work, where it has any */
      size_t m = 0;
      for (int zero = 0; zero < 2 && !m; zero++)
        for (size_t i = 0; i < n; i++)
          if ((r < 0 || (mask[i] >> r & 1)) && !(mask[i] & big) && (zero || cands[i].items > 0))
            match[m++] = i;
      if (!m)
        continue;
      const size_t at = (size_t)((double)m * (double)j / (2.0 * (double)per));
      size_t pick = j == 0 && r >= 0 ? confirmed(cands, match, m, 0, r, big, v)
                                     : confirmed(cands, match, m, at, -1, big, v);
      char text[GR_CASE_TEXT_LEN];
      case_format(&cands[pick].c, text, sizeof text);
      int dup = 0;
      for (int q = 0; q < k; q++)
        dup |= strcmp(out[q], text) == 0;
      if (!dup && (out[k] = strdup(text)))
        k++;
    }
    if (j == 0)
      *n_small = k;
  }
  free(match);
  free(mask);
  return k;
}
