/* The night's progress on stderr: lines on a pipe, a bar on a terminal. See progress.h. */
#include "progress.h"

#include <string.h>

#include "gr.h"

char *progress_eta(char *buf, size_t len, double s)
{
  long t = s > 0 ? (long)(s + 0.5) : 0;
  if (t < 60)
    return gr_fmt(buf, len, "%ld s", t);
  if (t < 3600)
    return gr_fmt(buf, len, "%ld min %02ld s", t / 60, t % 60);
  return gr_fmt(buf, len, "%ld h %02ld min", t / 3600, t % 3600 / 60);
}

/* Seconds left in the night: the fuzzing phase's end, then the timing phase. */
static double left(const struct night_progress *np, double now)
{
  double fuzz = 0;
  if (np->done < np->total) {
    if (np->budget > 0)
      fuzz = np->t0 + np->budget - now;
    else if (np->done) /* --cases: the variants so far at their mean */
      fuzz = (now - np->t0) / (double)np->done * (double)(np->total - np->done);
  }
  return (fuzz > 0 ? fuzz : 0) + np->bench_s;
}

static void bar(const struct night_progress *np, double now)
{
  char eta[32], b[41];
  size_t w = sizeof b - 1, fill = np->total ? np->done * w / np->total : w;
  memset(b, '#', fill);
  memset(b + fill, '.', w - fill);
  b[w] = 0;
  /* the bar's line is the one above the runner's variant line */
  fprintf(np->f, "\r\033[K\033[A\r\033[K[%s] %zu/%zu variants, %.0f s, night ETA %s\n", b,
          np->done, np->total, now - np->t0, progress_eta(eta, sizeof eta, left(np, now)));
  fflush(np->f);
}

void progress_begin(struct night_progress *np, FILE *f, int tty, size_t total, double budget,
                    double bench_s)
{
  memset(np, 0, sizeof *np);
  np->f = f;
  np->tty = tty;
  np->total = total;
  np->budget = budget;
  np->bench_s = bench_s;
  np->t0 = np->last = now_seconds();
  if (f && tty) {
    fprintf(f, "\n"); /* the bar's line */
    bar(np, np->t0);
  }
}

void progress_variant(struct night_progress *np, const struct outcome *o, const char *part)
{
  if (!np->f)
    return;
  double now = now_seconds();
  np->done += np->done < np->total;
  np->last = now;
  np->running[0] = 0;
  if (np->tty) {
    bar(np, now);
    return;
  }
  char eta[32];
  fprintf(np->f, "progress: %zu/%zu variants, %s/%s%s %s, %ld cases in %.1f s; night ETA %s\n",
          np->done, np->total, o->alg->name, o->v->name, part ? part : "", verdict_name(o->verdict),
          o->cases, o->seconds, progress_eta(eta, sizeof eta, left(np, now)));
  fflush(np->f);
}

void progress_tick(struct night_progress *np, const char *what, long cases)
{
  if (!np || !np->f || np->tty)
    return;
  double now = now_seconds();
  if (now - np->last < PROGRESS_SILENCE_S)
    return;
  gr_fmt(np->running, sizeof np->running, "%s", what ? what : "");
  char eta[32];
  if (np->running[0] && cases >= 0)
    fprintf(np->f, "progress: %zu/%zu variants, running %s (%ld cases so far), %.0f s; night ETA %s\n",
            np->done, np->total, np->running, cases, now - np->t0,
            progress_eta(eta, sizeof eta, left(np, now)));
  else
    fprintf(np->f, "progress: %zu/%zu variants, %.0f s; night ETA %s\n", np->done, np->total,
            now - np->t0, progress_eta(eta, sizeof eta, left(np, now)));
  fflush(np->f);
  np->last = now;
}

void progress_runner_tick(void *ctx, const char *alg, const char *variant, long cases)
{
  struct night_progress *np = ctx;
  char what[160];
  if (np->f && !np->tty && now_seconds() - np->last >= PROGRESS_SILENCE_S)
    progress_tick(np, gr_fmt(what, sizeof what, "%s/%s", alg, variant), cases);
}

void progress_end(struct night_progress *np)
{
  if (np->f && np->tty) {
    fprintf(np->f, "\r\033[K\033[A\r\033[K");
    fflush(np->f);
  }
  np->f = NULL;
}
