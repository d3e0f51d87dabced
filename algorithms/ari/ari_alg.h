/* The ari algorithm as the harness sees it (its table lives in ari_alg.c). */
#ifndef GR_ALGORITHMS_ARI_ALG_H
#define GR_ALGORITHMS_ARI_ALG_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct algorithm ari_algorithm;

/* The input and reference answer of one case. */
struct ari_data {
  int n, k_a, k_b, pairs;
  int16_t *a, *b; /* pairs x n labels each */
  double *ref;    /* pairs reference ARIs */
  int chunk;      /* most pairs per v3 launch, 0: the scratch budget decides (ari.h) */
  int derived;    /* 1 when the last 3 pairs are swapped / relabelled / self copies of pair 0 */
};

enum run_status ari_run_gpu(const struct variant *v, const struct gr_instance *inst, void *out,
                            struct run_ctx *ctx);
void *ari_bench_setup(const struct variant *v, const struct gr_instance *inst, char *why, size_t len);
void ari_bench_launch(void *state);
void ari_bench_fetch(void *state, void *out);
void ari_bench_teardown(void *state);

#ifdef __cplusplus
}
#endif

#endif
