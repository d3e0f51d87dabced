/* Comparison helpers with readable reasons. See check.h. */
#include "check.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gr.h"

#define SHOW_MISMATCHES 3

int gr_check_fail(struct gr_check_report *rep, const char *tag, const char *fmt, ...)
{
  rep->tag = tag;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rep->why, sizeof rep->why, fmt, ap);
  va_end(ap);
  if (!rep->why[0])
    snprintf(rep->why, sizeof rep->why, "%s check failed", tag);
  return 1;
}

static size_t elem_bytes(enum gr_elem_type t)
{
  static const size_t sz[] = {1, 1, 2, 2, 4, 4, 8, 8};
  return sz[t];
}

/* Value of element i as text. */
static void elem_text(const void *base, size_t i, enum gr_elem_type t, char *buf, size_t len)
{
  switch (t) {
  case GR_ELEM_I8: snprintf(buf, len, "%d", ((const int8_t *)base)[i]); break;
  case GR_ELEM_U8: snprintf(buf, len, "%u", ((const uint8_t *)base)[i]); break;
  case GR_ELEM_I16: snprintf(buf, len, "%d", ((const int16_t *)base)[i]); break;
  case GR_ELEM_U16: snprintf(buf, len, "%u", ((const uint16_t *)base)[i]); break;
  case GR_ELEM_I32: snprintf(buf, len, "%" PRId32, ((const int32_t *)base)[i]); break;
  case GR_ELEM_U32: snprintf(buf, len, "%" PRIu32, ((const uint32_t *)base)[i]); break;
  case GR_ELEM_I64: snprintf(buf, len, "%" PRId64, ((const int64_t *)base)[i]); break;
  case GR_ELEM_U64: snprintf(buf, len, "%" PRIu64, ((const uint64_t *)base)[i]); break;
  }
}

/* Append to rep->why without overflowing. */
static void why_append(struct gr_check_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void why_append(struct gr_check_report *rep, const char *fmt, ...)
{
  size_t used = strlen(rep->why);
  if (used + 1 >= sizeof rep->why)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rep->why + used, sizeof rep->why - used, fmt, ap);
  va_end(ap);
}

int gr_check_exact(const void *got, const void *ref, size_t n, enum gr_elem_type t,
                   const char *what, struct gr_check_report *rep)
{
  size_t es = elem_bytes(t), bad = 0;
  const unsigned char *g = got, *r = ref;
  rep->why[0] = 0;
  for (size_t i = 0; i < n; i++) {
    if (memcmp(g + i * es, r + i * es, es) == 0)
      continue;
    if (bad < SHOW_MISMATCHES) {
      char a[32], b[32];
      elem_text(got, i, t, a, sizeof a);
      elem_text(ref, i, t, b, sizeof b);
      why_append(rep, "%s%s %zu: got %s, reference %s", bad ? "; " : "", what, i, a, b);
    }
    bad++;
  }
  if (!bad)
    return 0;
  rep->tag = "parity";
  why_append(rep, " (%zu of %zu elements differ)", bad, n);
  return 1;
}

#define DEFINE_CLOSE(NAME, T)                                                                      \
  int NAME(const T *got, const T *ref, size_t n, double abs_tol, double rel_tol, const char *what, \
           struct gr_check_report *rep)                                                            \
  {                                                                                                \
    size_t bad = 0;                                                                                \
    rep->why[0] = 0;                                                                               \
    for (size_t i = 0; i < n; i++) {                                                               \
      double g = (double)got[i], r = (double)ref[i], d = fabs(g - r);                              \
      if (!isnan(d) && d > rep->err)                                                               \
        rep->err = d;                                                                              \
      if (d <= abs_tol + rel_tol * fabs(r))                                                        \
        continue;                                                                                  \
      if (bad < SHOW_MISMATCHES)                                                                   \
        why_append(rep, "%s%s %zu: got %.9g, reference %.9g", bad ? "; " : "", what, i, g, r);     \
      bad++;                                                                                       \
    }                                                                                              \
    if (!bad)                                                                                      \
      return 0;                                                                                    \
    rep->tag = "parity";                                                                           \
    why_append(rep, " (%zu of %zu outside %.1e + %.1e*|ref|)", bad, n, abs_tol, rel_tol);          \
    return 1;                                                                                      \
  }

DEFINE_CLOSE(gr_check_close_f64, double)
DEFINE_CLOSE(gr_check_close_f32, float)

int gr_check_range_f64(const double *x, const double *ref, size_t n, double lo, double hi,
                       const char *what, struct gr_check_report *rep)
{
  size_t bad = 0;
  rep->why[0] = 0;
  for (size_t i = 0; i < n; i++) {
    if (x[i] >= lo && x[i] <= hi)
      continue;
    if (bad < SHOW_MISMATCHES) {
      why_append(rep, "%s%s %zu: %.6f outside [%g, %g]", bad ? "; " : "", what, i, x[i], lo, hi);
      if (ref)
        why_append(rep, "; reference %.6f", ref[i]);
    }
    bad++;
  }
  if (!bad)
    return 0;
  rep->tag = "bounds";
  why_append(rep, " (%zu of %zu out of range)", bad, n);
  return 1;
}

size_t gr_check_first_diff(const void *a, const void *b, size_t bytes, size_t elem_size)
{
  const unsigned char *x = a, *y = b;
  for (size_t i = 0; i < bytes; i++)
    if (x[i] != y[i])
      return elem_size ? i / elem_size : i;
  return (size_t)-1;
}
