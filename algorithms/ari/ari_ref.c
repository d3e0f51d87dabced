/* CPU reference of the Adjusted Rand Index. Plain and exact: the contingency table in 64-bit
 * counters, the pair-confusion counts as exact integers, the products in 128-bit integers. */
#include "ari_ref.h"

#include <math.h>
#include <stdlib.h>

/* Contingency table n_ij (k_a x k_b, row-major), or NULL. */
static uint64_t *contingency(const int16_t *a, const int16_t *b, size_t n, int k_a, int k_b)
{
  if (k_a < 1 || k_b < 1)
    return NULL;
  uint64_t *t = calloc((size_t)k_a * (size_t)k_b, sizeof *t);
  if (!t)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    if (a[i] < 0 || a[i] >= k_a || b[i] < 0 || b[i] >= k_b) {
      free(t);
      return NULL;
    }
    t[(size_t)a[i] * (size_t)k_b + (size_t)b[i]]++;
  }
  return t;
}

int ari_reference_counts(const int16_t *a, const int16_t *b, size_t n, int k_a, int k_b,
                         struct ari_counts *out)
{
  uint64_t *t = contingency(a, b, n, k_a, k_b);
  if (!t)
    return -1;
  uint64_t s = 0, sa = 0, sb = 0; /* sum n_ij^2, sum a_i^2, sum b_j^2 */
  for (int i = 0; i < k_a; i++) {
    uint64_t row = 0;
    for (int j = 0; j < k_b; j++) {
      uint64_t x = t[(size_t)i * (size_t)k_b + (size_t)j];
      row += x;
      s += x * x;
    }
    sa += row * row;
  }
  for (int j = 0; j < k_b; j++) {
    uint64_t col = 0;
    for (int i = 0; i < k_a; i++)
      col += t[(size_t)i * (size_t)k_b + (size_t)j];
    sb += col * col;
  }
  free(t);
  uint64_t nn = (uint64_t)n;
  out->tp = s - nn;
  out->fp = sb - s;
  out->fn = sa - s;
  out->tn = nn * nn - sa - sb + s;
  return 0;
}

double ari_from_counts(const struct ari_counts *c)
{
  if (c->fn == 0 && c->fp == 0)
    return 1.0;
  __int128 tp = c->tp, fp = c->fp, fn = c->fn, tn = c->tn;
  __int128 num = 2 * (tp * tn - fn * fp);
  __int128 den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn);
  return (double)((long double)num / (long double)den);
}

double ari_reference(const int16_t *a, const int16_t *b, size_t n, int k_a, int k_b)
{
  struct ari_counts c;
  if (ari_reference_counts(a, b, n, k_a, k_b, &c))
    return NAN;
  return ari_from_counts(&c);
}

static long double comb2(uint64_t x) { return (long double)x * (long double)(x - (x > 0)) / 2.0L; }

double ari_reference_hubert(const int16_t *a, const int16_t *b, size_t n, int k_a, int k_b)
{
  uint64_t *t = contingency(a, b, n, k_a, k_b);
  if (!t)
    return NAN;
  long double index = 0, sum_a = 0, sum_b = 0;
  for (int i = 0; i < k_a; i++) {
    uint64_t row = 0;
    for (int j = 0; j < k_b; j++) {
      row += t[(size_t)i * (size_t)k_b + (size_t)j];
      index += comb2(t[(size_t)i * (size_t)k_b + (size_t)j]);
    }
    sum_a += comb2(row);
  }
  for (int j = 0; j < k_b; j++) {
    uint64_t col = 0;
    for (int i = 0; i < k_a; i++)
      col += t[(size_t)i * (size_t)k_b + (size_t)j];
    sum_b += comb2(col);
  }
  free(t);
  long double expected = sum_a * sum_b / comb2(n);
  long double max = (sum_a + sum_b) / 2;
  if (max == expected) /* both partitions trivial in the same way: identical */
    return 1.0;
  return (double)((index - expected) / (max - expected));
}
