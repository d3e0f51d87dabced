/* CPU reference of the Clustermatch Correlation Coefficient: each feature's partitions as plain
 * label arrays, each pair's contingency tables counted from the labels of the objects present in
 * both features, the ARI finished by ari's reference (ari_reference_counts + ari_from_counts). */
#ifndef GR_ALGORITHMS_CCC_REF_H
#define GR_ALGORITHMS_CCC_REF_H

#include <stddef.h>
#include <stdint.h>

#include "ccc_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The partitions of one feature. */
struct ccc_ref_feature {
  int parts;            /* numeric: kmax - 1 (k = 2..kmax); categorical: 1 */
  int k[CCC_MAX_PARTS]; /* clusters of each part */
  unsigned valid;       /* bit p: part p has at least two clusters among the present objects */
  int16_t *labels;      /* parts x n labels; -1 where the value is missing */
};

/* Partition x[0..n) (NaN = missing): cat_k == 0 numeric (quantile partitions k = 2..kmax of
 * ccc_kmax(n), exact rational cuts, see ccc_math.h), else categorical with codes in [0, cat_k).
 * labels must hold CCC_MAX_PARTS * n entries. 0 ok, -1 on a category code out of range or out
 * of memory. */
int ccc_reference_partition(const float *x, int n, int cat_k, struct ccc_ref_feature *f);

/* CCC of two partitioned features: max(0, the largest ARI over their valid part pairs), NaN
 * when either has none. *idx gets the part pair of the largest ARI (first in part-of-a-major
 * order on ties) as (part_a << 4 | part_b), or CCC_NO_INDEX. scratch holds 2n int16. */
double ccc_reference_pair(const struct ccc_ref_feature *a, const struct ccc_ref_feature *b, int n,
                          int16_t *scratch, uint8_t *idx);

#ifdef __cplusplus
}
#endif

#endif
