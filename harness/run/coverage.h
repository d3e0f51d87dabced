/* Coverage: which regimes (alg.h, struct gr_regime) a case reaches on a variant, the counts the
 * runner keeps per variant, and the steering of generation toward regimes not reached yet. The
 * worker computes a case's regimes (it has the input, for paths that depend on the data); the
 * parent counts them and steers with the predicates' guesses from the parameters. */
#ifndef GR_COVERAGE_H
#define GR_COVERAGE_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"
#include "case.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Steering aims at a regime until it has this many cases, or until this many steered cases in a
 * row missed it (a guess from the parameters that the data does not bear out). */
#define COVERAGE_WANT 3
#define COVERAGE_GIVE_UP 12
/* ... and a limit regime (GR_REGIME_LIMIT: large, costly cases) until it has this many */
#define COVERAGE_WANT_LIMIT 1
/* Alternatives drawn per steered case: the large cases of limit regimes are a few percent of a
 * generator's stream, split over several targets, so one of them must be found among these. */
#define COVERAGE_STEER_DRAWS 8192

/* The regimes of a that belong to v (bit i: a->regimes[i]). */
uint32_t coverage_applies(const struct gr_algorithm *a, const struct gr_variant *v);
/* The regimes of v that case c takes according to the predicates (inst: the input, or NULL). */
uint32_t coverage_mask(const struct gr_case *c, const struct gr_variant *v,
                       const struct gr_instance *inst);

/* Cases per regime of one variant. */
struct coverage {
  const struct gr_algorithm *a;
  uint32_t applies;
  long cases[GR_MAX_REGIMES];
  long missed[GR_MAX_REGIMES]; /* steered cases that did not reach it */
};
void coverage_init(struct coverage *cv, const struct gr_algorithm *a, const struct gr_variant *v);
/* Count a case that reached mask (aimed: the regime it was steered to, or -1). */
void coverage_add(struct coverage *cv, uint32_t mask, int aimed);
/* The least reached regime still under its wanted cases (COVERAGE_WANT, or COVERAGE_WANT_LIMIT
 * for a limit regime), not given up and not in `skip` (bit i: regime i; the runner's regimes that
 * steering found no case for), or -1; ties: ordinary regimes first, then table order. */
int coverage_want(const struct coverage *cv, uint32_t skip);
/* A regime of the variant that no case reached yet and that steering still aims at (it has a
 * predicate, was not given up, and is not in `skip`: bit i, regime i), or -1. */
int coverage_unreached_aim(const struct coverage *cv, uint32_t skip);
/* All of them (bit i: regime i). */
uint32_t coverage_unreached_aims(const struct coverage *cv, uint32_t skip);
/* Draw up to COVERAGE_STEER_DRAWS alternatives to case `index` of the stream of seed
 * (deterministic) and keep in c the first whose guessed regimes include `want`. 1 found; 0 none
 * (c unchanged). */
int coverage_steer(const struct coverage *cv, const struct gr_variant *v, uint64_t seed,
                   uint64_t index, const struct case_limits *lim, int want, struct gr_case *c);
/* "one chunk 120, several chunks 14" ("" when v has no regimes); returns buf. */
char *coverage_text(const struct coverage *cv, char *buf, size_t len);
/* The names of the regimes with no case, comma-separated ("" when none); returns buf. */
char *coverage_unreached(const struct coverage *cv, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
