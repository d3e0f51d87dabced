/* The processes of `gpuregress bisect` (bisect_private.h): git, the build and the runner, each
 * through child.h with its output in a log file of the bisection's temporary folder, polled for
 * the interrupt flag (a stopped bisection kills the step's process group). git runs with the
 * user's hooks off (core.hooksPath=/dev/null: a post-checkout hook would run per step) and in
 * the C locale (its messages are read back). */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect_private.h"
#include "child.h"

void bx_read_tail(const char *path, char *buf, size_t len)
{
  buf[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  if (fseek(f, 0, SEEK_END) == 0) {
    long size = ftell(f);
    if (size > (long)len - 1)
      fseek(f, size - (long)len + 1, SEEK_SET);
    else
      fseek(f, 0, SEEK_SET);
  }
  size_t n = fread(buf, 1, len - 1, f);
  fclose(f);
  buf[n] = 0;
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
    buf[--n] = 0;
}

void bx_last_line(const char *text, char *dst, size_t len)
{
  const char *end = text + strlen(text), *start = end;
  while (start > text && start[-1] != '\n')
    start--;
  char line[GR_WHY_LEN];
  size_t n = (size_t)(end - start) < sizeof line - 1 ? (size_t)(end - start) : sizeof line - 1;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) /* runs of blanks (a table's columns) as one */
    if (!(start[i] == ' ' || start[i] == '\t') || (k > 0 && line[k - 1] != ' '))
      line[k++] = start[i] == '\t' ? ' ' : start[i];
  line[k] = 0;
  gr_printable(dst, len, line);
}

void bx_first_error(const char *text, char *dst, size_t len)
{
  for (const char *s = text; *s;) {
    size_t n = strcspn(s, "\n");
    const char *e = strstr(s, "error");
    if (e && e < s + n) {
      char line[GR_WHY_LEN];
      gr_fmt(line, sizeof line, "%.*s", (int)n, s);
      gr_printable(dst, len, line);
      return;
    }
    s += n + (s[n] == '\n');
  }
  bx_last_line(text, dst, len);
}

int bx_run_logged(struct bx *x, const char *const *argv, const char *path, char *out,
                      size_t out_len)
{
  static const char *const env[] = {"GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true",
                                    NULL};
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  struct child c;
  child_init(&c);
  c.what = argv[0];
  c.argv = argv;
  c.log_fd = fd;
  c.env = env;
  if (child_start(&c)) {
    close(fd);
    return -1;
  }
  close(fd);
  while (!child_wait(&c, 0.2)) {
    if (x->o->interrupted && *x->o->interrupted) {
      child_finish(&c, 1, NULL, 0);
      x->interrupted = 1;
      return -2;
    }
  }
  int rc = child_finish(&c, 0, NULL, 0);
  if (out)
    bx_read_tail(path, out, out_len);
  return rc;
}

int bx_git_in(struct bx *x, const char *dir, char *out, size_t out_len, ...)
{
  const char *argv[24] = {"env", "LC_ALL=C", "git", "-c", "core.hooksPath=/dev/null", "-C", dir};
  size_t k = 7;
  va_list ap;
  va_start(ap, out_len);
  for (const char *a; k < sizeof argv / sizeof *argv - 1 && (a = va_arg(ap, const char *));)
    argv[k++] = a;
  va_end(ap);
  argv[k] = NULL;
  char log[BX_PATH];
  if (x->tmp[0]) {
    gr_fmt(log, sizeof log, "%s/git.log", x->tmp);
    return bx_run_logged(x, argv, log, out, out_len);
  }
  /* before the temporary folder: a scratch file */
  const char *base = getenv("TMPDIR");
  gr_fmt(log, sizeof log, "%s/gr-bisect-git-XXXXXX", base && *base ? base : "/tmp");
  int fd = mkstemp(log);
  if (fd < 0)
    return -1;
  close(fd);
  int rc = bx_run_logged(x, argv, log, out, out_len);
  unlink(log);
  return rc;
}

int bx_on_path(const char *prog)
{
  const char *path = getenv("PATH");
  char buf[BX_PATH];
  while (path && *path) {
    size_t n = strcspn(path, ":");
    gr_fmt(buf, sizeof buf, "%.*s/%s", (int)n, path, prog);
    if (n > 0 && access(buf, X_OK) == 0)
      return 1;
    path += n + (path[n] == ':');
  }
  return 0;
}
