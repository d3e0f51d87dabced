/* Seeded genealogy generator: see genealogy.h. */
#include "genealogy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/util.h>
#include <gpuregress/rng.h>

#define MARRY_PERCENT 90     /* people who marry */
#define ONE_PARENT_PERCENT 3 /* children with one parent unrecorded */
#define RELATIVE_WINDOW 8    /* a relative spouse is among the next few of the same generation */


/* The people being built: gender -1/1, parents or -1. */
struct people {
  int64_t n, cap;
  int8_t *gender;
  int32_t *father, *mother;
  int32_t *gen;
  uint8_t *married;
};

static int people_init(struct people *p, int64_t cap)
{
  memset(p, 0, sizeof *p);
  p->cap = cap;
  size_t c = (size_t)(cap ? cap : 1);
  p->gender = malloc(c);
  p->father = malloc(c * sizeof *p->father);
  p->mother = malloc(c * sizeof *p->mother);
  p->gen = malloc(c * sizeof *p->gen);
  p->married = calloc(c, 1);
  return p->gender && p->father && p->mother && p->gen && p->married ? 0 : -1;
}

static void people_release(struct people *p)
{
  free(p->gender);
  free(p->father);
  free(p->mother);
  free(p->gen);
  free(p->married);
}

/* Append a person; returns its index or -1 when n people exist. */
static int64_t people_add(struct people *p, int8_t gender, int32_t father, int32_t mother, int32_t gen)
{
  if (p->n >= p->cap)
    return -1;
  int64_t i = p->n++;
  p->gender[i] = gender;
  p->father[i] = father;
  p->mother[i] = mother;
  p->gen[i] = gen;
  p->married[i] = 0;
  return i;
}

static int8_t draw_gender(struct gr_rng *r)
{
  return gr_rng_chance(r, 0.5) ? -1 : 1;
}

/* One family of up to `gens` generations, appended to p until p is full. Returns its depth. */
static int make_family(struct people *p, const struct genealogy_opts *o, struct gr_rng *r)
{
  /* each generation: about `born` children plus the outsiders who marry them, n/gens in all */
  double out_rate = MARRY_PERCENT / 100.0 * (1.0 - o->collapse / 100.0);
  int64_t born = (int64_t)((double)(o->n / o->gens) / (1.0 + out_rate));
  if (born < 2)
    born = 2;
  int64_t start = p->n;
  for (int64_t k = 0; k < born && p->n < p->cap; k++)
    people_add(p, draw_gender(r), -1, -1, 0);
  int64_t gbeg = start, gend = p->n;
  int depth = 1;
  for (int g = 0; g + 1 < o->gens && p->n < p->cap && gend > gbeg; g++) {
    /* couples of generation g: (husband, wife) */
    int64_t members = gend - gbeg, ncouples = 0;
    int64_t *husband = malloc((size_t)members * sizeof *husband);
    int64_t *wife = malloc((size_t)members * sizeof *wife);
    if (!husband || !wife) {
      free(husband);
      free(wife);
      return -1;
    }
    for (int64_t i = gbeg; i < gend; i++) {
      if (p->married[i] || !gr_rng_chance(r, MARRY_PERCENT / 100.0))
        continue;
      int64_t spouse = -1;
      if (gr_rng_chance(r, o->collapse / 100.0)) {
        for (int64_t j = i + 1; j < gend && j <= i + RELATIVE_WINDOW; j++)
          if (!p->married[j] && p->gender[j] != p->gender[i] &&
              (p->father[j] != p->father[i] || p->father[i] < 0) &&
              (p->mother[j] != p->mother[i] || p->mother[i] < 0)) {
            spouse = j;
            break;
          }
      }
      if (spouse < 0) { /* an outsider marries in, without recorded parents */
        spouse = people_add(p, (int8_t)-p->gender[i], -1, -1, g);
        if (spouse < 0)
          break;
      }
      p->married[i] = p->married[spouse] = 1;
      husband[ncouples] = p->gender[i] < 0 ? i : spouse;
      wife[ncouples++] = p->gender[i] < 0 ? spouse : i;
    }
    /* children: about `born` of them in all */
    int64_t cbeg = p->n;
    double mean = ncouples ? (double)born / (double)ncouples : 0.0;
    for (int64_t c = 0; c < ncouples && p->n < p->cap; c++) {
      int64_t kids = gr_rng_range(r, 0, (int64_t)(2.0 * mean + 0.5));
      for (int64_t k = 0; k < kids && p->n < p->cap; k++) {
        int32_t f = (int32_t)husband[c], m = (int32_t)wife[c];
        if (gr_rng_chance(r, ONE_PARENT_PERCENT / 100.0)) {
          if (gr_rng_chance(r, 0.5))
            f = -1;
          else
            m = -1;
        }
        people_add(p, draw_gender(r), f, m, g + 1);
      }
    }
    free(husband);
    free(wife);
    gbeg = cbeg;
    gend = p->n;
    if (gend > gbeg)
      depth = g + 2;
  }
  return depth;
}

static int make_pedigree(struct people *p, const struct genealogy_opts *o, struct gr_rng *r)
{
  int64_t n = o->n;
  int depth = 0;
  for (int64_t i = 0; i < n; i++) {
    int8_t g = i == 0 ? draw_gender(r) : (i % 2 ? -1 : 1);
    int32_t f = 2 * i + 1 < n ? (int32_t)(2 * i + 1) : -1;
    int32_t m = 2 * i + 2 < n ? (int32_t)(2 * i + 2) : -1;
    int d = 0;
    for (int64_t x = i + 1; x > 1; x >>= 1)
      d++;
    people_add(p, g, f, m, d);
    if (d + 1 > depth)
      depth = d + 1;
  }
  /* collapse: p takes the parents of q = p - 2 (same gender, same generation) */
  for (int64_t i = 3; i < n; i++) {
    int64_t q = i - 2;
    if (p->gen[q] != p->gen[i] || p->father[q] < 0 || p->mother[q] < 0 || p->father[i] < 0)
      continue;
    if (gr_rng_chance(r, o->collapse / 100.0)) {
      p->father[i] = p->father[q];
      p->mother[i] = p->mother[q];
    }
  }
  return depth;
}

/* Make a person p the parent of one of its own ancestors (1 to 8 generations up). */
static void inject_cycle(struct people *p, struct gr_rng *r, struct genealogy_info *info)
{
  if (p->n < 2)
    return;
  int64_t start = gr_rng_range(r, 0, p->n - 1);
  for (int64_t t = 0; t < p->n; t++) {
    int64_t i = (start + t) % p->n;
    if (p->father[i] < 0 && p->mother[i] < 0)
      continue;
    int64_t a = i;
    int steps = (int)gr_rng_range(r, 1, 8);
    for (int s = 0; s < steps; s++) {
      int32_t f = p->father[a], m = p->mother[a];
      if (f < 0 && m < 0)
        break;
      a = f < 0 ? m : m < 0 ? f : (gr_rng_chance(r, 0.5) ? f : m);
    }
    if (p->gender[i] < 0)
      p->father[a] = (int32_t)i;
    else
      p->mother[a] = (int32_t)i;
    info->cycle_from = i;
    info->cycle_to = a;
    return;
  }
}

static int to_csr(const struct people *p, struct avos_csr *w, struct genealogy_info *info)
{
  int64_t nnz = p->n;
  for (int64_t i = 0; i < p->n; i++)
    nnz += (p->father[i] >= 0) + (p->mother[i] >= 0);
  if (avos_csr_alloc(w, (int32_t)p->n, (int32_t)p->n, nnz))
    return -1;
  int64_t q = 0;
  for (int64_t i = 0; i < p->n; i++) {
    int32_t col[3];
    int64_t val[3];
    int k = 0;
    col[k] = (int32_t)i;
    val[k++] = p->gender[i];
    if (p->father[i] >= 0) {
      col[k] = p->father[i];
      val[k++] = 2;
    }
    if (p->mother[i] >= 0) {
      col[k] = p->mother[i];
      val[k++] = 3;
    }
    for (int a = 1; a < k; a++) /* sort the (at most 3) entries by column */
      for (int b = a; b > 0 && col[b] < col[b - 1]; b--) {
        int32_t tc = col[b];
        col[b] = col[b - 1];
        col[b - 1] = tc;
        int64_t tv = val[b];
        val[b] = val[b - 1];
        val[b - 1] = tv;
      }
    for (int a = 0; a < k; a++) {
      w->indices[q] = col[a];
      w->values[q++] = val[a];
    }
    w->indptr[i + 1] = (int32_t)q;
    if (p->father[i] < 0 && p->mother[i] < 0)
      info->founders++;
  }
  info->edges = nnz - p->n;
  return 0;
}

int genealogy_generate(const struct genealogy_opts *o, struct avos_csr *w,
                       struct genealogy_info *info_out, char *why, size_t len)
{
  struct genealogy_info info = {0, 0, 0, -1, -1};
  memset(w, 0, sizeof *w);
  if (o->n < 0 || o->n > INT32_MAX - 1 || o->gens < 1 || o->collapse < 0 || o->collapse > 100) {
    gr_fmt(why, len, "bad genealogy options: n=%lld gens=%d collapse=%d (n in [0, 2^31-2], gens >= 1, "
        "collapse in [0, 100])", (long long)o->n, o->gens, o->collapse);
    return -1;
  }
  struct people p;
  struct gr_rng r;
  gr_rng_seed(&r, o->seed);
  if (people_init(&p, o->n))
    goto out_of_memory;
  if (o->shape == GENEALOGY_PEDIGREE) {
    info.depth = make_pedigree(&p, o, &r);
  } else {
    while (p.n < o->n) {
      int d = make_family(&p, o, &r);
      if (d < 0)
        goto out_of_memory;
      if (d > info.depth)
        info.depth = d;
    }
  }
  if (o->cycle)
    inject_cycle(&p, &r, &info);
  if (to_csr(&p, w, &info))
    goto out_of_memory;
  people_release(&p);
  if (info_out)
    *info_out = info;
  return 0;
out_of_memory:
  people_release(&p);
  gr_fmt(why, len, "out of host memory for a genealogy of %lld people", (long long)o->n);
  return -1;
}

int genealogy_validate(const struct avos_csr *w, char *why, size_t len)
{
  if (w->rows != w->cols) {
    gr_fmt(why, len, "relationship matrix is %d x %d, not square", w->rows, w->cols);
    return -1;
  }
  for (int32_t i = 0; i < w->rows; i++) {
    int64_t d = avos_csr_get(w, i, i);
    if (d != -1 && d != 1) {
      gr_fmt(why, len, "person %d: diagonal is %lld, not -1 (male) or 1 (female)", i, (long long)d);
      return -1;
    }
    int fathers = 0, mothers = 0;
    for (int32_t p = w->indptr[i]; p < w->indptr[i + 1]; p++) {
      int32_t j = w->indices[p];
      int64_t v = w->values[p];
      if (j == i)
        continue;
      int64_t gj = avos_csr_get(w, j, j);
      if (v == 2 && gj == -1)
        fathers++;
      else if (v == 3 && gj == 1)
        mothers++;
      else {
        gr_fmt(why, len, "person %d: entry %lld for person %d (%s) is neither a father (2, male) nor a "
            "mother (3, female)", i, (long long)v, j, gj == -1 ? "male" : "female");
        return -1;
      }
    }
    if (fathers > 1 || mothers > 1) {
      gr_fmt(why, len, "person %d has %d fathers and %d mothers", i, fathers, mothers);
      return -1;
    }
  }
  return 0;
}
