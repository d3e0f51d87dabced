/* CPU reference of radix_sort: a stable sort of uint32 keys, optionally carrying one uint32 value
 * per key. Plain LSD counting sort with 11-bit digits (3 passes; a different digit width from the
 * GPU variants on purpose), O(n) time, one n-sized scratch buffer per array. */
#ifndef GR_REFERENCE_RADIX_SORT_H
#define GR_REFERENCE_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sort keys_in[0..n) stably into keys_out; when vals_in is not NULL, vals_out[i] is the value
 * that came with keys_out[i]. Inputs are not modified; outputs may not alias inputs. Returns 0,
 * or -1 when the scratch buffers cannot be allocated (outputs then undefined). */
int radix_sort_reference(const uint32_t *keys_in, const uint32_t *vals_in, uint32_t *keys_out,
                         uint32_t *vals_out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
