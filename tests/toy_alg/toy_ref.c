/* Reference of the toy algorithm: see toy_ref.h. */
#include "toy_ref.h"

void toy_reference(const int32_t *x, int32_t *out, size_t n)
{
  for (size_t i = 0; i < n; i++)
    out[i] = i == 0 || x[i] > out[i - 1] ? x[i] : out[i - 1];
}
