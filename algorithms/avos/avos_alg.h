/* The avos algorithm as the harness sees it (its table lives in avos_alg.c): the data of one
 * case, the layout of the flat output every variant fills, and the GPU run and timing functions
 * (avos_driver.cu, peer_cusparse.cu).
 *
 * Output layout (every variant, all little-endian):
 *   int64 status[AVOS_STATUS_WORDS]    see AVOS_ST_*
 *   elementwise ops: T values[n]
 *   matrix ops:      int32 indptr[rows + 1] | int32 indices[cap] | T values[cap]   (cap = the
 *                    reference's entries; each part starts 8-byte aligned) */
#ifndef GR_ALGORITHMS_AVOS_ALG_H
#define GR_ALGORITHMS_AVOS_ALG_H

#include <stddef.h>
#include <stdint.h>

#include <gpuregress/alg.h>
#include "avos.h"
#include "avos_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct gr_algorithm avos_algorithm;

enum avos_op { AVOS_OP_SUM, AVOS_OP_PRODUCT, AVOS_OP_SPGEMM, AVOS_OP_CLOSURE };
enum avos_shape { AVOS_SHAPE_FAMILY, AVOS_SHAPE_PEDIGREE, AVOS_SHAPE_RANDOM, AVOS_SHAPE_FILE };

#define AVOS_STATUS_WORDS 8
enum {
  AVOS_ST_NNZ,       /* elementwise: n; matrices: entries of the result */
  AVOS_ST_OVERFLOW,  /* overflowed products (closure: summed over its products) */
  AVOS_ST_CYCLE,     /* smallest row with a diagonal product term outside {-1, 0, 1}, or -1 */
  AVOS_ST_ITER,      /* closure: products computed; else 0 */
  AVOS_ST_FIXED,     /* closure: 1 when a fixed point was reached; else 0 */
  AVOS_ST_PATTERN,   /* 1: only the pattern is meaningful (the cuSPARSE peer); else 0 */
  AVOS_ST_FIRST_OVF, /* elementwise product: smallest overflowing index, or -1 */
  AVOS_ST_SPARE,     /* 0 */
};

/* The input and reference answer of one case. */
struct avos_data {
  int op, shape;
  int stash_pct; /* the case's stash= (percent of the stash's room; 100 by default) */
  enum avos_type type;
  int bits;
  size_t tsize; /* bytes of one value */
  /* elementwise */
  int64_t n;
  void *x, *y;    /* n values each, of the case's type */
  void *ref_vals; /* n values */
  /* matrices: spgemm C = A (x) B; closure of A */
  struct avos_csr a, b; /* b is unused when b_is_a */
  int b_is_a;
  void *a_tval, *b_tval; /* values in the case's type (b_tval = a_tval when b_is_a) */
  struct avos_csr ref;
  struct avos_stats ref_stats;
  int8_t *gender;      /* genealogy shapes: each vertex's diagonal (-1 male, 1 female); else NULL */
  int cycle_injected;  /* the generator put a cycle in (a file: the reference found one) */
  int peer_comparable; /* the avos pattern of A (x) B is the structural one (no zero terms) */
  /* output */
  int64_t ref_status[AVOS_STATUS_WORDS];
  int64_t cap;                      /* matrices: entries of the reference result */
  size_t off_ptr, off_idx, off_val; /* byte offsets of the matrix parts */
};

/* The regimes of avos (indices in its regime table); the driver reports the tiers. */
enum {
  AVOS_REGIME_SUM,
  AVOS_REGIME_PRODUCT,
  AVOS_REGIME_SPGEMM,
  AVOS_REGIME_CLOSURE,
  AVOS_REGIME_WARP,          /* a symbolic step listed rows for the warp tier */
  AVOS_REGIME_BLOCK,         /* ... for the block tier */
  AVOS_REGIME_GLOBAL,        /* ... for the global tier */
  AVOS_REGIME_GROUP,         /* the thread tier listed rows for the 8-lane group tier */
  AVOS_REGIME_GLOBAL_ROUNDS, /* ... for more global-tier rows than the global grid's blocks */
  AVOS_REGIME_LONG_CLOSURE,
  AVOS_REGIME_EW_STRIDES,
  AVOS_REGIME_EW_2_24,
  AVOS_REGIME_FULL_TABLE,  /* a result row of more distinct columns than a warp's table holds */
  AVOS_REGIME_STASH_FULL,  /* a squaring's rows found no room in the stash (v3_split_rows) */
  AVOS_REGIME_SMALL_SHIFT, /* an int8/int16 product term of two values past -1, 0 and 1 */
};

/* Status + arrays of a result into the flat output (nnz entries given, at most cap written). */
void avos_out_matrix(const struct gr_instance *inst, void *out, const int64_t *status,
                     const int32_t *indptr, const int32_t *indices, const void *values, int64_t nnz);

/* The GPU lifecycle of every GPU variant, the cuSPARSE peer's included (avos_driver.cu). */
extern const struct gr_gpu_lifecycle avos_lifecycle;

/* 0 when the cuSPARSE peer takes the case of inst (one product, op=spgemm, whose avos pattern is
 * the structural one); -1 with why. Host only: the peer's setup and the algorithm's takes hook. */
int avos_peer_takes(const struct gr_instance *inst, char *why, size_t len);

/* The cuSPARSE peer (peer_cusparse.cu): setup sizes and computes the product once (NULL with why
 * when the peer cannot take the case or cuSPARSE is not there); launch repeats it on stream (a
 * cudaStream_t; NULL: the default stream); fetch reads the pattern back. */
void *avos_cusparse_setup(const struct gr_instance *inst, char *why, size_t len);
void avos_cusparse_launch(void *state, void *stream);
void avos_cusparse_fetch(void *state, void *out);
void avos_cusparse_teardown(void *state);

/* avos_spgemm with its rows spread over the CPUs (avos_parallel.c): the same product and
 * statistics, bit for bit (each row is avos_spgemm_rows's); one thread where one CPU is allowed.
 * The closure of bench --quick's n = 21,000 genealogy took 0.84 s to build on one core of an H100
 * host, and avos's references bound its fuzzing (14-58 cases a night against 60-270 of the other
 * algorithms). */
int avos_spgemm_parallel(const struct avos_csr *a, const struct avos_csr *b,
                         const struct avos_csr *s, int bits, struct avos_csr *c,
                         struct avos_stats *st, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
