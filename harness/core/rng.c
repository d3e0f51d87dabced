/* Deterministic random numbers: see rng.h. */
#include "rng.h"

static uint64_t splitmix64(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void gr_rng_seed(struct gr_rng *r, uint64_t seed)
{
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64(&x);
}

uint64_t gr_rng_u64(struct gr_rng *r)
{
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint32_t gr_rng_u32(struct gr_rng *r)
{
  return (uint32_t)(gr_rng_u64(r) >> 32);
}

int64_t gr_rng_range(struct gr_rng *r, int64_t lo, int64_t hi)
{
  if (hi <= lo)
    return lo;
  uint64_t span = (uint64_t)(hi - lo) + 1u;
  if (span == 0) /* the whole 64-bit range */
    return (int64_t)gr_rng_u64(r);
  /* rejection sampling: unbiased */
  uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  uint64_t x;
  do
    x = gr_rng_u64(r);
  while (x >= limit);
  return lo + (int64_t)(x % span);
}

double gr_rng_unit(struct gr_rng *r)
{
  return (double)(gr_rng_u64(r) >> 11) * 0x1.0p-53;
}

int gr_rng_chance(struct gr_rng *r, double p)
{
  return gr_rng_unit(r) < p;
}

int64_t gr_rng_log_range(struct gr_rng *r, int64_t lo, int64_t hi)
{
  if (lo < 1)
    lo = 1;
  if (hi <= lo)
    return lo;
  int bits_lo = 63 - __builtin_clzll((unsigned long long)lo);
  int bits_hi = 63 - __builtin_clzll((unsigned long long)hi);
  int b = (int)gr_rng_range(r, bits_lo, bits_hi);
  int64_t a = (int64_t)1 << b, z = (b >= 62) ? INT64_MAX : ((int64_t)1 << (b + 1)) - 1;
  if (a < lo)
    a = lo;
  if (z > hi)
    z = hi;
  return gr_rng_range(r, a, z);
}

int64_t gr_rng_boundary(struct gr_rng *r, int64_t lo, int64_t hi, const int64_t *anchors,
                        size_t n_anchors, double p_edge)
{
  int64_t v;
  if (n_anchors > 0 && gr_rng_chance(r, p_edge)) {
    v = anchors[gr_rng_range(r, 0, (int64_t)n_anchors - 1)] + gr_rng_range(r, -1, 1);
  } else if (lo < 1) {
    v = gr_rng_chance(r, 0.05) ? lo : gr_rng_log_range(r, 1, hi);
  } else {
    v = gr_rng_log_range(r, lo, hi);
  }
  if (v < lo)
    v = lo;
  if (v > hi)
    v = hi;
  return v;
}
