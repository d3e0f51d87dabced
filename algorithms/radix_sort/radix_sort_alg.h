/* The radix_sort algorithm as the harness sees it (its table lives in radix_sort_alg.c; the GPU
 * run and timing hooks in radix_sort_driver.cu). */
#ifndef GR_ALGORITHMS_RADIX_SORT_ALG_H
#define GR_ALGORITHMS_RADIX_SORT_ALG_H

#include <stddef.h>
#include <stdint.h>

#include <gpuregress/alg.h>

#ifdef __cplusplus
extern "C" {
#endif

extern const struct gr_algorithm radix_sort_algorithm;

/* The input and reference answer of one case. The output of a variant is the n sorted keys
 * followed, in pairs mode, by the n values that came with them. */
struct radix_sort_data {
  size_t n;
  int pairs;                     /* 1: key/value pairs, 0: keys only */
  uint32_t *keys, *vals;         /* input; vals NULL for keys only; vals[i] = i ^ salt */
  uint32_t *ref_keys, *ref_vals; /* stable CPU sort of the input */
  uint32_t salt;
  uint64_t fingerprint[2]; /* multiset hash of the input keys (radix_sort_fingerprint) */
};

extern const struct gr_gpu_lifecycle radix_sort_lifecycle; /* radix_sort_driver.cu */

#ifdef __cplusplus
}
#endif

#endif
