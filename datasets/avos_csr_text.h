/* Text form of an AVOS matrix (a red/black graph's relationship matrix, or any CSR matrix over the
 * semiring), and its validating loader.
 *
 *   # comments and blank lines are ignored
 *   avos-csr 1
 *   shape ROWS COLS NNZ
 *   0: 0=-1 4=2 7=3
 *   1: 1=1
 *   ...
 *
 * One line per row, rows in order 0 .. ROWS-1, each exactly once; a row lists COL=VALUE pairs with
 * columns strictly increasing in [0, COLS); values are integers in [-1, 2^(bits-1)-1] for the
 * type they are loaded as; the pairs add up to NNZ. Anything else is rejected with the line number
 * and what was wrong, and so are a NUL byte anywhere, a line over 1 MiB and an input over
 * AVOS_TEXT_MAX_BYTES (an endless stream stops there). avos_csr_load_text reads regular files
 * only. */
#ifndef GR_DATASETS_AVOS_CSR_TEXT_H
#define GR_DATASETS_AVOS_CSR_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "algorithms/avos/avos_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of text the loader reads at most (16 GiB: some 400 million people of a genealogy). */
#define AVOS_TEXT_MAX_BYTES ((uint64_t)1 << 34)

/* Read f (named `name` in messages) as a matrix of `bits`-bit values into m (allocated here).
 * 0 ok; -1 with why ("'g.txt' line 7: column 9 out of range [0, 5)"), m left empty. */
int avos_csr_read_text(FILE *f, const char *name, int bits, struct avos_csr *m, char *why,
                       size_t len);
/* The same, reading at most max_bytes (counting blank and comment lines) before it stops with an
 * error that names the limit. */
int avos_csr_read_text_max(FILE *f, const char *name, int bits, uint64_t max_bytes,
                           struct avos_csr *m, char *why, size_t len);
/* Open and read path. 0 ok; -1 with why (cannot open, or as above). */
int avos_csr_load_text(const char *path, int bits, struct avos_csr *m, char *why, size_t len);
/* The header of the file at path only (a regular file, never blocking; its size within
 * AVOS_TEXT_MAX_BYTES; the magic line; a shape line that can be): a GR_PARAM_FILE check (alg.h).
 * 0 ok; -1 with why naming the file and the line. */
int avos_csr_check_text(const char *path, char *why, size_t len);
/* Write m in the text form. 0 ok, -1 on a write error. */
int avos_csr_write_text(FILE *f, const struct avos_csr *m);

#ifdef __cplusplus
}
#endif

#endif
