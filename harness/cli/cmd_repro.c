/* `repro` (one case, as printed by a failure, on its variants; --repeat N for a race) and `list`
 * (algorithms, variants, case parameters). Exit codes as README says (0 ok, 1 a check failed,
 * 2 usage or input error, 3 environment). */
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
#include "registry.h"
#include "runner.h"
#include "store.h"
#include "verdict.h"
#include "worker.h"

/* ---- repro -------------------------------------------------------------------------------- */

/* What the variants of the cases did, for the exit code: as `run` judges, GPU variants selected
 * and none could run is an environment failure (exit 3) unless --allow-no-gpu, whatever the CPU
 * variants did. */
struct repro_tally {
  int gpu_selected, gpu_ran, skipped_gpu;
  char why_no_gpu[GR_WHY_LEN];
};

/* Run case cs on its variants (only, when set) and print each verdict; in_process: in this
 * process (no worker). Folds the verdicts into *rc and *t. */
static void repro_case(const struct gr_case *cs, const struct gr_variant *only, int in_process,
                       long repeat, double watchdog, int *rc, struct repro_tally *t)
{
  struct runner_opts o = {.watchdog = watchdog};
  char text[GR_CASE_TEXT_LEN];
  printf("case: %s\n", case_format(cs, text, sizeof text));
  fflush(stdout); /* before the kernels: a sanitizer's report after this line is this case's */
  for (size_t i = 0; i < cs->alg->n_variants && !runner_interrupted; i++) {
    const struct gr_variant *v = &cs->alg->variants[i];
    if (only && v != only)
      continue;
    struct case_result res;
    enum verdict vd;
    if (in_process) {
      worker_run_case(cs, v, &res);
      vd = res.verdict;
      if (vd == VERDICT_SKIP && (v->flags & GR_VARIANT_GPU) && !worker_gpu_ready(text, sizeof text))
        res.status = GR_STATUS_NO_GPU;
    } else if (repeat > 1) {
      long runs = 0, fails = runner_repeat_case(&o, cs, v, repeat, &runs, &res);
      vd = res.verdict;
      printf("%-20s %-10s %-7s %ld of %ld runs failed%s%s\n", v->name,
             gr_variant_kind_name(v->kind), verdict_name(vd), fails, runs,
             res.why[0] ? (fails ? "; first: " : "; ") : "", res.why);
    } else {
      vd = runner_one_case(&o, cs, v, &res);
    }
    if (in_process || repeat <= 1)
      printf("%-20s %-10s %-7s %s\n", v->name, gr_variant_kind_name(v->kind), verdict_name(vd),
             res.why);
    fflush(stdout);
    if (v->flags & GR_VARIANT_GPU) {
      t->gpu_selected++;
      t->gpu_ran += vd != VERDICT_SKIP;
      if (vd == VERDICT_SKIP && res.status == GR_STATUS_NO_GPU && !t->skipped_gpu++)
        gr_fmt(t->why_no_gpu, sizeof t->why_no_gpu, "%s", res.why);
    }
    if (verdict_is_failure(vd))
      *rc = GR_EXIT_FAIL;
    else if (vd == VERDICT_ERROR && *rc == GR_EXIT_OK)
      *rc = GR_EXIT_USAGE;
  }
}

enum { OPT_WATCHDOG = 256, OPT_REPEAT, OPT_IN_PROCESS, OPT_ALLOW_NO_GPU };

static const struct cli_opt repro_options[] = {
    {"variant", 'V', 'V', "V", CLI_VARIANT, NULL,
     "this variant only (default: every variant of the case's algorithm)"},
    {"repeat", OPT_REPEAT, 0, "N", CLI_NONE, NULL,
     "run it N times on each variant (a race or an uninitialised read fails some runs only; a\n"
     "FLAKY catch prints the N that fails at least once here) and print how many runs failed\n"
     "and the first failure's reason"},
    {"watchdog", OPT_WATCHDOG, 0, "SECONDS", CLI_NONE, NULL,
     "a case running longer is a timeout (default 60)"},
    {"in-process", OPT_IN_PROCESS, 0, NULL, CLI_NONE, NULL,
     "run the cases in this process (no worker, no watchdog: for compute-sanitizer and\n"
     "debuggers; a crash ends the command), several cases in a row"},
    {"allow-no-gpu", OPT_ALLOW_NO_GPU, 0, NULL, CLI_NONE, NULL,
     "without a usable GPU, judge the CPU variants alone (exit 0 when they passed)"},
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_repro_cmd = {
    .name = "repro",
    .synopsis = "'CASE' [--variant V] [--repeat N] [--watchdog SECONDS] [--allow-no-gpu]\n"
                "--in-process 'CASE' ['CASE' ...] [--variant V]",
    .about = "Run one case (the text printed by run or fuzz, e.g. 'ari n=891 k_a=50 k_b=50\n"
             "pairs=2000 dist=uniform seed=7') on one variant, or on every variant of its\n"
             "algorithm, in a worker process, and print each verdict with its reason.",
    .opts = repro_options,
    .after = "Exit 0 all passed, 1 a variant failed (once is enough), crashed or timed out, 2 bad\n"
             "case text, 3 GPU variants were selected and none could run (no driver, no device),\n"
             "as for 'run'; --allow-no-gpu judges the CPU variants alone then (exit 0 when they\n"
             "passed), 130 interrupted (SIGINT, SIGTERM, SIGHUP).",
};

static const struct cli_opt list_options[] = {CLI_HELP_OPT, {0}};
const struct cli_command cli_list_cmd = {
    .name = "list",
    .synopsis = "[PATTERN]",
    .about = "Algorithms and their variants (kind and story); with a pattern (ALG, ALG/VARIANT,\n"
             "shell wildcards), also each algorithm's case parameters. Test-only algorithms appear\n"
             "when named.",
    .opts = list_options,
    .operand = CLI_TARGET,
};

int cmd_repro(int argc, char **argv)
{
  const char *vname = NULL;
  double watchdog = 60;
  int c, in_process = 0, allow_no_gpu = 0;
  uint64_t repeat = 1;
  while ((c = cli_next(&cli_repro_cmd, argc, argv)) != -1) {
    switch (c) {
    case CLI_HELP: return cli_help(&cli_repro_cmd);
    case 'V':
      if (cli_opt_text("repro", "--variant", optarg, CLI_TEXT_MAX, &vname))
        return GR_EXIT_USAGE;
      break;
    case OPT_REPEAT:
      if (cli_opt_u64("repro", "--repeat", optarg, 1, 1000000, &repeat))
        return GR_EXIT_USAGE;
      break;
    case OPT_WATCHDOG:
      if (cli_opt_double("repro", "--watchdog", optarg, 0.1, 1e6, &watchdog))
        return GR_EXIT_USAGE;
      break;
    case OPT_IN_PROCESS: in_process = 1; break;
    case OPT_ALLOW_NO_GPU: allow_no_gpu = 1; break;
    default: return cli_opt_error("repro", c, argv);
    }
  }
  if (optind >= argc)
    return cli_usage_error("repro", "missing the case text");
  if (in_process && repeat > 1)
    return cli_usage_error("repro", "--repeat runs the case in a worker: not with --in-process");
  if (!in_process && optind + 1 < argc)
    return cli_usage_error("repro", "unexpected argument '%s' (quote the case text)", argv[optind + 1]);
  if (cli_check_tmpdir("repro"))
    return GR_EXIT_ENV;
  char why[GR_WHY_LEN];
  int n = argc - optind;
  struct gr_case *cs = calloc((size_t)n, sizeof *cs);
  if (!cs)
    return GR_EXIT_ENV;
  const struct gr_variant *only = NULL;
  for (int k = 0; k < n; k++) {
    int bad = case_parse(argv[optind + k], &cs[k], why, sizeof why) != 0;
    if (!bad && vname && !(only = gr_alg_variant(cs[k].alg, vname)))
      gr_fmt(why, sizeof why, "unknown variant '%s' of '%s' (see 'gpuregress list %s')", vname,
             cs[k].alg->name, cs[k].alg->name),
          bad = 1;
    if (bad) {
      free(cs);
      return cli_usage_error("repro", "%s", why);
    }
  }
  runner_catch_signals();
  int rc = GR_EXIT_OK;
  struct repro_tally t = {0};
  for (int k = 0; k < n && !runner_interrupted; k++)
    repro_case(&cs[k], vname ? gr_alg_variant(cs[k].alg, vname) : NULL, in_process, (long)repeat,
               watchdog, &rc, &t);
  free(cs);
  if (runner_interrupted)
    return 130;
  /* a historical variant that could not run was not caught, a fixed one did not pass: never
   * an exit 0 that reads as a pass (as `run`, exit 3; a failure elsewhere still says 1) */
  if (t.gpu_selected && !t.gpu_ran && t.skipped_gpu) {
    printf("no GPU: %d GPU variant%s selected and none could run (%s)%s\n", t.gpu_selected,
           t.gpu_selected == 1 ? "" : "s", t.why_no_gpu,
           allow_no_gpu ? "; judged on the CPU variants alone (--allow-no-gpu)"
                        : "; --allow-no-gpu judges the CPU variants alone");
    if (!allow_no_gpu && rc == GR_EXIT_OK)
      rc = GR_EXIT_ENV;
  }
  return rc;
}

/* ---- list --------------------------------------------------------------------------------- */

int cmd_list(int argc, char **argv)
{
  int c;
  while ((c = cli_next(&cli_list_cmd, argc, argv)) != -1)
    return c == CLI_HELP ? cli_help(&cli_list_cmd) : cli_opt_error("list", c, argv);
  if (argc - optind > 1)
    return cli_usage_error("list", "unexpected argument '%s' (join patterns with commas)",
                           argv[optind + 1]);
  const char *pat = optind < argc ? argv[optind] : NULL;
  struct selection sel;
  char why[GR_WHY_LEN];
  if (select_variants(pat, &sel, why, sizeof why))
    return cli_usage_error("list", "%s", why);
  const struct gr_algorithm *last = NULL;
  for (size_t i = 0; i < sel.n; i++) {
    const struct gr_algorithm *a = sel.alg[i];
    if (a != last) {
      printf("%s%s  %s\n", last ? "\n" : "", a->name, a->summary);
      if (pat) {
        for (size_t p = 0; p < a->n_params; p++) {
          const struct gr_param_spec *ps = &a->params[p];
          if (ps->type == GR_PARAM_INT)
            printf("  param %-10s %lld..%lld  %s\n", ps->name, (long long)ps->min,
                   (long long)ps->max, ps->help);
          else if (ps->type == GR_PARAM_FILE)
            printf("  param %-10s FILE  %s (optional)\n", ps->name, ps->help);
          else {
            printf("  param %-10s ", ps->name);
            for (int k = 0; ps->choices[k]; k++)
              printf("%s%s", k ? "|" : "", ps->choices[k]);
            printf("  %s\n", ps->help);
          }
        }
      }
      if (pat) {
        int w = 22; /* the regime column: as wide as the algorithm's longest name */
        for (size_t r = 0; r < a->n_regimes; r++)
          if ((int)strlen(a->regimes[r].name) > w)
            w = (int)strlen(a->regimes[r].name);
        for (size_t r = 0; r < a->n_regimes; r++)
          printf("  regime %-*s %s\n", w, a->regimes[r].name,
                 a->regimes[r].variants ? a->regimes[r].variants : "(every GPU variant)");
      }
      last = a;
    }
    const struct gr_variant *v = sel.v[i];
    printf("  %-20s %-10s %-4s %s\n", v->name, gr_variant_kind_name(v->kind),
           (v->flags & GR_VARIANT_GPU) ? "gpu" : "cpu", v->story);
  }
#ifdef GR_HOST_ONLY /* on stderr: what parses the list (completions) reads stdout */
  for (size_t i = 0; i < sel.n; i++)
    if (sel.v[i]->flags & GR_VARIANT_GPU) {
      fprintf(stderr, "(the gpu variants cannot run: this gpuregress was built without CUDA, "
                      "-DGPUREGRESS_CUDA=OFF)\n");
      break;
    }
#endif
  return 0;
}

