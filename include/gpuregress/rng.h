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

struct gr_rng {
  uint64_t s[4];
};

void gr_rng_seed(struct gr_rng *r, uint64_t seed);
uint64_t gr_rng_u64(struct gr_rng *r);
uint32_t gr_rng_u32(struct gr_rng *r);
/* uniform in [lo, hi] inclusive; lo <= hi */
int64_t gr_rng_range(struct gr_rng *r, int64_t lo, int64_t hi);
/* uniform in [0, 1) */
double gr_rng_unit(struct gr_rng *r);
/* 1 with probability p */
int gr_rng_chance(struct gr_rng *r, double p);
/* log-uniform in [lo, hi] (lo >= 1): small and large sizes equally likely per octave */
int64_t gr_rng_log_range(struct gr_rng *r, int64_t lo, int64_t hi);
/* A boundary-biased value in [lo, hi]: with probability p_edge one of the anchors (each
 * perturbed by -1, 0 or +1) clamped to the range, else log-uniform. Anchors outside [lo, hi] are
 * clamped. */
int64_t gr_rng_boundary(struct gr_rng *r, int64_t lo, int64_t hi, const int64_t *anchors,
                        size_t n_anchors, double p_edge);

#ifdef __cplusplus
}
#endif

#endif
