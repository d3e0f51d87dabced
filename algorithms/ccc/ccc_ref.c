/* CPU reference of CCC (see ccc_ref.h): sorting for the ranks, labels from the rational cut
 * rule, one contingency table per part pair through ari's reference. Plain, not fast. */
#include "ccc_ref.h"

#include <math.h>
#include <stdlib.h>

#include "algorithms/ari/ari_ref.h"

struct ccc_ref_item {
  float v;
  int i;
};

static int ccc_ref_item_cmp(const void *a, const void *b)
{
  float x = ((const struct ccc_ref_item *)a)->v, y = ((const struct ccc_ref_item *)b)->v;
  return (x > y) - (x < y);
}

static unsigned ccc_ref_valid(const int16_t *lab, int n)
{
  int first = -1;
  for (int o = 0; o < n; o++) {
    if (lab[o] < 0)
      continue;
    if (first < 0)
      first = lab[o];
    else if (lab[o] != first)
      return 1;
  }
  return 0;
}

int ccc_reference_partition(const float *x, int n, int cat_k, struct ccc_ref_feature *f)
{
  f->valid = 0;
  if (cat_k) {
    f->parts = 1;
    f->k[0] = cat_k;
    for (int o = 0; o < n; o++) {
      if (isnan(x[o])) {
        f->labels[o] = -1;
        continue;
      }
      if (!(x[o] >= 0 && x[o] < cat_k) || x[o] != floorf(x[o]))
        return -1;
      f->labels[o] = (int16_t)x[o];
    }
    f->valid = ccc_ref_valid(f->labels, n);
    return 0;
  }
  int kmax = ccc_kmax(n);
  f->parts = kmax - 1;
  struct ccc_ref_item *it = malloc((size_t)(n > 0 ? n : 1) * sizeof *it);
  if (!it)
    return -1;
  int m = 0;
  for (int o = 0; o < n; o++)
    if (!isnan(x[o]))
      it[m++] = (struct ccc_ref_item){x[o], o};
  qsort(it, (size_t)m, sizeof *it, ccc_ref_item_cmp);
  for (int p = 0; p < f->parts; p++) {
    f->k[p] = p + 2;
    for (int o = 0; o < n; o++)
      f->labels[(size_t)p * n + o] = -1;
  }
  for (int lo = 0; lo < m;) {
    int hi = lo + 1;
    while (hi < m && it[hi].v == it[lo].v)
      hi++;
    int64_t twice_rank = (int64_t)lo + hi + 1; /* 2 x the average 1-based rank of the tie group */
    for (int p = 0; p < f->parts; p++) {
      int k = p + 2, label = 0;
      for (int i = 1; i < k; i++) /* i/k < rank/m */
        label += 2 * (int64_t)i * m < twice_rank * k;
      for (int s = lo; s < hi; s++)
        f->labels[(size_t)p * n + it[s].i] = (int16_t)label;
    }
    lo = hi;
  }
  free(it);
  for (int p = 0; p < f->parts; p++)
    f->valid |= ccc_ref_valid(f->labels + (size_t)p * n, n) << p;
  return 0;
}

double ccc_reference_pair(const struct ccc_ref_feature *a, const struct ccc_ref_feature *b, int n,
                          int16_t *scratch, uint8_t *idx)
{
  *idx = CCC_NO_INDEX;
  if (!a->valid || !b->valid)
    return NAN;
  int16_t *ta = scratch, *tb = scratch + n;
  double best = 0;
  for (int p = 0; p < a->parts; p++) {
    if (!(a->valid >> p & 1))
      continue;
    for (int q = 0; q < b->parts; q++) {
      if (!(b->valid >> q & 1))
        continue;
      const int16_t *la = a->labels + (size_t)p * n, *lb = b->labels + (size_t)q * n;
      int m = 0;
      for (int o = 0; o < n; o++)
        if (la[o] >= 0 && lb[o] >= 0) {
          ta[m] = la[o];
          tb[m] = lb[o];
          m++;
        }
      struct ari_counts c;
      if (ari_reference_counts(ta, tb, (size_t)m, a->k[p], b->k[q], &c))
        return NAN;
      double v = ari_from_counts(&c);
      if (*idx == CCC_NO_INDEX || v > best) {
        best = v;
        *idx = (uint8_t)(p << 4 | q);
      }
    }
  }
  return best > 0 ? best : 0.0;
}
