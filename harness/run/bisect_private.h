/* What bisect.c and bisect_exec.c share: the state of one bisection and the way its processes
 * run (git, the build, the runner: each through child.h, output into a log of the temporary
 * folder, stopped by the interrupt flag). Private to harness/run/bisect*.c. */
#ifndef GR_BISECT_PRIVATE_H
#define GR_BISECT_PRIVATE_H

#include "bisect.h"

#define BX_PATH 4096
#define BX_OUT 8192

struct bx {
  const struct bisect_opts *o;
  struct bisect_result *r;
  char top[BX_PATH];      /* the user's repository (its top folder) */
  char tmp[BX_PATH];      /* the temporary folder; the worktree is tmp/wt */
  char wt[BX_PATH];
  char runner[BX_PATH];   /* the runner the build makes */
  char good[BISECT_SHA_LEN], bad[BISECT_SHA_LEN];
  char alg_variant[256];  /* ALG/VARIANT of a slowdown */
  int wt_added;
  int interrupted;
};

/* The file's text (at most len - 1 bytes, its last ones when longer), trailing newlines cut. */
void bx_read_tail(const char *path, char *buf, size_t len);
/* The last non-empty line of text, printable, into dst. */
void bx_last_line(const char *text, char *dst, size_t len);
/* The first line of text that says "error" (a compiler's message), else its last line. */
void bx_first_error(const char *text, char *dst, size_t len);
/* Run argv with stdout and stderr into the log at path (and its text, when out, into out).
 * Returns the exit status (128 + a signal), -1 it did not start, -2 interrupted (killed). */
int bx_run_logged(struct bx *x, const char *const *argv, const char *path, char *out,
                  size_t out_len);
/* git -C DIR ARGS... (NULL-ended) in the C locale with hooks off; its output into out. Returns
 * as bx_run_logged. */
int bx_git_in(struct bx *x, const char *dir, char *out, size_t out_len, ...);
/* 1: prog is an executable file of a folder of PATH. */
int bx_on_path(const char *prog);

#endif
