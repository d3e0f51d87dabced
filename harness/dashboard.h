/* What plot.c (data files and gnuplot) and dashboard.c (the HTML page) share: the run's timings
 * grouped by algorithm, case and variant. No other file includes this. */
#ifndef GR_DASHBOARD_H
#define GR_DASHBOARD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

#define PLOT_MAX_CASES 64
#define PLOT_MAX_VARS 32
#define PLOT_MAX_ALGS 32

struct alg_view {
  char name[64];
  int ncases, nvar;
  char params[PLOT_MAX_CASES][GR_CASE_TEXT_LEN];
  uint64_t seeds[PLOT_MAX_CASES];
  char label[PLOT_MAX_CASES][128]; /* the parameters that differ between the cases */
  char var[PLOT_MAX_VARS][64], kind[PLOT_MAX_VARS][16];
};

struct plot_ctx {
  struct store *st;
  int64_t run;
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
};

/* The row of variant var and case cs of a, NULL when it did not run. */
const struct store_timing *plot_row_of(const struct plot_ctx *c, const struct alg_view *a, int var,
                                       int cs);

/* Write c->dash/index.html from the template beside the binary. 0 ok; -1 with why (the template
 * is missing or broken, the page cannot be written). */
int dashboard_write(struct plot_ctx *c, char *why, size_t len);

#endif
