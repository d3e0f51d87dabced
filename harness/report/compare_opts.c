/* compare's options: the defaults, --min-effect and --alpha with their per-algorithm overrides,
 * and a variant's minimum effect (compare.h). A module below compare.c and compare_confirm.c,
 * which both ask it. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"
#include "registry.h"

void compare_opts_default(struct compare_opts *o)
{
  memset(o, 0, sizeof *o);
  o->min_effect = 0.05;
  o->alpha = 0.01;
  o->max_accuracy_loss = 0.005;
  o->night_sigmas = 3;
}

int compare_opts_parse(struct compare_opts *o, int which, const char *text, char *why, size_t len)
{
  char buf[512];
  const char *opt = which ? "alpha" : "min-effect";
  if (!*text || strlen(text) >= sizeof buf) {
    gr_fmt(why, len, "%s value for --%s", *text ? "too long a" : "empty", opt);
    return -1;
  }
  strcpy(buf, text);
  for (char *tok = buf, *next; tok; tok = next) {
    next = strchr(tok, ',');
    if (next)
      *next++ = 0;
    char *eq = strchr(tok, '='), *num = eq ? eq + 1 : tok, *end;
    double v = strtod(num, &end);
    int plain = ((num[0] >= '0' && num[0] <= '9') || num[0] == '.') && !strpbrk(num, "xXpP");
    if (eq == tok || !plain || end == num || *end || !isfinite(v) || v < 0 || (which && v == 0) ||
        v >= (which ? 1 : 10)) {
      gr_fmt(why, len, "bad value '%s' for --%s: use a number%s or ALG=NUMBER", tok, opt,
             which ? " in (0, 1)" : " in [0, 10) such as 0.05");
      return -1;
    }
    if (!eq) {
      if (which)
        o->alpha = v;
      else
        o->min_effect = v;
      continue;
    }
    *eq = 0;
    size_t k;
    for (k = 0; k < o->n_over && strcmp(o->over[k].alg, tok) != 0; k++)
      ;
    if (k == o->n_over) {
      if (k == COMPARE_MAX_OVERRIDES) {
        gr_fmt(why, len, "too many per-algorithm overrides");
        return -1;
      }
      o->n_over++;
      gr_fmt(o->over[k].alg, sizeof o->over[k].alg, "%s", tok);
      o->over[k].min_effect = o->over[k].alpha = -1;
    }
    if (which)
      o->over[k].alpha = v;
    else
      o->over[k].min_effect = v;
  }
  return 0;
}

double compare_min_effect(const struct compare_opts *o, const char *alg)
{
  for (size_t k = 0; k < o->n_over; k++)
    if (strcmp(o->over[k].alg, alg) == 0 && o->over[k].min_effect >= 0)
      return o->over[k].min_effect;
  return o->min_effect;
}

double compare_min_effect_variant(const struct compare_opts *o, const char *alg, const char *variant)
{
  double e = compare_min_effect(o, alg);
  const struct gr_algorithm *a = registry_find(alg);
  for (size_t k = 0; a && k < a->n_variants; k++)
    if (strcmp(a->variants[k].name, variant) == 0)
      return a->variants[k].flags & GR_VARIANT_HOST_BOUND ? e * COMPARE_HOST_BOUND_FACTOR : e;
  return e;
}

double compare_alpha(const struct compare_opts *o, const char *alg)
{
  for (size_t k = 0; k < o->n_over; k++)
    if (strcmp(o->over[k].alg, alg) == 0 && o->over[k].alpha >= 0)
      return o->over[k].alpha;
  return o->alpha;
}
