/* `export --format gbench`: a stored run as Google Benchmark's JSON. See export.h.
 *
 * Every stored sample of a benchmark is one repetition (a sample is the mean GPU time of its
 * launches, measured with CUDA events), so that compare.py's Mann-Whitney U test sees the same
 * samples `gpuregress compare` tests; a run whose samples were pruned exports the stored median
 * as a single repetition. cpu_time is the GPU time too: the store keeps no host CPU time per
 * sample. The name is ALG/VARIANT/PARAM=VALUE/... (with /seed:N beside the default seed 1 and
 * /l2:hot for a hot-L2 timing): the same benchmark has the same name in every run. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "export.h"
#include "gr.h"
#include "stats.h"
#include "store.h"

struct gb_ctx {
  FILE *f;
  struct store *st;
  int64_t run;
  size_t family, entries;
  int failed;
};

static void entry_head(struct gb_ctx *k, const char *name, const char *run_name, size_t fam)
{
  fprintf(k->f, "%s\n    {\n      \"name\": ", k->entries++ ? "," : "");
  gr_json_string(k->f, name);
  fprintf(k->f, ",\n      \"family_index\": %zu,\n      \"per_family_instance_index\": 0,\n"
                "      \"run_name\": ",
          fam);
  gr_json_string(k->f, run_name);
}

static void entry_time(FILE *f, double ns)
{
  fprintf(f, ",\n      \"real_time\": %.17g,\n      \"cpu_time\": %.17g,\n"
             "      \"time_unit\": \"ns\"\n    }",
          ns, ns);
}

static int one_timing(void *ctx, const struct store_timing *t)
{
  struct gb_ctx *k = ctx;
  if (t->samples <= 0 || !(t->median_ms > 0))
    return 0; /* not timed (skip, crash): Google Benchmark has no entry for it either */
  char name[GR_CASE_TEXT_LEN + 200];
  size_t n = (size_t)snprintf(name, sizeof name, "%s/%s/", t->algorithm, t->variant);
  for (const char *p = t->params; *p && n + 1 < sizeof name; p++)
    name[n++] = *p == ' ' ? '/' : *p;
  name[n < sizeof name ? n : sizeof name - 1] = 0;
  if (t->seed != 1 && n + 24 < sizeof name)
    n += (size_t)snprintf(name + n, sizeof name - n, "/seed:%llu", (unsigned long long)t->seed);
  if (!strcmp(t->l2, "hot") && n + 8 < sizeof name)
    snprintf(name + n, sizeof name - n, "/l2:hot");
  double *ms = NULL;
  size_t ns = 0;
  if (store_samples(k->st, STORE_MAIN, k->run, t->algorithm, t->variant, t->params, t->seed, t->l2,
                    &ms, &ns)) {
    k->failed = 1;
    return -1;
  }
  double one = t->median_ms;
  if (!ns) { /* pruned: the summary */
    ms = &one;
    ns = 1;
  }
  size_t fam = k->family++;
  double sum = 0;
  for (size_t i = 0; i < ns; i++) {
    entry_head(k, name, name, fam);
    fprintf(k->f, ",\n      \"run_type\": \"iteration\",\n      \"repetitions\": %zu,\n"
                  "      \"repetition_index\": %zu,\n      \"threads\": 1,\n"
                  "      \"iterations\": %lld",
            ns, i, (long long)(t->launches > 0 ? t->launches : 1));
    entry_time(k->f, 1e6 * ms[i]);
    sum += ms[i];
  }
  double mean = sum / (double)ns, ss = 0;
  for (size_t i = 0; i < ns; i++)
    ss += (ms[i] - mean) * (ms[i] - mean);
  double sd = ns > 1 ? sqrt(ss / (double)(ns - 1)) : 0;
  double med = ns > 1 ? stats_median_inplace(ms, ns) : ms[0];
  if (ms != &one)
    free(ms);
  const char *const agg[] = {"mean", "median", "stddev"};
  const double val[] = {mean, med, sd};
  for (int a = 0; a < 3; a++) {
    char aname[sizeof name + 16];
    gr_fmt(aname, sizeof aname, "%s_%s", name, agg[a]);
    entry_head(k, aname, name, fam);
    fprintf(k->f, ",\n      \"run_type\": \"aggregate\",\n      \"repetitions\": %zu,\n"
                  "      \"threads\": 1,\n      \"aggregate_name\": \"%s\",\n"
                  "      \"aggregate_unit\": \"time\",\n      \"iterations\": %zu",
            ns, agg[a], ns);
    entry_time(k->f, 1e6 * val[a]);
  }
  return 0;
}

static void ctx_str(FILE *f, const char *key, const char *val)
{
  fprintf(f, ",\n    \"%s\": ", key);
  gr_json_string(f, val);
}

int export_gbench(FILE *f, struct store *st, const struct store_run *r)
{
  fputs("{\n  \"context\": {\n    \"date\": ", f);
  gr_json_string(f, r->started);
  ctx_str(f, "host_name", r->host);
  ctx_str(f, "executable", "gpuregress export --format gbench");
  fprintf(f, ",\n    \"json_schema_version\": 1,\n    \"library_build_type\": \"release\"");
  ctx_str(f, "library", "gpuregress");
  fprintf(f, ",\n    \"gpuregress_run\": %lld", (long long)r->id);
  ctx_str(f, "commit", r->commit); /* the code under test's; gpuregress's own beside it */
  ctx_str(f, "gpuregress_version", r->gr_version[0] ? r->gr_version : "unknown");
  ctx_str(f, "gpuregress_commit", r->gr_commit[0] ? r->gr_commit : "unknown");
  ctx_str(f, "runner", r->runner[0] ? r->runner : "gpuregress");
  ctx_str(f, "gpu", r->gpu[0] ? r->gpu : "none");
  ctx_str(f, "driver", r->driver_release[0] ? r->driver_release : "unknown");
  char buf[64];
  gr_fmt(buf, sizeof buf, "%d.%d", r->runtime / 1000, r->runtime % 1000 / 10);
  ctx_str(f, "cuda_runtime", buf);
  fprintf(f, ",\n    \"sm_clock_mhz\": %.0f,\n    \"mem_clock_mhz\": %d,\n    \"gpu_temp_c\": %d",
          r->timed_sm_clock_mhz > 0 ? r->timed_sm_clock_mhz : (double)r->sm_clock_now_mhz,
          r->mem_clock_now_mhz, r->temp_c);
  ctx_str(f, "time_source", "CUDA events; every stored sample is one repetition");
  fputs("\n  },\n  \"benchmarks\": [", f);
  struct gb_ctx k = {f, st, r->id, 0, 0, 0};
  int rc = store_each_timing(st, STORE_MAIN, r->id, one_timing, &k);
  fputs("\n  ]\n}\n", f);
  return rc || k.failed ? -1 : 0;
}
