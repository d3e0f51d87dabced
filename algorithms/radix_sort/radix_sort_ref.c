/* CPU reference of radix_sort: three stable counting-sort passes on bits 0-10, 11-21 and 22-31.
 * Each pass counts the keys per digit, turns the counts into starting positions, and places the
 * keys in input order, which is what makes the sort stable. 11-bit digits keep the counters in
 * L1/L2 and need one pass fewer than bytes. */
#include "radix_sort_ref.h"

#include <stdlib.h>
#include <string.h>

#define REF_BITS 11
#define REF_DIGITS (1u << REF_BITS)
#define REF_MASK (REF_DIGITS - 1u)

/* One stable pass on bits [shift, shift+11): src -> dst (keys and, when vsrc, values). */
static void counting_pass(const uint32_t *src, const uint32_t *vsrc, uint32_t *dst, uint32_t *vdst,
                          size_t n, unsigned shift, size_t *pos)
{
  memset(pos, 0, REF_DIGITS * sizeof *pos);
  for (size_t i = 0; i < n; i++)
    pos[(src[i] >> shift) & REF_MASK]++;
  size_t sum = 0;
  for (size_t d = 0; d < REF_DIGITS; d++) {
    size_t c = pos[d];
    pos[d] = sum;
    sum += c;
  }
  for (size_t i = 0; i < n; i++) {
    size_t p = pos[(src[i] >> shift) & REF_MASK]++;
    dst[p] = src[i];
    if (vsrc)
      vdst[p] = vsrc[i];
  }
}

int radix_sort_reference(const uint32_t *keys_in, const uint32_t *vals_in, uint32_t *keys_out,
                         uint32_t *vals_out, size_t n)
{
  size_t *pos = malloc(REF_DIGITS * sizeof *pos);
  uint32_t *tk = malloc((n ? n : 1) * sizeof *tk);
  uint32_t *tv = vals_in ? malloc((n ? n : 1) * sizeof *tv) : NULL;
  int rc = -1;
  if (!pos || !tk || (vals_in && !tv))
    goto out_free;
  /* in -> out, out -> t, t -> out */
  counting_pass(keys_in, vals_in, keys_out, vals_out, n, 0, pos);
  counting_pass(keys_out, vals_out, tk, tv, n, REF_BITS, pos);
  counting_pass(tk, tv, keys_out, vals_out, n, 2 * REF_BITS, pos);
  rc = 0;
out_free:
  free(pos);
  free(tk);
  free(tv);
  return rc;
}
