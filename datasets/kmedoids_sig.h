/* Image feature signatures for k-medoids: a seeded generator, a binary file format, its writer and
 * a validating loader.
 *
 * A signature is a set of centroids, each a point in R^7 with a positive weight (tens to hundreds
 * per image). The generator draws objects from a number of latent image classes: each class has
 * a few prototype points, each centroid of an object is one of its class's prototypes plus
 * Gaussian noise, weights are positive. Same parameters and seed, same dataset, on any machine.
 *
 * File format (little-endian), version 1:
 *   header, 64 bytes:
 *     char     magic[8]      "KMSIGS\0\1"
 *     uint32   version       1
 *     uint32   dim           7
 *     uint64   n             signatures
 *     uint64   total         centroids in all signatures
 *     uint64   index_offset  byte offset of the index (64)
 *     uint64   data_offset   byte offset of the data (index_offset + 8 * (n + 1))
 *     uint64   reserved[2]   0
 *   index: uint64 off[n + 1]; off[0] = 0, strictly increasing (every signature has a centroid),
 *          off[n] = total; signature i is centroids [off[i], off[i+1])
 *   data:  total records of 8 float32: 7 coordinates, then the weight (finite, > 0)
 * The file is exactly data_offset + 32 * total bytes long. */
#ifndef GR_DATASETS_KMEDOIDS_SIG_H
#define GR_DATASETS_KMEDOIDS_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/kmedoids/kmedoids_ref.h" /* struct kmsig, KMSIG_DIM, KMSIG_REC, kmsig_size */

#ifdef __cplusplus
extern "C" {
#endif

#define KMSIG_VERSION 1u
#define KMSIG_HEADER_BYTES 64u
#define KMSIG_MAX_N ((int64_t)1 << 31)     /* signatures a file may hold */
#define KMSIG_MAX_TOTAL ((int64_t)1 << 31) /* centroids a file may hold */

extern const char kmsig_magic[8];

/* Input distributions of the generator, simplest first. */
enum kmsig_dist {
  KMSIG_DIST_CLASSES,    /* objects of `classes` latent classes, prototypes + noise */
  KMSIG_DIST_UNIFORM,    /* centroids uniform in the feature box, no structure */
  KMSIG_DIST_DUPLICATES, /* classes, and every fourth object an exact copy of an earlier one */
  KMSIG_DIST_COUNT_
};
extern const char *const kmsig_dist_names[]; /* NULL-terminated, in enum order */

struct kmsig_gen {
  int64_t n;             /* signatures, >= 1 */
  int sig_min, sig_max;  /* centroids per signature, 1 <= sig_min <= sig_max */
  int classes;           /* latent image classes, >= 1 */
  enum kmsig_dist dist;
  uint64_t seed;
};

/* Error codes of the loader and writer (negative); kmsig_strerror names them. */
enum kmsig_err {
  KMSIG_OK = 0,
  KMSIG_E_IO = -1,          /* cannot open / read / write the file */
  KMSIG_E_TRUNCATED = -2,   /* shorter than its header says */
  KMSIG_E_MAGIC = -3,       /* not a signature file */
  KMSIG_E_VERSION = -4,     /* a version or dimension this code does not read */
  KMSIG_E_HEADER = -5,      /* sizes or offsets in the header inconsistent, trailing bytes */
  KMSIG_E_INDEX_ORDER = -6, /* index not strictly increasing from 0 */
  KMSIG_E_INDEX_END = -7,   /* index entry past the end of the data / last entry not the total */
  KMSIG_E_VALUE = -8,       /* non-finite coordinate or non-positive weight */
  KMSIG_E_NOMEM = -9,
  KMSIG_E_ARG = -10, /* bad generator parameters */
};
const char *kmsig_strerror(int err);

/* The header of the file at path only (a regular file, never blocking; each field; the file's
 * size against it): a GR_PARAM_FILE check (alg.h). 0 ok; else a KMSIG_E_* code with why naming the
 * file. */
int kmsig_check(const char *path, char *why, size_t len);
/* Generate a dataset. 0, or a negative kmsig_err with why filled. */
int kmsig_generate(const struct kmsig_gen *g, struct kmsig *out, char *why, size_t len);
/* Write ds to path in the format above. 0, or a negative kmsig_err with why. */
int kmsig_write(const struct kmsig *ds, const char *path, char *why, size_t len);
/* Load and validate path. 0, or a negative kmsig_err with why naming the file and the first
 * problem ("'x.sig': index entry 17 (40) is not after entry 16 (52)"). out is left empty on
 * error. */
int kmsig_load(const char *path, struct kmsig *out, char *why, size_t len);
/* Validate an in-memory dataset (what the loader checks after reading). */
int kmsig_validate(const struct kmsig *ds, char *why, size_t len);
void kmsig_free(struct kmsig *ds);

#ifdef __cplusplus
}
#endif

#endif
