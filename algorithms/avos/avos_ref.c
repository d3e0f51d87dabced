/* CPU reference of the AVOS semiring: direct definitions, a dense accumulator per row for the
 * matrix product, repeated squaring for the closure. Plain and exact: every value is an int64_t
 * and every product is checked against the width of the type it stands for. */
#include "avos_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/util.h>

int avos_bits_valid(int bits) { return bits == 8 || bits == 16 || bits == 32 || bits == 64; }

int64_t avos_max_value(int bits) { return bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1; }

int avos_value_valid(int64_t v, int bits) { return v >= -1 && v <= avos_max_value(bits); }

int avos_msb(int64_t x)
{
  int b = 0;
  while (x > 1) {
    x >>= 1;
    b++;
  }
  return b;
}

int64_t avos_sum(int64_t x, int64_t y)
{
  if (x == 0)
    return y;
  if (y == 0)
    return x;
  return x < y ? x : y;
}

int64_t avos_product(int64_t x, int64_t y, int bits, int *overflow)
{
  if (x == 0 || y == 0)
    return 0;
  if (x == -1 && y == -1)
    return -1;
  if (x == 1 && y == 1)
    return 1;
  if ((x == -1 && y == 1) || (x == 1 && y == -1))
    return 0;
  if (x == -1)
    x = 1;
  if (y == -1)
    return x % 2 == 0 ? x : 0;
  if (y == 1)
    return x % 2 != 0 ? x : 0;
  int b = avos_msb(y);
  if (avos_msb(x) + b >= bits - 1) {
    if (overflow)
      *overflow = 1;
    return 0;
  }
  return (y & (((int64_t)1 << b) - 1)) | (x << b);
}

int avos_csr_alloc(struct avos_csr *m, int32_t rows, int32_t cols, int64_t nnz)
{
  memset(m, 0, sizeof *m);
  if (rows < 0 || cols < 0 || nnz < 0 || nnz > INT32_MAX)
    return -1;
  m->indptr = calloc((size_t)rows + 1, sizeof *m->indptr);
  m->indices = malloc((size_t)(nnz ? nnz : 1) * sizeof *m->indices);
  m->values = malloc((size_t)(nnz ? nnz : 1) * sizeof *m->values);
  if (!m->indptr || !m->indices || !m->values) {
    avos_csr_release(m);
    return -1;
  }
  m->rows = rows;
  m->cols = cols;
  return 0;
}

void avos_csr_release(struct avos_csr *m)
{
  free(m->indptr);
  free(m->indices);
  free(m->values);
  memset(m, 0, sizeof *m);
}

int avos_csr_copy(const struct avos_csr *src, struct avos_csr *dst)
{
  int64_t nnz = avos_csr_nnz(src);
  if (avos_csr_alloc(dst, src->rows, src->cols, nnz))
    return -1;
  memcpy(dst->indptr, src->indptr, ((size_t)src->rows + 1) * sizeof *dst->indptr);
  memcpy(dst->indices, src->indices, (size_t)nnz * sizeof *dst->indices);
  memcpy(dst->values, src->values, (size_t)nnz * sizeof *dst->values);
  return 0;
}

int avos_csr_validate(const struct avos_csr *m, int bits, char *why, size_t len)
{
  if (m->rows < 0 || m->cols < 0 || !m->indptr) {
    gr_fmt(why, len, "matrix has a negative shape or no row pointers");
    return -1;
  }
  if (m->indptr[0] != 0) {
    gr_fmt(why, len, "row pointer 0 is %d, not 0", m->indptr[0]);
    return -1;
  }
  for (int32_t r = 0; r < m->rows; r++) {
    if (m->indptr[r + 1] < m->indptr[r]) {
      gr_fmt(why, len, "row %d: row pointers decrease (%d then %d)", r, m->indptr[r], m->indptr[r + 1]);
      return -1;
    }
    for (int32_t p = m->indptr[r]; p < m->indptr[r + 1]; p++) {
      int32_t c = m->indices[p];
      if (c < 0 || c >= m->cols) {
        gr_fmt(why, len, "row %d: column %d out of range [0, %d)", r, c, m->cols);
        return -1;
      }
      if (p > m->indptr[r] && c <= m->indices[p - 1]) {
        gr_fmt(why, len, "row %d: columns not strictly increasing (%d after %d)", r, c,
            m->indices[p - 1]);
        return -1;
      }
      if (!avos_value_valid(m->values[p], bits)) {
        gr_fmt(why, len, "row %d column %d: value %lld is not a valid %d-bit value (-1 .. %lld)", r, c,
            (long long)m->values[p], bits, (long long)avos_max_value(bits));
        return -1;
      }
    }
  }
  return 0;
}

int64_t avos_csr_get(const struct avos_csr *m, int32_t r, int32_t c)
{
  int32_t lo = m->indptr[r], hi = m->indptr[r + 1];
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (m->indices[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < m->indptr[r + 1] && m->indices[lo] == c ? m->values[lo] : 0;
}

int avos_csr_equal(const struct avos_csr *a, const struct avos_csr *b)
{
  if (a->rows != b->rows || a->cols != b->cols)
    return 0;
  int64_t nnz = avos_csr_nnz(a);
  return memcmp(a->indptr, b->indptr, ((size_t)a->rows + 1) * sizeof *a->indptr) == 0 &&
         memcmp(a->indices, b->indices, (size_t)nnz * sizeof *a->indices) == 0 &&
         memcmp(a->values, b->values, (size_t)nnz * sizeof *a->values) == 0;
}

static int cmp_i32(const void *x, const void *y)
{
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

int avos_spgemm_shapes(const struct avos_csr *a, const struct avos_csr *b,
                       const struct avos_csr *s, char *why, size_t len)
{
  if (a->cols != b->rows || (s && (s->rows != a->rows || s->cols != b->cols))) {
    gr_fmt(why, len, "shape mismatch: A is %d x %d, B is %d x %d", a->rows, a->cols, b->rows, b->cols);
    return -1;
  }
  return 0;
}

int avos_spgemm(const struct avos_csr *a, const struct avos_csr *b, const struct avos_csr *s,
                int bits, struct avos_csr *c, struct avos_stats *st, char *why, size_t len)
{
  memset(c, 0, sizeof *c);
  if (avos_spgemm_shapes(a, b, s, why, len))
    return -1;
  return avos_spgemm_rows(a, b, s, bits, 0, a->rows, c, st, why, len);
}

int avos_spgemm_rows(const struct avos_csr *a, const struct avos_csr *b, const struct avos_csr *s,
                     int bits, int32_t lo, int32_t hi, struct avos_csr *c, struct avos_stats *st,
                     char *why, size_t len)
{
  memset(c, 0, sizeof *c);
  int32_t rows = hi - lo, cols = b->cols;
  int64_t *acc = calloc((size_t)cols + 1, sizeof *acc);
  int32_t *touched = malloc(((size_t)cols + 1) * sizeof *touched);
  int32_t *indptr = calloc((size_t)rows + 1, sizeof *indptr);
  size_t cap = 1024, nnz = 0;
  int32_t *idx = malloc(cap * sizeof *idx);
  int64_t *val = malloc(cap * sizeof *val);
  if (!acc || !touched || !indptr || !idx || !val)
    goto out_of_memory;
  for (int32_t i = lo; i < hi; i++) {
    size_t nt = 0;
    /* acc[j] != 0 marks a touched column: every contribution is non-zero and so is their sum */
    if (s)
      for (int32_t p = s->indptr[i]; p < s->indptr[i + 1]; p++) {
        int32_t j = s->indices[p];
        if (s->values[p] == 0)
          continue;
        if (acc[j] == 0)
          touched[nt++] = j;
        acc[j] = avos_sum(acc[j], s->values[p]);
      }
    for (int32_t p = a->indptr[i]; p < a->indptr[i + 1]; p++) {
      int64_t x = a->values[p];
      int32_t k = a->indices[p];
      if (x == 0)
        continue;
      for (int32_t q = b->indptr[k]; q < b->indptr[k + 1]; q++) {
        int64_t y = b->values[q];
        int32_t j = b->indices[q];
        int ovf = 0;
        if (y == 0)
          continue;
        int64_t v = avos_product(x, y, bits, &ovf);
        st->overflow += ovf;
        if (v == 0)
          continue;
        if (j == i && (v < -1 || v > 1) && (st->cycle_vertex < 0 || i < st->cycle_vertex))
          st->cycle_vertex = i;
        if (acc[j] == 0)
          touched[nt++] = j;
        acc[j] = avos_sum(acc[j], v);
      }
    }
    qsort(touched, nt, sizeof *touched, cmp_i32);
    if (nnz + nt > (size_t)INT32_MAX) {
      gr_fmt(why, len, "product has more than 2^31-1 entries");
      goto fail;
    }
    if (nnz + nt > cap) {
      while (nnz + nt > cap)
        cap *= 2;
      int32_t *ni = realloc(idx, cap * sizeof *idx);
      if (ni)
        idx = ni;
      int64_t *nv = realloc(val, cap * sizeof *val);
      if (nv)
        val = nv;
      if (!ni || !nv)
        goto out_of_memory;
    }
    for (size_t t = 0; t < nt; t++) {
      idx[nnz] = touched[t];
      val[nnz++] = acc[touched[t]];
      acc[touched[t]] = 0;
    }
    indptr[i - lo + 1] = (int32_t)nnz;
  }
  free(acc);
  free(touched);
  c->rows = rows;
  c->cols = cols;
  c->indptr = indptr;
  c->indices = idx;
  c->values = val;
  return 0;
out_of_memory:
  gr_fmt(why, len, "out of host memory for a %d x %d product", rows, cols);
fail:
  free(acc);
  free(touched);
  free(indptr);
  free(idx);
  free(val);
  return -1;
}

int avos_closure(const struct avos_csr *w, int bits, struct avos_csr *out, struct avos_stats *st,
                 char *why, size_t len)
{
  return avos_closure_by(w, bits, avos_spgemm, out, st, why, len);
}

int avos_closure_by(const struct avos_csr *w, int bits, avos_product_fn product,
                    struct avos_csr *out, struct avos_stats *st, char *why, size_t len)
{
  memset(st, 0, sizeof *st);
  st->cycle_vertex = -1;
  memset(out, 0, sizeof *out);
  if (w->rows != w->cols) {
    gr_fmt(why, len, "closure of a non-square %d x %d matrix", w->rows, w->cols);
    return -1;
  }
  struct avos_csr cur;
  if (avos_csr_copy(w, &cur)) {
    gr_fmt(why, len, "out of host memory");
    return -1;
  }
  while (st->iterations < AVOS_MAX_ITER) {
    struct avos_csr next;
    if (product(&cur, &cur, &cur, bits, &next, st, why, len)) {
      avos_csr_release(&cur);
      return -1;
    }
    st->iterations++;
    int same = avos_csr_equal(&cur, &next);
    avos_csr_release(&cur);
    cur = next;
    if (same) {
      st->fixed_point = 1;
      break;
    }
  }
  *out = cur;
  return 0;
}

int avos_closure_floyd(const struct avos_csr *w, int bits, struct avos_csr *out, int64_t *overflow,
                       char *why, size_t len)
{
  int32_t n = w->rows;
  memset(out, 0, sizeof *out);
  if (w->rows != w->cols || n > 4096) {
    gr_fmt(why, len, "floyd closure takes square matrices up to 4096 rows, not %d x %d", w->rows,
        w->cols);
    return -1;
  }
  int64_t *d = calloc((size_t)n * (size_t)n + 1, sizeof *d);
  if (!d) {
    gr_fmt(why, len, "out of host memory");
    return -1;
  }
  for (int32_t i = 0; i < n; i++)
    for (int32_t p = w->indptr[i]; p < w->indptr[i + 1]; p++)
      d[(size_t)i * n + w->indices[p]] = w->values[p];
  *overflow = 0;
  for (int32_t k = 0; k < n; k++)
    for (int32_t i = 0; i < n; i++) {
      int64_t x = d[(size_t)i * n + k];
      if (x == 0)
        continue;
      for (int32_t j = 0; j < n; j++) {
        int64_t y = d[(size_t)k * n + j];
        int ovf = 0;
        if (y == 0)
          continue;
        int64_t v = avos_product(x, y, bits, &ovf);
        *overflow += ovf;
        d[(size_t)i * n + j] = avos_sum(d[(size_t)i * n + j], v);
      }
    }
  int64_t nnz = 0;
  for (size_t t = 0; t < (size_t)n * n; t++)
    nnz += d[t] != 0;
  if (avos_csr_alloc(out, n, n, nnz)) {
    free(d);
    gr_fmt(why, len, "out of host memory");
    return -1;
  }
  int64_t q = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int32_t j = 0; j < n; j++)
      if (d[(size_t)i * n + j]) {
        out->indices[q] = j;
        out->values[q++] = d[(size_t)i * n + j];
      }
    out->indptr[i + 1] = (int32_t)q;
  }
  free(d);
  return 0;
}

int avos_check_parity(const struct avos_csr *m, const int8_t *gender, char *why, size_t len)
{
  int8_t *own = NULL;
  if (m->rows != m->cols) {
    gr_fmt(why, len, "parity invariant needs a square matrix, not %d x %d", m->rows, m->cols);
    return -1;
  }
  if (!gender) {
    own = malloc((size_t)m->rows + 1);
    if (!own) {
      gr_fmt(why, len, "out of host memory");
      return -1;
    }
    for (int32_t r = 0; r < m->rows; r++) {
      int64_t d = avos_csr_get(m, r, r);
      if (d != -1 && d != 1) {
        gr_fmt(why, len, "row %d: diagonal is %lld, not -1 (male) or 1 (female)", r, (long long)d);
        free(own);
        return -1;
      }
      own[r] = (int8_t)d;
    }
    gender = own;
  }
  int rc = 0;
  for (int32_t r = 0; r < m->rows && !rc; r++) {
    int64_t d = avos_csr_get(m, r, r);
    if (d != gender[r]) {
      gr_fmt(why, len, "row %d: diagonal is %lld, the vertex's gender is %d", r, (long long)d,
          gender[r]);
      rc = -1;
    }
    for (int32_t p = m->indptr[r]; p < m->indptr[r + 1] && !rc; p++) {
      int32_t c = m->indices[p];
      int64_t v = m->values[p];
      if (c == r || v == 0)
        continue;
      int odd = (v & 1) != 0;
      if (odd != (gender[c] == 1)) {
        gr_fmt(why, len,
            "entry (%d, %d) = %lld is %s but vertex %d is %s: parity invariant broken", r, c,
            (long long)v, odd ? "odd" : "even", c, gender[c] == 1 ? "female" : "male");
        rc = -1;
      }
    }
  }
  free(own);
  return rc;
}
