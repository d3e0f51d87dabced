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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dashboard.h"
#include "gr.h"

#define HISTORY_RUNS 30

static int mkdir_p(const char *path)
{
  char buf[PATH_MAX];
  gr_fmt(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0777) && errno != EEXIST)
        return -1;
      *p = '/';
    }
  return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

static int in_path(const char *prog)
{
  const char *path = getenv("PATH");
  char buf[PATH_MAX];
  if (!path)
    return 0;
  for (const char *p = path; *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    gr_fmt(buf, sizeof buf, "%.*s/%s", (int)n, p, prog);
    if (n && access(buf, X_OK) == 0)
      return 1;
    p += n + (e != NULL);
  }
  return 0;
}

static void find_scripts(struct plot_ctx *c, const char *given)
{
  char exe[PATH_MAX], cand[PATH_MAX];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[k > 0 ? k : 0] = 0;
  char *slash = strrchr(exe, '/');
  if (slash)
    *slash = 0;
  const char *dirs[4];
  int n = 0;
  char d1[PATH_MAX], d2[PATH_MAX], d3[PATH_MAX];
  if (given)
    dirs[n++] = given;
  else { /* a build folder, an installed tree (cmake/install.cmake), the source tree, here */
    gr_fmt(d1, sizeof d1, "%s/scripts", exe);
    gr_fmt(d2, sizeof d2, "%s/../share/gpuregress/scripts", exe);
    gr_fmt(d3, sizeof d3, "%s/../../scripts", exe);
    dirs[n++] = d1;
    dirs[n++] = d2;
    dirs[n++] = d3;
    dirs[n++] = "scripts";
  }
  for (int i = 0; i < n; i++) {
    gr_fmt(cand, sizeof cand, "%s/plot_sizes.gp", dirs[i]);
    if (access(cand, R_OK) == 0) {
      gr_fmt(c->scripts, sizeof c->scripts, "%s", dirs[i]);
      c->have_scripts = 1;
      return;
    }
  }
  gr_fmt(c->scripts, sizeof c->scripts, "%s", dirs[0]);
}

int plot_gnuplot(struct plot_ctx *c, const char *script, const char *vars)
{
  char path[PATH_MAX];
  if (!c->have_gnuplot || !c->have_scripts)
    return -1;
  gr_fmt(path, sizeof path, "%s/%s", c->scripts, script);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", "-e", vars, path, (char *)NULL);
    _exit(127);
  }
  int status;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
    if (!c->failures[0])
      gr_fmt(c->failures, sizeof c->failures, "gnuplot failed on '%s' (%s)", path, vars);
    return -1;
  }
  c->plots++;
  return 0;
}

void plot_gp_clean(char *s)
{
  for (; *s; s++)
    if (*s == '\'' || *s == '"' || *s == '\\' || *s == '\n')
      *s = ' ';
}

/* ---- data --------------------------------------------------------------------------------- */

/* Keep a timings row and group the algorithm's cases and variants, in order of first
 * appearance. */
static int add_row(void *ctx, const struct store_timing *t)
{
  struct plot_ctx *c = ctx;
  if (c->nrows == c->cap_rows) {
    size_t nc = c->cap_rows ? 2 * c->cap_rows : 64;
    struct store_timing *nr = realloc(c->rows, nc * sizeof *nr);
    if (!nr)
      return -1;
    c->rows = nr;
    c->cap_rows = nc;
  }
  c->rows[c->nrows] = *t;
  const struct store_timing *r = &c->rows[c->nrows++];
  struct alg_view *a = NULL;
  for (int i = 0; i < c->nalgs && !a; i++)
    if (!strcmp(c->algs[i].name, r->algorithm))
      a = &c->algs[i];
  if (!a && c->nalgs < PLOT_MAX_ALGS) {
    a = &c->algs[c->nalgs++];
    memset(a, 0, sizeof *a);
    gr_fmt(a->name, sizeof a->name, "%s", r->algorithm);
  }
  if (!a)
    return 0;
  int k;
  for (k = 0; k < a->ncases && (strcmp(a->params[k], r->params) || a->seeds[k] != r->seed); k++)
    ;
  if (k == a->ncases && k < PLOT_MAX_CASES) {
    gr_fmt(a->params[k], sizeof a->params[k], "%s", r->params);
    a->seeds[k] = r->seed;
    a->ncases++;
  }
  for (k = 0; k < a->nvar && strcmp(a->var[k], r->variant); k++)
    ;
  if (k == a->nvar && k < PLOT_MAX_VARS) {
    gr_fmt(a->var[k], sizeof a->var[k], "%s", r->variant);
    gr_fmt(a->kind[k], sizeof a->kind[k], "%s", r->kind);
    a->nvar++;
  }
  return 0;
}

static int load_rows(struct plot_ctx *c)
{
  if (store_each_timing(c->st, STORE_MAIN, c->run, add_row, c))
    return -1;
  /* short case labels: the parameters that differ between the algorithm's cases */
  for (int i = 0; i < c->nalgs; i++) {
    struct alg_view *a = &c->algs[i];
    for (int k = 0; k < a->ncases; k++) {
      char buf[512], *save = NULL;
      gr_fmt(buf, sizeof buf, "%s", a->params[k]);
      a->label[k][0] = 0;
      for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        int varies = a->ncases == 1;
        for (int j = 0; j < a->ncases && !varies; j++) {
          char needle[256];
          gr_fmt(needle, sizeof needle, " %s ", tok);
          char hay[520];
          gr_fmt(hay, sizeof hay, " %s ", a->params[j]);
          varies = strstr(hay, needle) == NULL;
        }
        if (varies)
          snprintf(a->label[k] + strlen(a->label[k]), sizeof a->label[k] - strlen(a->label[k]),
                   "%s%s", a->label[k][0] ? " " : "", tok);
      }
      if (!a->label[k][0])
        gr_fmt(a->label[k], sizeof a->label[k], "seed=%llu", (unsigned long long)a->seeds[k]);
    }
  }
  return 0;
}

const struct store_timing *plot_row_of(const struct plot_ctx *c, const struct alg_view *a,
                                       int var, int cs)
{
  for (size_t i = 0; i < c->nrows; i++) {
    const struct store_timing *r = &c->rows[i];
    if (!strcmp(r->algorithm, a->name) && !strcmp(r->variant, a->var[var]) &&
        !strcmp(r->params, a->params[cs]) && r->seed == a->seeds[cs])
      return r;
  }
  return NULL;
}

/* Open a data file for writing; NULL (the first failure kept in c->write_error) if it cannot. */
static FILE *data_open(struct plot_ctx *c, const char *path)
{
  FILE *f = fopen(path, "w");
  if (!f && !c->write_error[0])
    gr_fmt(c->write_error, sizeof c->write_error, "cannot write '%s': %s", path, strerror(errno));
  return f;
}

/* Close a data file; 0 ok, -1 when a write failed (kept in c->write_error). */
static int data_close(struct plot_ctx *c, FILE *f, const char *path)
{
  int bad = ferror(f);
  if ((fclose(f) || bad) && !c->write_error[0])
    gr_fmt(c->write_error, sizeof c->write_error, "cannot write '%s': %s", path,
           strerror(errno ? errno : EIO));
  return bad || c->write_error[0] ? -1 : 0;
}

/* <alg>_sizes.dat and its plot */
static void plot_sizes(struct plot_ctx *c, const struct alg_view *a)
{
  char path[PATH_MAX], base[PATH_MAX], vars[4096], names[2048] = "", kinds[1024] = "";
  gr_fmt(base, sizeof base, "%s/%s_sizes", c->plots_dir, a->name);
  gr_fmt(path, sizeof path, "%s.dat", base);
  FILE *f = data_open(c, path);
  if (!f)
    return;
  fprintf(f, "# %s, run %lld: per variant block: case median_ms gbps min_ms max_ms\n", a->name,
          (long long)c->run);
  int points = 0;
  for (int v = 0; v < a->nvar; v++) {
    fprintf(f, "# %s (%s)\n", a->var[v], a->kind[v]);
    for (int k = 0; k < a->ncases; k++) {
      const struct store_timing *r = plot_row_of(c, a, v, k);
      if (r && r->samples > 0 && r->median_ms > 0) {
        fprintf(f, "%d %.9g %.9g %.9g %.9g\n", k, r->median_ms, r->gbps, r->min_ms, r->max_ms);
        points++;
      }
    }
    fprintf(f, "\n\n");
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", v ? " " : "", a->var[v]);
    snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", v ? " " : "", a->kind[v]);
  }
  fprintf(f, "# copy-bandwidth floor: case floor_ms copy_gbps label (one parameter a line)\n");
  int lines = 1;
  for (int k = 0; k < a->ncases; k++) {
    double bytes = 0, copy = 0;
    for (int v = 0; v < a->nvar; v++) {
      const struct store_timing *r = plot_row_of(c, a, v, k);
      if (r) {
        bytes = r->bytes > bytes ? r->bytes : bytes;
        copy = r->copy_gbps > copy ? r->copy_gbps : copy;
      }
    }
    char clean[128], label[256];
    gr_fmt(clean, sizeof clean, "%s", a->label[k]);
    plot_gp_clean(clean);
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
  if (data_close(c, f, path) || !points)
    return;
  char title[256];
  gr_fmt(title, sizeof title, "%s: time and throughput by size (run %lld, %s, L2 cold unless noted)",
         a->name, (long long)c->run, c->rb.gpu[0] ? c->rb.gpu : "no GPU");
  plot_gp_clean(title);
  gr_fmt(vars, sizeof vars,
         "datafile='%s'; outbase='%s'; names='%s'; kinds='%s'; ncases=%d; labellines=%d;"
         " plottitle='%s'",
         path, base, names, kinds, a->ncases, lines, title);
  plot_gnuplot(c, "plot_sizes.gp", vars);
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
  char label[160];
  gr_fmt(label, sizeof label, "%s/%s", alg, var);
  plot_gp_clean(label);
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
  char path[PATH_MAX], base[PATH_MAX], vars[4096];
  gr_fmt(base, sizeof base, "%s/catch", c->plots_dir);
  gr_fmt(path, sizeof path, "%s.dat", base);
  struct catch_ctx k = {.c = c, .ids = ids, .nr = nr, .ymax = 10};
  if (!(k.f = data_open(c, path)))
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
  if (data_close(c, k.f, path) || !k.points || !k.nh)
    return;
  char title[256];
  gr_fmt(title, sizeof title, "historical bugs: cases until caught (the number), per run (%s)",
         c->rb.gpu[0] ? c->rb.gpu : "no GPU");
  plot_gp_clean(title);
  gr_fmt(vars, sizeof vars,
         "datafile='%s'; outbase='%s'; names='%s'; nruns=%d; ymax=%g; plottitle='%s'", path, base,
         k.names, nr, k.ymax, title);
  plot_gnuplot(c, "plot_catch.gp", vars);
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
  if (strpbrk(o->out_dir, "'\"\\")) {
    gr_fmt(why, len, "output folder '%s': quotes and backslashes are not allowed", o->out_dir);
    return -1;
  }
  if (store_get_run(st, STORE_MAIN, run, &c.rb)) {
    gr_fmt(why, len, "no run %lld in the database", (long long)run);
    return -1;
  }
  gr_fmt(c.plots_dir, sizeof c.plots_dir, "%s/plots", o->out_dir);
  gr_fmt(c.dash, sizeof c.dash, "%s/dashboard", o->out_dir);
  if (mkdir_p(c.plots_dir) || mkdir_p(c.dash)) {
    gr_fmt(why, len, "cannot create '%s': %s", c.plots_dir, strerror(errno));
    return -1;
  }
  c.have_gnuplot = in_path("gnuplot");
  find_scripts(&c, o->scripts_dir);
  if (load_rows(&c)) {
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
