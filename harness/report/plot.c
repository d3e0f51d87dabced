/* Plots: data files of the run and its history, drawn by gnuplot. See plot.h; the page is
 * dashboard.c's.
 *
 * Data files (OUT/plots/), one block per series, blocks separated by two blank lines (gnuplot's
 * `index`):
 *   <alg>_sizes.dat    blocks 0..V-1 (one per variant): case  median_ms  gbps  min_ms  max_ms
 *                      block V: case  floor_ms  copy_gbps  "label"   (the copy-bandwidth floor)
 *   trend_<alg>.dat    the history of every benchmark of the algorithm: see trends.c
 *   catch.dat          block 0: run  "label"; blocks 1..H: run  cases_to_catch  seconds;
 *                      block H+1: escaped: run  cases  row (the bug's block number)  "escaped" */
#define _GNU_SOURCE
#include "plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dashboard.h"
#include "gr.h"
#include "outfile.h"
#include "trends.h"
#include "view.h"

#define HISTORY_RUNS 30

/* ---- data --------------------------------------------------------------------------------- */

/* <alg>_sizes.dat and its plot */
static void plot_sizes(struct plot_ctx *c, const struct alg_view *a)
{
  char path[PATH_MAX], base[PATH_MAX], vars[16384], names[2048] = "", kinds[1024] = "", slug[80];
  gr_slug(slug, sizeof slug, a->name);
  gr_fmt(path, sizeof path, "%s/%s_sizes.dat", c->plots_dir, slug);
  gr_fmt(base, sizeof base, "%s/%s_sizes", c->gp_plots, slug); /* gnuplot's outputs */
  struct outfile out;
  FILE *f = view_data_open(c, &out, path);
  if (!f)
    return;
  fprintf(f, "# %s, run %lld: per variant block: case median_ms gbps min_ms max_ms\n", a->name,
          (long long)c->run);
  int points = 0, blocks = 0;
  for (int v = 0; v < a->nvar; v++) {
    /* a variant without a timing in this run (one the bench skipped) gets no block: gnuplot
     * would warn of an empty data set on every plot */
    int mine = 0;
    for (int k = 0; k < a->ncases; k++) {
      const struct store_timing *r = view_row_of(c, a, v, k);
      mine += r && r->samples > 0 && r->median_ms > 0;
    }
    if (!mine)
      continue;
    fprintf(f, "# %s (%s)\n", a->var[v], a->kind[v]);
    for (int k = 0; k < a->ncases; k++) {
      const struct store_timing *r = view_row_of(c, a, v, k);
      if (r && r->samples > 0 && r->median_ms > 0)
        fprintf(f, "%d %.9g %.9g %.9g %.9g\n", k, r->median_ms, r->gbps, r->min_ms, r->max_ms);
    }
    fprintf(f, "\n\n");
    points += mine;
    /* gnuplot splits these at blanks (word()): names as the slug where they are not names */
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", blocks ? " " : "",
             gr_slug(slug, sizeof slug, a->var[v]));
    snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", blocks ? " " : "",
             gr_slug(slug, sizeof slug, a->kind[v]));
    blocks++;
  }
  fprintf(f, "# copy-bandwidth floor: case floor_ms copy_gbps label (one parameter a line)\n");
  int lines = 1;
  for (int k = 0; k < a->ncases; k++) {
    double bytes = 0, copy = 0;
    for (int v = 0; v < a->nvar; v++) {
      const struct store_timing *r = view_row_of(c, a, v, k);
      if (r) {
        bytes = r->bytes > bytes ? r->bytes : bytes;
        copy = r->copy_gbps > copy ? r->copy_gbps : copy;
      }
    }
    char clean[128], label[256];
    gr_fmt(clean, sizeof clean, "%s", a->label[k]);
    view_gp_clean(clean);
    gr_fmt(label, sizeof label, "#%d", k);
    int nl = 1;
    char *save = NULL;
    for (char *tok = strtok_r(clean, " ", &save); tok; tok = strtok_r(NULL, " ", &save), nl++)
      snprintf(label + strlen(label), sizeof label - strlen(label), "\\n%s", tok);
    lines = nl > lines ? nl : lines;
    if (copy > 0)
      fprintf(f, "%d %.9g %.9g \"%s\"\n", k, bytes / (copy * 1e9) * 1e3, copy, label);
    else
      fprintf(f, "%d NaN NaN \"%s\"\n", k, label);
  }
  if (view_data_close(c, &out) || !points)
    return;
  char title[256];
  gr_fmt(title, sizeof title, "%s: time and throughput by size (run %lld, %s, L2 cold unless noted)",
         a->name, (long long)c->run, c->rb.gpu[0] ? c->rb.gpu : "no GPU");
  char q[5][4096];
  gr_fmt(vars, sizeof vars,
         "datafile=%s; outbase=%s; names=%s; kinds=%s; ncases=%d; labellines=%d; plottitle=%s",
         view_gp_str(q[0], sizeof q[0], path), view_gp_str(q[1], sizeof q[1], base),
         view_gp_str(q[2], sizeof q[2], names), view_gp_str(q[3], sizeof q[3], kinds), a->ncases,
         lines, view_gp_str(q[4], sizeof q[4], title));
  view_gnuplot(c, "plot_sizes.gp", vars);
}

/* Earlier runs on the same GPU model with timings (or outcomes), oldest first, ending at run;
 * labelled "ID COMMIT". */
static int history_runs(struct plot_ctx *c, int what, int64_t *ids, char labels[][64], int max)
{
  int64_t newest[HISTORY_RUNS];
  char commits[HISTORY_RUNS][16];
  int n = store_history(c->st, c->run, what, newest, commits, max < HISTORY_RUNS ? max : HISTORY_RUNS);
  for (int i = 0; i < n; i++) { /* oldest first */
    ids[i] = newest[n - 1 - i];
    gr_fmt(labels[i], 64, "%lld %s", (long long)ids[i], commits[n - 1 - i]);
  }
  return n;
}

/* catch.dat: cases each historical bug took to be caught, per run */
struct catch_ctx {
  struct plot_ctx *c;
  FILE *f;
  const int64_t *ids;
  int nr, nh, points;
  char names[2048], escaped[8192];
  double ymax;
  /* the outcome looked for */
  const char *alg, *var;
  int found;
  char verdict[16];
  double cases, secs;
};

static int catch_outcome(void *ctx, const struct store_outcome *o)
{
  struct catch_ctx *k = ctx;
  if (!o->algorithm || !o->variant || strcmp(o->algorithm, k->alg) || strcmp(o->variant, k->var))
    return 0;
  k->found = 1;
  gr_fmt(k->verdict, sizeof k->verdict, "%s", o->verdict ? o->verdict : "");
  k->cases = o->caught ? (double)o->cases_to_catch : (double)o->cases;
  k->secs = o->caught ? o->seconds_to_catch : o->seconds;
  return 1; /* found: stop */
}

/* one block of catch.dat: a historical variant over the runs */
static int catch_variant(void *ctx, const char *alg, const char *var)
{
  struct catch_ctx *k = ctx;
  fprintf(k->f, "# %s/%s: run cases_to_catch seconds_to_catch\n", alg, var);
  for (int i = 0; i < k->nr; i++) {
    k->alg = alg;
    k->var = var;
    k->found = 0;
    store_each_outcome(k->c->st, STORE_MAIN, k->ids[i], STORE_BY_INSERTION, catch_outcome, k);
    if (!k->found)
      continue;
    k->ymax = 2 * k->cases > k->ymax ? 2 * k->cases : k->ymax;
    if (!strcmp(k->verdict, "caught")) {
      fprintf(k->f, "%d %.9g %.9g\n", i, k->cases, k->secs);
      k->points++;
    } else if (!strcmp(k->verdict, "escaped")) {
      size_t n = strlen(k->escaped);
      snprintf(k->escaped + n, sizeof k->escaped - n, "%d %.9g %d \"escaped\"\n", i,
               k->cases > 0 ? k->cases : 1, k->nh + 1);
      k->points++;
    }
  }
  fprintf(k->f, "\n\n");
  char label[200], sa[80], sv[80];
  gr_fmt(label, sizeof label, "%s/%s", gr_slug(sa, sizeof sa, alg), gr_slug(sv, sizeof sv, var));
  size_t n = strlen(k->names);
  snprintf(k->names + n, sizeof k->names - n, "%s%s", k->nh++ ? " " : "", label);
  return 0;
}

/* catch.dat: cases each historical bug took to be caught, per run */
static void plot_catch(struct plot_ctx *c)
{
  int64_t ids[HISTORY_RUNS];
  char labels[HISTORY_RUNS][64];
  int nr = history_runs(c, STORE_HAS_OUTCOMES, ids, labels, HISTORY_RUNS);
  if (nr < 1)
    return;
  char path[PATH_MAX], base[PATH_MAX], vars[16384];
  gr_fmt(path, sizeof path, "%s/catch.dat", c->plots_dir);
  gr_fmt(base, sizeof base, "%s/catch", c->gp_plots); /* gnuplot's outputs */
  struct catch_ctx k = {.c = c, .ids = ids, .nr = nr, .ymax = 10};
  struct outfile out;
  if (!(k.f = view_data_open(c, &out, path)))
    return;
  fprintf(k.f, "# runs (oldest first): index label\n");
  for (int i = 0; i < nr; i++)
    fprintf(k.f, "%d \"%s\"\n", i, labels[i]);
  fprintf(k.f, "\n\n");
  store_each_historical(c->st, c->run, catch_variant, &k);
  fprintf(k.f, "# escaped (the bug survived the whole budget): run cases row \"escaped\"\n%s", k.escaped);
  if (!k.escaped[0])
    fprintf(k.f, "-10 1 1 \"\"\n"); /* the block, off the plot (gnuplot 5.4 crashes on labels
                                          without one valid point) */
  if (view_data_close(c, &out) || !k.points || !k.nh)
    return;
  char title[256];
  gr_fmt(title, sizeof title, "historical bugs: cases until caught (the number), per run (%s)",
         c->rb.gpu[0] ? c->rb.gpu : "no GPU");
  char q[4][4096];
  gr_fmt(vars, sizeof vars, "datafile=%s; outbase=%s; names=%s; nruns=%d; ymax=%g; plottitle=%s",
         view_gp_str(q[0], sizeof q[0], path), view_gp_str(q[1], sizeof q[1], base),
         view_gp_str(q[2], sizeof q[2], k.names), nr, k.ymax,
         view_gp_str(q[3], sizeof q[3], title));
  view_gnuplot(c, "plot_catch.gp", vars);
}

int plot_run(struct store *st, int64_t run, const struct plot_opts *o, struct plot_report *rep,
             char *why, size_t len)
{
  struct plot_ctx c;
  memset(&c, 0, sizeof c);
  memset(rep, 0, sizeof *rep);
  c.st = st;
  c.run = run;
  c.verdict = o->verdict;
  c.note = o->note;
  if (!gr_is_printable(o->out_dir)) {
    gr_fmt(why, len, "output folder: control characters are not allowed in its name");
    return -1;
  }
  if (store_get_run(st, STORE_MAIN, run, &c.rb)) {
    gr_fmt(why, len, "no run %lld in the database", (long long)run);
    return -1;
  }
  gr_fmt(c.plots_dir, sizeof c.plots_dir, "%s/plots", o->out_dir);
  gr_fmt(c.dash, sizeof c.dash, "%s/dashboard", o->out_dir);
  if (view_mkdir_p(c.plots_dir) || view_mkdir_p(c.dash)) {
    gr_fmt(why, len, "cannot create '%s': %s", c.plots_dir, strerror(errno));
    return -1;
  }
  if (view_find_gnuplot(&c, o->scripts_dir, why, len))
    return -1;
  /* gnuplot's private folders, one in each folder it writes to (outfile_tmpdir takes the path
   * of an output there) */
  char p1[PATH_MAX + 8], p2[PATH_MAX + 8];
  gr_fmt(p1, sizeof p1, "%s/x", c.plots_dir);
  gr_fmt(p2, sizeof p2, "%s/x", c.dash);
  if (c.have_gnuplot && c.have_scripts &&
      (outfile_tmpdir(c.gp_plots, sizeof c.gp_plots, p1, why, len) ||
       outfile_tmpdir(c.gp_dash, sizeof c.gp_dash, p2, why, len))) {
    outfile_tmpdir_remove(c.gp_plots);
    return -1;
  }
  if (view_load(&c)) {
    outfile_tmpdir_remove(c.gp_plots);
    outfile_tmpdir_remove(c.gp_dash);
    free(c.rows);
    gr_fmt(why, len, "cannot read the timings of run %lld: %s", (long long)run, store_errmsg(st));
    return -1;
  }
  for (int i = 0; i < c.nalgs; i++) {
    plot_sizes(&c, &c.algs[i]);
  }
  trends_load(&c);
  trends_plot(&c);
  plot_catch(&c);
  int rc = dashboard_write(&c, why, len);
  if (rc == 0)
    rc = trends_pages(&c, why, len);
  trends_free(c.trends);
  free(c.rows);
  outfile_tmpdir_remove(c.gp_plots);
  outfile_tmpdir_remove(c.gp_dash);
  rep->plots = c.plots;
  rep->gnuplot_missing = !c.have_gnuplot;
  if (rc)
    return -1;
  if (c.write_error[0]) {
    gr_fmt(why, len, "%s", c.write_error);
    return -1;
  }
  if (!c.have_gnuplot) {
    gr_fmt(why, len, "gnuplot not found: data files and the dashboard are written, no plots "
                     "(install the Debian package 'gnuplot-nox')");
    return 1;
  }
  if (!c.have_scripts) {
    gr_fmt(why, len, "no gnuplot scripts in '%s': pass --scripts DIR (the source tree's scripts/)",
           c.scripts);
    return 1;
  }
  if (c.failures[0]) {
    gr_fmt(why, len, "%s", c.failures);
    return 1;
  }
  return 0;
}
