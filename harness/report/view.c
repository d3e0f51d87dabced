/* The run as plots and pages see it: rows, grouping, gnuplot. See view.h. */
#define _GNU_SOURCE
#include "view.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "gr.h"
#include "outfile.h"

int view_mkdir_p(const char *path)
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

int view_find_gnuplot(struct plot_ctx *c, const char *given, char *why, size_t len)
{
  c->have_gnuplot = in_path("gnuplot");
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
      /* gnuplot would wait forever on a FIFO: each script is judged on what open gives */
      static const char *const scripts[] = {"plot_sizes.gp", "plot_catch.gp", "plot_trend.gp"};
      for (size_t j = 0; j < sizeof scripts / sizeof *scripts; j++) {
        gr_fmt(cand, sizeof cand, "%s/%s", dirs[i], scripts[j]);
        int fd = open(cand, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct stat sb;
        if (fd < 0 && errno == ENOENT)
          continue; /* gnuplot says so when it is needed */
        int bad = fd < 0 ? errno : fstat(fd, &sb) ? errno : S_ISREG(sb.st_mode) ? 0 : -1;
        if (fd >= 0)
          close(fd);
        if (bad) {
          gr_fmt(why, len, "gnuplot script '%s': %s", cand,
                 bad > 0 ? strerror(bad) : "not a regular file (a FIFO, a device or a folder)");
          c->have_scripts = 0;
          return -1;
        }
      }
      return 0;
    }
  }
  gr_fmt(c->scripts, sizeof c->scripts, "%s", dirs[0]);
  return 0;
}

#define GNUPLOT_TIMEOUT 300.0 /* seconds one plot may take */

/* Move (keep) or remove every file of the private folder from into the folder to. */
static void take_outputs(struct plot_ctx *c, const char *from, const char *to, int keep)
{
  DIR *d = opendir(from);
  if (!d)
    return;
  char src[PATH_MAX], dst[PATH_MAX], why[GR_WHY_LEN];
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    gr_fmt(src, sizeof src, "%s/%s", from, e->d_name);
    gr_fmt(dst, sizeof dst, "%s/%s", to, e->d_name);
    if (keep && outfile_place(src, dst, why, sizeof why) && !c->write_error[0])
      gr_fmt(c->write_error, sizeof c->write_error, "%s", why);
    unlink(src); /* gone when placed; not placed: not left behind */
  }
  closedir(d);
}

int view_gnuplot(struct plot_ctx *c, const char *script, const char *vars)
{
  char path[PATH_MAX], why[GR_WHY_LEN] = "";
  if (!c->have_gnuplot || !c->have_scripts)
    return -1;
  gr_fmt(path, sizeof path, "%s/%s", c->scripts, script);
  const char *argv[] = {"gnuplot", "-e", vars, path, NULL};
  struct child ch;
  child_init(&ch);
  ch.what = "gnuplot";
  ch.argv = argv;
  int rc = -1;
  if (child_start(&ch) == 0) {
    int done = child_wait(&ch, GNUPLOT_TIMEOUT);
    rc = child_finish(&ch, !done, why, sizeof why);
    if (!done)
      gr_fmt(why, sizeof why, "gnuplot took more than %.0f s", GNUPLOT_TIMEOUT);
  } else {
    gr_fmt(why, sizeof why, "cannot start gnuplot: %s", strerror(errno));
  }
  take_outputs(c, c->gp_plots, c->plots_dir, rc == 0);
  take_outputs(c, c->gp_dash, c->dash, rc == 0);
  if (rc != 0) {
    if (!c->failures[0])
      gr_fmt(c->failures, sizeof c->failures, "gnuplot failed on '%s' (%s): %s", path, vars, why);
    return -1;
  }
  c->plots++;
  return 0;
}

void view_gp_clean(char *s)
{
  for (; *s; s++)
    if (*s == '\'' || *s == '"' || *s == '\\' || (unsigned char)*s < 0x20 || *s == 0x7f)
      *s = ' ';
}

const char *view_gp_str(char *dst, size_t len, const char *s)
{
  size_t o = 0;
  if (len < 3)
    return "''";
  dst[o++] = '\'';
  for (; *s; s++) {
    int quote = *s == '\'';
    if (o + 2 + quote >= len) {
      gr_fmt(dst, len, "''");
      return dst;
    }
    dst[o++] = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
    if (quote)
      dst[o++] = '\'';
  }
  dst[o++] = '\'';
  dst[o] = 0;
  return dst;
}

FILE *view_data_open(struct plot_ctx *c, struct outfile *o, const char *path)
{
  char why[GR_WHY_LEN];
  if (outfile_open(o, path, why, sizeof why)) {
    if (!c->write_error[0])
      gr_fmt(c->write_error, sizeof c->write_error, "%s", why);
    return NULL;
  }
  return o->f;
}

int view_data_close(struct plot_ctx *c, struct outfile *o)
{
  char why[GR_WHY_LEN];
  if (outfile_commit(o, why, sizeof why)) {
    if (!c->write_error[0])
      gr_fmt(c->write_error, sizeof c->write_error, "%s", why);
    return -1;
  }
  return c->write_error[0] ? -1 : 0;
}

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

int view_load(struct plot_ctx *c)
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

const struct store_timing *view_row_of(const struct plot_ctx *c, const struct alg_view *a,
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
