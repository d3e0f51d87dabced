/* The fuzzing commands: `run` (every selected variant within a budget, optionally followed by
 * the timing phase) and `fuzz` (one variant within parameter ranges); `repro` and `list` are in
 * cmd_repro.c. They choose the exit codes (README: 0 ok, 1 a check failed / a bug
 * escaped, 2 usage or input error, 3 environment); the runner below them returns verdicts and
 * statuses. */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "case.h"
#include "cli.h"
#include "registry.h"
#include "runner.h"
#include "store.h"
#include "verdict.h"
#include "worker.h"

/* ---- summary ------------------------------------------------------------------------------ */

static int outcome_is_bad(const struct outcome *o)
{
  return o->verdict == VERDICT_ESCAPED ||
         (o->v->kind != VARIANT_HISTORICAL && verdict_is_failure(o->verdict));
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

static void print_summary(FILE *f, const struct outcome *out, size_t n, const struct run_meta *m,
                          uint64_t seed, int64_t run_id)
{
  fprintf(f, "\ngpuregress run %lld  seed %llu  %s  %s\n", (long long)run_id,
          (unsigned long long)seed,
          m->gpu.ok ? m->gpu.info.name : "no GPU", m->commit);
  fprintf(f, "%-11s %-20s %-10s %-8s %6s %6s %5s %5s %8s  %s\n", "algorithm", "variant", "kind",
          "verdict", "cases", "pass", "skip", "fail", "seconds", "to catch");
  size_t not_run = 0;
  for (size_t i = 0; i < n; i++) {
    const struct outcome *o = &out[i];
    char catch_txt[64] = "";
    if (folded_skip(o)) { /* one line for all of them, below */
      not_run++;
      continue;
    }
    if (o->verdict == VERDICT_CAUGHT)
      gr_fmt(catch_txt, sizeof catch_txt, "%ld cases, %.2f s", o->cases_to_catch,
             o->seconds_to_catch);
    fprintf(f, "%-11s %-20s %-10s %-8s %6ld %6ld %5ld %5ld %8.1f  %s\n", o->alg->name, o->v->name,
            variant_kind_name(o->v->kind), verdict_name(o->verdict), o->cases, o->passed,
            o->skipped, o->failed, o->seconds, catch_txt);
  }
  /* variants that ran no case (no GPU, a driver too old): one line per reason, not rows of 0 */
  for (size_t i = 0; i < n && not_run; i++) {
    if (!folded_skip(&out[i]))
      continue;
    size_t k = 0, hist = 0, seen = 0;
    for (size_t j = 0; j < n; j++)
      if (folded_skip(&out[j]) && !strcmp(out[j].reason, out[i].reason)) {
        seen |= j < i;
        k++;
        hist += out[j].v->kind == VARIANT_HISTORICAL;
      }
    if (seen)
      continue;
    char hist_txt[96] = "";
    if (hist)
      gr_fmt(hist_txt, sizeof hist_txt, " (%zu of them historical: not run, so not caught)", hist);
    fprintf(f, "%zu variant%s not run%s: %s\n", k, k == 1 ? "" : "s", hist_txt,
            out[i].reason[0] ? out[i].reason : "-");
  }
  print_coverage(f, out, n);
  int details = 0;
  for (size_t i = 0; i < n; i++) {
    const struct outcome *o = &out[i];
    if (o->verdict == VERDICT_PASS || folded_skip(o) || (o->verdict == VERDICT_SKIP && i > 0 &&
                                       strcmp(out[i - 1].reason, o->reason) == 0 &&
                                       out[i - 1].verdict == VERDICT_SKIP))
      continue;
    if (!details++)
      fprintf(f, "\n");
    fprintf(f, "%s/%s %s: %s\n", o->alg->name, o->v->name, verdict_name(o->verdict),
            o->reason[0] ? o->reason : "-");
    if (o->shrunk_case[0]) {
      char repro[GR_CASE_TEXT_LEN + 64];
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
      }
    } else if (o->first_case[0]) {
      fprintf(f, "  case:   %s\n", o->first_case);
    }
  }
}

/* Store the outcomes and commit. 0 ok; -1 the store failed (store_errmsg says why). */
static int store_outcomes(struct store *st, int64_t run, const struct outcome *out, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const struct outcome *o = &out[i];
    char repro[GR_CASE_TEXT_LEN + 64] = "";
    struct gr_case sc;
    char why[GR_WHY_LEN];
    const char *best = o->shrunk_case[0] ? o->shrunk_case : o->first_case;
    if (best[0] && case_parse(best, &sc, why, sizeof why) == 0)
      runner_reproducer(&sc, o->v, o->shrunk_case[0] ? o->repeat : 0, repro, sizeof repro);
    struct outcome_row row = {o->alg->name, o->v->name, variant_kind_name(o->v->kind), o->verdict,
                              o->cases, o->passed, o->failed, o->skipped, o->errors, o->seconds,
                              o->cases_to_catch, o->seconds_to_catch, o->reason,
                              o->first_case[0] ? o->first_case : NULL,
                              o->shrunk_case[0] ? o->shrunk_case : NULL, repro[0] ? repro : NULL};
    if (store_add_outcome(st, run, &row))
      break; /* the commit below fails and says why */
    for (size_t r = 0; r < o->alg->n_regimes && r < GR_MAX_REGIMES; r++)
      if ((o->cov.applies >> r & 1) &&
          store_add_coverage(st, run, o->alg->name, o->v->name, o->alg->regimes[r].name,
                             o->cov.cases[r]))
        break; /* the same */
  }
  return store_commit(st);
}

/* ---- run / fuzz --------------------------------------------------------------------------- */

struct run_args {
  const char *filter, *db;
  double budget, watchdog, shrink_budget;
  uint64_t seed;
  int seed_given, verbose, quiet, no_shrink;
  int strict_coverage; /* an uncovered fixed variant fails the run */
  int allow_no_gpu; /* finding no GPU is not an environment failure (exit 0, not 3) */
  int bench; /* 0 none, 1 the timing phase after fuzzing, 2 its quick form */
  long max_cases;
  const struct case_limits *limits; /* fuzz: the ranges of each selected variant, or NULL */
};

static int execute(const char *cmd, struct run_args *ra, int argc, char **argv)
{
  char why[GR_WHY_LEN];
  struct selection sel;
  if (select_variants(ra->filter, &sel, why, sizeof why))
    return cli_usage_error(cmd, "%s", why);
  if (!ra->seed_given)
    ra->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
  struct store *st = NULL;
  if (store_open(ra->db, &st, why, sizeof why)) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    return GR_EXIT_USAGE;
  }
  struct run_meta meta;
  collect_meta(&meta, argc, argv);
  struct run_info ri = run_info_from_meta(&meta, ra->seed, ra->budget);
  ri.allow_no_gpu = ra->allow_no_gpu;
  int64_t run = store_begin_run(st, &ri, why, sizeof why);
  if (run < 0) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    store_close(st);
    return GR_EXIT_USAGE;
  }
  runner_catch_signals();
  struct runner_opts o = {
      .seed = ra->seed,
      .watchdog = ra->watchdog,
      .max_cases = ra->max_cases,
      .shrink_budget = ra->shrink_budget,
      .shrink = !ra->no_shrink,
      .progress = !ra->quiet && isatty(STDERR_FILENO),
      .log = ra->verbose ? stdout : NULL,
      .store = st,
      .run_id = run,
  };
  struct outcome *out = calloc(sel.n, sizeof *out);
  if (!out) {
    store_close(st);
    return GR_EXIT_ENV;
  }
  /* the budget is shared by the variants that can run here: without a GPU the GPU variants
   * skip at once and take no share */
  size_t active = 0;
  for (size_t i = 0; i < sel.n; i++)
    active += meta.gpu.ok || !(sel.v[i]->flags & VARIANT_GPU);
  double t0 = now_seconds();
  size_t done = 0;
  int store_failed = 0;
  for (size_t i = 0; i < sel.n && !runner_interrupted && !store_failed; i++) {
    int runs_here = meta.gpu.ok || !(sel.v[i]->flags & VARIANT_GPU);
    double left = ra->budget - (now_seconds() - t0);
    double share = runs_here && active ? left / (double)active : 0;
    active -= runs_here;
    o.limits = ra->limits && ra->limits[i].n ? &ra->limits[i] : NULL;
    runner_fuzz_variant(&o, sel.alg[i], sel.v[i], share > 0 ? share : 0, &out[i]);
    store_failed = out[i].store_failed || store_outcomes(st, run, &out[i], 1);
    done++;
  }
  cli_status_set("run", "%lld", (long long)run);
  cli_status_set("seed", "%llu", (unsigned long long)ra->seed);
  if (store_failed) { /* nothing more is printed: what is not stored is not reported */
    int rc = cli_store_failed(cmd, st, run);
    store_close(st);
    free(out);
    return rc;
  }
  int rc = GR_EXIT_OK, n_uncovered = 0;
  for (size_t i = 0; i < done; i++) {
    n_uncovered += out[i].uncovered[0] != 0;
    if (outcome_is_bad(&out[i]) || (ra->strict_coverage && out[i].uncovered[0]))
      rc = GR_EXIT_FAIL;
  }
  print_summary(stdout, out, done, &meta, ra->seed, run);
  if (ra->bench && !runner_interrupted) {
    bench_phase(st, run, &sel, ra->bench == 2, ra->quiet); /* its checks are in the verdict */
    if (store_write_failed(st)) {
      rc = cli_store_failed(cmd, st, run);
      store_close(st);
      free(out);
      return rc;
    }
  }
  if (runner_interrupted)
    printf("\ninterrupted: %zu of %zu variants finished\n", done, sel.n);
  /* the exit code is the verdict's (verdict.h), as export and plot will show it */
  struct run_verdict *v = NULL;
  struct rv_opts vo = {.in_run = 1, .interrupted = runner_interrupted};
  store_commit(st);
  if (run_verdict_build(st, run, &vo, &v, why, sizeof why) == 0) {
    rc = v->exit_code;
    printf("\nverdict: %s\n", v->summary);
  } else {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    if (runner_interrupted)
      rc = 130;
  }
  /* an uncovered fixed variant: a warning, or with --strict-coverage a failure of the run */
  if (ra->strict_coverage && n_uncovered && rc == GR_EXIT_OK) {
    rc = GR_EXIT_FAIL;
    printf("coverage: FAILED under --strict-coverage: %d fixed variant%s left a regime unreached\n",
           n_uncovered, n_uncovered > 1 ? "s" : "");
  }
  char unc[64] = "";
  if (n_uncovered)
    gr_fmt(unc, sizeof unc, ", %d uncovered%s", n_uncovered,
           ra->strict_coverage ? " (strict: the run fails)" : "");
  const char *word = rc == GR_EXIT_OK ? "ok" : rc == GR_EXIT_FAIL ? "FAILED"
                     : rc == GR_EXIT_ENV ? "no GPU" : "interrupted";
  printf("result: %s (%zu passed, %zu historical caught, %zu skipped, %zu failed or escaped%s) exit "
         "%d\n",
         word, v ? v->passed : 0, v ? v->caught : 0, v ? v->skipped : 0, v ? v->failed : 0, unc, rc);
  cli_status_set("uncovered", "%d", n_uncovered);
  cli_status_set("result", "%s", rc == GR_EXIT_OK ? "ok" : rc == GR_EXIT_FAIL ? "failed"
                                 : rc == GR_EXIT_ENV ? "no_gpu" : "interrupted");
  if (v)
    cli_status_set("verdict", "%s", v->summary);
  run_verdict_free(v);
  if (store_finish_run(st, run, runner_interrupted ? "interrupted" : "finished", rc)) {
    fprintf(stderr, "gpuregress %s: cannot record the end of run %lld in '%s': %s\n", cmd,
            (long long)run, ra->db, store_errmsg(st));
    if (rc == GR_EXIT_OK)
      rc = GR_EXIT_USAGE;
  }
  store_close(st);
  free(out);
  return rc;
}

#define RUN_MAX_CASES 1000000000 /* --cases: at most this many per variant */

enum {
  OPT_WATCHDOG = 256, OPT_NO_SHRINK, OPT_SHRINK_BUDGET, OPT_QUIET, OPT_BENCH, OPT_BENCH_QUICK,
  OPT_ALLOW_NO_GPU, OPT_STRICT_COVERAGE
};

/* Options common to run and fuzz. Returns 0 if handled, -1 if not ours, else the exit code
 * after a message naming the option and its bad value. */
static int common_option(const char *cmd, int c, struct run_args *ra, char **argv)
{
  uint64_t n;
  switch (c) {
  case 'b': return cli_opt_double(cmd, "--budget", optarg, 0, 1e7, &ra->budget);
  case 's': ra->seed_given = 1; return cli_opt_u64(cmd, "--seed", optarg, 0, UINT64_MAX, &ra->seed);
  case 'd': return cli_opt_text(cmd, "--db", optarg, CLI_TEXT_MAX, &ra->db);
  case 'v': ra->verbose = 1; return 0;
  case OPT_QUIET: ra->quiet = 1; return 0;
  case OPT_WATCHDOG: return cli_opt_double(cmd, "--watchdog", optarg, 0.1, 1e6, &ra->watchdog);
  case OPT_SHRINK_BUDGET:
    return cli_opt_double(cmd, "--shrink-budget", optarg, 0, 1e6, &ra->shrink_budget);
  case OPT_NO_SHRINK: ra->no_shrink = 1; return 0;
  case OPT_BENCH: ra->bench = 1; return 0;
  case OPT_BENCH_QUICK: ra->bench = 2; return 0;
  case OPT_ALLOW_NO_GPU: ra->allow_no_gpu = 1; return 0;
  case OPT_STRICT_COVERAGE: ra->strict_coverage = 1; return 0;
  case 'n':
    if (cli_opt_u64(cmd, "--cases", optarg, 1, RUN_MAX_CASES, &n))
      return GR_EXIT_USAGE;
    ra->max_cases = (long)n;
    ra->budget = 1e7;
    return 0;
  case ':':
  case '?': return cli_opt_error(cmd, c, argv);
  default: return -1;
  }
}

#define COMMON_LONG_OPTS                                                                           \
  {"budget", required_argument, NULL, 'b'}, {"seed", required_argument, NULL, 's'},               \
      {"db", required_argument, NULL, 'd'}, {"verbose", no_argument, NULL, 'v'},                  \
      {"quiet", no_argument, NULL, OPT_QUIET}, {"watchdog", required_argument, NULL, OPT_WATCHDOG}, \
      {"no-shrink", no_argument, NULL, OPT_NO_SHRINK},                                            \
      {"shrink-budget", required_argument, NULL, OPT_SHRINK_BUDGET},                              \
      {"cases", required_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'},                  \
      {"bench", no_argument, NULL, OPT_BENCH}, {"bench-quick", no_argument, NULL, OPT_BENCH_QUICK}, \
      {"allow-no-gpu", no_argument, NULL, OPT_ALLOW_NO_GPU},                                      \
      {"strict-coverage", no_argument, NULL, OPT_STRICT_COVERAGE}

static const char common_help[] =
    "  -b, --budget SECONDS    time for the whole fuzzing phase (default %g)\n"
    "  -n, --cases N           N cases per variant instead of a time budget\n"
    "  -s, --seed N            seed of the case stream (default: from the clock, printed)\n"
    "  -d, --db FILE           SQLite database (default " STORE_DEFAULT_PATH ")\n"
    "      --watchdog SECONDS  a case running longer is a timeout (default 60)\n"
    "      --shrink-budget S   seconds to shrink one failure (default 30)\n"
    "      --no-shrink         report the first failing case as it is\n"
    "  -v, --verbose           one line per case once it is stored\n"
    "      --quiet             no progress line\n"
    "      --bench             then the timing phase (as 'gpuregress bench') in the same run\n"
    "      --bench-quick       the same with 'bench --quick'\n"
    "      --allow-no-gpu      without a usable GPU, pass on the CPU variants alone (exit 0)\n"
    "                          instead of exit 3 (CPU-only development machines)\n"
    "      --strict-coverage   a fixed variant with a regime no case reached fails the run\n"
    "                          (without it: an 'uncovered' warning)\n";

static void run_defaults(struct run_args *ra)
{
  memset(ra, 0, sizeof *ra);
  ra->db = STORE_DEFAULT_PATH;
  ra->budget = 60;
  ra->watchdog = 60;
  ra->shrink_budget = 30;
}

int cmd_run(int argc, char **argv)
{
  static const struct option opts[] = {{"filter", required_argument, NULL, 'f'}, COMMON_LONG_OPTS,
                                       {0, 0, 0, 0}};
  struct run_args ra;
  run_defaults(&ra);
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":f:n:b:s:d:vh", opts, NULL)) != -1) {
    if (c == 'h') {
      printf("usage: gpuregress run [--filter ALG[/VARIANT][,...]] [options]\n\n"
             "Fuzz every selected variant within the budget: fixed variants must pass every case,\n"
             "historical ones must be caught. Verdicts, cases and shrunk reproducers go to the\n"
             "database; a summary table goes to stdout, then the run's verdict. Exit 0 ok, 1 a fixed\n"
             "variant failed or a historical bug escaped, 2 usage or database error, 3 GPU variants\n"
             "were selected and none could run (no driver, no device; see --allow-no-gpu).\n\n"
             "  -f, --filter PATTERNS   ALG or ALG/VARIANT, shell wildcards, comma-separated\n");
      printf(common_help, 60.0);
      return 0;
    }
    if (c == 'f') {
      if (cli_opt_text("run", "--filter", optarg, CLI_TEXT_MAX, &ra.filter))
        return GR_EXIT_USAGE;
      continue;
    }
    int r = common_option("run", c, &ra, argv);
    if (r)
      return r < 0 ? cli_opt_error("run", '?', argv) : r;
  }
  if (optind < argc)
    return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
  return execute("run", &ra, argc, argv);
}

/* The fuzz ranges ("NAME=LO..HI", "NAME=VALUE") resolved for each selected variant by parameter
 * name, lims[i] for sel->v[i]: a range applies to every selected algorithm that has its
 * parameter and must be valid for each of them (values and bounds are checked per algorithm); a
 * range whose parameter no selected algorithm has is an error, as is a parameter given twice or
 * ranges within which an algorithm can make no valid case. 0 ok, else the exit code after a
 * message. */
static int resolve_ranges(const struct selection *sel, char **specs, int n,
                          struct case_limits *lims)
{
  char why[GR_WHY_LEN];
  int many = sel->n > 0 && sel->alg[0] != sel->alg[sel->n - 1];
  for (int k = 0; k < n; k++) {
    char name[64];
    size_t name_len = strcspn(specs[k], "=");
    if (name_len == 0 || name_len >= sizeof name || !specs[k][name_len])
      return cli_usage_error("fuzz", "malformed range '%s': expected NAME=LO..HI or NAME=VALUE",
                             specs[k]);
    gr_fmt(name, sizeof name, "%.*s", (int)name_len, specs[k]);
    int used = 0;
    for (size_t i = 0; i < sel->n; i++) {
      if (!alg_param(sel->alg[i], name, NULL) && many)
        continue; /* another selected algorithm has it (checked below) */
      used = 1;
      if (case_limits_add(sel->alg[i], &lims[i], specs[k], why, sizeof why))
        return cli_usage_error("fuzz", "%s%s%s", many ? sel->alg[i]->name : "", many ? ": " : "",
                               why);
    }
    if (!used)
      return cli_usage_error("fuzz", "no selected algorithm has a parameter '%s' (see 'gpuregress "
                                     "list ALG')", name);
  }
  for (size_t i = 0; i < sel->n; i++) {
    struct gr_case c;
    if (!lims[i].n || (i > 0 && sel->alg[i] == sel->alg[i - 1]))
      continue;
    if (case_generate(sel->alg[i], 0, 0, &lims[i], &c)) {
      case_validate(&c, why, sizeof why);
      return cli_usage_error("fuzz", "no valid case of '%s' within the ranges given (%s)",
                             sel->alg[i]->name, why);
    }
  }
  return 0;
}

int cmd_fuzz(int argc, char **argv)
{
  static const struct option opts[] = {COMMON_LONG_OPTS, {0, 0, 0, 0}};
  struct run_args ra;
  run_defaults(&ra);
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":n:b:s:d:vh", opts, NULL)) != -1) {
    if (c == 'h') {
      printf("usage: gpuregress fuzz ALG/VARIANT [--cases N] [options] [NAME=LO..HI | NAME=VALUE ...]\n\n"
             "Fuzz one variant, optionally inside parameter ranges (see 'gpuregress list ALG' for\n"
             "the parameters). Stops at the first failure and shrinks it. Exit codes as for run.\n\n");
      printf(common_help, 60.0);
      return 0;
    }
    int r = common_option("fuzz", c, &ra, argv);
    if (r)
      return r < 0 ? cli_opt_error("fuzz", '?', argv) : r;
  }
  if (optind >= argc)
    return cli_usage_error("fuzz", "missing ALG/VARIANT");
  const char *target = argv[optind++];
  char why[GR_WHY_LEN];
  struct selection sel;
  if (!strchr(target, '/'))
    return cli_usage_error("fuzz", "'%s' names no variant: use ALG/VARIANT", target);
  if (select_variants(target, &sel, why, sizeof why))
    return cli_usage_error("fuzz", "%s", why);
  ra.filter = target;
  struct case_limits *lims = calloc(sel.n, sizeof *lims);
  if (!lims)
    return GR_EXIT_ENV;
  int rc = resolve_ranges(&sel, argv + optind, argc - optind, lims);
  ra.limits = lims;
  if (!rc)
    rc = execute("fuzz", &ra, argc, argv);
  free(lims);
  return rc;
}
