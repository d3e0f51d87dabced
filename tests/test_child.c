/* child.h, the one way the harness runs a child process: the line protocol and exact reads, a
 * timeout that kills the child's whole process group (a grandchild too), the stderr tail in the
 * reason of a death, the interrupt flag, an exec'd program with its output in a file, and the
 * death of the parent killing the child (PR_SET_PDEATHSIG). This process is made a subreaper so
 * that orphaned grandchildren come back to it and their end can be checked. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "test_util.h"

/* Echo each input line upper-cased; "BYTES" answers 3 raw ints. */
static int echo_main(void *arg, int in, int out)
{
  char line[256];
  FILE *f = fdopen(in, "r");
  (void)arg;
  child_say(out, "HELLO\tworld");
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strcmp(line, "BYTES") == 0) {
      int v[3] = {7, -1, 1 << 30};
      child_say(out, "B\t3");
      child_say_bytes(out, v, sizeof v);
      continue;
    }
    for (char *s = line; *s; s++)
      *s = (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s);
    child_say(out, "%s", line);
  }
  return 0;
}

/* Start a grandchild in the same group, tell its pid, then hang. */
static int hang_main(void *arg, int in, int out)
{
  (void)arg, (void)in;
  pid_t g = fork();
  if (g == 0) {
    for (;;)
      pause();
  }
  child_say(out, "%d", (int)g);
  for (;;)
    pause();
  return 0;
}

/* Write a lot to stderr, then a last line, then end as arg says. */
static int noisy_main(void *arg, int in, int out)
{
  (void)in, (void)out;
  for (int i = 0; i < 200; i++)
    fprintf(stderr, "filler line %03d of the stderr tail test\n", i);
  fprintf(stderr, "the last line\n\n");
  fflush(stderr);
  if (strcmp(arg, "abort") == 0)
    abort();
  return strcmp(arg, "cuda") == 0 ? GR_WORKER_EXIT_CUDA : 3;
}

static int sleep_main(void *arg, int in, int out)
{
  (void)arg, (void)in;
  if (out >= 0)
    child_say(out, "ready");
  for (;;)
    pause();
  return 0;
}

/* Wait up to 5 s for pid (our child, or an orphan reparented to us) to end; its status. */
static int reap_within(pid_t pid, int *status)
{
  for (int i = 0; i < 500; i++) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid)
      return 1;
    usleep(10000);
  }
  return 0;
}

static void test_lines(void)
{
  struct child c;
  char buf[256];
  child_init(&c);
  c.fn = echo_main;
  c.pipe_in = c.pipe_out = c.pipe_err = 1;
  EXPECT(child_start(&c) == 0);
  EXPECT(child_read_line(&c, 5, buf, sizeof buf) == CHILD_GOT);
  EXPECT(strcmp(buf, "HELLO\tworld") == 0);
  EXPECT(child_write(&c, "abc\ndef\n", 8) == 0);
  EXPECT(child_read_line(&c, 5, buf, sizeof buf) == CHILD_GOT && strcmp(buf, "ABC") == 0);
  EXPECT(child_read_line(&c, 5, buf, sizeof buf) == CHILD_GOT && strcmp(buf, "DEF") == 0);
  /* a line then raw bytes, read exactly */
  int v[3] = {0, 0, 0};
  EXPECT(child_write(&c, "BYTES\n", 6) == 0);
  EXPECT(child_read_line(&c, 5, buf, sizeof buf) == CHILD_GOT && strcmp(buf, "B\t3") == 0);
  EXPECT(child_read(&c, 5, v, sizeof v) == CHILD_GOT);
  EXPECT(v[0] == 7 && v[1] == -1 && v[2] == 1 << 30);
  /* a cut line keeps its start */
  EXPECT(child_write(&c, "0123456789\n", 11) == 0);
  EXPECT(child_read_line(&c, 5, buf, 5) == CHILD_GOT && strcmp(buf, "0123") == 0);
  /* nothing to say: a timeout, the child left alive */
  EXPECT(child_read_line(&c, 0.2, buf, sizeof buf) == CHILD_TIMEOUT);
  EXPECT(c.pid > 0 && kill(c.pid, 0) == 0);
  /* the end of its input ends it: exit 0, then EOF */
  child_close_in(&c);
  EXPECT(child_read_line(&c, 5, buf, sizeof buf) == CHILD_EOF);
  EXPECT(child_wait(&c, 5) == 1);
  EXPECT(child_finish(&c, 0, buf, sizeof buf) == 0);
  EXPECT_STR_CONTAINS(buf, "child process exited with status 0");
  EXPECT(c.pid == 0 && c.in < 0 && c.out < 0 && c.err < 0);
}

static void test_timeout_kills_group(void)
{
  struct child c;
  char buf[64];
  child_init(&c);
  c.fn = hang_main;
  c.pipe_out = 1;
  EXPECT(child_start(&c) == 0);
  EXPECT(child_read_line(&c, 5, buf, sizeof buf) == CHILD_GOT);
  pid_t grandchild = (pid_t)atoi(buf);
  EXPECT(grandchild > 0 && getpgid(grandchild) == c.pid);
  EXPECT(child_read_line(&c, 0.3, buf, sizeof buf) == CHILD_TIMEOUT);
  pid_t pid = c.pid;
  EXPECT(child_finish(&c, 1, NULL, 0) == 128 + SIGKILL);
  EXPECT(kill(pid, 0) == -1 && errno == ESRCH);
  int st = 0;
  EXPECT(reap_within(grandchild, &st) && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

static void test_err_tail(void)
{
  static const char *const ends[] = {"exit", "abort", "cuda"};
  static const char *const expect[] = {"worker exited with status 3: the last line",
                                       "worker killed by signal 6", "the last line"};
  for (int i = 0; i < 3; i++) {
    struct child c;
    char why[GR_WHY_LEN], buf[64];
    child_init(&c);
    c.what = "worker";
    c.fn = noisy_main;
    c.arg = (void *)ends[i];
    c.pipe_out = c.pipe_err = 1;
    EXPECT(child_start(&c) == 0);
    EXPECT(child_read_line(&c, 5, buf, sizeof buf) == CHILD_EOF);
    child_finish(&c, 0, why, sizeof why);
    EXPECT_STR_CONTAINS(why, expect[i]);
    if (i == 2)
      EXPECT(strcmp(why, "the last line") == 0);
    EXPECT(c.err_len < CHILD_ERR_TAIL && c.err_len > 1000); /* the tail only, and full */
    EXPECT(strstr(c.errtail, "filler line 000") == NULL);
  }
}

static void test_interrupt(void)
{
  static volatile int stop;
  struct child c;
  char buf[64];
  child_init(&c);
  c.fn = sleep_main;
  c.pipe_out = 1;
  c.interrupted = &stop;
  EXPECT(child_start(&c) == 0);
  stop = 1;
  double t0 = now_seconds();
  EXPECT(child_read_line(&c, 30, buf, sizeof buf) == CHILD_INTERRUPTED);
  EXPECT(now_seconds() - t0 < 1);
  EXPECT(child_finish(&c, 1, NULL, 0) == 128 + SIGKILL);
}

static void test_exec(void)
{
  static const char *const argv[] = {"sh", "-c", "echo \"out $GR_T1 $GR_T2\"; echo err >&2; exit 5", NULL};
  static const char *const env[] = {"GR_T1=one", "GR_T2?=kept", NULL};
  char path[] = "/tmp/gr_child_XXXXXX", text[128] = "";
  int fd = mkstemp(path);
  unlink(path);
  setenv("GR_T2", "two", 1);
  struct child c;
  child_init(&c);
  c.argv = argv;
  c.env = env;
  c.log_fd = fd;
  EXPECT(child_start(&c) == 0);
  EXPECT(child_wait(&c, 10) == 1);
  EXPECT(child_finish(&c, 0, NULL, 0) == 5);
  ssize_t n = pread(fd, text, sizeof text - 1, 0);
  text[n > 0 ? n : 0] = 0;
  EXPECT(strcmp(text, "out one two\nerr\n") == 0);
  close(fd);
  /* a program that is not there: 127 */
  static const char *const none[] = {"/nonexistent/gr_no_such_program", NULL};
  child_init(&c);
  c.argv = none;
  EXPECT(child_start(&c) == 0);
  EXPECT(child_wait(&c, 10) == 1 && child_finish(&c, 0, NULL, 0) == 127);
}

/* A parent SIGKILLed while its child runs: the child dies too. */
static void test_parent_death(void)
{
  int fd[2];
  EXPECT(pipe(fd) == 0);
  pid_t parent = fork();
  if (parent == 0) {
    struct child c;
    close(fd[0]);
    char line[16];
    child_init(&c);
    c.fn = sleep_main;
    c.pipe_out = 1;
    if (child_start(&c) || child_read_line(&c, 5, line, sizeof line) != CHILD_GOT)
      _exit(1); /* past its prctl: the parent-death signal is armed */
    if (write(fd[1], &c.pid, sizeof c.pid) != (ssize_t)sizeof c.pid)
      _exit(1);
    raise(SIGKILL);
  }
  close(fd[1]);
  pid_t kid = 0;
  EXPECT(read(fd[0], &kid, sizeof kid) == (ssize_t)sizeof kid);
  close(fd[0]);
  int st = 0;
  EXPECT(reap_within(parent, &st) && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  EXPECT(kid > 0 && reap_within(kid, &st) && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

int main(void)
{
  signal(SIGPIPE, SIG_IGN);
  if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
    perror("prctl(PR_SET_CHILD_SUBREAPER)");
    return 77;
  }
  test_lines();
  test_timeout_kills_group();
  test_err_tail();
  test_interrupt();
  test_exec();
  test_parent_death();
  TEST_DONE();
}
