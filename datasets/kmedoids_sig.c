/* Signature datasets for k-medoids: generator, writer, validating loader. See kmedoids_sig.h for
 * the file format. The format is little-endian and this code writes the host's bytes: it expects a
 * little-endian host (x86-64, AArch64). */
#include "kmedoids_sig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_file.h"
#include <gpuregress/util.h>
#include <gpuregress/rng.h>

const char kmsig_magic[8] = {'K', 'M', 'S', 'I', 'G', 'S', '\0', '\1'};
const char *const kmsig_dist_names[] = {"classes", "uniform", "duplicates", NULL};

#define PROTOS_PER_CLASS 6
#define FEATURE_BOX 2.0 /* prototypes and uniform centroids lie in [0, 2]^7 */
#define PROTO_NOISE 0.12

struct header {
  char magic[8];
  uint32_t version, dim;
  uint64_t n, total, index_offset, data_offset, reserved[2];
};
_Static_assert(sizeof(struct header) == KMSIG_HEADER_BYTES, "header layout");

const char *kmsig_strerror(int err)
{
  switch (err) {
  case KMSIG_OK: return "ok";
  case KMSIG_E_IO: return "i/o error";
  case KMSIG_E_TRUNCATED: return "truncated file";
  case KMSIG_E_MAGIC: return "not a signature file";
  case KMSIG_E_VERSION: return "unsupported version";
  case KMSIG_E_HEADER: return "inconsistent header";
  case KMSIG_E_INDEX_ORDER: return "index out of order";
  case KMSIG_E_INDEX_END: return "index past the end";
  case KMSIG_E_VALUE: return "bad value";
  case KMSIG_E_NOMEM: return "out of memory";
  case KMSIG_E_ARG: return "bad argument";
  default: return "unknown error";
  }
}

void kmsig_free(struct kmsig *ds)
{
  if (!ds)
    return;
  free(ds->off);
  free(ds->data);
  memset(ds, 0, sizeof *ds);
}

static double gauss(struct gr_rng *r)
{
  double u = gr_rng_unit(r), v = gr_rng_unit(r);
  return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

static double clamp_box(double x)
{
  return x < 0 ? 0 : x > FEATURE_BOX ? FEATURE_BOX : x;
}

int kmsig_generate(const struct kmsig_gen *g, struct kmsig *out, char *why, size_t len)
{
  memset(out, 0, sizeof *out);
  if (g->n < 1 || g->n > KMSIG_MAX_N || g->sig_min < 1 || g->sig_max < g->sig_min ||
      g->classes < 1 || (unsigned)g->dist >= KMSIG_DIST_COUNT_) {
    gr_fmt(why, len, "bad generator parameters: n=%lld sig=%d..%d classes=%d", (long long)g->n,
           g->sig_min, g->sig_max, g->classes);
    return KMSIG_E_ARG;
  }
  int64_t n = g->n;
  int classes = g->dist == KMSIG_DIST_UNIFORM ? 1 : g->classes;
  double *proto = malloc(sizeof(double) * (size_t)classes * PROTOS_PER_CLASS * (KMSIG_DIM + 1));
  int64_t *cls = malloc(sizeof(int64_t) * (size_t)n);
  int64_t *copy_of = malloc(sizeof(int64_t) * (size_t)n);
  out->off = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int err = KMSIG_E_NOMEM;
  if (!proto || !cls || !copy_of || !out->off) {
    gr_fmt(why, len, "out of host memory for %lld signatures", (long long)n);
    goto out_free;
  }
  struct gr_rng r;
  gr_rng_seed(&r, g->seed);
  /* classes: prototype points and each prototype's share of its class */
  for (int c = 0; c < classes; c++)
    for (int p = 0; p < PROTOS_PER_CLASS; p++) {
      double *q = proto + ((size_t)c * PROTOS_PER_CLASS + p) * (KMSIG_DIM + 1);
      for (int d = 0; d < KMSIG_DIM; d++)
        q[d] = FEATURE_BOX * (0.05 + 0.9 * gr_rng_unit(&r));
      q[KMSIG_DIM] = 0.2 + gr_rng_unit(&r); /* base weight */
    }
  /* pass 1: class, size, and for duplicates the object copied */
  out->off[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    copy_of[i] = -1;
    cls[i] = gr_rng_range(&r, 0, classes - 1);
    int64_t size = gr_rng_range(&r, g->sig_min, g->sig_max);
    if (g->dist == KMSIG_DIST_DUPLICATES && i % 4 == 3) {
      copy_of[i] = gr_rng_range(&r, 0, i - 1);
      size = kmsig_size(out, copy_of[i]);
    }
    out->off[i + 1] = out->off[i] + size;
    if (out->off[i + 1] > KMSIG_MAX_TOTAL) {
      gr_fmt(why, len, "more than %lld centroids in all", (long long)KMSIG_MAX_TOTAL);
      err = KMSIG_E_ARG;
      goto out_free;
    }
  }
  out->n = n;
  out->total = out->off[n];
  out->data = malloc(sizeof(float) * KMSIG_REC * (size_t)out->total);
  if (!out->data) {
    gr_fmt(why, len, "out of host memory for %lld centroids", (long long)out->total);
    goto out_free;
  }
  /* pass 2: the centroids */
  for (int64_t i = 0; i < n; i++) {
    float *x = out->data + (size_t)out->off[i] * KMSIG_REC;
    int64_t size = kmsig_size(out, i);
    if (copy_of[i] >= 0) {
      memcpy(x, out->data + (size_t)out->off[copy_of[i]] * KMSIG_REC,
             sizeof(float) * KMSIG_REC * (size_t)size);
      continue;
    }
    for (int64_t j = 0; j < size; j++, x += KMSIG_REC) {
      if (g->dist == KMSIG_DIST_UNIFORM) {
        for (int d = 0; d < KMSIG_DIM; d++)
          x[d] = (float)(FEATURE_BOX * gr_rng_unit(&r));
        x[KMSIG_DIM] = (float)(0.05 + gr_rng_unit(&r));
        continue;
      }
      int p = (int)gr_rng_range(&r, 0, PROTOS_PER_CLASS - 1);
      const double *q = proto + ((size_t)cls[i] * PROTOS_PER_CLASS + p) * (KMSIG_DIM + 1);
      for (int d = 0; d < KMSIG_DIM; d++)
        x[d] = (float)clamp_box(q[d] + PROTO_NOISE * gauss(&r));
      x[KMSIG_DIM] = (float)(q[KMSIG_DIM] * (0.5 + gr_rng_unit(&r)));
    }
  }
  err = KMSIG_OK;
out_free:
  free(proto);
  free(cls);
  free(copy_of);
  if (err)
    kmsig_free(out);
  return err;
}

int kmsig_validate(const struct kmsig *ds, char *why, size_t len)
{
  if (ds->n < 0 || ds->n > KMSIG_MAX_N || ds->total < 0 || ds->total > KMSIG_MAX_TOTAL) {
    gr_fmt(why, len, "%lld signatures, %lld centroids: beyond what is supported",
           (long long)ds->n, (long long)ds->total);
    return KMSIG_E_HEADER;
  }
  if (ds->off[0] != 0) {
    gr_fmt(why, len, "index entry 0 is %lld, not 0", (long long)ds->off[0]);
    return KMSIG_E_INDEX_ORDER;
  }
  for (int64_t i = 1; i <= ds->n; i++) {
    if (ds->off[i] > ds->total || ds->off[i] < 0) {
      gr_fmt(why, len, "index entry %lld (%lld) is past the end of the data (%lld centroids)",
             (long long)i, (long long)ds->off[i], (long long)ds->total);
      return KMSIG_E_INDEX_END;
    }
    if (ds->off[i] <= ds->off[i - 1]) {
      gr_fmt(why, len, "index entry %lld (%lld) is not after entry %lld (%lld)", (long long)i,
             (long long)ds->off[i], (long long)(i - 1), (long long)ds->off[i - 1]);
      return KMSIG_E_INDEX_ORDER;
    }
  }
  if (ds->off[ds->n] != ds->total) {
    gr_fmt(why, len, "last index entry (%lld) is not the number of centroids (%lld)",
           (long long)ds->off[ds->n], (long long)ds->total);
    return KMSIG_E_INDEX_END;
  }
  for (int64_t c = 0; c < ds->total; c++) {
    const float *x = ds->data + (size_t)c * KMSIG_REC;
    for (int d = 0; d < KMSIG_DIM; d++)
      if (!isfinite(x[d])) {
        gr_fmt(why, len, "centroid %lld: coordinate %d is not finite", (long long)c, d);
        return KMSIG_E_VALUE;
      }
    if (!(x[KMSIG_DIM] > 0) || !isfinite(x[KMSIG_DIM])) {
      gr_fmt(why, len, "centroid %lld: weight %g is not positive", (long long)c,
             (double)x[KMSIG_DIM]);
      return KMSIG_E_VALUE;
    }
  }
  return KMSIG_OK;
}

int kmsig_write(const struct kmsig *ds, const char *path, char *why, size_t len)
{
  struct header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, kmsig_magic, sizeof h.magic);
  h.version = KMSIG_VERSION;
  h.dim = KMSIG_DIM;
  h.n = (uint64_t)ds->n;
  h.total = (uint64_t)ds->total;
  h.index_offset = KMSIG_HEADER_BYTES;
  h.data_offset = KMSIG_HEADER_BYTES + 8 * (h.n + 1);
  FILE *f = fopen(path, "wb");
  if (!f) {
    gr_fmt(why, len, "cannot create '%s': %s", path, strerror(errno));
    return KMSIG_E_IO;
  }
  int ok = fwrite(&h, sizeof h, 1, f) == 1 &&
           fwrite(ds->off, sizeof(int64_t), (size_t)ds->n + 1, f) == (size_t)ds->n + 1 &&
           fwrite(ds->data, sizeof(float) * KMSIG_REC, (size_t)ds->total, f) == (size_t)ds->total;
  if (fclose(f) != 0)
    ok = 0;
  if (!ok) {
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno));
    return KMSIG_E_IO;
  }
  return KMSIG_OK;
}

/* Read and check the header of f (size bytes): each field on its own, and the file's size
 * against what the header declares. 0 ok; else the KMSIG_E_* code with inner saying why. */
static int read_header(FILE *f, uint64_t size, struct header *h, char *inner, size_t ilen)
{
  int err;
  if (size < sizeof *h || fread(h, sizeof *h, 1, f) != 1) {
    gr_fmt(inner, ilen, "truncated: %llu bytes, shorter than the %u-byte header",
           (unsigned long long)size, KMSIG_HEADER_BYTES);
    err = KMSIG_E_TRUNCATED;
    return err;
  }
  if (memcmp(h->magic, kmsig_magic, sizeof h->magic) != 0) {
    gr_fmt(inner, ilen, "not a signature file (bad magic)");
    err = KMSIG_E_MAGIC;
    return err;
  }
  if (h->version != KMSIG_VERSION || h->dim != KMSIG_DIM) {
    gr_fmt(inner, ilen, "version %u, dimension %u: this build reads version %u, dimension %d",
           h->version, h->dim, KMSIG_VERSION, KMSIG_DIM);
    err = KMSIG_E_VERSION;
    return err;
  }
  /* each header field on its own, so that the message names the one that is wrong */
  err = KMSIG_E_HEADER;
  if (h->n > (uint64_t)KMSIG_MAX_N) {
    gr_fmt(inner, ilen, "header field n (signatures) is %llu, above the limit %lld (2^31)",
           (unsigned long long)h->n, (long long)KMSIG_MAX_N);
    return err;
  }
  if (h->total > (uint64_t)KMSIG_MAX_TOTAL) {
    gr_fmt(inner, ilen, "header field total (centroids) is %llu, above the limit %lld (2^31)",
           (unsigned long long)h->total, (long long)KMSIG_MAX_TOTAL);
    return err;
  }
  if (h->index_offset != KMSIG_HEADER_BYTES) {
    gr_fmt(inner, ilen, "header field index_offset is %llu, not %u (the header's size)",
           (unsigned long long)h->index_offset, KMSIG_HEADER_BYTES);
    return err;
  }
  if (h->data_offset != KMSIG_HEADER_BYTES + 8 * (h->n + 1)) {
    gr_fmt(inner, ilen,
           "header field data_offset is %llu, not %llu (index_offset + 8 * (n + 1) with n = %llu)",
           (unsigned long long)h->data_offset,
           (unsigned long long)(KMSIG_HEADER_BYTES + 8 * (h->n + 1)), (unsigned long long)h->n);
    return err;
  }
  uint64_t want = h->data_offset + (uint64_t)KMSIG_REC * sizeof(float) * h->total;
  if (size < want) {
    gr_fmt(inner, ilen, "truncated: %llu bytes, the header says %llu",
           (unsigned long long)size, (unsigned long long)want);
    err = KMSIG_E_TRUNCATED;
    return err;
  }
  if (size > want) {
    gr_fmt(inner, ilen, "%llu bytes after the data (file %llu bytes, header says %llu)",
           (unsigned long long)(size - want), (unsigned long long)size, (unsigned long long)want);
    err = KMSIG_E_HEADER;
    return err;
  }
  return 0;
}

int kmsig_check(const char *path, char *why, size_t len)
{
  char inner[400];
  FILE *f;
  uint64_t size;
  struct header h;
  if (data_file_open(path, &f, &size, why, len))
    return KMSIG_E_IO;
  int err = read_header(f, size, &h, inner, sizeof inner);
  fclose(f);
  if (err)
    gr_fmt(why, len, "'%s': %s", path, inner);
  return err;
}

int kmsig_load(const char *path, struct kmsig *out, char *why, size_t len)
{
  memset(out, 0, sizeof *out);
  char inner[400];
  int err;
  FILE *f;
  uint64_t size;
  if (data_file_open(path, &f, &size, why, len))
    return KMSIG_E_IO;
  struct header h;
  if ((err = read_header(f, size, &h, inner, sizeof inner)))
    goto out_close;
  out->n = (int64_t)h.n;
  out->total = (int64_t)h.total;
  out->off = malloc(sizeof(int64_t) * (size_t)(h.n + 1));
  out->data = malloc(sizeof(float) * KMSIG_REC * (size_t)(h.total ? h.total : 1));
  if (!out->off || !out->data) {
    gr_fmt(inner, sizeof inner, "out of host memory for %llu centroids", (unsigned long long)h.total);
    err = KMSIG_E_NOMEM;
    goto out_close;
  }
  if (fread(out->off, sizeof(int64_t), (size_t)h.n + 1, f) != (size_t)h.n + 1 ||
      fread(out->data, sizeof(float) * KMSIG_REC, (size_t)h.total, f) != (size_t)h.total) {
    gr_fmt(inner, sizeof inner, "read error: %s", strerror(errno));
    err = KMSIG_E_IO;
    goto out_close;
  }
  err = kmsig_validate(out, inner, sizeof inner);
out_close:
  fclose(f);
  if (err) {
    gr_fmt(why, len, "'%s': %s", path, inner);
    kmsig_free(out);
  }
  return err;
}
