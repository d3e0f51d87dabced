/* Pages from templates: finding a template (beside the binary, installed, in the source tree),
 * rendering it with a view (template.h) into a file, SVG plots embedded as data URIs, the badge
 * classes. See render.h. */
#define _GNU_SOURCE
#include "render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gr.h"
#include "outfile.h"

/* The template name: beside the binary (share/: a build folder), in an installed tree
 * (bin/../share/gpuregress/: cmake/install.cmake), else in the source tree of a build folder
 * (build/<preset>/gpuregress -> harness/). 0 found; -1 with why naming where it looked. */
static int find_template(const char *name, char *path, size_t plen, char *why, size_t len)
{
  char exe[PATH_MAX];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[k > 0 ? k : 0] = 0;
  char *slash = strrchr(exe, '/');
  if (slash)
    *slash = 0;
  gr_fmt(path, plen, "%s/share/%s", exe, name);
  if (access(path, R_OK) == 0)
    return 0;
  char src[PATH_MAX];
  static const char *const others[] = {"%s/../share/gpuregress/%s", "%s/../../harness/report/%s"};
  for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
    gr_fmt(src, sizeof src, others[i], exe, name);
    if (access(src, R_OK) == 0) {
      gr_fmt(path, plen, "%s", src);
      return 0;
    }
  }
  gr_fmt(why, len, "dashboard template '%s' is missing: copy harness/report/%s there (the build does)",
         path, name);
  return -1;
}

static char *read_file(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0;
  *n = 0;
  if (!f)
    return NULL;
  for (;;) {
    if (*n + 4096 > cap) {
      char *nb = realloc(buf, cap = 2 * cap + 8192);
      if (!nb)
        break;
      buf = nb;
    }
    size_t got = fread(buf + *n, 1, cap - *n, f);
    *n += got;
    if (got == 0)
      break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* The SVG at path, base64 (malloc'd); NULL when it cannot be read. */
static char *svg_base64(const char *path)
{
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t n;
  unsigned char *in = (unsigned char *)read_file(path, &n);
  if (!in)
    return NULL;
  char *out = malloc(4 * (n / 3 + 1) + 1), *o = out;
  for (size_t i = 0; out && i < n; i += 3) {
    size_t m = n - i < 3 ? n - i : 3;
    unsigned v =
        (unsigned)in[i] << 16 | (m > 1 ? (unsigned)in[i + 1] << 8 : 0) | (m > 2 ? in[i + 2] : 0);
    *o++ = b64[v >> 18 & 63];
    *o++ = b64[v >> 12 & 63];
    *o++ = m > 1 ? b64[v >> 6 & 63] : '=';
    *o++ = m > 2 ? b64[v & 63] : '=';
  }
  if (out)
    *o = 0;
  free(in);
  return out;
}

void render_add_plot(const struct plot_ctx *c, struct tpl_view *v, const char *name,
                     const char *alt)
{
  char path[PATH_MAX];
  struct tpl_view *p = tpl_add(v, "plots");
  if (!p)
    return;
  gr_fmt(path, sizeof path, "%s/%s.svg", c->plots_dir, name);
  char *svg = svg_base64(path);
  tpl_set(p, "alt", "%s", alt);
  tpl_set(p, "svg", "%s", svg ? svg : "");
  tpl_set(p, "why", "%s", !c->have_gnuplot ? "gnuplot is not installed" : "no data");
  free(svg);
}

const char *render_badge(const char *verdict)
{
  static const char *const ok[] = {"pass", "caught", "same", "faster"};
  static const char *const meh[] = {"skip", "unsure", "new", "gone", "error"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
    if (!strcmp(verdict, ok[i]))
      return "ok";
  for (size_t i = 0; i < sizeof meh / sizeof *meh; i++)
    if (!strcmp(verdict, meh[i]))
      return "meh";
  return "bad";
}

int render_page(const char *name, const struct tpl_view *v, const char *path, char *why,
                size_t len)
{
  char tpl_path[PATH_MAX];
  size_t tpl_len;
  if (find_template(name, tpl_path, sizeof tpl_path, why, len))
    return -1;
  char *tpl = read_file(tpl_path, &tpl_len);
  if (!tpl) {
    gr_fmt(why, len, "cannot read the dashboard template '%s': %s", tpl_path, strerror(errno));
    return -1;
  }
  int rc = -1;
  char msg[GR_WHY_LEN];
  struct outfile out;
  if (outfile_open(&out, path, why, len)) {
    /* why says it */
  } else if (tpl_render(out.f, tpl, tpl_len, v, msg, sizeof msg)) {
    outfile_abort(&out);
    gr_fmt(why, len, "dashboard template '%s': %s", tpl_path, msg);
  } else if (outfile_commit(&out, why, len) == 0) {
    rc = 0;
  }
  free(tpl);
  return rc;
}
