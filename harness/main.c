/* gpuregress: the command line. One table of subcommands (cmd_run.c, cmd_bench.c,
 * cmd_report.c, cmd_history.c); each parses its own options, prints and chooses the exit code (0 ok, 1 a check
 * failed / a bug escaped / a regression, 2 usage or input error, 3 environment). Library code
 * below this layer returns statuses and never exits. Shared helpers: cli.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "store.h"

/* ---- the table ---------------------------------------------------------------------------- */

static const struct command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *summary;
} commands[] = {
    {"list", cmd_list, "algorithms, variants and case parameters"},
    {"run", cmd_run, "fuzz every selected variant within a budget; summary table"},
    {"fuzz", cmd_fuzz, "fuzz one variant, optionally within parameter ranges"},
    {"repro", cmd_repro, "run one case (as printed by a failure) on its variants"},
    {"bench", cmd_bench, "time the GPU variants over each algorithm's size sweep"},
    {"compare", cmd_compare, "timings and verdicts of a run against a baseline: regressions"},
    {"plot", cmd_plot, "gnuplot plots and the static dashboard of a run"},
    {"export", cmd_export, "a run as JSON, CSV (timings), JUnit XML or a baseline database"},
    {"history", cmd_history, "change points of every benchmark over the nights, commit ranges"},
    {"import", cmd_import, "merge another runner's database into this history (idempotent)"},
    {"prune", cmd_prune, "retention: drop old passing cases and raw samples, keep failures"},
    {"sanitize", cmd_sanitize, "the GPU variants under compute-sanitizer's four tools"},
};

static void usage(FILE *f)
{
  fprintf(f, "usage: gpuregress COMMAND [options]   ('gpuregress COMMAND --help' for more)\n"
             "       gpuregress --version\n\n");
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\nexit codes: 0 ok, 1 a check failed / a historical bug escaped / a regression,\n"
             "2 usage or input error, 3 environment (no CUDA device where one is required)\n"
             "\nany command takes --status-file FILE: key=value lines for scripts (run, result,\n"
             "compared, exit; see README)\n");
}

int main(int argc, char **argv)
{
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN); /* a file size limit is a write error that the store reports */
  if (argc < 2) {
    usage(stderr);
    return GR_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
    printf("gpuregress %s (commit %s, database schema %d)\n", GR_VERSION, cli_build_commit(),
           store_schema_version());
    return 0;
  }
  if (cli_status_take_option(&argc, argv)) {
    fprintf(stderr, "gpuregress: --status-file needs a file name\n");
    return GR_EXIT_USAGE;
  }
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (strcmp(argv[1], commands[i].name) == 0) {
      int rc = commands[i].fn(argc - 1, argv + 1);
      /* what was printed must have arrived: a full disk or a closed stdout is an error (files
       * a command writes itself are checked where it closes them) */
      if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "gpuregress %s: cannot write the output: %s\n", commands[i].name,
                strerror(errno ? errno : EIO));
        if (rc == GR_EXIT_OK)
          rc = GR_EXIT_USAGE;
      }
      return cli_status_finish(commands[i].name, rc);
    }
  fprintf(stderr, "gpuregress: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return GR_EXIT_USAGE;
}

