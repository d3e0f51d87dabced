/* Verdict names and small utilities shared by the harness. */
#include "gr.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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
