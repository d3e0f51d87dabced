/* A night's verdict in the index of nights. See night_verdict.h. */
#define _GNU_SOURCE
#include "night_verdict.h"

#include <stdio.h>
#include <string.h>

#include "gr.h"
#include "verdict.h"

/* The verdict of a night in the index of nights: this night's as judged now, another's as
 * recorded with it (compare --record); where none was recorded, what its outcomes and exit code
 * say, marked with '?'. A night without a GPU ran the CPU variants alone: never a green pass. */
void dashboard_night_verdict(const struct plot_ctx *c, const struct store_night *n,
                             struct tpl_view *r)
{
  /* the night's verdict: this night's as judged now, another's as recorded */
  struct store_run rec;
  const char *verdict = "-", *summary = "no verdict recorded for this night";
  char code[16] = "-", nightly[16] = "-";
  if (n->id == c->run && c->verdict) {
    verdict = rv_result_name(c->verdict->result);
    summary = c->verdict->summary;
    gr_fmt(code, sizeof code, "%d", c->verdict->exit_code);
  } else if (store_get_run(c->st, STORE_MAIN, n->id, &rec) == 0 && rec.verdict[0]) {
    verdict = rec.verdict;
    summary = rec.verdict_summary;
    gr_fmt(code, sizeof code, "%d", rec.verdict_exit);
  }
  if (store_get_run(c->st, STORE_MAIN, n->id, &rec) == 0 && rec.nightly_exit >= 0)
    gr_fmt(nightly, sizeof nightly, "%d", rec.nightly_exit);
  if (!strcmp(verdict, "-")) { /* none recorded: what the outcomes and the exit code say */
    int bad = n->failed > 0 || (n->exit_code != 0 && n->exit_code != -1);
    /* a night without a GPU ran the CPU variants alone: never a green pass */
    int no_gpu = !bad && !n->gpu[0];
    verdict = bad ? "fail?" : no_gpu ? "no GPU?" : "pass?";
    gr_fmt(code, sizeof code, "%d", n->exit_code);
  }
  /* a night without a GPU ran the CPU variants alone: never a green pass */
  int ok = !strcmp(verdict, "ok"), no_gpu_ok = ok && !n->gpu[0];
  tpl_set(r, "verdict", "%s", verdict);
  tpl_set(r, "label", "%s", no_gpu_ok ? "no GPU" : verdict);
  tpl_set(r, "verdict_summary", "%s", summary);
  tpl_set(r, "badge", "%s",
          ok && !no_gpu_ok                                                   ? "ok"
          : no_gpu_ok || !strcmp(verdict, "pass?") || !strcmp(verdict, "no GPU?") ? "meh"
                                                                             : "bad");
  tpl_set(r, "failed", "%lld", (long long)n->failed);
  tpl_set(r, "exit_code", "%s", code);
  tpl_set(r, "nightly_exit", "%s", nightly);
}
