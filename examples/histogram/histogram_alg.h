/* SPDX-License-Identifier: Apache-2.0 */
/* The example's instance data and the CUDA entry points the table names (histogram_driver.cu). */
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

enum gr_run_status hist_run_gpu(const struct gr_variant *v, const struct gr_instance *inst,
                                void *out, struct gr_run_ctx *ctx);
void *hist_bench_setup(const struct gr_variant *v, const struct gr_instance *inst, char *why,
                       size_t len);
void hist_bench_launch(void *state);
void hist_bench_fetch(void *state, void *out);
void hist_bench_teardown(void *state);

#ifdef __cplusplus
}
#endif

#endif
