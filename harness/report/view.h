/* The run as plots and pages see it (`gpuregress plot`): its timings grouped by algorithm, case
 * and variant, where the output goes, and gnuplot. The bottom of the report's page side:
 * plot.c (the orchestration and the size/catch plots), trends.c (history plots and pages) and
 * dashboard.c (the run's page) include it; it includes none of them. */
#ifndef GR_VIEW_H
#define GR_VIEW_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store.h"

#define PLOT_MAX_CASES 64
#define PLOT_MAX_VARS 32
#define PLOT_MAX_ALGS 32

struct trends;

struct alg_view {
  char name[64];
  int ncases, nvar;
  char params[PLOT_MAX_CASES][GR_CASE_TEXT_LEN];
  uint64_t seeds[PLOT_MAX_CASES];
  char label[PLOT_MAX_CASES][128]; /* the parameters that differ between the cases */
  char var[PLOT_MAX_VARS][64], kind[PLOT_MAX_VARS][16];
};

struct run_verdict;

struct plot_ctx {
  struct store *st;
  int64_t run;
  const struct run_verdict *verdict; /* the banner and the changes against the baseline */
  const char *note;                  /* plot --note, above the banner; NULL none */
  struct store_run rb;
  char plots_dir[PATH_MAX], dash[PATH_MAX], scripts[PATH_MAX];
  /* where gnuplot writes: private folders in plots_dir and dash (outfile_tmpdir) whose files
   * view_gnuplot moves into place after each plot; gnuplot never opens a path under --out */
  char gp_plots[PATH_MAX], gp_dash[PATH_MAX];
  int have_gnuplot, have_scripts;
  struct store_timing *rows; /* the run's timings, in the order stored */
  size_t nrows, cap_rows;
  struct alg_view algs[PLOT_MAX_ALGS];
  int nalgs;
  char failures[GR_WHY_LEN];
  char write_error[GR_WHY_LEN]; /* the first data file that could not be written, "" none */
  int plots;
  struct trends *trends; /* the history of every benchmark up to the run (trends.c) */
};

/* Keep the run's timings in c->rows and group them into c->algs (with short case labels: the
 * parameters that differ between an algorithm's cases). 0 ok; -1 the store failed. */
int view_load(struct plot_ctx *c);

/* The row of variant var and case cs of a, NULL when it did not run. */
const struct store_timing *view_row_of(const struct plot_ctx *c, const struct alg_view *a, int var,
                                       int cs);

/* Where gnuplot and its scripts are: c->have_gnuplot (on PATH), c->scripts and c->have_scripts
 * (given, else beside the binary, installed, in the source tree, ./scripts). 0 ok (scripts or
 * none found); -1 with why when a script there is not a regular file (a FIFO gnuplot would wait
 * on forever) or cannot be opened. */
int view_find_gnuplot(struct plot_ctx *c, const char *scripts_dir, char *why, size_t len);

/* gnuplot -e VARS SCRIPT (from the scripts folder), through the harness's child process module
 * (child.h), its outputs named in c->gp_plots and c->gp_dash: when it succeeds, every file it
 * wrote there is moved into plots_dir or dash (outfile_place: a link there is replaced, a
 * directory or a FIFO refused into c->write_error); when it fails they are removed. 0 ok, else
 * the failure is noted in c->failures. */
int view_gnuplot(struct plot_ctx *c, const char *script, const char *vars);
/* Make s safe as a quoted label in a gnuplot data file: quotes, backslashes and control
 * characters become spaces. */
void view_gp_clean(char *s);
/* s as a gnuplot string literal: '...' with every ' doubled and control characters as spaces;
 * the only way text reaches a gnuplot command line (stored names never do: file names and
 * word lists take gr_slug). Returns dst ("''" when it does not fit). */
const char *view_gp_str(char *dst, size_t len, const char *s);
/* A data file of the plots, written whole (outfile.h): view_data_open returns NULL when it
 * cannot be opened, view_data_close -1 when it could not be written; the first failure is kept
 * in c->write_error (plot_run's error, exit 2). */
struct outfile;
FILE *view_data_open(struct plot_ctx *c, struct outfile *o, const char *path);
int view_data_close(struct plot_ctx *c, struct outfile *o);

/* mkdir -p. 0 ok; -1 with errno. */
int view_mkdir_p(const char *path);

#endif
