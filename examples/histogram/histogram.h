/* SPDX-License-Identifier: Apache-2.0 */
/* What the C side (histogram_alg.c) and the CUDA side (the variants, histogram_driver.cu) of the
 * example share: the launchers' type and the sizes the kernels are built around.
 *
 * A histogram of n keys in [0, bins) into bins 32-bit counts. Every GPU variant gives each block
 * a chunk of HIST_CHUNK keys (the grid is ceil(n / HIST_CHUNK) blocks): v1 and v2 count a
 * chunk in shared memory and add the block's counts to the global ones, v3 adds every key to the
 * global counts directly. */
#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HIST_BLOCK 256          /* threads per block */
#define HIST_CHUNK (1 << 17)    /* keys per block: 131072 */
#define HIST_SHARED_BINS 8192   /* v2: one 32-bit counter per bin in 32 KiB of shared memory */
#define HIST_U16_BINS 16384     /* v1: two 16-bit counters per 32-bit word, same 32 KiB */
#define HIST_MAX_BINS 65536

/* Zero counts[0..bins) and count keys[0..n) into it, on `stream` (a cudaStream_t; no
 * synchronisation). 0 enqueued; 1 this variant does not take `bins` (its table does not fit). */
typedef int (*hist_launch_fn)(const uint32_t *keys, long n, int bins, uint32_t *counts,
                              void *stream);

int hist_v1_shared_u16_launch(const uint32_t *keys, long n, int bins, uint32_t *counts,
                              void *stream);
int hist_v2_shared_launch(const uint32_t *keys, long n, int bins, uint32_t *counts, void *stream);
int hist_v3_global_launch(const uint32_t *keys, long n, int bins, uint32_t *counts, void *stream);

#ifdef __cplusplus
}
#endif

#endif
