/* Plots and the static dashboard of a run (`gpuregress plot`). Data files are written from the
 * store to OUT/plots/, gnuplot draws them with the scripts scripts/plot_*.gp (PNG with pngcairo,
 * SVG with svg) (plot.c), and OUT/dashboard/index.html shows the run's verdicts, timings,
 * changes against the previous run on the same GPU model and the plots, as one self-contained
 * file (SVGs embedded as data URIs, CSS inline: no external assets, readable offline): the page
 * template harness/report/dashboard.html filled in by dashboard.c. */
#ifndef GR_PLOT_H
#define GR_PLOT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct store;

struct run_verdict;

struct plot_opts {
  const char *out_dir;     /* plots/ and dashboard/ are made inside */
  const struct run_verdict *verdict; /* the run's verdict (verdict.h): banner, changes; NULL none */
  const char *scripts_dir; /* NULL: beside the binary (scripts/), then ../share/gpuregress/scripts
                            (installed), ../../scripts, ./scripts */
  const char *note;        /* a line shown above the verdict (plot --note: "SAMPLE ..."); NULL none */
};

struct plot_report {
  int plots;           /* plots drawn (each as .png and .svg) */
  int gnuplot_missing; /* 1: data and dashboard written, no plots */
};

/* 0 ok; 1 written without plots (why says why: gnuplot or the scripts missing, a plot failed);
 * -1 with why (cannot write the output, cannot read the run, the page template is missing). */
int plot_run(struct store *st, int64_t run, const struct plot_opts *o, struct plot_report *rep,
             char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
