/* Plots and the dashboard. See plot.h.
 *
 * Data files (OUT/plots/), one block per series, blocks separated by two blank lines (gnuplot's
 * `index`):
 *   <alg>_sizes.dat    blocks 0..V-1 (one per variant): case  median_ms  gbps  min_ms  max_ms
 *                      block V: case  floor_ms  copy_gbps  "label"   (the copy-bandwidth floor)
 *   <alg>_history.dat  block 0: run  "label"; blocks 1..V: run  median_ms  min_ms  max_ms
 *   catch.dat          block 0: run  "label"; blocks 1..H: run  cases_to_catch  seconds;
 *                      block H+1: escaped: run  cases */
#define _GNU_SOURCE
#include "plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "export.h"
#include "gr.h"

#define MAX_CASES 64
#define MAX_VARS 32
#define MAX_ALGS 32
#define HISTORY_RUNS 30

struct trow {
  char alg[64], var[64], kind[16], params[512], verdict[16], reason[512];
  uint64_t seed;
  int samples;
  double median, min, max, gbps, pct, copy, bytes, noise, clock;
};

struct alg_view {
  char name[64];
  int ncases, nvar;
  char params[MAX_CASES][512];
  uint64_t seeds[MAX_CASES];
  char label[MAX_CASES][128];
  char var[MAX_VARS][64], kind[MAX_VARS][16];
};

struct ctx {
  sqlite3 *db;
  int64_t run;
  struct run_brief rb;
  const char *out;
  char plots_dir[PATH_MAX], dash[PATH_MAX], scripts[PATH_MAX];
  int have_gnuplot, have_scripts;
  struct trow *rows;
  size_t nrows;
  struct alg_view algs[MAX_ALGS];
  int nalgs;
  char failures[GR_WHY_LEN];
  int plots;
};

static void col(sqlite3_stmt *s, int i, char *dst, size_t len)
{
  const unsigned char *t = sqlite3_column_text(s, i);
  gr_fmt(dst, len, "%s", t ? (const char *)t : "");
}

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

static void find_scripts(struct ctx *c, const char *given)
{
  char exe[PATH_MAX], cand[PATH_MAX];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[k > 0 ? k : 0] = 0;
  char *slash = strrchr(exe, '/');
  if (slash)
    *slash = 0;
  const char *dirs[4];
  int n = 0;
  char d1[PATH_MAX], d2[PATH_MAX];
  if (given)
    dirs[n++] = given;
  else {
    gr_fmt(d1, sizeof d1, "%s/scripts", exe);
    gr_fmt(d2, sizeof d2, "%s/../../scripts", exe);
    dirs[n++] = d1;
    dirs[n++] = d2;
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

/* gnuplot -e VARS SCRIPT; 0 ok */
static int gnuplot(struct ctx *c, const char *script, const char *vars)
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

/* A string safe inside gnuplot's '...' */
static void gp_clean(char *s)
{
  for (; *s; s++)
    if (*s == '\'' || *s == '"' || *s == '\\' || *s == '\n')
      *s = ' ';
}

/* ---- data --------------------------------------------------------------------------------- */

static int load_rows(struct ctx *c)
{
  sqlite3_stmt *s;
  size_t cap = 0;
  if (sqlite3_prepare_v2(c->db,
                         "SELECT algorithm, variant, kind, params, seed, samples,"
                         " coalesce(median_ms, 0), coalesce(min_ms, 0), coalesce(max_ms, 0),"
                         " coalesce(gbps, 0), coalesce(pct_copy, 0), coalesce(copy_gbps, 0),"
                         " coalesce(bytes, 0), coalesce(noise, 0), coalesce(sm_clock_mhz, 0),"
                         " verdict, coalesce(reason, '') FROM timings WHERE run_id = ? ORDER BY id",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, c->run);
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (c->nrows == cap) {
      size_t nc = cap ? 2 * cap : 64;
      struct trow *nr = realloc(c->rows, nc * sizeof *nr);
      if (!nr) {
        sqlite3_finalize(s);
        return -1;
      }
      c->rows = nr;
      cap = nc;
    }
    struct trow *r = &c->rows[c->nrows++];
    col(s, 0, r->alg, sizeof r->alg);
    col(s, 1, r->var, sizeof r->var);
    col(s, 2, r->kind, sizeof r->kind);
    col(s, 3, r->params, sizeof r->params);
    r->seed = (uint64_t)sqlite3_column_int64(s, 4);
    r->samples = sqlite3_column_int(s, 5);
    r->median = sqlite3_column_double(s, 6);
    r->min = sqlite3_column_double(s, 7);
    r->max = sqlite3_column_double(s, 8);
    r->gbps = sqlite3_column_double(s, 9);
    r->pct = sqlite3_column_double(s, 10);
    r->copy = sqlite3_column_double(s, 11);
    r->bytes = sqlite3_column_double(s, 12);
    r->noise = sqlite3_column_double(s, 13);
    r->clock = sqlite3_column_double(s, 14);
    col(s, 15, r->verdict, sizeof r->verdict);
    col(s, 16, r->reason, sizeof r->reason);
    /* group the algorithm's cases and variants, in order of first appearance */
    struct alg_view *a = NULL;
    for (int i = 0; i < c->nalgs && !a; i++)
      if (!strcmp(c->algs[i].name, r->alg))
        a = &c->algs[i];
    if (!a && c->nalgs < MAX_ALGS) {
      a = &c->algs[c->nalgs++];
      memset(a, 0, sizeof *a);
      gr_fmt(a->name, sizeof a->name, "%s", r->alg);
    }
    if (!a)
      continue;
    int k;
    for (k = 0; k < a->ncases && (strcmp(a->params[k], r->params) || a->seeds[k] != r->seed); k++)
      ;
    if (k == a->ncases && k < MAX_CASES) {
      gr_fmt(a->params[k], sizeof a->params[k], "%s", r->params);
      a->seeds[k] = r->seed;
      a->ncases++;
    }
    for (k = 0; k < a->nvar && strcmp(a->var[k], r->var); k++)
      ;
    if (k == a->nvar && k < MAX_VARS) {
      gr_fmt(a->var[k], sizeof a->var[k], "%s", r->var);
      gr_fmt(a->kind[k], sizeof a->kind[k], "%s", r->kind);
      a->nvar++;
    }
  }
  sqlite3_finalize(s);
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

static const struct trow *row_of(const struct ctx *c, const struct alg_view *a, int var, int cs)
{
  for (size_t i = 0; i < c->nrows; i++) {
    const struct trow *r = &c->rows[i];
    if (!strcmp(r->alg, a->name) && !strcmp(r->var, a->var[var]) &&
        !strcmp(r->params, a->params[cs]) && r->seed == a->seeds[cs])
      return r;
  }
  return NULL;
}

/* <alg>_sizes.dat and its plot */
static void plot_sizes(struct ctx *c, const struct alg_view *a)
{
  char path[PATH_MAX], base[PATH_MAX], vars[4096], names[2048] = "", kinds[1024] = "";
  gr_fmt(base, sizeof base, "%s/%s_sizes", c->plots_dir, a->name);
  gr_fmt(path, sizeof path, "%s.dat", base);
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  fprintf(f, "# %s, run %lld: per variant block: case median_ms gbps min_ms max_ms\n", a->name,
          (long long)c->run);
  int points = 0;
  for (int v = 0; v < a->nvar; v++) {
    fprintf(f, "# %s (%s)\n", a->var[v], a->kind[v]);
    for (int k = 0; k < a->ncases; k++) {
      const struct trow *r = row_of(c, a, v, k);
      if (r && r->samples > 0 && r->median > 0) {
        fprintf(f, "%d %.9g %.9g %.9g %.9g\n", k, r->median, r->gbps, r->min, r->max);
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
      const struct trow *r = row_of(c, a, v, k);
      if (r) {
        bytes = r->bytes > bytes ? r->bytes : bytes;
        copy = r->copy > copy ? r->copy : copy;
      }
    }
    char clean[128], label[256];
    gr_fmt(clean, sizeof clean, "%s", a->label[k]);
    gp_clean(clean);
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
  fclose(f);
  if (!points)
    return;
  char title[256];
  gr_fmt(title, sizeof title, "%s: time and throughput by size (run %lld, %s, L2 cold unless noted)",
         a->name, (long long)c->run, c->rb.gpu[0] ? c->rb.gpu : "no GPU");
  gp_clean(title);
  gr_fmt(vars, sizeof vars,
         "datafile='%s'; outbase='%s'; names='%s'; kinds='%s'; ncases=%d; labellines=%d;"
         " plottitle='%s'",
         path, base, names, kinds, a->ncases, lines, title);
  gnuplot(c, "plot_sizes.gp", vars);
}

/* Earlier runs on the same GPU model with timings (or outcomes), oldest first, ending at run. */
static int history_runs(struct ctx *c, const char *need, int64_t *ids, char labels[][64], int max)
{
  char sql[512];
  sqlite3_stmt *s;
  snprintf(sql, sizeof sql,
           "SELECT id, coalesce(substr(git_commit, 1, 7), '?') FROM runs r WHERE id <= ?1"
           " AND coalesce(gpu_name, '') = coalesce((SELECT gpu_name FROM runs WHERE id = ?1), '')"
           " AND (status = 'finished' OR id = ?1) AND EXISTS (SELECT 1 FROM %s x WHERE x.run_id = r.id)"
           " ORDER BY id DESC LIMIT ?2",
           need);
  if (sqlite3_prepare_v2(c->db, sql, -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_int64(s, 1, c->run);
  sqlite3_bind_int(s, 2, max);
  int n = 0;
  while (sqlite3_step(s) == SQLITE_ROW && n < max) {
    ids[n] = sqlite3_column_int64(s, 0);
    const char *commit = (const char *)sqlite3_column_text(s, 1);
    gr_fmt(labels[n], 64, "%lld %s", (long long)ids[n], commit ? commit : "?");
    n++;
  }
  sqlite3_finalize(s);
  for (int i = 0; i < n / 2; i++) { /* oldest first */
    int64_t t = ids[i];
    ids[i] = ids[n - 1 - i];
    ids[n - 1 - i] = t;
    char l[64];
    memcpy(l, labels[i], 64);
    memcpy(labels[i], labels[n - 1 - i], 64);
    memcpy(labels[n - 1 - i], l, 64);
  }
  return n;
}

/* <alg>_history.dat: each variant at its largest size over the runs */
static void plot_history(struct ctx *c, const struct alg_view *a)
{
  int64_t ids[HISTORY_RUNS];
  char labels[HISTORY_RUNS][64];
  int nr = history_runs(c, "timings", ids, labels, HISTORY_RUNS);
  if (nr < 1)
    return;
  char path[PATH_MAX], base[PATH_MAX], vars[4096], names[2048] = "";
  gr_fmt(base, sizeof base, "%s/%s_history", c->plots_dir, a->name);
  gr_fmt(path, sizeof path, "%s.dat", base);
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  fprintf(f, "# %s: runs (oldest first): index label\n", a->name);
  for (int i = 0; i < nr; i++)
    fprintf(f, "%d \"%s\"\n", i, labels[i]);
  fprintf(f, "\n\n");
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(c->db,
                         "SELECT median_ms, min_ms, max_ms FROM timings WHERE run_id = ?"
                         " AND algorithm = ? AND variant = ? AND params = ? AND seed = ?"
                         " AND samples > 0 ORDER BY id LIMIT 1",
                         -1, &s, NULL) != SQLITE_OK) {
    fclose(f);
    return;
  }
  int points = 0, nv = 0;
  for (int v = 0; v < a->nvar; v++) {
    int big = -1;
    for (int k = a->ncases - 1; k >= 0 && big < 0; k--) {
      const struct trow *r = row_of(c, a, v, k);
      if (r && r->samples > 0)
        big = k;
    }
    if (big < 0)
      continue;
    fprintf(f, "# %s at case %d: %s\n", a->var[v], big, a->params[big]);
    for (int i = 0; i < nr; i++) {
      sqlite3_reset(s);
      sqlite3_bind_int64(s, 1, ids[i]);
      sqlite3_bind_text(s, 2, a->name, -1, SQLITE_STATIC);
      sqlite3_bind_text(s, 3, a->var[v], -1, SQLITE_STATIC);
      sqlite3_bind_text(s, 4, a->params[big], -1, SQLITE_STATIC);
      sqlite3_bind_int64(s, 5, (sqlite3_int64)a->seeds[big]);
      if (sqlite3_step(s) == SQLITE_ROW) {
        fprintf(f, "%d %.9g %.9g %.9g\n", i, sqlite3_column_double(s, 0),
                sqlite3_column_double(s, 1), sqlite3_column_double(s, 2));
        points++;
      }
    }
    fprintf(f, "\n\n");
    char label[128]; /* one word per series: the case by its number in the sizes plot/table */
    gr_fmt(label, sizeof label, "%s@case#%d", a->var[v], big);
    gp_clean(label);
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", nv++ ? " " : "", label);
  }
  sqlite3_finalize(s);
  fclose(f);
  if (!points)
    return;
  char title[256];
  gr_fmt(title, sizeof title, "%s: median time at the largest size each variant ran, by run and commit (%s)", a->name,
         c->rb.gpu[0] ? c->rb.gpu : "no GPU");
  gp_clean(title);
  gr_fmt(vars, sizeof vars, "datafile='%s'; outbase='%s'; names='%s'; nruns=%d; plottitle='%s'",
         path, base, names, nr, title);
  gnuplot(c, "plot_history.gp", vars);
}

/* catch.dat: cases each historical bug took to be caught, per run */
static void plot_catch(struct ctx *c)
{
  int64_t ids[HISTORY_RUNS];
  char labels[HISTORY_RUNS][64];
  int nr = history_runs(c, "outcomes", ids, labels, HISTORY_RUNS);
  if (nr < 1)
    return;
  char path[PATH_MAX], base[PATH_MAX], vars[4096], names[2048] = "";
  gr_fmt(base, sizeof base, "%s/catch", c->plots_dir);
  gr_fmt(path, sizeof path, "%s.dat", base);
  sqlite3_stmt *hv, *s;
  if (sqlite3_prepare_v2(c->db,
                         "SELECT DISTINCT algorithm, variant FROM outcomes WHERE kind = 'historical'"
                         " AND run_id IN (SELECT id FROM runs WHERE id <= ?1 AND coalesce(gpu_name,"
                         " '') = coalesce((SELECT gpu_name FROM runs WHERE id = ?1), ''))"
                         " ORDER BY algorithm, variant",
                         -1, &hv, NULL) != SQLITE_OK)
    return;
  if (sqlite3_prepare_v2(c->db,
                         "SELECT verdict, coalesce(cases_to_catch, cases), coalesce(seconds_to_catch,"
                         " seconds) FROM outcomes WHERE run_id = ? AND algorithm = ? AND variant = ?",
                         -1, &s, NULL) != SQLITE_OK) {
    sqlite3_finalize(hv);
    return;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    sqlite3_finalize(hv);
    sqlite3_finalize(s);
    return;
  }
  sqlite3_bind_int64(hv, 1, c->run);
  fprintf(f, "# runs (oldest first): index label\n");
  for (int i = 0; i < nr; i++)
    fprintf(f, "%d \"%s\"\n", i, labels[i]);
  fprintf(f, "\n\n");
  char escaped[8192] = "";
  int nh = 0, points = 0;
  double ymax = 10;
  while (sqlite3_step(hv) == SQLITE_ROW) {
    char alg[64], var[64];
    col(hv, 0, alg, sizeof alg);
    col(hv, 1, var, sizeof var);
    fprintf(f, "# %s/%s: run cases_to_catch seconds_to_catch\n", alg, var);
    for (int i = 0; i < nr; i++) {
      sqlite3_reset(s);
      sqlite3_bind_int64(s, 1, ids[i]);
      sqlite3_bind_text(s, 2, alg, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(s, 3, var, -1, SQLITE_TRANSIENT);
      if (sqlite3_step(s) != SQLITE_ROW)
        continue;
      const char *vd = (const char *)sqlite3_column_text(s, 0);
      double cases = sqlite3_column_double(s, 1), secs = sqlite3_column_double(s, 2);
      ymax = 2 * cases > ymax ? 2 * cases : ymax;
      if (vd && !strcmp(vd, "caught")) {
        fprintf(f, "%d %.9g %.9g\n", i, cases, secs);
        points++;
      } else if (vd && !strcmp(vd, "escaped")) {
        snprintf(escaped + strlen(escaped), sizeof escaped - strlen(escaped), "%d %.9g\n", i,
                 cases > 0 ? cases : 1);
        points++;
      }
    }
    fprintf(f, "\n\n");
    char label[160];
    gr_fmt(label, sizeof label, "%s/%s", alg, var);
    gp_clean(label);
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", nh++ ? " " : "", label);
  }
  fprintf(f, "# escaped (the bug survived the whole budget): run cases\n%s", escaped);
  if (!escaped[0])
    fprintf(f, "-1 NaN\n"); /* keep the block present */
  fclose(f);
  sqlite3_finalize(hv);
  sqlite3_finalize(s);
  if (!points || !nh)
    return;
  char title[256];
  gr_fmt(title, sizeof title, "historical bugs: cases until caught, per run (%s)",
         c->rb.gpu[0] ? c->rb.gpu : "no GPU");
  gp_clean(title);
  gr_fmt(vars, sizeof vars,
         "datafile='%s'; outbase='%s'; names='%s'; nruns=%d; ymax=%g; plottitle='%s'", path, base,
         names, nr, ymax, title);
  gnuplot(c, "plot_catch.gp", vars);
}

/* ---- dashboard ---------------------------------------------------------------------------- */

static void html(FILE *f, const char *s) { export_xml_escape(f, s); }

/* The SVG at path as an <img> with a data URI (self-contained; no id clashes between plots). */
static int embed_svg(FILE *f, const char *path, const char *alt)
{
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  FILE *in = fopen(path, "rb");
  if (!in)
    return -1;
  fputs("<img class=\"plot\" alt=\"", f);
  html(f, alt);
  fputs("\" src=\"data:image/svg+xml;base64,", f);
  unsigned char buf[3];
  size_t n;
  while ((n = fread(buf, 1, 3, in)) > 0) {
    unsigned v = (unsigned)buf[0] << 16 | (n > 1 ? (unsigned)buf[1] << 8 : 0) | (n > 2 ? buf[2] : 0);
    fputc(b64[v >> 18 & 63], f);
    fputc(b64[v >> 12 & 63], f);
    fputc(n > 1 ? b64[v >> 6 & 63] : '=', f);
    fputc(n > 2 ? b64[v & 63] : '=', f);
  }
  fclose(in);
  fputs("\">\n", f);
  return 0;
}

static void embed_plot(struct ctx *c, FILE *f, const char *name, const char *alt)
{
  char path[PATH_MAX];
  gr_fmt(path, sizeof path, "%s/%s.svg", c->plots_dir, name);
  if (embed_svg(f, path, alt))
    fprintf(f, "<p class=\"note\">(no plot: %s)</p>\n",
            !c->have_gnuplot ? "gnuplot is not installed" : "no data");
}

static const char *badge(const char *verdict, const char *kind)
{
  if (!strcmp(verdict, "pass") || !strcmp(verdict, "caught") || !strcmp(verdict, "same") ||
      !strcmp(verdict, "faster"))
    return "ok";
  if (!strcmp(verdict, "skip") || !strcmp(verdict, "unsure") || !strcmp(verdict, "new") ||
      !strcmp(verdict, "gone") || !strcmp(verdict, "error"))
    return "meh";
  (void)kind;
  return "bad";
}

static const char css[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;"
    "color:#1d2125;background:#fafbfc}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid "
    "#d0d7de;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}"
    ".meta{color:#57606a;margin-bottom:12px}.meta span{margin-right:18px}"
    "table{border-collapse:collapse;margin:6px 0 12px;background:#fff}"
    "th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}"
    "th{background:#f3f4f6;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "td.case{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}"
    ".b{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;font-weight:600}"
    ".b.ok{background:#dafbe1;color:#116329}.b.bad{background:#ffebe9;color:#a40e26}"
    ".b.meh{background:#eaeef2;color:#57606a}"
    ".summary{font-size:16px;margin:10px 0;padding:8px 12px;border-radius:6px}"
    ".summary.ok{background:#dafbe1}.summary.bad{background:#ffebe9}.summary.meh{background:#eaeef2}"
    ".reason{color:#57606a;font-size:12px;max-width:640px}"
    "img.plot{max-width:100%;border:1px solid #d0d7de;background:#fff;margin:6px 0}"
    ".note{color:#57606a;font-style:italic}code{font-size:12px}";

static void dash_outcomes(struct ctx *c, FILE *f, int *bad)
{
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(c->db,
                         "SELECT algorithm, variant, kind, verdict, cases, passed, skipped, failed,"
                         " seconds, cases_to_catch, seconds_to_catch, coalesce(reason, ''),"
                         " coalesce(shrunk_case, first_case, ''), coalesce(reproducer, '')"
                         " FROM outcomes WHERE run_id = ? ORDER BY rowid",
                         -1, &s, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int64(s, 1, c->run);
  int n = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    char alg[64], var[64], kind[16], vd[16], reason[GR_WHY_LEN], cs[512], repro[600];
    col(s, 0, alg, sizeof alg);
    col(s, 1, var, sizeof var);
    col(s, 2, kind, sizeof kind);
    col(s, 3, vd, sizeof vd);
    col(s, 11, reason, sizeof reason);
    col(s, 12, cs, sizeof cs);
    col(s, 13, repro, sizeof repro);
    if (!n++)
      fprintf(f, "<h2>Verdicts</h2>\n<table><tr><th>algorithm</th><th>variant</th><th>kind</th>"
                 "<th>verdict</th><th>cases</th><th>pass</th><th>skip</th><th>fail</th>"
                 "<th>seconds</th><th>to catch</th><th>reason / reproducer</th></tr>\n");
    const char *b = badge(vd, kind);
    if (!strcmp(b, "bad"))
      (*bad)++;
    fprintf(f, "<tr><td>");
    html(f, alg);
    fprintf(f, "</td><td>");
    html(f, var);
    fprintf(f, "</td><td>%s</td><td><span class=\"b %s\">%s</span></td>", kind, b, vd);
    fprintf(f, "<td class=num>%d</td><td class=num>%d</td><td class=num>%d</td><td class=num>%d</td>"
               "<td class=num>%.1f</td><td class=num>",
            sqlite3_column_int(s, 4), sqlite3_column_int(s, 5), sqlite3_column_int(s, 6),
            sqlite3_column_int(s, 7), sqlite3_column_double(s, 8));
    if (sqlite3_column_type(s, 9) != SQLITE_NULL)
      fprintf(f, "%d cases, %.2f s", sqlite3_column_int(s, 9), sqlite3_column_double(s, 10));
    fprintf(f, "</td><td class=reason>");
    if (strcmp(vd, "pass") != 0) {
      html(f, reason);
      if (repro[0]) {
        fprintf(f, "<br><code>");
        html(f, repro);
        fprintf(f, "</code>");
      } else if (cs[0] && strcmp(vd, "skip")) {
        fprintf(f, "<br><code>");
        html(f, cs);
        fprintf(f, "</code>");
      }
    }
    fprintf(f, "</td></tr>\n");
  }
  if (n)
    fprintf(f, "</table>\n");
  sqlite3_finalize(s);
}

static void dash_changes(struct ctx *c, FILE *f, int *bad)
{
  int other = 0;
  int64_t base = compare_pick_run(c->db, "main", c->run, &other);
  fprintf(f, "<h2>Changes against the previous run</h2>\n");
  if (base <= 0) {
    fprintf(f, "<p class=note>No earlier finished run on this GPU model: nothing to compare.</p>\n");
    return;
  }
  struct compare_opts o;
  compare_opts_default(&o);
  struct compare_result *r;
  char why[GR_WHY_LEN];
  if (compare_runs(c->db, "main", base, c->run, &o, &r, why, sizeof why)) {
    fprintf(f, "<p class=note>");
    html(f, why);
    fprintf(f, "</p>\n");
    return;
  }
  int regress = r->n_slower > 0 || r->n_regressions > 0;
  *bad += regress;
  fprintf(f, "<div class=\"summary %s\">Against run %lld (",
          regress ? "bad" : r->n_unsure ? "meh" : "ok", (long long)base);
  html(f, r->base.commit);
  fprintf(f, ", %s): <b>%zu same</b>, %zu faster, <b>%zu slower</b>, %zu unsure, %zu new, %zu gone; "
             "%zu correctness regressions (min effect 5%%, alpha 0.01)</div>\n",
          r->base.started, r->n_same, r->n_faster, r->n_slower, r->n_unsure, r->n_new, r->n_gone,
          r->n_regressions);
  int n = 0;
  for (size_t i = 0; i < r->n_t; i++) {
    const struct compare_timing *t = &r->t[i];
    int both = t->in_base && t->in_cur;
    if ((both && t->sc.cls == STATS_SAME && !t->regression) || (!t->in_base && !t->in_cur))
      continue;
    if (!n++)
      fprintf(f, "<table><tr><th>algorithm</th><th>variant</th><th>params</th><th>base ms</th>"
                 "<th>new ms</th><th>ratio</th><th>p</th><th>verdict</th></tr>\n");
    const char *cls = !t->in_base ? "new" : !t->in_cur ? "gone" : stats_class_name(t->sc.cls);
    fprintf(f, "<tr><td>%s</td><td>%s</td><td class=case>", t->algorithm, t->variant);
    html(f, t->params);
    if (both)
      fprintf(f, "</td><td class=num>%.4f</td><td class=num>%.4f</td><td class=num>%.3fx</td>"
                 "<td class=num>%.1e</td>",
              t->sc.base.median, t->sc.cur.median, t->sc.ratio, t->sc.p);
    else
      fprintf(f, "</td><td></td><td></td><td></td><td></td>");
    fprintf(f, "<td><span class=\"b %s\">%s</span>%s</td></tr>\n", badge(cls, t->kind), cls,
            t->regression ? " <span class=\"b bad\">check regressed</span>" : "");
  }
  if (n)
    fprintf(f, "</table>\n");
  n = 0;
  for (size_t i = 0; i < r->n_oc; i++) {
    const struct compare_outcome *oc = &r->oc[i];
    if (!oc->regression)
      continue;
    if (!n++)
      fprintf(f, "<table><tr><th>algorithm</th><th>variant</th><th>verdict</th></tr>\n");
    fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s &rarr; <span class=\"b bad\">%s</span></td></tr>\n",
            oc->algorithm, oc->variant, oc->base_verdict[0] ? oc->base_verdict : "-",
            oc->cur_verdict);
  }
  if (n)
    fprintf(f, "</table>\n");
  compare_result_free(r);
}

static void dash_timings(struct ctx *c, FILE *f, const struct alg_view *a, int *bad)
{
  int has_peer = 0;
  for (int v = 0; v < a->nvar; v++)
    has_peer |= !strcmp(a->kind[v], "peer");
  fprintf(f, "<table><tr><th>case</th><th>variant</th><th>kind</th><th>median ms</th><th>noise</th>"
             "<th>GB/s</th><th>%% copy bw</th>%s<th>MHz</th><th>check</th></tr>\n",
          has_peer ? "<th>vs peer</th>" : "");
  for (int k = 0; k < a->ncases; k++) {
    const struct trow *peer = NULL;
    for (int v = 0; v < a->nvar; v++) {
      const struct trow *r = row_of(c, a, v, k);
      if (r && !strcmp(r->kind, "peer") && r->samples > 0)
        peer = r;
    }
    int first = 1;
    for (int v = 0; v < a->nvar; v++) {
      const struct trow *r = row_of(c, a, v, k);
      if (!r)
        continue;
      fprintf(f, "<tr>");
      if (first) {
        int span = 0;
        for (int w = 0; w < a->nvar; w++)
          span += row_of(c, a, w, k) != NULL;
        fprintf(f, "<td class=case rowspan=%d>#%d ", span, k);
        html(f, a->params[k]);
        fprintf(f, "</td>");
        first = 0;
      }
      fprintf(f, "<td>%s</td><td>%s</td>", r->var, r->kind);
      if (r->samples > 0) {
        fprintf(f, "<td class=num>%.4f</td><td class=num>%.2f%%</td><td class=num>%.1f</td>"
                   "<td class=num>%.1f%%</td>",
                r->median, 100 * r->noise, r->gbps, r->pct);
        if (has_peer) {
          fprintf(f, "<td class=num>");
          if (peer && peer != r)
            fprintf(f, "%.2fx", r->median / peer->median);
          fprintf(f, "</td>");
        }
        fprintf(f, "<td class=num>%.0f</td>", r->clock);
      } else {
        fprintf(f, "<td></td><td></td><td></td><td></td>%s<td></td>", has_peer ? "<td></td>" : "");
      }
      int fixed_bad = strcmp(r->kind, "historical") && !strcmp(badge(r->verdict, r->kind), "bad");
      *bad += fixed_bad;
      fprintf(f, "<td><span class=\"b %s\">%s</span>", fixed_bad ? "bad" : badge(r->verdict, r->kind),
              r->verdict);
      if (r->reason[0] && strcmp(r->verdict, "pass") && strcmp(r->verdict, "caught")) {
        fprintf(f, " <span class=reason>");
        html(f, r->reason);
        fprintf(f, "</span>");
      }
      fprintf(f, "</td></tr>\n");
    }
  }
  fprintf(f, "</table>\n");
}

static int write_dashboard(struct ctx *c, char *why, size_t len)
{
  char path[PATH_MAX], tmp[PATH_MAX + 8];
  gr_fmt(path, sizeof path, "%s/index.html", c->dash);
  gr_fmt(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    gr_fmt(why, len, "cannot write '%s': %s", tmp, strerror(errno));
    return -1;
  }
  sqlite3_stmt *s;
  char started[32] = "", status[16] = "", host[128] = "", command[1024] = "", cc[16] = "";
  int dirty = 0, sms = 0, drv = 0, exit_code = -1;
  if (sqlite3_prepare_v2(c->db,
                         "SELECT started_at, status, coalesce(exit_code, -1), coalesce(host, ''),"
                         " command, coalesce(git_dirty, 0), coalesce(gpu_sms, 0), coalesce(gpu_cc, ''),"
                         " coalesce(driver_version, 0) FROM runs WHERE id = ?",
                         -1, &s, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(s, 1, c->run);
    if (sqlite3_step(s) == SQLITE_ROW) {
      col(s, 0, started, sizeof started);
      col(s, 1, status, sizeof status);
      exit_code = sqlite3_column_int(s, 2);
      col(s, 3, host, sizeof host);
      col(s, 4, command, sizeof command);
      dirty = sqlite3_column_int(s, 5);
      sms = sqlite3_column_int(s, 6);
      col(s, 7, cc, sizeof cc);
      drv = sqlite3_column_int(s, 8);
    }
    sqlite3_finalize(s);
  }
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             "<title>gpuregress run %lld</title>\n<style>%s</style></head><body>\n",
          (long long)c->run, css);
  fprintf(f, "<h1>gpuregress &mdash; run %lld</h1>\n<div class=meta>", (long long)c->run);
  fprintf(f, "<span>%s</span><span>commit <code>", started);
  html(f, c->rb.commit);
  fprintf(f, "%s</code></span><span>", dirty ? " (dirty)" : "");
  html(f, c->rb.gpu[0] ? c->rb.gpu : "no GPU");
  if (sms)
    fprintf(f, " (%d SMs, sm_%s, driver %d.%d)", sms, cc, drv / 1000, drv % 1000 / 10);
  fprintf(f, "</span><span>host ");
  html(f, host);
  fprintf(f, "</span><span>status %s, exit %d</span></div>\n<div class=meta><code>", status,
          exit_code);
  html(f, command);
  fprintf(f, "</code></div>\n");
  /* the verdict line is written last into a placeholder-free spot: compute first */
  char *body = NULL;
  size_t body_len = 0;
  FILE *b = open_memstream(&body, &body_len);
  int bad = 0;
  if (!b) {
    fclose(f);
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  dash_outcomes(c, b, &bad);
  dash_changes(c, b, &bad);
  if (c->nalgs)
    fprintf(b, "<h2>Timings</h2>\n<p class=note>Median of the samples (CUDA events, L2 flushed "
               "before each sample unless noted), noise = relative standard error of the median, "
               "%% copy bw = throughput over the device-to-device copy bandwidth measured in the "
               "same run (bytes read + written), vs peer = time over the peer library's time "
               "(shown where the algorithm has a peer).</p>\n");
  for (int i = 0; i < c->nalgs; i++) {
    const struct alg_view *a = &c->algs[i];
    char name[128];
    fprintf(b, "<h3>");
    html(b, a->name);
    fprintf(b, "</h3>\n");
    dash_timings(c, b, a, &bad);
    gr_fmt(name, sizeof name, "%s_sizes", a->name);
    embed_plot(c, b, name, name);
    gr_fmt(name, sizeof name, "%s_history", a->name);
    embed_plot(c, b, name, name);
  }
  fprintf(b, "<h2>Historical bugs caught</h2>\n");
  embed_plot(c, b, "catch", "historical bugs caught per run");
  fclose(b);
  fprintf(f, "<div class=\"summary %s\">%s</div>\n", bad ? "bad" : "ok",
          bad ? "Attention: failures, escaped bugs or regressions below"
              : "All checks passed, every historical bug caught, no regression");
  fwrite(body, 1, body_len, f);
  free(body);
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%SZ", gmtime(&now));
  fprintf(f, "<p class=note>Generated by <code>gpuregress plot</code> at %s. Plots as PNG and "
             "SVG, and their data files, are in <code>plots/</code> beside this folder.</p>\n"
             "</body></html>\n",
          when);
  if (fclose(f) || rename(tmp, path)) {
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

int plot_run(sqlite3 *db, int64_t run, const struct plot_opts *o, struct plot_report *rep,
             char *why, size_t len)
{
  struct ctx c;
  memset(&c, 0, sizeof c);
  memset(rep, 0, sizeof *rep);
  c.db = db;
  c.run = run;
  c.out = o->out_dir;
  if (strpbrk(o->out_dir, "'\"\\")) {
    gr_fmt(why, len, "output folder '%s': quotes and backslashes are not allowed", o->out_dir);
    return -1;
  }
  if (compare_run_brief(db, "main", run, &c.rb)) {
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
    gr_fmt(why, len, "cannot read the timings of run %lld: %s", (long long)run, sqlite3_errmsg(db));
    return -1;
  }
  for (int i = 0; i < c.nalgs; i++) {
    plot_sizes(&c, &c.algs[i]);
    plot_history(&c, &c.algs[i]);
  }
  plot_catch(&c);
  int rc = write_dashboard(&c, why, len);
  free(c.rows);
  rep->plots = c.plots;
  rep->gnuplot_missing = !c.have_gnuplot;
  if (rc)
    return -1;
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
