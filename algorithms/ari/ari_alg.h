/* The ari algorithm as the harness sees it (its table lives in ari_alg.c). */
#ifndef GR_ALGORITHMS_ARI_ALG_H
#define GR_ALGORITHMS_ARI_ALG_H

#include <stddef.h>
#include <stdint.h>

#include <gpuregress/alg.h>

#ifdef __cplusplus
extern "C" {
#endif

extern const struct gr_algorithm ari_algorithm;

/* The input and reference answer of one case. */
struct ari_data {
  int n, k_a, k_b, pairs;
  int16_t *a, *b; /* the stored pairs' labels, n each (ari_stored_pair) */
  double *ref;    /* pairs reference ARIs */
  int chunk;      /* most pairs per v3 launch, 0: the scratch budget decides (ari.h) */
  int derived;    /* 1 when the last 3 pairs are swapped / relabelled / self copies of pair 0 */
  /* 0: every pair stored (a and b hold pairs x n labels). Else a repeated instance (past 2^26
   * labels): only `templates` drawn pairs are stored, then the 3 derived ones; pair p of the
   * body (p < pairs - 3*derived) is template p % templates. The device copy is whole. */
  int templates;
};

/* Pairs of the body (drawn or repeated), before the derived ones. */
static inline int ari_body_pairs(const struct ari_data *d)
{
  return d->pairs - 3 * d->derived;
}

/* Where pair p's labels are stored in a and b (in pairs of n labels). */
static inline size_t ari_stored_pair(const struct ari_data *d, int p)
{
  if (!d->templates)
    return (size_t)p;
  int body = ari_body_pairs(d);
  return p < body ? (size_t)(p % d->templates) : (size_t)(d->templates + (p - body));
}

/* Pairs stored on the host. */
static inline size_t ari_stored_pairs(const struct ari_data *d)
{
  return d->templates ? (size_t)d->templates + 3 * (size_t)d->derived : (size_t)d->pairs;
}

extern const struct gr_gpu_lifecycle ari_lifecycle; /* ari_driver.cu */

#ifdef __cplusplus
}
#endif

#endif
