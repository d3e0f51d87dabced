/* Shards of a night: the split and the scheduler's variables. See shard.h. */
#define _GNU_SOURCE
#include "shard.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_plan.h"
#include "gr.h"

static uint64_t fnv1a(const char *s, uint64_t h)
{
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

static uint64_t mix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A whole decimal number in [lo, hi] from s. 0 ok. */
static int num(const char *s, long lo, long hi, long *out)
{
  int64_t v;
  if (!s || gr_parse_i64(s, &v) || v < lo || v > hi)
    return -1;
  *out = (long)v;
  return 0;
}

#define SHARD_MAX 100000

static int set(struct shard *sh, long k, long n, const char *source, char *why, size_t len)
{
  if (n < 1 || n > SHARD_MAX || k < 1 || k > n) {
    gr_fmt(why, len, "%s gives shard %ld of %ld: expected 1 <= K <= N <= %d", source, k, n,
           SHARD_MAX);
    return -1;
  }
  sh->index = (int)k;
  sh->count = (int)n;
  gr_fmt(sh->source, sizeof sh->source, "%s", source);
  return 0;
}

/* "K/N" */
static int parse_kn(const char *spec, const char *source, struct shard *sh, char *why, size_t len)
{
  char k[32], n[32];
  const char *slash = strchr(spec, '/');
  long kv, nv;
  if (!slash || (size_t)(slash - spec) >= sizeof k || strlen(slash + 1) >= sizeof n) {
    gr_fmt(why, len, "%s '%s': expected K/N (shard K of N, 1 <= K <= N) or auto", source, spec);
    return -1;
  }
  gr_fmt(k, sizeof k, "%.*s", (int)(slash - spec), spec);
  gr_fmt(n, sizeof n, "%s", slash + 1);
  if (num(k, 1, SHARD_MAX, &kv) || num(n, 1, SHARD_MAX, &nv)) {
    gr_fmt(why, len, "%s '%s': expected K/N with whole numbers, 1 <= K <= N <= %d", source, spec,
           SHARD_MAX);
    return -1;
  }
  return set(sh, kv, nv, source, why, len);
}

/* The scheduler's variables (shard.h). 0 found; 1 none; -1 with why. */
static int from_env(struct shard *sh, char *why, size_t len)
{
  const char *id = getenv("SLURM_ARRAY_TASK_ID"), *v;
  long k, n, lo = 0, step = 1;
  if (id && *id) {
    if (num(id, 0, 1L << 40, &k) || num(getenv("SLURM_ARRAY_TASK_COUNT"), 1, SHARD_MAX, &n) ||
        ((v = getenv("SLURM_ARRAY_TASK_MIN")) && *v && num(v, 0, 1L << 40, &lo)) ||
        ((v = getenv("SLURM_ARRAY_TASK_STEP")) && *v && num(v, 1, 1L << 40, &step))) {
      gr_fmt(why, len, "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_ID/COUNT/MIN/STEP are not "
                       "whole numbers (COUNT >= 1)");
      return -1;
    }
    if (k < lo || (k - lo) % step) {
      gr_fmt(why, len, "SLURM_ARRAY_TASK_ID %ld is not in the array (MIN %ld, STEP %ld)", k, lo,
             step);
      return -1;
    }
    return set(sh, (k - lo) / step + 1, n, "SLURM_ARRAY_TASK_ID", why, len) ? -1 : 0;
  }
  if ((id = getenv("JOB_COMPLETION_INDEX")) && *id) {
    if (num(id, 0, SHARD_MAX - 1, &k) || num(getenv("GPUREGRESS_SHARD_COUNT"), 1, SHARD_MAX, &n)) {
      gr_fmt(why, len, "JOB_COMPLETION_INDEX is set: GPUREGRESS_SHARD_COUNT must give the Job's "
                       "completions (a whole number >= 1), and the index a whole number");
      return -1;
    }
    return set(sh, k + 1, n, "JOB_COMPLETION_INDEX", why, len) ? -1 : 0;
  }
  if ((id = getenv("CI_NODE_INDEX")) && *id) {
    if (num(id, 1, SHARD_MAX, &k) || num(getenv("CI_NODE_TOTAL"), 1, SHARD_MAX, &n)) {
      gr_fmt(why, len, "CI_NODE_INDEX is set but CI_NODE_INDEX/CI_NODE_TOTAL are not whole "
                       "numbers >= 1");
      return -1;
    }
    return set(sh, k, n, "CI_NODE_INDEX", why, len) ? -1 : 0;
  }
  if ((v = getenv("GPUREGRESS_SHARD")) && *v && strcmp(v, "auto") != 0)
    return parse_kn(v, "GPUREGRESS_SHARD", sh, why, len) ? -1 : 0;
  return 1;
}

int shard_parse(const char *spec, struct shard *sh, char *why, size_t len)
{
  memset(sh, 0, sizeof *sh);
  if (strcmp(spec, "auto") == 0) {
    int r = from_env(sh, why, len);
    if (r == 1)
      gr_fmt(why, len, "--shard auto: no scheduler variable found (SLURM_ARRAY_TASK_ID, "
                       "JOB_COMPLETION_INDEX with GPUREGRESS_SHARD_COUNT, CI_NODE_INDEX, "
                       "GPUREGRESS_SHARD)");
    return r ? -1 : 0;
  }
  return parse_kn(spec, "--shard", sh, why, len);
}

int shard_default(struct shard *sh, char *why, size_t len)
{
  const char *v = getenv("GPUREGRESS_SHARD");
  memset(sh, 0, sizeof *sh);
  if (!v || !*v)
    return 0;
  if (strcmp(v, "auto") == 0)
    return shard_parse(v, sh, why, len);
  return parse_kn(v, "GPUREGRESS_SHARD", sh, why, len);
}

struct keyed {
  uint64_t key;
  size_t i;
};

static int by_key(const void *a, const void *b)
{
  const struct keyed *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key ? 1 : x->i < y->i ? -1 : x->i > y->i;
}

void shard_select(struct selection *sel, const struct shard *sh, uint64_t seed)
{
  if (sh->count <= 0)
    return;
  struct keyed k[256];
  size_t n = 0;
  for (int gpu = 1; gpu >= 0; gpu--) /* GPU variants dealt first, then the CPU ones */
    for (size_t i = 0; i < sel->n; i++) {
      if (!!(sel->v[i]->flags & GR_VARIANT_GPU) != gpu)
        continue;
      char name[160];
      gr_fmt(name, sizeof name, "%s/%s", sel->alg[i]->name, sel->v[i]->name);
      k[n++] = (struct keyed){mix64(fnv1a(name, 0xcbf29ce484222325ull) ^ mix64(seed)), i};
    }
  size_t n_gpu = 0;
  for (size_t i = 0; i < sel->n; i++)
    n_gpu += (sel->v[i]->flags & GR_VARIANT_GPU) != 0;
  qsort(k, n_gpu, sizeof *k, by_key);
  qsort(k + n_gpu, n - n_gpu, sizeof *k, by_key);
  char keep[256] = {0};
  for (size_t p = 0; p < n; p++)
    if ((int)(p % (size_t)sh->count) == sh->index - 1)
      keep[k[p].i] = 1;
  size_t m = 0;
  for (size_t i = 0; i < sel->n; i++)
    if (keep[i]) {
      sel->alg[m] = sel->alg[i];
      sel->v[m++] = sel->v[i];
    }
  sel->n = m;
}

/* The timing plan's share (shard_bench_plan): its (algorithm, case) groups, their cost (the
 * number of benchmarks) and their tie order. */
struct shard_group {
  size_t first, count; /* items [first, first + count) of the plan */
  uint64_t key;        /* the tie order */
};

static int by_cost(const void *a, const void *b)
{
  const struct shard_group *x = a, *y = b;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

int shard_bench_plan(struct bench_plan *p, const struct shard *sh, uint64_t seed, size_t *groups,
                     size_t *kept)
{
  struct shard_group *g = calloc(p->n ? p->n : 1, sizeof *g);
  int n = sh->count, k = sh->index;
  size_t *load = calloc((size_t)(n > 0 ? n : 1), sizeof *load);
  unsigned char *keep = calloc(p->n ? p->n : 1, 1);
  size_t ng = 0, m = 0;
  if (!g || !load || !keep) {
    free(g), free(load), free(keep);
    return -1;
  }
  for (size_t i = 0; i < p->n; i++) {
    const struct bench_item *it = &p->items[i];
    if (!ng || it->alg != p->items[i - 1].alg || it->case_no != p->items[i - 1].case_no) {
      uint64_t h = fnv1a(it->params, fnv1a(it->alg->name, 0xcbf29ce484222325ull));
      g[ng++] = (struct shard_group){i, 0, mix64(h ^ mix64(seed))};
    }
    g[ng - 1].count++;
  }
  qsort(g, ng, sizeof *g, by_cost);
  size_t mine = 0;
  for (size_t q = 0; q < ng; q++) {
    int best = 0;
    for (int s = 1; s < n; s++)
      best = load[s] < load[best] ? s : best;
    load[best] += g[q].count;
    if (best == k - 1) {
      mine++;
      for (size_t i = 0; i < g[q].count; i++)
        keep[g[q].first + i] = 1;
    }
  }
  for (size_t i = 0; i < p->n; i++)
    if (keep[i])
      p->items[m++] = p->items[i];
  p->n = m; /* res (calloc'd, nothing run yet) keeps its length: zeroed entries beyond n */
  *groups = ng;
  *kept = mine;
  free(g), free(load), free(keep);
  return 0;
}

static void utc_date(char *buf, size_t len)
{
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, len, "%Y-%m-%d", &tm);
}

uint64_t shard_night_seed(const char *commit)
{
  char d[16];
  utc_date(d, sizeof d);
  /* a seed as a person would type it: below 2^53 keeps it exact in JSON readers */
  return mix64(fnv1a(d, fnv1a(commit, 0xcbf29ce484222325ull))) >> 11;
}

char *shard_night_id(char *buf, size_t len, const char *commit, uint64_t seed)
{
  char d[16];
  utc_date(d, sizeof d);
  return gr_fmt(buf, len, "%s-%.12s-%llu", d, commit && *commit ? commit : "unknown",
                (unsigned long long)seed);
}

int shard_night_valid(const char *id)
{
  size_t n = strlen(id);
  if (n < 1 || n > 100)
    return -1;
  for (const char *p = id; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("._-:+", *p))
      return -1;
  return 0;
}
