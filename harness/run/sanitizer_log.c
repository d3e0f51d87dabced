/* Reading compute-sanitizer's log: see sanitizer_log.h. */
#define _GNU_SOURCE
#include "sanitizer_log.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"

#define SAN_PREFIX "========="

/* The text after the tool's prefix and its single space; NULL for a line of the program. */
static const char *tool_text(const char *line)
{
  if (strncmp(line, SAN_PREFIX, sizeof SAN_PREFIX - 1) != 0)
    return NULL;
  line += sizeof SAN_PREFIX - 1;
  return *line == ' ' ? line + 1 : line;
}

/* A report's first line (not the banner, a summary, the exit note or an indented detail). */
static int is_report(const char *t)
{
  static const char *const not_reports[] = {"COMPUTE-SANITIZER", "ERROR SUMMARY",
                                            "RACECHECK SUMMARY", "LEAK SUMMARY",
                                            "Target application", "This tool", "Tool ", NULL};
  if (!*t || isspace((unsigned char)*t))
    return 0;
  for (const char *const *p = not_reports; *p; p++)
    if (strncmp(t, *p, strlen(*p)) == 0)
      return 0;
  return 1;
}

/* path from its algorithms/, harness/ or tests/ folder on (the build machine's checkout is
 * noise), else as it is */
static void relative_path(const char *path, size_t n, char *out, size_t len)
{
  static const char *const roots[] = {"/algorithms/", "/harness/", "/tests/", "/reference/", NULL};
  const char *best = NULL;
  for (const char *const *r = roots; *r; r++)
    for (const char *p = path; (p = memmem(p, n - (size_t)(p - path), *r, strlen(*r))); p++)
      best = p + 1 > best ? p + 1 : best;
  if (best)
    n -= (size_t)(best - path), path = best;
  gr_fmt(out, len, "%.*s", (int)n, path);
}

/* The kernel of a demangled symbol: "void name<(int)4>(unsigned int *, int)" -> "name<(int)4>",
 * "void k<T>(args)::[lambda(int) (instance 1)]::operator ()(int) const" -> "k<T>": up to its
 * argument list (the first '(' outside template brackets), after its return type (the last space
 * outside them). */
static void kernel_name(const char *sym, size_t n, char *out, size_t len)
{
  size_t start = 0, end = n;
  int angle = 0;
  for (size_t i = 0; i < n; i++) {
    char c = sym[i];
    if (c == '<')
      angle++;
    else if (c == '>' && angle > 0)
      angle--;
    else if (angle == 0 && c == ' ')
      start = i + 1;
    else if (angle == 0 && c == '(' && i > start) {
      end = i;
      break;
    }
  }
  if (start >= end) /* no name before the parenthesis: keep the symbol */
    start = 0, end = n;
  gr_fmt(out, len, "%.*s", (int)(end - start), sym + start);
}

/* "FILE:LINE" at s (up to the end or a space) into where; returns its length, 0 when s holds
 * no ':' followed by digits */
static size_t file_line(const char *s, char *where, size_t len)
{
  size_t n = strcspn(s, " \t\n[");
  const char *colon = NULL;
  for (size_t i = 0; i < n; i++)
    if (s[i] == ':' && isdigit((unsigned char)s[i + 1]))
      colon = s + i;
  if (!colon)
    return 0;
  size_t end = (size_t)(colon - s) + 1;
  while (end < n && isdigit((unsigned char)s[end]))
    end++;
  relative_path(s, end, where, len);
  return end;
}

/* One place "at ..." (the text after "at "): kernel and file:line, either order. */
static void parse_place(const char *at, char *kernel, size_t klen, char *where, size_t wlen)
{
  const char *in = strstr(at, " in ");
  kernel[0] = where[0] = 0;
  if (strncmp(at, "0x", 2) == 0) { /* older: "0x4d0 in FILE:LINE:KERNEL(ARGS)" */
    if (!in)
      return;
    size_t fl = file_line(in + 4, where, wlen);
    const char *k = in + 4 + fl;
    if (fl && *k == ':')
      kernel_name(k + 1, strcspn(k + 1, "\n"), kernel, klen);
    return;
  }
  /* "KERNEL(ARGS)+0xOFF in FILE:LINE", "KERNEL(ARGS)+0xOFF" */
  const char *off = NULL;
  for (const char *p = at; (p = strstr(p, "+0x")); p++)
    if (!in || p < in)
      off = p;
  size_t n = off ? (size_t)(off - at) : in ? (size_t)(in - at) : strcspn(at, "\n");
  kernel_name(at, n, kernel, klen);
  if (in)
    file_line(in + 4, where, wlen);
}

/* The place of an "at" in text t (a report or detail line), the text after "at "; NULL none.
 * Racecheck's "Race reported between Write access at X" and "and Read access at Y". */
static const char *at_of(const char *t)
{
  const char *a = strstr(t, " at ");
  if (a)
    return a + 4;
  while (isspace((unsigned char)*t))
    t++;
  return strncmp(t, "at ", 3) == 0 ? t + 3 : NULL;
}

static void add(struct san_log *lg, const struct san_finding *f)
{
  lg->total++;
  for (int i = 0; i < lg->n; i++) {
    struct san_finding *g = &lg->f[i];
    if (!strcmp(g->what, f->what) && !strcmp(g->kernel, f->kernel) &&
        !strcmp(g->where, f->where) && !strcmp(g->other, f->other)) {
      g->count++;
      return;
    }
  }
  if (lg->n < SAN_LOG_MAX) {
    lg->f[lg->n] = *f;
    lg->f[lg->n++].count = 1;
  }
}

int san_log_parse(FILE *in, struct san_log *lg)
{
  char line[4096], case_text[GR_CASE_TEXT_LEN] = "";
  struct san_finding cur;
  int open = 0; /* cur is a report whose detail lines are being read */
  memset(lg, 0, sizeof *lg);
  lg->summary = -1;
  while (fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = 0;
    const char *t = tool_text(line);
    if (!t) { /* the program's own output: only its case lines matter */
      if (strncmp(line, "case: ", 6) == 0)
        gr_fmt(case_text, sizeof case_text, "%s", line + 6);
      continue;
    }
    long k;
    const char *paren = strchr(t, '(');
    if (lg->summary < 0 && (sscanf(t, "ERROR SUMMARY: %ld error", &k) == 1 ||
                            (strncmp(t, "RACECHECK SUMMARY:", 18) == 0 && paren &&
                             sscanf(paren, "(%ld error", &k) == 1)))
      lg->summary = k; /* the first: a second one counts the reports not printed */
    if (is_report(t)) {
      if (open)
        add(lg, &cur);
      memset(&cur, 0, sizeof cur);
      gr_fmt(cur.case_text, sizeof cur.case_text, "%s", case_text);
      /* the report line, up to its own place (racecheck names the access there), without
       * racecheck's "Error: " */
      const char *a = strstr(t, " at ");
      const char *w = strncmp(t, "Error: ", 7) == 0 ? t + 7 : t;
      gr_fmt(cur.what, sizeof cur.what, "%.*s", (int)(a ? (size_t)(a - w) : strlen(w)), w);
      if (a)
        parse_place(a + 4, cur.kernel, sizeof cur.kernel, cur.where, sizeof cur.where);
      open = 1;
      continue;
    }
    if (!open || !*t) {
      if (open && !*t) /* the empty prefix line closes a report */
        add(lg, &cur), open = 0;
      continue;
    }
    /* a detail line of the open report: its first place, racecheck's other access */
    const char *a = at_of(t);
    if (!a || strstr(t, "Host Frame") || strstr(t, "Address ") || strstr(t, "backtrace"))
      continue;
    char kernel[sizeof cur.kernel], where[sizeof cur.where];
    parse_place(a, kernel, sizeof kernel, where, sizeof where);
    if (!cur.kernel[0] && !cur.where[0]) {
      gr_fmt(cur.kernel, sizeof cur.kernel, "%s", kernel);
      gr_fmt(cur.where, sizeof cur.where, "%s", where);
    } else if (!cur.other[0] && strstr(t, "access at")) { /* racecheck: "and Read access at" */
      gr_fmt(cur.other, sizeof cur.other, "%s", where[0] ? where : kernel);
      const char *and = strstr(t, "and ");
      if (and && and < a)
        gr_fmt(cur.what + strlen(cur.what), sizeof cur.what - strlen(cur.what), " %.*s",
               (int)(a - 4 - and), and);
    }
  }
  if (open)
    add(lg, &cur);
  return 0;
}

/* Entry "VARIANT TOOL KERNEL[@PLACE]: why" split; 0 ok. */
static int split_entry(const char *e, char *var, size_t vlen, char *tool, size_t tlen, char *kern,
                       size_t klen, char *place, size_t plen, const char **why)
{
  const char *colon = strstr(e, ": ");
  if (!colon)
    return -1;
  char head[512];
  gr_fmt(head, sizeof head, "%.*s", (int)(colon - e), e);
  char *save = NULL, *v = strtok_r(head, " ", &save), *t = strtok_r(NULL, " ", &save),
       *k = strtok_r(NULL, " ", &save);
  if (!v || !t || !k || strtok_r(NULL, " ", &save))
    return -1;
  char *at = strchr(k, '@');
  gr_fmt(place, plen, "%s", at ? at + 1 : "");
  if (at)
    *at = 0;
  if (!*k || (at && !place[0]))
    return -1;
  gr_fmt(var, vlen, "%s", v);
  gr_fmt(tool, tlen, "%s", t);
  gr_fmt(kern, klen, "%s", k);
  *why = colon + 2;
  return 0;
}

static int ends_with(const char *s, const char *tail)
{
  size_t a = strlen(s), b = strlen(tail);
  return b <= a && strcmp(s + a - b, tail) == 0;
}

const char *san_explained(const char *const *list, const char *variant, const char *tool,
                          const struct san_finding *f)
{
  for (const char *const *e = list; e && *e; e++) {
    char var[64], tl[32], kern[160], place[192];
    const char *why;
    if (split_entry(*e, var, sizeof var, tl, sizeof tl, kern, sizeof kern, place, sizeof place,
                    &why))
      continue;
    if ((strcmp(var, "*") != 0 && strcmp(var, variant) != 0) || strcmp(tl, tool) != 0 ||
        !f->kernel[0] || !strstr(f->kernel, kern))
      continue;
    if (place[0]) { /* the place: the end of the file:line, or of the file alone */
      char file[sizeof f->where];
      gr_fmt(file, sizeof file, "%s", f->where);
      char *c = strrchr(file, ':');
      if (c)
        *c = 0;
      if (!ends_with(f->where, place) && !ends_with(file, place))
        continue;
    }
    return why;
  }
  return NULL;
}

int san_explained_check(const char *const *list, const char *const *variants, int n_variants,
                        char *why, size_t len)
{
  static const char *const tools[] = {"memcheck", "racecheck", "initcheck", "synccheck", NULL};
  for (const char *const *e = list; e && *e; e++) {
    char var[64], tl[32], kern[160], place[192];
    const char *reason;
    if (split_entry(*e, var, sizeof var, tl, sizeof tl, kern, sizeof kern, place, sizeof place,
                    &reason)) {
      gr_fmt(why, len, "'%.60s...': not \"VARIANT TOOL KERNEL[@PLACE]: why\"", *e);
      return -1;
    }
    int known = !strcmp(var, "*");
    for (int i = 0; i < n_variants && !known; i++)
      known = !strcmp(variants[i], var);
    int tool_ok = 0;
    for (const char *const *t = tools; *t; t++)
      tool_ok |= !strcmp(*t, tl);
    int words = 0;
    for (const char *p = reason; *p; p++)
      words += *p == ' ';
    if (!known || !tool_ok || words < 4) {
      gr_fmt(why, len, "'%.60s...': %s", *e,
             !known ? "no such variant" : !tool_ok ? "unknown tool" : "the reason is too short");
      return -1;
    }
  }
  return 0;
}

void san_finding_format(const struct san_finding *f, char *out, size_t len)
{
  char n[48] = "";
  if (f->count > 1)
    gr_fmt(n, sizeof n, " (%ld reports)", f->count);
  gr_fmt(out, len, "%s%s%s%s%s%s%s%s | case '%s'", f->what, f->kernel[0] ? " in " : "",
         f->kernel, f->where[0] ? " at " : "", f->where, f->other[0] ? " and " : "", f->other, n,
         f->case_text[0] ? f->case_text : "?");
}
