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

/* What the command line of ack gives. */
struct ack_args {
  const char *db, *reason, *by, *bench;
  int undo, list, all;
};

/* The options and the BENCHMARK, checked; who acknowledges (--by, $GPUREGRESS_USER, $USER).
 * 0, -1 (--help printed: exit 0), or the exit code after a message. */
static int parse_args(int argc, char **argv, struct ack_args *aa)
{
  int c;
  while ((c = cli_next(&cli_ack_cmd, argc, argv)) != -1) {
    int rc = 0;
    switch (c) {
    case CLI_HELP: cli_help(&cli_ack_cmd); return -1;
    case OPT_REASON: rc = cli_opt_text("ack", "--reason", optarg, 500, &aa->reason); break;
    case OPT_BY: rc = cli_opt_text("ack", "--by", optarg, 120, &aa->by); break;
    case OPT_UNDO: aa->undo = 1; break;
    case OPT_LIST: aa->list = 1; break;
    case OPT_ALL: aa->all = 1; break;
    case 'd': rc = cli_opt_text("ack", "--db", optarg, CLI_TEXT_MAX, &aa->db); break;
    default: return cli_opt_error("ack", c, argv);
    }
    if (rc)
      return rc;
  }
  aa->bench = optind < argc ? argv[optind++] : NULL;
  if (optind < argc)
    return cli_usage_error("ack", "unexpected argument '%s' (quote 'ALG/VARIANT PARAMS')",
                           argv[optind]);
  if (aa->list + aa->undo > 1 || (aa->list && (aa->bench || aa->reason)))
    return cli_usage_error("ack", "--list takes no BENCHMARK, --reason or --undo");
  if (aa->all && !aa->list)
    return cli_usage_error("ack", "--all goes with --list");
  if (!aa->list && !aa->bench)
    return cli_usage_error("ack", "name the BENCHMARK: ALG/VARIANT or 'ALG/VARIANT PARAMS'");
  if (aa->bench && (strlen(aa->bench) > GR_CASE_TEXT_LEN + 150 || !valid_benchmark(aa->bench)))
    return cli_usage_error("ack", "bad BENCHMARK '%s': ALG/VARIANT or 'ALG/VARIANT PARAMS'",
                           aa->bench);
  if (!aa->list && !aa->undo && !aa->reason)
    return cli_usage_error("ack", "--reason TEXT is required: say why the regression is accepted");
  if (aa->undo && aa->reason)
    return cli_usage_error("ack", "--undo takes no --reason");
  if (!aa->by)
    aa->by = getenv("GPUREGRESS_USER");
  if (!aa->by || !aa->by[0])
    aa->by = getenv("USER");
  if (!aa->by || !aa->by[0])
    aa->by = "unknown";
  return 0;
}

/* --undo: the acknowledgements in force of the benchmark withdrawn. 0, or GR_EXIT_USAGE. */
static int ack_undo(struct store *st, const struct ack_args *aa)
{
  char why[GR_WHY_LEN];
  int n = store_undo_ack(st, aa->bench, aa->by, why, sizeof why);
  if (n < 0) {
    fprintf(stderr, "gpuregress ack: %s\n", why);
    return GR_EXIT_USAGE;
  }
  if (n == 0) {
    fprintf(stderr, "gpuregress ack: no acknowledgement in force of '%s' (see ack --list)\n",
            aa->bench);
    return GR_EXIT_USAGE;
  }
  printf("ack: withdrew %d acknowledgement%s of '%s': its open regressions fail the nights "
         "again\n", n, n > 1 ? "s" : "", aa->bench);
  return 0;
}

/* The acknowledgement of a benchmark that covers a regression open on the latest recorded night.
 * 0, or GR_EXIT_USAGE after a message. */
static int ack_add(struct store *st, const struct ack_args *aa)
{
  char why[GR_WHY_LEN];
  struct store_ack a = {0};
  gr_fmt(a.benchmark, sizeof a.benchmark, "%s", aa->bench);
  struct covers k = {&a, 0, ""};
  int64_t night = store_latest_recorded(st), id;
  if (night)
    store_each_open_reg(st, night, count_covered, &k);
  if (!night) {
    fprintf(stderr, "gpuregress ack: no night has a recorded verdict in '%s' (compare --record,"
                    " as ci/nightly runs it): nothing is open to acknowledge\n", aa->db);
    return GR_EXIT_USAGE;
  }
  if (!k.n) {
    fprintf(stderr, "gpuregress ack: '%s' covers no regression open on the latest recorded "
                    "night (run %lld); open there:%s\n", aa->bench, (long long)night,
            k.list[0] ? k.list : " none");
    return GR_EXIT_USAGE;
  }
  if (store_add_ack(st, aa->bench, store_latest_run(st), aa->by, aa->reason, &id, why,
                    sizeof why)) {
    fprintf(stderr, "gpuregress ack: %s\n", why);
    return GR_EXIT_USAGE;
  }
  printf("ack %lld: '%s' acknowledged by %s (%zu open regression%s, through run %lld): %s\n"
         "undo: gpuregress ack --undo '%s'\n",
         (long long)id, aa->bench, aa->by, k.n, k.n > 1 ? "s" : "",
         (long long)store_latest_run(st), aa->reason, aa->bench);
  return 0;
}

int cmd_ack(int argc, char **argv)
{
  struct ack_args aa = {.db = STORE_DEFAULT_PATH};
  char why[GR_WHY_LEN];
  int rc = parse_args(argc, argv, &aa);
  if (rc)
    return rc < 0 ? GR_EXIT_OK : rc;
  if (access(aa.db, F_OK) != 0) {
    fprintf(stderr, "gpuregress ack: no database '%s' (pass --db)\n", aa.db);
    return GR_EXIT_USAGE;
  }
  struct store *st = NULL;
  /* --list reads: nothing created, migrated or written (a write-protected file, a read-only
   * mount, another runner's file); an acknowledgement and its undoing write */
  if (aa.list ? store_open_read(aa.db, &st, why, sizeof why)
              : store_open_flags(aa.db, STORE_OPEN_EXISTING, &st, why, sizeof why)) {
    fprintf(stderr, "gpuregress ack: %s\n", why);
    return GR_EXIT_USAGE;
  }
  if (aa.list) {
    rc = store_each_ack(st, !aa.all, print_ack, NULL) == 0 ? 0 : GR_EXIT_USAGE;
    if (rc)
      fprintf(stderr, "gpuregress ack: %s\n", store_errmsg(st));
  } else {
    rc = aa.undo ? ack_undo(st, &aa) : ack_add(st, &aa);
  }
  store_close(st);
  return rc;
}
