/* Cases made rather than read: limits on the generator (--limit), generation from a seed and an
 * index, and the shrinking candidates of a failing case. See case.h. */
#include "case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"

int case_limits_add(const struct gr_algorithm *a, struct case_limits *lim, const char *spec,
                    char *why, size_t len)
{
  char name[64];
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof name) {
    gr_fmt(why, len, "malformed range '%s': expected NAME=LO..HI or NAME=VALUE", spec);
    return -1;
  }
  memcpy(name, spec, (size_t)(eq - spec));
  name[eq - spec] = 0;
  size_t idx;
  const struct gr_param_spec *p = gr_alg_param(a, name, &idx);
  if (!p) {
    gr_fmt(why, len, "unknown parameter '%s' for algorithm '%s'", name, a->name);
    return -1;
  }
  if (p->type == GR_PARAM_FILE) {
    gr_fmt(why, len, "'%s' names a file: fuzzing generates its data (use 'repro' for a file case)",
           name);
    return -1;
  }
  for (size_t k = 0; k < lim->n; k++)
    if (lim->index[k] == idx) {
      gr_fmt(why, len, "'%s' given twice (one range per parameter)", name);
      return -1;
    }
  if (lim->n >= GR_MAX_PARAMS) {
    gr_fmt(why, len, "too many ranges");
    return -1;
  }
  int64_t lo, hi;
  const char *dots = strstr(eq + 1, "..");
  if (dots && p->type == GR_PARAM_INT) {
    char a_txt[32], b_txt[32];
    size_t la = (size_t)(dots - (eq + 1));
    if (la >= sizeof a_txt || strlen(dots + 2) >= sizeof b_txt) {
      gr_fmt(why, len, "malformed range '%s'", spec);
      return -1;
    }
    memcpy(a_txt, eq + 1, la);
    a_txt[la] = 0;
    strcpy(b_txt, dots + 2);
    if (gr_parse_i64(a_txt, &lo) || gr_parse_i64(b_txt, &hi) || lo > hi) {
      gr_fmt(why, len, "malformed range '%s': expected NAME=LO..HI with LO <= HI", spec);
      return -1;
    }
  } else {
    if (case_param_value(p, eq + 1, &lo, why, len))
      return -1;
    hi = lo;
  }
  if (p->type == GR_PARAM_ENUM && strcmp(p->choices[lo], "file") == 0) {
    gr_fmt(why, len, "'%s=file' reads files: fuzzing generates its data (use 'repro' for a file "
           "case)", name);
    return -1;
  }
  if (p->type == GR_PARAM_INT && (lo < p->min || hi > p->max)) {
    gr_fmt(why, len, "range '%s' leaves [%lld, %lld], the range of '%s'", spec, (long long)p->min,
           (long long)p->max, name);
    return -1;
  }
  lim->index[lim->n] = idx;
  lim->lo[lim->n] = lo;
  lim->hi[lim->n] = hi;
  lim->n++;
  return 0;
}

static void apply_limits(struct gr_case *c, const struct case_limits *lim, struct gr_rng *r)
{
  if (!lim)
    return;
  for (size_t i = 0; i < lim->n; i++) {
    int64_t *v = &c->v[lim->index[i]];
    if (*v < lim->lo[i] || *v > lim->hi[i]) {
      /* redraw inside the range, keeping its edges likely */
      int64_t edges[2] = {lim->lo[i], lim->hi[i]};
      *v = gr_rng_boundary(r, lim->lo[i], lim->hi[i], edges, 2, 0.3);
    }
  }
}

static int limits_ok(const struct gr_case *c, const struct case_limits *lim)
{
  if (!lim)
    return 1;
  for (size_t i = 0; i < lim->n; i++)
    if (c->v[lim->index[i]] < lim->lo[i] || c->v[lim->index[i]] > lim->hi[i])
      return 0;
  return 1;
}

int case_generate(const struct gr_algorithm *a, uint64_t seed, uint64_t index,
                  const struct case_limits *lim, struct gr_case *c)
{
  struct gr_rng r;
  gr_rng_seed(&r, seed ^ (0x9e3779b97f4a7c15ull * (index + 1)));
  char why[GR_WHY_LEN];
  for (int attempt = 0;; attempt++) {
    memset(c, 0, sizeof *c);
    c->alg = a;
    c->seed = gr_rng_u64(&r) >> 16; /* short enough to type */
    a->generate(c, &r);
    apply_limits(c, lim, &r);
    if (a->fixup)
      a->fixup(c);
    if (limits_ok(c, lim) && case_validate(c, why, sizeof why) == 0)
      return 0;
    if (attempt > 1000) {
      /* limits that no fixed-up case can meet: take the lower edges, valid or not */
      for (size_t i = 0; lim && i < lim->n; i++)
        c->v[lim->index[i]] = lim->lo[i];
      return case_validate(c, why, sizeof why) == 0 ? 0 : -1;
    }
  }
}

static int case_equal(const struct gr_case *a, const struct gr_case *b)
{
  return a->alg == b->alg && a->seed == b->seed &&
         memcmp(a->v, b->v, sizeof(int64_t) * a->alg->n_params) == 0;
}

size_t case_shrink_candidates(const struct gr_case *c, struct gr_case *out, size_t max)
{
  const struct gr_algorithm *a = c->alg;
  size_t n = 0;
  char why[GR_WHY_LEN];
  if (gr_case_has_files(c)) /* the files fix the data: nothing simpler to try */
    return 0;
  for (size_t i = 0; i < a->n_params && n < max; i++) {
    const struct gr_param_spec *p = &a->params[i];
    int64_t tries[64];
    size_t nt = 0;
    if (p->type == GR_PARAM_FILE)
      continue;
    if (p->type == GR_PARAM_ENUM) {
      for (int64_t j = 0; j < c->v[i] && nt < 64; j++)
        tries[nt++] = j;
    } else {
      int64_t v = c->v[i], lo = p->min < 0 ? 0 : p->min;
      if (v > lo) {
        tries[nt++] = lo;
        int64_t gap = v - lo;
        /* v - gap/2, v - gap/4, ...: binary descent towards the minimum */
        for (int64_t d = gap / 2; d >= 1 && nt < 62; d /= 2)
          tries[nt++] = v - d;
        if (nt < 64)
          tries[nt++] = v - 1;
      }
    }
    for (size_t t = 0; t < nt && n < max; t++) {
      struct gr_case cand = *c;
      cand.v[i] = tries[t];
      if (a->fixup)
        a->fixup(&cand);
      if (case_equal(&cand, c) || case_validate(&cand, why, sizeof why))
        continue;
      int dup = 0;
      for (size_t k = 0; k < n && !dup; k++)
        dup = case_equal(&out[k], &cand);
      if (!dup)
        out[n++] = cand;
    }
  }
  return n;
}
