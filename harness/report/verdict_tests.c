/* The tests of a night's verdict as they are built (verdict.c, verdict_open.c): appending one,
 * setting its texts. A module of its own, below both, so that neither calls the other back. */
#define _GNU_SOURCE
#include "verdict_private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"

static const char *nz(const char *s) { return s ? s : ""; }

/* A zeroed test appended to v; NULL out of memory. message and body are printf'd later. */
struct rv_test *rv_add_test(struct run_verdict *v, const char *suite, const char *kind,
                                const char *source, const char *verdict, enum rv_state state,
                                double seconds)
{
  if (v->n == v->cap) {
    size_t nc = v->cap ? 2 * v->cap : 32;
    struct rv_test *nt = realloc(v->tests, nc * sizeof *nt);
    if (!nt)
      return NULL;
    v->tests = nt;
    v->cap = nc;
  }
  struct rv_test *t = &v->tests[v->n++];
  memset(t, 0, sizeof *t);
  gr_fmt(t->suite, sizeof t->suite, "%s", nz(suite));
  gr_fmt(t->kind, sizeof t->kind, "%s", nz(kind));
  gr_fmt(t->verdict, sizeof t->verdict, "%s", nz(verdict));
  t->source = source;
  t->state = state;
  t->seconds = seconds;
  return t;
}

/* Set *dst to a malloc'd printf result ("" on failure to allocate: the text is lost, not the
 * test). */
void rv_set_text(char **dst, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0)
    s = NULL;
  va_end(ap);
  free(*dst);
  *dst = s;
}
