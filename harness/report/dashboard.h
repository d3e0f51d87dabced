/* What plot.c (data files and gnuplot) and dashboard.c (the HTML page) share: the run's timings
 * grouped by algorithm, case and variant. No other file includes this. */
#ifndef GR_DASHBOARD_H
#define GR_DASHBOARD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "template.h"

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
  struct store_run rb;
  char plots_dir[PATH_MAX], dash[PATH_MAX], scripts[PATH_MAX];
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

/* gnuplot -e VARS SCRIPT (from the scripts folder); 0 ok, else the failure is noted in
 * c->failures. */
int plot_gnuplot(struct plot_ctx *c, const char *script, const char *vars);
/* Make s safe inside gnuplot's '...' (quotes, backslashes and newlines become spaces). */
void plot_gp_clean(char *s);

/* The row of variant var and case cs of a, NULL when it did not run. */
const struct store_timing *plot_row_of(const struct plot_ctx *c, const struct alg_view *a, int var,
                                       int cs);

/* Write c->dash/index.html (and the same page as run-RUN.html, which the index of nights links
 * to) from the template beside the binary. 0 ok; -1 with why (the template is missing or
 * broken, the page cannot be written). */
int dashboard_write(struct plot_ctx *c, char *why, size_t len);
/* Render the page template named name (beside the binary, share/NAME, or in the source tree)
 * with v into path (through a temporary file). 0 ok; -1 with why. */
int dashboard_render(const char *name, const struct tpl_view *v, const char *path, char *why,
                     size_t len);
/* A plot of plots/NAME.svg into the list "plots" of v: its SVG, or why there is none. */
void dashboard_add_plot(const struct plot_ctx *c, struct tpl_view *v, const char *name,
                        const char *alt);
/* The badge class of a verdict or a timing class: ok, meh or bad. */
const char *dashboard_badge(const char *verdict);

/* ---- trends (trends.c): the history of every benchmark, drawn and paged ------------------ */

/* Read the history up to c->run into c->trends (NULL when it cannot be read: no trends). */
void trends_load(struct plot_ctx *c);
void trends_free(struct trends *t);
/* plots/trend_ALG.dat and one plot per benchmark and GPU model (plots/trend_ALG_K.svg). */
void trends_plot(struct plot_ctx *c);
/* dashboard/history-ALG.html for every algorithm with trends. 0 ok; -1 with why. */
int trends_pages(struct plot_ctx *c, char *why, size_t len);
/* The index of nights and the links to the history pages, into the run page's view. */
void trends_index(struct plot_ctx *c, struct tpl_view *v);

#endif
