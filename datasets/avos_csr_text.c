/* Text form of an AVOS matrix and its validating loader: see avos_csr_text.h. */
#include "avos_csr_text.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "data_file.h"
#include <gpuregress/util.h>

#define LINE_MAX_BYTES (1 << 20) /* a line's bytes, its newline included */

struct reader {
  FILE *f;
  const char *name;
  long line;
  uint64_t bytes, max_bytes; /* read so far, the limit */
  int failed;                /* next_line stopped on an error (why filled) */
  char *buf;
  char *why;
  size_t len;
};

static int fail(struct reader *rd, const char *f, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *rd, const char *f, ...)
{
  char msg[384];
  va_list ap;
  va_start(ap, f);
  vsnprintf(msg, sizeof msg, f, ap);
  va_end(ap);
  if (rd->why && rd->len && rd->line > 0)
    snprintf(rd->why, rd->len, "'%s' line %ld: %s", rd->name, rd->line, msg);
  else if (rd->why && rd->len) /* nothing read: an empty file */
    snprintf(rd->why, rd->len, "'%s' is empty: %s", rd->name, msg);
  rd->failed = 1;
  return -1;
}

/* Next line that is neither blank nor a comment, without its newline. NULL at the end of the
 * input, or with rd->failed set (why filled) on a NUL byte (a text file holds none: everything
 * after it would be ignored), a line longer than LINE_MAX_BYTES, more than rd->max_bytes in all
 * (an endless input such as a device stops here), or a read error. */
static char *next_line(struct reader *rd)
{
  for (;;) {
    int c = getc(rd->f);
    if (c == EOF)
      break;
    rd->line++;
    size_t n = 0;
    for (; c != EOF; c = getc(rd->f)) {
      if (++rd->bytes > rd->max_bytes) {
        fail(rd, "more than %llu bytes of text (the loader's limit)",
             (unsigned long long)rd->max_bytes);
        return NULL;
      }
      if (c == '\n')
        break;
      if (c == '\0') {
        fail(rd, "NUL byte at column %zu: not a text file", n + 1);
        return NULL;
      }
      if (n == LINE_MAX_BYTES - 1) {
        fail(rd, "line longer than %d bytes", LINE_MAX_BYTES);
        return NULL;
      }
      rd->buf[n++] = (char)c;
    }
    if (c == EOF && ferror(rd->f))
      break;
    while (n && rd->buf[n - 1] == '\r')
      n--;
    rd->buf[n] = 0;
    char *s = rd->buf;
    while (isspace((unsigned char)*s))
      s++;
    if (*s && *s != '#')
      return s;
  }
  if (ferror(rd->f))
    fail(rd, "read error: %s", strerror(errno));
  return NULL;
}

/* Parse a decimal integer at *s (optional sign), advancing *s. 0 ok, -1 not a number. */
static int parse_ll(char **s, long long *out)
{
  char *end;
  errno = 0;
  if (!isdigit((unsigned char)**s) && **s != '-' && **s != '+')
    return -1;
  long long v = strtoll(*s, &end, 10);
  if (errno || end == *s)
    return -1;
  *s = end;
  *out = v;
  return 0;
}

static void skip_spaces(char **s)
{
  while (**s == ' ' || **s == '\t')
    (*s)++;
}

/* The two header lines: "avos-csr 1" and "shape ROWS COLS NNZ" (the word, then blanks). 0 ok
 * with the shape; -1 with rd->why. */
static int read_head(struct reader *rd, long long *rows, long long *cols, long long *nnz)
{
  char *s = next_line(rd);
  if (rd->failed)
    return -1;
  if (!s || strcmp(s, "avos-csr 1") != 0)
    return fail(rd, "expected the header 'avos-csr 1'");
  s = next_line(rd);
  if (rd->failed)
    return -1;
  if (!s || strncmp(s, "shape", 5) != 0 || (s[5] != ' ' && s[5] != '\t'))
    return fail(rd, "expected 'shape ROWS COLS NNZ'");
  s += 5;
  skip_spaces(&s);
  if (parse_ll(&s, rows) || (skip_spaces(&s), parse_ll(&s, cols)) ||
      (skip_spaces(&s), parse_ll(&s, nnz)) || (skip_spaces(&s), *s))
    return fail(rd, "expected 'shape ROWS COLS NNZ' with three integers");
  if (*rows < 0 || *cols < 0 || *nnz < 0 || *rows > INT32_MAX - 1 || *cols > INT32_MAX - 1 ||
      *nnz > INT32_MAX || (*rows ? *nnz > *rows * *cols : *nnz != 0))
    return fail(rd,
                "shape %lld x %lld with %lld entries is not possible (at most 2^31-2 rows and "
                "columns, 2^31-1 entries, nnz <= rows*cols)",
                *rows, *cols, *nnz);
  return 0;
}

int avos_csr_check_text(const char *path, char *why, size_t len)
{
  FILE *f;
  uint64_t size;
  if (data_file_open(path, &f, &size, why, len))
    return -1;
  struct reader rd = {f, path, 0, 0, AVOS_TEXT_MAX_BYTES, 0, NULL, why, len};
  long long rows, cols, nnz;
  int rc = -1;
  if (size > AVOS_TEXT_MAX_BYTES)
    gr_fmt(why, len, "'%s' has %llu bytes, more than the loader reads (%llu)", path,
           (unsigned long long)size, (unsigned long long)AVOS_TEXT_MAX_BYTES);
  else if (!(rd.buf = malloc(LINE_MAX_BYTES)))
    gr_fmt(why, len, "'%s': out of host memory", path);
  else
    rc = read_head(&rd, &rows, &cols, &nnz);
  free(rd.buf);
  fclose(f);
  return rc;
}

int avos_csr_read_text(FILE *f, const char *name, int bits, struct avos_csr *m, char *why,
                       size_t len)
{
  return avos_csr_read_text_max(f, name, bits, AVOS_TEXT_MAX_BYTES, m, why, len);
}

int avos_csr_read_text_max(FILE *f, const char *name, int bits, uint64_t max_bytes,
                           struct avos_csr *m, char *why, size_t len)
{
  struct reader rd = {f, name, 0, 0, max_bytes, 0, NULL, why, len};
  memset(m, 0, sizeof *m);
  if (!avos_bits_valid(bits)) {
    snprintf(why, len, "'%s': cannot load values of %d bits (8, 16, 32 or 64)", name, bits);
    return -1;
  }
  rd.buf = malloc(LINE_MAX_BYTES);
  if (!rd.buf) {
    snprintf(why, len, "'%s': out of host memory", name);
    return -1;
  }
  int rc = -1;
  char *s;
  long long rows, cols, nnz;
  if (read_head(&rd, &rows, &cols, &nnz))
    goto out;
  if (avos_csr_alloc(m, (int32_t)rows, (int32_t)cols, nnz)) {
    fail(&rd, "out of host memory for %lld entries", nnz);
    goto out;
  }
  long long q = 0;
  for (long long r = 0; r < rows; r++) {
    s = next_line(&rd);
    if (!s) {
      if (!rd.failed)
        fail(&rd, "end of file after %lld of %lld rows", r, rows);
      goto out;
    }
    long long row;
    if (parse_ll(&s, &row) || *s != ':') {
      fail(&rd, "expected 'ROW: COL=VALUE ...'");
      goto out;
    }
    if (row != r) {
      fail(&rd, "row %lld where row %lld was expected (rows in order, each once)", row, r);
      goto out;
    }
    s++;
    long long prev = -1;
    for (;;) {
      skip_spaces(&s);
      if (!*s)
        break;
      long long col, val;
      if (parse_ll(&s, &col) || *s != '=') {
        fail(&rd, "row %lld: expected COL=VALUE at '%.20s'", r, s);
        goto out;
      }
      s++;
      if (parse_ll(&s, &val) || (*s && *s != ' ' && *s != '\t')) {
        fail(&rd, "row %lld column %lld: the value is not an integer", r, col);
        goto out;
      }
      if (col < 0 || col >= cols) {
        fail(&rd, "row %lld: column %lld out of range [0, %lld)", r, col, cols);
        goto out;
      }
      if (col <= prev) {
        fail(&rd, "row %lld: column %lld after column %lld (columns must be strictly increasing)",
             r, col, prev);
        goto out;
      }
      if (!avos_value_valid(val, bits)) {
        fail(&rd, "row %lld column %lld: value %lld outside [-1, %lld] for %d-bit values", r, col,
             val, (long long)avos_max_value(bits), bits);
        goto out;
      }
      if (q >= nnz) {
        fail(&rd, "more entries than the %lld the shape line declares", nnz);
        goto out;
      }
      m->indices[q] = (int32_t)col;
      m->values[q++] = val;
      prev = col;
    }
    m->indptr[r + 1] = (int32_t)q;
  }
  if (q != nnz) {
    fail(&rd, "%lld entries where the shape line declares %lld", q, nnz);
    goto out;
  }
  if (next_line(&rd)) {
    fail(&rd, "unexpected text after the last row");
    goto out;
  }
  if (rd.failed)
    goto out;
  rc = 0;
out:
  free(rd.buf);
  if (rc)
    avos_csr_release(m);
  return rc;
}

int avos_csr_load_text(const char *path, int bits, struct avos_csr *m, char *why, size_t len)
{
  FILE *f;
  uint64_t size;
  memset(m, 0, sizeof *m);
  if (data_file_open(path, &f, &size, why, len))
    return -1;
  int rc = avos_csr_read_text(f, path, bits, m, why, len);
  fclose(f);
  return rc;
}

int avos_csr_write_text(FILE *f, const struct avos_csr *m)
{
  if (fprintf(f, "avos-csr 1\nshape %d %d %lld\n", m->rows, m->cols, (long long)avos_csr_nnz(m)) < 0)
    return -1;
  for (int32_t r = 0; r < m->rows; r++) {
    fprintf(f, "%d:", r);
    for (int32_t p = m->indptr[r]; p < m->indptr[r + 1]; p++)
      fprintf(f, " %d=%lld", m->indices[p], (long long)m->values[p]);
    if (fputc('\n', f) == EOF)
      return -1;
  }
  return ferror(f) ? -1 : 0;
}
