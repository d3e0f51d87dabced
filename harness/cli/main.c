/* gpuregress: the command line. One table of subcommands (cmd_run.c, cmd_repro.c, cmd_bench.c,
 * cmd_report.c, cmd_history.c, cmd_sanitize.c); each parses its own options, prints and chooses the exit code (0 ok, 1 a check
 * failed / a bug escaped / a regression, 2 usage or input error, 3 environment). Library code
 * below this layer returns statuses and never exits. Shared helpers: cli.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "registry.h"
#include "store.h"

/* ---- the table ---------------------------------------------------------------------------- */

/* Each command's options are its table (struct cli_command, in its file): parsing, --help,
 * `gpuregress help`, the man page's options and the completions come from it (options.h). */
const struct cli_entry cli_commands[] = {
    {&cli_list_cmd, cmd_list, "algorithms, variants and case parameters"},
    {&cli_run_cmd, cmd_run, "fuzz every selected variant within a budget; summary table"},
    {&cli_fuzz_cmd, cmd_fuzz, "fuzz one variant, optionally within parameter ranges"},
    {&cli_repro_cmd, cmd_repro, "run one case (as printed by a failure) on its variants"},
    {&cli_bench_cmd, cmd_bench, "time the GPU variants over each algorithm's size sweep"},
    {&cli_compare_cmd, cmd_compare, "timings and verdicts of a run against a baseline: regressions"},
    {&cli_plot_cmd, cmd_plot, "gnuplot plots and the static dashboard of a run"},
    {&cli_export_cmd, cmd_export, "a run as JSON, CSV (timings), JUnit XML or a baseline database"},
    {&cli_history_cmd, cmd_history, "change points of every benchmark over the nights, commit ranges"},
    {&cli_bisect_cmd, cmd_bisect, "the first bad commit of a reproducer (git bisect in a worktree of its own)"},
    {&cli_ack_cmd, cmd_ack, "acknowledge an open regression (who, when, why), or undo that"},
    {&cli_import_cmd, cmd_import, "merge another runner's database into this history (idempotent)"},
    {&cli_prune_cmd, cmd_prune, "retention: drop old passing cases and raw samples, keep failures"},
    {&cli_sanitize_cmd, cmd_sanitize, "the GPU variants under compute-sanitizer's four tools"},
    {&cli_help_cmd, cmd_help, "a command's usage and options ('gpuregress help CMD')"},
    {&cli_completion_cmd, cmd_completion, "completion scripts: 'gpuregress completion bash|zsh|fish'"},
};
const size_t cli_n_commands = sizeof cli_commands / sizeof *cli_commands;

static void usage(FILE *f)
{
  fprintf(f, "usage: gpuregress COMMAND [options]   ('gpuregress COMMAND --help' for more)\n"
             "       gpuregress --version\n\n");
  for (size_t i = 0; i < cli_n_commands; i++)
    fprintf(f, "  %-10s %s\n", cli_commands[i].cmd->name, cli_commands[i].summary);
  fprintf(f, "\nexit codes: 0 ok, 1 a check failed / a historical bug escaped / a regression,\n"
             "2 usage or input error, 3 environment (no CUDA device where one is required; GPU\n"
             "variants selected and none could run, unless --allow-no-gpu), 130 interrupted\n"
             "(SIGINT, SIGTERM, SIGHUP)\n"
             "\nany command takes --status-file FILE: key=value lines for scripts (run, result,\n"
             "compared, exit; see doc/database.md)\n");
}

int main(int argc, char **argv)
{
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN); /* a file size limit is a write error that the store reports */
  cli_set_runner_name(argc > 0 && argv[0] ? argv[0] : "");
  if (argc < 2) {
    usage(stderr);
    return GR_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
    printf("gpuregress %s (commit %s, database schema %d)\n", GR_VERSION, cli_build_commit(),
           store_schema_version());
    if (strcmp(cli_code_commit(), cli_build_commit()) || strcmp(gr_runner_name(), "gpuregress"))
      printf("runner %s: code under test at commit %s\n", gr_runner_name(), cli_code_commit());
    return 0;
  }
  if (cli_status_take_option(&argc, argv)) {
    fprintf(stderr, "gpuregress: --status-file needs a file name (a name that starts with "
                    "'--' is written --status-file=--NAME)\n");
    return GR_EXIT_USAGE;
  }
  char why[GR_WHY_LEN];
  if (cli_status_check(why, sizeof why)) {
    fprintf(stderr, "gpuregress: --status-file: %s\n", why);
    return GR_EXIT_USAGE;
  }
  for (size_t i = 0; i < cli_n_commands; i++)
    if (strcmp(argv[1], cli_commands[i].cmd->name) == 0) {
      const char *name = cli_commands[i].cmd->name;
      int rc = cli_commands[i].fn(argc - 1, argv + 1);
      /* what was printed must have arrived: a full disk or a closed stdout is an error (files
       * a command writes itself are checked where it closes them) */
      if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "gpuregress %s: cannot write the output: %s\n", name,
                strerror(errno ? errno : EIO));
        if (rc == GR_EXIT_OK)
          rc = GR_EXIT_USAGE;
      }
      return cli_status_finish(name, rc);
    }
  fprintf(stderr, "gpuregress: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return GR_EXIT_USAGE;
}

