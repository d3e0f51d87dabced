/* The sanitizer lane: `gpuregress sanitize [ALG[/VARIANT],...]` runs every selected GPU variant
 * under compute-sanitizer's memcheck, racecheck, initcheck and synccheck on a few small cases per
 * regime (coverage.h), and stores one verdict per (variant, tool).
 *
 * Each (variant, tool) is one child process (harness/core/child.c) running
 *   compute-sanitizer --tool T --error-exitcode 86 ... gpuregress repro --in-process --variant V
 *                     'CASE' 'CASE' ...
 * so a tool's findings, the harness's own check and a crash stay apart: exit 86 is a finding,
 * 1 a harness check that failed with the tool silent, 0 clean. The log is read into findings
 * (run/sanitizer_log.h: kernel, file:line, the case that showed it); a finding the algorithm's
 * table lists as examined (sanitizer_explained) is explained, with the reason, and fails
 * nothing; a cell is explained when all of its findings are (sanitize_job.c).
 *
 * The cases of a regime are drawn from the seed stream (the same generator as fuzzing, the
 * predicates' guesses, the smallest confirmed on its input) and the smallest by the work model
 * are kept, never one of a limit or large regime (run/sanitize_pick.c); racecheck and initcheck
 * (hundreds to thousands of times the kernel's time, and slower still on a variant that keeps
 * reading uninitialised memory) get only the smallest case of each regime, and initcheck skips
 * the historical variants (radix_sort/v2_warp_lane0 took its 193 s timeout). Several processes run
 * at once (--jobs); each cell has its own timeout, and the lane ends within its budget: a cell
 * still running then is stopped (timeout). --kinds and --slice K/N pick the variants (the
 * nightly's rotating memcheck slice: ci/nightly).
 *
 * The tool does not follow child processes (--target-processes application-only): kmedoids'
 * mpi_gpu runs its kernels in kmedoids_mpi under mpirun, unsanitized; they are v2_gpu's, which
 * is sanitized in process. The harness's shared-memory poisoning kernel is excluded by the
 * kernel filter (it writes shared memory on purpose and reads nothing).
 *
 * This file parses, checks the environment, opens the store and prints; the lane's plan and its
 * run are harness/run/sanitize_lane.c, one job harness/run/sanitize_job.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "case.h"
#include "child.h"
#include "cli.h"
#include "options.h"
#include "gpus.h"
#include "coverage.h"
#include "runner.h"
#include "sanitize_pick.h"
#include "sanitize_lane.h"
#include "store.h"
#include "view.h"

struct san_args {
  const char *filter, *db, *tools, *sanitizer, *logs;
  double budget, timeout;
  uint64_t seed;
  long per_regime, jobs;
  unsigned kinds;     /* 1 << enum gr_variant_kind */
  long slice, slices; /* the variants i (of the kinds, in order) with i % slices == slice */
  int jobs_given;
  const char *gpus_spec;
  struct gpu_set gpus; /* --gpus: each tool run pinned to the least busy of them */
};

static volatile int san_interrupted;
static void on_signal(int sig)
{
  (void)sig;
  san_interrupted = 1;
}

static const struct cli_opt sanitize_options[] = {
    {"tools", 't', 't', "LIST", CLI_NONE, NULL,
     "of memcheck,racecheck,initcheck,synccheck (default all)"},
    {"per-regime", 'p', 'p', "N", CLI_NONE, NULL,
     "cases per regime (default 2: the smallest drawn and one at the quarter of the work\n"
     "model); racecheck and initcheck take the smallest of each regime only (initcheck: on\n"
     "fixed and peer variants only)"},
    {"kinds", 'k', 0, "LIST", CLI_NONE, NULL, "of fixed,peer,historical (default all three)"},
    {"slice", 'l', 0, "K/N", CLI_NONE, NULL,
     "only the K-th of every N selected variants (K < N): a rotating slice, K = day % N,\n"
     "covers all in N days"},
    {"budget", 'b', 'b', "SECONDS", CLI_NONE, NULL,
     "the lane ends within this: no cell starts after it, and one still running then is\n"
     "stopped (default 1800)"},
    {"timeout", 'T', 0, "SECONDS", CLI_NONE, NULL, "one tool on one variant (default 300)"},
    {"jobs", 'j', 'j', "N", CLI_NONE, NULL, "tools running at once (default 4, with --gpus 4 a GPU)"},
    {"gpus", 'G', 0, "N|all|LIST", CLI_NONE, NULL,
     "spread the work over these GPUs of the host, one worker each (LIST: indices or UUIDs,\n"
     "comma-separated; default: the one visible GPU)"},
    {"seed", 's', 's', "N", CLI_NONE, NULL, "the case stream (default 1)"},
    CLI_DB_OPT,
    {"sanitizer", 'S', 0, "PATH", CLI_FILE, NULL,
     "compute-sanitizer (default: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)"},
    {"logs", 'L', 0, "DIR", CLI_DIR, NULL, "keep each tool's log as DIR/ALG.VARIANT.TOOL.log"},
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_sanitize_cmd = {
    .name = "sanitize",
    .synopsis = "[ALG[/VARIANT][,...]] [options]",
    .about = "Run every selected GPU variant under compute-sanitizer (memcheck, racecheck,\n"
             "initcheck, synccheck) on a few small cases per regime; one verdict per variant and\n"
             "tool (clean, explained: every finding is in the algorithm's examined list, finding,\n"
             "check: a harness check failed with the tool silent, error, timeout, skip) to stdout\n"
             "and the database; a finding names its kernel, file:line and case.",
    .opts = sanitize_options,
    .after = "Exit 0 no finding, failed check or error on a fixed or peer variant (result: ok when\n"
             "every cell is clean or explained; incomplete when some timed out: not verified), 1\n"
             "one of those, 2 usage or database error, 3 no compute-sanitizer or no CUDA device.",
    .operand = CLI_TARGET,
};

/* --kinds LIST into a mask of 1 << enum gr_variant_kind. 0, or the exit code after a message. */
static int parse_kinds(const char *list, unsigned *kinds)
{
  *kinds = 0;
  for (const char *q = list; *q;) {
    size_t w = strcspn(q, ",");
    int kind = w == 5 && !strncmp(q, "fixed", 5)          ? GR_VARIANT_FIXED
               : w == 4 && !strncmp(q, "peer", 4)         ? GR_VARIANT_PEER
               : w == 10 && !strncmp(q, "historical", 10) ? GR_VARIANT_HISTORICAL
                                                          : -1;
    if (kind < 0)
      return cli_usage_error("sanitize", "unknown kind '%.*s' in --kinds (fixed, peer, "
                             "historical)", (int)w, q);
    *kinds |= 1u << kind;
    q += w + (q[w] == ',');
  }
  if (!*kinds)
    return cli_usage_error("sanitize", "--kinds: no kind named (fixed, peer, historical)");
  return 0;
}

/* --slice K/N. 0, or the exit code after a message. */
static int parse_slice(const char *arg, struct san_args *sa)
{
  unsigned long long sk, sn;
  char tail;
  if (arg[0] < '0' || arg[0] > '9' || strchr(arg, '+') ||
      sscanf(arg, "%llu/%llu%c", &sk, &sn, &tail) != 2 || sn < 1 || sn > 1000 || sk >= sn)
    return cli_usage_error("sanitize", "bad value '%s' for --slice: K/N with 0 <= K < N <= "
                           "1000, e.g. 3/7", arg);
  sa->slice = (long)sk;
  sa->slices = (long)sn;
  return 0;
}

/* One option of the table (options.c). 0, or the exit code after a message. */
static int take_option(int c, struct san_args *sa, char **argv)
{
  uint64_t u;
  switch (c) {
  case 't': return cli_opt_text("sanitize", "--tools", optarg, CLI_TEXT_MAX, &sa->tools);
  case 'p':
    if (cli_opt_u64("sanitize", "--per-regime", optarg, 1, 8, &u))
      return GR_EXIT_USAGE;
    sa->per_regime = (long)u;
    return 0;
  case 'j':
    if (cli_opt_u64("sanitize", "--jobs", optarg, 1, 64, &u))
      return GR_EXIT_USAGE;
    sa->jobs = (long)u;
    sa->jobs_given = 1;
    return 0;
  case 'G': return cli_opt_text("sanitize", "--gpus", optarg, 1024, &sa->gpus_spec);
  case 'b': return cli_opt_double("sanitize", "--budget", optarg, 0, 1e7, &sa->budget);
  case 'T': return cli_opt_double("sanitize", "--timeout", optarg, 1, 1e6, &sa->timeout);
  case 's': return cli_opt_u64("sanitize", "--seed", optarg, 0, UINT64_MAX, &sa->seed);
  case 'd': return cli_opt_text("sanitize", "--db", optarg, CLI_TEXT_MAX, &sa->db);
  case 'S': return cli_opt_text("sanitize", "--sanitizer", optarg, CLI_TEXT_MAX, &sa->sanitizer);
  case 'L': return cli_opt_text("sanitize", "--logs", optarg, CLI_TEXT_MAX, &sa->logs);
  case 'k': return parse_kinds(optarg, &sa->kinds);
  case 'l': return parse_slice(optarg, sa);
  default: return cli_opt_error("sanitize", c, argv);
  }
}

/* The options, the filter, the --logs folder and the tools wanted. 0, -1 (--help printed: exit
 * 0), or the exit code after a message. */
static int parse_args(int argc, char **argv, struct san_args *sa, int want[SAN_N_TOOLS])
{
  int c, rc;
  while ((c = cli_next(&cli_sanitize_cmd, argc, argv)) != -1) {
    if (c == CLI_HELP) {
      cli_help(&cli_sanitize_cmd);
      return -1;
    }
    if ((rc = take_option(c, sa, argv)) != 0)
      return rc;
  }
  if (optind + 1 < argc)
    return cli_usage_error("sanitize", "unexpected argument '%s'", argv[optind + 1]);
  sa->filter = optind < argc ? argv[optind] : NULL;
  /* --logs DIR is made when missing (as --out of plot and export), then must be writable */
  if (sa->logs && (view_mkdir_p(sa->logs) != 0 || access(sa->logs, W_OK) != 0))
    return cli_usage_error("sanitize", "--logs '%s': not a writable folder (%s)", sa->logs,
                           strerror(errno));
  for (const char *s = sa->tools; *s;) {
    size_t w = strcspn(s, ",");
    int t = san_tool_index(s, w);
    if (t < 0)
      return cli_usage_error("sanitize", "unknown tool '%.*s' (memcheck, racecheck, initcheck, "
                             "synccheck)", (int)w, s);
    want[t] = 1;
    s += w + (s[w] == ',');
  }
  return 0;
}

/* compute-sanitizer and a GPU, or the exit code after a line saying why the lane is skipped. */
static int check_environment(struct san_args *sa, char *sanitizer, size_t len,
                             struct run_meta *meta, int argc, char **argv)
{
  if (san_find_sanitizer(sa->sanitizer, sanitizer, len)) {
    printf("sanitize: skipped: %s\n",
           sa->sanitizer ? "the --sanitizer given is not an executable"
                         : "compute-sanitizer not found (PATH, $CUDA_HOME/bin, "
                           "/usr/local/cuda/bin): install the CUDA toolkit");
    cli_status_set("result", "no_sanitizer");
    return GR_EXIT_ENV;
  }
  collect_meta(meta, argc, argv, &sa->gpus, 1);
  if (!meta->gpu.ok) {
    printf("sanitize: skipped: %s\n", meta->gpu.why);
    cli_status_set("result", "no_gpu");
    return GR_EXIT_ENV;
  }
  return 0;
}

static const char *const verdicts[] = {"clean", "explained", "finding", "check",
                                       "error", "timeout", "skip"};
enum { N_VERDICTS = sizeof verdicts / sizeof *verdicts };

/* The report's tallies. */
struct san_tally {
  int count[N_VERDICTS];
  int unverified; /* fixed and peer cells that timed out or were skipped */
  int failed;     /* a finding, check or error on a fixed or peer variant */
};

/* Job j stored and counted; the table's cell printed (the row's head first). */
static void report_job(struct store *st, int64_t run, const struct san_plan *p, size_t i,
                       struct san_tally *t)
{
  struct san_job *j = &p->jobs[i];
  if (!j->verdict) {
    j->verdict = "skip";
    gr_fmt(j->detail, sizeof j->detail, "interrupted");
  }
  struct sanitizer_row row = {j->a->name,         j->v->name, gr_variant_kind_name(j->v->kind),
                              san_tools[j->tool], j->verdict, j->n_cases,
                              j->seconds,         j->detail};
  if (store_add_sanitizer(st, run, &row))
    fprintf(stderr, "gpuregress: cannot record a sanitizer verdict: %s\n", store_errmsg(st));
  if (i == 0 || p->jobs[i - 1].v != j->v) {
    int most = 0; /* the variant's cases (the slow tools run the first of each regime) */
    for (size_t q = i; q < p->n_jobs && p->jobs[q].v == j->v; q++)
      most = p->jobs[q].n_cases > most ? p->jobs[q].n_cases : most;
    printf("%-11s %-20s %-10s %5d", j->a->name, j->v->name, gr_variant_kind_name(j->v->kind),
           most);
  }
  printf("  %-9s", j->verdict);
  if (i + 1 == p->n_jobs || p->jobs[i + 1].v != j->v)
    printf("\n");
  int bad = strcmp(j->verdict, "finding") == 0 || strcmp(j->verdict, "check") == 0 ||
            strcmp(j->verdict, "error") == 0;
  int ours = j->v->kind == GR_VARIANT_FIXED || j->v->kind == GR_VARIANT_PEER;
  t->failed |= bad && ours;
  t->unverified += ours && (strcmp(j->verdict, "timeout") == 0 || strcmp(j->verdict, "skip") == 0);
  for (int vk = 0; vk < N_VERDICTS; vk++)
    if (!strcmp(j->verdict, verdicts[vk]))
      t->count[vk]++;
}

/* The table (one row per variant, one column per tool), the details of every cell that is not
 * clean, the tally and the result line; the verdicts stored. Returns the exit code. */
static int report(struct store *st, int64_t run, const struct san_args *sa, const int *want,
                  const struct run_meta *meta, const struct san_plan *p, double lane_t0)
{
  struct san_tally t;
  memset(&t, 0, sizeof t);
  printf("\ngpuregress sanitize run %lld  seed %llu  %s  %s\n", (long long)run,
         (unsigned long long)sa->seed, meta->gpu.info.name, meta->commit);
  printf("%-11s %-20s %-10s %5s", "algorithm", "variant", "kind", "cases");
  for (int k = 0; k < SAN_N_TOOLS; k++)
    if (want[k])
      printf("  %-9s", san_tools[k]);
  printf("\n");
  for (size_t i = 0; i < p->n_jobs; i++)
    report_job(st, run, p, i, &t);
  store_commit(st);
  int details = 0;
  for (size_t i = 0; i < p->n_jobs; i++) {
    const struct san_job *j = &p->jobs[i];
    if (j->detail[0] && strcmp(j->verdict, "clean") != 0)
      printf("%s%s/%s %s %s: %s\n", details++ ? "" : "\n", j->a->name, j->v->name,
             san_tools[j->tool], j->verdict, j->detail);
  }
  /* the regimes whose code no picked case runs (each drawn case of them also past a limit) */
  int lefts = 0;
  for (size_t i = 0; i < p->n_jobs; i++) {
    const struct san_job *j = &p->jobs[i];
    if (!j->left || (i > 0 && p->jobs[i - 1].v == j->v))
      continue;
    printf("%s%s/%s: left to the fuzz (every case drawn for it also takes a limit or large "
           "regime):",
           lefts++ ? "" : "\n", j->a->name, j->v->name);
    for (size_t r = 0; r < j->a->n_regimes && r < GR_MAX_REGIMES; r++)
      if (j->left >> r & 1)
        printf(" '%s'", j->a->regimes[r].name);
    printf("\n");
  }
  cli_status_set("left_to_fuzz", "%d", lefts);
  int rc = san_interrupted ? 130 : t.failed ? GR_EXIT_FAIL : GR_EXIT_OK;
  char tally[256] = "";
  size_t at = 0;
  for (int vk = 0; vk < N_VERDICTS; vk++) {
    cli_status_set(verdicts[vk], "%d", t.count[vk]);
    if (t.count[vk]) {
      at += (size_t)snprintf(tally + at, sizeof tally - at, "%s%d %s", at ? ", " : "",
                             t.count[vk], verdicts[vk]);
      at = at < sizeof tally ? at : sizeof tally - 1;
    }
  }
  cli_status_set("cells", "%zu", p->n_jobs);
  cli_status_set("wall", "%.1f", now_seconds() - lane_t0);
  printf("\nsanitize: %zu cells (%s); wall %.1f s\n", p->n_jobs, p->n_jobs ? tally : "none",
         now_seconds() - lane_t0);
  char what[128] = "ok (every fixed and peer variant clean or explained)";
  if (t.unverified) /* a cell that timed out or was skipped is neither clean nor a finding */
    gr_fmt(what, sizeof what,
           "incomplete (no finding; %d fixed or peer cells timed out or were "
           "skipped: not verified)",
           t.unverified);
  printf("result: %s exit %d\n", rc == 0 ? what : rc == 1 ? "FAILED" : "interrupted", rc);
  cli_status_set("run", "%lld", (long long)run);
  cli_status_set("result", "%s",
                 rc == 0 ? (t.unverified ? "incomplete" : "ok") : rc == 1 ? "failed" : "interrupted");
  return rc;
}

/* The plan run and reported in a run of the store. Returns the exit code. */
static int run_lane(struct san_args *sa, const int *want, const struct run_meta *meta,
                    struct san_plan *p, const char *sanitizer, const char *self)
{
  char why[GR_WHY_LEN];
  struct store *st = NULL;
  if (store_open(sa->db, &st, why, sizeof why)) {
    fprintf(stderr, "gpuregress sanitize: %s\n", why);
    return GR_EXIT_USAGE;
  }
  struct run_info ri = run_info_from_meta(meta, sa->seed, sa->budget);
  int64_t run = store_begin_run(st, &ri, why, sizeof why);
  if (run < 0) {
    fprintf(stderr, "gpuregress sanitize: %s\n", why);
    store_close(st);
    return GR_EXIT_USAGE;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  fprintf(stderr, "sanitize: %zu runs of %s, %ld at once\n", p->n_jobs, sanitizer, sa->jobs);
  double lane_t0 = now_seconds();
  struct san_lane l = {sa->jobs,  sa->budget, sa->timeout, &sa->gpus,
                       sanitizer, self,       &san_interrupted};
  san_lane_run(p->jobs, p->n_jobs, &l);
  int rc = report(st, run, sa, want, meta, p, lane_t0);
  store_finish_run(st, run, san_interrupted ? "interrupted" : "finished", rc);
  store_close(st);
  return rc;
}

int cmd_sanitize(int argc, char **argv)
{
  struct san_args sa = {.db = STORE_DEFAULT_PATH,
                        .budget = 1800,
                        .timeout = 300,
                        .seed = 1,
                        .per_regime = 2,
                        .jobs = 4,
                        .slices = 1,
                        .kinds = 1u << GR_VARIANT_FIXED | 1u << GR_VARIANT_PEER |
                                 1u << GR_VARIANT_HISTORICAL,
                        .tools = "memcheck,racecheck,initcheck,synccheck"};
  int want[SAN_N_TOOLS] = {0};
  int rc = parse_args(argc, argv, &sa, want);
  if (rc)
    return rc < 0 ? GR_EXIT_OK : rc;
  char why[GR_WHY_LEN], sanitizer[4096], self[4096];
  struct selection sel;
  if (select_variants(sa.filter, &sel, why, sizeof why))
    return cli_usage_error("sanitize", "%s", why);
  if (sa.gpus_spec && (rc = cli_gpus("sanitize", sa.gpus_spec, &sa.gpus)) != 0)
    return rc;
  if (sa.gpus.n && !sa.jobs_given)
    sa.jobs = 4 * (long)sa.gpus.n > 64 ? 64 : 4 * (long)sa.gpus.n;
  struct run_meta meta;
  if ((rc = check_environment(&sa, sanitizer, sizeof sanitizer, &meta, argc, argv)) != 0)
    return rc;
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  self[k > 0 ? k : 0] = 0;
  struct san_select ss = {sa.kinds, sa.slice, sa.slices, sa.per_regime, sa.seed, want, sa.logs};
  struct san_plan plan;
  if (san_plan_make(sel.alg, sel.v, sel.n, &ss, &plan))
    return GR_EXIT_ENV;
  rc = run_lane(&sa, want, &meta, &plan, sanitizer, self);
  san_plan_free(&plan);
  return rc;
}
