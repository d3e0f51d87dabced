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
#include "options.h"
#include "run_options.h"
#include "gpus.h"
#include "fuzz_lanes.h"
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

/* rh[i] = 1 when variant i can run here (a GPU is there, or it needs none); returns rh */
static int *runs_here_fill(int *rh, const struct selection *sel, const struct run_meta *m)
{
  for (size_t i = 0; i < sel->n; i++)
    rh[i] = m->gpu.ok || !(sel->v[i]->flags & GR_VARIANT_GPU);
  return rh;
}

static int execute(const char *cmd, struct run_args *ra, int argc, char **argv)
{
  char why[GR_WHY_LEN];
  struct selection sel;
  if (select_variants(ra->filter, &sel, why, sizeof why))
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
  char night[128] = "";
  if (ra->night)
    gr_fmt(night, sizeof night, "%s", ra->night);
  else if (ra->shard.count)
    shard_night_id(night, sizeof night, cli_build_commit(), ra->seed);
  struct selection night_sel = sel; /* the night's whole selection: its timing plan is dealt */
  if (ra->shard.count) {
    size_t all = sel.n;
    shard_select(&sel, &ra->shard, ra->seed);
    printf("shard %d of %d (%s): %zu of %zu variants; night %s, seed %llu\n", ra->shard.index,
           ra->shard.count, ra->shard.source, sel.n, all, night, (unsigned long long)ra->seed);
    if (ra->limits) /* fuzz takes no --shard: the ranges stay paired with the variants */
      return cli_usage_error(cmd, "--shard splits a run, not one variant");
  }
  struct store *st = NULL;
  if (store_open(ra->db, &st, why, sizeof why)) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    return GR_EXIT_USAGE;
  }
  struct run_meta meta;
  collect_meta(&meta, argc, argv, &ra->gpus, 1);
  struct run_info ri = run_info_from_meta(&meta, ra->seed, ra->budget);
  ri.allow_no_gpu = ra->allow_no_gpu;
  int64_t run = store_begin_run(st, &ri, why, sizeof why);
  if (run < 0 || store_set_night(st, run, night[0] ? night : NULL, ra->shard.index,
                                 ra->shard.count, (int)ra->gpus.n)) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, run < 0 ? why : store_errmsg(st));
    store_close(st);
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
  /* the night's progress on stderr: lines on a pipe (CI logs, also under --quiet), the bar on a
   * terminal (not under --quiet); see progress.h */
  struct night_progress np;
  int tty = isatty(STDERR_FILENO);
  double bench_s = ra->bench ? bench_phase_expected(st, ra->shard.count ? &night_sel : &sel,
                                                    ra->bench == 2, &ra->gpus, &ra->shard, ra->seed)
                             : 0;
  progress_begin(&np, tty && ra->quiet ? NULL : stderr, tty, sel.n, ra->max_cases ? 0 : ra->budget,
                 bench_s);
  o.tick = progress_runner_tick;
  o.tick_ctx = &np;
  struct outcome *out = calloc(sel.n, sizeof *out);
  if (!out) {
    progress_end(&np);
    store_close(st);
    return GR_EXIT_ENV;
  }
  /* the budget is shared by the variants that can run here: without a GPU the GPU variants
   * skip at once and take no share */
  size_t active = 0;
  for (size_t i = 0; i < sel.n; i++)
    active += meta.gpu.ok || !(sel.v[i]->flags & GR_VARIANT_GPU);
  double t0 = now_seconds();
  size_t done = 0;
  int store_failed = 0;
  /* fuzzing shares its GPU with other fuzzing jobs, never with a benchmark being timed
   * (gpus.h): on one GPU the lock is held here, on several by each lane */
  int gpu_lock = -1;
  struct gpu_set vis;
  if (!ra->gpus.n && meta.gpu.ok && gpus_list(&vis, why, sizeof why) == 0 && vis.n)
    gpu_lock = gpus_lock(&vis.slot[0], 0);
  if (ra->gpus.n) {
    int *runs_here = calloc(sel.n ? sel.n : 1, sizeof *runs_here);
    const struct case_limits **lims = calloc(sel.n ? sel.n : 1, sizeof *lims);
    for (size_t i = 0; lims && i < sel.n; i++)
      lims[i] = ra->limits && ra->limits[i].n ? &ra->limits[i] : NULL;
    struct fuzz_lanes_job fj = {ra->db, &ra->gpus, ra->budget, lims,
                                runs_here ? runs_here_fill(runs_here, &sel, &meta) : NULL, &np};
    int bad = !runs_here || !lims || runner_fuzz_lanes(&fj, st, &o, sel.alg, sel.v, sel.n, out, why,
                                                        sizeof why);
    free(lims);
    if (bad) {
      progress_end(&np);
      fprintf(stderr, "gpuregress %s: %s\n", cmd, runs_here ? why : "out of memory");
      free(runs_here);
      free(out);
      store_close(st);
      return GR_EXIT_USAGE;
    }
    free(runs_here);
    for (; done < sel.n && !store_failed; done++)
      store_failed = out[done].store_failed || store_outcomes(st, run, &out[done], 1);
  }
  if (!ra->gpus.n) {
    /* historical variants first (runner_order); the outcomes stay in selection order */
    size_t order[sizeof sel.v / sizeof *sel.v];
    runner_order(sel.v, sel.n, order);
    for (size_t k = 0; k < sel.n && !runner_interrupted && !store_failed; k++) {
      size_t i = order[k];
      int runs_here = meta.gpu.ok || !(sel.v[i]->flags & GR_VARIANT_GPU);
      double left = ra->budget - (now_seconds() - t0);
      double share = runs_here && active ? left / (double)active : 0;
      active -= runs_here;
      o.limits = ra->limits && ra->limits[i].n ? &ra->limits[i] : NULL;
      runner_fuzz_variant(&o, sel.alg[i], sel.v[i], share > 0 ? share : 0, &out[i]);
      progress_variant(&np, &out[i], "");
      store_failed = out[i].store_failed || store_outcomes(st, run, &out[i], 1);
      done++;
    }
    /* what follows reads out[0 .. done): the finished ones (all, unless interrupted or the
     * store failed), kept in selection order */
    size_t kept = 0;
    for (size_t i = 0; i < sel.n; i++)
      if (out[i].alg)
        out[kept++] = out[i];
    done = kept;
  }
  progress_end(&np);
  if (gpu_lock >= 0)
    close(gpu_lock);
  cli_status_set("run", "%lld", (long long)run);
  cli_status_set("runner", "%s", gr_runner_name());
  cli_status_set("seed", "%llu", (unsigned long long)ra->seed);
  if (night[0])
    cli_status_set("night", "%s", night);
  if (ra->shard.count)
    cli_status_set("shard", "%d/%d", ra->shard.index, ra->shard.count);
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
    /* its checks are in the verdict */
    bench_phase(st, run, ra->shard.count ? &night_sel : &sel, &meta, ra->bench == 2, ra->quiet,
                &ra->gpus, &ra->shard, ra->seed);
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
