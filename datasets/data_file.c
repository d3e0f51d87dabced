/* Opening a dataset file: see data_file.h. */
#include "data_file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "gr.h"

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
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    gr_fmt(why, len, "cannot open '%s': %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fileno(fp), &st) != 0) {
    gr_fmt(why, len, "cannot read '%s': %s", path, strerror(errno));
    fclose(fp);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    gr_fmt(why, len, "'%s' is %s, not a regular file", path, file_kind(st.st_mode));
    fclose(fp);
    return -1;
  }
  *f = fp;
  *size = (uint64_t)st.st_size;
  return 0;
}
