/* SPDX-License-Identifier: Apache-2.0 */
/* The CPU reference: see histogram_ref.h. */
#include "histogram_ref.h"

#include <string.h>

void histogram_ref(const uint32_t *keys, size_t n, int bins, uint32_t *counts)
{
  memset(counts, 0, (size_t)bins * sizeof *counts);
  for (size_t i = 0; i < n; i++)
    if (keys[i] < (uint32_t)bins)
      counts[keys[i]]++;
}
