/* Helpers shared by the subcommands of the gpuregress binary (harness/cli/cli.c; the commands are in
 * the cmd_*.c files, the table in main.c): usage errors, strict number parsing, run metadata,
 * the selection of variants and the machine-readable status file. */
#ifndef GR_CLI_H
#define GR_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"
#include "gpu.h"
#include "gpus.h"
#include "selection.h"
#include "store.h"

/* Print "gpuregress CMD: <message>" and a pointer to --help on stderr; returns GR_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whole-string parse of a finite number in [lo, hi]; -1 on junk, NaN, infinity or out of range.
 * (Integers: gr_parse_u64 in gr.h.) */
int cli_parse_double(const char *s, double lo, double hi, double *out);

/* Option values, one set of helpers for every command: the value is parsed whole, and a bad one
 * gets "gpuregress CMD: bad value 'V' for OPT: <what it must be>" with GR_EXIT_USAGE; 0 ok.
 *   cli_opt_double: a finite number in [lo, hi] (NaN and infinity refused);
 *   cli_opt_u64:    a decimal whole number in [lo, hi] (no sign, no wrap-around);
 *   cli_opt_text:   a non-empty text of at most max characters (a file name, a pattern). */
int cli_opt_double(const char *cmd, const char *opt, const char *s, double lo, double hi,
                   double *out);
int cli_opt_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi,
                uint64_t *out);
int cli_opt_text(const char *cmd, const char *opt, const char *s, size_t max, const char **out);
/*   cli_opt_date:   a date (gr_date_instant), its instant written into canon as the store
 *                   writes starts ("bad date '' for --before: ..." names the option). */
int cli_opt_date(const char *cmd, const char *opt, const char *s, char *canon, size_t len);
/* getopt_long for every command (longindex unused), with one rule of ours: an option's value
 * taken from the next word never starts with "--" ("run --db --help" is --db without a value,
 * not a database named --help); written "--db=--x" or "-d--x" it is the value. Such a word is
 * returned as ':' (a missing value) for cli_opt_error, which names both. */
struct option;
int cli_getopt(int argc, char **argv, const char *optstring, const struct option *longopts);
/* getopt_long's errors in our words (commands pass an optstring that begins with ':' and set
 * opterr = 0, so that getopt prints nothing): c is what getopt_long returned (':' a missing
 * value, '?' an unknown option). Prints "option '--db' needs a value", "unknown option
 * '--bogus'" or "option '--quiet' takes no value"; returns GR_EXIT_USAGE. */
int cli_opt_error(const char *cmd, int c, char **argv);
/* The longest file name or pattern an option takes. */
#define CLI_TEXT_MAX 4095
/* The commands that run variants (run, fuzz, repro, bench) first: TMPDIR, when set, must be a
 * folder this user can write, else the variants that make temporary files there would fail as
 * if they had crashed. 0 ok; GR_EXIT_ENV after a message naming TMPDIR and why. */
int cli_check_tmpdir(const char *cmd);
/* Open an existing database read-only (never create or change one): 0 ok, else the exit code
 * after a message naming cmd. */
int cli_open_existing(const char *cmd, const char *db, struct store **st);
/* A run id (> 0). 0 ok, -1 junk. */
int cli_parse_run(const char *s, int64_t *out);
/* --run RUN: 0 ok, else the exit code after a message naming the option (cmd_report.c). */
int cli_run_option(const char *cmd, const char *s, int64_t *out);
struct compare_opts;
struct run_verdict;
/* The prologue of compare, plot and export (cmd_report.c): open db (existing, read-only), pick
 * the run (given, else the latest finished one) and, when want_verdict, judge it against its
 * baseline (--baseline RUN, FILE, "none", or by default the latest finished run before it on the
 * same GPU model). 0 ok; else the exit code after a message. *st (maybe NULL) and *v are the
 * caller's to free. */
/* Every per-algorithm --min-effect/--alpha override names an algorithm of the registry or of
 * the database: 0 ok; else GR_EXIT_USAGE after a message naming it. */
struct compare_opts;
int cli_check_overrides(const char *cmd, struct store *st, const struct compare_opts *co);
int cli_open_and_judge(const char *cmd, const char *db, int64_t *run, const char *baseline,
                       const struct compare_opts *co, int want_verdict, struct store **st,
                       struct run_verdict **v, int *compared);

/* What a run records about where it ran; the GPU is asked by a child process (the parent never
 * initialises CUDA). */
struct probe {
  int ok;
  enum gr_status status; /* GR_STATUS_NO_GPU: no usable device; GR_STATUS_ENV: the probe failed */
  struct gr_gpu_info info;
  char why[GR_WHY_LEN];
};
struct run_meta {
  struct probe gpu;
  char commit[64];   /* the commit the binary was built from ("unknown" outside a checkout) */
  char checkout[64]; /* the current checkout's commit where it differs from commit, else "" */
  char host[128], command[1024], cc[16];
  int dirty; /* the build's tree had changes */
  char gr_version[32], gr_commit[64]; /* gpuregress's own (commit above: the code under test) */
  char runner[GR_NAME_MAX + 1];       /* what the reproducers call the runner */
};
/* Fill m; warns on stderr when the current checkout is at another commit than the build. The
 * GPU described (probe 1: by a child process that starts CUDA) is the first of gpus (--gpus), or
 * device 0 where gpus is NULL or empty; probe 0 leaves m->gpu unknown (bench --gpus: its
 * benchmark processes describe their GPUs, and the run's row is set from the first lane's). */
void collect_meta(struct run_meta *m, int argc, char **argv, const struct gpu_set *gpus, int probe);
/* The commit gpuregress (the harness) was built from, "-dirty" appended when its tree had
 * changes; cli_code_commit: the code under test's, the same for gpuregress's own build, the
 * project's for a runner of one's own (gpuregress_add_executable). */
const char *cli_build_commit(void);
const char *cli_code_commit(void);
/* Name this runner in the reproducers it prints and stores: argv0 when it has no '/' (found on
 * PATH), else its base name when that name on PATH is this program, else the registered name
 * ("gpuregress", or the target of gpuregress_add_executable). */
void cli_set_runner_name(const char *argv0);
/* Called at start by the file gpuregress_add_executable generates (cmake/gitinfo.cmake): the
 * runner's registered name, its project's commit ("<sha>[-dirty]" or "unknown") and the top of
 * that project's checkout at build time ("" unknown). The strings must live for the program. */
void gr_runner_identify(const char *name, const char *commit, const char *toplevel);
/* The run_info of a run about to begin, pointing into m. */
struct run_info run_info_from_meta(const struct run_meta *m, uint64_t seed, double budget);

/* Variants chosen by a comma-separated filter of ALG or ALG/VARIANT patterns (shell wildcards);
 * NULL selects every visible algorithm. 0 ok; -1 with why naming the pattern that matched
 * nothing, or refusing an empty filter, an empty pattern, a filter over 1023 or a pattern over
 * 255 characters (never cut). struct selection: selection.h. */
int select_variants(const char *filter, struct selection *sel, char *why, size_t len);

/* The status file of scripts (ci/nightly, scripts/gpu-check): `--status-file FILE`, accepted by
 * every command, names a file that gets "key=value" lines when the command ends (written whole,
 * then renamed into place): what the command set with cli_status_set, then command and exit.
 *   run, fuzz: run=ID seed=N result=ok|failed|no_gpu|interrupted|error (the store failed),
 *              night=ID and shard=K/N when the run has them (doc/fleet.md),
 *              verdict=SUMMARY,
 *              repro=CASE and reproducer=COMMAND per printed reproducer (COMMAND as
 *              printed: this runner's name, the case quoted), runner=NAME
 *   bench:     run=ID result=ok|failed|no_gpu|error
 *   sanitize:  run=ID result=ok|incomplete (a fixed or peer cell timed out)|failed|interrupted,
 *              cells=N wall=S and a count per verdict (clean=N timeout=N ...)
 *   compare:   compared=0|1 (0: no baseline, the run judged alone),
 *              result=ok|regression|no_gpu|incomplete, verdict=SUMMARY (verdict.h),
 *              open_regressions=N acknowledged=N history_steps=N (over the nights)
 * The human output is the same with or without it. */
/* Remove "--status-file FILE" (or "=FILE") from argv[2..] (argc adjusted); -1 if FILE is
 * missing, empty, or the next word is an option ("--status-file --help"; "--status-file=--x"
 * names a file "--x"). */
int cli_status_take_option(int *argc, char **argv);
/* 0 when the status file asked for can be written (outfile_check: a regular file or a new one
 * in an existing folder), else -1 with why; checked before a command starts its work. */
int cli_status_check(char *why, size_t len);
void cli_status_set(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write the file (when asked for) with command and exit = rc, written whole (outfile.h);
 * returns rc, or GR_EXIT_USAGE when the file could not be written (130 stays 130). */
int cli_status_finish(const char *cmd, int rc);

/* The end of a command whose store failed (store_write_failed): the message, "result: error",
 * the run marked 'error' where the database still takes it. Returns GR_EXIT_USAGE. */
int cli_store_failed(const char *cmd, struct store *st, int64_t run);

/* The subcommands (harness/cmd_*.c). */
int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_sanitize(int argc, char **argv);
/* History: change points, merging runners, retention (harness/cli/cmd_history.c). */
int cmd_history(int argc, char **argv);
/* Acknowledging open regressions (harness/cli/cmd_ack.c). */
int cmd_ack(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_prune(int argc, char **argv);
/* The first bad commit of a reproducer (harness/cli/cmd_bisect.c, harness/run/bisect.c). */
int cmd_bisect(int argc, char **argv);
struct gpu_set;
/* --gpus SPEC of cmd resolved into out (gpus.h); 0 ok, else the exit code after a message (2 a
 * malformed spec, 3 the GPUs are not there). */
int cli_gpus(const char *cmd, const char *spec, struct gpu_set *out);

#endif
