/* Verdict names and small utilities shared by the harness. */
#include "gr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const verdict_names[VERDICT_COUNT_] = {
    "pass", "fail", "crash", "timeout", "skip", "caught", "escaped", "error",
};

const char *verdict_name(enum verdict v)
{
  return (unsigned)v < VERDICT_COUNT_ ? verdict_names[v] : "?";
}

int verdict_parse(const char *s)
{
  for (int i = 0; i < VERDICT_COUNT_; i++)
    if (strcmp(verdict_names[i], s) == 0)
      return i;
  return -1;
}

int verdict_is_failure(enum verdict v)
{
  return v == VERDICT_FAIL || v == VERDICT_CRASH || v == VERDICT_TIMEOUT;
}

const char *gr_si(double v, char *buf, size_t len)
{
  static const char *const units[] = {"", "k", "M", "G", "T", "P"};
  int u = 0;
  while ((v >= 1000 || v <= -1000) && u < 5)
    v /= 1000, u++;
  return gr_fmt(buf, len, "%.3g%s", v, units[u]);
}

int gr_color(int fd)
{
  const char *no = getenv("NO_COLOR");
  return isatty(fd) && !(no && *no);
}

double gr_now_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

char *gr_fmt(char *dst, size_t len, const char *fmt, ...)
{
  if (!dst || !len)
    return dst;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, len, fmt, ap);
  va_end(ap);
  return dst;
}

int gr_parse_i64(const char *s, int64_t *out)
{
  char *end;
  errno = 0;
  if (!((s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '0' && s[1] <= '9')))
    return -1; /* strtoll would skip blanks and take a '+' */
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end)
    return -1;
  *out = v;
  return 0;
}

int gr_parse_u64(const char *s, uint64_t *out)
{
  char *end;
  errno = 0;
  if (!(s[0] >= '0' && s[0] <= '9'))
    return -1; /* strtoull would skip blanks, take a sign and wrap a '-' around */
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end)
    return -1;
  *out = v;
  return 0;
}

int gr_status_exit(enum gr_status s)
{
  switch (s) {
  case GR_STATUS_OK: return GR_EXIT_OK;
  case GR_STATUS_USAGE: return GR_EXIT_USAGE;
  case GR_STATUS_NO_GPU:
  case GR_STATUS_ENV: return GR_EXIT_ENV;
  }
  return GR_EXIT_ENV;
}

/* ---- text from elsewhere: names, dates, terminals, file names ------------------------------ */

int gr_name_ok(const char *s)
{
  size_t n = 0;
  if (!s || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
              (s[0] >= '0' && s[0] <= '9')))
    return 0;
  for (; s[n]; n++) {
    char c = s[n];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '.' || c == '+' || c == '-'))
      return 0;
  }
  return n <= GR_NAME_MAX;
}

/* Length of the UTF-8 sequence at s that a terminal shows as text (no C1 control), 0 when the
 * byte at s is a control character or not the start of a valid sequence. */
static size_t utf8_printable(const unsigned char *s)
{
  if (s[0] >= 0x20 && s[0] < 0x7f)
    return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    return (s[1] & 0xc0) == 0x80 && !(s[0] == 0xc2 && s[1] < 0xa0) ? 2 : 0; /* C1: U+0080..9F */
  if (s[0] >= 0xe0 && s[0] <= 0xef) {
    if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
      return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)) /* overlong, surrogate */
      return 0;
    return 3;
  }
  if (s[0] >= 0xf0 && s[0] <= 0xf4) {
    if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
      return 0;
    if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
      return 0;
    return 4;
  }
  return 0;
}

int gr_is_printable(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  for (size_t k; *p; p += k)
    if (!(k = utf8_printable(p)))
      return 0;
  return 1;
}

char *gr_printable(char *dst, size_t len, const char *s)
{
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t o = 0;
  if (!dst || !len)
    return dst;
  while (*p) {
    size_t k = utf8_printable(p);
    char esc[5];
    const char *piece = (const char *)p;
    size_t n = k;
    if (!k) {
      snprintf(esc, sizeof esc, "\\x%02x", *p);
      piece = esc;
      n = 4;
      k = 1;
    }
    if (o + n >= len) /* never a sequence cut in half */
      break;
    memcpy(dst + o, piece, n);
    o += n;
    p += k;
  }
  dst[o] = 0;
  return dst;
}

char *gr_slug(char *dst, size_t len, const char *s)
{
  if (gr_name_ok(s))
    return gr_fmt(dst, len, "%s", s);
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
    h = (h ^ *p) * 1099511628211ull;
  return gr_fmt(dst, len, "_%016llx", (unsigned long long)h);
}

int gr_parse_date(const char *s) { return gr_date_instant(s, NULL, 0); }

int gr_date_instant(const char *s, char *canon, size_t len)
{
  /* YYYY-MM-DD, then optionally THH:MM or THH:MM:SS, then optionally Z */
  static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
  size_t n = strlen(s);
  if (n != 10 && n != 16 && n != 17 && n != 19 && n != 20)
    return -1;
  for (size_t i = 0; i < n; i++) {
    char want = (n == 17 && i == 16) ? 'Z' : shape[i];
    if (want == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != want)
      return -1;
  }
#define DIGITS2(i) ((s[i] - '0') * 10 + (s[(i) + 1] - '0'))
  int y = DIGITS2(0) * 100 + DIGITS2(2), m = DIGITS2(5), d = DIGITS2(8);
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap))
    return -1;
  if (n > 10 && (DIGITS2(11) > 23 || DIGITS2(14) > 59 || (n >= 19 && DIGITS2(17) > 59)))
    return -1;
  if (canon) /* the instant in the one form the store writes: equal instants, equal texts */
    gr_fmt(canon, len, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, n > 10 ? DIGITS2(11) : 0,
           n > 10 ? DIGITS2(14) : 0, n >= 19 ? DIGITS2(17) : 0);
#undef DIGITS2
  return 0;
}

static char runner_name[GR_NAME_MAX + 1] = "gpuregress";

const char *gr_runner_name(void) { return runner_name; }

void gr_set_runner_name(const char *name)
{
  if (gr_name_ok(name))
    gr_fmt(runner_name, sizeof runner_name, "%s", name);
}

char *gr_repro_command(char *dst, size_t len, const char *runner, const char *case_text,
                       const char *variant, long repeat)
{
  char qcase[4 * 1024 + 3], qvar[4 * GR_NAME_MAX + 3], rep[32] = "";
  if (repeat > 1)
    gr_fmt(rep, sizeof rep, " --repeat %ld", repeat);
  gr_sh_quote(qcase, sizeof qcase, case_text ? case_text : "");
  if (gr_name_ok(variant))
    gr_fmt(qvar, sizeof qvar, "%s", variant);
  else
    gr_sh_quote(qvar, sizeof qvar, variant && strlen(variant) <= GR_NAME_MAX ? variant : "");
  int n = snprintf(dst, len, "%s repro %s --variant %s%s",
                   gr_name_ok(runner) ? runner : "gpuregress", qcase, qvar, rep);
  if (n < 0 || (size_t)n >= len || (case_text && case_text[0] && !strcmp(qcase, "''")))
    dst[0] = 0;
  return dst;
}

static long repro_repeat(const char *stored)
{
  const char *p = stored ? strstr(stored, " --repeat ") : NULL;
  int64_t v;
  char num[24];
  if (!p)
    return 0;
  p += strlen(" --repeat ");
  size_t n = strspn(p, "0123456789");
  if (n == 0 || n >= sizeof num)
    return 0;
  memcpy(num, p, n);
  num[n] = 0;
  return gr_parse_i64(num, &v) == 0 && v > 1 && v <= 1000000 ? (long)v : 0;
}

const char *gr_repro_shown(char *dst, size_t len, const char *runner, const char *stored,
                           const char *variant, const char *first, const char *shrunk)
{
  const char *kase = shrunk ? shrunk : first;
  if (!stored || !kase || !variant)
    return NULL;
  gr_repro_command(dst, len, runner, kase, variant, shrunk ? repro_repeat(stored) : 0);
  return dst[0] ? dst : NULL;
}

char *gr_sh_quote(char *dst, size_t len, const char *s)
{
  size_t o = 0;
  if (!dst || len < 3)
    return dst;
  dst[o++] = '\'';
  for (; *s; s++) {
    size_t need = *s == '\'' ? 4 : 1;
    if (o + need + 2 > len)
      return gr_fmt(dst, len, "''");
    if (*s == '\'') {
      memcpy(dst + o, "'\\''", 4);
      o += 4;
    } else {
      dst[o++] = *s;
    }
  }
  dst[o++] = '\'';
  dst[o] = 0;
  return dst;
}
