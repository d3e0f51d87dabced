/* Running a child process: fork, process group, pipes, timed reads, reaping. See child.h. */
#define _GNU_SOURCE
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void close_fd(int *fd)
{
  if (*fd >= 0)
    close(*fd);
  *fd = -1;
}

void child_init(struct child *c)
{
  memset(c, 0, sizeof *c);
  c->in = c->out = c->err = c->log_fd = -1;
}

/* ---- starting ------------------------------------------------------------------------------ */

/* In the child after the fork: never returns. */
static void child_run(struct child *c, pid_t parent, int in[2], int out[2], int err[2])
{
  setpgid(0, 0);                    /* its own group: a kill of the group takes what it started */
  prctl(PR_SET_PDEATHSIG, SIGKILL); /* dies with the parent ... */
  if (getppid() != parent)          /* ... which may have died before the prctl */
    _exit(127);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (c->pipe_err)
    dup2(err[1], 2);
  if (c->argv) {
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
      dup2(null, 0); /* never let a launcher read a terminal */
    if (c->log_fd >= 0) {
      dup2(c->log_fd, 1);
      dup2(c->log_fd, 2);
    }
    for (const char *const *e = c->env; e && *e; e++) {
      char name[256];
      size_t n = strcspn(*e, "?=");
      gr_fmt(name, sizeof name, "%.*s", (int)n, *e);
      int keep = (*e)[n] == '?';
      setenv(name, *e + n + 1 + keep, !keep);
    }
    execvp(c->argv[0], (char *const *)c->argv);
    fprintf(stderr, "cannot run '%s': %s\n", c->argv[0], strerror(errno));
    _exit(127);
  }
  signal(SIGINT, SIG_IGN); /* the parent decides when to stop */
  close_fd(&in[1]);
  close_fd(&out[0]);
  close_fd(&err[0]);
  close_fd(&err[1]);
  _exit(c->fn(c->arg, in[0], out[1]));
}

int child_start(struct child *c)
{
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  c->pid = 0;
  c->line_len = c->err_len = 0;
  if ((c->pipe_in && pipe2(in, O_CLOEXEC)) || (c->pipe_out && pipe2(out, O_CLOEXEC)) ||
      (c->pipe_err && pipe2(err, O_CLOEXEC)))
    goto fail;
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0)
    goto fail;
  if (pid == 0)
    child_run(c, parent, in, out, err);
  setpgid(pid, pid); /* also here: no race with a kill of the group right after the fork */
  close_fd(&in[0]);
  close_fd(&out[1]);
  close_fd(&err[1]);
  c->pid = pid;
  c->in = in[1];
  c->out = out[0];
  c->err = err[0];
  return 0;
fail:;
  int e = errno;
  for (int i = 0; i < 2; i++) {
    close_fd(&in[i]);
    close_fd(&out[i]);
    close_fd(&err[i]);
  }
  errno = e;
  return -1;
}

/* ---- talking ------------------------------------------------------------------------------- */

int child_write(struct child *c, const void *buf, size_t len)
{
  const char *s = buf;
  while (len > 0) {
    ssize_t k = c->in >= 0 ? write(c->in, s, len) : -1;
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return -1;
    s += k;
    len -= (size_t)k;
  }
  return 0;
}

void child_close_in(struct child *c)
{
  close_fd(&c->in);
}

/* Read what the child wrote to stderr: forward it when asked, keep the tail. */
static void drain_err(struct child *c)
{
  char buf[4096];
  ssize_t k = read(c->err, buf, sizeof buf);
  if (k <= 0) {
    if (k == 0 || errno != EINTR)
      close_fd(&c->err);
    return;
  }
  if (c->forward_err) {
    fwrite(buf, 1, (size_t)k, stderr);
    fflush(stderr);
  }
  size_t keep = sizeof c->errtail - 1, n = (size_t)k;
  const char *src = buf;
  if (n > keep)
    src += n - keep, n = keep;
  if (c->err_len + n > keep) {
    size_t drop = c->err_len + n - keep;
    memmove(c->errtail, c->errtail + drop, c->err_len - drop);
    c->err_len -= drop;
  }
  memcpy(c->errtail + c->err_len, src, n);
  c->err_len += n;
  c->errtail[c->err_len] = 0;
}

/* Wait until the child's output is readable before the deadline, draining stderr meanwhile. */
static enum child_read_status wait_output(struct child *c, double deadline)
{
  for (;;) {
    double left = deadline - now_seconds();
    if (left <= 0)
      return CHILD_TIMEOUT;
    if (c->interrupted && *c->interrupted)
      return CHILD_INTERRUPTED;
    struct pollfd p[2] = {{c->out, POLLIN, 0}, {c->err, POLLIN, 0}};
    int ms = left > CHILD_POLL_MS / 1000.0 ? CHILD_POLL_MS : (int)(left * 1000) + 1;
    int k = poll(p, 2, ms);
    if (k < 0 && errno != EINTR)
      return CHILD_EOF;
    if (k <= 0)
      continue;
    if (p[1].revents & (POLLIN | POLLHUP | POLLERR))
      drain_err(c);
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
      return CHILD_GOT;
  }
}

/* One read of the child's output into dst. CHILD_GOT with *got bytes, or CHILD_EOF. */
static enum child_read_status read_some(struct child *c, void *dst, size_t room, size_t *got)
{
  for (;;) {
    ssize_t r = read(c->out, dst, room);
    if (r > 0) {
      *got = (size_t)r;
      return CHILD_GOT;
    }
    if (r < 0 && errno == EINTR)
      continue;
    return CHILD_EOF;
  }
}

enum child_read_status child_read_line(struct child *c, double timeout, char *buf, size_t len)
{
  double deadline = now_seconds() + timeout;
  for (;;) {
    char *nl = memchr(c->line, '\n', c->line_len);
    if (nl) {
      size_t n = (size_t)(nl - c->line), k = n < len - 1 ? n : len - 1;
      memcpy(buf, c->line, k);
      buf[k] = 0;
      memmove(c->line, nl + 1, c->line_len - n - 1);
      c->line_len -= n + 1;
      return CHILD_GOT;
    }
    enum child_read_status s = wait_output(c, deadline);
    if (s != CHILD_GOT)
      return s;
    if (c->line_len + 1 >= sizeof c->line) /* a line longer than any we write: drop it */
      c->line_len = 0;
    size_t got;
    if (read_some(c, c->line + c->line_len, sizeof c->line - 1 - c->line_len, &got) != CHILD_GOT)
      return CHILD_EOF;
    c->line_len += got;
  }
}

enum child_read_status child_read(struct child *c, double timeout, void *buf, size_t len)
{
  double deadline = now_seconds() + timeout;
  char *dst = buf;
  size_t have = c->line_len < len ? c->line_len : len;
  memcpy(dst, c->line, have);
  memmove(c->line, c->line + have, c->line_len - have);
  c->line_len -= have;
  while (have < len) {
    enum child_read_status s = wait_output(c, deadline);
    if (s != CHILD_GOT)
      return s;
    size_t got;
    if (read_some(c, dst + have, len - have, &got) != CHILD_GOT)
      return CHILD_EOF;
    have += got;
  }
  return CHILD_GOT;
}

/* ---- ending -------------------------------------------------------------------------------- */

int child_wait(struct child *c, double timeout)
{
  double t0 = now_seconds();
  while (c->pid > 0) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int r = waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT);
    if ((r == 0 && si.si_pid == c->pid) || (r < 0 && errno == ECHILD))
      return 1;
    if (now_seconds() - t0 > timeout)
      return 0;
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
  }
  return 1;
}

const char *child_err_last_line(const struct child *c, char *buf, size_t len)
{
  size_t end = c->err_len;
  while (end > 0 && (c->errtail[end - 1] == '\n' || c->errtail[end - 1] == '\r'))
    end--;
  size_t start = end;
  while (start > 0 && c->errtail[start - 1] != '\n')
    start--;
  size_t n = end - start < len - 1 ? end - start : len - 1;
  memcpy(buf, c->errtail + start, n);
  buf[n] = 0;
  return buf;
}

int child_finish(struct child *c, int kill_it, char *why, size_t len)
{
  int status = 0, rc = -1;
  if (c->pid > 0) {
    if (kill_it)
      kill(-c->pid, SIGKILL);
    /* pick up what it wrote to stderr before ending */
    while (c->err >= 0) {
      struct pollfd p = {c->err, POLLIN, 0};
      if (poll(&p, 1, kill_it ? CHILD_DRAIN_KILLED_MS : CHILD_DRAIN_MS) <= 0)
        break;
      drain_err(c);
    }
    /* wait without reaping, so that the group's id cannot be reused, and kill what the child
     * left in its group */
    siginfo_t si;
    while (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
      ;
    kill(-c->pid, SIGKILL);
    pid_t w;
    while ((w = waitpid(c->pid, &status, 0)) < 0 && errno == EINTR)
      ;
    if (w == c->pid)
      rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (!kill_it && len && w == c->pid) {
      char last[GR_WHY_LEN];
      const char *what = c->what ? c->what : "child process";
      child_err_last_line(c, last, sizeof last);
      if (WIFSIGNALED(status))
        gr_fmt(why, len, "%s killed by signal %d (%s)%s%s", what, WTERMSIG(status),
               strsignal(WTERMSIG(status)), last[0] ? ": " : "", last);
      else if (WIFEXITED(status) && WEXITSTATUS(status) == GR_WORKER_EXIT_CUDA)
        gr_fmt(why, len, "%s", last[0] ? last : "cuda error");
      else
        gr_fmt(why, len, "%s exited with status %d%s%s", what,
               WIFEXITED(status) ? WEXITSTATUS(status) : -1, last[0] ? ": " : "", last);
    }
  }
  close_fd(&c->in);
  close_fd(&c->out);
  close_fd(&c->err);
  c->pid = 0;
  c->line_len = 0;
  return rc;
}

/* ---- in the child -------------------------------------------------------------------------- */

void child_flatten(char *s)
{
  for (; *s; s++)
    if (*s == '\t' || *s == '\n' || *s == '\r')
      *s = ' ';
}

void child_say_bytes(int fd, const void *buf, size_t len)
{
  const char *s = buf;
  while (len > 0) {
    ssize_t k = write(fd, s, len);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      _exit(3); /* the parent is gone */
    s += k;
    len -= (size_t)k;
  }
}

void child_say(int fd, const char *fmt, ...)
{
  char buf[GR_WHY_LEN * 2 + 256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  if (k <= 0)
    return;
  size_t len = (size_t)k < sizeof buf - 1 ? (size_t)k : sizeof buf - 2;
  if (buf[len - 1] != '\n')
    buf[len++] = '\n';
  child_say_bytes(fd, buf, len);
}
