/* The verdict as Markdown (`compare --format markdown`): for a pull request comment or a CI job
 * summary ($GITHUB_STEP_SUMMARY). The verdict comes first, in one short line; then what failed
 * (regressions with ratio, p, commits and the command that times them again), the open
 * regressions, and everything else folded in <details>. See verdict.h. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "verdict_private.h"

/* text in a table cell: pipes escaped, line breaks as spaces */
static void cell(FILE *f, const char *s)
{
  for (; s && *s; s++) {
    if (*s == '|')
      fputs("\\|", f);
    else if (*s == '\n' || *s == '\r')
      fputc(' ', f);
    else
      fputc(*s, f);
  }
}

/* code in a table cell (backticks; a backtick inside becomes a quote) */
static void code(FILE *f, const char *s)
{
  if (!s || !*s) {
    fputs("-", f);
    return;
  }
  fputc('`', f);
  for (; *s; s++)
    fputc(*s == '`' ? '\'' : *s == '|' ? '/' : *s, f);
  fputc('`', f);
}

static const char *headline(const struct run_verdict *v)
{
  switch (v->result) {
  case RV_RESULT_OK: return v->no_gpu_allowed ? "ok without a GPU" : "passed";
  case RV_RESULT_FAILED: return "FAILED";
  case RV_RESULT_NO_GPU: return "no GPU";
  case RV_RESULT_INCOMPLETE: return "incomplete";
  }
  return "?";
}

/* the benchmark of a compared test: "alg/variant" and its params (the name up to " [") */
static void bench_cells(FILE *f, const struct rv_test *t)
{
  size_t nv = strcspn(t->name, " ");
  const char *params = t->name + nv + (t->name[nv] ? 1 : 0);
  const char *end = strstr(params, " [");
  fprintf(f, "| %s/%.*s | ", t->suite, (int)nv, t->name);
  char buf[sizeof t->name];
  gr_fmt(buf, sizeof buf, "%.*s", end ? (int)(end - params) : (int)strlen(params), params);
  cell(f, buf);
  if (end && !strncmp(end, " [hot]", 6))
    fputs(" (L2 hot)", f);
}

static void num(FILE *f, const char *fmt, double d)
{
  if (isfinite(d) && d > 0)
    fprintf(f, fmt, d);
  else
    fputs("-", f);
}

void run_verdict_markdown(FILE *f, const struct run_verdict *v)
{
  const struct store_run *r = &v->run;
  const struct compare_result *c = v->cmp;
  size_t fails = 0, compared_fails = 0;
  for (size_t i = 0; i < v->n; i++)
    if (v->tests[i].state == RV_FAIL) {
      fails++;
      compared_fails += v->tests[i].compared;
    }
  fprintf(f, "### gpuregress: %s (exit %d)\n\n", headline(v), v->exit_code);
  fprintf(f, "Run %lld `%.10s%s` on %s", (long long)r->id, r->commit, r->dirty ? "-dirty" : "",
          r->gpu[0] ? r->gpu : "no GPU");
  if (r->driver_release[0])
    fprintf(f, " (driver %s)", r->driver_release);
  if (r->gr_version[0]) /* the runner and gpuregress's own version (names only: data) */
    fprintf(f, ", runner `%s`, gpuregress %s", gr_name_ok(r->runner) ? r->runner : "gpuregress",
            gr_name_ok(r->gr_version) ? r->gr_version : "?");
  if (c)
    fprintf(f, " against run %lld `%.10s`%s%s", (long long)c->base.id, c->base.commit,
            v->base_file ? " of " : "", v->base_file ? v->base_file : "");
  else
    fputs(", no baseline", f);
  fprintf(f, ": %zu failed, %zu passed, %zu skipped", v->failed, v->passed, v->skipped);
  if (c)
    fprintf(f, "; timings %zu slower, %zu faster, %zu same, %zu unsure", c->n_slower, c->n_faster,
            c->n_same, c->n_unsure);
  if (v->history_checked)
    fprintf(f, "; %zu open regressions (%zu acknowledged)", v->open_unacked + v->open_acked,
            v->open_acked);
  fputs(".\n\n", f);
  if (v->clock_warning[0])
    fprintf(f, "> **Clocks differ:** %s\n\n", v->clock_warning);

  if (compared_fails) {
    fprintf(f, "#### Slower (%zu)\n\n", compared_fails);
    fputs("| benchmark | params | base ms | new ms | ratio | p | commits | reproduce |\n"
          "|---|---|---:|---:|---:|---:|---|---|\n",
          f);
    for (size_t i = 0; i < v->n; i++) {
      const struct rv_test *t = &v->tests[i];
      if (t->state != RV_FAIL || !t->compared)
        continue;
      bench_cells(f, t);
      if (!strcmp(t->source, "regression"))
        fputs(" (open)", f);
      else if (!strcmp(t->source, "history"))
        fputs(" (step over the nights)", f);
      fputs(" | ", f);
      num(f, "%.4f", t->base_ms);
      fputs(" | ", f);
      num(f, "%.4f", t->cur_ms);
      fputs(" | ", f);
      num(f, "**%.3fx**", t->ratio);
      fputs(" | ", f);
      if (isfinite(t->p))
        fprintf(f, "%.2g", t->p);
      else
        fputs("-", f);
      fputs(" | ", f);
      code(f, t->range[0] ? t->range : NULL);
      fputs(" | ", f);
      code(f, t->repro);
      fputs(" |\n", f);
    }
    fputc('\n', f);
  }
  if (fails > compared_fails) {
    fprintf(f, "#### Failed checks (%zu)\n\n| test | verdict | why |\n|---|---|---|\n",
            fails - compared_fails);
    for (size_t i = 0; i < v->n; i++) {
      const struct rv_test *t = &v->tests[i];
      if (t->state != RV_FAIL || t->compared)
        continue;
      fprintf(f, "| %s/", t->suite);
      cell(f, t->name);
      fprintf(f, " (%s) | %s | ", t->kind, t->verdict);
      cell(f, t->message);
      fputs(" |\n", f);
    }
    fputc('\n', f);
  }
  if (v->open_acked) {
    fprintf(f, "#### Acknowledged regressions (%zu)\n\n| benchmark | params | since run | "
               "before ms | now ms | acknowledged |\n|---|---|---:|---:|---:|---|\n",
            v->open_acked);
    for (size_t i = 0; i < v->n_open; i++) {
      const struct rv_open *e = &v->open[i];
      if (e->closed || !e->acked)
        continue;
      fprintf(f, "| %s/%s | ", e->reg.algorithm, e->reg.variant);
      cell(f, e->reg.params);
      fprintf(f, " | %lld | ", (long long)e->reg.opened_run);
      num(f, "%.4f", e->reg.ref_ms);
      fputs(" | ", f);
      num(f, "%.4f", e->reg.cur_ms);
      fputs(" | ", f);
      cell(f, e->ack.who);
      fprintf(f, ", %.10s: ", e->ack.at);
      cell(f, e->ack.reason);
      fputs(" |\n", f);
    }
    fputc('\n', f);
  }

  /* the rest, folded */
  size_t rest = 0;
  for (size_t i = 0; i < v->n; i++)
    rest += v->tests[i].state != RV_FAIL;
  if (!rest)
    return;
  fprintf(f, "<details><summary>%zu more results (%zu passed, %zu skipped, %zu errors)</summary>"
             "\n\n| test | state | base ms | new ms | ratio | p | note |\n"
             "|---|---|---:|---:|---:|---:|---|\n",
          rest, v->passed, v->skipped, v->errors);
  for (size_t i = 0; i < v->n; i++) {
    const struct rv_test *t = &v->tests[i];
    if (t->state == RV_FAIL)
      continue;
    fprintf(f, "| %s/", t->suite);
    cell(f, t->name);
    fprintf(f, " | %s | ", t->compared ? t->verdict : rv_state_name(t->state));
    if (t->compared) {
      num(f, "%.4f", t->base_ms);
      fputs(" | ", f);
      num(f, "%.4f", t->cur_ms);
      fputs(" | ", f);
      num(f, "%.3fx", t->ratio);
      fputs(" | ", f);
      if (isfinite(t->p))
        fprintf(f, "%.2g", t->p);
      else
        fputs("-", f);
    } else {
      fputs("- | - | - | -", f);
    }
    fputs(" | ", f);
    char note[200];
    gr_fmt(note, sizeof note, "%s", t->message ? t->message : "");
    cell(f, note);
    fputs(" |\n", f);
  }
  fputs("\n</details>\n", f);
}
