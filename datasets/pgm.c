/* 8-bit binary PGM read and write: see pgm.h for what is accepted. */
#include "pgm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_file.h"
#include <gpuregress/util.h>

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

/* What the header says: sizes, maxval, and the offset of the first pixel byte. */
struct pgm_header {
  long width, height, maxval;
  size_t pixels; /* offset of the first pixel byte */
};

/* Parse the header at the start of buf (n bytes: the whole file or a prefix of it). PGM_OK, or a
 * status with why; *ran_off is set when the header did not end within the n bytes. */
static enum pgm_status parse_header(const unsigned char *buf, size_t n, const char *name,
                                    struct pgm_header *hd, int *ran_off, char *why, size_t len)
{
  *ran_off = 0;
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
  enum pgm_status st;
  if ((st = header_field(buf, n, &pos, name, "width", &hd->width, why, len)) ||
      (st = header_field(buf, n, &pos, name, "height", &hd->height, why, len)) ||
      (st = header_field(buf, n, &pos, name, "maxval", &hd->maxval, why, len))) {
    *ran_off = pos >= n;
    return st;
  }
  if (hd->width < 1 || hd->height < 1 || hd->width > PGM_MAX_SIDE || hd->height > PGM_MAX_SIDE) {
    gr_fmt(why, len, "'%s': size %ld x %ld is outside 1 .. %d per side", name, hd->width,
           hd->height, PGM_MAX_SIDE);
    return PGM_ERR_SIZE;
  }
  if (hd->maxval < 1 || hd->maxval > 255) {
    gr_fmt(why, len, "'%s': maxval %ld is not in 1 .. 255%s", name, hd->maxval,
           hd->maxval > 255 ? " (16-bit PGM is not supported)" : "");
    return PGM_ERR_MAXVAL;
  }
  /* exactly one whitespace byte ends the header (header_field left pos on it, or on '#') */
  if (buf[pos] == '#') {
    gr_fmt(why, len, "'%s': a comment after the maxval leaves the start of the pixels ambiguous",
           name);
    return PGM_ERR_HEADER;
  }
  hd->pixels = pos + 1;
  return PGM_OK;
}

/* A file of `size` bytes must hold exactly the pixels the header declares. */
static enum pgm_status check_size(const struct pgm_header *hd, uint64_t size, const char *name,
                                  char *why, size_t len)
{
  uint64_t need = (uint64_t)hd->width * (uint64_t)hd->height, have = size - hd->pixels;
  if (have < need) {
    gr_fmt(why, len, "'%s' is truncated: %llu of %llu pixel bytes (%ld x %ld)", name,
           (unsigned long long)have, (unsigned long long)need, hd->width, hd->height);
    return PGM_ERR_TRUNCATED;
  }
  if (have > need) {
    gr_fmt(why, len, "'%s' has %llu bytes after the %ld x %ld pixels", name,
           (unsigned long long)(have - need), hd->width, hd->height);
    return PGM_ERR_TRAILING;
  }
  return PGM_OK;
}

static enum pgm_status check_pixels(const unsigned char *px, const struct pgm_header *hd,
                                    const char *name, char *why, size_t len)
{
  size_t need = (size_t)hd->width * (size_t)hd->height;
  for (size_t i = 0; i < need; i++)
    if (px[i] > hd->maxval) {
      gr_fmt(why, len, "'%s': pixel (%zu, %zu) is %d, above maxval %ld", name,
             i % (size_t)hd->width, i / (size_t)hd->width, px[i], hd->maxval);
      return PGM_ERR_PIXEL;
    }
  return PGM_OK;
}

enum pgm_status pgm_parse(const unsigned char *buf, size_t n, const char *name, uint8_t **pixels,
                          int *w, int *h, char *why, size_t len)
{
  *pixels = NULL;
  struct pgm_header hd;
  int ran_off;
  enum pgm_status st;
  if ((st = parse_header(buf, n, name, &hd, &ran_off, why, len)) ||
      (st = check_size(&hd, n, name, why, len)) ||
      (st = check_pixels(buf + hd.pixels, &hd, name, why, len)))
    return st;
  size_t need = (size_t)hd.width * (size_t)hd.height;
  uint8_t *p = malloc(need);
  if (!p) {
    gr_fmt(why, len, "'%s': out of memory for %zu pixels", name, need);
    return PGM_ERR_NOMEM;
  }
  memcpy(p, buf + hd.pixels, need);
  *pixels = p;
  *w = (int)hd.width;
  *h = (int)hd.height;
  return PGM_OK;
}

enum pgm_status pgm_read_header(const char *path, int *w, int *h, char *why, size_t len)
{
  FILE *f;
  uint64_t size;
  if (data_file_open(path, &f, &size, why, len))
    return PGM_ERR_IO;
  enum pgm_status st = PGM_ERR_NOMEM;
  unsigned char *head = malloc(PGM_MAX_HEADER);
  size_t hn = size < PGM_MAX_HEADER ? (size_t)size : PGM_MAX_HEADER;
  struct pgm_header hd;
  int ran_off;
  if (!head) {
    gr_fmt(why, len, "'%s': out of memory", path);
  } else if (fread(head, 1, hn, f) != hn) {
    gr_fmt(why, len, "cannot read '%s': %s", path, ferror(f) ? strerror(errno) : "short read");
    st = PGM_ERR_IO;
  } else if ((st = parse_header(head, hn, path, &hd, &ran_off, why, len))) {
    if (ran_off && hn < size)
      gr_fmt(why, len, "'%s': the header is longer than %d bytes (comments included)", path,
             PGM_MAX_HEADER);
  } else if ((st = check_size(&hd, size, path, why, len)) == PGM_OK) {
    *w = (int)hd.width;
    *h = (int)hd.height;
  }
  free(head);
  fclose(f);
  return st;
}

int pgm_check_file(const char *path, char *why, size_t len)
{
  int w, h;
  return pgm_read_header(path, &w, &h, why, len) == PGM_OK ? 0 : -1;
}

enum pgm_status pgm_read(const char *path, uint8_t **pixels, int *w, int *h, char *why, size_t len)
{
  *pixels = NULL;
  FILE *f;
  uint64_t size;
  if (data_file_open(path, &f, &size, why, len))
    return PGM_ERR_IO;
  /* the header first, from at most PGM_MAX_HEADER bytes: its sizes are checked against the
   * file's size before anything of that size is allocated */
  enum pgm_status st = PGM_ERR_NOMEM;
  unsigned char *head = malloc(PGM_MAX_HEADER);
  uint8_t *p = NULL;
  if (!head) {
    gr_fmt(why, len, "'%s': out of memory", path);
    goto out_close;
  }
  size_t hn = size < PGM_MAX_HEADER ? (size_t)size : PGM_MAX_HEADER;
  st = PGM_ERR_IO;
  if (fread(head, 1, hn, f) != hn) {
    gr_fmt(why, len, "cannot read '%s': %s", path, ferror(f) ? strerror(errno) : "short read");
    goto out_free;
  }
  struct pgm_header hd;
  int ran_off;
  if ((st = parse_header(head, hn, path, &hd, &ran_off, why, len))) {
    if (ran_off && hn < size)
      gr_fmt(why, len, "'%s': the header is longer than %d bytes (comments included)", path,
             PGM_MAX_HEADER);
    goto out_free;
  }
  if ((st = check_size(&hd, size, path, why, len)))
    goto out_free;
  size_t need = (size_t)hd.width * (size_t)hd.height;
  p = malloc(need);
  if (!p) {
    gr_fmt(why, len, "'%s': out of memory for %zu pixels", path, need);
    st = PGM_ERR_NOMEM;
    goto out_free;
  }
  if (fseek(f, (long)hd.pixels, SEEK_SET) || fread(p, 1, need, f) != need) {
    gr_fmt(why, len, "cannot read '%s': %s", path, ferror(f) ? strerror(errno) : "short read");
    st = PGM_ERR_IO;
    goto out_free;
  }
  if ((st = check_pixels(p, &hd, path, why, len)))
    goto out_free;
  *pixels = p;
  p = NULL;
  *w = (int)hd.width;
  *h = (int)hd.height;
out_free:
  free(p);
  free(head);
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
