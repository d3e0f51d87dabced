/* `gpuregress plot` and `export`, and the prologue every command that reports on a run shares
 * (open the database, pick the run, judge it against its baseline; `compare` is cmd_compare.c).
 * The work is in plot.c and export.c; this file parses options, prints and picks the exit
 * code. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "compare.h"
#include "export.h"
#include "plot.h"
#include "registry.h"
#include "reproducers.h"
#include "verdict.h"

int cli_open_existing(const char *cmd, const char *db, struct store **st)
{
  char why[GR_WHY_LEN];
  if (access(db, F_OK) != 0) {
    fprintf(stderr, "gpuregress %s: no database '%s': run 'gpuregress run' or 'gpuregress bench' first, or pass --db\n",
            cmd, db);
    return GR_EXIT_USAGE;
  }
  if (store_open_read(db, st, why, sizeof why)) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    return GR_EXIT_USAGE;
  }
  return 0;
}

int cli_parse_run(const char *s, int64_t *out)
{
  uint64_t u;
  if (gr_parse_u64(s, &u) || u == 0 || u > INT64_MAX)
    return -1;
  *out = (int64_t)u;
  return 0;
}

/* --run RUN: 0 ok, else the exit code after a message naming the option. */
int cli_run_option(const char *cmd, const char *s, int64_t *out)
{
  uint64_t u;
  if (cli_opt_u64(cmd, "--run", s, 1, INT64_MAX, &u))
    return GR_EXIT_USAGE;
  *out = (int64_t)u;
  return 0;
}

/* The run to report on: the given one, else the latest finished run with data. */
static int pick_run(const char *cmd, struct store *st, int64_t *run)
{
  struct store_run b;
  if (*run > 0) {
    if (store_get_run(st, STORE_MAIN, *run, &b)) {
      fprintf(stderr, "gpuregress %s: no run %lld in the database\n", cmd, (long long)*run);
      return GR_EXIT_USAGE;
    }
    return 0;
  }
  *run = store_pick_run(st, STORE_MAIN, 0, NULL);
  if (*run < 0) {
    fprintf(stderr, "gpuregress %s: cannot read the runs: %s\n", cmd, store_errmsg(st));
    return GR_EXIT_USAGE;
  }
  if (*run == 0) {
    fprintf(stderr, "gpuregress %s: no finished run with results in the database\n", cmd);
    return GR_EXIT_USAGE;
  }
  return 0;
}

/* Judge run (run_verdict_build) against its baseline: --baseline RUN (of this database), FILE
 * (another gpuregress database: its latest finished run on the same GPU model, else any), "none",
 * or by default (NULL) the latest finished run before it on the same GPU model. A default that
 * finds no baseline judges the run alone (*compared 0). 0 ok, else the exit code after a
 * message. */
static int judge(const char *cmd, struct store *st, int64_t run, const char *baseline,
                 const struct compare_opts *co, struct run_verdict **v, int *compared)
{
  char why[GR_WHY_LEN];
  struct rv_opts o = {.base_src = STORE_MAIN, .co = co,
                      .max_clock_diff = co ? co->max_clock_diff : 0};
  int other_gpu = 0;
  *v = NULL;
  if (baseline && strcmp(baseline, "none") == 0) {
    o.base = 0;
  } else if (baseline && cli_parse_run(baseline, &o.base) == 0) {
    if (o.base == run)
      return cli_usage_error(cmd, "the baseline is the run itself (%lld)", (long long)run);
  } else if (baseline) {
    if (store_attach_baseline(st, baseline, why, sizeof why)) {
      fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
      return GR_EXIT_USAGE;
    }
    o.base_src = STORE_BASE;
    o.base_file = baseline;
    o.base = store_pick_run(st, STORE_BASE, run, &other_gpu);
    if (o.base < 0) {
      fprintf(stderr, "gpuregress %s: cannot read baseline '%s': %s\n", cmd, baseline,
              store_errmsg(st));
      return GR_EXIT_USAGE;
    }
    if (o.base == 0) {
      fprintf(stderr, "gpuregress %s: baseline '%s' holds no finished run with results\n", cmd,
              baseline);
      return GR_EXIT_USAGE;
    }
  } else {
    int64_t picked = store_pick_run(st, STORE_MAIN, run, &other_gpu);
    if (picked < 0) {
      fprintf(stderr, "gpuregress %s: cannot read the runs: %s\n", cmd, store_errmsg(st));
      return GR_EXIT_USAGE;
    }
    o.base = compare_pick_base(st, run, picked);
  }
  *compared = o.base > 0;
  if (o.base < 0)
    o.base = 0;
  if (run_verdict_build(st, run, &o, v, why, sizeof why)) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    return GR_EXIT_USAGE;
  }
  return 0;
}


/* The prologue of compare, plot and export: open db (existing, read-only), pick the run (given,
 * else the latest finished one) and, when want_verdict, judge it against its baseline. 0 ok;
 * else the exit code after a message. *st (maybe NULL) and *v are the caller's to free. */
int cli_check_overrides(const char *cmd, struct store *st, const struct compare_opts *co)
{
  for (size_t k = 0; k < co->n_over; k++)
    if (!registry_find(co->over[k].alg) && !store_knows_algorithm(st, co->over[k].alg)) {
      char name[128];
      return cli_usage_error(cmd,
                             "unknown algorithm '%s' in --%s: neither in 'gpuregress list' nor "
                             "in the database",
                             gr_printable(name, sizeof name, co->over[k].alg),
                             co->over[k].min_effect >= 0 ? "min-effect" : "alpha");
    }
  return 0;
}

int cli_open_and_judge(const char *cmd, const char *db, int64_t *run, const char *baseline,
                       const struct compare_opts *co, int want_verdict, struct store **st,
                       struct run_verdict **v, int *compared)
{
  int rc = cli_open_existing(cmd, db, st);
  if (!rc && co)
    rc = cli_check_overrides(cmd, *st, co);
  if (!rc)
    rc = pick_run(cmd, *st, run);
  if (!rc && want_verdict)
    rc = judge(cmd, *st, *run, baseline, co, v, compared);
  return rc;
}

/* ---- plot --------------------------------------------------------------------------------- */

enum { OPT_RUN = 256, OPT_OUT, OPT_SCRIPTS, OPT_BASELINE, OPT_NOTE, OPT_CONFIRM };
static const struct cli_opt plot_options[] = {
    {"run", OPT_RUN, 0, "RUN", CLI_NONE, NULL, "the run (default: latest)"},
    {"baseline", OPT_BASELINE, 0, "RUN|FILE|none", CLI_FILE, NULL,
     "what the banner and the changes compare with, as for compare (default: the latest\n"
     "finished earlier run on the same GPU model)"},
    {"confirm", OPT_CONFIRM, 0, "DIR", CLI_DIR, NULL,
     "judge with the interleaved re-timing in DIR, as compare --confirm"},
    {"out", OPT_OUT, 0, "DIR", CLI_DIR, NULL, "output folder (default results)"},
    CLI_DB_OPT,
    {"scripts", OPT_SCRIPTS, 0, "DIR", CLI_DIR, NULL,
     "where the gnuplot scripts (*.gp) are (default: beside the binary in scripts/, an\n"
     "installed tree's share/gpuregress/scripts/, then the source tree's scripts/)"},
    {"note", OPT_NOTE, 0, "TEXT", CLI_NONE, NULL,
     "a line shown above the verdict on the run's page (e.g. that it is a sample, not this\n"
     "machine's run)"},
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_plot_cmd = {
    .name = "plot",
    .synopsis = "[--run RUN] [--out DIR] [--db FILE] [--scripts DIR] [--note TEXT]\n"
                "[--baseline RUN|FILE|none] [--confirm DIR]",
    .about =
        "Plots and the static dashboard of a run (default: the latest finished run with results):\n"
        "per algorithm, time and throughput against size for every variant with the peer and the\n"
        "copy-bandwidth floor; historical bugs caught per run (a row per bug) with the cases it\n"
        "took; and the history up to the run: every benchmark's trend over the nights (median,\n"
        "min-max band, dates and commits, change points as 'gpuregress history' finds them), its GPU\n"
        "models side by side, one page per algorithm, and the index of nights. Data files, PNG and\n"
        "SVG (the trends: SVG only) go to DIR/plots/; the dashboard (self-contained HTML, readable\n"
        "offline) to DIR/dashboard/: index.html (the run), run-RUN.html (the same, kept for the\n"
        "index of nights), history-ALG.html.",
    .opts = plot_options,
    .after = "Exit 0 ok, 2 usage or database error, 3 gnuplot is missing (data files and the\n"
             "dashboard without plots are still written; install gnuplot-nox).",
};

int cmd_plot(int argc, char **argv)
{
  const char *db = STORE_DEFAULT_PATH, *out = "results", *scripts = NULL, *baseline = NULL;
  const char *note = NULL;
  struct compare_opts co;
  compare_opts_default(&co);
  int64_t run = 0;
  int c;
  char why[GR_WHY_LEN];
  while ((c = cli_next(&cli_plot_cmd, argc, argv)) != -1) {
    switch (c) {
    case CLI_HELP: return cli_help(&cli_plot_cmd);
    case OPT_RUN:
      if (cli_run_option("plot", optarg, &run))
        return GR_EXIT_USAGE;
      break;
    case OPT_OUT:
      if (cli_opt_text("plot", "--out", optarg, CLI_TEXT_MAX, &out))
        return GR_EXIT_USAGE;
      break;
    case 'd':
      if (cli_opt_text("plot", "--db", optarg, CLI_TEXT_MAX, &db))
        return GR_EXIT_USAGE;
      break;
    case OPT_SCRIPTS:
      if (cli_opt_text("plot", "--scripts", optarg, CLI_TEXT_MAX, &scripts))
        return GR_EXIT_USAGE;
      break;
    case OPT_BASELINE:
      if (cli_opt_text("plot", "--baseline", optarg, CLI_TEXT_MAX, &baseline))
        return GR_EXIT_USAGE;
      break;
    case OPT_CONFIRM:
      if (cli_opt_text("plot", "--confirm", optarg, CLI_TEXT_MAX, &co.confirm))
        return GR_EXIT_USAGE;
      break;
    case OPT_NOTE:
      if (cli_opt_text("plot", "--note", optarg, CLI_TEXT_MAX, &note))
        return GR_EXIT_USAGE;
      break;
    default: return cli_opt_error("plot", c, argv);
    }
  }
  if (optind < argc)
    return cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
  struct store *st = NULL;
  struct run_verdict *v = NULL;
  int compared;
  int rc = cli_open_and_judge("plot", db, &run, baseline, co.confirm ? &co : NULL, 1, &st, &v, &compared);
  if (rc)
    goto out;
  struct plot_opts po = {.out_dir = out, .scripts_dir = scripts, .verdict = v, .note = note};
  struct plot_report rep;
  int r = plot_run(st, run, &po, &rep, why, sizeof why);
  if (r < 0) {
    fprintf(stderr, "gpuregress plot: %s\n", why);
    rc = GR_EXIT_USAGE;
    goto out;
  }
  printf("plot: run %lld: %d plots in %s/plots, dashboard %s/dashboard/index.html (%s)\n",
         (long long)run, rep.plots, out, out, rv_result_name(v->result));
  if (r > 0) {
    fprintf(stderr, "gpuregress plot: %s\n", why);
    rc = GR_EXIT_ENV;
  }
out:
  run_verdict_free(v);
  store_close(st);
  return rc;
}

/* ---- export ------------------------------------------------------------------------------- */

enum { EX_RUN = 256, EX_OUT, EX_FORMAT, EX_BASELINE, EX_CONFIRM };
static const struct cli_opt export_options[] = {
    {"format", EX_FORMAT, 0, "FORMAT", CLI_WORDS, "json csv junit gbench db reproducers",
     "json: the run's verdict (as 'compare --format json'), the run, its outcomes and its\n"
     "timings (summaries, not samples); csv: its timings, one row per (algorithm, variant,\n"
     "params), with a header; junit: JUnit XML (Jenkins junit-10 shape, ci/junit-10.xsd) of the\n"
     "verdict: one suite per algorithm with the run's properties, a test case per (algorithm,\n"
     "variant) outcome and check after timing and per timing compared with the baseline;\n"
     "gbench: Google Benchmark's JSON, every stored sample a repetition, so that its\n"
     "tools/compare.py compares two runs; db: a new gpuregress database holding only this run\n"
     "with its samples, a baseline for 'compare --baseline FILE'; reproducers: --out DIR gets\n"
     "one file per failing case and one per slower benchmark, to run on another machine with no\n"
     "database of this one (doc/bisect.md)"},
    {"run", EX_RUN, 0, "RUN", CLI_NONE, NULL, "the run (default: the latest finished run with results)"},
    {"out", EX_OUT, 0, "FILE", CLI_FILE, NULL,
     "where it goes (default stdout; required for db, a folder for reproducers)"},
    CLI_DB_OPT,
    {"baseline", EX_BASELINE, 0, "RUN|FILE|none", CLI_FILE, NULL,
     "as for compare (default: the latest finished earlier run on the same GPU model)"},
    {"confirm", EX_CONFIRM, 0, "DIR", CLI_DIR, NULL,
     "judge with the interleaved re-timing in DIR, as compare --confirm"},
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_export_cmd = {
    .name = "export",
    .synopsis = "--format json|csv|junit|gbench|db|reproducers [--run RUN] [--out FILE] [options]",
    .about = "Write a run (default: the latest finished run with results) in one of the formats\n"
             "of --format.",
    .opts = export_options,
    .after = "Exit 0 ok, 2 usage or database error.",
};

/* export --format reproducers --out DIR (reproducers.h): the folder of the run's failing cases
 * and slower benchmarks, the commands naming the runner that ran it (runs.runner), else this
 * one (gr_runner_name). */
static int export_reproducers(const char *db, int64_t run, const char *baseline, const char *out)
{
  if (!out)
    return cli_usage_error("export", "--format reproducers needs --out DIR");
  struct store *st = NULL;
  struct run_verdict *v = NULL;
  int compared;
  char why[GR_WHY_LEN], runner[GR_NAME_MAX + 1];
  int rc = cli_open_and_judge("export", db, &run, baseline, NULL, 1, &st, &v, &compared);
  size_t n = 0;
  if (!rc) /* a name (store_get_run drops one that is not), else this runner's */
    gr_fmt(runner, sizeof runner, "%s", v->run.runner[0] ? v->run.runner : gr_runner_name());
  if (!rc && reproducers_write(st, v, out, runner, &n, why, sizeof why)) {
    fprintf(stderr, "gpuregress export: %s\n", why);
    rc = GR_EXIT_USAGE;
  }
  if (!rc)
    printf("wrote %zu reproducer%s in '%s'\n", n, n == 1 ? "" : "s", out);
  run_verdict_free(v);
  store_close(st);
  return rc;
}

int cmd_export(int argc, char **argv)
{
  const char *db = STORE_DEFAULT_PATH, *out = NULL, *format = NULL, *baseline = NULL;
  struct compare_opts co;
  compare_opts_default(&co);
  int64_t run = 0;
  int c;
  char why[GR_WHY_LEN];
  while ((c = cli_next(&cli_export_cmd, argc, argv)) != -1) {
    switch (c) {
    case CLI_HELP: return cli_help(&cli_export_cmd);
    case EX_BASELINE:
      if (cli_opt_text("export", "--baseline", optarg, CLI_TEXT_MAX, &baseline))
        return GR_EXIT_USAGE;
      break;
    case EX_CONFIRM:
      if (cli_opt_text("export", "--confirm", optarg, CLI_TEXT_MAX, &co.confirm))
        return GR_EXIT_USAGE;
      break;
    case EX_FORMAT:
      if (cli_opt_text("export", "--format", optarg, CLI_TEXT_MAX, &format))
        return GR_EXIT_USAGE;
      break;
    case EX_RUN:
      if (cli_run_option("export", optarg, &run))
        return GR_EXIT_USAGE;
      break;
    case EX_OUT:
      if (cli_opt_text("export", "--out", optarg, CLI_TEXT_MAX, &out))
        return GR_EXIT_USAGE;
      break;
    case 'd':
      if (cli_opt_text("export", "--db", optarg, CLI_TEXT_MAX, &db))
        return GR_EXIT_USAGE;
      break;
    default: return cli_opt_error("export", c, argv);
    }
  }
  if (optind < argc)
    return cli_usage_error("export", "unexpected argument '%s'", argv[optind]);
  if (format && !strcmp(format, "reproducers"))
    return export_reproducers(db, run, baseline, out);
  enum export_format fmt;
  if (!format)
    return cli_usage_error("export", "missing --format (json, csv, junit, gbench or db)");
  if (export_format_parse(format, &fmt))
    return cli_usage_error("export", "unknown format '%s': use json, csv, junit, gbench or db",
                           format);
  if (fmt == EXPORT_DB && !out)
    return cli_usage_error("export", "--format db needs --out FILE");
  struct store *st = NULL;
  struct run_verdict *v = NULL;
  int compared;
  int rc = cli_open_and_judge("export", db, &run, baseline, co.confirm ? &co : NULL, fmt != EXPORT_DB, &st, &v, &compared);
  if (rc)
    goto out;
  struct run_verdict just_run = {.run = {.id = run}};
  if (export_run(st, v ? v : &just_run, fmt, out, why, sizeof why)) {
    fprintf(stderr, "gpuregress export: %s\n", why);
    rc = GR_EXIT_USAGE;
  }
out:
  run_verdict_free(v);
  store_close(st);
  return rc;
}
