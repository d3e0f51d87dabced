/* Regimes reached per variant, and steering toward the ones not reached. See coverage.h. */
#include "coverage.h"

#include <stdio.h>
#include <string.h>

#include "gr.h"

static int names_variant(const struct gr_regime *r, const struct gr_variant *v)
{
  if (!r->variants)
    return (v->flags & GR_VARIANT_GPU) != 0;
  size_t n = strlen(v->name);
  for (const char *s = r->variants; *s;) {
    s += strspn(s, " ");
    size_t w = strcspn(s, " ");
    if (w == n && strncmp(s, v->name, n) == 0)
      return 1;
    s += w;
  }
  return 0;
}

uint32_t coverage_applies(const struct gr_algorithm *a, const struct gr_variant *v)
{
  uint32_t m = 0;
  for (size_t i = 0; i < a->n_regimes && i < GR_MAX_REGIMES; i++)
    if (v->kind != GR_VARIANT_REFERENCE && names_variant(&a->regimes[i], v))
      m |= 1u << i;
  return m;
}

uint32_t coverage_mask(const struct gr_case *c, const struct gr_variant *v,
                       const struct gr_instance *inst)
{
  const struct gr_algorithm *a = c->alg;
  uint32_t app = coverage_applies(a, v), m = 0;
  for (size_t i = 0; i < a->n_regimes && i < GR_MAX_REGIMES; i++)
    if ((app >> i & 1) && a->regimes[i].holds && a->regimes[i].holds(c, inst))
      m |= 1u << i;
  return m;
}

void coverage_init(struct coverage *cv, const struct gr_algorithm *a, const struct gr_variant *v)
{
  memset(cv, 0, sizeof *cv);
  cv->a = a;
  cv->applies = coverage_applies(a, v);
}

void coverage_add(struct coverage *cv, uint32_t mask, int aimed)
{
  mask &= cv->applies;
  if (aimed >= 0 && aimed < GR_MAX_REGIMES)
    cv->missed[aimed] = mask >> aimed & 1 ? 0 : cv->missed[aimed] + 1;
  for (int i = 0; i < GR_MAX_REGIMES; i++)
    cv->cases[i] += mask >> i & 1;
}

static int is_limit(const struct coverage *cv, int i)
{
  return (cv->a->regimes[i].flags & GR_REGIME_LIMIT) != 0;
}

/* The order of regimes with as many cases: a known bug's path, an ordinary one, a limit. */
static int tie_rank(const struct coverage *cv, int i)
{
  return cv->a->regimes[i].flags & GR_REGIME_EARLY ? 0 : is_limit(cv, i) ? 2 : 1;
}

int coverage_want(const struct coverage *cv, uint32_t skip)
{
  int best = -1;
  for (int i = 0; i < GR_MAX_REGIMES; i++) {
    if (!(cv->applies >> i & 1) || (skip >> i & 1) || !cv->a->regimes[i].holds ||
        cv->missed[i] >= COVERAGE_GIVE_UP ||
        cv->cases[i] >= (is_limit(cv, i) ? COVERAGE_WANT_LIMIT : COVERAGE_WANT))
      continue;
    /* fewest cases first; on a tie a known bug's path (GR_REGIME_EARLY) first, then the cheap
     * ordinary path before the large limit case (a limit case often reaches the ordinary
     * regimes of its size too, never the other way) */
    if (best < 0 || cv->cases[i] < cv->cases[best] ||
        (cv->cases[i] == cv->cases[best] && tie_rank(cv, i) < tie_rank(cv, best)))
      best = i;
  }
  return best;
}

uint32_t coverage_unreached_aims(const struct coverage *cv, uint32_t skip)
{
  uint32_t m = 0;
  for (int i = 0; i < GR_MAX_REGIMES; i++)
    if ((cv->applies >> i & 1) && !(skip >> i & 1) && cv->a->regimes[i].holds &&
        cv->cases[i] == 0 && cv->missed[i] < COVERAGE_GIVE_UP)
      m |= 1u << i;
  return m;
}

int coverage_unreached_aim(const struct coverage *cv, uint32_t skip)
{
  uint32_t m = coverage_unreached_aims(cv, skip);
  return m ? __builtin_ctz(m) : -1;
}

int coverage_steer(const struct coverage *cv, const struct gr_variant *v, uint64_t seed,
                   uint64_t index, const struct case_limits *lim, int want, struct gr_case *c)
{
  struct gr_case alt;
  for (uint64_t k = 1; k <= COVERAGE_STEER_DRAWS; k++) {
    case_generate(cv->a, seed ^ (0xc2b2ae3d27d4eb4full * k), index, lim, &alt);
    if (coverage_mask(&alt, v, NULL) >> want & 1) {
      *c = alt;
      return 1;
    }
  }
  return 0;
}

char *coverage_text(const struct coverage *cv, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < GR_MAX_REGIMES && used < len; i++)
    if (cv->applies >> i & 1)
      used += (size_t)snprintf(buf + used, len - used, "%s%s %ld", used ? ", " : "",
                               cv->a->regimes[i].name, cv->cases[i]);
  return buf;
}

char *coverage_unreached(const struct coverage *cv, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < GR_MAX_REGIMES && used < len; i++)
    if ((cv->applies >> i & 1) && cv->cases[i] == 0)
      used += (size_t)snprintf(buf + used, len - used, "%s'%s'", used ? ", " : "",
                               cv->a->regimes[i].name);
  return buf;
}
