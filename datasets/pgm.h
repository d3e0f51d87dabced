/* 8-bit binary PGM ("P5") read and write. The reader accepts exactly one image: magic P5,
 * whitespace- and comment-separated decimal width, height and maxval (1..255), one whitespace
 * byte, then width*height pixel bytes each <= maxval, and nothing after them. Anything else is
 * rejected with a status code and a message naming the file and what is wrong. Pixel values are
 * returned as stored (no rescaling by maxval). pgm_read reads regular files only and checks the
 * header's sizes against the file's size before allocating the pixels. */
#ifndef GR_DATASETS_PGM_H
#define GR_DATASETS_PGM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PGM_MAX_SIDE 65535   /* largest width or height accepted */
#define PGM_MAX_HEADER 65536 /* pgm_read: bytes the header may take, comments included */

enum pgm_status {
  PGM_OK = 0,
  PGM_ERR_IO = 1,        /* cannot open, read or write the file; not a regular file */
  PGM_ERR_MAGIC = 2,     /* not "P5" (an ASCII "P2" file is named as such) */
  PGM_ERR_HEADER = 3,    /* a header field missing, not a decimal number, unterminated, too long */
  PGM_ERR_SIZE = 4,      /* width or height 0 or above PGM_MAX_SIDE */
  PGM_ERR_MAXVAL = 5,    /* maxval 0 or above 255 (16-bit PGM) */
  PGM_ERR_TRUNCATED = 6, /* fewer pixel bytes than width*height */
  PGM_ERR_TRAILING = 7,  /* bytes after the pixels */
  PGM_ERR_PIXEL = 8,     /* a pixel above maxval */
  PGM_ERR_NOMEM = 9,
};

/* Parse a PGM held in memory; name is used in messages. On PGM_OK *pixels (malloc'd, w*h bytes,
 * row-major), *w and *h are set; otherwise nothing is allocated and why says what is wrong. */
enum pgm_status pgm_parse(const unsigned char *buf, size_t n, const char *name, uint8_t **pixels,
                          int *w, int *h, char *why, size_t len);
/* The header of the file at path only (a regular file, never blocking): magic, sizes and
 * maxval, and the file's size against them; *w, *h on PGM_OK. The pixels are not read. */
enum pgm_status pgm_read_header(const char *path, int *w, int *h, char *why, size_t len);
/* pgm_read_header as a GR_PARAM_FILE check (alg.h): 0 ok, -1 with why naming the file. */
int pgm_check_file(const char *path, char *why, size_t len);
/* Read the file at path (see pgm_parse). */
enum pgm_status pgm_read(const char *path, uint8_t **pixels, int *w, int *h, char *why, size_t len);
/* Write pixels (w*h bytes) as a P5 file with maxval 255. */
enum pgm_status pgm_write(const char *path, const uint8_t *pixels, int w, int h, char *why,
                          size_t len);

#ifdef __cplusplus
}
#endif

#endif
