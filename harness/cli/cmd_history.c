/* `gpuregress history`, `import` and `prune`: the history of many nights and runners. The work
 * is in history.c (change detection), store_merge.c (import) and store_prune.c (retention); this
 * file parses options, prints and picks the exit code. */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "history.h"
#include "registry.h"

/* ---- history ------------------------------------------------------------------------------ */

enum { OPT_SINCE = 256, OPT_RUN, OPT_CHECK, OPT_MIN_EFFECT, OPT_ALPHA, OPT_MIN_NIGHTS, OPT_PENALTY,
       OPT_ALL };
static const struct cli_opt history_options[] = {
    {"since", OPT_SINCE, 0, "DATE", CLI_NONE, NULL,
     "nights started at or after DATE (YYYY-MM-DD[THH:MM[:SS]][Z], UTC)"},
    {"run", OPT_RUN, 0, "RUN", CLI_NONE, NULL, "the history up to this run (default: the latest night)"},
    {"check", OPT_CHECK, 0, NULL, CLI_NONE, NULL,
     "the night's verdict: exit 1 when a change to slower is new on the run's night\n"
     "(confirmed with it, not without it)"},
    {"min-effect", OPT_MIN_EFFECT, 0, "E", CLI_NONE, NULL,
     "minimum relative change (default 0.05); per algorithm: 0.05,ari=0.1"},
    {"alpha", OPT_ALPHA, 0, "A", CLI_NONE, NULL, "significance of the t-test (default 0.05); per algorithm too"},
    {"min-nights", OPT_MIN_NIGHTS, 0, "N", CLI_NONE, NULL,
     "nights on each side of a confirmed change (default 3)"},
    {"penalty", OPT_PENALTY, 0, "P", CLI_NONE, NULL,
     "cost of a change point in the fit, times log(nights) (default 3)"},
    {"all", OPT_ALL, 0, NULL, CLI_NONE, NULL,
     "also list every benchmark: nights, latest median, change points"},
    CLI_DB_OPT,
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_history_cmd = {
    .name = "history",
    .synopsis = "[ALG[/VARIANT]] [--since DATE] [--run RUN] [--check] [options]",
    .about =
        "Change points in the history of each benchmark (algorithm, variant, params, L2 mode, GPU\n"
        "model) over the nights (finished runs, in order of start) that timed it: a penalised step\n"
        "fit of the log of each night's median time (running median of 3 first; penalty P * log(n)\n"
        "in units of the night-to-night noise), each step confirmed by Welch's t-test between up to\n"
        "10 nights before and after it (p < A, at least N nights each side) and a change of the\n"
        "median of at least E. Each change names the last night before and the first night after:\n"
        "the commits between them (git log BEFORE..AFTER) hold the cause. ALG[/VARIANT]: only this\n"
        "algorithm (and variant).",
    .opts = history_options,
    .after = "Exit 0 ok (also with change points, without --check), 1 with --check: a new change\n"
             "to slower, 2 usage or database error.",
    .operand = CLI_TARGET,
};

struct history_print {
  int all, check;
  int64_t run;
  size_t series, changes, slower, faster, fresh_slower, header;
};

static void short_commit(char *dst, size_t len, const char *c)
{
  gr_fmt(dst, len, "%.10s", c[0] ? c : "?");
}

static int print_series(void *ctx, const struct history_series *s)
{
  struct history_print *hp = ctx;
  hp->series++;
  int judged = s->nights[s->n - 1].run == hp->run;
  if (hp->all)
    printf("%-10s %-20s %-40.40s %-4s %4zu nights, latest %.4f ms, %zu change points  %s\n",
           s->algorithm, s->variant, s->params, s->l2, s->n, s->nights[s->n - 1].median_ms,
           s->n_changes, s->gpu[0] ? s->gpu : "no GPU");
  for (size_t i = 0; i < s->n_changes; i++) {
    const struct history_change *c = &s->changes[i];
    const struct history_night *b = &s->nights[c->at - 1], *a = &s->nights[c->at];
    char cb[16], ca[16], when[96];
    int slower = c->ratio > 1;
    hp->changes++;
    hp->slower += slower;
    hp->faster += !slower;
    int fresh = judged && c->is_new;
    hp->fresh_slower += fresh && slower;
    if (!hp->header++)
      printf("\n%-10s %-20s %-40s %-4s %7s %10s %10s %8s  %-44s %s\n", "algorithm", "variant",
             "params", "L2", "change", "before ms", "after ms", "p",
             "last night before -> first after", "commits");
    short_commit(cb, sizeof cb, b->commit);
    short_commit(ca, sizeof ca, a->commit);
    gr_fmt(when, sizeof when, "%.10s (run %lld) -> %.10s (run %lld)", b->started, (long long)b->run,
           a->started, (long long)a->run);
    printf("%-10s %-20s %-40.40s %-4s %+6.1f%% %10.4f %10.4f %8.1e  %-44s %s..%s  %s%s\n",
           s->algorithm, s->variant, s->params, s->l2, 100 * (c->ratio - 1), c->before_ms,
           c->after_ms, c->p, when, cb, ca, s->gpu[0] ? s->gpu : "no GPU",
           fresh ? (slower ? "  NEW: REGRESSION" : "  NEW") : "");
  }
  return 0;
}

struct night_count {
  size_t n;
  char first[32], last[32];
  int64_t last_id;
};

static int count_night(void *ctx, const struct store_night *n)
{
  struct night_count *k = ctx;
  if (!k->n++)
    gr_fmt(k->first, sizeof k->first, "%s", n->started);
  gr_fmt(k->last, sizeof k->last, "%s", n->started);
  k->last_id = n->id;
  return 0;
}

/* What the command line of history gives. */
struct history_args {
  struct history_opts ho;
  struct history_print hp;
  const char *db, *since;
  char since_at[32], alg[64], var[64];
};

/* One option of the table (options.c). 0, or the exit code after a message. */
static int take_option(int c, struct history_args *ha, char **argv)
{
  char why[GR_WHY_LEN];
  uint64_t u;
  switch (c) {
  case OPT_SINCE:
    if (cli_opt_date("history", "--since", optarg, ha->since_at, sizeof ha->since_at))
      return GR_EXIT_USAGE;
    ha->since = ha->since_at;
    return 0;
  case OPT_RUN:
    if (cli_parse_run(optarg, &ha->hp.run))
      return cli_usage_error("history", "bad run id '%s'", optarg);
    return 0;
  case OPT_CHECK: ha->hp.check = 1; return 0;
  case OPT_MIN_EFFECT:
  case OPT_ALPHA:
    if (compare_opts_parse(&ha->ho.co, c == OPT_ALPHA, optarg, why, sizeof why))
      return cli_usage_error("history", "%s", why);
    return 0;
  case OPT_MIN_NIGHTS:
    if (cli_opt_u64("history", "--min-nights", optarg, 2, 100, &u))
      return GR_EXIT_USAGE;
    ha->ho.min_nights = (int)u;
    return 0;
  case OPT_PENALTY: return cli_opt_double("history", "--penalty", optarg, 0.1, 100, &ha->ho.penalty);
  case OPT_ALL: ha->hp.all = 1; return 0;
  case 'd': return cli_opt_text("history", "--db", optarg, CLI_TEXT_MAX, &ha->db);
  default: return cli_opt_error("history", c, argv);
  }
}

/* The options and the selection ALG or ALG/VARIANT. 0, -1 (--help printed: exit 0), or the
 * exit code after a message. */
static int parse_args(int argc, char **argv, struct history_args *ha)
{
  int c, rc;
  while ((c = cli_next(&cli_history_cmd, argc, argv)) != -1) {
    if (c == CLI_HELP) {
      cli_help(&cli_history_cmd);
      return -1;
    }
    if ((rc = take_option(c, ha, argv)) != 0)
      return rc;
  }
  if (optind < argc) {
    const char *slash = strchr(argv[optind], '/');
    gr_fmt(ha->alg, sizeof ha->alg, "%.*s", slash ? (int)(slash - argv[optind]) : 63,
           argv[optind]);
    if (slash)
      gr_fmt(ha->var, sizeof ha->var, "%s", slash + 1);
    if (!ha->alg[0] || (slash && !ha->var[0]))
      return cli_usage_error("history", "bad selection '%s': use ALG or ALG/VARIANT", argv[optind]);
    optind++;
  }
  if (optind < argc)
    return cli_usage_error("history", "unexpected argument '%s'", argv[optind]);
  return 0;
}

/* The head line: the nights, the run, the thresholds (and each algorithm's own). */
static void print_head(const struct history_args *ha, const struct night_count *nc)
{
  const struct compare_opts *co = &ha->ho.co;
  printf("history: %zu nights", nc->n);
  if (nc->n)
    printf(" (%.10s .. %.10s)", nc->first, nc->last);
  printf(" up to run %lld; min effect %.3g%%, alpha %g, %d nights each side",
         (long long)ha->hp.run, 100 * co->min_effect, co->alpha, ha->ho.min_nights);
  for (size_t k = 0; k < co->n_over; k++) {
    printf("; %s:", co->over[k].alg);
    if (co->over[k].min_effect >= 0)
      printf(" min effect %.3g%%", 100 * co->over[k].min_effect);
    if (co->over[k].alpha >= 0)
      printf(" alpha %g", co->over[k].alpha);
  }
  printf("\n");
  if (ha->hp.all)
    printf("\n");
}

/* The change points of the selected series in the open store, then the tally (and with --check
 * the result). Returns the exit code. */
static int history_report(struct store *st, struct history_args *ha)
{
  struct history_print *hp = &ha->hp;
  char why[GR_WHY_LEN];
  struct store_run rb;
  if (hp->run > 0 && store_get_run(st, STORE_MAIN, hp->run, &rb)) {
    fprintf(stderr, "gpuregress history: no run %lld in the database\n", (long long)hp->run);
    return GR_EXIT_USAGE;
  }
  struct night_count nc = {0};
  if (store_each_night(st, ha->since, hp->run, count_night, &nc)) {
    fprintf(stderr, "gpuregress history: cannot read the runs: %s\n", store_errmsg(st));
    return GR_EXIT_USAGE;
  }
  if (!hp->run)
    hp->run = nc.last_id;
  print_head(ha, &nc);
  if (history_scan(st, ha->since, hp->run, ha->alg[0] ? ha->alg : NULL,
                   ha->var[0] ? ha->var : NULL, &ha->ho, print_series, hp, why, sizeof why)) {
    fprintf(stderr, "gpuregress history: %s\n", why);
    return GR_EXIT_USAGE;
  }
  printf("\n%zu change points in %zu benchmarks: %zu slower, %zu faster; new slower on run %lld: "
         "%zu\n",
         hp->changes, hp->series, hp->slower, hp->faster, (long long)hp->run, hp->fresh_slower);
  cli_status_set("run", "%lld", (long long)hp->run);
  cli_status_set("changes", "%zu", hp->changes);
  cli_status_set("new_slower", "%zu", hp->fresh_slower);
  int rc = GR_EXIT_OK;
  if (hp->check) {
    rc = hp->fresh_slower ? GR_EXIT_FAIL : GR_EXIT_OK;
    cli_status_set("result", "%s", rc ? "regression" : "ok");
    printf("result: %s exit %d\n", rc ? "REGRESSION (a new step to slower)" : "ok", rc);
  }
  return rc;
}

int cmd_history(int argc, char **argv)
{
  static struct history_args ha;
  memset(&ha, 0, sizeof ha);
  history_opts_default(&ha.ho);
  ha.db = STORE_DEFAULT_PATH;
  int rc = parse_args(argc, argv, &ha);
  if (rc)
    return rc < 0 ? GR_EXIT_OK : rc;
  struct store *st = NULL;
  rc = cli_open_existing("history", ha.db, &st);
  if (!rc && (rc = cli_check_overrides("history", st, &ha.ho.co)))
    store_close(st);
  if (rc)
    return rc;
  if (ha.alg[0] && !registry_find(ha.alg) && !store_knows_algorithm(st, ha.alg)) {
    /* a typo in a nightly's filter would check nothing, night after night */
    char shown[128];
    store_close(st);
    return cli_usage_error("history", "unknown algorithm '%s': neither in 'gpuregress list' nor "
                           "in the database", gr_printable(shown, sizeof shown, ha.alg));
  }
  rc = history_report(st, &ha);
  store_close(st);
  return rc;
}

/* ---- import ------------------------------------------------------------------------------- */

static const struct cli_opt import_options[] = {
    {"db", 'd', 'd', "FILE", CLI_FILE, NULL,
     "the database to merge into (default " STORE_DEFAULT_PATH "; created when missing)"},
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_import_cmd = {
    .name = "import",
    .synopsis = "FILE... [--db FILE]",
    .about =
        "Merge the runs of other gpuregress databases (another runner's history, a baseline) into\n"
        "this one, with their cases, outcomes, timings and samples. Every run has a global identity\n"
        "(recorded when it began), so a run already here is not added again: importing the same file\n"
        "twice adds nothing. Runs still running in FILE are left out.",
    .opts = import_options,
    .after = "Exit 0 ok, 2 usage or database error (nothing of that file is imported).",
    .operand = CLI_FILE,
};

/* SIGINT, SIGTERM, SIGHUP during an import: the import under way stops (its transaction rolls
 * back: nothing of that file), the files after it are not read, and the command exits 130 as every
 * command does. A signal that lands after the last file's import has committed stops nothing: that
 * import is reported and the command exits as it would have (0), never 130 beside "runs added". */
static struct store *import_store;
static volatile sig_atomic_t import_interrupted;

static void on_import_signal(int sig)
{
  (void)sig;
  import_interrupted = 1;
  store_interrupt(import_store);
}

int cmd_import(int argc, char **argv)
{
  const char *db = STORE_DEFAULT_PATH;
  int c;
  char why[GR_WHY_LEN];
  while ((c = cli_next(&cli_import_cmd, argc, argv)) != -1) {
    switch (c) {
    case CLI_HELP: return cli_help(&cli_import_cmd);
    case 'd':
      if (cli_opt_text("import", "--db", optarg, CLI_TEXT_MAX, &db))
        return GR_EXIT_USAGE;
      break;
    default: return cli_opt_error("import", c, argv);
    }
  }
  if (optind >= argc)
    return cli_usage_error("import", "missing the database FILE to import");
  signal(SIGINT, on_import_signal);
  signal(SIGTERM, on_import_signal);
  signal(SIGHUP, on_import_signal);
  struct store *st;
  if (store_open(db, &st, why, sizeof why)) {
    fprintf(stderr, "gpuregress import: %s\n", why);
    return import_interrupted ? 130 : GR_EXIT_USAGE;
  }
  int rc = GR_EXIT_OK, stopped = 0;
  import_store = st;
  for (int i = optind; i < argc; i++) {
    if (import_interrupted) { /* between two files: the ones before it are in */
      fprintf(stderr, "gpuregress import: interrupted: '%s'%s not imported\n", argv[i],
              i + 1 < argc ? " and the files after it" : "");
      stopped = 1;
      break;
    }
    struct store_import_report r;
    int failed = store_import(st, argv[i], &r, why, sizeof why);
    if (failed && import_interrupted) {
      fprintf(stderr, "gpuregress import: interrupted: nothing of '%s' imported\n", argv[i]);
      stopped = 1;
      break;
    }
    if (failed) {
      fprintf(stderr, "gpuregress import: %s\n", why);
      rc = GR_EXIT_USAGE;
      continue;
    }
    printf("import '%s': %lld runs added (%lld already here), %lld cases, %lld outcomes, "
           "%lld timings, %lld samples\n",
           argv[i], (long long)r.runs, (long long)r.runs_present, (long long)r.cases,
           (long long)r.outcomes, (long long)r.timings, (long long)r.samples);
    if (r.folded)
      printf("import '%s': %lld shard%s folded into %s night's run (one night: doc/fleet.md)\n",
             argv[i], (long long)r.folded, r.folded == 1 ? "" : "s", r.folded == 1 ? "its" : "their");
    if (r.apart)
      printf("import '%s': %lld shard%s of a night that holds %s already (a rerun): kept as %s of "
             "%s own\n", argv[i], (long long)r.apart, r.apart == 1 ? "" : "s",
             r.apart == 1 ? "it" : "them", r.apart == 1 ? "a run" : "runs",
             r.apart == 1 ? "its" : "their");
  }
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  import_store = NULL;
  store_close(st);
  return stopped ? 130 : rc;
}

/* ---- prune -------------------------------------------------------------------------------- */

enum { OPT_KEEP_DAYS = 256, OPT_KEEP_RUNS, OPT_BEFORE, OPT_DRY_RUN };
static const struct cli_opt prune_options[] = {
    {"keep-days", OPT_KEEP_DAYS, 0, "N", CLI_NONE, NULL, "prune runs started more than N days ago"},
    {"keep-runs", OPT_KEEP_RUNS, 0, "N", CLI_NONE, NULL, "prune all but the newest N runs"},
    {"before", OPT_BEFORE, 0, "DATE", CLI_NONE, NULL,
     "prune runs started before DATE (YYYY-MM-DD[THH:MM[:SS]][Z], UTC; a run started at that\n"
     "instant is kept)"},
    {"dry-run", OPT_DRY_RUN, 0, NULL, CLI_NONE, NULL, "count what would be dropped, change nothing"},
    CLI_DB_OPT,
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_prune_cmd = {
    .name = "prune",
    .synopsis = "(--keep-days N | --keep-runs N | --before DATE) [--dry-run] [--db FILE]",
    .about =
        "Retention: in the runs older than the rule (either rule when both are given; never a run\n"
        "still running) drop the detail: the cases that passed or were skipped, and the raw timing\n"
        "samples. Kept for every run: the run, its outcomes (verdicts, first and shrunk failing\n"
        "case, reproducer), every case that did not pass (fail, crash, timeout, caught, error) and\n"
        "every timing summary (median, min, max, noise: what 'gpuregress history' and the trends\n"
        "read). The file is compacted afterwards (VACUUM).",
    .opts = prune_options,
    .after = "Exit 0 ok, 2 usage or database error.",
};

int cmd_prune(int argc, char **argv)
{
  const char *db = STORE_DEFAULT_PATH;
  struct store_prune_opts po = {0};
  char before[32] = "", why[GR_WHY_LEN];
  double days = -1;
  uint64_t u;
  int c;
  while ((c = cli_next(&cli_prune_cmd, argc, argv)) != -1) {
    switch (c) {
    case CLI_HELP: return cli_help(&cli_prune_cmd);
    case OPT_KEEP_DAYS:
      if (cli_opt_u64("prune", "--keep-days", optarg, 0, 100000, &u))
        return GR_EXIT_USAGE;
      days = (double)u;
      break;
    case OPT_KEEP_RUNS:
      if (cli_opt_u64("prune", "--keep-runs", optarg, 1, 1000000000, &u))
        return GR_EXIT_USAGE;
      po.keep_runs = (int64_t)u;
      break;
    case OPT_BEFORE:
      if (cli_opt_date("prune", "--before", optarg, before, sizeof before))
        return GR_EXIT_USAGE;
      break;
    case OPT_DRY_RUN: po.dry_run = 1; break;
    case 'd':
      if (cli_opt_text("prune", "--db", optarg, CLI_TEXT_MAX, &db))
        return GR_EXIT_USAGE;
      break;
    default: return cli_opt_error("prune", c, argv);
    }
  }
  if (optind < argc)
    return cli_usage_error("prune", "unexpected argument '%s'", argv[optind]);
  if (days >= 0) {
    time_t t = time(NULL) - (time_t)(days * 86400);
    char cut[32];
    strftime(cut, sizeof cut, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    if (!before[0] || strcmp(cut, before) > 0) /* the later cutoff prunes more: either rule */
      gr_fmt(before, sizeof before, "%s", cut);
  }
  if (!before[0] && !po.keep_runs)
    return cli_usage_error("prune",
                           "say what to keep: --keep-days N, --keep-runs N or --before DATE");
  po.before = before[0] ? before : NULL;
  struct store *st;
  if (access(db, F_OK) != 0) {
    fprintf(stderr, "gpuregress prune: no database '%s': pass --db\n", db);
    return GR_EXIT_USAGE;
  }
  /* a dry run reads only: not even the journal mode changes */
  if (po.dry_run ? store_open_read(db, &st, why, sizeof why)
                 : store_open_flags(db, STORE_OPEN_EXISTING, &st, why, sizeof why)) {
    fprintf(stderr, "gpuregress prune: %s\n", why);
    return GR_EXIT_USAGE;
  }
  struct store_prune_report r;
  int rc = GR_EXIT_OK;
  if (store_prune(st, &po, &r, why, sizeof why)) {
    fprintf(stderr, "gpuregress prune: %s\n", why);
    rc = GR_EXIT_USAGE;
  } else {
    if (po.before)
      printf("prune%s: runs started before %s%s\n", po.dry_run ? " (dry run)" : "", po.before,
             po.keep_runs ? " or beyond the newest --keep-runs" : "");
    else
      printf("prune%s: runs beyond the newest %lld\n", po.dry_run ? " (dry run)" : "",
             (long long)po.keep_runs);
    if (r.runs)
      printf("prune%s: old runs %lld..%lld, started %s .. %s\n", po.dry_run ? " (dry run)" : "",
             (long long)r.first_id, (long long)r.last_id, r.first_started, r.last_started);
    printf("prune%s: %lld old runs: %s %lld passing or skipped cases and %lld raw samples; kept "
           "every run, outcome, reproducer, failing case and timing summary; %.1f MB -> %.1f MB\n",
           po.dry_run ? " (dry run)" : "", (long long)r.runs, po.dry_run ? "would drop" : "dropped",
           (long long)r.cases, (long long)r.samples, (double)r.bytes_before / 1e6,
           (double)r.bytes_after / 1e6);
  }
  store_close(st);
  return rc;
}
