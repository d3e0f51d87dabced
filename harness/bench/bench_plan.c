/* The timing plan: which (algorithm, variant, bench case) items `gpuregress bench` times, in
 * which order and under which names, and the work model turned into rates. See bench.h. */
#define _GNU_SOURCE
#include "bench_plan.h"
#include "bench_hooks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile int bench_interrupted;

void bench_opts_default(struct bench_opts *o)
{
  memset(o, 0, sizeof *o);
  o->max_time = 1.0;
  o->noise = 0.005;
  o->min_samples = 30;
  o->max_samples = 10000;
  o->rounds = 3;
  o->watchdog = 300;
  o->display = 1;
}

/* ---- plan ---------------------------------------------------------------------------------- */

static int timed_kind(const struct gr_variant *v)
{
  return (v->flags & (GR_VARIANT_GPU | GR_VARIANT_HOST_TIMED)) &&
         (v->kind == GR_VARIANT_FIXED || v->kind == GR_VARIANT_HISTORICAL ||
          v->kind == GR_VARIANT_PEER);
}

static int has_hooks(const struct gr_algorithm *a)
{
#ifdef GR_HOST_ONLY /* the GPU hooks are NULL (GR_IF_CUDA): the GPU variants are planned all the */
  if (a->bench_cases) /* same and skip as without a GPU ("built without CUDA", host_only.c) */
    return 1;
#endif
  struct bench_hooks h;
  return a->bench_cases && bench_hooks_of(a, &h);
}

/* A size index: decimal digits only (no blank, no sign), at most 255. 0 ok, -1 not one. */
static int size_index(const char *s, const char *end, long *out)
{
  long v = 0;
  if (s == end)
    return -1;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9' || v > 255)
      return -1;
    v = v * 10 + (*s - '0');
  }
  *out = v;
  return 0;
}

/* Parse "0,2,4-6" into a mask over n cases; *top gets the largest index asked for (the caller
 * refuses one beyond every selected sweep). 0 ok, -1 with why (an empty item, a sign, a blank,
 * a reversed range). */
static int parse_sizes(const char *sizes, size_t n, unsigned char *mask, long *top, char *why,
                       size_t len)
{
  const char *tok = sizes;
  for (;;) {
    const char *comma = strchr(tok, ',');
    const char *end = comma ? comma : tok + strlen(tok);
    const char *dash = memchr(tok, '-', (size_t)(end - tok));
    long lo, hi;
    if (size_index(tok, dash ? dash : end, &lo) ||
        (dash ? size_index(dash + 1, end, &hi) || hi < lo : (hi = lo, 0))) {
      gr_fmt(why, len,
             "bad size '%.*s' in '--sizes %s': use indices into the sweep (0 = smallest), e.g. "
             "0,2-3",
             (int)(end - tok), tok, sizes);
      return -1;
    }
    for (long i = lo; i <= hi; i++)
      if ((size_t)i < n)
        mask[i] = 1;
    *top = hi > *top ? hi : *top;
    if (!comma)
      return 0;
    tok = comma + 1;
  }
}

static int plan_add(struct bench_plan *p, size_t *cap, const struct gr_algorithm *a,
                    const struct gr_variant *v, const struct gr_case *c, int case_no)
{
  if (p->n == *cap) {
    size_t nc = *cap ? 2 * *cap : 64;
    struct bench_item *ni = realloc(p->items, nc * sizeof *ni);
    if (!ni)
      return -1;
    p->items = ni;
    *cap = nc;
  }
  struct bench_item *it = &p->items[p->n++];
  memset(it, 0, sizeof *it);
  it->alg = a;
  it->v = v;
  it->c = *c;
  it->case_no = case_no;
  case_params_text(c, it->params, sizeof it->params);
  /* Google Benchmark style: alg/variant/param=value/... */
  int k = snprintf(it->name, sizeof it->name, "%s/%s/%s", a->name, v->name, it->params);
  for (char *s = it->name; k > 0 && *s; s++)
    if (*s == ' ')
      *s = '/';
  if (c->seed != 1)
    snprintf(it->name + strlen(it->name), sizeof it->name - strlen(it->name), "/seed=%llu",
             (unsigned long long)c->seed);
  return 0;
}

/* What bench_plan_new was asked (the selection, --sizes, --quick, --case) and what its steps
 * gather: the items' capacity, the largest size asked, the longest sweep. */
struct plan_req {
  const struct gr_algorithm *const *algs;
  const struct gr_variant *const *vs;
  size_t n;
  const char *sizes;
  int quick;
  const char *const *cases;
  size_t n_cases;
  size_t cap, longest;
  long top;
};

/* The cases of algorithm a's sweep that are timed (mask, nc of them): those --sizes names, else
 * all (quick: the two smallest and the real-data ones); none where explicit cases replace the
 * sweep. 0, -1 with why (a bad size list). */
static int sweep_mask(struct plan_req *q, const struct gr_algorithm *a, unsigned char *mask,
                      size_t *nc_out, char *why, size_t len)
{
  size_t nc = 0;
  while (a->bench_cases[nc])
    nc++;
  if (nc > 256)
    nc = 256;
  q->longest = nc > q->longest ? nc : q->longest;
  if (q->sizes) {
    if (parse_sizes(q->sizes, nc, mask, &q->top, why, len))
      return -1;
  } else {
    for (size_t k = 0; k < nc; k++) /* quick: the two smallest, and the real-data cases */
      mask[k] = !q->quick || k < 2 || strstr(a->bench_cases[k], "=data:");
  }
  if (q->n_cases && !q->sizes)
    memset(mask, 0, 256); /* explicit cases replace the sweep */
  *nc_out = nc;
  return 0;
}

/* Algorithm a's items: each case timed (its sweep's chosen ones, then the explicit ones that
 * name a) with each timed variant of a in the selection. A real-data case whose dataset is not
 * fetched is skipped and listed. 0, -1 with why, -2 out of memory. */
static int plan_algorithm(struct bench_plan *p, struct plan_req *q, const struct gr_algorithm *a,
                          char *why, size_t len)
{
  unsigned char mask[256] = {0};
  size_t nc;
  if (sweep_mask(q, a, mask, &nc, why, len))
    return -1;
  for (size_t k = 0; k < nc + q->n_cases; k++) {
    struct gr_case c;
    if (k < nc && !mask[k])
      continue;
    const char *text = k < nc ? a->bench_cases[k] : q->cases[k - nc];
    int prc = case_parse(text, &c, why, len);
    if (prc == -2 && k < nc) { /* a real-data case whose dataset is not fetched: skipped */
      if (p->n_skipped < BENCH_MAX_SKIPPED)
        gr_fmt(p->skipped[p->n_skipped++], sizeof p->skipped[0], "%s: skipped: %s", text, why);
      continue;
    }
    if (prc) {
      if (k < nc) /* the algorithm's own table: a bug, say whose */
        snprintf(why + strlen(why), len - strlen(why), " (bench case of '%s')", a->name);
      return -1;
    }
    if (c.alg != a)
      continue;
    if (case_validate(&c, why, len))
      return -1;
    for (size_t j = 0; j < q->n; j++)
      if (q->algs[j] == a && timed_kind(q->vs[j]) &&
          plan_add(p, &q->cap, a, q->vs[j], &c, (int)k))
        return -2;
  }
  return 0;
}

/* The plan made is usable: --sizes within some sweep, something to time, every explicit case of
 * an algorithm planned. 0, -1 with why. */
static int plan_check(const struct bench_plan *p, const struct plan_req *q, int any_alg,
                      char *why, size_t len)
{
  if (q->sizes && any_alg && q->top >= (long)q->longest) {
    gr_fmt(why, len,
           "size %ld in '--sizes %s' is beyond every selected sweep (the longest has %zu sizes: "
           "0..%zu)",
           q->top, q->sizes, q->longest, q->longest - 1);
    return -1;
  }
  if (p->n == 0 && p->n_skipped) {
    gr_fmt(why, len, "nothing to time: %s", p->skipped[0]);
    return -1;
  }
  if (p->n == 0) {
    gr_fmt(why, len, "%s",
           any_alg ? "nothing to time: no GPU variant (fixed, historical or peer) of the selection "
                     "at the chosen sizes"
                   : "nothing to time: no selected algorithm has timing hooks (see 'gpuregress list')");
    return -1;
  }
  /* explicit cases of an algorithm not selected are an error: they would be silently dropped */
  for (size_t k = 0; k < q->n_cases; k++) {
    struct gr_case c;
    if (case_parse(q->cases[k], &c, why, len))
      return -1;
    int found = 0;
    for (size_t i = 0; i < p->n; i++)
      found |= p->items[i].alg == c.alg;
    if (!found) {
      gr_fmt(why, len, "case '%s': algorithm '%s' is not selected or has no timing hooks",
             q->cases[k], c.alg->name);
      return -1;
    }
  }
  return 0;
}

int bench_plan_new(const struct gr_algorithm *const *algs, const struct gr_variant *const *vs,
                   size_t n, const char *sizes, int quick, const char *const *cases, size_t n_cases,
                   struct bench_plan **out, char *why, size_t len)
{
  struct bench_plan *p = calloc(1, sizeof *p);
  struct plan_req q = {algs, vs, n, sizes, quick, cases, n_cases, 0, 0, -1};
  if (!p)
    goto oom;
  const struct gr_algorithm *seen[64];
  size_t n_seen = 0;
  int any_alg = 0;
  for (size_t i = 0; i < n; i++) {
    const struct gr_algorithm *a = algs[i];
    int dup = 0;
    for (size_t j = 0; j < n_seen; j++)
      dup |= seen[j] == a;
    if (dup || n_seen == sizeof seen / sizeof *seen)
      continue;
    seen[n_seen++] = a;
    if (!has_hooks(a))
      continue;
    any_alg = 1;
    int rc = plan_algorithm(p, &q, a, why, len);
    if (rc == -2)
      goto oom;
    if (rc)
      goto fail;
  }
  if (plan_check(p, &q, any_alg, why, len))
    goto fail;
  p->res = calloc(p->n, sizeof *p->res);
  if (!p->res)
    goto oom;
  *out = p;
  return 0;
oom:
  gr_fmt(why, len, "out of memory");
fail:
  bench_plan_free(p);
  return -1;
}

void bench_plan_free(struct bench_plan *p)
{
  if (!p)
    return;
  free(p->items);
  free(p->res);
  free(p);
}

int bench_round_floor(int rounds)
{
  int r = rounds > 1 ? rounds : 1, f = (6 + r - 1) / r;
  return f < 3 ? 3 : f;
}

int bench_rounds(int asked, double sample_ms, double max_time)
{
  int r = asked > 1 ? asked : 1;
  while (r > 1 && (double)bench_round_floor(r) * r * sample_ms * 1e-3 > max_time)
    r--;
  return r;
}

int bench_claim(const struct bench_plan *p, size_t i)
{
  int seen = 0, *slot = p->claim ? &p->claim[p->group[i]] : NULL;
  return !slot || __atomic_compare_exchange_n(slot, &seen, p->claim_tag, 0, __ATOMIC_ACQ_REL,
                                              __ATOMIC_ACQUIRE) || seen == p->claim_tag;
}

const struct bench_peak *bench_peak_of(const struct bench_plan *p, const struct gr_algorithm *a)
{
  for (size_t i = 0; i < p->n_peaks; i++)
    if (p->peaks[i].alg == a)
      return &p->peaks[i];
  return NULL;
}

void bench_rates(const struct bench_plan *p, const struct bench_item *it, double median_ms,
                 struct bench_rate *r)
{
  memset(r, 0, sizeof *r);
  if (it->alg->work)
    it->alg->work(&it->c, &r->bytes, &r->items);
  const struct bench_peak *pk = bench_peak_of(p, it->alg);
  r->peak_items_per_s = pk ? pk->items_per_s : 0;
  double sec = median_ms * 1e-3;
  if (sec > 0) {
    r->gbps = r->bytes / sec / 1e9;
    r->items_per_s = r->items / sec;
    r->pct_copy = p->copy_gbps > 0 ? 100 * r->gbps / p->copy_gbps : 0;
    r->pct_peak = r->peak_items_per_s > 0 ? 100 * r->items_per_s / r->peak_items_per_s : 0;
  }
}

void bench_result_rates(struct bench_plan *p, size_t i)
{
  struct bench_result *r = &p->res[i];
  struct bench_rate rate;
  bench_rates(p, &p->items[i], r->s.median, &rate);
  r->bytes = rate.bytes;
  r->items = rate.items;
  r->gbps = rate.gbps;
  r->items_per_s = rate.items_per_s;
  r->pct_copy = rate.pct_copy;
  r->peak_items_per_s = rate.peak_items_per_s;
  r->pct_peak = rate.pct_peak;
}

/* The lanes' turns and take-overs (bench --gpus, bench_lanes.c): see bench_plan.h. */

void bench_turn_wait(const int *turns, int mine, double stall)
{
  int last = -1;
  double since = now_seconds();
  for (;;) {
    int over = __atomic_load_n(turns, __ATOMIC_ACQUIRE);
    if (over >= mine)
      return;
    if (over != last) {
      last = over;
      since = now_seconds();
    } else if (now_seconds() - since > stall) {
      return;
    }
    struct timespec nap = {0, 500000};
    nanosleep(&nap, NULL);
  }
}

void bench_turn_pass(int *turns) { __atomic_add_fetch(turns, 1, __ATOMIC_ACQ_REL); }

void bench_lane_started(struct bench_plan *p, int ok)
{
  if (!p->turns)
    return;
  if (p->ready_at && ok) {
    double t = now_seconds();
    __atomic_store(&p->ready_at[p->claim_tag - 1], &t, __ATOMIC_RELEASE);
  }
  bench_turn_pass(p->turns);
  if (!ok) {
    double never = INFINITY;
    __atomic_store(&p->free_at[p->claim_tag - 1], &never, __ATOMIC_RELEASE);
  }
}

/* What building group g's case will cost in a lane that has not built it (bench_take): its
 * own build where a lane built it, else the longest build of a case of its algorithm, else 0. */
static double build_guess(const struct bench_plan *p, size_t g)
{
  const struct gr_algorithm *a = NULL;
  double mine = 0, most = 0, t;
  if (!p->built_s)
    return 0;
  for (size_t k = 0; k < p->n && !a; k++)
    a = p->group[k] == g ? p->items[k].alg : NULL;
  for (size_t k = 0; k < p->n; k++) {
    if (p->items[k].alg != a)
      continue;
    __atomic_load(&p->built_s[p->group[k]], &t, __ATOMIC_ACQUIRE);
    mine = p->group[k] == g ? t : mine;
    most = t > most ? t : most;
  }
  return mine > 0 ? mine : most;
}

/* The build its owner still has to do for group g: none where its case is built (built_s). */
static double owner_build(const struct bench_plan *p, size_t g)
{
  double t = 0;
  if (p->built_s)
    __atomic_load(&p->built_s[g], &t, __ATOMIC_ACQUIRE);
  return t > 0 ? 0 : build_guess(p, g);
}

double bench_owner_begin(const struct bench_plan *p, size_t g, double now, size_t *owner)
{
  const struct bench_lists *l = p->lists;
  for (size_t j = 0; j < p->jobs; j++) {
    const size_t *gid = l->gid + l->start[j];
    double t;
    __atomic_load(&p->free_at[j], &t, __ATOMIC_ACQUIRE);
    t = t > now ? t : now;
    for (size_t k = 0; k < l->n_own[j]; k++) {
      if (k > 0 && gid[k] == gid[k - 1])
        continue;
      if (gid[k] == g) {
        *owner = j;
        return t;
      }
      if (!__atomic_load_n(&p->claim[gid[k]], __ATOMIC_ACQUIRE))
        t += p->gcost[gid[k]] + owner_build(p, gid[k]);
    }
  }
  *owner = p->jobs;
  return now;
}

void bench_built(const struct bench_plan *p, size_t i, double seconds)
{
  if (p->built_s)
    __atomic_store(&p->built_s[p->group[i]], &seconds, __ATOMIC_RELEASE);
}

int bench_take(const struct bench_plan *p, size_t i, double now, size_t *declined)
{
  if (!p->claim)
    return 1;
  size_t g = p->group[i], owner;
  int seen = __atomic_load_n(&p->claim[g], __ATOMIC_ACQUIRE);
  if (seen == p->claim_tag)
    return 1;
  if (seen || (i >= p->n_own && g == *declined))
    return 0;
  if (i >= p->n_own && p->lists && p->free_at) {
    /* this lane would end it at now + build + gcost, its owner at begin + its build + gcost */
    double begin = bench_owner_begin(p, g, now, &owner);
    if (owner < p->jobs && now + build_guess(p, g) >= begin + owner_build(p, g)) {
      *declined = g;
      return 0;
    }
  }
  if (!bench_claim(p, i))
    return 0;
  if (i < p->n_own && p->free_at) {
    double at = now + p->gcost[g] + owner_build(p, g);
    __atomic_store(&p->free_at[p->claim_tag - 1], &at, __ATOMIC_RELEASE);
  }
  return 1;
}
