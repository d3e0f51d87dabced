/* Opening a dataset file: see data_file.h. */
#include "data_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpuregress/util.h>

static const char *file_kind(mode_t m)
{
  return S_ISDIR(m)    ? "a directory"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISFIFO(m) ? "a pipe"
         : S_ISSOCK(m) ? "a socket"
                       : "not a plain file";
}

int data_file_open(const char *path, FILE **f, uint64_t *size, char *why, size_t len)
{
  *f = NULL;
  *size = 0;
  /* O_NONBLOCK: opening a FIFO with no writer (or a device) must not wait; its type is known
   * from fstat of what was opened (no window between a stat and the open) */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    gr_fmt(why, len, "cannot open '%s': %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    gr_fmt(why, len, "cannot read '%s': %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    gr_fmt(why, len, "'%s' is %s, not a regular file", path, file_kind(st.st_mode));
    close(fd);
    return -1;
  }
  FILE *fp = NULL;
  if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(fp = fdopen(fd, "rb"))) {
    gr_fmt(why, len, "cannot read '%s': %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  *f = fp;
  *size = (uint64_t)st.st_size;
  return 0;
}

int data_file_hash(const char *path, uint64_t *hash, char *why, size_t len)
{
  FILE *f;
  uint64_t size, h = 0xcbf29ce484222325ull;
  unsigned char buf[1 << 16];
  if (data_file_open(path, &f, &size, why, len))
    return -1;
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    for (size_t i = 0; i < n; i++)
      h = (h ^ buf[i]) * 0x100000001b3ull;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    gr_fmt(why, len, "cannot read '%s': %s", path, strerror(EIO));
    return -1;
  }
  *hash = h;
  return 0;
}
