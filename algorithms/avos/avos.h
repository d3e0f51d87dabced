/* GPU variants of the AVOS semiring: elementwise sum and product of integer arrays, and the
 * CSR x CSR product C = S (+) A (x) B in steps (symbolic count, numeric values) that the driver
 * (avos_driver.cu) strings together into one product or a transitive closure.
 *
 * Each variant exports one launcher, `int avos_<variant>_launch(int step, const struct avos_args
 * *a, void *stream)`, that enqueues one step on the stream without synchronising and returns 0,
 * or 1 when the variant has no kernel for that step (GR_RUN_UNSUPPORTED). Launch errors end the
 * process (GR_CUDA_CHECK). All pointers in avos_args are device pointers.
 *
 * Product steps, in order (the driver reads the stats between them):
 *   AVOS_STEP_SYMBOLIC        counts[r] = distinct non-zero columns of row r, for every row except
 *                             those it appends to the global list (too wide for shared memory)
 *   AVOS_STEP_SYMBOLIC_GLOBAL counts of the listed rows, hash tables in global scratch
 *   (the driver scans counts into c_ptr and sizes C)
 *   AVOS_STEP_NUMERIC         c_idx / c_val of every row except the listed ones, sorted by column
 *   AVOS_STEP_NUMERIC_GLOBAL  the listed rows
 * Overflowed products are counted in stats->overflow and contribute nothing; a diagonal product
 * term outside {-1, 0, 1} puts its row into stats->cycle_vertex (minimum). */
#ifndef GR_ALGORITHMS_AVOS_H
#define GR_ALGORITHMS_AVOS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum avos_type { AVOS_INT8, AVOS_INT16, AVOS_INT32, AVOS_INT64 };

enum avos_step {
  AVOS_STEP_SUM,     /* out[i] = avos_sum(x[i], y[i]) */
  AVOS_STEP_PRODUCT, /* out[i] = avos_product(x[i], y[i]); overflow: 0, counted, first index kept */
  AVOS_STEP_SYMBOLIC,
  AVOS_STEP_SYMBOLIC_GLOBAL,
  AVOS_STEP_NUMERIC,
  AVOS_STEP_NUMERIC_GLOBAL,
  AVOS_STEP_COMPARE, /* closure: stats->changed = 1 if C differs from S (same nnz) */
  AVOS_STEP_STASH,   /* a query about this product, nothing launched: 0 when the variant's
                        symbolic step would compute whole rows into the stash (stash_* below;
                        the numeric step then copies them), 1 when not (the driver then passes
                        no stash: stash_idx NULL) */
};

#define AVOS_NONE (~0ull) /* cycle_vertex / first_overflow when there is none */

/* Device-side counters of one step sequence. The driver zeroes it (the two minima to AVOS_NONE)
 * at the start of a product or closure, and the per-product fields before each product. */
struct avos_dev_stats {
  unsigned long long overflow;       /* overflowed products (numeric steps, elementwise product) */
  unsigned long long cycle_vertex;   /* smallest row with a diagonal product outside {-1, 0, 1} */
  unsigned long long first_overflow; /* elementwise product: smallest overflowing index */
  /* per product */
  unsigned int n_sym_warp;   /* rows listed for the warp tier of the symbolic step */
  unsigned int n_sym_block;  /* rows listed for the block tier of the symbolic step */
  unsigned int n_num_warp;   /* rows listed for the warp tier of the numeric step */
  unsigned int n_num_block;  /* rows listed for the block tier of the numeric step */
  unsigned int n_global;     /* rows listed for the global tier (both steps) */
  unsigned int global_slots; /* largest hash table a listed row needs (power of two) */
  unsigned int changed;      /* AVOS_STEP_COMPARE found a difference */
  unsigned int n_group;      /* rows the thread tier listed for the 8-lane group tier */
  unsigned long long stash_used; /* stash entries handed out (may pass stash_cap: those rows
                                    stay unstashed) */
};

struct avos_args {
  enum avos_type type;
  /* elementwise */
  long long n;
  const void *x, *y;
  void *out;
  /* C = S (+) A (x) B; S may be absent (s_ptr NULL); A is rows x inner, B inner x cols */
  int rows, inner, cols;
  const int *a_ptr, *a_idx;
  const void *a_val;
  const int *b_ptr, *b_idx;
  const void *b_val;
  const int *s_ptr, *s_idx;
  const void *s_val;
  int *counts;      /* rows + 1, written by the symbolic steps */
  const int *c_ptr; /* rows + 1, the scan of counts */
  int *c_idx;
  void *c_val;
  long long c_cap; /* entries c_idx / c_val can hold: no write goes past it (a replayed variant
                      whose counts vary run to run stays in bounds) */
  long long c_nnz; /* AVOS_STEP_COMPARE: entries of C (= of S) */
  /* workspace */
  int *sym_warp, *sym_block, *num_warp, *num_block; /* lists of rows, rows entries each */
  int *global_rows;           /* list of (row, table slots) pairs, 2 * rows entries */
  int *group_rows;            /* rows the thread tier left to the group tier, rows entries */
  void *scratch;                            /* global tier tables */
  unsigned global_slots;                    /* slots per block in scratch (power of two) */
  unsigned global_grid;                     /* blocks of the global tier */
  struct avos_dev_stats *stats;
  /* the stash (AVOS_STEP_STASH): rows the symbolic step computed whole, their entries in column
   * order at stash_idx / stash_val + stash_off[row]; stash_off[row] = -1 (the driver's fill) for
   * the others; at most stash_cap entries */
  int *stash_off, *stash_idx;
  void *stash_val;
  long long stash_cap;
};

typedef int (*avos_launch_fn)(int step, const struct avos_args *a, void *stream);

/* Bytes of scratch one global-tier block needs per hash slot (an int key and a 64-bit value). */
#define AVOS_GLOBAL_SLOT_BYTES 12

/* historical: avos_sum compares as unsigned without a RED_ONE guard: -1 loses every sum */
int avos_v1_unsigned_sum_launch(int step, const struct avos_args *a, void *stream);
/* historical: MSB of int8/int16 as 31 - clz(x) - (32 - bits): wrong shift in every product */
int avos_v1_msb_small_launch(int step, const struct avos_args *a, void *stream);
/* historical: one thread per row, one hash table per warp shared by its 32 rows, non-atomic
 * accumulation (product steps only) */
int avos_v1_warp_shared_hash_launch(int step, const struct avos_args *a, void *stream);
/* historical: no fallback; a full hash table answers "not new" and entries vanish (product
 * steps only) */
int avos_v1_hash_full_drop_launch(int step, const struct avos_args *a, void *stream);
/* fixed: elementwise kernels; a thread per row of at most 16 terms (sorted in registers), then 8
 * lanes, then a warp per row with a row-private shared table, a block per wider row,
 * global-memory tables beyond that; exact atomic avos_sum */
int avos_v2_warp_hash_launch(int step, const struct avos_args *a, void *stream);
int avos_v3_split_rows_launch(int step, const struct avos_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
