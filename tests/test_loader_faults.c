/* The dataset loaders under hostile input (issue 12): each refuses, with a message naming the
 * file and the problem, what used to hang, allocate absurdly or be silently misread:
 *  - avos text (genealogies): a NUL byte inside a line (everything after it was ignored),
 *    /dev/zero (never returned), an endless stream of blank lines or an endless line (stops at
 *    the byte limit / the line limit), a directory;
 *  - PGM: a directory or a device (malloc(2^63 - 1)), a header whose sizes the file cannot hold
 *    (refused before the pixels are allocated), a header longer than the limit;
 *  - k-medoids signatures: each inconsistent header field named (n = 2^31 + 1 said only
 *    "inconsistent header"), a directory (reported as a 9223372036854775807-byte file).
 * Exit 0 ok, 1 a check failed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datasets/avos_csr_text.h"
#include "datasets/kmedoids_sig.h"
#include "datasets/pgm.h"
#include "test_util.h"

static char dir[] = "/tmp/test_loader_faults_XXXXXX";

/* why must contain every fragment (NULL-terminated list). */
static void expect_says(const char *what, const char *why, const char *const *frags)
{
  for (; *frags; frags++)
    if (!strstr(why, *frags)) {
      fprintf(stderr, "%s: message '%s' does not say '%s'\n", what, why, *frags);
      test_failures++;
    }
}
#define SAYS(what, why, ...) expect_says(what, why, (const char *const[]){__VA_ARGS__, NULL})

static void write_file(const char *path, const void *data, size_t n)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "cannot write '%s'\n", path);
    exit(1);
  }
}

/* An endless stream: `unit` repeated forever. */
static ssize_t endless_read(void *cookie, char *buf, size_t size)
{
  const char *unit = cookie;
  size_t u = strlen(unit);
  for (size_t i = 0; i < size; i++)
    buf[i] = unit[i % u];
  return (ssize_t)(size - size % u);
}

static int avos_stream(FILE *f, const char *name, uint64_t max, char *why, size_t len)
{
  struct avos_csr m;
  int rc = avos_csr_read_text_max(f, name, 8, max, &m, why, len);
  if (rc == 0)
    avos_csr_release(&m);
  return rc;
}

static void test_avos_text(void)
{
  char why[512] = "";
  struct avos_csr m;
  /* a NUL inside a row: the entry after it was silently dropped */
  static const char nul[] = "avos-csr 1\nshape 2 2 3\n0: 0=-1\0 1=2\n1: 1=1\n";
  FILE *f = fmemopen((void *)nul, sizeof nul - 1, "r");
  EXPECT(avos_stream(f, "nul.txt", AVOS_TEXT_MAX_BYTES, why, sizeof why) != 0);
  fclose(f);
  SAYS("nul in a row", why, "'nul.txt' line 3", "NUL byte at column 8");
  /* /dev/zero as a stream: the first byte is a NUL */
  f = fopen("/dev/zero", "r");
  if (f) {
    EXPECT(avos_stream(f, "/dev/zero", AVOS_TEXT_MAX_BYTES, why, sizeof why) != 0);
    fclose(f);
    SAYS("/dev/zero stream", why, "'/dev/zero' line 1", "NUL byte");
  }
  /* and as a path: not a regular file */
  EXPECT(avos_csr_load_text("/dev/zero", 8, &m, why, sizeof why) != 0);
  SAYS("/dev/zero path", why, "'/dev/zero' is a character device, not a regular file");
  EXPECT(avos_csr_load_text(dir, 8, &m, why, sizeof why) != 0);
  SAYS("directory", why, dir, "is a directory, not a regular file");
  /* endless blank lines stop at the byte limit, an endless line at the line limit */
  cookie_io_functions_t io = {endless_read, NULL, NULL, NULL};
  f = fopencookie((void *)"\n", "r", io);
  EXPECT(avos_stream(f, "blank", (uint64_t)1 << 20, why, sizeof why) != 0);
  fclose(f);
  SAYS("endless blank lines", why, "'blank' line 1048577", "more than 1048576 bytes of text",
       "limit");
  f = fopencookie((void *)"# comment ", "r", io);
  EXPECT(avos_stream(f, "comment", AVOS_TEXT_MAX_BYTES, why, sizeof why) != 0);
  fclose(f);
  SAYS("endless line", why, "'comment' line 1", "line longer than 1048576 bytes");
  /* a good file still loads (CRLF too) */
  static const char good[] = "avos-csr 1\r\nshape 2 2 3\r\n0: 0=-1 1=2\r\n1: 1=1\r\n";
  f = fmemopen((void *)good, sizeof good - 1, "r");
  EXPECT(avos_csr_read_text(f, "good", 8, &m, why, sizeof why) == 0);
  fclose(f);
  EXPECT(avos_csr_nnz(&m) == 3 && avos_csr_get(&m, 0, 1) == 2);
  avos_csr_release(&m);
}

static void test_pgm(void)
{
  char why[512] = "", path[600];
  uint8_t *px = NULL;
  int w, h;
  EXPECT(pgm_read(dir, &px, &w, &h, why, sizeof why) == PGM_ERR_IO && !px);
  SAYS("pgm directory", why, dir, "is a directory, not a regular file");
  EXPECT(pgm_read("/dev/zero", &px, &w, &h, why, sizeof why) == PGM_ERR_IO && !px);
  SAYS("pgm device", why, "'/dev/zero' is a character device");
  /* 65535 x 65535 declared, 10 pixel bytes present: refused from the header, nothing allocated */
  snprintf(path, sizeof path, "%s/big.pgm", dir);
  static const char big[] = "P5\n65535 65535\n255\n0123456789";
  write_file(path, big, sizeof big - 1);
  EXPECT(pgm_read(path, &px, &w, &h, why, sizeof why) == PGM_ERR_TRUNCATED && !px);
  SAYS("pgm too small", why, path, "truncated: 10 of 4294836225 pixel bytes");
  static const char trailing[] = "P5\n2 1\n255\nabcd";
  write_file(path, trailing, sizeof trailing - 1);
  EXPECT(pgm_read(path, &px, &w, &h, why, sizeof why) == PGM_ERR_TRAILING && !px);
  SAYS("pgm trailing", why, path, "2 bytes after the 2 x 1 pixels");
  /* a header of comments beyond PGM_MAX_HEADER */
  size_t n = PGM_MAX_HEADER + 100;
  char *longhdr = malloc(n + 16);
  memcpy(longhdr, "P5\n#", 4);
  memset(longhdr + 4, 'x', n - 4);
  memcpy(longhdr + n, "\n1 1\n255\n\x07", 10);
  write_file(path, longhdr, n + 10);
  free(longhdr);
  EXPECT(pgm_read(path, &px, &w, &h, why, sizeof why) == PGM_ERR_HEADER && !px);
  SAYS("pgm long header", why, path, "header is longer than 65536 bytes");
  /* still fine: a good file, and a header with a comment */
  static const char good[] = "P5 # c\n2 1\n200\n\x01\xc8";
  write_file(path, good, sizeof good - 1);
  EXPECT(pgm_read(path, &px, &w, &h, why, sizeof why) == PGM_OK && px && w == 2 && h == 1 &&
         px[1] == 200);
  free(px);
  unlink(path);
}

static void test_kmsig(void)
{
  char why[512] = "", path[600];
  struct kmsig ds;
  EXPECT(kmsig_load(dir, &ds, why, sizeof why) == KMSIG_E_IO);
  SAYS("kmsig directory", why, dir, "is a directory, not a regular file");
  EXPECT(!strstr(why, "9223372036854775807"));
  snprintf(path, sizeof path, "%s/x.sig", dir);
  struct kmsig_gen g = {5, 1, 3, 2, KMSIG_DIST_CLASSES, 1};
  EXPECT(kmsig_generate(&g, &ds, why, sizeof why) == 0);
  EXPECT(kmsig_write(&ds, path, why, sizeof why) == 0);
  kmsig_free(&ds);
  FILE *f = fopen(path, "rb");
  unsigned char file[4096];
  size_t size = fread(file, 1, sizeof file, f);
  fclose(f);
  static const struct {
    size_t offset; /* of the uint64 header field */
    uint64_t value;
    const char *says;
  } bad[] = {
      {16, ((uint64_t)1 << 31) + 1, "header field n (signatures) is 2147483649, above the limit "
                                    "2147483648"},
      {24, ((uint64_t)1 << 31) + 1, "header field total (centroids) is 2147483649, above the limit"},
      {32, 72, "header field index_offset is 72, not 64"},
      {40, 99, "header field data_offset is 99, not 112 (index_offset + 8 * (n + 1) with n = 5)"},
      {16, 6, "header field data_offset is 112, not 120"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    unsigned char edited[4096];
    memcpy(edited, file, size);
    memcpy(edited + bad[i].offset, &bad[i].value, 8);
    write_file(path, edited, size);
    EXPECT(kmsig_load(path, &ds, why, sizeof why) == KMSIG_E_HEADER);
    SAYS("kmsig header", why, path, bad[i].says);
  }
  write_file(path, file, size);
  EXPECT(kmsig_load(path, &ds, why, sizeof why) == 0);
  kmsig_free(&ds);
  unlink(path);
}

int main(void)
{
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_avos_text();
  test_pgm();
  test_kmsig();
  rmdir(dir);
  TEST_DONE();
}
