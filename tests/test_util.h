/* Minimal assertion helpers for the C unit tests: count failures, print where, exit 1 at the
 * end if anything failed. */
#ifndef GR_TEST_UTIL_H
#define GR_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_failures;

#define EXPECT(cond)                                                                               \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                          \
      test_failures++;                                                                             \
    }                                                                                              \
  } while (0)

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
