/* The ccc algorithm as the harness sees it (its table lives in ccc_alg.c). */
#ifndef GR_ALGORITHMS_CCC_ALG_H
#define GR_ALGORITHMS_CCC_ALG_H

#include <stddef.h>
#include <stdint.h>

#include <gpuregress/alg.h>
#include "ccc_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct gr_algorithm ccc_algorithm;

/* The input and reference answer of one case. Output layout of a variant: pairs doubles (the
 * CCC of each pair of the upper triangle, ccc_pair_of), then pairs bytes (the part pair). */
struct ccc_data {
  int n, features, lmax;
  int64_t pairs;
  float *values;                /* features x n, NaN = missing */
  uint8_t *cat_k;               /* per feature: 0 numeric, else categories */
  struct ccc_ref_feature *feat; /* reference partitions, per feature */
  int16_t *labels;              /* their label storage: features x CCC_MAX_PARTS x n */
  int64_t checked;              /* pairs with a reference answer (all, or a sample) */
  int64_t *check_pair;          /* their indices, ascending */
  double *ref;                  /* their CCC */
  uint8_t *ref_idx;             /* their part pair */
  int dup;                      /* 1: feature features-1 is feature 0 scaled by 2 (CCC = 1) */
};

extern const struct gr_gpu_lifecycle ccc_lifecycle; /* ccc_driver.cu */

#ifdef __cplusplus
}
#endif

#endif
