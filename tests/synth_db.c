/* synth_db: append one synthetic run (outcomes, timings and samples, as `gpuregress run --bench`
 * would record them on a GPU) to a database, for the CPU tests of compare, export, plot and
 * history and for looking at the dashboard without a GPU. Prints the run id.
 *
 *   synth_db DB [--seed N] [--commit C] [--gpu NAME] [--host NAME] [--uuid GPU-UUID]
 *               [--noise REL]
 *               [--night-noise REL] [--night-mode GAP,P] [--date YYYY-MM-DD[THH:MM:SSZ]]
 *               [--cases N]
 *               [--slow ALG/VARIANT=FACTOR]... [--verdict ALG/VARIANT=VERDICT]...
 *               [--check ALG/VARIANT=VERDICT]... [--accuracy ALG/VARIANT=RATE]...
 *               [--no-timings] [--no-outcomes] [--no-samples] [--scale F] [--runs N]
 *
 * A history of nights is one call per night with its --date (the run's start; default now) and
 * --commit; --night-noise (default 0) moves every benchmark's level by a lognormal factor per
 * run, as nights on a real runner differ; --night-mode GAP,P puts each benchmark, with
 * probability P, GAP (relative) above its level for the run, as a process's GPU context falls
 * into one of two modes. --cases N records N passing cases per variant in the
 * cases table, plus the failing case (with its reproducer in the outcome) of a variant whose
 * verdict is not pass.
 *
 * --scale F multiplies every time by F (a host's offset: hosts of one model differ steadily).
 * --uuid records each timing's GPU (model, UUID, host) as bench does on a GPU; without it the
 * timings name no GPU (a database older than schema 8: the run's host name identifies it).
 * --runs N appends N runs in one call (each its own draw of the night's level and mode, as the
 * rounds of a re-timing are processes; the id of the last is printed); --no-samples stores the
 * timings' summaries without their samples (what the confirmation of compare reads), quickly.
 *
 * --accuracy stores accuracy metric "bad1" = RATE (and "bad2" = RATE / 2) with every timing of
 * that variant.
 *
 * Algorithms: ari (the real table: its bench cases and work model) and a made-up "sortlike" with
 * a peer, so that peer ratios show. Times follow a roofline against a 3000 GB/s copy bandwidth
 * with lognormal noise (--noise, default 0.01) and rare 2x outliers. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "registry.h"
#include "rng.h"
#include "store.h"

#define COPY_GBPS 3000.0

struct spec {
  const char *key;
  const char *value;
};

static const char *lookup(const struct spec *s, int n, const char *alg, const char *var)
{
  char key[160];
  snprintf(key, sizeof key, "%s/%s", alg, var);
  for (int i = n - 1; i >= 0; i--)
    if (strcmp(s[i].key, key) == 0)
      return s[i].value;
  return NULL;
}

static double gauss(struct gr_rng *r)
{
  double u1 = gr_rng_unit(r), u2 = gr_rng_unit(r);
  return sqrt(-2 * log(u1 > 0 ? u1 : 1e-300)) * cos(2 * M_PI * u2);
}

struct synth_variant {
  const char *name, *kind;
  double efficiency; /* fraction of the copy bandwidth reached */
};

int main(int argc, char **argv)
{
  struct spec slow[16], verdict[16], check[16], accuracy[16];
  int n_slow = 0, n_verdict = 0, n_check = 0, n_accuracy = 0, timings = 1, outcomes = 1;
  int samples = 1;
  long runs = 1;
  double scale = 1;
  uint64_t seed = 1;
  double noise = 0.01, night_noise = 0, mode_gap = 0, mode_p = 0;
  long ncases_pass = 0;
  const char *commit = "0123456789abcdef", *gpu = "Synthetic GPU 80GB", *host = "synthhost";
  const char *uuid = NULL;
  const char *date = NULL;
  if (argc < 2) {
    fprintf(stderr, "usage: synth_db DB [options] (see the source)\n");
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    struct spec *s = NULL;
    int *n = NULL;
    if (!strcmp(argv[i], "--no-timings")) {
      timings = 0;
      continue;
    }
    if (!strcmp(argv[i], "--no-samples")) {
      samples = 0;
      continue;
    }
    if (!strcmp(argv[i], "--no-outcomes")) {
      outcomes = 0;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "synth_db: '%s' needs a value\n", argv[i]);
      return 2;
    }
    const char *v = argv[++i];
    if (!strcmp(argv[i - 1], "--seed"))
      seed = strtoull(v, NULL, 10);
    else if (!strcmp(argv[i - 1], "--commit"))
      commit = v;
    else if (!strcmp(argv[i - 1], "--gpu"))
      gpu = v;
    else if (!strcmp(argv[i - 1], "--noise"))
      noise = strtod(v, NULL);
    else if (!strcmp(argv[i - 1], "--night-noise"))
      night_noise = strtod(v, NULL);
    else if (!strcmp(argv[i - 1], "--night-mode")) {
      char *e;
      mode_gap = strtod(v, &e);
      mode_p = *e == ',' ? strtod(e + 1, NULL) : 0;
    }
    else if (!strcmp(argv[i - 1], "--runs"))
      runs = strtol(v, NULL, 10);
    else if (!strcmp(argv[i - 1], "--scale"))
      scale = strtod(v, NULL);
    else if (!strcmp(argv[i - 1], "--host"))
      host = v;
    else if (!strcmp(argv[i - 1], "--uuid"))
      uuid = v;
    else if (!strcmp(argv[i - 1], "--date"))
      date = v;
    else if (!strcmp(argv[i - 1], "--cases"))
      ncases_pass = strtol(v, NULL, 10);
    else if (!strcmp(argv[i - 1], "--slow"))
      s = slow, n = &n_slow;
    else if (!strcmp(argv[i - 1], "--verdict"))
      s = verdict, n = &n_verdict;
    else if (!strcmp(argv[i - 1], "--check"))
      s = check, n = &n_check;
    else if (!strcmp(argv[i - 1], "--accuracy"))
      s = accuracy, n = &n_accuracy;
    else {
      fprintf(stderr, "synth_db: unknown option '%s'\n", argv[i - 1]);
      return 2;
    }
    if (s) {
      static char keys[64][160];
      static int nk;
      const char *eq = strchr(v, '=');
      if (!eq || *n >= 16 || nk >= 64) {
        fprintf(stderr, "synth_db: bad '%s'\n", v);
        return 2;
      }
      snprintf(keys[nk], sizeof keys[nk], "%.*s", (int)(eq - v), v);
      s[*n].key = keys[nk++];
      s[*n].value = eq + 1;
      (*n)++;
    }
  }
  struct store *st;
  char why[GR_WHY_LEN];
  if (store_open(argv[1], &st, why, sizeof why)) {
    fprintf(stderr, "synth_db: %s\n", why);
    return 2;
  }
  struct run_info ri = {"synth_db", commit, 0, host, gpu, 132, "9.0", 13000, 13000,
                        1980, 2619, (int64_t)80 << 30, seed, 60, NULL, 0, NULL, 0, 0, 0, NULL, NULL, NULL};
  int64_t run;
  long rep = 0;
next_run: /* --runs: the next run, from here (no declaration above it is variably sized) */
  run = store_begin_run(st, &ri, why, sizeof why);
  if (run < 0) {
    fprintf(stderr, "synth_db: %s\n", why);
    return 2;
  }
  struct gr_rng r;
  gr_rng_seed(&r, seed * 7919 + (uint64_t)run);

  /* ari: the real table */
  const struct gr_algorithm *ari = registry_find("ari");
  static const struct synth_variant ari_vars[] = {
      {"v1_shared_uninit", "historical", 0.55},
      {"v2_shared", "fixed", 0.55},
      {"v3_global", "fixed", 0.20},
      {"dispatch", "fixed", 0.55},
  };
  static const struct synth_variant sort_vars[] = {
      {"v1_basic", "fixed", 0.08},
      {"v2_warp", "fixed", 0.15},
      {"v3_warp_lane0", "historical", 0.15},
      {"cub", "peer", 0.22},
  };
  static const char *const sort_cases[] = {"n=65536 dist=uniform", "n=1048576 dist=uniform",
                                           "n=16777216 dist=uniform", "n=268435456 dist=uniform"};
  for (int alg = 0; alg < 2; alg++) {
    const char *an = alg ? "sortlike" : "ari";
    const struct synth_variant *vars = alg ? sort_vars : ari_vars;
    for (int v = 0; v < 4; v++) {
      if (!outcomes)
        break;
      const char *vd = lookup(verdict, n_verdict, an, vars[v].name);
      int hist = !strcmp(vars[v].kind, "historical");
      if (!vd)
        vd = hist ? "caught" : "pass";
      int ver = verdict_parse(vd);
      long cases = 200 + (long)gr_rng_range(&r, 0, 100);
      long to_catch = 1 + (long)(gr_rng_unit(&r) * gr_rng_unit(&r) * 40);
      struct outcome_row o = {an,
                              vars[v].name,
                              vars[v].kind,
                              (enum verdict)(ver < 0 ? 0 : ver),
                              !strcmp(vd, "caught") ? to_catch : cases,
                              !strcmp(vd, "caught") ? to_catch - 1 : cases,
                              !strcmp(vd, "pass") ? 0 : 1,
                              0,
                              0,
                              5.0 + gr_rng_unit(&r),
                              to_catch,
                              0.05 * (double)to_catch,
                              !strcmp(vd, "pass")     ? ""
                              : !strcmp(vd, "caught") ? "pair 3: ARI 16.9 outside [-0.5, 1]"
                                                      : "synthetic failure",
                              NULL,
                              NULL,
                              NULL};
      if (!strcmp(vd, "escaped"))
        o.reason = "the known bug survived 250 cases in 15.0 s: the checks lost the power to find it";
      char first[128], shrunk[128], repro[256];
      if (strcmp(vd, "pass") && strcmp(vd, "escaped")) {
        snprintf(first, sizeof first, "%s n=%ld seed=%llu", an, 1000 + cases, (unsigned long long)seed);
        snprintf(shrunk, sizeof shrunk, "%s n=%d seed=%llu", an, 2, (unsigned long long)seed);
        snprintf(repro, sizeof repro, "gpuregress repro '%s' --variant %s", shrunk, vars[v].name);
        o.first_case = first;
        o.shrunk_case = shrunk;
        o.reproducer = repro;
      }
      store_add_outcome(st, run, &o);
      for (long c = 0; c < ncases_pass; c++) {
        char params[64];
        snprintf(params, sizeof params, "n=%ld", 1 + c * 37);
        struct case_row cr = {an, vars[v].name, vars[v].kind, "fuzz", c, params, seed + (uint64_t)c,
                              VERDICT_PASS, NULL, NULL, 0, 0.01};
        store_add_case(st, run, &cr);
      }
      if (ncases_pass && o.first_case) { /* the failure, and the shrunk case that confirms it */
        struct case_row cr = {an, vars[v].name, vars[v].kind, "fuzz", ncases_pass, first + strlen(an) + 1,
                              seed, (enum verdict)o.verdict, NULL, o.reason, 1, 0.02};
        store_add_case(st, run, &cr);
        cr.phase = "shrink";
        cr.params = shrunk + strlen(an) + 1;
        cr.case_index = -1;
        store_add_case(st, run, &cr);
      }
    }
    size_t ncases = alg ? 4 : 0;
    if (!alg)
      while (ari->bench_cases[ncases])
        ncases++;
    for (size_t k = 0; k < ncases && timings; k++) {
      char params[GR_CASE_TEXT_LEN];
      double bytes, items;
      if (alg) {
        snprintf(params, sizeof params, "%s", sort_cases[k]);
        items = pow(2, 16 + 4 * (double)k);
        bytes = items * 4 * 2 * 4; /* 4 passes, read + write */
      } else {
        struct gr_case c;
        case_parse(ari->bench_cases[k], &c, why, sizeof why);
        char text[GR_CASE_TEXT_LEN];
        case_format(&c, text, sizeof text);
        snprintf(params, sizeof params, "%s", text + 4);
        char *sp = strstr(params, " seed=");
        if (sp)
          *sp = 0;
        ari->work(&c, &bytes, &items);
      }
      for (int v = 0; v < 4; v++) {
        const char *f = lookup(slow, n_slow, an, vars[v].name);
        const char *cv = lookup(check, n_check, an, vars[v].name);
        int hist = !strcmp(vars[v].kind, "historical");
        int skip = !alg && k == ncases - 1 && v != 2 && v != 3; /* table too large for shared */
        struct timing_row t;
        memset(&t, 0, sizeof t);
        t.algorithm = an;
        t.variant = vars[v].name;
        t.kind = vars[v].kind;
        t.params = params;
        t.seed = 1;
        t.l2 = "cold";
        t.launches = 1;
        char name[GR_CASE_TEXT_LEN + 200];
        snprintf(name, sizeof name, "%s/%s/%s", an, vars[v].name, params);
        t.name = name;
        t.bytes = bytes;
        t.items = items;
        t.copy_gbps = COPY_GBPS;
        if (skip) {
          t.verdict = VERDICT_SKIP;
          t.reason = "table of 300 x 300 cells does not fit in shared memory";
          store_add_timing(st, run, &t);
          continue;
        }
        double median = 0.004 + bytes / (vars[v].efficiency * COPY_GBPS * 1e9) * 1e3;
        if (f)
          median *= strtod(f, NULL);
        median *= scale;
        if (night_noise > 0) /* the night's level (drawn only when asked: same stream otherwise) */
          median *= exp(night_noise * gauss(&r));
        if (mode_p > 0 && gr_rng_chance(&r, mode_p)) /* the process's upper mode */
          median *= 1 + mode_gap;
        size_t n = 60 + (size_t)gr_rng_range(&r, 0, 140);
        double *ms = malloc(n * sizeof *ms);
        int *clk = malloc(n * sizeof *clk);
        for (size_t i = 0; i < n; i++) {
          ms[i] = median * exp(noise * gauss(&r)) * (gr_rng_chance(&r, 0.01) ? 2 : 1);
          clk[i] = 1980 - (gr_rng_chance(&r, 0.05) ? 15 : 0);
        }
        struct stats_like {
          double med, mean, mn, mx, sd;
        } sl = {0};
        double *sorted = malloc(n * sizeof *sorted);
        memcpy(sorted, ms, n * sizeof *ms);
        for (size_t i = 1; i < n; i++) /* insertion sort: small n */
          for (size_t j = i; j > 0 && sorted[j] < sorted[j - 1]; j--) {
            double tmp = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = tmp;
          }
        sl.med = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
        sl.mn = sorted[0];
        sl.mx = sorted[n - 1];
        for (size_t i = 0; i < n; i++)
          sl.mean += ms[i] / (double)n;
        for (size_t i = 0; i < n; i++)
          sl.sd += (ms[i] - sl.mean) * (ms[i] - sl.mean) / (double)(n - 1);
        sl.sd = sqrt(sl.sd);
        free(sorted);
        t.samples = (int64_t)n;
        t.median_ms = sl.med;
        t.mean_ms = sl.mean;
        t.min_ms = sl.mn;
        t.max_ms = sl.mx;
        t.stddev_ms = sl.sd;
        t.noise = 1.2533 * noise / sqrt((double)n);
        t.gbps = bytes / (sl.med * 1e-3) / 1e9;
        t.items_per_s = items / (sl.med * 1e-3);
        t.pct_copy = 100 * t.gbps / COPY_GBPS;
        t.sm_clock_mhz = 1980;
        t.seconds = 0.5;
        int cver = cv ? verdict_parse(cv) : -1;
        t.verdict = cver >= 0 ? (enum verdict)cver : hist ? VERDICT_CAUGHT : VERDICT_PASS;
        t.reason = t.verdict == VERDICT_FAIL ? "after the timing loop: pair 0: 0.5 vs 0.25" : NULL;
        int64_t id = store_add_timing(st, run, &t);
        if (uuid && id > 0)
          store_set_timing_gpu(st, id, gpu, uuid, host);
        for (size_t i = 0; i < n && id > 0 && samples; i++)
          store_add_sample(st, id, (int64_t)i, ms[i], clk[i]);
        const char *acc = lookup(accuracy, n_accuracy, an, vars[v].name);
        if (acc && id > 0) {
          store_add_accuracy(st, id, "bad1", strtod(acc, NULL));
          store_add_accuracy(st, id, "bad2", strtod(acc, NULL) / 2);
        }
        free(ms);
        free(clk);
      }
      store_commit(st);
    }
  }
  store_commit(st);
  store_finish_run(st, run, "finished", 0);
  if (date) { /* the night it stands for: the tests' own query */
    char when[40];
    snprintf(when, sizeof when, strlen(date) == 10 ? "%sT02:30:00Z" : "%s", date);
    sqlite3_stmt *u;
    if (sqlite3_prepare_v2(store_db(st), "UPDATE runs SET started_at = ?1, finished_at = ?1 WHERE id = ?2",
                           -1, &u, NULL) == SQLITE_OK) {
      sqlite3_bind_text(u, 1, when, -1, SQLITE_STATIC);
      sqlite3_bind_int64(u, 2, run);
      sqlite3_step(u);
      sqlite3_finalize(u);
    }
  }
  if (++rep < runs)
    goto next_run;
  store_close(st);
  printf("%lld\n", (long long)run);
  return 0;
}
