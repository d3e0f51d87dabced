/* `gpuregress compare`: a run against its baseline, printed as a table, JSON or Markdown. The work
 * is in compare.c and verdict.c; this file parses options, prints and picks the exit code. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "options.h"
#include "verdict.h"

/* ---- compare ------------------------------------------------------------------------------ */

enum {
  OPT_BASELINE = 256, OPT_RUN, OPT_MIN_EFFECT, OPT_ALPHA, OPT_ALL, OPT_FORMAT, OPT_ACC,
  OPT_RECORD, OPT_NIGHTLY_EXIT, OPT_CLOCK, OPT_NIGHT_SIGMAS, OPT_CONFIRM
};

static const struct cli_opt compare_options[] = {
    {"baseline", OPT_BASELINE, 0, "RUN|FILE|none", CLI_FILE, NULL,
     "RUN: a run id of this database; FILE: another gpuregress database, e.g. a committed\n"
     "results/baselines/*.db made with 'gpuregress export --format db': its latest finished\n"
     "run on the same GPU model (or, failing that, any: timings then count as unsure); none:\n"
     "judge the run alone. Default: the latest finished run before --run on the same GPU\n"
     "model and host, else on the same GPU model"},
    {"run", OPT_RUN, 0, "RUN", CLI_NONE, NULL,
     "the run to judge (default: the latest finished run with results)"},
    {"min-effect", OPT_MIN_EFFECT, 0, "E", CLI_NONE, NULL,
     "minimum relative change of the median (default 0.05); per algorithm:\n"
     "--min-effect 0.05,ari=0.1 (repeatable)"},
    {"alpha", OPT_ALPHA, 0, "A", CLI_NONE, NULL,
     "significance level of the rank test (default 0.01); per algorithm too"},
    {"night-sigmas", OPT_NIGHT_SIGMAS, 0, "K", CLI_NONE, NULL,
     "a benchmark's minimum effect is at least K times the noise of a difference of two\n"
     "nights: sqrt(2) x the spread of its median over the last 20 finished runs before --run\n"
     "on the same GPU model, where there are 5 or more (default 3; 0 off); this host's own\n"
     "runs where it has 5 or more"},
    {"confirm", OPT_CONFIRM, 0, "DIR", CLI_DIR, NULL,
     "interleaved re-timings on this GPU (DIR/base.db: the last good build, DIR/head.db: this\n"
     "one, as ci/pr-check --rounds writes them): a benchmark judged slower (or half its min\n"
     "effect above its level) is red only when the mean of the faster half of this build's\n"
     "rounds is 0.6 x its min effect over the last good build's; else 'not confirmed on this\n"
     "machine' (unsure). The status file's 'confirm' lists what to re-time (ALG/VARIANT,...)"},
    {"max-accuracy-loss", OPT_ACC, 0, "L", CLI_NONE, NULL,
     "rise of an accuracy metric (an error rate such as SGM's bad-pixel rate, as a fraction)\n"
     "that is an accuracy regression (default 0.005)"},
    CLI_DB_OPT,
    {"all", OPT_ALL, 0, NULL, CLI_NONE, NULL,
     "list every comparison, not only the ones that are not 'same'"},
    {"format", OPT_FORMAT, 0, "text|json|markdown", CLI_WORDS, "text json markdown",
     "text: the table (default); json: the run's verdict (outcomes, checks, timings against\n"
     "the baseline, open regressions, result, exit code); markdown: the verdict for a pull\n"
     "request comment or a CI job summary ($GITHUB_STEP_SUMMARY): verdict first, the\n"
     "regressions with ratio, p, commits and a reproducer, the rest folded in <details>"},
    {"record", OPT_RECORD, 0, NULL, CLI_NONE, NULL,
     "store the verdict with the run (the index of nights shows it) and the regressions open\n"
     "on it (the next night carries them on); ci/nightly does this every night"},
    {"nightly-exit", OPT_NIGHTLY_EXIT, 0, "N", CLI_NONE, NULL,
     "with --record: store N as the nightly pipeline's exit code"},
    {"max-clock-diff", OPT_CLOCK, 0, "F", CLI_NONE, NULL,
     "warn when the SM clock while timing or the memory clock of the two runs differ by more\n"
     "than F (default 0.05)"},
    CLI_HELP_OPT,
    {0},
};

const struct cli_command cli_compare_cmd = {
    .name = "compare",
    .synopsis = "[--baseline RUN|FILE|none] [--run RUN] [--format text|json|markdown] [options]",
    .about =
        "Compare a run (default: the latest finished one) with a baseline run: per (algorithm,\n"
        "variant, params) its timing samples are classified same / faster / slower / unsure by a\n"
        "Mann-Whitney U test (normal approximation, tie correction) together with a minimum effect\n"
        "on the ratio of medians: slower or faster needs |ratio - 1| >= E and p < A; same needs\n"
        "|ratio - 1| < E with both medians known to within E/2; anything else is unsure.\n"
        "Correctness transitions are regressions: a fixed variant from pass to fail / crash /\n"
        "timeout (in the run's outcomes or in the check after timing), a historical bug from\n"
        "caught to escaped. So is a rise of an accuracy metric stored with a timing (SGM's\n"
        "bad-pixel rates on pairs with a ground truth) beyond --max-accuracy-loss.",
    .opts = compare_options,
    .after =
        "Over the nights: a step to slower that 'gpuregress history' confirms first on the run's\n"
        "night fails it, and a regression found on an earlier recorded night stays open, failing\n"
        "every night, until the benchmark is back within its minimum effect of the median before\n"
        "it or someone acknowledges it ('gpuregress ack').\n"
        "\n"
        "The last lines are the run's verdict (the same that export and plot show): exit 0 ok\n"
        "(also when there is no baseline yet), 1 a timing is slower, a correctness transition or\n"
        "an accuracy regression was found or a check of the run failed, 2 usage or database\n"
        "error, 3 no GPU variant could run (unless the run had --allow-no-gpu) or the run did\n"
        "not finish.",
};

static void print_compare(FILE *f, const struct compare_result *r, const struct compare_opts *o,
                          int all)
{
  fprintf(f, "compare run %lld (%.12s, %s) against run %lld (%.12s, %s)%s\n",
          (long long)r->cur.id, r->cur.commit, r->cur.gpu[0] ? r->cur.gpu : "no GPU",
          (long long)r->base.id, r->base.commit, r->base.gpu[0] ? r->base.gpu : "no GPU",
          r->base_other_gpu ? "  [another GPU model: timings are not comparable]" : "");
  fprintf(f, "min effect %.3g%%, alpha %g", 100 * o->min_effect, o->alpha);
  for (size_t k = 0; k < o->n_over; k++) {
    fprintf(f, "; %s:", o->over[k].alg);
    if (o->over[k].min_effect >= 0)
      fprintf(f, " min effect %.3g%%", 100 * o->over[k].min_effect);
    if (o->over[k].alpha >= 0)
      fprintf(f, " alpha %g", o->over[k].alpha);
  }
  fprintf(f, "\n");
  int header = 0;
  for (size_t i = 0; i < r->n_t; i++) {
    const struct compare_timing *t = &r->t[i];
    const char *cls = !t->in_base ? (t->in_cur ? "new" : "-")
                      : !t->in_cur ? "gone"
                                   : stats_class_name(t->sc.cls);
    int same = t->in_base && t->in_cur && t->sc.cls == STATS_SAME && !t->regression;
    if ((same && !all) || (!t->in_base && !t->in_cur && !t->regression))
      continue;
    if (!header++)
      fprintf(f, "\n%-10s %-20s %-48s %10s %10s %7s %8s  %s\n", "algorithm", "variant", "params",
              "base ms", "new ms", "ratio", "p", "verdict");
    char bm[24] = "-", cm[24] = "-", ratio[16] = "-", p[16] = "-";
    if (t->in_base && t->in_cur) {
      gr_fmt(bm, sizeof bm, "%.4f", t->sc.base.median);
      gr_fmt(cm, sizeof cm, "%.4f", t->sc.cur.median);
      gr_fmt(ratio, sizeof ratio, "%.3fx", t->sc.ratio);
      gr_fmt(p, sizeof p, "%.1e", t->sc.p);
    }
    char reg[64] = "";
    if (t->regression)
      gr_fmt(reg, sizeof reg, "  REGRESSION: check %s -> %s",
             t->base_verdict[0] ? t->base_verdict : "-", t->cur_verdict);
    fprintf(f, "%-10s %-20s %-48.48s %10s %10s %7s %8s  %s%s%s\n", t->algorithm, t->variant,
            t->params, bm, cm, ratio, p, cls, !strcmp(t->l2, "hot") ? " (hot)" : "", reg);
  }
  int oc_header = 0;
  for (size_t i = 0; i < r->n_oc; i++) {
    const struct compare_outcome *c = &r->oc[i];
    /* --all: every change of verdict between two runs that both have outcomes */
    if (!c->regression && (!all || !c->base_verdict[0] || !c->cur_verdict[0] ||
                           !strcmp(c->base_verdict, c->cur_verdict)))
      continue;
    if (!oc_header++)
      fprintf(f, "\n%-10s %-20s %-10s %-8s    %-8s\n", "algorithm", "variant", "kind", "base",
              "new");
    fprintf(f, "%-10s %-20s %-10s %-8s -> %-8s%s\n", c->algorithm, c->variant, c->kind,
            c->base_verdict[0] ? c->base_verdict : "-", c->cur_verdict[0] ? c->cur_verdict : "-",
            c->regression ? "  REGRESSION" : "");
  }
  int acc_header = 0;
  for (size_t i = 0; i < r->n_acc; i++) {
    const struct compare_accuracy *a = &r->acc[i];
    if (!a->regression && !(all && a->in_base && a->in_cur))
      continue;
    if (!acc_header++)
      fprintf(f, "\n%-10s %-20s %-48s %-12s %8s %8s\n", "algorithm", "variant", "params",
              "accuracy", "base", "new");
    fprintf(f, "%-10s %-20s %-48.48s %-12s %7.3f%% %7.3f%%%s\n", a->algorithm, a->variant,
            a->params, a->metric, 100 * a->base, 100 * a->cur,
            a->regression ? "  ACCURACY REGRESSION" : "");
  }
  /* the same GPU model, another physical GPU or host: compared, and said */
  for (size_t i = 0, shown = 0; i < r->n_t && r->n_other_device; i++) {
    const struct compare_timing *t = &r->t[i];
    if (!t->other_device)
      continue;
    if (!shown++)
      fprintf(f, "\n%zu benchmark%s timed on another physical GPU or host of the same model than "
                 "in the baseline (compared as the same model):\n",
              r->n_other_device, r->n_other_device == 1 ? " was" : "s were");
    if (shown > 5) {
      fprintf(f, "  ...\n");
      break;
    }
    fprintf(f, "  %s/%s %.48s: %s %s@%s -> %s@%s\n", t->algorithm, t->variant, t->params,
            t->cur_gpu, t->base_uuid[0] ? t->base_uuid : "?", t->base_host[0] ? t->base_host : "?",
            t->cur_uuid[0] ? t->cur_uuid : "?", t->cur_host[0] ? t->cur_host : "?");
  }
  /* moved by the minimum effect, but within what its own history moves between nights */
  for (size_t i = 0, shown = 0; i < r->n_t; i++) {
    const struct compare_timing *t = &r->t[i];
    double e = compare_min_effect_variant(o, t->algorithm, t->variant);
    if (!t->in_base || !t->in_cur || t->min_effect <= e || fabs(t->sc.ratio - 1) < e ||
        fabs(t->sc.ratio - 1) >= t->min_effect)
      continue;
    if (!shown++)
      fprintf(f, "\nmoved by the min effect or more, within %g x sqrt(2) x their night-to-night "
                 "noise (the last nights before this run on this GPU model):\n",
              o->night_sigmas);
    fprintf(f, "  %s/%s %.48s: ratio %.3fx, noise %.2f%% over %d nights: min effect %.3g%%\n",
            t->algorithm, t->variant, t->params, t->sc.ratio, 100 * t->night_noise, t->nights,
            100 * t->min_effect);
  }
  /* judged slower, not red: not confirmed on this machine */
  for (size_t i = 0, shown = 0; i < r->n_t && r->n_unconfirmed; i++) {
    const struct compare_timing *t = &r->t[i];
    if (!t->unconfirmed)
      continue;
    if (!shown++)
      fprintf(f, "\nnot confirmed on this machine (slower against the baseline, not red):\n");
    if (t->unconfirmed == 3)
      fprintf(f, "  %s/%s %.48s: a step over the nights; interleaved on this GPU %.3fx (%d "
                 "rounds each)\n",
              t->algorithm, t->variant, t->params, t->confirm_ratio, t->confirm_rounds);
    else if (t->unconfirmed == 2)
      fprintf(f, "  %s/%s %.48s: ratio %.3fx; interleaved on this GPU %.3fx (%d rounds each)\n",
              t->algorithm, t->variant, t->params, t->sc.ratio, t->confirm_ratio,
              t->confirm_rounds);
    else { /* another GPU of the same host, or another host */
      int gpu = t->base_uuid[0] && t->cur_uuid[0] && strcmp(t->base_uuid, t->cur_uuid) &&
                !strcmp(t->base_host, t->cur_host);
      fprintf(f, "  %s/%s %.48s: ratio %.3fx against %s '%s'; no nights of this %s yet\n",
              t->algorithm, t->variant, t->params, t->sc.ratio, gpu ? "GPU" : "host",
              gpu ? t->base_uuid : r->base.host, gpu ? "GPU" : "host");
    }
  }
  for (size_t i = 0, shown = 0; i < r->n_t && r->n_confirmed; i++) {
    const struct compare_timing *t = &r->t[i];
    if (!t->confirm_rounds || t->sc.cls != STATS_SLOWER)
      continue;
    if (!shown++)
      fprintf(f, "\nconfirmed on this GPU, interleaved with the last good build (red):\n");
    fprintf(f, "  %s/%s %.48s: ratio %.3fx; interleaved %.3fx (%d rounds each)\n", t->algorithm,
            t->variant, t->params, t->sc.ratio, t->confirm_ratio, t->confirm_rounds);
  }
  if (r->n_other_model && !r->base_other_gpu)
    fprintf(f, "\n%zu benchmark%s timed on another GPU model than in the baseline: unsure\n",
            r->n_other_model, r->n_other_model == 1 ? " was" : "s were");
  fprintf(f, "\ntimings: %zu same, %zu faster, %zu slower, %zu unsure (%zu new, %zu gone); "
             "correctness regressions: %zu; accuracy regressions: %zu (of %zu metrics, max loss "
             "%.3g points)\n",
          r->n_same, r->n_faster, r->n_slower, r->n_unsure, r->n_new, r->n_gone, r->n_regressions,
          r->n_acc_regressions, r->n_acc, 100 * o->max_accuracy_loss);
}

/* The open regressions, the steps confirmed on this night and the clock warning, after the
 * comparison's table. */
static void print_over_nights(FILE *f, const struct run_verdict *v)
{
  if (v->clock_warning[0])
    fprintf(f, "\nwarning: clocks differ: %s\n", v->clock_warning);
  int header = 0;
  for (size_t i = 0; i < v->n; i++) {
    const struct rv_test *t = &v->tests[i];
    if (strcmp(t->source, "regression") && strcmp(t->source, "history") &&
        !(t->repro && t->state == RV_FAIL))
      continue;
    if (!header++)
      fprintf(f, "\nslower and open regressions (commits: git log A..B; reproduce: the command):\n");
    fprintf(f, "  %s %s/%s: %s\n", t->state == RV_FAIL ? "FAIL" : "ack ", t->suite, t->name,
            t->message ? t->message : "");
    if (t->repro)
      fprintf(f, "      reproduce: %s\n", t->repro);
  }
  if (v->closed)
    fprintf(f, "\n%zu regressions of earlier nights are back within their threshold (closed)\n",
            v->closed);
}

/* compare --record: the verdict and the open regressions stored with the run (a writable
 * handle: the verdict was judged through a read-only one). 0 ok; -1 after a message. */
static int record_verdict(const char *db, const struct run_verdict *v, int nightly_exit)
{
  char why[GR_WHY_LEN];
  struct store *w = NULL;
  struct store_open_reg *regs = NULL;
  long n = run_verdict_open_regs(v, &regs);
  int rc = -1;
  if (n < 0)
    gr_fmt(why, sizeof why, "out of memory");
  else if (store_open_flags(db, STORE_OPEN_EXISTING, &w, why, sizeof why) == 0 &&
           store_record_verdict(w, v->run.id, rv_result_name(v->result), v->exit_code,
                                v->summary, regs, (size_t)n, why, sizeof why) == 0 &&
           (nightly_exit < 0 ||
            store_set_nightly_exit(w, v->run.id, nightly_exit, why, sizeof why) == 0))
    rc = 0;
  if (rc)
    fprintf(stderr, "gpuregress compare: --record: %s\n", why);
  free(regs);
  store_close(w);
  return rc;
}

/* What the command line of compare gives. */
struct compare_args {
  struct compare_opts co;
  const char *db, *baseline;
  int64_t run;
  int record, nightly_exit, markdown, json, all;
};

/* One option of the table (options.c). 0, or the exit code after a message. */
static int take_option(int c, struct compare_args *ca, char **argv)
{
  char why[GR_WHY_LEN], *end;
  uint64_t u;
  switch (c) {
  case OPT_FORMAT:
    if (strcmp(optarg, "json") && strcmp(optarg, "text") && strcmp(optarg, "markdown"))
      return cli_usage_error("compare", "unknown format '%s': use text, json or markdown", optarg);
    ca->json = !strcmp(optarg, "json");
    ca->markdown = !strcmp(optarg, "markdown");
    return 0;
  case OPT_RECORD: ca->record = 1; return 0;
  case OPT_NIGHTLY_EXIT:
    if (cli_opt_u64("compare", "--nightly-exit", optarg, 0, 255, &u))
      return GR_EXIT_USAGE;
    ca->nightly_exit = (int)u;
    return 0;
  case OPT_CLOCK:
    return cli_opt_double("compare", "--max-clock-diff", optarg, 1e-6, 10, &ca->co.max_clock_diff);
  case OPT_NIGHT_SIGMAS:
    return cli_opt_double("compare", "--night-sigmas", optarg, 0, 100, &ca->co.night_sigmas);
  case OPT_BASELINE: return cli_opt_text("compare", "--baseline", optarg, CLI_TEXT_MAX, &ca->baseline);
  case OPT_RUN: return cli_run_option("compare", optarg, &ca->run) ? GR_EXIT_USAGE : 0;
  case OPT_MIN_EFFECT:
  case OPT_ALPHA:
    if (compare_opts_parse(&ca->co, c == OPT_ALPHA, optarg, why, sizeof why))
      return cli_usage_error("compare", "%s", why);
    return 0;
  case OPT_CONFIRM: return cli_opt_text("compare", "--confirm", optarg, CLI_TEXT_MAX, &ca->co.confirm);
  case 'd': return cli_opt_text("compare", "--db", optarg, CLI_TEXT_MAX, &ca->db);
  case OPT_ALL: ca->all = 1; return 0;
  case OPT_ACC:
    ca->co.max_accuracy_loss = strtod(optarg, &end);
    if (end == optarg || *end || !(ca->co.max_accuracy_loss >= 0 && ca->co.max_accuracy_loss < 1))
      return cli_usage_error("compare", "bad value '%s' for --max-accuracy-loss: a fraction in [0, 1)",
                             optarg);
    return 0;
  default: return cli_opt_error("compare", c, argv);
  }
}

/* The benchmarks to re-time against the last good build (ci/nightly): each slower candidate and
 * each with an open regression or a step of the history, once, comma-separated. */
static void confirm_list(const struct run_verdict *v, char *list, size_t len)
{
  size_t at = 0;
  list[0] = 0;
  for (size_t i = 0; i < v->cmp->n_t; i++) {
    const struct compare_timing *t = &v->cmp->t[i];
    char name[160];
    gr_fmt(name, sizeof name, "%s/%s", t->algorithm, t->variant);
    size_t nl = strlen(name);
    const char *seen = strstr(list, name);
    int dup = seen && (seen[nl] == ',' || !seen[nl]) && (seen == list || seen[-1] == ',');
    int open = 0; /* an open regression or a step of the history: re-timed too */
    for (size_t k = 0; k < v->n_open && !open; k++)
      open = !v->open[k].closed && !strcmp(v->open[k].reg.algorithm, t->algorithm) &&
             !strcmp(v->open[k].reg.variant, t->variant);
    if ((t->candidate || open) && !dup && at + nl + 2 < len)
      at += (size_t)snprintf(list + at, len - at, "%s%s", at ? "," : "", name);
  }
}

/* The status lines of the comparison (cli.h). */
static void compare_status(const struct run_verdict *v, int compared)
{
  cli_status_set("compared", "%d", compared);
  if (v->cmp) {
    char list[2048];
    confirm_list(v, list, sizeof list);
    cli_status_set("confirm", "%s", list);
    cli_status_set("not_confirmed", "%zu", v->cmp->n_unconfirmed);
  }
  cli_status_set("result", "%s", v->result == RV_RESULT_FAILED ? "regression" : rv_result_name(v->result));
  cli_status_set("verdict", "%s", v->summary);
  if (v->history_checked) { /* over the nights: what stays open, what a night confirmed */
    cli_status_set("open_regressions", "%zu", v->open_unacked);
    cli_status_set("acknowledged", "%zu", v->open_acked);
    cli_status_set("history_steps", "%zu", v->history_new);
  }
}

/* The verdict in the format asked for; recorded with --record. Returns the exit code. */
static int compare_report(const struct compare_args *ca, const struct run_verdict *v, int compared)
{
  int text = !ca->json && !ca->markdown;
  if (ca->json) {
    run_verdict_json(stdout, v, "");
    fputc('\n', stdout);
  } else if (ca->markdown) {
    run_verdict_markdown(stdout, v);
  } else if (!compared) {
    printf("compare: no earlier finished run on '%s' to compare run %lld with: nothing compared\n",
           v->run.gpu[0] ? v->run.gpu : "no GPU", (long long)ca->run);
  } else {
    print_compare(stdout, v->cmp, &ca->co, ca->all);
  }
  if (text)
    print_over_nights(stdout, v);
  int rc = v->exit_code;
  if (ca->record && record_verdict(ca->db, v, ca->nightly_exit))
    return GR_EXIT_USAGE;
  if (text)
    printf("verdict: %s\nresult: %s exit %d\n", v->summary,
           v->result == RV_RESULT_OK       ? "ok"
           : v->result == RV_RESULT_FAILED ? "REGRESSION"
           : v->result == RV_RESULT_NO_GPU ? "no GPU"
                                           : "incomplete",
           rc);
  compare_status(v, compared);
  return rc;
}

int cmd_compare(int argc, char **argv)
{
  struct compare_args ca = {.db = STORE_DEFAULT_PATH, .nightly_exit = -1};
  compare_opts_default(&ca.co);
  int c, rc;
  while ((c = cli_next(&cli_compare_cmd, argc, argv)) != -1) {
    if (c == CLI_HELP)
      return cli_help(&cli_compare_cmd);
    if ((rc = take_option(c, &ca, argv)) != 0)
      return rc;
  }
  if (optind < argc)
    return cli_usage_error("compare", "unexpected argument '%s'", argv[optind]);
  if (ca.nightly_exit >= 0 && !ca.record)
    return cli_usage_error("compare", "--nightly-exit needs --record");
  struct store *st = NULL;
  struct run_verdict *v = NULL;
  int compared = 0;
  rc = cli_open_and_judge("compare", ca.db, &ca.run, ca.baseline, &ca.co, 1, &st, &v, &compared);
  if (!rc)
    rc = compare_report(&ca, v, compared);
  run_verdict_free(v);
  store_close(st);
  return rc;
}
