/* GPU variants of CCC end to end: partition every feature on the device (ccc_partition.cu),
 * then every feature pair's 81 part pairs in one pass over the two features' labels.
 *
 * A variant's launcher enqueues both stages on `stream` for the problem g (device pointers) and
 * returns 0, or 1 (GR_RUN_UNSUPPORTED) when it cannot take it. Launch errors end the process
 * (GR_CUDA_CHECK). Outputs: ccc[t] and idx[t] for pair t of the upper triangle (ccc_pair_of). */
#ifndef GR_ALGORITHMS_CCC_H
#define GR_ALGORITHMS_CCC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ccc_gpu {
  int n, features;
  int lmax;             /* most fine labels of any feature: max(numeric L, largest cat_k) */
  const float *values;  /* features x n, NaN = missing */
  const uint8_t *cat_k; /* per feature: 0 numeric, else the number of categories */
  uint8_t *labels;      /* scratch: features x ccc_label_stride(n) fine labels */
  uint32_t *meta;       /* scratch: per feature, see ccc_common.cuh */
  double *ccc;          /* out: one per pair */
  uint8_t *idx;         /* out: one per pair, part_i << 4 | part_j or CCC_NO_INDEX */
};

typedef int (*ccc_launch_fn)(const struct ccc_gpu *g, void *stream);

/* Bytes of one feature's fine-label row: n rounded up to 512 (32 lanes x 16 bytes). */
static inline size_t ccc_label_stride(int n)
{
  return ((size_t)n + 511) / 512 * 512;
}

/* stage 1, shared by every variant: fine labels and per-feature metadata */
void ccc_partition_launch(const struct ccc_gpu *g, void *stream);

/* historical: each warp's contingency table zeroed only where lane < cells */
int ccc_v1_warp_uninit_launch(const struct ccc_gpu *g, void *stream);
/* fixed: each warp's table zeroed by a loop strided by the warp size */
int ccc_v2_warp_launch(const struct ccc_gpu *g, void *stream);
/* fixed: numeric pairs of the kmax = 10 layout by row clusters (conflict-free table reads) */
int ccc_v3_rows_launch(const struct ccc_gpu *g, void *stream);
/* fixed: v3_rows in fewer instructions (16-byte clears, part-major sums, no 128-bit divide) */
int ccc_v4_lean_rows_launch(const struct ccc_gpu *g, void *stream);
/* fixed: v4 with a float pre-selection of the part pairs, one IEEE double division where it gives
 * the x87 bits, a packed table of 16-bit counts, conflict-free part sums, stepped pairs */
int ccc_v5_quick_pick_launch(const struct ccc_gpu *g, void *stream);
/* fixed: v5 with two row clusters a lane (half the part-pair sums' reads), a leaner count and
 * branchless estimates */
int ccc_v6_paired_bands_launch(const struct ccc_gpu *g, void *stream);

#ifdef __cplusplus
}
#endif

#endif
