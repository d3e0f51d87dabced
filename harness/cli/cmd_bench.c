/* `gpuregress bench`: the command line of the timing layer (bench.h): parses, opens the store,
 * begins the run, times it (bench_session, bench_phase.h) and prints the result line; then
 * --against (bench_against). The parent stays CUDA-free: the benchmarks run in a child process. */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_phase.h"
#include "cli.h"
#include "options.h"

enum {
  OPT_SIZES = 256, OPT_CASE, OPT_QUICK, OPT_HOT, OPT_MAX_TIME, OPT_NOISE, OPT_MIN_SAMPLES,
  OPT_MAX_SAMPLES, OPT_ROUNDS, OPT_JSON, OPT_WATCHDOG, OPT_QUIET, OPT_SEED, OPT_GPUS, OPT_AGAINST
};

static const struct cli_opt bench_options[] = {
    {"sizes", OPT_SIZES, 0, "LIST", CLI_NONE, NULL,
     "indices into each algorithm's sweep, 0 = smallest: 0,2-3 (the sweep's real-data cases\n"
     "come last: left out, with the reason, where their dataset is not fetched:\n"
     "scripts/datasets)"},
    {"case", OPT_CASE, 0, "'TEXT'", CLI_NONE, NULL,
     "time this case (text as printed by run) instead of the sweep; repeatable"},
    {"quick", OPT_QUICK, 0, NULL, CLI_NONE, NULL,
     "the two smallest sizes per algorithm and its real-data cases, a 0.25 s cap (gpu-check)"},
    {"hot", OPT_HOT, 0, NULL, CLI_NONE, NULL,
     "keep the L2 warm and batch launches into samples of ~0.1 ms"},
    {"max-time", OPT_MAX_TIME, 0, "S", CLI_NONE, NULL,
     "sampling cap per benchmark in seconds (default 1)"},
    {"noise", OPT_NOISE, 0, "F", CLI_NONE, NULL,
     "target relative noise of the median (default 0.005)"},
    {"min-samples", OPT_MIN_SAMPLES, 0, "N", CLI_NONE, NULL, "(default 30)"},
    {"max-samples", OPT_MAX_SAMPLES, 0, "N", CLI_NONE, NULL, "(default 10000)"},
    {"rounds", OPT_ROUNDS, 0, "N", CLI_NONE, NULL,
     "set the variant up N times, a share of the budgets each, and pool the samples (default\n"
     "3; 1-16): a state's own speed (where its buffers landed) does not become the run's\n"
     "median; fewer where 3 samples a round (6 in all) would not fit the cap"},
    {"watchdog", OPT_WATCHDOG, 0, "S", CLI_NONE, NULL,
     "a benchmark silent this long is a timeout (default 300; the wait for a GPU that another\n"
     "gpuregress job holds is not counted)"},
    CLI_DB_OPT,
    {"json", OPT_JSON, 0, "FILE", CLI_FILE, NULL,
     "Google Benchmark's JSON (times in microseconds: real_time the GPU median, cpu_time the\n"
     "host's CPU time per launch; context: GPU, driver, runtime, commit, clocks), written whole\n"
     "at the end: a benchmark that crashed is an entry with error_occurred.\n"
     "--benchmark_format=json writes the same to stdout (the summary then goes to stderr)"},
    {"quiet", OPT_QUIET, 0, NULL, CLI_NONE, NULL,
     "no Google Benchmark table on stderr, only the summary"},
    {"gpus", OPT_GPUS, 0, "all|N|LIST", CLI_NONE, NULL,
     "the GPUs of the host to spread the benchmarks over (LIST: indices or UUIDs); each\n"
     "(algorithm, case) is timed wholly on one GPU, never beside another gpuregress job on it;\n"
     "every timing row records its GPU (model, UUID) and host. Default: the one visible GPU"},
    {"against", OPT_AGAINST, 0, "RUN|FILE", CLI_FILE, NULL,
     "then compare what was timed with RUN of this database (or the latest run of the\n"
     "gpuregress database FILE on this GPU model): per benchmark base and new median, ratio, p\n"
     "and same / faster / slower / unsure as compare judges them; a slower one exits 1 (the\n"
     "reproducer of a slower row of the verdict is such a command)"},
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_bench_cmd = {
    .name = "bench",
    .synopsis = "[ALG[/VARIANT][,...]] [options] [--benchmark_* flags]",
    .about =
        "Time every GPU variant (fixed, historical, peer) of the selected algorithms (ALG[/VARIANT],\n"
        "shell wildcards, comma-separated; default: every algorithm) over each algorithm's size\n"
        "sweep, through Google Benchmark: CUDA events around the launches, warm-up discarded, L2\n"
        "flushed before every sample (a buffer of twice the L2 written outside the timed region),\n"
        "samples until the relative noise of the median is under the target or the time cap is\n"
        "spent, the SM clock read with each sample (NVML, when the driver has it). After the\n"
        "timing loop the output is checked again: fixed variants must still pass. Every sample\n"
        "goes to the database ('samples'), summaries to 'timings'; the table shows the median,\n"
        "throughput, % of the device-to-device copy bandwidth measured in the same run (bytes\n"
        "read + written) and the ratio to the peer variant. The benchmarks run in a child\n"
        "process: this one never initialises CUDA, and a crash or hang costs one benchmark.",
    .opts = bench_options,
    .after =
        "--benchmark_*: Google Benchmark's own flags, e.g. --benchmark_filter=REGEX (names are\n"
        "ALG/VARIANT/param=value/...), passed to it untouched.\n"
        "\n"
        "Exit 0 ok, 1 a fixed or peer variant's output was wrong after timing or it crashed (or,\n"
        "with --against, a benchmark is slower), 2 usage or database error, 3 no CUDA device.\n"
        "Test-only: GR_TEST_SLOWDOWN='ALG/VARIANT=1.2' makes a variant's samples ~20% longer (a\n"
        "spin kernel after each launch).",
    .operand = CLI_TARGET,
};

/* What the command line of bench gives. */
struct bench_args {
  struct bench_opts o;
  const char *db, *sizes, *gpus_spec, *against, *filter;
  const char **cases; /* [n_cases] */
  size_t n_cases;
  int quick, max_time_given, json_stdout;
  struct gpu_set gpus;
};

/* One option of the table (options.c). 0, or the exit code after a message. */
static int take_option(int c, struct bench_args *ba, char **rest)
{
  struct bench_opts *o = &ba->o;
  uint64_t u;
  switch (c) {
  case OPT_SIZES: return cli_opt_text("bench", "--sizes", optarg, CLI_TEXT_MAX, &ba->sizes);
  case OPT_CASE:
    return cli_opt_text("bench", "--case", optarg, CLI_TEXT_MAX, &ba->cases[ba->n_cases++]);
  case OPT_QUICK: ba->quick = 1; return 0;
  case OPT_HOT: o->hot = 1; return 0;
  case OPT_MAX_TIME:
    ba->max_time_given = 1;
    return cli_opt_double("bench", "--max-time", optarg, 0.001, 3600, &o->max_time);
  case OPT_NOISE: return cli_opt_double("bench", "--noise", optarg, 1e-6, 1, &o->noise);
  case OPT_MIN_SAMPLES:
  case OPT_MAX_SAMPLES:
    if (cli_opt_u64("bench", c == OPT_MIN_SAMPLES ? "--min-samples" : "--max-samples", optarg, 3,
                    100000000, &u))
      return GR_EXIT_USAGE;
    *(c == OPT_MIN_SAMPLES ? &o->min_samples : &o->max_samples) = (long)u;
    return 0;
  case OPT_ROUNDS:
    if (cli_opt_u64("bench", "--rounds", optarg, 1, 16, &u))
      return GR_EXIT_USAGE;
    o->rounds = (int)u;
    return 0;
  case OPT_WATCHDOG: return cli_opt_double("bench", "--watchdog", optarg, 1, 1e6, &o->watchdog);
  case 'd': return cli_opt_text("bench", "--db", optarg, CLI_TEXT_MAX, &ba->db);
  case OPT_JSON: return cli_opt_text("bench", "--json", optarg, CLI_TEXT_MAX, &o->json);
  case OPT_QUIET: o->display = 0; return 0;
  case OPT_GPUS: return cli_opt_text("bench", "--gpus", optarg, 1024, &ba->gpus_spec);
  case OPT_AGAINST: return cli_opt_text("bench", "--against", optarg, CLI_TEXT_MAX, &ba->against);
  default: return cli_opt_error("bench", c, rest);
  }
}

/* The options (Google Benchmark's flags go to the child untouched, but for its JSON on stdout,
 * which the parent writes: whole, valid after a crash, nothing else on stdout), their checks
 * and the filter. 0, -1 (--help printed: exit 0), or the exit code after a message. */
static int parse_args(int argc, char **argv, char **gb, char **rest, struct bench_args *ba)
{
  int n_rest = 0, c, rc;
  for (int i = 0; i < argc; i++) {
    if (i > 0 && strcmp(argv[i], "--benchmark_format=json") == 0)
      ba->json_stdout = 1;
    else if (i > 0 && strncmp(argv[i], "--benchmark_", 12) == 0)
      gb[ba->o.n_gb_args++] = argv[i];
    else
      rest[n_rest++] = argv[i];
  }
  ba->o.gb_args = gb;
  optind = 1;
  while ((c = cli_next(&cli_bench_cmd, n_rest, rest)) != -1) {
    if (c == CLI_HELP) {
      cli_help(&cli_bench_cmd);
      return -1;
    }
    if ((rc = take_option(c, ba, rest)) != 0)
      return rc;
  }
  if (ba->quick && !ba->max_time_given)
    ba->o.max_time = 0.25;
  if (ba->json_stdout && ba->o.json)
    return cli_usage_error("bench", "--json FILE and --benchmark_format=json: choose one");
  if (ba->json_stdout) {
    ba->o.json = "-";
    ba->o.display = 0;
  }
  if (ba->o.max_samples < ba->o.min_samples)
    return cli_usage_error("bench", "--max-samples %ld is below --min-samples %ld",
                           ba->o.max_samples, ba->o.min_samples);
  if (ba->gpus_spec && (rc = cli_gpus("bench", ba->gpus_spec, &ba->gpus)) != 0)
    return rc;
  ba->o.gpus = ba->gpus.n ? &ba->gpus : NULL;
  if (optind < n_rest)
    ba->filter = rest[optind++];
  if (optind < n_rest)
    return cli_usage_error("bench", "unexpected argument '%s' (join patterns with commas)",
                           rest[optind]);
  return 0;
}

/* The run of the plan in the store: begun, timed (bench_and_report), the GPU that timed
 * recorded, finished, the result line printed. Returns the exit code. */
static int bench_run(struct store *st, struct bench_plan *p, struct bench_args *ba, int argc,
                     char **argv, int64_t *run_out)
{
  char why[GR_WHY_LEN], commit[80];
  struct run_meta meta;
  /* the benchmark processes describe their GPUs (the run's row gets the first's below): no probe
   * of its own, whose CUDA start (0.3-0.4 s on an H100 host) would come before theirs */
  collect_meta(&meta, argc, argv, &ba->gpus, 0);
  struct run_info ri = run_info_from_meta(&meta, 0, ba->o.max_time);
  ba->o.commit = gr_fmt(commit, sizeof commit, "%s%s", meta.commit, meta.dirty ? "-dirty" : "");
  ba->o.gr_version = meta.gr_version;
  ba->o.gr_commit = meta.gr_commit;
  int64_t run = store_begin_run(st, &ri, why, sizeof why);
  if (run < 0) {
    fprintf(stderr, "gpuregress bench: %s\n", why);
    return GR_EXIT_USAGE;
  }
  cli_status_set("run", "%lld", (long long)run);
  *run_out = run;
  if (ba->gpus.n && store_set_night(st, run, NULL, 0, 0, (int)ba->gpus.n))
    return cli_store_failed("bench", st, run);
  int rc = bench_session(st, run, p, &ba->o, "bench");
  if (p->have_gpu) { /* the run's row gets the GPU that timed (the first lane's) */
    meta.gpu.ok = 1;
    meta.gpu.info = p->gpu;
    gr_fmt(meta.cc, sizeof meta.cc, "%d.%d", p->gpu.cc_major, p->gpu.cc_minor);
    struct run_info gi = run_info_from_meta(&meta, 0, ba->o.max_time);
    if (store_set_run_gpu(st, run, &gi))
      return cli_store_failed("bench", st, run);
  }
  if (store_write_failed(st))
    return cli_store_failed("bench", st, run);
  fprintf(ba->o.json && !strcmp(ba->o.json, "-") ? stderr : stdout,
          "\nresult: %s (run %lld, %zu benchmarks) exit %d\n",
          rc == 0 ? "ok" : rc == 1 ? "FAILED" : rc == 3 ? "no GPU" : "error", (long long)run, p->n,
          rc);
  cli_status_set("result", "%s",
                 rc == 0 ? "ok" : rc == 1 ? "failed" : rc == 3 ? "no_gpu" : "error");
  if (store_finish_run(st, run, bench_interrupted ? "interrupted" : "finished", rc)) {
    fprintf(stderr, "gpuregress bench: cannot record the end of run %lld in '%s': %s\n",
            (long long)run, ba->db, store_errmsg(st));
    rc = rc ? rc : GR_EXIT_USAGE;
  }
  return rc;
}

/* Plan, store, --against judged before the timing (not after it), the run, then the comparison
 * with --against (the store closed first: bench_against reads it afresh). */
static int bench_main(struct bench_args *ba, int argc, char **argv)
{
  char why[GR_WHY_LEN];
  struct selection sel;
  struct bench_plan *p = NULL;
  if (select_variants(ba->filter, &sel, why, sizeof why) ||
      bench_plan_new(sel.alg, sel.v, sel.n, ba->sizes, ba->quick, ba->cases, ba->n_cases, &p, why,
                     sizeof why))
    return cli_usage_error("bench", "%s", why);
  int rc = GR_EXIT_USAGE;
  int64_t run = 0;
  struct store *st = NULL;
  if (cli_check_tmpdir("bench")) {
    rc = GR_EXIT_ENV;
  } else if (store_open(ba->db, &st, why, sizeof why)) {
    fprintf(stderr, "gpuregress bench: %s\n", why);
  } else if (!ba->against || !bench_against_check(st, ba->db, ba->against)) {
    rc = bench_run(st, p, ba, argc, argv, &run);
  }
  store_close(st);
  bench_plan_free(p);
  if (ba->against && run > 0 && rc != GR_EXIT_USAGE && rc != 130) {
    int arc = bench_against(ba->db, run, ba->against);
    rc = arc == GR_EXIT_USAGE ? arc : rc ? rc : arc;
  }
  return rc;
}

int cmd_bench(int argc, char **argv)
{
  static struct bench_args ba; /* its gpu_set is large */
  memset(&ba, 0, sizeof ba);
  bench_opts_default(&ba.o);
  ba.db = STORE_DEFAULT_PATH;
  ba.cases = calloc((size_t)argc + 1, sizeof *ba.cases);
  char **gb = calloc((size_t)argc + 1, sizeof *gb), **rest = calloc((size_t)argc + 1, sizeof *rest);
  int rc = GR_EXIT_ENV;
  if (ba.cases && gb && rest) {
    rc = parse_args(argc, argv, gb, rest, &ba);
    rc = rc < 0 ? GR_EXIT_OK : rc ? rc : bench_main(&ba, argc, argv);
  }
  free(ba.cases);
  free(gb);
  free(rest);
  return rc;
}
