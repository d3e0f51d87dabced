/* CPU reference of the Adjusted Rand Index: exact integer contingency table and pair-confusion
 * counts, products formed in 128-bit integers, one rounding at the final division. */
#ifndef GR_REFERENCE_ARI_H
#define GR_REFERENCE_ARI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The pair-confusion counts of two partitions (ordered pairs of distinct objects). */
struct ari_counts {
  uint64_t tp, fp, fn, tn;
};

/* Labels must lie in [0, k_a) and [0, k_b). Returns 0, or -1 if a label is out of range or the
 * table cannot be allocated. */
int ari_reference_counts(const int16_t *a, const int16_t *b, size_t n, int k_a, int k_b,
                         struct ari_counts *out);
/* ARI from the counts: 2 (tp*tn - fn*fp) / ((tp+fn)(fn+tn) + (tp+fp)(fp+tn)), 1 when fn = fp = 0.
 * The products are exact (128-bit); the result is the correctly rounded quotient of two exact
 * integers each rounded once to double. */
double ari_from_counts(const struct ari_counts *c);
/* ARI of one pair; NaN on invalid labels. */
double ari_reference(const int16_t *a, const int16_t *b, size_t n, int k_a, int k_b);
/* The classic Hubert-Arabie form (index - expected) / (max - expected) from sums of C(x, 2),
 * in long double: an independent formula used to cross-check the reference in tests. */
double ari_reference_hubert(const int16_t *a, const int16_t *b, size_t n, int k_a, int k_b);

#ifdef __cplusplus
}
#endif

#endif
