/* The worker processes of the runner, seen from both sides: one per (algorithm, variant), started
 * through child.c, reading case texts on a pipe and answering one line each.
 *
 * Protocol on the pipes (one line each, tab-separated, reasons with tabs and newlines flattened):
 *   worker -> parent, once at start:  "READY" or "SKIP\t<why>"
 *   parent -> worker, per case:       "<case text>"
 *   worker -> parent, per case:       "R\t<verdict>\t<tag>\t<err>\t<seconds>\t<regimes>\t<why>"
 *                                     (regimes: the mask of coverage.h, in hex)
 * The worker's stderr is a third pipe; its last line explains a crash. */
#define _GNU_SOURCE
#include "wproc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "worker.h"

/* ---- worker side ------------------------------------------------------------------------- */


static int worker_main(void *arg, int in, int out)
{
  const struct gr_algorithm *a = ((struct worker_arg *)arg)->a;
  const struct gr_variant *v = ((struct worker_arg *)arg)->v;
  char why[GR_WHY_LEN], line[GR_CASE_TEXT_LEN * 2];
  if ((v->flags & GR_VARIANT_GPU) && !worker_gpu_ready(why, sizeof why)) {
    child_flatten(why);
    child_say(out, "SKIP\t%s", why);
    return 0;
  }
  child_say(out, "READY");
  FILE *fin = fdopen(in, "r");
  if (!fin)
    return 3;
  while (fgets(line, sizeof line, fin)) {
    struct gr_case c;
    struct case_result r;
    line[strcspn(line, "\n")] = 0;
    if (case_parse(line, &c, why, sizeof why) || c.alg != a) {
      memset(&r, 0, sizeof r);
      r.verdict = VERDICT_ERROR;
      r.tag = "input";
      gr_fmt(r.why, sizeof r.why, "%s", c.alg != a ? "case of another algorithm" : why);
    } else {
      worker_run_case(&c, v, &r);
    }
    child_flatten(r.why);
    child_say(out, "R\t%s\t%s\t%.9g\t%.6f\t%x\t%s", verdict_name(r.verdict),
              r.tag && r.tag[0] ? r.tag : "-", r.err, r.seconds, (unsigned)r.regimes, r.why);
  }
  return 0;
}

/* ---- parent side ------------------------------------------------------------------------- */

void wproc_init(struct wproc *w, const struct gr_algorithm *a, const struct gr_variant *v,
                volatile int *interrupted)
{
  child_init(&w->c);
  w->arg = (struct worker_arg){a, v};
  w->c.what = "worker";
  w->c.fn = worker_main;
  w->c.arg = &w->arg;
  w->c.pipe_in = w->c.pipe_out = w->c.pipe_err = 1;
  w->c.interrupted = interrupted;
}


/* Read one line from the worker within timeout seconds. 1: line in buf; 0: the worker is gone
 * (why says how); -1: timeout; WPROC_INTERRUPTED (the worker was killed in both). */
static int wproc_line(struct wproc *w, double timeout, char *buf, size_t len, char *why,
                      size_t why_len)
{
  switch (child_read_line(&w->c, timeout, buf, len)) {
  case CHILD_GOT: return 1;
  case CHILD_EOF: child_finish(&w->c, 0, why, why_len); return 0;
  case CHILD_INTERRUPTED:
  case CHILD_TIMEOUT: break;
  }
  child_finish(&w->c, 1, NULL, 0);
  gr_fmt(why, why_len, *w->c.interrupted ? "interrupted" : "no answer within %.0f s (watchdog)",
         timeout);
  return *w->c.interrupted ? WPROC_INTERRUPTED : -1;
}

/* Start a worker and read its greeting. 1 ready; 0 the variant is skipped here, for want of a
 * GPU (why); -1 the worker could not start (why); WPROC_INTERRUPTED. */
int wproc_open(struct wproc *w, double timeout, char *why, size_t len)
{
  char line[GR_WHY_LEN + 16];
  if (child_start(&w->c)) {
    gr_fmt(why, len, "cannot start a worker: %s", strerror(errno));
    return -1;
  }
  int r = wproc_line(w, timeout, line, sizeof line, why, len);
  if (r != 1)
    return r == WPROC_INTERRUPTED ? r : -1;
  if (strcmp(line, "READY") == 0)
    return 1;
  child_finish(&w->c, 0, NULL, 0);
  gr_fmt(why, len, "%s", strncmp(line, "SKIP\t", 5) == 0 ? line + 5 : line);
  return 0;
}

/* Let a worker end by itself (EOF on its input), then make sure it did. */
void wproc_close(struct wproc *w)
{
  if (!w->c.pid)
    return;
  child_close_in(&w->c);
  child_wait(&w->c, 2.0);
  child_finish(&w->c, 1, NULL, 0);
}

/* Run one case in the worker, starting a worker first if none is alive. 0: res holds its
 * verdict; WPROC_INTERRUPTED: the run was interrupted while it ran, res (skip, "interrupted")
 * says nothing about the variant and is not recorded. */
int wproc_case(struct wproc *w, const struct gr_case *c, double watchdog,
               struct case_result *res)
{
  char text[GR_CASE_TEXT_LEN + 2], line[GR_WHY_LEN * 2];
  memset(res, 0, sizeof *res);
  res->tag = "";
  double t0 = now_seconds();
  if (!w->c.pid) {
    int r = wproc_open(w, watchdog, res->why, sizeof res->why);
    if (r <= 0) {
      res->verdict = r == -1 ? VERDICT_CRASH : VERDICT_SKIP;
      res->status = r == 0 ? GR_STATUS_NO_GPU : GR_STATUS_OK;
      res->tag = r == -1 ? "crash" : "";
      return r == WPROC_INTERRUPTED ? r : 0;
    }
  }
  case_format(c, text, GR_CASE_TEXT_LEN);
  strcat(text, "\n");
  if (child_write(&w->c, text, strlen(text))) {
    child_finish(&w->c, 0, res->why, sizeof res->why);
    res->verdict = VERDICT_CRASH;
    res->tag = "crash";
    return 0;
  }
  int r = wproc_line(w, watchdog, line, sizeof line, res->why, sizeof res->why);
  res->seconds = now_seconds() - t0;
  if (r == WPROC_INTERRUPTED) {
    res->verdict = VERDICT_SKIP;
    return r;
  }
  if (r == -1) {
    res->verdict = VERDICT_TIMEOUT;
    res->tag = "timeout";
    return 0;
  }
  if (r == 0) {
    res->verdict = VERDICT_CRASH;
    res->tag = "crash";
    return 0;
  }
  /* R \t verdict \t tag \t err \t seconds \t regimes \t why */
  char *save = NULL, *f[7] = {0};
  f[0] = strtok_r(line, "\t", &save);
  for (int i = 1; i < 6 && f[i - 1]; i++)
    f[i] = strtok_r(NULL, "\t", &save);
  f[6] = save;
  int vd = f[1] ? verdict_parse(f[1]) : -1;
  if (!f[0] || strcmp(f[0], "R") != 0 || vd < 0 || !f[5]) {
    child_finish(&w->c, 1, NULL, 0);
    gr_fmt(res->why, sizeof res->why, "worker sent a malformed line");
    res->verdict = VERDICT_CRASH;
    res->tag = "crash";
    return 0;
  }
  static const char *const tags[] = {"parity", "bounds", "invariant", "determinism", "memory",
                                     "input", "error", "check"};
  res->verdict = (enum verdict)vd;
  res->tag = "other";
  for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
    if (strcmp(f[2], tags[i]) == 0)
      res->tag = tags[i];
  if (strcmp(f[2], "-") == 0)
    res->tag = "";
  res->err = strtod(f[3], NULL);
  res->regimes = (uint32_t)strtoul(f[5], NULL, 16);
  gr_fmt(res->why, sizeof res->why, "%s", f[6] ? f[6] : "");
  return 0;
}
