/* `gpuregress compare`, `plot` and `export`: the commands that read the store. The work is in
 * compare.c, plot.c and export.c; this file parses options, prints and picks the exit code. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "export.h"
#include "plot.h"
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
static int parse_run(const char *cmd, const char *s, int64_t *out)
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
  if (*run <= 0) {
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
  struct rv_opts o = {.base_src = STORE_MAIN, .co = co};
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
    if (o.base <= 0) {
      fprintf(stderr, "gpuregress %s: baseline '%s' holds no finished run with results\n", cmd,
              baseline);
      return GR_EXIT_USAGE;
    }
  } else {
    o.base = store_pick_run(st, STORE_MAIN, run, &other_gpu);
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
static int open_and_judge(const char *cmd, const char *db, int64_t *run, const char *baseline,
                          const struct compare_opts *co, int want_verdict, struct store **st,
                          struct run_verdict **v, int *compared)
{
  int rc = cli_open_existing(cmd, db, st);
  if (!rc)
    rc = pick_run(cmd, *st, run);
  if (!rc && want_verdict)
    rc = judge(cmd, *st, *run, baseline, co, v, compared);
  return rc;
}

/* ---- compare ------------------------------------------------------------------------------ */

static const char compare_help[] =
    "usage: gpuregress compare [--baseline RUN|FILE|none] [--run RUN] [--min-effect E]\n"
    "                          [--alpha A] [--db FILE] [--all] [--format text|json]\n"
    "\n"
    "Compare a run (default: the latest finished one) with a baseline run: per (algorithm,\n"
    "variant, params) its timing samples are classified same / faster / slower / unsure by a\n"
    "Mann-Whitney U test (normal approximation, tie correction) together with a minimum effect on\n"
    "the ratio of medians: slower or faster needs |ratio - 1| >= E and p < A; same needs\n"
    "|ratio - 1| < E with both medians known to within E/2; anything else is unsure. Correctness\n"
    "transitions are regressions: a fixed variant from pass to fail / crash / timeout (in the\n"
    "run's outcomes or in the check after timing), a historical bug from caught to escaped. So\n"
    "is a rise of an accuracy metric stored with a timing (SGM's bad-pixel rates on pairs with a\n"
    "ground truth) beyond --max-accuracy-loss.\n"
    "\n"
    "  --baseline RUN   a run id of this database\n"
    "  --baseline FILE  another gpuregress database, e.g. a committed results/baselines/*.db made\n"
    "                   with 'gpuregress export --format db': its latest finished run on the same\n"
    "                   GPU model (or, failing that, any: timings then count as unsure)\n"
    "                   default: the latest finished run before --run on the same GPU model\n"
    "  --run RUN        the run to judge (default: the latest finished run with results)\n"
    "  --min-effect E   minimum relative change of the median (default 0.05); per algorithm:\n"
    "                   --min-effect 0.05,ari=0.1 (repeatable)\n"
    "  --alpha A        significance level of the rank test (default 0.01); per algorithm too\n"
    "  --max-accuracy-loss L  rise of an accuracy metric (an error rate such as SGM's bad-pixel\n"
    "                   rate, as a fraction) that is an accuracy regression (default 0.005)\n"
    "  -d, --db FILE    SQLite database (default " STORE_DEFAULT_PATH ")\n"
    "  --all            list every comparison, not only the ones that are not 'same'\n"
    "  --format json    print the run's verdict (outcomes, checks, timings against the\n"
    "                   baseline, result, exit code) as JSON instead of the table\n"
    "\n"
    "The last lines are the run's verdict (the same that export and plot show): exit 0 ok (also\n"
    "when there is no baseline yet), 1 a timing is slower, a correctness transition or an\n"
    "accuracy regression was found or a check of the run failed, 2 usage or database error, 3\n"
    "no GPU variant could run (unless the run had --allow-no-gpu) or the run did not finish.\n";

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
  fprintf(f, "\ntimings: %zu same, %zu faster, %zu slower, %zu unsure (%zu new, %zu gone); "
             "correctness regressions: %zu; accuracy regressions: %zu (of %zu metrics, max loss "
             "%.3g points)\n",
          r->n_same, r->n_faster, r->n_slower, r->n_unsure, r->n_new, r->n_gone, r->n_regressions,
          r->n_acc_regressions, r->n_acc, 100 * o->max_accuracy_loss);
}

int cmd_compare(int argc, char **argv)
{
  enum { OPT_BASELINE = 256, OPT_RUN, OPT_MIN_EFFECT, OPT_ALPHA, OPT_ALL, OPT_FORMAT, OPT_ACC };
  static const struct option opts[] = {
      {"baseline", required_argument, NULL, OPT_BASELINE},
      {"format", required_argument, NULL, OPT_FORMAT},
      {"run", required_argument, NULL, OPT_RUN},
      {"min-effect", required_argument, NULL, OPT_MIN_EFFECT},
      {"alpha", required_argument, NULL, OPT_ALPHA},
      {"db", required_argument, NULL, 'd'},
      {"all", no_argument, NULL, OPT_ALL},
      {"max-accuracy-loss", required_argument, NULL, OPT_ACC},
      {"help", no_argument, NULL, 'h'},
      {0, 0, 0, 0},
  };
  struct compare_opts co;
  compare_opts_default(&co);
  const char *db = STORE_DEFAULT_PATH, *baseline = NULL;
  int64_t run = 0;
  int all = 0, json = 0, c;
  char why[GR_WHY_LEN];
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":d:h", opts, NULL)) != -1) {
    switch (c) {
    case 'h': printf(compare_help); return 0;
    case OPT_FORMAT:
      if (strcmp(optarg, "json") && strcmp(optarg, "text"))
        return cli_usage_error("compare", "unknown format '%s': use text or json", optarg);
      json = !strcmp(optarg, "json");
      break;
    case OPT_BASELINE:
      if (cli_opt_text("compare", "--baseline", optarg, CLI_TEXT_MAX, &baseline))
        return GR_EXIT_USAGE;
      break;
    case OPT_RUN:
      if (parse_run("compare", optarg, &run))
        return GR_EXIT_USAGE;
      break;
    case OPT_MIN_EFFECT:
    case OPT_ALPHA:
      if (compare_opts_parse(&co, c == OPT_ALPHA, optarg, why, sizeof why))
        return cli_usage_error("compare", "%s", why);
      break;
    case 'd':
      if (cli_opt_text("compare", "--db", optarg, CLI_TEXT_MAX, &db))
        return GR_EXIT_USAGE;
      break;
    case OPT_ALL: all = 1; break;
    case OPT_ACC: {
      char *end;
      co.max_accuracy_loss = strtod(optarg, &end);
      if (end == optarg || *end || !(co.max_accuracy_loss >= 0 && co.max_accuracy_loss < 1))
        return cli_usage_error("compare", "bad value '%s' for --max-accuracy-loss: a fraction in [0, 1)",
                               optarg);
      break;
    }
    default: return cli_opt_error("compare", c, argv);
    }
  }
  if (optind < argc)
    return cli_usage_error("compare", "unexpected argument '%s'", argv[optind]);
  struct store *st = NULL;
  struct run_verdict *v = NULL;
  int compared = 0;
  int rc = open_and_judge("compare", db, &run, baseline, &co, 1, &st, &v, &compared);
  if (rc)
    goto out;
  if (json) {
    run_verdict_json(stdout, v, "");
    fputc('\n', stdout);
  } else if (!compared) {
    printf("compare: no earlier finished run on '%s' to compare run %lld with: nothing compared\n",
           v->run.gpu[0] ? v->run.gpu : "no GPU", (long long)run);
  } else {
    print_compare(stdout, v->cmp, &co, all);
  }
  rc = v->exit_code;
  if (!json)
    printf("verdict: %s\nresult: %s exit %d\n", v->summary,
           v->result == RV_RESULT_OK       ? "ok"
           : v->result == RV_RESULT_FAILED ? "REGRESSION"
           : v->result == RV_RESULT_NO_GPU ? "no GPU"
                                           : "incomplete",
           rc);
  cli_status_set("compared", "%d", compared);
  cli_status_set("result", "%s", v->result == RV_RESULT_FAILED ? "regression" : rv_result_name(v->result));
  cli_status_set("verdict", "%s", v->summary);
out:
  run_verdict_free(v);
  store_close(st);
  return rc;
}

/* ---- plot --------------------------------------------------------------------------------- */

static const char plot_help[] =
    "usage: gpuregress plot [--run RUN] [--out DIR] [--db FILE] [--scripts DIR]\n"
    "\n"
    "Plots and the static dashboard of a run (default: the latest finished run with results):\n"
    "per algorithm, time and throughput against size for every variant with the peer and the\n"
    "copy-bandwidth floor; historical bugs caught per run (a row per bug) with the cases it\n"
    "took; and the history up to the run: every benchmark's trend over the nights (median,\n"
    "min-max band, dates and commits, change points as 'gpuregress history' finds them), its GPU\n"
    "models side by side, one page per algorithm, and the index of nights. Data files, PNG and\n"
    "SVG (the trends: SVG only) go to DIR/plots/; the dashboard (self-contained HTML, readable\n"
    "offline) to DIR/dashboard/: index.html (the run), run-RUN.html (the same, kept for the\n"
    "index of nights), history-ALG.html.\n"
    "\n"
    "  --run RUN       the run (default: latest)\n"
    "  --baseline B    what the banner and the changes compare with: RUN, FILE or none, as for\n"
    "                  compare (default: the latest finished earlier run on the same GPU model)\n"
    "  --out DIR       output folder (default results)\n"
    "  -d, --db FILE   SQLite database (default " STORE_DEFAULT_PATH ")\n"
    "  --scripts DIR   where the gnuplot scripts (*.gp) are (default: beside the binary in\n"
    "                  scripts/, an installed tree's share/gpuregress/scripts/, then the\n"
    "                  source tree's scripts/)\n"
    "\n"
    "Exit 0 ok, 2 usage or database error, 3 gnuplot is missing (data files and the dashboard\n"
    "without plots are still written; install gnuplot-nox).\n";

int cmd_plot(int argc, char **argv)
{
  enum { OPT_RUN = 256, OPT_OUT, OPT_SCRIPTS, OPT_BASELINE };
  static const struct option opts[] = {
      {"run", required_argument, NULL, OPT_RUN},
      {"baseline", required_argument, NULL, OPT_BASELINE},
      {"out", required_argument, NULL, OPT_OUT},
      {"db", required_argument, NULL, 'd'},
      {"scripts", required_argument, NULL, OPT_SCRIPTS},
      {"help", no_argument, NULL, 'h'},
      {0, 0, 0, 0},
  };
  const char *db = STORE_DEFAULT_PATH, *out = "results", *scripts = NULL, *baseline = NULL;
  int64_t run = 0;
  int c;
  char why[GR_WHY_LEN];
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":d:h", opts, NULL)) != -1) {
    switch (c) {
    case 'h': printf(plot_help); return 0;
    case OPT_RUN:
      if (parse_run("plot", optarg, &run))
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
    default: return cli_opt_error("plot", c, argv);
    }
  }
  if (optind < argc)
    return cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
  struct store *st = NULL;
  struct run_verdict *v = NULL;
  int compared;
  int rc = open_and_judge("plot", db, &run, baseline, NULL, 1, &st, &v, &compared);
  if (rc)
    goto out;
  struct plot_opts po = {.out_dir = out, .scripts_dir = scripts, .verdict = v};
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

static const char export_help[] =
    "usage: gpuregress export --format json|csv|junit|db [--run RUN] [--out FILE] [--db FILE]\n"
    "                         [--baseline RUN|FILE|none]\n"
    "\n"
    "Write a run (default: the latest finished run with results):\n"
    "  json   the run's verdict (as 'compare --format json'), the run, its outcomes and its\n"
    "         timings (summaries, not samples)\n"
    "  csv    its timings, one row per (algorithm, variant, params), with a header\n"
    "  junit  JUnit XML (Jenkins junit-10 shape, ci/junit-10.xsd) of the verdict: one suite per\n"
    "         algorithm with the run's properties; a test case per (algorithm, variant) outcome\n"
    "         and check after timing (pass and caught pass, escaped and failures fail, skip is\n"
    "         skipped) and per timing compared with the baseline (slower fails with the ratio,\n"
    "         the p-value and the baseline run, unsure is skipped with the reason)\n"
    "  db     a new gpuregress database holding only this run with its samples: a baseline for\n"
    "         'gpuregress compare --baseline FILE' (e.g. results/baselines/<gpu>.db)\n"
    "\n"
    "  --out FILE       (default stdout; required for db)\n"
    "  --baseline B     RUN, FILE or none, as for compare (default: the latest finished earlier\n"
    "                   run on the same GPU model)\n"
    "\n"
    "Exit 0 ok, 2 usage or database error.\n";

int cmd_export(int argc, char **argv)
{
  enum { OPT_RUN = 256, OPT_OUT, OPT_FORMAT, OPT_BASELINE };
  static const struct option opts[] = {
      {"format", required_argument, NULL, OPT_FORMAT},
      {"baseline", required_argument, NULL, OPT_BASELINE},
      {"run", required_argument, NULL, OPT_RUN},
      {"out", required_argument, NULL, OPT_OUT},
      {"db", required_argument, NULL, 'd'},
      {"help", no_argument, NULL, 'h'},
      {0, 0, 0, 0},
  };
  const char *db = STORE_DEFAULT_PATH, *out = NULL, *format = NULL, *baseline = NULL;
  int64_t run = 0;
  int c;
  char why[GR_WHY_LEN];
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":d:h", opts, NULL)) != -1) {
    switch (c) {
    case 'h': printf(export_help); return 0;
    case OPT_BASELINE:
      if (cli_opt_text("export", "--baseline", optarg, CLI_TEXT_MAX, &baseline))
        return GR_EXIT_USAGE;
      break;
    case OPT_FORMAT:
      if (cli_opt_text("export", "--format", optarg, CLI_TEXT_MAX, &format))
        return GR_EXIT_USAGE;
      break;
    case OPT_RUN:
      if (parse_run("export", optarg, &run))
        return GR_EXIT_USAGE;
      break;
    case OPT_OUT:
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
  enum export_format fmt;
  if (!format)
    return cli_usage_error("export", "missing --format (json, csv, junit or db)");
  if (export_format_parse(format, &fmt))
    return cli_usage_error("export", "unknown format '%s': use json, csv, junit or db", format);
  if (fmt == EXPORT_DB && !out)
    return cli_usage_error("export", "--format db needs --out FILE");
  struct store *st = NULL;
  struct run_verdict *v = NULL;
  int compared;
  int rc = open_and_judge("export", db, &run, baseline, NULL, fmt != EXPORT_DB, &st, &v, &compared);
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
