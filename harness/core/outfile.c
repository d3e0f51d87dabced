/* Output files written whole, through a temporary file renamed into place. See outfile.h. */
#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gr.h"

static const char *kind_of(mode_t m)
{
  return S_ISDIR(m)    ? "a directory"
         : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

int outfile_check(const char *path, char *why, size_t len)
{
  struct stat sb;
  if (!path || !path[0]) {
    gr_fmt(why, len, "empty output file name");
    return -1;
  }
  if (strlen(path) >= PATH_MAX - 16) {
    gr_fmt(why, len, "output file name '%.60s...' is too long", path);
    return -1;
  }
  if (lstat(path, &sb) == 0) {
    if (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode))
      return 0;
    gr_fmt(why, len, "cannot write '%s': it is %s, not a regular file: name a file", path,
           kind_of(sb.st_mode));
    return -1;
  }
  if (errno != ENOENT) {
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  /* absent: its folder must exist */
  char dir[PATH_MAX];
  gr_fmt(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    slash == dir ? (void)(slash[1] = 0) : (void)(*slash = 0);
  else
    gr_fmt(dir, sizeof dir, ".");
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    gr_fmt(why, len, "cannot write '%s': no folder '%s'", path, dir);
    return -1;
  }
  return 0;
}

int outfile_open(struct outfile *o, const char *path, char *why, size_t len)
{
  memset(o, 0, sizeof *o);
  if (outfile_check(path, why, len))
    return -1;
  gr_fmt(o->path, sizeof o->path, "%s", path);
  gr_fmt(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", path);
  int fd = mkostemp(o->tmp, O_CLOEXEC); /* O_EXCL: never through a planted link */
  if (fd < 0) {
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno));
    o->tmp[0] = 0;
    return -1;
  }
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask); /* what fopen would have given it */
  if (!(o->f = fdopen(fd, "w"))) {
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno));
    close(fd);
    unlink(o->tmp);
    o->tmp[0] = 0;
    return -1;
  }
  return 0;
}

int outfile_commit(struct outfile *o, char *why, size_t len)
{
  if (!o->f) {
    gr_fmt(why, len, "cannot write '%s': not open", o->path);
    return -1;
  }
  errno = 0;
  int bad = ferror(o->f) || fflush(o->f) || fsync(fileno(o->f));
  int err = errno;
  if (fclose(o->f) && !bad) {
    bad = 1;
    err = errno;
  }
  o->f = NULL;
  if (!bad && rename(o->tmp, o->path)) {
    bad = 1;
    err = errno;
  }
  if (bad) {
    gr_fmt(why, len, "cannot write '%s': %s", o->path, strerror(err ? err : EIO));
    unlink(o->tmp);
    o->tmp[0] = 0;
    return -1;
  }
  o->tmp[0] = 0;
  return 0;
}

void outfile_abort(struct outfile *o)
{
  if (o->f)
    fclose(o->f);
  o->f = NULL;
  if (o->tmp[0])
    unlink(o->tmp);
  o->tmp[0] = 0;
}
