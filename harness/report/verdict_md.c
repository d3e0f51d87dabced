/* The verdict as Markdown (`compare --format markdown`): for a pull request comment or a CI job
 * summary ($GITHUB_STEP_SUMMARY). The verdict comes first, in one short line; then what failed
 * (regressions with ratio, p, commits and the command that times them again), the open
 * regressions, and everything else folded in <details>. See verdict.h. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "verdict_private.h"

/* Stored text (names, params, reasons, who and why of an acknowledgement, the GPU, a path) as
 * plain text in Markdown, a table cell included: '<', '>', '&' and quotes as entities (no HTML
 * tag, so no <img> fetched and no </details> closing the fold), every other character Markdown
 * or a table reads as syntax inside a line after a backslash (no link, image, emphasis,
 * strikethrough, code span or math; ':' and '.' too, so that no URL or www. becomes a link, '#'
 * and '@' so that no issue or person is referenced), line breaks and other control characters
 * as spaces (a row stays one row). NULL writes nothing. */
static void cell(FILE *f, const char *s)
{
  for (; s && *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '<')
      fputs("&lt;", f);
    else if (ch == '>')
      fputs("&gt;", f);
    else if (ch == '&')
      fputs("&amp;", f);
    else if (ch == '"')
      fputs("&quot;", f);
    else if (ch == '\'')
      fputs("&#39;", f);
    else if (ch < 0x20 || ch == 0x7f)
      fputc(' ', f);
    else if (strchr("\\`*_[]()!#~|:.$@", ch))
      fprintf(f, "\\%c", ch);
    else
      fputc(ch, f);
  }
}

/* printf into a buffer, then cell(): a stored field cut to a width, or formatted with others */
static void cellf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cellf(FILE *f, const char *fmt, ...)
{
  char buf[4 * GR_CASE_TEXT_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  cell(f, buf);
}

/* Text as a code span (a command, a commit range): literal inside the backticks, so nothing
 * else is escaped; a backtick inside becomes a quote (it would end the span), a pipe a slash (it
 * would end the cell), line breaks and control characters spaces. "-" for none. */
static void code(FILE *f, const char *s)
{
  if (!s || !*s) {
    fputs("-", f);
    return;
  }
  fputc('`', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    fputc(ch == '`' ? '\'' : ch == '|' ? '/' : ch < 0x20 || ch == 0x7f ? ' ' : ch, f);
  }
  fputc('`', f);
}

/* code() of at most n bytes of s */
static void code_n(FILE *f, const char *s, int n)
{
  char buf[128];
  gr_fmt(buf, sizeof buf, "%.*s", n, s ? s : "");
  code(f, buf);
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
  fputs("| ", f);
  cellf(f, "%s/%.*s", t->suite, (int)nv, t->name);
  fputs(" | ", f);
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

/* The heading, the run line (commit, GPU, driver, runner, baseline, tallies) and a clock
 * warning. */
static void md_head(FILE *f, const struct run_verdict *v)
{
  const struct store_run *r = &v->run;
  const struct compare_result *c = v->cmp;
  fprintf(f, "### gpuregress: %s (exit %d)\n\n", headline(v), v->exit_code);
  char commit[32];
  gr_fmt(commit, sizeof commit, "%.10s%s", r->commit, r->dirty ? "-dirty" : "");
  fprintf(f, "Run %lld ", (long long)r->id);
  code(f, commit);
  fputs(" on ", f);
  cell(f, r->gpu[0] ? r->gpu : "no GPU");
  if (r->driver_release[0]) {
    fputs(" (driver ", f);
    cell(f, r->driver_release);
    fputs(")", f);
  }
  if (r->gr_version[0]) { /* the runner and gpuregress's own version (names only: data) */
    fputs(", runner ", f);
    code(f, gr_name_ok(r->runner) ? r->runner : "gpuregress");
    fprintf(f, ", gpuregress %s", gr_name_ok(r->gr_version) ? r->gr_version : "?"); /* a name: no markup */
  }
  if (c) {
    fprintf(f, " against run %lld ", (long long)c->base.id);
    code_n(f, c->base.commit, 10);
    if (v->base_file) {
      fputs(" of ", f);
      cell(f, v->base_file);
    }
  } else
    fputs(", no baseline", f);
  fprintf(f, ": %zu failed, %zu passed, %zu skipped", v->failed, v->passed, v->skipped);
  if (c)
    fprintf(f, "; timings %zu slower, %zu faster, %zu same, %zu unsure", c->n_slower, c->n_faster,
            c->n_same, c->n_unsure);
  if (c && c->n_unconfirmed)
    fprintf(f, " (%zu slower not confirmed on this machine)", c->n_unconfirmed);
  if (v->history_checked)
    fprintf(f, "; %zu open regressions (%zu acknowledged)", v->open_unacked + v->open_acked,
            v->open_acked);
  fputs(".\n\n", f);
  if (v->clock_warning[0]) {
    fputs("> **Clocks differ:** ", f);
    cell(f, v->clock_warning);
    fputs("\n\n", f);
  }
}

/* The slower benchmarks (compared_fails of them), each with its reproducer. */
static void md_slower(FILE *f, const struct run_verdict *v, size_t compared_fails)
{
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
    if (t->first_bad[0]) { /* bisect --db named its commit (escaped: from a database) */
      fputs("<br>first bad: ", f);
      cell(f, t->first_bad);
    }
    fputs(" | ", f);
    code(f, t->repro);
    fputs(" |\n", f);
  }
  fputc('\n', f);
}

/* The failed checks that are not timings (n of them). */
static void md_failed(FILE *f, const struct run_verdict *v, size_t n)
{
  fprintf(f, "#### Failed checks (%zu)\n\n| test | verdict | why |\n|---|---|---|\n", n);
  for (size_t i = 0; i < v->n; i++) {
    const struct rv_test *t = &v->tests[i];
    if (t->state != RV_FAIL || t->compared)
      continue;
    fputs("| ", f);
    cellf(f, "%s/%s (%s)", t->suite, t->name, t->kind);
    fputs(" | ", f);
    cell(f, t->verdict);
    fputs(" | ", f);
    cell(f, t->message);
    fputs(" |\n", f);
  }
  fputc('\n', f);
}

/* The regressions open but acknowledged. */
static void md_acked(FILE *f, const struct run_verdict *v)
{
  fprintf(f, "#### Acknowledged regressions (%zu)\n\n| benchmark | params | since run | "
             "before ms | now ms | acknowledged |\n|---|---|---:|---:|---:|---|\n",
          v->open_acked);
  for (size_t i = 0; i < v->n_open; i++) {
    const struct rv_open *e = &v->open[i];
    if (e->closed || !e->acked)
      continue;
    fputs("| ", f);
    cellf(f, "%s/%s", e->reg.algorithm, e->reg.variant);
    fputs(" | ", f);
    cell(f, e->reg.params);
    fprintf(f, " | %lld | ", (long long)e->reg.opened_run);
    num(f, "%.4f", e->reg.ref_ms);
    fputs(" | ", f);
    num(f, "%.4f", e->reg.cur_ms);
    fputs(" | ", f);
    cellf(f, "%s, %.10s: %s", e->ack.who, e->ack.at, e->ack.reason);
    fputs(" |\n", f);
  }
  fputc('\n', f);
}

/* The rest of the results, folded. */
static void md_rest(FILE *f, const struct run_verdict *v)
{
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
    fputs("| ", f);
    cellf(f, "%s/%s", t->suite, t->name);
    fputs(" | ", f);
    cell(f, t->compared ? t->verdict : rv_state_name(t->state));
    fputs(" | ", f);
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

void run_verdict_markdown(FILE *f, const struct run_verdict *v)
{
  size_t fails = 0, compared_fails = 0;
  for (size_t i = 0; i < v->n; i++)
    if (v->tests[i].state == RV_FAIL) {
      fails++;
      compared_fails += v->tests[i].compared;
    }
  md_head(f, v);
  if (compared_fails)
    md_slower(f, v, compared_fails);
  if (fails > compared_fails)
    md_failed(f, v, fails - compared_fails);
  if (v->open_acked)
    md_acked(f, v);
  md_rest(f, v);
}
