/* Output files written whole, through a temporary file renamed into place. See outfile.h. */
#define _GNU_SOURCE
#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
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

/* The folder of path ("." when it names none) into dir. */
static void dir_of(char *dir, size_t len, const char *path)
{
  gr_fmt(dir, len, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    slash == dir ? (void)(slash[1] = 0) : (void)(*slash = 0);
  else
    gr_fmt(dir, len, ".");
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
  dir_of(dir, sizeof dir, path);
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    gr_fmt(why, len, "cannot write '%s': no folder '%s'", path, dir);
    return -1;
  }
  return 0;
}

/* The template of path's temporary file, for mkostemp: PATH.tmp.XXXXXX, its last component cut
 * (never inside a UTF-8 character) so that it fits NAME_MAX when path's own name is long. */
static void tmp_template(char *dst, size_t len, const char *path)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t keep = strlen(base), room = NAME_MAX - strlen(".tmp.XXXXXX");
  if (keep > room) {
    keep = room;
    while (keep > 0 && ((unsigned char)base[keep] & 0xc0) == 0x80)
      keep--;
  }
  gr_fmt(dst, len, "%.*s.tmp.XXXXXX", (int)(base - path + keep), path);
}

int outfile_open(struct outfile *o, const char *path, char *why, size_t len)
{
  memset(o, 0, sizeof *o);
  if (outfile_check(path, why, len))
    return -1;
  gr_fmt(o->path, sizeof o->path, "%s", path);
  tmp_template(o->tmp, sizeof o->tmp, path);
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

int outfile_tmpdir(char *dst, size_t len, const char *path, char *why, size_t wlen)
{
  char dir[PATH_MAX];
  dir_of(dir, sizeof dir, path);
  gr_fmt(dst, len, "%s/.gr-tmp.XXXXXX", dir); /* cut short: mkdtemp refuses it (EINVAL) */
  if (!mkdtemp(dst)) {
    gr_fmt(why, wlen, "cannot write '%s': %s", path, strerror(errno));
    dst[0] = 0;
    return -1;
  }
  return 0;
}

void outfile_tmpdir_remove(const char *dir)
{
  DIR *d = dir && dir[0] ? opendir(dir) : NULL;
  if (!d)
    return;
  char p[PATH_MAX];
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      unlink(gr_fmt(p, sizeof p, "%s/%s", dir, e->d_name));
  closedir(d);
  rmdir(dir);
}

int outfile_place(const char *tmp, const char *path, char *why, size_t len)
{
  if (outfile_check(path, why, len))
    return -1;
  if (rename(tmp, path)) {
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

int outfile_place_new(const char *tmp, const char *path, char *why, size_t len)
{
  int rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE);
  if (rc && (errno == EINVAL || errno == ENOSYS)) /* a file system without it: a hard link */
    rc = link(tmp, path) ? -1 : unlink(tmp);
  if (rc == 0)
    return 0;
  if (errno == EEXIST)
    gr_fmt(why, len, "'%s' exists: remove it or choose another --out", path);
  else
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno));
  return -1;
}
