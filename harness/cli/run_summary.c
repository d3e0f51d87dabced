/* The summary of `run` and `fuzz` (the table, coverage, failures with their reproducers) and
 * the storing of the variants' outcomes. See run_summary.h. */
#define _GNU_SOURCE
#include "run_summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "verdict.h"

int outcome_is_bad(const struct outcome *o)
{
  return o->verdict == VERDICT_ESCAPED ||
         (o->v->kind != GR_VARIANT_HISTORICAL && verdict_is_failure(o->verdict));
}

/* The fuzz cases per regime of every variant that has regimes, and the uncovered warnings. */
static void print_coverage(FILE *f, const struct outcome *out, size_t n)
{
  int head = 0;
  char text[GR_WHY_LEN * 2];
  for (size_t i = 0; i < n; i++) {
    const struct outcome *o = &out[i];
    if (!o->cov.applies || o->verdict == VERDICT_SKIP)
      continue;
    if (!head++)
      fprintf(f, "\ncoverage (fuzz cases per regime):\n");
    char name[64];
    gr_fmt(name, sizeof name, "%s/%s", o->alg->name, o->v->name);
    fprintf(f, "  %-32s %s\n", name, coverage_text(&o->cov, text, sizeof text));
  }
  for (size_t i = 0; i < n; i++)
    if (out[i].uncovered[0])
      fprintf(f, "%s/%s uncovered: %s never reached in %ld cases\n", out[i].alg->name,
              out[i].v->name, out[i].uncovered, out[i].cases);
}

/* a variant that did not run at all: summed up in one line of the summary */
static int folded_skip(const struct outcome *o)
{
  return o->verdict == VERDICT_SKIP && o->cases == 0 && o->skipped == 0;
}

/* Variants that ran no case (no GPU, a driver too old): one line per reason, not rows of 0. */
static void print_not_run(FILE *f, const struct outcome *out, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (!folded_skip(&out[i]))
      continue;
    size_t k = 0, hist = 0, seen = 0;
    for (size_t j = 0; j < n; j++)
      if (folded_skip(&out[j]) && !strcmp(out[j].reason, out[i].reason)) {
        seen |= j < i;
        k++;
        hist += out[j].v->kind == GR_VARIANT_HISTORICAL;
      }
    if (seen)
      continue;
    char hist_txt[96] = "";
    if (hist)
      gr_fmt(hist_txt, sizeof hist_txt, " (%zu of them historical: not run, so not caught)", hist);
    fprintf(f, "%zu variant%s not run%s: %s\n", k, k == 1 ? "" : "s", hist_txt,
            out[i].reason[0] ? out[i].reason : "-");
  }
}

/* A failure's first and shrunk case, how steady it was, its reproducer (and status lines). */
static void print_failure_cases(FILE *f, const struct outcome *o)
{
  if (!o->shrunk_case[0]) {
    if (o->first_case[0])
      fprintf(f, "  case:   %s\n", o->first_case);
    return;
  }
  char repro[4 * GR_CASE_TEXT_LEN + 128];
  struct gr_case sc;
  char why[GR_WHY_LEN];
  char steady[160] = "failed again twice";
  if (!o->flaky && o->flaky_runs)
    gr_fmt(steady, sizeof steady, "failed again %ld times of %ld", o->flaky_runs + 2,
           o->flaky_runs + 2);
  else if (o->flaky)
    gr_fmt(steady, sizeof steady,
           "FLAKY: failed again %ld of %ld runs here, a race or an uninitialised read; the "
           "reproducer repeats it %ld times",
           o->flaky_fails, o->flaky_runs, o->repeat);
  fprintf(f, "  first:  %s\n  shrunk: %s (%ld candidates tried; %s)\n  reason: %s\n",
          o->first_case, o->shrunk_case, o->shrink_steps, steady, o->shrunk_reason);
  if (case_parse(o->shrunk_case, &sc, why, sizeof why) == 0) {
    fprintf(f, "  repro:  %s\n", runner_reproducer(&sc, o->v, o->repeat, repro, sizeof repro));
    cli_status_set("repro", "%s", o->shrunk_case); /* the same list for scripts */
    cli_status_set("reproducer", "%s", repro);
  }
}

/* Every outcome that is not a plain pass, with its reason and cases (a run of skips of one
 * reason once). */
static void print_details(FILE *f, const struct outcome *out, size_t n)
{
  int details = 0;
  for (size_t i = 0; i < n; i++) {
    const struct outcome *o = &out[i];
    if (o->verdict == VERDICT_PASS || folded_skip(o) ||
        (o->verdict == VERDICT_SKIP && i > 0 && strcmp(out[i - 1].reason, o->reason) == 0 &&
         out[i - 1].verdict == VERDICT_SKIP))
      continue;
    if (!details++)
      fprintf(f, "\n");
    fprintf(f, "%s/%s %s: %s\n", o->alg->name, o->v->name, verdict_name(o->verdict),
            o->reason[0] ? o->reason : "-");
    print_failure_cases(f, o);
  }
}

void print_summary(FILE *f, const struct outcome *out, size_t n, const struct run_meta *m,
                   uint64_t seed, int64_t run_id)
{
  /* the code under test's commit; gpuregress's own beside it where it is another */
  char gr[128];
  if (strcmp(m->gr_commit, m->commit) && (strncmp(m->gr_commit, m->commit, strlen(m->commit)) ||
                                          !m->dirty))
    gr_fmt(gr, sizeof gr, "gpuregress %s, commit %.12s", m->gr_version, m->gr_commit);
  else
    gr_fmt(gr, sizeof gr, "gpuregress %s", m->gr_version);
  fprintf(f, "\ngpuregress run %lld  seed %llu  %s  %s%s  (%s)\n", (long long)run_id,
          (unsigned long long)seed, m->gpu.ok ? m->gpu.info.name : "no GPU", m->commit,
          m->dirty ? "-dirty" : "", gr);
  fprintf(f, "%-11s %-20s %-10s %-8s %6s %6s %5s %5s %8s  %s\n", "algorithm", "variant", "kind",
          "verdict", "cases", "pass", "skip", "fail", "seconds", "to catch");
  for (size_t i = 0; i < n; i++) {
    const struct outcome *o = &out[i];
    char catch_txt[64] = "";
    if (folded_skip(o)) /* one line for all of them, below */
      continue;
    if (o->verdict == VERDICT_CAUGHT)
      gr_fmt(catch_txt, sizeof catch_txt, "%ld cases, %.2f s", o->cases_to_catch,
             o->seconds_to_catch);
    fprintf(f, "%-11s %-20s %-10s %-8s %6ld %6ld %5ld %5ld %8.1f  %s\n", o->alg->name, o->v->name,
            gr_variant_kind_name(o->v->kind), verdict_name(o->verdict), o->cases, o->passed,
            o->skipped, o->failed, o->seconds, catch_txt);
  }
  print_not_run(f, out, n);
  print_coverage(f, out, n);
  print_details(f, out, n);
}


