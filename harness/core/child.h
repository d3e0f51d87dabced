/* The one way the harness runs a child process (after git's run-command.h): the runner's workers,
 * the benchmark process, the GPU probe and the MPI launcher all go through it.
 *
 * A child is forked into its own process group, so that killing the group on a watchdog or when
 * the parent is done with it also kills whatever the child started (mpirun's ranks, a stuck
 * kernel's helper). It also dies with the parent (PR_SET_PDEATHSIG, SIGKILL; the pid of the
 * parent is checked after the fork to close the race with a parent that died first): a SIGKILLed
 * gpuregress leaves no worker running. It either runs a function of this program (fn, then
 * _exit with its return value) or executes a program (argv).
 *
 * Pipes, each optional: the parent writes lines to the child's input (child_write), reads lines
 * or exact byte counts from its output within a timeout (child_read_line, child_read), and keeps
 * the last CHILD_ERR_TAIL bytes of its stderr so that child_finish can say why it died.
 *
 * One documented choice of the constants that had drifted apart between the copies this module
 * replaced (stderr tail 1024 vs 2048 bytes; stderr drain waits 0/200 vs 50/500 ms):
 *   - CHILD_ERR_TAIL, 2048 bytes: enough for a CUDA error plus a backtrace line; only the last
 *     line is reported, so more would never be shown;
 *   - after a kill, stderr is drained for CHILD_DRAIN_KILLED_MS (50 ms): the dead child wrote
 *     all it will write, but a grandchild holding the pipe must not hold us up;
 *   - after an exit the child chose, for CHILD_DRAIN_MS (500 ms): it may still be flushing;
 *   - reads wake up every CHILD_POLL_MS (250 ms) to look at the interrupt flag. */
#ifndef GR_CHILD_H
#define GR_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#include "alg.h" /* GR_WHY_LEN */
#include "gr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CHILD_ERR_TAIL 2048
#define CHILD_DRAIN_KILLED_MS 50
#define CHILD_DRAIN_MS 500
#define CHILD_POLL_MS 250

struct child {
  /* set before child_start */
  const char *what;           /* "worker", "benchmark process": the subject of child_finish's why */
  int (*fn)(void *arg, int in, int out); /* run in the child; its return value is the exit status */
  void *arg;
  const char *const *argv;    /* or: execvp(argv[0], argv) with stdin from /dev/null */
  int pipe_in, pipe_out;      /* 1: a pipe to the child's input / from its output */
  int pipe_err;               /* 1: the child's stderr comes to us (tail kept) */
  int forward_err;            /* 1: and is copied to our stderr as it comes */
  int log_fd;                 /* >= 0: the child's stdout and stderr go to this file (exec) */
  const char *const *env;     /* NULL-ended "NAME=VALUE" set in the child before the exec;
                               * "NAME?=VALUE" only where NAME is not set already */
  volatile int *interrupted;  /* reads give up with CHILD_INTERRUPTED when this becomes nonzero */
  /* state */
  pid_t pid;                  /* 0 when no child is alive */
  int in, out, err;           /* the parent's ends of the pipes, -1 when closed */
  char line[GR_WHY_LEN * 4];  /* bytes read from the child's output, not yet consumed */
  size_t line_len;
  char errtail[CHILD_ERR_TAIL]; /* the child's last stderr bytes */
  size_t err_len;
};

/* Results of the reads. */
enum child_read_status {
  CHILD_INTERRUPTED = -2, /* *interrupted became nonzero (the child is left alive) */
  CHILD_TIMEOUT = -1,     /* nothing within the timeout (the child is left alive) */
  CHILD_EOF = 0,          /* the child closed its output or the read failed */
  CHILD_GOT = 1,          /* a line (or the bytes) is in the buffer */
};

/* An empty child: no process, every descriptor -1, every option off. */
void child_init(struct child *c);

/* Fork (and exec with argv) the child. 0 ok; -1 with errno set (nothing is left open). */
int child_start(struct child *c);

/* Write all of buf to the child's input. 0 ok; -1 the child is gone. */
int child_write(struct child *c, const void *buf, size_t len);

/* Close the child's input: a worker reading it sees the end. */
void child_close_in(struct child *c);

/* One line (without its newline, cut to len - 1 bytes) from the child's output within timeout
 * seconds; stderr is drained meanwhile. Lines longer than the buffer are dropped. */
enum child_read_status child_read_line(struct child *c, double timeout, char *buf, size_t len);

/* Exactly len bytes from the child's output within timeout seconds. */
enum child_read_status child_read(struct child *c, double timeout, void *buf, size_t len);

/* Wait up to timeout seconds for the child to exit by itself. 1 it exited (child_finish reaps
 * it), 0 still running. */
int child_wait(struct child *c, double timeout);

/* End the child: SIGKILL its process group first when kill_it, drain its stderr, reap it, then
 * kill what is left of its group. Unless kill_it, why (when len > 0) says how it ended:
 * "<what> killed by signal N (name): <last stderr line>", "<what> exited with status N: ...",
 * or the last stderr line alone for a worker that exited with GR_WORKER_EXIT_CUDA. Returns the
 * exit status, 128 + the signal, or -1 when there was no child. Closes every pipe. */
int child_finish(struct child *c, int kill_it, char *why, size_t len);

/* The last non-empty line of the child's stderr, or "". */
const char *child_err_last_line(const struct child *c, char *buf, size_t len);

/* ---- in the child ---- */

/* Tabs and newlines to spaces: text that travels inside one tab-separated line. */
void child_flatten(char *s);

/* Write one line (a newline is added when missing) to fd; _exit(3) when the parent is gone. */
void child_say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write all of buf to fd; _exit(3) when the parent is gone. */
void child_say_bytes(int fd, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
