/* Assertion helpers of the C test programs: count failures, print where (and what was seen),
 * exit 1 at the end if anything failed. Every test program uses these; none defines its own. */
#ifndef GR_TEST_UTIL_H
#define GR_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int test_failures, test_checks;

static void test_fail_(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void test_fail_(const char *file, int line, const char *cond, const char *fmt, ...)
{
  test_failures++;
  printf("FAIL %s:%d: %s:", file, line, cond);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

/* EXPECT(cond) or EXPECT(cond, "printf format", args...): the message says what was seen. */
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    test_checks++;                                                                                 \
    if (!(cond))                                                                                   \
      test_fail_(__FILE__, __LINE__, #cond, " " __VA_ARGS__);                                      \
  } while (0)

#define EXPECT_EQ(got, want)                                                                       \
  EXPECT((long long)(got) == (long long)(want), "got %lld, want %lld", (long long)(got),           \
         (long long)(want))

#define EXPECT_NEAR(a, b, tol)                                                                     \
  do {                                                                                             \
    double a_ = (a), b_ = (b);                                                                     \
    if (!(fabs(a_ - b_) <= (tol))) {                                                               \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (tol %g)\n", __FILE__, __LINE__, #a, a_,  \
              b_, (double)(tol));                                                                  \
      test_failures++;                                                                             \
    }                                                                                              \
  } while (0)

#define EXPECT_STR_CONTAINS(s, sub)                                                                \
  do {                                                                                             \
    const char *s_ = (s);                                                                          \
    if (!strstr(s_, (sub))) {                                                                      \
      fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__, s_, (sub));       \
      test_failures++;                                                                             \
    }                                                                                              \
  } while (0)

#define TEST_DONE()                                                                                \
  do {                                                                                             \
    if (test_failures)                                                                             \
      fprintf(stderr, "%d expectation(s) failed\n", test_failures);                                \
    return test_failures ? 1 : 0;                                                                  \
  } while (0)

#endif
