/* SPDX-License-Identifier: Apache-2.0 */
/* The example's instance data and the GPU lifecycle the table names (histogram_driver.cu). */
#ifndef HISTOGRAM_ALG_H
#define HISTOGRAM_ALG_H

#include <stddef.h>
#include <stdint.h>

#include <gpuregress/alg.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hist_data {
  size_t n;
  int bins;
  uint32_t *keys;     /* n keys in [0, bins) */
  uint32_t *ref;      /* the reference counts */
  uint32_t max_chunk; /* the largest count of one bin within one block's chunk of keys */
};

extern const struct gr_gpu_lifecycle hist_lifecycle; /* histogram_driver.cu */

#ifdef __cplusplus
}
#endif

#endif
