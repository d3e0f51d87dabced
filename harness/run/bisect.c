/* `gpuregress bisect` (bisect.h): git bisect driven step by step in a worktree of its own under a
 * temporary folder, a build and a judged reproducer per commit. Its processes (git, the build,
 * the runner) run through bisect_exec.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "bisect_private.h"
#include "child.h"

const char *bisect_mark_name(enum bisect_mark m)
{
  return m == BISECT_GOOD ? "good" : m == BISECT_BAD ? "bad" : "skip";
}

void bisect_result_release(struct bisect_result *r)
{
  free(r->steps);
  r->steps = NULL;
  r->n_steps = 0;
}

static void add_step(struct bx *x, const struct bisect_step *s)
{
  struct bisect_step *n = realloc(x->r->steps, (x->r->n_steps + 1) * sizeof *n);
  if (!n)
    return; /* the table loses a row; the bisection goes on */
  x->r->steps = n;
  n[x->r->n_steps++] = *s;
  if (x->o->on_step)
    x->o->on_step(s, x->o->arg);
}

/* Build the worktree as it is checked out: 0 built, 1 does not build (detail says why), -2
 * interrupted. */
static int build(struct bx *x, int n, char *detail, size_t len)
{
  char log[BX_PATH], out[BX_OUT];
  gr_fmt(log, sizeof log, "%s/step-%d-build.log", x->tmp, n);
  int rc;
  if (x->o->build_cmd) {
    const char *argv[] = {"sh", "-c", "cd -- \"$1\" || exit 1; eval \"$2\"", "gr-bisect-build",
                          x->wt, x->o->build_cmd, NULL};
    rc = bx_run_logged(x, argv, log, out, sizeof out);
  } else {
    char bdir[BX_PATH], cache[BX_PATH], jobs[16];
    gr_fmt(bdir, sizeof bdir, "%s/build/gr-bisect", x->wt);
    gr_fmt(cache, sizeof cache, "%s/CMakeCache.txt", bdir);
    rc = 0;
    if (access(cache, F_OK) != 0) {
      int cc = bx_on_path("ccache");
      /* without ccache the NULL ends the list before the launchers */
      const char *argv[] = {"cmake", "-S", x->wt, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release",
                            cc ? "-DCMAKE_C_COMPILER_LAUNCHER=ccache" : NULL,
                            "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
                            "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache", NULL};
      rc = bx_run_logged(x, argv, log, out, sizeof out);
    }
    if (rc == 0) {
      long cpus = sysconf(_SC_NPROCESSORS_ONLN);
      gr_fmt(jobs, sizeof jobs, "%ld", cpus > 0 ? cpus : 1);
      const char *argv[] = {"cmake", "--build", bdir, "--target", x->o->runner_target,
                            "--parallel", jobs, NULL};
      rc = bx_run_logged(x, argv, log, out, sizeof out);
    }
  }
  if (rc == -2)
    return -2;
  if (rc == 0 && access(x->runner, X_OK) == 0)
    return 0;
  char line[GR_WHY_LEN];
  bx_first_error(out, line, sizeof line);
  if (rc == 0)
    gr_fmt(detail, len, "does not build: no runner '%s' after the build", x->runner);
  else
    gr_fmt(detail, len, "does not build: %s", line[0] ? line : "the build failed");
  return 1;
}

/* Judge the reproducer with the runner just built. The mark, or -1 an environment failure of
 * the runner (detail says what), -2 interrupted. db: the database a slowdown is timed into. */
static int judge(struct bx *x, int n, const char *db, const char *against, char *detail,
                 size_t len)
{
  char log[BX_PATH], out[BX_OUT], line[GR_WHY_LEN];
  gr_fmt(log, sizeof log, "%s/step-%d-judge.log", x->tmp, n);
  int rc;
  if (x->o->slower) {
    const char *argv[] = {x->runner, "bench", x->alg_variant, "--case", x->o->case_text,
                          "--quiet", "--db", db, against ? "--against" : NULL, against, NULL};
    rc = bx_run_logged(x, argv, log, out, sizeof out);
  } else {
    const char *argv[8];
    int k = 0;
    argv[k++] = x->runner;
    argv[k++] = "repro";
    argv[k++] = x->o->case_text;
    if (x->o->variant) {
      argv[k++] = "--variant";
      argv[k++] = x->o->variant;
    }
    if (x->o->allow_no_gpu)
      argv[k++] = "--allow-no-gpu";
    argv[k] = NULL;
    rc = bx_run_logged(x, argv, log, out, sizeof out);
  }
  if (rc == -2)
    return -2;
  bx_last_line(out, line, sizeof line);
  switch (rc) {
  case 0:
    gr_fmt(detail, len, "%s%s%s", x->o->slower ? "" : "pass", x->o->slower ? "" : ": ", line);
    return BISECT_GOOD;
  case 1:
    gr_fmt(detail, len, "%s%s", x->o->slower ? "" : "caught: ", line);
    return BISECT_BAD;
  case 2:
    gr_fmt(detail, len, "cannot test (exit 2): %s", line);
    return BISECT_SKIP;
  default:
    gr_fmt(detail, len, "the runner %s %d: %s", rc < 0 ? "did not start," : "exited with", rc,
           line);
    return -1;
  }
}

/* Check out sha in the worktree (not for the bisection's own steps: git bisect checks out). */
static int checkout(struct bx *x, const char *sha)
{
  char out[BX_OUT];
  return bx_git_in(x, x->wt, out, sizeof out, "checkout", "--quiet", "--detach", sha, NULL, NULL);
}

/* One commit: build and judge, the step recorded. The mark, or -1 (why set), -2 interrupted. */
static int step(struct bx *x, int n, const char *sha, const char *db, const char *against,
                char *why, size_t len)
{
  struct bisect_step s;
  memset(&s, 0, sizeof s);
  s.n = n;
  gr_fmt(s.sha, sizeof s.sha, "%s", sha);
  char out[BX_OUT];
  if (bx_git_in(x, x->wt, out, sizeof out, "log", "-1", "--format=%s", sha, NULL, NULL) == 0)
    gr_printable(s.subject, sizeof s.subject, out);
  double t0 = now_seconds();
  int b = build(x, n, s.detail, sizeof s.detail);
  s.build_s = now_seconds() - t0;
  if (b == -2)
    return -2;
  int mark = BISECT_SKIP;
  if (b == 0) {
    t0 = now_seconds();
    mark = judge(x, n, db, against, s.detail, sizeof s.detail);
    s.judge_s = now_seconds() - t0;
    if (mark == -2)
      return -2;
    if (mark == -1) {
      gr_fmt(why, len, "%.12s: %s", sha, s.detail);
      return -1;
    }
  }
  s.mark = (enum bisect_mark)mark;
  add_step(x, &s);
  return mark;
}

/* The revision as a full commit sha: 0, else -1. */
static int resolve(struct bx *x, const char *rev, char *sha)
{
  char spec[BX_PATH], out[BX_OUT];
  gr_fmt(spec, sizeof spec, "%s^{commit}", rev);
  if (rev[0] == '-' || bx_git_in(x, x->top, out, sizeof out, "rev-parse", "--verify", "--quiet",
                              "--end-of-options", spec, NULL) != 0 || strlen(out) != 40)
    return -1;
  gr_fmt(sha, BISECT_SHA_LEN, "%s", out);
  return 0;
}

/* What git bisect said after a mark: 1 the first bad commit is named (into r), 2 only skipped
 * commits are left (r->left), 0 a next commit is checked out. */
static int bisect_said(struct bx *x, const char *out)
{
  const char *p = strstr(out, " is the first bad commit");
  if (p) {
    const char *s = p;
    while (s > out && s[-1] != '\n')
      s--;
    gr_fmt(x->r->first_bad, sizeof x->r->first_bad, "%.40s", s);
    return 1;
  }
  if ((p = strstr(out, "only 'skip'ped commits left"))) {
    const char *list = strstr(p, "any of:");
    char flat[GR_WHY_LEN];
    gr_printable(flat, sizeof flat, list ? list + 8 : "");
    for (char *c = flat; *c; c++)
      if (*c == '\n')
        *c = ' ';
    gr_fmt(x->r->left, sizeof x->r->left, "only skipped commits left: %s", flat);
    return 2;
  }
  return 0;
}

/* The worktree and the temporary folder gone (the folder kept with --keep). */
static void cleanup(struct bx *x)
{
  char out[BX_OUT];
  if (x->wt_added) {
    /* the removal runs even after an interrupt: a copy of the options without the flag */
    struct bisect_opts o = *x->o;
    const struct bisect_opts *mine = x->o;
    o.interrupted = NULL;
    x->o = &o;
    bx_git_in(x, x->top, out, sizeof out, "worktree", "remove", "--force", x->wt, NULL, NULL);
    bx_git_in(x, x->top, out, sizeof out, "worktree", "prune", NULL, NULL, NULL, NULL);
    x->o = mine;
    x->wt_added = 0;
  }
  if (x->tmp[0] && !x->o->keep) {
    const char *argv[] = {"rm", "-rf", "--", x->tmp, NULL};
    struct child c;
    child_init(&c);
    c.what = "rm";
    c.argv = argv;
    if (child_start(&c) == 0)
      child_finish(&c, 0, NULL, 0);
  }
}

/* GOOD and BAD tested first: GOOD must pass (and, for a slowdown, gives the samples the steps
 * are timed against: good_db), then BAD must fail. */
static enum gr_status ends_checked(struct bx *x, const char *good_db, char *why, size_t len)
{
  char db[BX_PATH];
  int m = step(x, 0, x->good, good_db, NULL, why, len);
  if (m < 0)
    return GR_STATUS_ENV;
  if (m == BISECT_SKIP) {
    gr_fmt(why, len, "GOOD %.12s cannot be tested: %s", x->good, x->r->steps[x->r->n_steps - 1].detail);
    return GR_STATUS_ENV;
  }
  if (m == BISECT_BAD) {
    gr_fmt(why, len, "the reproducer fails at GOOD %.12s already: not a good revision", x->good);
    return GR_STATUS_USAGE;
  }
  if (checkout(x, x->bad)) {
    gr_fmt(why, len, "cannot check out BAD %.12s in the worktree", x->bad);
    return GR_STATUS_ENV;
  }
  gr_fmt(db, sizeof db, "%s/step-1.db", x->tmp);
  m = step(x, 1, x->bad, db, good_db, why, len);
  if (m < 0)
    return GR_STATUS_ENV;
  if (m == BISECT_SKIP) {
    gr_fmt(why, len, "BAD %.12s cannot be tested: %s", x->bad, x->r->steps[x->r->n_steps - 1].detail);
    return GR_STATUS_ENV;
  }
  if (m == BISECT_GOOD) {
    gr_fmt(why, len, "the reproducer does not fail at BAD %.12s: nothing to bisect", x->bad);
    return GR_STATUS_USAGE;
  }
  return GR_STATUS_OK;
}

/* git bisect from BAD and GOOD, a step per revision it checks out, up to --max-steps (what was
 * left then in x->r->left); the first bad commit found named with its subject and date. */
static enum gr_status git_steps(struct bx *x, const char *good_db, char *why, size_t len)
{
  const struct bisect_opts *o = x->o;
  char out[BX_OUT], db[BX_PATH];
  int m;
  int rc = bx_git_in(x, x->wt, out, sizeof out, "bisect", "start", x->bad, x->good, "--", NULL);
  if (rc < 0 || x->interrupted)
    return GR_STATUS_ENV;
  if (rc != 0) {
    bx_last_line(out, why, len);
    return GR_STATUS_ENV;
  }
  int said = bisect_said(x, out);
  for (int n = 2; !said; n++) {
    if (n - 2 >= o->max_steps) {
      /* git's "Bisecting: N revisions left to test after this (roughly M steps)" */
      char line[GR_WHY_LEN] = "";
      const char *b = strstr(out, "Bisecting: ");
      if (b)
        gr_fmt(line, sizeof line, "%.*s", (int)strcspn(b + 11, "\n"), b + 11);
      gr_fmt(x->r->left, sizeof x->r->left, "--max-steps %d reached%s%s%s", o->max_steps,
             line[0] ? " (" : "", line, line[0] ? ")" : "");
      break;
    }
    char sha[BX_OUT];
    if (bx_git_in(x, x->wt, sha, sizeof sha, "rev-parse", "HEAD", NULL, NULL, NULL, NULL) != 0 ||
        strlen(sha) != 40)
      return GR_STATUS_ENV;
    gr_fmt(db, sizeof db, "%s/step-%d.db", x->tmp, n);
    m = step(x, n, sha, db, good_db, why, len);
    if (m < 0)
      return GR_STATUS_ENV;
    rc = bx_git_in(x, x->wt, out, sizeof out, "bisect", bisect_mark_name((enum bisect_mark)m), NULL,
                NULL, NULL, NULL);
    if (rc < 0 || x->interrupted)
      return GR_STATUS_ENV;
    said = bisect_said(x, out);
    if (rc != 0 && !said) {
      bx_last_line(out, why, len);
      return GR_STATUS_ENV;
    }
  }
  if (said == 1) {
    x->r->found = 1;
    if (bx_git_in(x, x->wt, out, sizeof out, "log", "-1", "--format=%s", x->r->first_bad, NULL,
               NULL) == 0)
      gr_printable(x->r->subject, sizeof x->r->subject, out);
    if (bx_git_in(x, x->wt, out, sizeof out, "log", "-1", "--format=%aI", x->r->first_bad, NULL,
               NULL) == 0)
      gr_printable(x->r->date, sizeof x->r->date, out);
  }
  return GR_STATUS_OK;
}

/* A slowdown: GOOD timed again, on the same machine now; a GOOD that moved voids the steps. */
static enum gr_status good_again(struct bx *x, const char *good_db, char *why, size_t len)
{
  char db[BX_PATH];
  if (checkout(x, x->good)) {
    gr_fmt(why, len, "cannot check out GOOD %.12s again", x->good);
    return GR_STATUS_ENV;
  }
  gr_fmt(db, sizeof db, "%s/good-again.db", x->tmp);
  int m = step(x, 0, x->good, db, good_db, why, len); /* step 0 again: GOOD */
  if (m < 0)
    return GR_STATUS_ENV;
  if (m != BISECT_GOOD) {
    x->r->good_moved = 1;
    gr_fmt(why, len, "GOOD %.12s timed again at the end is %s (%s): the machine's speed moved "
           "during the bisection, its steps cannot be trusted", x->good,
           m == BISECT_BAD ? "slower than at the start" : "untestable",
           x->r->steps[x->r->n_steps - 1].detail);
    return GR_STATUS_ENV;
  }
  return GR_STATUS_OK;
}

static enum gr_status bisect_steps(struct bx *x, char *why, size_t len)
{
  char good_db[BX_PATH];
  gr_fmt(good_db, sizeof good_db, "%s/good.db", x->tmp);
  enum gr_status s = ends_checked(x, good_db, why, len);
  if (s == GR_STATUS_OK)
    s = git_steps(x, good_db, why, len);
  if (s == GR_STATUS_OK && x->o->slower)
    s = good_again(x, good_db, why, len);
  return s;
}

enum gr_status bisect_run(const struct bisect_opts *o, struct bisect_result *r, char *why,
                          size_t len)
{
  struct bx x;
  memset(&x, 0, sizeof x);
  memset(r, 0, sizeof *r);
  x.o = o;
  x.r = r;
  why[0] = 0;
  char out[BX_OUT];
  enum gr_status st = GR_STATUS_ENV;
  if (bx_git_in(&x, o->repo, out, sizeof out, "rev-parse", "--show-toplevel", NULL, NULL, NULL,
             NULL) != 0 || !out[0]) {
    gr_fmt(why, len, "'%s' is not inside a git work tree", o->repo);
    goto out;
  }
  gr_fmt(x.top, sizeof x.top, "%s", out);
  if (resolve(&x, o->good, x.good) || resolve(&x, o->bad, x.bad)) {
    gr_fmt(why, len, "unknown revision '%s'", resolve(&x, o->good, x.good) ? o->good : o->bad);
    st = GR_STATUS_USAGE;
    goto out;
  }
  if (bx_git_in(&x, x.top, out, sizeof out, "merge-base", "--is-ancestor", x.good, x.bad, NULL,
             NULL) != 0) {
    gr_fmt(why, len, "GOOD '%s' is not an ancestor of BAD '%s'", o->good, o->bad);
    st = GR_STATUS_USAGE;
    goto out;
  }
  if (o->slower) {
    size_t w = strcspn(o->case_text, " ");
    gr_fmt(x.alg_variant, sizeof x.alg_variant, "%.*s/%s", (int)w, o->case_text,
           o->variant ? o->variant : "*");
  }
  const char *base = getenv("TMPDIR");
  gr_fmt(x.tmp, sizeof x.tmp, "%s/gr-bisect-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(x.tmp)) {
    gr_fmt(why, len, "cannot make a temporary folder '%s': %s", x.tmp, strerror(errno));
    x.tmp[0] = 0;
    goto out;
  }
  gr_fmt(r->tmp, sizeof r->tmp, "%s", x.tmp);
  gr_fmt(x.wt, sizeof x.wt, "%s/wt", x.tmp);
  if (o->runner && o->runner[0] == '/')
    gr_fmt(x.runner, sizeof x.runner, "%s", o->runner);
  else if (o->runner)
    gr_fmt(x.runner, sizeof x.runner, "%s/%s", x.wt, o->runner);
  else
    gr_fmt(x.runner, sizeof x.runner, "%s/build/gr-bisect/%s", x.wt, o->runner_target);
  x.wt_added = 1; /* from here on a worktree may exist: cleanup removes it */
  if (bx_git_in(&x, x.top, out, sizeof out, "worktree", "add", "--quiet", "--detach", x.wt, x.good,
             NULL) != 0) {
    char line[GR_WHY_LEN];
    bx_last_line(out, line, sizeof line);
    gr_fmt(why, len, "cannot add a worktree at '%s': %s", x.wt, line);
    goto out;
  }
  st = bisect_steps(&x, why, len);
out:
  cleanup(&x);
  if (x.interrupted) {
    r->interrupted = 1;
    gr_fmt(why, len, "interrupted: the worktree is removed");
    return GR_STATUS_ENV;
  }
  return st;
}
