/* SPDX-License-Identifier: Apache-2.0 */
/* gpuregress/check.h (public API).
 * Comparison helpers every checker uses: exact comparison of integer arrays, tolerance
 * comparison of floating arrays, range checks. On failure they fill a check_report with a reason
 * a person can read: the first few mismatches with index and both values, then the count. */
#ifndef GR_CHECK_H
#define GR_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gr_elem_type {
  GR_ELEM_I8,
  GR_ELEM_U8,
  GR_ELEM_I16,
  GR_ELEM_U16,
  GR_ELEM_I32,
  GR_ELEM_U32,
  GR_ELEM_I64,
  GR_ELEM_U64
};

/* Mark rep as failed with tag and a printf reason; returns 1 (the check's "fail" value). */
int gr_check_fail(struct gr_check_report *rep, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Exact comparison of n integer elements; what names the array in the reason ("key").
 * 0 when equal, else 1 with rep filled (tag "parity"). */
int gr_check_exact(const void *got, const void *ref, size_t n, enum gr_elem_type t,
                   const char *what, struct gr_check_report *rep);

/* |got - ref| <= abs_tol + rel_tol * |ref| for each element; NaN never passes. rep->err gets the
 * largest |got - ref|. 0 when within tolerance, else 1 (tag "parity"). */
int gr_check_close_f64(const double *got, const double *ref, size_t n, double abs_tol,
                       double rel_tol, const char *what, struct gr_check_report *rep);
int gr_check_close_f32(const float *got, const float *ref, size_t n, double abs_tol, double rel_tol,
                       const char *what, struct gr_check_report *rep);

/* lo <= x[i] <= hi for each element (tag "bounds"); ref, when not NULL, is quoted in the reason. */
int gr_check_range_f64(const double *x, const double *ref, size_t n, double lo, double hi,
                       const char *what, struct gr_check_report *rep);

/* Index of the first differing element of two equal-size buffers, or (size_t)-1. */
size_t gr_check_first_diff(const void *a, const void *b, size_t bytes, size_t elem_size);

#ifdef __cplusplus
}
#endif

#endif
