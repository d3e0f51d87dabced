/* CPU reference of the AVOS semiring of red/black genealogy graphs (doc/algorithms.md, avos): the
 * elementwise sum and product, the CSR x CSR product over the semiring and the transitive closure
 * by repeated squaring, for the integer types of 8, 16, 32 and 64 bits.
 *
 * Values are held in int64_t whatever the type; `bits` (8, 16, 32 or 64) is the width of the type
 * they stand for. Valid values are -1 (RED_ONE, a male self), 0 (none), 1 (BLACK_ONE, a female
 * self) and 2 .. 2^(bits-1)-1 (relationships: 2 father, 3 mother, 4..7 grandparents, ...).
 *
 * Overflow: a product of x and y (after RED_ONE on the left is read as 1) needs
 * MSB(x) + MSB(y) + 1 bits; it overflows when MSB(x) + MSB(y) >= bits - 1, i.e. when the result
 * would not be a positive value of the signed type (this includes the case where it would read
 * as -1). doc/algorithms.md words the bound as ">= bits" for the unsigned bit pattern; with signed
 * storage and a signed minimum as the sum, a result with the sign bit set would be a value below
 * -1 (invalid) that wins every sum, so it is reported as overflow too. An overflowed product is
 * counted, never wrapped, and contributes nothing (0) to a sum. */
#ifndef GR_REFERENCE_AVOS_H
#define GR_REFERENCE_AVOS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AVOS_RED_ONE (-1)
#define AVOS_BLACK_ONE 1
#define AVOS_MAX_ITER 64 /* closure: squarings before "no fixed point" is reported */

/* 1 if bits is 8, 16, 32 or 64. */
int avos_bits_valid(int bits);
/* Largest valid value of the type: 2^(bits-1) - 1. */
int64_t avos_max_value(int bits);
/* 1 if v is a valid value of the type: -1 <= v <= 2^(bits-1) - 1. */
int avos_value_valid(int64_t v, int bits);

/* floor(log2 x) for x >= 1; 0 for x <= 1. */
int avos_msb(int64_t x);
/* y if x == 0; x if y == 0; otherwise the signed minimum (-1 wins). */
int64_t avos_sum(int64_t x, int64_t y);
/* The product of doc/algorithms.md, rules in order. On overflow returns 0 and sets *overflow to 1
 * (*overflow is left alone otherwise; overflow may be NULL). Inputs must be valid values. */
int64_t avos_product(int64_t x, int64_t y, int bits, int *overflow);

/* A sparse matrix in CSR form: rows sorted by column, no duplicates. Explicit zeros are allowed
 * (they contribute nothing). */
struct avos_csr {
  int32_t rows, cols;
  int32_t *indptr;  /* rows + 1 */
  int32_t *indices; /* nnz */
  int64_t *values;  /* nnz */
};

static inline int64_t avos_csr_nnz(const struct avos_csr *m) { return m->rows ? m->indptr[m->rows] : 0; }

/* Allocate a rows x cols matrix with room for nnz entries (indptr zeroed). 0 ok, -1 out of
 * memory (m left empty). */
int avos_csr_alloc(struct avos_csr *m, int32_t rows, int32_t cols, int64_t nnz);
void avos_csr_release(struct avos_csr *m);
/* Deep copy. 0 ok, -1 out of memory. */
int avos_csr_copy(const struct avos_csr *src, struct avos_csr *dst);
/* Structure and values: indptr monotone from 0, columns in range and strictly increasing per row,
 * values valid for bits. 0 ok, -1 with why naming the row and column. */
int avos_csr_validate(const struct avos_csr *m, int bits, char *why, size_t len);
/* Value at (r, c), 0 when not stored. */
int64_t avos_csr_get(const struct avos_csr *m, int32_t r, int32_t c);
/* 1 if both have the same shape, pattern and values. */
int avos_csr_equal(const struct avos_csr *a, const struct avos_csr *b);

/* What a product or closure reports besides its result. */
struct avos_stats {
  int64_t overflow;     /* product terms that overflowed (summed over closure iterations) */
  int64_t cycle_vertex; /* smallest row with a diagonal product term outside {-1, 0, 1}; -1 none */
  int64_t iterations;   /* closure: products computed, the one that confirmed the fixed point
                           included; 0 for a single product */
  int64_t fixed_point;  /* closure: 1 when a fixed point was reached within AVOS_MAX_ITER */
};

/* C = S (+) A (x) B over the semiring, S optional (NULL): C_ij = avos_sum(S_ij, avos_sum over k
 * of avos_product(A_ik, B_kj)). Zero products and zero values contribute nothing; C holds exactly
 * the columns with a non-zero value, sorted. st->overflow and st->cycle_vertex are updated
 * (added to, minimised), the caller initialises st. 0 ok, -1 with why (shape mismatch, out of
 * memory, more than 2^31-1 entries). */
int avos_spgemm(const struct avos_csr *a, const struct avos_csr *b, const struct avos_csr *s,
                int bits, struct avos_csr *c, struct avos_stats *st, char *why, size_t len);
/* avos_spgemm in parts: its shape check (0 ok, -1 with why); then rows [lo, hi) of the product
 * into c (c->rows = hi - lo, its indptr from 0; st updated as above), each row independent of the
 * others (avos_spgemm_parallel runs them over the CPUs: avos_alg.h). */
int avos_spgemm_shapes(const struct avos_csr *a, const struct avos_csr *b,
                       const struct avos_csr *s, char *why, size_t len);
int avos_spgemm_rows(const struct avos_csr *a, const struct avos_csr *b, const struct avos_csr *s,
                     int bits, int32_t lo, int32_t hi, struct avos_csr *c, struct avos_stats *st,
                     char *why, size_t len);
/* A product with avos_spgemm's contract (it, or the same over the CPUs). */
typedef int (*avos_product_fn)(const struct avos_csr *a, const struct avos_csr *b,
                               const struct avos_csr *s, int bits, struct avos_csr *c,
                               struct avos_stats *st, char *why, size_t len);
/* Transitive closure by repeated squaring: W <- W (+) W (x) W until W does not change (at most
 * AVOS_MAX_ITER products). st is initialised here. 0 ok (fixed point or not: see
 * st->fixed_point), -1 with why. */
int avos_closure(const struct avos_csr *w, int bits, struct avos_csr *out, struct avos_stats *st,
                 char *why, size_t len);
/* The same with the products computed by `product`. */
int avos_closure_by(const struct avos_csr *w, int bits, avos_product_fn product,
                    struct avos_csr *out, struct avos_stats *st, char *why, size_t len);
/* The same closure by Floyd-Warshall on a dense n x n copy (W_ij <- W_ij (+) W_ik (x) W_kj, k
 * outermost): an independent algorithm for the tests. Agrees with avos_closure on acyclic valid
 * graphs without overflow. n <= 4096. 0 ok, -1 with why. */
int avos_closure_floyd(const struct avos_csr *w, int bits, struct avos_csr *out, int64_t *overflow,
                       char *why, size_t len);

/* The parity invariant: every row has its diagonal stored with a value in {-1, 1} (the gender:
 * -1 male, 1 female), and every non-zero off-diagonal entry of column j is even if j is male,
 * odd if female. gender (rows entries, -1 or 1) gives the genders; NULL takes them from m's own
 * diagonal. 0 ok, -1 with why naming the entry. */
int avos_check_parity(const struct avos_csr *m, const int8_t *gender, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
