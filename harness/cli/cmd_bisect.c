/* `bisect`: the first bad commit of a reproducer between two revisions of the repository of the
 * current folder (harness/run/bisect.c does the work; this file parses, prints the per-step
 * table as it grows, and chooses the exit code: 0 named, 1 no single commit named (only
 * skipped commits left, or --max-steps), 2 usage or input error (a revision, a reproducer that
 * fails at GOOD or passes at BAD), 3 environment (GOOD or BAD does not build, the runner's
 * environment, GOOD moved), 130 interrupted). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "cli.h"
#include "options.h"
#include "reproducers.h"
#include "store_first_bad.h"
#include "store.h"

static volatile int bisect_interrupted;

static void on_bisect_signal(int sig)
{
  (void)sig;
  bisect_interrupted = 1;
}

enum { OPT_GOOD = 256, OPT_BAD, OPT_BUILD, OPT_RUNNER, OPT_MAX_STEPS, OPT_SLOWER, OPT_NO_GPU,
       OPT_KEEP, OPT_DB };

static const struct cli_opt bisect_options[] = {
    {"good", OPT_GOOD, 0, "REV", CLI_NONE, NULL,
     "a commit where the reproducer passes (tested first: it must pass)"},
    {"bad", OPT_BAD, 0, "REV", CLI_NONE, NULL,
     "a later commit where it fails (it must fail)"},
    {"variant", 'V', 'V', "V", CLI_VARIANT, NULL,
     "judge this variant only (default: every variant of the case)"},
    {"slower", OPT_SLOWER, 0, NULL, CLI_NONE, NULL,
     "a slowdown: 'bench ALG/V --case CASE' of each step against the samples of GOOD timed\n"
     "first on this machine (compare's statistic and minimum effect: slower is bad); GOOD is\n"
     "timed again at the end and a GOOD that moved stops with exit 3. Needs --variant"},
    {"build", OPT_BUILD, 0, "CMD", CLI_NONE, NULL,
     "the build of a step, run by sh in the worktree's top folder (default: cmake -S . -B\n"
     "build/gr-bisect, ccache as the compiler launcher when it is on the PATH, then the\n"
     "runner's target)"},
    {"runner", OPT_RUNNER, 0, "PATH", CLI_FILE, NULL,
     "the runner the build makes, relative to the worktree (default: build/gr-bisect/NAME,\n"
     "NAME this program's file name, also the target)"},
    {"max-steps", OPT_MAX_STEPS, 0, "N", CLI_NONE, NULL, "at most N bisection steps (default 30)"},
    {"allow-no-gpu", OPT_NO_GPU, 0, NULL, CLI_NONE, NULL,
     "repro judges the CPU variants alone where no GPU is visible"},
    {"keep", OPT_KEEP, 0, NULL, CLI_NONE, NULL,
     "keep the temporary folder's logs (step-N-build.log, step-N-judge.log)"},
    {"db", OPT_DB, 0, "FILE", CLI_FILE, NULL,
     "a slowdown's first bad commit is stored with its regression open on the latest recorded\n"
     "night of FILE (the nightly's history): the banner, JUnit, JSON and the index of nights\n"
     "show 'first bad: SHA SUBJECT' until it closes"},
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_bisect_cmd = {
    .name = "bisect",
    .synopsis = "--good REV --bad REV [options] 'CASE'|FILE",
    .about =
        "Find the first bad commit of a reproducer in the git repository of the current folder:\n"
        "git bisect in a worktree of its own under a temporary folder (your checkout, index, HEAD,\n"
        "stash and refs are never touched; the worktree is removed at the end and on Ctrl-C), each\n"
        "tested commit built there and the reproducer judged with the runner built there. GOOD is\n"
        "tested first and must pass, BAD must fail. A commit that does not build, or whose runner\n"
        "cannot test the case (exit 2), is skipped (git bisect skip).\n"
        "\n"
        "The operand is the case text of a reproducer ('CASE', as a failure prints it), or a FILE\n"
        "of a night's reproducers/ folder: its case, variant and kind (a slowdown is --slower)\n"
        "are taken from it.",
    .opts = bisect_options,
    .after =
        "Prints the per-step table and the first bad commit (sha, subject, author date).\n"
        "Exit 0 named, 1 no single commit named (only skipped commits left, or --max-steps), 2\n"
        "usage or input error (an unknown revision, GOOD not an ancestor of BAD, the reproducer\n"
        "fails at GOOD or does not fail at BAD), 3 environment (GOOD or BAD does not build, the\n"
        "runner's environment, GOOD timed again moved), 130 interrupted.",
    .operand = CLI_FILE,
};


static void print_step(const struct bisect_step *s, void *arg)
{
  (void)arg;
  char label[16];
  if (s->n == 0)
    gr_fmt(label, sizeof label, "GOOD");
  else if (s->n == 1)
    gr_fmt(label, sizeof label, "BAD");
  else
    gr_fmt(label, sizeof label, "%d", s->n - 1);
  printf("%-5s %.12s  %-4s %6.1f %6.1f  %-40.40s  %s\n", label, s->sha,
         bisect_mark_name(s->mark), s->build_s, s->judge_s, s->subject, s->detail);
  fflush(stdout);
}

/* This program's file name: the CMake target of its runner, by default. */
static void self_name(char *dst, size_t len)
{
  char path[4096];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  path[n > 0 ? n : 0] = 0;
  const char *slash = strrchr(path, '/');
  gr_fmt(dst, len, "%s", n > 0 ? (slash ? slash + 1 : path) : "gpuregress");
}

/* The benchmark of a case text "ALG NAME=VALUE ... seed=N" as the store keys it: the algorithm,
 * the parameters in their order (a reproducer's text is canonical: written from the stored
 * params) and the seed. The runner bisecting need not know the algorithm (it may be another
 * project's). 0 ok; -1 when the text has no algorithm or no seed. */
static int benchmark_of(const char *text, char *alg, size_t alen, char *params, size_t plen,
                        uint64_t *seed)
{
  size_t k = 0, w;
  int have_seed = 0;
  alg[0] = params[0] = 0;
  for (const char *p = text; *p; p += w) {
    p += strspn(p, " ");
    w = strcspn(p, " ");
    if (!w)
      break;
    if (!alg[0])
      gr_fmt(alg, alen, "%.*s", (int)w, p);
    else if (w > 5 && !strncmp(p, "seed=", 5)) {
      char num[32];
      gr_fmt(num, sizeof num, "%.*s", (int)(w - 5), p + 5);
      have_seed = w - 5 < sizeof num && gr_parse_u64(num, seed) == 0;
    } else if (k + w + 2 < plen) {
      k += (size_t)snprintf(params + k, plen - k, "%s%.*s", k ? " " : "", (int)w, p);
    }
  }
  return alg[0] && have_seed ? 0 : -1;
}

/* --db: the first bad commit with the open regression of the reproducer's benchmark */
static int record_first_bad(const char *db, const struct bisect_opts *o, const char *l2,
                            const struct bisect_result *r)
{
  char why[GR_WHY_LEN], alg[GR_NAME_MAX + 1], params[GR_CASE_TEXT_LEN];
  uint64_t seed = 0;
  struct store *st = NULL;
  int rc = 0;
  if (benchmark_of(o->case_text, alg, sizeof alg, params, sizeof params, &seed)) {
    gr_fmt(why, sizeof why, "the case '%s' names no algorithm or no seed", o->case_text);
    rc = -1;
  } else if (store_open(db, &st, why, sizeof why)) {
    rc = -1;
  } else {
    rc = store_set_first_bad(st, alg, o->variant, params, seed, l2, r->first_bad, r->subject,
                             r->date, why, sizeof why);
  }
  store_close(st);
  if (rc) {
    fprintf(stderr, "gpuregress bisect: --db: %s\n", why);
    return GR_EXIT_USAGE;
  }
  printf("stored with its open regression in '%s'\n", db);
  return GR_EXIT_OK;
}

/* One option of the table (options.c). 0, or the exit code after a message. */
static int take_option(int c, struct bisect_opts *o, const char **db, char **argv)
{
  uint64_t u;
  switch (c) {
  case OPT_GOOD: return cli_opt_text("bisect", "--good", optarg, 1024, &o->good);
  case OPT_BAD: return cli_opt_text("bisect", "--bad", optarg, 1024, &o->bad);
  case OPT_BUILD: return cli_opt_text("bisect", "--build", optarg, CLI_TEXT_MAX, &o->build_cmd);
  case OPT_RUNNER: return cli_opt_text("bisect", "--runner", optarg, CLI_TEXT_MAX, &o->runner);
  case OPT_MAX_STEPS:
    if (cli_opt_u64("bisect", "--max-steps", optarg, 1, 1000, &u))
      return GR_EXIT_USAGE;
    o->max_steps = (int)u;
    return 0;
  case 'V': return cli_opt_text("bisect", "--variant", optarg, 255, &o->variant);
  case OPT_SLOWER: o->slower = 1; return 0;
  case OPT_NO_GPU: o->allow_no_gpu = 1; return 0;
  case OPT_KEEP: o->keep = 1; return 0;
  case OPT_DB: return cli_opt_text("bisect", "--db", optarg, CLI_TEXT_MAX, db);
  default: return cli_opt_error("bisect", c, argv);
  }
}

/* The reproducer: the case text, or a file (a case text always has its parameters after the
 * algorithm: one word is a file) whose variant, slowdown and L2 mode it gives. 0, or the exit
 * code after a message. */
static int take_reproducer(struct bisect_opts *o, struct reproducer *rf, const char **l2)
{
  if (strchr(o->case_text, ' ') && access(o->case_text, F_OK) != 0)
    return 0;
  char why[GR_WHY_LEN];
  if (reproducer_read(o->case_text, rf, why, sizeof why)) {
    fprintf(stderr, "gpuregress bisect: %s\n", why);
    return GR_EXIT_USAGE;
  }
  if (o->variant && strcmp(o->variant, rf->variant))
    return cli_usage_error("bisect", "--variant %s disagrees with the file's variant '%s'",
                           o->variant, rf->variant);
  o->case_text = rf->case_text;
  o->variant = rf->variant;
  o->slower |= rf->slowdown;
  *l2 = rf->hot ? "hot" : "cold";
  return 0;
}

/* The options, the reproducer and their checks. 0, -1 (--help printed: exit 0), or the exit
 * code after a message. */
static int parse_args(int argc, char **argv, struct bisect_opts *o, const char **db,
                      struct reproducer *rf, const char **l2)
{
  int c, rc;
  while ((c = cli_next(&cli_bisect_cmd, argc, argv)) != -1) {
    if (c == CLI_HELP) {
      cli_help(&cli_bisect_cmd);
      return -1;
    }
    if ((rc = take_option(c, o, db, argv)) != 0)
      return rc;
  }
  if (!o->good || !o->bad)
    return cli_usage_error("bisect", "--good REV and --bad REV are both needed");
  if (optind >= argc)
    return cli_usage_error("bisect", "missing the reproducer (the case text)");
  if (optind + 1 < argc)
    return cli_usage_error("bisect", "unexpected argument '%s' (quote the case text)",
                           argv[optind + 1]);
  o->case_text = argv[optind];
  if ((rc = take_reproducer(o, rf, l2)) != 0)
    return rc;
  if (*db && !o->slower)
    return cli_usage_error("bisect", "--db stores a slowdown's first bad commit: the reproducer "
                                     "is not a slowdown (--slower)");
  if (o->slower && !o->variant)
    return cli_usage_error("bisect", "--slower needs --variant (the variant that got slower)");
  return 0;
}

/* The bisection's end printed (and with --db its first bad commit stored). Returns the exit
 * code. */
static int conclude(const struct bisect_opts *o, const char *db, const char *l2,
                    const struct bisect_result *r, enum gr_status st, const char *why)
{
  int rc;
  if (r->interrupted) {
    fprintf(stderr, "gpuregress bisect: %s\n", why);
    rc = 130;
  } else if (r->found) {
    printf("\nfirst bad: %.12s %s (%s)\n", r->first_bad, r->subject, r->date);
    printf("first bad commit: %s\n", r->first_bad);
    if (st != GR_STATUS_OK)
      fprintf(stderr, "gpuregress bisect: %s\n", why);
    rc = st == GR_STATUS_OK ? GR_EXIT_OK : gr_status_exit(st);
    if (rc == GR_EXIT_OK && db)
      rc = record_first_bad(db, o, l2, r);
  } else if (st != GR_STATUS_OK) {
    fprintf(stderr, "gpuregress bisect: %s\n", why);
    rc = gr_status_exit(st);
  } else {
    printf("\nno single first bad commit: %s\n", r->left);
    rc = GR_EXIT_FAIL;
  }
  if (o->keep && r->tmp[0])
    printf("logs kept in '%s'\n", r->tmp);
  return rc;
}

int cmd_bisect(int argc, char **argv)
{
  struct bisect_opts o;
  memset(&o, 0, sizeof o);
  const char *db = NULL, *l2 = "cold";
  o.repo = ".";
  o.max_steps = 30;
  struct reproducer rf;
  int rc = parse_args(argc, argv, &o, &db, &rf, &l2);
  if (rc)
    return rc < 0 ? GR_EXIT_OK : rc;
  char target[256];
  self_name(target, sizeof target);
  o.runner_target = target;
  if (o.runner) { /* its file name is the target */
    const char *slash = strrchr(o.runner, '/');
    gr_fmt(target, sizeof target, "%s", slash ? slash + 1 : o.runner);
  }
  o.interrupted = &bisect_interrupted;
  o.on_step = print_step;
  signal(SIGINT, on_bisect_signal);
  signal(SIGTERM, on_bisect_signal);
  signal(SIGHUP, on_bisect_signal);
  printf("bisect: %s  (%s)\n", o.case_text, o.slower ? "slower than GOOD is bad" : "caught is bad");
  printf("%-5s %-12s  %-4s %6s %6s  %-40s  %s\n", "step", "commit", "mark", "build", "judge",
         "subject", "detail");
  fflush(stdout);
  struct bisect_result r;
  char why[GR_WHY_LEN];
  enum gr_status st = bisect_run(&o, &r, why, sizeof why);
  rc = conclude(&o, db, l2, &r, st, why);
  bisect_result_release(&r);
  return rc;
}
