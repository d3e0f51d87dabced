/* The dashboard's template engine. See template.h. */
#define _GNU_SOURCE
#include "template.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "gr.h"

struct tpl_field {
  char *name;
  char *value;             /* NULL for a list */
  struct tpl_view **items; /* a list */
  size_t n, cap;
};

struct tpl_view {
  struct tpl_field *f;
  size_t n, cap;
};

struct tpl_view *tpl_view_new(void)
{
  return calloc(1, sizeof(struct tpl_view));
}

void tpl_view_free(struct tpl_view *v)
{
  if (!v)
    return;
  for (size_t i = 0; i < v->n; i++) {
    free(v->f[i].name);
    free(v->f[i].value);
    for (size_t k = 0; k < v->f[i].n; k++)
      tpl_view_free(v->f[i].items[k]);
    free(v->f[i].items);
  }
  free(v->f);
  free(v);
}

static struct tpl_field *field(const struct tpl_view *v, const char *name, size_t name_len)
{
  for (size_t i = 0; i < v->n; i++)
    if (strlen(v->f[i].name) == name_len && !memcmp(v->f[i].name, name, name_len))
      return &v->f[i];
  return NULL;
}

static struct tpl_field *field_make(struct tpl_view *v, const char *name)
{
  struct tpl_field *f = field(v, name, strlen(name));
  if (f)
    return f;
  if (v->n == v->cap) {
    size_t nc = v->cap ? 2 * v->cap : 8;
    struct tpl_field *nf = realloc(v->f, nc * sizeof *nf);
    if (!nf)
      return NULL;
    v->f = nf;
    v->cap = nc;
  }
  f = &v->f[v->n];
  memset(f, 0, sizeof *f);
  if (!(f->name = strdup(name)))
    return NULL;
  v->n++;
  return f;
}

int tpl_set(struct tpl_view *v, const char *name, const char *fmt, ...)
{
  struct tpl_field *f = field_make(v, name);
  char *text;
  va_list ap;
  if (!f)
    return -1;
  va_start(ap, fmt);
  int n = vasprintf(&text, fmt, ap);
  va_end(ap);
  if (n < 0)
    return -1;
  free(f->value);
  f->value = text;
  return 0;
}

struct tpl_view *tpl_add(struct tpl_view *v, const char *name)
{
  struct tpl_field *f = field_make(v, name);
  if (!f || f->value)
    return NULL;
  if (f->n == f->cap) {
    size_t nc = f->cap ? 2 * f->cap : 8;
    struct tpl_view **ni = realloc(f->items, nc * sizeof *ni);
    if (!ni)
      return NULL;
    f->items = ni;
    f->cap = nc;
  }
  struct tpl_view *item = tpl_view_new();
  if (item)
    f->items[f->n++] = item;
  return item;
}

/* ---- rendering ---------------------------------------------------------------------------- */

#define MAX_DEPTH 16

struct render {
  FILE *out;
  const char *start; /* of the template */
  char *why;
  size_t len;
};

struct tag {
  const char *open, *after; /* "{{" and past "}}" (past the line when standalone) */
  const char *line;         /* where the text before the tag ends (its line start if standalone) */
  char type;                /* '#', '^', '/', '!' or 0 for a value */
  const char *name;
  size_t name_len;
};

/* The next tag in [p, end); 0 found, 1 none, -1 unterminated. */
static int next_tag(const struct render *r, const char *p, const char *end, struct tag *t)
{
  const char *open = memmem(p, (size_t)(end - p), "{{", 2);
  if (!open)
    return 1;
  const char *close = memmem(open + 2, (size_t)(end - open - 2), "}}", 2);
  if (!close)
    return -1;
  t->open = t->line = open;
  t->after = close + 2;
  t->type = strchr("#^/!", open[2]) ? open[2] : 0;
  t->name = open + 2 + (t->type != 0);
  while (t->name < close && *t->name == ' ')
    t->name++;
  const char *ne = close;
  while (ne > t->name && ne[-1] == ' ')
    ne--;
  t->name_len = (size_t)(ne - t->name);
  if (!t->type)
    return 0;
  /* standalone: only blanks around the tag on its line */
  const char *ls = open, *le = t->after;
  while (ls > r->start && (ls[-1] == ' ' || ls[-1] == '\t'))
    ls--;
  while (le < end && (*le == ' ' || *le == '\t' || *le == '\r'))
    le++;
  if ((ls == r->start || ls[-1] == '\n') && (le == end || *le == '\n')) {
    t->line = ls;
    t->after = le < end ? le + 1 : le;
  }
  return 0;
}

static const struct tpl_field *lookup(const struct tpl_view **stack, int depth, const struct tag *t)
{
  for (int d = depth - 1; d >= 0; d--) {
    const struct tpl_field *f = field(stack[d], t->name, t->name_len);
    if (f)
      return f;
  }
  return NULL;
}

static int fail(struct render *r, const struct tag *t, const char *what)
{
  int line = 1;
  for (const char *p = r->start; p < t->open; p++)
    line += *p == '\n';
  gr_fmt(r->why, r->len, "template line %d: %s '%.*s'", line, what, (int)t->name_len, t->name);
  return -1;
}

static int render(struct render *r, const char *p, const char *end, const struct tpl_view **stack,
                  int depth)
{
  struct tag t, c;
  int rc;
  while ((rc = next_tag(r, p, end, &t)) == 0) {
    fwrite(p, 1, (size_t)(t.line - p), r->out);
    p = t.after;
    if (t.type == '!')
      continue;
    if (t.type == '/')
      return fail(r, &t, "unexpected end of section");
    const struct tpl_field *f = lookup(stack, depth, &t);
    if (!t.type) {
      if (!f || !f->value)
        return fail(r, &t, f ? "a list used as a value:" : "unknown name");
      gr_xml_escape(r->out, f->value);
      continue;
    }
    /* the matching end of the section */
    int nest = 0;
    const char *q = p;
    while ((rc = next_tag(r, q, end, &c)) == 0) {
      q = c.after;
      if (c.name_len != t.name_len || memcmp(c.name, t.name, t.name_len))
        continue;
      if (c.type == '#' || c.type == '^')
        nest++;
      else if (c.type == '/' && nest-- == 0)
        break;
    }
    if (rc)
      return fail(r, &t, "unterminated section");
    int empty = !f || (f->value ? !f->value[0] : f->n == 0);
    if (t.type == '^' || (f && f->value)) {
      if ((t.type == '^') == empty && render(r, p, c.line, stack, depth))
        return -1;
    } else if (f) {
      if (depth == MAX_DEPTH)
        return fail(r, &t, "sections nested too deep at");
      for (size_t i = 0; i < f->n; i++) {
        stack[depth] = f->items[i];
        if (render(r, p, c.line, stack, depth + 1))
          return -1;
      }
    }
    p = c.after;
  }
  if (rc < 0) {
    gr_fmt(r->why, r->len, "template: a '{{' without '}}'");
    return -1;
  }
  fwrite(p, 1, (size_t)(end - p), r->out);
  return 0;
}

int tpl_render(FILE *out, const char *text, size_t text_len, const struct tpl_view *v, char *why,
               size_t len)
{
  const struct tpl_view *stack[MAX_DEPTH + 1] = {v};
  struct render r = {out, text, why, len};
  return render(&r, text, text + text_len, stack, 1);
}
