/* 8-bit binary PGM read and write: see pgm.h for what is accepted. */
#include "pgm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"

static int is_space(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skip whitespace and '#' comments (to the end of the line) from *pos. */
static void skip_blank(const unsigned char *buf, size_t n, size_t *pos)
{
  while (*pos < n) {
    if (is_space(buf[*pos]))
      (*pos)++;
    else if (buf[*pos] == '#')
      while (*pos < n && buf[*pos] != '\n')
        (*pos)++;
    else
      break;
  }
}

/* One header field: a decimal number after blanks, ended by whitespace or '#'. Values above
 * 10^9 are reported as such. 0 ok, else PGM_ERR_HEADER with why. */
static enum pgm_status header_field(const unsigned char *buf, size_t n, size_t *pos,
                                    const char *name, const char *field, long *out, char *why,
                                    size_t len)
{
  skip_blank(buf, n, pos);
  if (*pos >= n) {
    gr_fmt(why, len, "'%s' ends inside the header: the %s is missing", name, field);
    return PGM_ERR_HEADER;
  }
  if (buf[*pos] < '0' || buf[*pos] > '9') {
    gr_fmt(why, len, "'%s': the %s is not a decimal number (byte 0x%02x at offset %zu)", name,
           field, buf[*pos], *pos);
    return PGM_ERR_HEADER;
  }
  long v = 0;
  while (*pos < n && buf[*pos] >= '0' && buf[*pos] <= '9') {
    if (v <= 1000000000L)
      v = v * 10 + (buf[*pos] - '0');
    (*pos)++;
  }
  if (*pos >= n) {
    gr_fmt(why, len, "'%s' ends inside the header, right after the %s", name, field);
    return PGM_ERR_HEADER;
  }
  if (!is_space(buf[*pos]) && buf[*pos] != '#') {
    gr_fmt(why, len, "'%s': the %s is followed by byte 0x%02x, not whitespace", name, field,
           buf[*pos]);
    return PGM_ERR_HEADER;
  }
  *out = v;
  return PGM_OK;
}

enum pgm_status pgm_parse(const unsigned char *buf, size_t n, const char *name, uint8_t **pixels,
                          int *w, int *h, char *why, size_t len)
{
  *pixels = NULL;
  if (n < 2 || buf[0] != 'P' || buf[1] != '5') {
    if (n >= 2 && buf[0] == 'P' && buf[1] == '2')
      gr_fmt(why, len,
             "'%s' is an ASCII PGM (P2): only binary P5 is read; convert it with "
             "'pnmtopnm' or 'convert'",
             name);
    else
      gr_fmt(why, len, "'%s' is not a binary PGM: it does not start with 'P5'", name);
    return PGM_ERR_MAGIC;
  }
  size_t pos = 2;
  if (pos < n && !is_space(buf[pos]) && buf[pos] != '#') {
    gr_fmt(why, len, "'%s': the magic 'P5' is not followed by whitespace", name);
    return PGM_ERR_MAGIC;
  }
  long width, height, maxval;
  enum pgm_status st;
  if ((st = header_field(buf, n, &pos, name, "width", &width, why, len)) ||
      (st = header_field(buf, n, &pos, name, "height", &height, why, len)) ||
      (st = header_field(buf, n, &pos, name, "maxval", &maxval, why, len)))
    return st;
  if (width < 1 || height < 1 || width > PGM_MAX_SIDE || height > PGM_MAX_SIDE) {
    gr_fmt(why, len, "'%s': size %ld x %ld is outside 1 .. %d per side", name, width, height,
           PGM_MAX_SIDE);
    return PGM_ERR_SIZE;
  }
  if (maxval < 1 || maxval > 255) {
    gr_fmt(why, len, "'%s': maxval %ld is not in 1 .. 255%s", name, maxval,
           maxval > 255 ? " (16-bit PGM is not supported)" : "");
    return PGM_ERR_MAXVAL;
  }
  /* exactly one whitespace byte ends the header (header_field left pos on it, or on '#') */
  if (buf[pos] == '#') {
    gr_fmt(why, len, "'%s': a comment after the maxval leaves the start of the pixels ambiguous",
           name);
    return PGM_ERR_HEADER;
  }
  pos++;
  size_t need = (size_t)width * (size_t)height;
  if (n - pos < need) {
    gr_fmt(why, len, "'%s' is truncated: %zu of %zu pixel bytes (%ld x %ld)", name, n - pos, need,
           width, height);
    return PGM_ERR_TRUNCATED;
  }
  if (n - pos > need) {
    gr_fmt(why, len, "'%s' has %zu bytes after the %ld x %ld pixels", name, n - pos - need, width,
           height);
    return PGM_ERR_TRAILING;
  }
  for (size_t i = 0; i < need; i++)
    if (buf[pos + i] > maxval) {
      gr_fmt(why, len, "'%s': pixel (%zu, %zu) is %d, above maxval %ld", name, i % (size_t)width,
             i / (size_t)width, buf[pos + i], maxval);
      return PGM_ERR_PIXEL;
    }
  uint8_t *p = malloc(need);
  if (!p) {
    gr_fmt(why, len, "'%s': out of memory for %zu pixels", name, need);
    return PGM_ERR_NOMEM;
  }
  memcpy(p, buf + pos, need);
  *pixels = p;
  *w = (int)width;
  *h = (int)height;
  return PGM_OK;
}

enum pgm_status pgm_read(const char *path, uint8_t **pixels, int *w, int *h, char *why, size_t len)
{
  *pixels = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    gr_fmt(why, len, "cannot open '%s': %s", path, strerror(errno));
    return PGM_ERR_IO;
  }
  enum pgm_status st = PGM_ERR_IO;
  unsigned char *buf = NULL;
  long size;
  if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
    gr_fmt(why, len, "cannot read '%s': %s", path, strerror(errno));
    goto out_close;
  }
  buf = malloc(size ? (size_t)size : 1);
  if (!buf) {
    gr_fmt(why, len, "'%s': out of memory for %ld bytes", path, size);
    st = PGM_ERR_NOMEM;
    goto out_close;
  }
  if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
    gr_fmt(why, len, "cannot read '%s': %s", path, ferror(f) ? strerror(errno) : "short read");
    goto out_free_buf;
  }
  st = pgm_parse(buf, (size_t)size, path, pixels, w, h, why, len);
out_free_buf:
  free(buf);
out_close:
  fclose(f);
  return st;
}

enum pgm_status pgm_write(const char *path, const uint8_t *pixels, int w, int h, char *why,
                          size_t len)
{
  if (w < 1 || h < 1 || w > PGM_MAX_SIDE || h > PGM_MAX_SIDE) {
    gr_fmt(why, len, "cannot write '%s': size %d x %d is outside 1 .. %d per side", path, w, h,
           PGM_MAX_SIDE);
    return PGM_ERR_SIZE;
  }
  FILE *f = fopen(path, "wb");
  if (!f) {
    gr_fmt(why, len, "cannot create '%s': %s", path, strerror(errno));
    return PGM_ERR_IO;
  }
  size_t n = (size_t)w * (size_t)h;
  int ok = fprintf(f, "P5\n%d %d\n255\n", w, h) > 0 && fwrite(pixels, 1, n, f) == n;
  if (fclose(f) != 0)
    ok = 0;
  if (!ok) {
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno));
    return PGM_ERR_IO;
  }
  return PGM_OK;
}
