/* Helpers shared by the subcommands of the gpuregress binary (harness/cli.c; the commands are in
 * the cmd_*.c files, the table in main.c): usage errors, strict number parsing, run metadata,
 * the selection of variants and the machine-readable status file. */
#ifndef GR_CLI_H
#define GR_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"
#include "gpu.h"
#include "store.h"

/* Print "gpuregress CMD: <message>" and a pointer to --help on stderr; returns GR_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whole-string parse; -1 on junk or out of [lo, hi]. (Integers: gr_parse_u64 in gr.h.) */
int cli_parse_double(const char *s, double lo, double hi, double *out);

/* Open an existing database read-only (never create or change one): 0 ok, else the exit code
 * after a message naming cmd. */
int cli_open_existing(const char *cmd, const char *db, struct store **st);
/* A run id (> 0). 0 ok, -1 junk. */
int cli_parse_run(const char *s, int64_t *out);

/* What a run records about where it ran; the GPU is asked by a child process (the parent never
 * initialises CUDA). */
struct probe {
  int ok;
  enum gr_status status; /* GR_STATUS_NO_GPU: no usable device; GR_STATUS_ENV: the probe failed */
  struct gpu_info info;
  char why[GR_WHY_LEN];
};
struct run_meta {
  struct probe gpu;
  char commit[64];   /* the commit the binary was built from ("unknown" outside a checkout) */
  char checkout[64]; /* the current checkout's commit where it differs from commit, else "" */
  char host[128], command[1024], cc[16];
  int dirty; /* the build's tree had changes */
};
/* Fill m; warns on stderr when the current checkout is at another commit than the build. */
void collect_meta(struct run_meta *m, int argc, char **argv);
/* The commit this binary was built from, "-dirty" appended when its tree had changes. */
const char *cli_build_commit(void);
/* The run_info of a run about to begin, pointing into m. */
struct run_info run_info_from_meta(const struct run_meta *m, uint64_t seed, double budget);

/* Variants chosen by a comma-separated filter of ALG or ALG/VARIANT patterns (shell wildcards);
 * NULL selects every visible algorithm. 0 ok; -1 with why naming the pattern that matched
 * nothing. */
struct selection {
  const struct algorithm *alg[256];
  const struct variant *v[256];
  size_t n;
};
int select_variants(const char *filter, struct selection *sel, char *why, size_t len);

/* The status file of scripts (ci/nightly, scripts/gpu-check): `--status-file FILE`, accepted by
 * every command, names a file that gets "key=value" lines when the command ends (written whole,
 * then renamed into place): what the command set with cli_status_set, then command and exit.
 *   run, fuzz: run=ID seed=N result=ok|failed|no_gpu|interrupted, verdict=SUMMARY,
 *              repro=CASE per printed reproducer
 *   bench:     run=ID result=ok|failed|no_gpu|error
 *   compare:   compared=0|1 (0: no baseline, the run judged alone),
 *              result=ok|regression|no_gpu|incomplete, verdict=SUMMARY (verdict.h)
 * The human output is the same with or without it. */
/* Remove "--status-file FILE" (or "=FILE") from argv[2..] (argc adjusted); -1 if FILE is
 * missing. */
int cli_status_take_option(int *argc, char **argv);
void cli_status_set(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write the file (when asked for) with command and exit = rc; returns rc. */
int cli_status_finish(const char *cmd, int rc);

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
/* History: change points, merging runners, retention (harness/cmd_history.c). */
int cmd_history(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_prune(int argc, char **argv);
/* The timing phase of `gpuregress run --bench`: bench the selection's GPU variants into run.
 * Returns an exit code (0, 1 a check failed after timing, 3 no GPU). */
int bench_phase(struct store *st, int64_t run, const struct selection *sel, int quick, int quiet);

#endif
