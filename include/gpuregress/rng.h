/* SPDX-License-Identifier: Apache-2.0 */
/* gpuregress/rng.h (public API).
 * Deterministic random numbers for case generation and input data (splitmix64 seeding a
 * xoshiro256** stream). The same seed gives the same stream on every machine; no global state.
 * Also the boundary-biased draws every generator uses. */
#ifndef GR_RNG_H
#define GR_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rng {
  uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_u64(struct rng *r);
uint32_t rng_u32(struct rng *r);
/* uniform in [lo, hi] inclusive; lo <= hi */
int64_t rng_range(struct rng *r, int64_t lo, int64_t hi);
/* uniform in [0, 1) */
double rng_unit(struct rng *r);
/* 1 with probability p */
int rng_chance(struct rng *r, double p);
/* log-uniform in [lo, hi] (lo >= 1): small and large sizes equally likely per octave */
int64_t rng_log_range(struct rng *r, int64_t lo, int64_t hi);
/* A boundary-biased value in [lo, hi]: with probability p_edge one of the anchors (each
 * perturbed by -1, 0 or +1) clamped to the range, else log-uniform. Anchors outside [lo, hi] are
 * clamped. */
int64_t rng_boundary(struct rng *r, int64_t lo, int64_t hi, const int64_t *anchors, size_t n_anchors,
                     double p_edge);

#ifdef __cplusplus
}
#endif

#endif
