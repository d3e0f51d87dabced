/* Reference of the toy algorithm: the running maximum of n int32 values. */
#ifndef GR_TOY_REFERENCE_H
#define GR_TOY_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* out[i] = max(x[0..i]) */
void toy_reference(const int32_t *x, int32_t *out, size_t n);

#endif
