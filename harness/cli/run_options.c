/* The option tables of run and fuzz (options.h): what cmd_run.c parses, the help, the man page
 * and the completions. */
#include "options.h"
#include "run_options.h"
#include "store.h"

/* the options run and fuzz share */
static const struct cli_opt run_common_options[] = {
    {"budget", 'b', 'b', "SECONDS", CLI_NONE, NULL,
     "time for the whole fuzzing phase (default 60), shared as it goes by the variants still\n"
     "to run, historical ones first"},
    {"cases", 'n', 'n', "N", CLI_NONE, NULL, "N cases per variant instead of a time budget"},
    {"seed", 's', 's', "N", CLI_NONE, NULL, "seed of the case stream (default: from the clock, printed)"},
    CLI_DB_OPT,
    {"watchdog", OPT_WATCHDOG, 0, "SECONDS", CLI_NONE, NULL,
     "a case running longer is a timeout (default 60)"},
    {"shrink-budget", OPT_SHRINK_BUDGET, 0, "S", CLI_NONE, NULL,
     "seconds to shrink one failure (default 30)"},
    {"no-shrink", OPT_NO_SHRINK, 0, NULL, CLI_NONE, NULL, "report the first failing case as it is"},
    {"verbose", 'v', 'v', NULL, CLI_NONE, NULL, "one line per case once it is stored"},
    {"quiet", OPT_QUIET, 0, NULL, CLI_NONE, NULL,
     "no progress bar (a pipe still gets a line per variant)"},
    {"bench", OPT_BENCH, 0, NULL, CLI_NONE, NULL,
     "then the timing phase (as 'gpuregress bench') in the same run"},
    {"bench-quick", OPT_BENCH_QUICK, 0, NULL, CLI_NONE, NULL, "the same with 'bench --quick'"},
    {"allow-no-gpu", OPT_ALLOW_NO_GPU, 0, NULL, CLI_NONE, NULL,
     "without a usable GPU, pass on the CPU variants alone (exit 0) instead of exit 3\n"
     "(CPU-only development machines)"},
    {"strict-coverage", OPT_STRICT_COVERAGE, 0, NULL, CLI_NONE, NULL,
     "a fixed variant with a regime no case reached fails the run (without it: an\n"
     "'uncovered' warning)"},
    {"gpus", OPT_GPUS, 0, "N|all|LIST", CLI_NONE, NULL,
     "spread the work over these GPUs of the host, one worker each (LIST: indices or UUIDs,\n"
     "comma-separated; default: the one visible GPU)"},
    {"night", OPT_NIGHT, 0, "ID", CLI_NONE, NULL,
     "the night this run belongs to (default: derived from commit, UTC date and seed when\n"
     "sharded; see doc/fleet.md)"},
    CLI_HELP_OPT,
    {0},
};

static const struct cli_opt run_options[] = {
    {"filter", 'f', 'f', "PATTERNS", CLI_TARGET, NULL,
     "ALG or ALG/VARIANT, shell wildcards, comma-separated"},
    {"shard", OPT_SHARD, 0, "K/N|auto", CLI_NONE, NULL,
     "run the K-th of N parts of the selection (the same split for the same seed and N); auto:\n"
     "from the scheduler (Slurm array, Kubernetes Indexed Job, GitLab parallel,\n"
     "GPUREGRESS_SHARD=K/N); 'import' of the shards' databases makes one night (doc/fleet.md)"},
    {0},
};
const struct cli_command cli_run_cmd = {
    .name = "run",
    .synopsis = "[--filter ALG[/VARIANT][,...]] [options]",
    .about = "Fuzz every selected variant within the budget: fixed variants must pass every case,\n"
             "historical ones must be caught. Verdicts, cases and shrunk reproducers go to the\n"
             "database; a summary table goes to stdout, then the run's verdict.",
    .opts = run_options,
    .shared = run_common_options,
    .after = "Exit 0 ok, 1 a fixed variant failed or a historical bug escaped, 2 usage or database\n"
             "error, 3 GPU variants were selected and none could run (no driver, no device; see\n"
             "--allow-no-gpu).",
};

static const struct cli_opt fuzz_options[] = {{0}};
const struct cli_command cli_fuzz_cmd = {
    .name = "fuzz",
    .synopsis = "ALG/VARIANT [--cases N] [options] [NAME=LO..HI | NAME=VALUE ...]",
    .about = "Fuzz one variant, optionally inside parameter ranges (see 'gpuregress list ALG' for\n"
             "the parameters). Stops at the first failure and shrinks it.",
    .opts = fuzz_options,
    .shared = run_common_options,
    .after = "Exit codes as for run.",
    .operand = CLI_TARGET,
};

