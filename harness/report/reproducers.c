/* The reproducers folder of a night (reproducers.h): case texts and commands from the store's
 * outcomes and the verdict's slower timings, the baseline's samples copied by store_copy_run.
 * Every value is written as one printable line; every file goes through outfile.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "gr.h"
#include "outfile.h"
#include "reproducers.h"
#include "stats.h"
#include "store.h"
#include "verdict.h"

struct rp {
  struct store *st;
  const struct run_verdict *v;
  const char *dir, *runner; /* the runner's name; runner_word: as a command word */
  char runner_word[160];
  size_t n;
  char *why;
  size_t len;
};

/* "key: value" with value as one printable line (newlines and control bytes escaped). */
static void kv(FILE *f, const char *key, const char *value)
{
  char buf[4 * 1024 + 64];
  gr_printable(buf, sizeof buf, value ? value : "");
  fprintf(f, "%s: %s\n", key, buf);
}

/* The lines every reproducer has: where it was seen. */
static void provenance(FILE *f, const struct rp *x)
{
  const struct store_run *r = &x->v->run;
  char b[64];
  kv(f, "runner", x->runner);
  kv(f, "commit", r->commit); /* of the code under test */
  if (r->gr_version[0] || r->gr_commit[0])
    kv(f, "gpuregress", gr_fmt(b, sizeof b, "%s %s", r->gr_version, r->gr_commit));
  kv(f, "dirty", r->dirty ? "yes" : "no");
  kv(f, "gpu", r->gpu[0] ? r->gpu : "none");
  kv(f, "driver", r->driver_release[0] ? r->driver_release
                  : r->driver ? gr_fmt(b, sizeof b, "%d.%d", r->driver / 1000, r->driver % 1000 / 10)
                              : "unknown");
  kv(f, "host", r->host);
  kv(f, "run", gr_fmt(b, sizeof b, "%lld %s", (long long)r->id, r->started));
}

static int begin(struct rp *x, struct outfile *o, const char *name)
{
  char path[4096];
  gr_fmt(path, sizeof path, "%s/%s", x->dir, name);
  if (outfile_open(o, path, x->why, x->len))
    return -1;
  fprintf(o->f, "gpuregress-reproducer %d\n", REPRODUCER_VERSION);
  return 0;
}

static int mkdir_ok(const char *path, char *why, size_t len)
{
  if (mkdir(path, 0777) == 0 || errno == EEXIST)
    return 0;
  gr_fmt(why, len, "cannot make the folder '%s': %s", path, strerror(errno));
  return -1;
}

static int one_outcome(void *ctx, const struct store_outcome *oc)
{
  struct rp *x = ctx;
  const char *kase = oc->shrunk_case && oc->shrunk_case[0] ? oc->shrunk_case : oc->first_case;
  if (!kase || !kase[0] || !oc->verdict || !strcmp(oc->verdict, "pass") ||
      !strcmp(oc->verdict, "skip"))
    return 0;
  char slug_a[80], slug_v[80], name[256], q[2 * 1024], qv[256], cmd[4096];
  gr_fmt(name, sizeof name, "%02zu-%s-%s.txt", x->n + 1, gr_slug(slug_a, sizeof slug_a, oc->algorithm),
         gr_slug(slug_v, sizeof slug_v, oc->variant));
  struct outfile o;
  if (begin(x, &o, name))
    return -1;
  kv(o.f, "kind", "correctness");
  kv(o.f, "algorithm", oc->algorithm);
  kv(o.f, "variant", oc->variant);
  kv(o.f, "variant_kind", oc->kind);
  kv(o.f, "verdict", oc->verdict);
  kv(o.f, "case", kase);
  kv(o.f, "reason", oc->reason);
  provenance(o.f, x);
  gr_sh_quote(q, sizeof q, kase);
  gr_sh_quote(qv, sizeof qv, oc->variant);
  kv(o.f, "command", gr_fmt(cmd, sizeof cmd, "%s repro %s --variant %s", x->runner_word, q, qv));
  kv(o.f, "expect", "exit 1 while the bug is there (a historical variant: caught), 0 once fixed");
  if (outfile_commit(&o, x->why, x->len))
    return -1;
  x->n++;
  return 0;
}

void reproducer_slower_name(char *dst, size_t len, const char *algorithm, const char *variant,
                            const char *params, uint64_t seed, const char *l2)
{
  char slug_a[80], slug_v[80], key[GR_CASE_TEXT_LEN + 64];
  gr_fmt(key, sizeof key, "%s seed=%llu %s", params, (unsigned long long)seed, l2);
  uint32_t h = 2166136261u; /* FNV-1a */
  for (const unsigned char *c = (const unsigned char *)key; *c; c++)
    h = (h ^ *c) * 16777619u;
  gr_fmt(dst, len, "slower-%s-%s-%08x", gr_slug(slug_a, sizeof slug_a, algorithm),
         gr_slug(slug_v, sizeof slug_v, variant), (unsigned)h);
}

/* A slower benchmark to write: tonight's slower timing or a regression still open on this night */
struct slow {
  const char *algorithm, *variant, *params, *l2, *base_commit, *base_gpu, *source;
  uint64_t seed;
  struct store *from; /* where base_run is: the night's database, or the baseline file's */
  int64_t base_run;   /* the run whose samples baseline.db carries; 0: none */
  double ratio, p, base_ms, cur_ms;
};

static int one_slower(struct rp *x, const struct slow *w)
{
  char sub[256], folder[4096], db[4096];
  reproducer_slower_name(sub, sizeof sub, w->algorithm, w->variant, w->params, w->seed, w->l2);
  gr_fmt(folder, sizeof folder, "%s/%s", x->dir, sub);
  if (mkdir_ok(folder, x->why, x->len))
    return -1;
  /* the baseline's samples: that benchmark alone of the baseline run (bench --against FILE
   * reads it as it reads any database from elsewhere: checked, read-only) */
  int have_db = 0;
  if (w->base_run > 0) {
    gr_fmt(db, sizeof db, "%s/baseline.db", folder);
    if (remove(db) && errno != ENOENT) {
      gr_fmt(x->why, x->len, "cannot replace '%s': %s", db, strerror(errno));
      return -1;
    }
    if (store_copy_timing(w->from, w->base_run, w->algorithm, w->variant, w->params, w->l2, db,
                          x->why, x->len))
      return -1;
    have_db = 1;
  }
  char name[512], kase[GR_CASE_TEXT_LEN + 64], q[2 * 1024], qs[400], cmd[4096], b[256];
  gr_fmt(name, sizeof name, "%s/reproducer.txt", sub);
  struct outfile o;
  if (begin(x, &o, name))
    return -1;
  gr_fmt(kase, sizeof kase, "%s %s seed=%llu", w->algorithm, w->params,
         (unsigned long long)w->seed);
  kv(o.f, "kind", "slowdown");
  kv(o.f, "algorithm", w->algorithm);
  kv(o.f, "variant", w->variant);
  kv(o.f, "case", kase);
  kv(o.f, "l2", w->l2);
  if (w->source)
    kv(o.f, "open_regression", w->source);
  kv(o.f, "ratio", gr_fmt(b, sizeof b, "%.4f", w->ratio));
  kv(o.f, "p", gr_fmt(b, sizeof b, "%.3g", w->p));
  kv(o.f, "median_ms", gr_fmt(b, sizeof b, "%.6g -> %.6g", w->base_ms, w->cur_ms));
  kv(o.f, "baseline_commit", w->base_commit);
  kv(o.f, "baseline_gpu", w->base_gpu);
  kv(o.f, "samples", have_db ? "baseline.db" : "none (the baseline came from another file)");
  provenance(o.f, x);
  gr_fmt(b, sizeof b, "%s/%s", w->algorithm, w->variant);
  gr_sh_quote(qs, sizeof qs, b);
  gr_sh_quote(q, sizeof q, kase);
  kv(o.f, "command", gr_fmt(cmd, sizeof cmd, "%s bench %s --case %s%s --db local.db%s", x->runner_word,
                            qs, q, strcmp(w->l2, "hot") ? "" : " --hot",
                            have_db ? " --against baseline.db" : ""));
  kv(o.f, "expect", "run in this folder on the GPU model above: exit 1 while it is slower");
  if (outfile_commit(&o, x->why, x->len))
    return -1;
  x->n++;
  return 0;
}

/* A regression open on this night that was not found slower against tonight's baseline (carried
 * from an earlier night, or a step of the history): its folder carries the benchmark of the run
 * it is measured against, so that its printed command (verdict_open.c) travels too. */
static int one_open(struct rp *x, const struct rv_open *e)
{
  const struct store_open_reg *r = &e->reg;
  struct store_run b;
  int64_t base = r->base_run > 0 ? r->base_run : r->opened_run;
  if (e->fresh || e->closed || base <= 0 || store_get_run(x->st, STORE_MAIN, base, &b))
    return 0;
  struct slow w = {r->algorithm, r->variant, r->params, r->l2, b.commit, b.gpu,
                   e->history_new ? "a step over the nights" : "carried from an earlier night",
                   r->seed, x->st, base, r->cur_ms > 0 ? r->cur_ms / r->ref_ms : 0, r->p, r->ref_ms,
                   r->cur_ms};
  return one_slower(x, &w);
}

int reproducer_read(const char *path, struct reproducer *r, char *why, size_t len)
{
  memset(r, 0, sizeof *r);
  FILE *f = fopen(path, "r");
  if (!f) {
    gr_fmt(why, len, "cannot read '%s': %s", path, strerror(errno));
    return -1;
  }
  static char buf[REPRODUCER_MAX_BYTES + 2];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  int kind = -1, lineno = 0;
  char first[64];
  gr_fmt(first, sizeof first, "gpuregress-reproducer %d", REPRODUCER_VERSION);
  if (n > REPRODUCER_MAX_BYTES) {
    gr_fmt(why, len, "'%s' is over %d bytes: not a reproducer", path, REPRODUCER_MAX_BYTES);
    return -1;
  }
  if (strlen(buf) != n) {
    gr_fmt(why, len, "'%s' holds bytes a reproducer file never has (NUL, control, not UTF-8)", path);
    return -1;
  }
  for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    if (!gr_is_printable(l)) {
      gr_fmt(why, len, "'%s' line %d holds bytes a reproducer never has (control, not UTF-8)",
             path, lineno + 1);
      return -1;
    }
    if (++lineno == 1) {
      if (strcmp(l, first)) {
        gr_fmt(why, len, "'%s': the first line is not '%s' (not a reproducer, or another version)",
               path, first);
        return -1;
      }
      continue;
    }
    char *colon = strstr(l, ": ");
    if (!colon)
      continue; /* only key: value lines carry meaning; others are ignored */
    *colon = 0;
    const char *value = colon + 2;
    if (!strcmp(l, "kind")) {
      kind = !strcmp(value, "slowdown") ? 1 : !strcmp(value, "correctness") ? 0 : -2;
      if (kind == -2) {
        gr_fmt(why, len, "'%s' line %d: unknown kind '%.40s'", path, lineno, value);
        return -1;
      }
    } else if (!strcmp(l, "l2")) {
      r->hot = !strcmp(value, "hot");
    } else if (!strcmp(l, "case") || !strcmp(l, "variant")) {
      int is_case = l[0] == 'c';
      size_t cap = is_case ? sizeof r->case_text : sizeof r->variant;
      if (strlen(value) >= cap || strstr(value, "\\x") || (!is_case && !gr_name_ok(value))) {
        gr_fmt(why, len, "'%s' line %d: a %s that cannot be one", path, lineno, l);
        return -1;
      }
      gr_fmt(is_case ? r->case_text : r->variant, cap, "%s", value);
    }
  }
  if (lineno == 0 || kind < 0 || !r->case_text[0] || !r->variant[0]) {
    gr_fmt(why, len, "'%s' lacks %s", path,
           lineno == 0 ? "the version line" : kind < 0 ? "its kind" : !r->case_text[0] ? "its case" : "its variant");
    return -1;
  }
  r->slowdown = kind == 1;
  return 0;
}

int reproducers_write(struct store *st, const struct run_verdict *v, const char *dir,
                      const char *runner, size_t *n, char *why, size_t len)
{
  /* the runner that ran the night, as stored with it (a name from a database: quoted unless it
   * is a plain name), else the one exporting */
  struct rp x = {st, v, dir, v->run.runner[0] ? v->run.runner : runner, "", 0, why, len};
  if (gr_name_ok(x.runner))
    gr_fmt(x.runner_word, sizeof x.runner_word, "%s", x.runner);
  else
    gr_sh_quote(x.runner_word, sizeof x.runner_word, x.runner);
  *n = 0;
  why[0] = 0;
  if (mkdir_ok(dir, why, len))
    return -1;
  int rc = store_each_outcome(st, STORE_MAIN, v->run.id, STORE_BY_NAME, one_outcome, &x);
  if (rc == -1 && !why[0])
    gr_fmt(why, len, "cannot read the outcomes of run %lld: %s", (long long)v->run.id,
           store_errmsg(st));
  /* a baseline file (ci/pr-check's base.db, a committed baseline): its benchmark travels too */
  struct store *from = st;
  if (rc == 0 && v->base_file && v->cmp && store_open_read(v->base_file, &from, why, len))
    rc = -1;
  for (size_t i = 0; rc == 0 && v->cmp && !v->cmp->base_other_gpu && i < v->cmp->n_t; i++) {
    const struct compare_timing *ct = &v->cmp->t[i];
    const struct compare_result *r = v->cmp;
    struct slow w = {ct->algorithm, ct->variant, ct->params, ct->l2, r->base.commit,
                     ct->base_gpu[0] ? ct->base_gpu : r->base.gpu, NULL, ct->seed, from,
                     r->base.id, ct->sc.ratio, ct->sc.p, ct->sc.base.median,
                     ct->sc.cur.median};
    if (ct->in_base && ct->in_cur && ct->sc.cls == STATS_SLOWER)
      rc = one_slower(&x, &w);
  }
  for (size_t i = 0; rc == 0 && i < v->n_open; i++)
    rc = one_open(&x, &v->open[i]);
  if (from != st)
    store_close(from);
  *n = x.n;
  return rc ? -1 : 0;
}
