/* The cases the sanitizer lane runs (`gpuregress sanitize`, cli/cmd_sanitize.c): drawn from the
 * seed stream as fuzzing draws them, ordered by the work model, a few per regime of a variant. */
#ifndef GR_SANITIZE_PICK_H
#define GR_SANITIZE_PICK_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"
#include "case.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAN_DRAWS 4000 /* candidates drawn per algorithm */

#define SAN_CONFIRM 16 /* candidates a regime's smallest pick may try on its input */

struct san_cand {
  struct gr_case c;
  double items, bytes; /* the work model's */
  /* the regimes it takes on its input (every regime of the algorithm, from the predicates
   * with the instance), once known: san_pick_cases fills it in */
  uint32_t real;
  uint32_t takes; /* the variants that take it on its input (bit i: variants[i]), known with real */
  int real_known; /* 1 known, -1 no instance (refused) */
};

/* Draw the first n cases of a's stream for seed into cands, smallest work-model items first, and
 * of equal items the fewest bytes first (ccc's items are its pairs: of its many 2-feature cases
 * the lane took n = 7636 for "categorical pairs" at seed 1795974058, and racecheck ran past 75 s
 * on it, where an n = 1 case stands for the same regime). */
void san_draw(const struct gr_algorithm *a, uint64_t seed, struct san_cand *cands, size_t n);
/* The regimes of a the lane leaves to the fuzz, its limit and large ones (bit i: regime i): under
 * the tools their cases run for minutes. */
uint32_t san_big_regimes(const struct gr_algorithm *a);

/* The cases of v among cands (san_draw's order): per regime (or, without regimes, for the
 * variant as a whole) `per` picks at quantiles 0, 1/(2 per), ... of the work model of the
 * candidates that the parameters say take it (those with work, items > 0, where the regime has
 * any: a case of no work launches nothing); the smallest of every regime first (*n_small of
 * them: what the slow tools run). A regime's smallest pick is confirmed on its input: the first
 * of the regime's SAN_CONFIRM smallest candidates whose instance (instance_new, on the host)
 * takes the regime, else the smallest (the guess). Every pick is one that v takes (the
 * algorithm's takes hook, on the input) where one of the SAN_CONFIRM candidates from it is. No
 * case of a limit or large regime (GR_REGIME_LIMIT, GR_REGIME_LARGE) is picked, for any regime:
 * under the tools they would run for minutes (the fuzz covers them). Returns how many texts were
 * written to out (malloc'ed), at most max. */
int san_pick_cases(struct san_cand *cands, size_t n, const struct gr_variant *v, long per,
                   char **out, int max, int *n_small);
/* The ordinary regimes of v (not limit or large, with a predicate) that no case among cands can
 * stand for under the tools: every candidate of the regime also takes a limit or large regime, or
 * none was drawn (bit i: regime i). Their code runs under the tools nowhere in the lane: it is
 * left to the fuzz, and the lane says so (radix_sort's "pairs > 2^24", every case of which is
 * past the limit n > 2^24: v6_values_in_place's values-in-place kernel by default). */
uint32_t san_left_regimes(const struct san_cand *cands, size_t n, const struct gr_variant *v);

/* 1 when v (one of its algorithm's variants) takes cand: the takes hook on the host instance, built
 * once per candidate and cached with its regimes; no hook: 1; 0 when v would skip it or the
 * instance cannot be made. */
int san_takes(struct san_cand *cand, const struct gr_variant *v);

/* The regimes cand takes on its input (all of its algorithm's, with the instance), cached in
 * cand; 0 when the instance cannot be made. */
uint32_t san_real_regimes(struct san_cand *cand);

#ifdef __cplusplus
}
#endif

#endif
