/* SPDX-License-Identifier: Apache-2.0 */
/* The CPU reference of the example: the definition, one loop, no cleverness. */
#ifndef HISTOGRAM_REF_H
#define HISTOGRAM_REF_H

#include <stddef.h>
#include <stdint.h>

/* counts[b] = the number of i < n with keys[i] == b, for b < bins (keys >= bins are not
 * counted). */
void histogram_ref(const uint32_t *keys, size_t n, int bins, uint32_t *counts);

#endif
