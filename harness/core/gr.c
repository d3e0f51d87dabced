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

double now_seconds(void)
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
  if (*s == '-')
    return -1;
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
