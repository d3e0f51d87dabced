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

#include "bench_phase.h"
#include "case.h"
#include "cli.h"
#include "options.h"
#include "run_options.h"
#include "gpus.h"
#include "fuzz_phase.h"
#include "registry.h"
#include "run_summary.h"
#include "progress.h"
#include "shard.h"
#include "runner.h"
#include "store.h"
#include "verdict.h"
#include "worker.h"

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
  const char *gpus_spec;  /* --gpus, or NULL: the one visible GPU */
  struct gpu_set gpus;    /* resolved from it (n 0: no lanes) */
  struct shard shard;     /* --shard K/N (count 0: none) */
  const char *night;      /* --night, or NULL: derived for a shard */
};

/* What execute carries from one step to the next. */
struct run_state {
  struct selection sel, night_sel; /* this shard's variants; the night's (the timing plan's) */
  char night[128];
  struct store *st;
  struct run_meta meta;
  int64_t run;
  struct night_progress np;
  struct outcome *out;
  long done; /* outcomes out[0..done) */
};

/* The selection, the GPUs, the seed and the night (a shard takes its part of the selection).
 * 0, or the exit code after a message. */
static int run_prepare(const char *cmd, struct run_args *ra, struct run_state *rs)
{
  char why[GR_WHY_LEN];
  if (select_variants(ra->filter, &rs->sel, why, sizeof why))
    return cli_usage_error(cmd, "%s", why);
  if (cli_check_tmpdir(cmd))
    return GR_EXIT_ENV;
  int r = ra->gpus_spec ? cli_gpus(cmd, ra->gpus_spec, &ra->gpus) : 0;
  if (r)
    return r;
  /* the shards of a night draw the same seed on every host: given, or from commit and date */
  if (!ra->seed_given && ra->shard.count)
    ra->seed = shard_night_seed(cli_build_commit());
  else if (!ra->seed_given)
    ra->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
  if (ra->night)
    gr_fmt(rs->night, sizeof rs->night, "%s", ra->night);
  else if (ra->shard.count)
    shard_night_id(rs->night, sizeof rs->night, cli_build_commit(), ra->seed);
  rs->night_sel = rs->sel; /* the night's whole selection: its timing plan is dealt */
  if (ra->shard.count) {
    size_t all = rs->sel.n;
    shard_select(&rs->sel, &ra->shard, ra->seed);
    printf("shard %d of %d (%s): %zu of %zu variants; night %s, seed %llu\n", ra->shard.index,
           ra->shard.count, ra->shard.source, rs->sel.n, all, rs->night,
           (unsigned long long)ra->seed);
    if (ra->limits) /* fuzz takes no --shard: the ranges stay paired with the variants */
      return cli_usage_error(cmd, "--shard splits a run, not one variant");
  }
  return 0;
}

/* The store opened and the run begun in it, with its night; the GPUs named. 0, or the exit
 * code after a message. */
static int run_open(const char *cmd, struct run_args *ra, struct run_state *rs, int argc,
                    char **argv)
{
  char why[GR_WHY_LEN];
  if (store_open(ra->db, &rs->st, why, sizeof why)) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    return GR_EXIT_USAGE;
  }
  collect_meta(&rs->meta, argc, argv, &ra->gpus, 1);
  struct run_info ri = run_info_from_meta(&rs->meta, ra->seed, ra->budget);
  ri.allow_no_gpu = ra->allow_no_gpu;
  rs->run = store_begin_run(rs->st, &ri, why, sizeof why);
  if (rs->run < 0 || store_set_night(rs->st, rs->run, rs->night[0] ? rs->night : NULL,
                                     ra->shard.index, ra->shard.count, (int)ra->gpus.n)) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, rs->run < 0 ? why : store_errmsg(rs->st));
    store_close(rs->st);
    rs->st = NULL;
    return GR_EXIT_USAGE;
  }
  if (ra->gpus.n) {
    printf("%zu GPU%s:", ra->gpus.n, ra->gpus.n > 1 ? "s" : "");
    for (size_t g = 0; g < ra->gpus.n; g++)
      printf(" %s%s%s", ra->gpus.slot[g].id, ra->gpus.slot[g].name[0] ? " " : "",
             ra->gpus.slot[g].name);
    printf("\n");
    fflush(stdout);
  }
  return 0;
}

/* The fuzzing phase (fuzz_phase.h) with the night's progress on stderr: lines on a pipe (CI
 * logs, also under --quiet), the bar on a terminal (not under --quiet); see progress.h. 0, a
 * store failure (*store_failed), or the exit code after a message. */
static int run_fuzz(const char *cmd, struct run_args *ra, struct run_state *rs, int *store_failed)
{
  struct runner_opts o = {
      .seed = ra->seed,
      .watchdog = ra->watchdog,
      .max_cases = ra->max_cases,
      .shrink_budget = ra->shrink_budget,
      .shrink = !ra->no_shrink,
      .progress = !ra->quiet && isatty(STDERR_FILENO),
      .log = ra->verbose ? stdout : NULL,
      .store = rs->st,
      .run_id = rs->run,
      .tick = progress_runner_tick,
      .tick_ctx = &rs->np,
  };
  int tty = isatty(STDERR_FILENO);
  const struct selection *plan = ra->shard.count ? &rs->night_sel : &rs->sel;
  double bench_s = ra->bench ? bench_phase_expected(rs->st, plan, ra->bench == 2, &ra->gpus,
                                                    &ra->shard, ra->seed)
                             : 0;
  progress_begin(&rs->np, tty && ra->quiet ? NULL : stderr, tty, rs->sel.n,
                 ra->max_cases ? 0 : ra->budget, bench_s);
  rs->out = calloc(rs->sel.n ? rs->sel.n : 1, sizeof *rs->out);
  if (!rs->out) {
    progress_end(&rs->np);
    return GR_EXIT_ENV;
  }
  struct fuzz_phase fp = {ra->db,  rs->st,     rs->run,          &o,         rs->sel.alg,
                          rs->sel.v, rs->sel.n, ra->limits,      &ra->gpus, rs->meta.gpu.ok,
                          ra->budget, &rs->np};
  char why[GR_WHY_LEN];
  rs->done = fuzz_phase_run(&fp, rs->out, store_failed, why, sizeof why);
  progress_end(&rs->np);
  if (rs->done < 0) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    return GR_EXIT_USAGE;
  }
  return 0;
}

/* What a script reads of the run (the status file, cli.h). */
static void run_status_lines(const struct run_args *ra, const struct run_state *rs)
{
  cli_status_set("run", "%lld", (long long)rs->run);
  cli_status_set("runner", "%s", gr_runner_name());
  cli_status_set("seed", "%llu", (unsigned long long)ra->seed);
  if (rs->night[0])
    cli_status_set("night", "%s", rs->night);
  if (ra->shard.count)
    cli_status_set("shard", "%d/%d", ra->shard.index, ra->shard.count);
}

/* The verdict (verdict.h) printed, and the exit code it gives: that of the verdict, as export
 * and plot will show it; an uncovered fixed variant fails the run under --strict-coverage. */
static int run_judge(const char *cmd, const struct run_args *ra, struct run_state *rs,
                     int n_uncovered, int rc)
{
  char why[GR_WHY_LEN];
  struct run_verdict *v = NULL;
  struct rv_opts vo = {.in_run = 1, .interrupted = runner_interrupted};
  store_commit(rs->st);
  if (run_verdict_build(rs->st, rs->run, &vo, &v, why, sizeof why) == 0) {
    rc = v->exit_code;
    printf("\nverdict: %s\n", v->summary);
  } else {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    if (runner_interrupted)
      rc = 130;
  }
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
  return rc;
}

/* After the fuzzing: the summary, the timing phase (its checks are in the verdict), the verdict
 * and the end of the run in the store. Returns the exit code. */
static int run_conclude(const char *cmd, struct run_args *ra, struct run_state *rs)
{
  int rc = GR_EXIT_OK, n_uncovered = 0;
  for (long i = 0; i < rs->done; i++) {
    n_uncovered += rs->out[i].uncovered[0] != 0;
    if (outcome_is_bad(&rs->out[i]) || (ra->strict_coverage && rs->out[i].uncovered[0]))
      rc = GR_EXIT_FAIL;
  }
  print_summary(stdout, rs->out, (size_t)rs->done, &rs->meta, ra->seed, rs->run);
  if (ra->bench && !runner_interrupted) {
    char commit[80];
    struct bench_opts o;
    bench_opts_default(&o);
    o.gpus = &ra->gpus;
    o.commit = gr_fmt(commit, sizeof commit, "%s%s", rs->meta.commit,
                      rs->meta.dirty ? "-dirty" : "");
    o.gr_version = rs->meta.gr_version;
    o.gr_commit = rs->meta.gr_commit;
    o.display = ra->quiet ? 0 : 1;
    bench_phase(rs->st, rs->run, ra->shard.count ? &rs->night_sel : &rs->sel, &o, ra->bench == 2,
                &ra->shard, ra->seed);
    if (store_write_failed(rs->st))
      return cli_store_failed(cmd, rs->st, rs->run);
  }
  if (runner_interrupted)
    printf("\ninterrupted: %ld of %zu variants finished\n", rs->done, rs->sel.n);
  rc = run_judge(cmd, ra, rs, n_uncovered, rc);
  if (store_finish_run(rs->st, rs->run, runner_interrupted ? "interrupted" : "finished", rc)) {
    fprintf(stderr, "gpuregress %s: cannot record the end of run %lld in '%s': %s\n", cmd,
            (long long)rs->run, ra->db, store_errmsg(rs->st));
    if (rc == GR_EXIT_OK)
      rc = GR_EXIT_USAGE;
  }
  return rc;
}

/* run and fuzz: parse done, this opens the store, fuzzes (fuzz_phase.h), reports. */
static int execute(const char *cmd, struct run_args *ra, int argc, char **argv)
{
  struct run_state *rs = calloc(1, sizeof *rs);
  if (!rs)
    return GR_EXIT_ENV;
  int store_failed = 0;
  int rc = run_prepare(cmd, ra, rs);
  if (!rc)
    rc = run_open(cmd, ra, rs, argc, argv);
  if (!rc) {
    runner_catch_signals();
    rc = run_fuzz(cmd, ra, rs, &store_failed);
  }
  if (!rc) {
    run_status_lines(ra, rs);
    /* a store failure: nothing more is printed (what is not stored is not reported) */
    rc = store_failed ? cli_store_failed(cmd, rs->st, rs->run) : run_conclude(cmd, ra, rs);
  }
  if (rs->st)
    store_close(rs->st);
  free(rs->out);
  free(rs);
  return rc;
}

#define RUN_MAX_CASES 1000000000 /* --cases: at most this many per variant */

/* the option ids: run_options.h */

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
  case OPT_GPUS: return cli_opt_text(cmd, "--gpus", optarg, 1024, &ra->gpus_spec);
  case OPT_NIGHT:
    if (cli_opt_text(cmd, "--night", optarg, CLI_TEXT_MAX, &ra->night))
      return GR_EXIT_USAGE;
    if (shard_night_valid(ra->night))
      return cli_usage_error(cmd, "--night '%s': 1 to 100 letters, digits, '.', '_', '-', ':' or "
                                  "'+'", ra->night);
    return 0;
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
  struct run_args ra;
  char why[GR_WHY_LEN];
  run_defaults(&ra);
  if (shard_default(&ra.shard, why, sizeof why))
    return cli_usage_error("run", "%s", why);
  int c;
  while ((c = cli_next(&cli_run_cmd, argc, argv)) != -1) {
    if (c == CLI_HELP)
      return cli_help(&cli_run_cmd);
    if (c == 'f') {
      if (cli_opt_text("run", "--filter", optarg, CLI_TEXT_MAX, &ra.filter))
        return GR_EXIT_USAGE;
      continue;
    }
    if (c == OPT_SHARD) {
      const char *spec;
      if (cli_opt_text("run", "--shard", optarg, 64, &spec))
        return GR_EXIT_USAGE;
      if (shard_parse(spec, &ra.shard, why, sizeof why))
        return cli_usage_error("run", "%s", why);
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
      if (!gr_alg_param(sel->alg[i], name, NULL) && many)
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
  struct run_args ra;
  run_defaults(&ra);
  int c;
  while ((c = cli_next(&cli_fuzz_cmd, argc, argv)) != -1) {
    if (c == CLI_HELP)
      return cli_help(&cli_fuzz_cmd);
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
