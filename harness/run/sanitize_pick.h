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

struct san_cand {
  struct gr_case c;
  double items;
};

/* Draw the first n cases of a's stream for seed into cands, smallest work-model items first. */
void san_draw(const struct algorithm *a, uint64_t seed, struct san_cand *cands, size_t n);

/* The cases of v among cands (san_draw's order): per regime (or, without regimes, for the
 * variant as a whole) `per` picks at quantiles 0, 1/(2 per), ... of the work model of the
 * candidates that take it; the smallest of every regime first (*n_small of them: what the slow
 * tools run). No case of a limit or large regime (REGIME_LIMIT, REGIME_LARGE) is picked, for
 * any regime: under the tools they would run for minutes (the fuzz covers them). Returns how
 * many texts were written to out (malloc'ed), at most max. */
int san_pick_cases(const struct san_cand *cands, size_t n, const struct variant *v, long per,
                   char **out, int max, int *n_small);

#ifdef __cplusplus
}
#endif

#endif
