/* `gpuregress ack`: acknowledge an open regression (a slowdown accepted on purpose, or one being
 * worked on elsewhere), so that it no longer fails the nights; stored with who, when and why,
 * shown on the dashboard, undoable. The rules are in verdict.h. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "store.h"

enum { OPT_REASON = 256, OPT_UNDO, OPT_LIST, OPT_ALL, OPT_BY };
static const struct cli_opt ack_options[] = {
    {"reason", OPT_REASON, 0, "TEXT", CLI_NONE, NULL, "why it is accepted (required)"},
    {"undo", OPT_UNDO, 0, NULL, CLI_NONE, NULL,
     "withdraw the acknowledgements of BENCHMARK: it fails again while open"},
    {"list", OPT_LIST, 0, NULL, CLI_NONE, NULL, "the acknowledgements in force"},
    {"all", OPT_ALL, 0, NULL, CLI_NONE, NULL, "with --list: the withdrawn ones too"},
    {"by", OPT_BY, 0, "WHO", CLI_NONE, NULL,
     "who acknowledges (default $GPUREGRESS_USER, else $USER)"},
    CLI_DB_OPT,
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_ack_cmd = {
    .name = "ack",
    .synopsis = "BENCHMARK --reason TEXT [--by WHO] [--db FILE]\n"
                "--undo BENCHMARK [--by WHO] [--db FILE]\n"
                "--list [--all] [--db FILE]",
    .about =
        "A regression stays open, failing every night, until its benchmark is back within its\n"
        "minimum effect of the median before it, or until it is acknowledged here. BENCHMARK is\n"
        "ALG/VARIANT (every size) or 'ALG/VARIANT PARAMS' (one size, PARAMS as the dashboard and\n"
        "compare print them); it must cover a regression open on the latest recorded night\n"
        "('compare --record', which ci/nightly runs). The acknowledgement covers the regressions\n"
        "opened up to now: one that opens later fails again. It is stored with who (--by, else\n"
        "$GPUREGRESS_USER, else $USER) and when, and shown on the dashboard and in the verdict\n"
        "(JUnit: skipped with the reason).",
    .opts = ack_options,
    .after = "Exit 0 ok, 2 usage or database error (also: BENCHMARK covers no open regression, or\n"
             "--undo finds no acknowledgement of it).",
    .operand = CLI_TARGET,
};

static int print_ack(void *ctx, const struct store_ack *a)
{
  (void)ctx;
  printf("%-4lld %-50s through run %-5lld by %s at %s: %s%s%s%s\n", (long long)a->id, a->benchmark,
         (long long)a->through_run, a->who, a->at, a->reason, a->undone_at[0] ? " (withdrawn by " : "",
         a->undone_by, a->undone_at[0] ? ")" : "");
  return 0;
}

struct covers {
  const struct store_ack *a;
  size_t n;
  char list[2048];
};

static int count_covered(void *ctx, const struct store_open_reg *r)
{
  struct covers *k = ctx;
  if (store_ack_covers(k->a, r->algorithm, r->variant, r->params))
    k->n++;
  size_t used = strlen(k->list);
  if (used + 200 < sizeof k->list)
    snprintf(k->list + used, sizeof k->list - used, "\n  %s/%s %s [%s] (open since run %lld)",
             r->algorithm, r->variant, r->params, r->l2, (long long)r->opened_run);
  return 0;
}

/* ALG/VARIANT[ PARAMS]: both names non-empty, no white space in them */
static int valid_benchmark(const char *b)
{
  const char *slash = strchr(b, '/');
  size_t names = strcspn(b, " ");
  if (!slash || slash == b || (size_t)(slash - b) + 1 >= names)
    return 0;
  if (b[names] == ' ' && !b[names + 1])
    return 0;
  for (size_t i = 0; i < names; i++)
    if (b[i] == '\t' || b[i] == '\n')
      return 0;
  return 1;
}

int cmd_ack(int argc, char **argv)
{
  const char *db = STORE_DEFAULT_PATH, *reason = NULL, *by = NULL;
  int undo = 0, list = 0, all = 0, c;
  char why[GR_WHY_LEN];
  while ((c = cli_next(&cli_ack_cmd, argc, argv)) != -1) {
    switch (c) {
    case CLI_HELP: return cli_help(&cli_ack_cmd);
    case OPT_REASON:
      if (cli_opt_text("ack", "--reason", optarg, 500, &reason))
        return GR_EXIT_USAGE;
      break;
    case OPT_BY:
      if (cli_opt_text("ack", "--by", optarg, 120, &by))
        return GR_EXIT_USAGE;
      break;
    case OPT_UNDO: undo = 1; break;
    case OPT_LIST: list = 1; break;
    case OPT_ALL: all = 1; break;
    case 'd':
      if (cli_opt_text("ack", "--db", optarg, CLI_TEXT_MAX, &db))
        return GR_EXIT_USAGE;
      break;
    default: return cli_opt_error("ack", c, argv);
    }
  }
  const char *bench = optind < argc ? argv[optind++] : NULL;
  if (optind < argc)
    return cli_usage_error("ack", "unexpected argument '%s' (quote 'ALG/VARIANT PARAMS')",
                           argv[optind]);
  if (list + undo > 1 || (list && (bench || reason)))
    return cli_usage_error("ack", "--list takes no BENCHMARK, --reason or --undo");
  if (all && !list)
    return cli_usage_error("ack", "--all goes with --list");
  if (!list && !bench)
    return cli_usage_error("ack", "name the BENCHMARK: ALG/VARIANT or 'ALG/VARIANT PARAMS'");
  if (bench && (strlen(bench) > GR_CASE_TEXT_LEN + 150 || !valid_benchmark(bench)))
    return cli_usage_error("ack", "bad BENCHMARK '%s': ALG/VARIANT or 'ALG/VARIANT PARAMS'",
                           bench);
  if (!list && !undo && !reason)
    return cli_usage_error("ack", "--reason TEXT is required: say why the regression is accepted");
  if (undo && reason)
    return cli_usage_error("ack", "--undo takes no --reason");
  if (!by)
    by = getenv("GPUREGRESS_USER");
  if (!by || !by[0])
    by = getenv("USER");
  if (!by || !by[0])
    by = "unknown";
  if (access(db, F_OK) != 0) {
    fprintf(stderr, "gpuregress ack: no database '%s' (pass --db)\n", db);
    return GR_EXIT_USAGE;
  }
  struct store *st = NULL;
  int rc = GR_EXIT_USAGE;
  /* --list reads: nothing created, migrated or written (a write-protected file, a read-only
   * mount, another runner's file); an acknowledgement and its undoing write */
  if (list ? store_open_read(db, &st, why, sizeof why)
           : store_open_flags(db, STORE_OPEN_EXISTING, &st, why, sizeof why)) {
    fprintf(stderr, "gpuregress ack: %s\n", why);
    return GR_EXIT_USAGE;
  }
  if (list) {
    if (store_each_ack(st, !all, print_ack, NULL) == 0)
      rc = 0;
    else
      fprintf(stderr, "gpuregress ack: %s\n", store_errmsg(st));
  } else if (undo) {
    int n = store_undo_ack(st, bench, by, why, sizeof why);
    if (n < 0)
      fprintf(stderr, "gpuregress ack: %s\n", why);
    else if (n == 0)
      fprintf(stderr, "gpuregress ack: no acknowledgement in force of '%s' (see ack --list)\n",
              bench);
    else {
      printf("ack: withdrew %d acknowledgement%s of '%s': its open regressions fail the nights "
             "again\n", n, n > 1 ? "s" : "", bench);
      rc = 0;
    }
  } else {
    struct store_ack a = {0};
    gr_fmt(a.benchmark, sizeof a.benchmark, "%s", bench);
    struct covers k = {&a, 0, ""};
    int64_t night = store_latest_recorded(st), id;
    if (night)
      store_each_open_reg(st, night, count_covered, &k);
    if (!night)
      fprintf(stderr, "gpuregress ack: no night has a recorded verdict in '%s' (compare --record,"
                      " as ci/nightly runs it): nothing is open to acknowledge\n", db);
    else if (!k.n)
      fprintf(stderr, "gpuregress ack: '%s' covers no regression open on the latest recorded "
                      "night (run %lld); open there:%s\n", bench, (long long)night,
              k.list[0] ? k.list : " none");
    else if (store_add_ack(st, bench, store_latest_run(st), by, reason, &id, why, sizeof why))
      fprintf(stderr, "gpuregress ack: %s\n", why);
    else {
      printf("ack %lld: '%s' acknowledged by %s (%zu open regression%s, through run %lld): %s\n"
             "undo: gpuregress ack --undo '%s'\n",
             (long long)id, bench, by, k.n, k.n > 1 ? "s" : "", (long long)store_latest_run(st),
             reason, bench);
      rc = 0;
    }
  }
  store_close(st);
  return rc;
}
