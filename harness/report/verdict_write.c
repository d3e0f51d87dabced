/* A night's verdict written out: JSON (export, the run's summary) and JUnit XML (CI systems).
 * See verdict.h. */
#define _GNU_SOURCE
#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "gr.h"

static const char *nz(const char *s) { return s ? s : ""; }

/* ---- JSON --------------------------------------------------------------------------------- */

static void json_num(FILE *f, double d)
{
  if (isfinite(d))
    fprintf(f, "%.9g", d);
  else
    fputs("null", f);
}

static void json_key_str(FILE *f, const char *key, const char *val, int comma)
{
  fprintf(f, "\"%s\": ", key);
  if (val)
    gr_json_string(f, val);
  else
    fputs("null", f);
  if (comma)
    fputs(", ", f);
}

/* "driver_release": ..., "clocks": {...}: NVML's view of the GPU at the start, and the SM clock
 * while timing */
static void json_gpu_state(FILE *f, const struct store_run *r)
{
  json_key_str(f, "driver_release", r->driver_release[0] ? r->driver_release : NULL, 1);
  fprintf(f, "\"driver_cuda\": \"%d.%d\", ", r->driver / 1000, r->driver % 1000 / 10);
  fprintf(f, "\"clocks\": {\"sm_mhz\": %d, \"mem_mhz\": %d, \"sm_timed_mhz\": %.0f, "
             "\"sm_max_mhz\": %d, \"mem_max_mhz\": %d, \"temp_c\": %d}",
          r->sm_clock_now_mhz, r->mem_clock_now_mhz, r->timed_sm_clock_mhz, r->sm_clock_mhz,
          r->mem_clock_mhz, r->temp_c);
}

/* run_verdict_json's parts: the run, the baseline, one open regression, one test. */
static void json_run(FILE *f, const struct run_verdict *v, const char *in)
{
  const struct store_run *r = &v->run;
  fprintf(f, ",\n%s  \"run\": {\"id\": %lld, ", in, (long long)r->id);
  json_key_str(f, "status", r->status, 1);
  json_key_str(f, "commit", r->commit, 1);
  fprintf(f, "\"dirty\": %s, ", r->dirty ? "true" : "false");
  json_key_str(f, "checkout_commit", r->checkout[0] ? r->checkout : NULL, 1);
  /* gpuregress's own beside the code under test's (null: a run of schema 9 or older) */
  json_key_str(f, "gpuregress_version", r->gr_version[0] ? r->gr_version : NULL, 1);
  json_key_str(f, "gpuregress_commit", r->gr_commit[0] ? r->gr_commit : NULL, 1);
  json_key_str(f, "runner", r->runner[0] ? r->runner : "gpuregress", 1);
  json_key_str(f, "gpu", r->gpu[0] ? r->gpu : NULL, 1);
  fprintf(f, "\"seed\": %llu, \"allow_no_gpu\": %s, ", (unsigned long long)r->seed,
          r->allow_no_gpu ? "true" : "false");
  json_key_str(f, "night", v->night.night[0] ? v->night.night : NULL, 1);
  fprintf(f, "\"shards\": %d, \"shards_present\": %d, \"gpus\": %d, ", v->night.shard_count,
          v->night.shards_present, v->night.gpus);
  json_gpu_state(f, r);
  fputs("},\n", f);
}

static void json_baseline(FILE *f, const struct run_verdict *v)
{
  if (v->cmp) {
    const struct compare_result *c = v->cmp;
    fprintf(f, "{\"run\": %lld, ", (long long)c->base.id);
    json_key_str(f, "file", v->base_file, 1);
    json_key_str(f, "commit", c->base.commit, 1);
    json_key_str(f, "gpu", c->base.gpu[0] ? c->base.gpu : NULL, 1);
    fprintf(f, "\"other_gpu\": %s, \"same\": %zu, \"faster\": %zu, \"slower\": %zu, "
               "\"unsure\": %zu, \"new\": %zu, \"gone\": %zu, \"regressions\": %zu, "
               "\"accuracy_regressions\": %zu, \"not_confirmed\": %zu, \"confirmed\": %zu",
            c->base_other_gpu ? "true" : "false", c->n_same, c->n_faster, c->n_slower, c->n_unsure,
            c->n_new, c->n_gone, c->n_regressions, c->n_acc_regressions, c->n_unconfirmed,
            c->n_confirmed);
    fputs(", ", f);
    json_gpu_state(f, &c->base);
    fputs("}", f);
  } else {
    fputs("null", f);
  }
}

static void json_open_reg(FILE *f, const struct rv_open *e)
{
  const struct store_open_reg *g = &e->reg;
  fputc('{', f);
  json_key_str(f, "algorithm", g->algorithm, 1);
  json_key_str(f, "variant", g->variant, 1);
  json_key_str(f, "params", g->params, 1);
  json_key_str(f, "l2", g->l2, 1);
  fprintf(f, "\"seed\": %llu, \"opened_run\": %lld, \"base_run\": %lld, \"ref_ms\": ",
          (unsigned long long)g->seed, (long long)g->opened_run, (long long)g->base_run);
  json_num(f, g->ref_ms);
  fputs(", \"cur_ms\": ", f);
  json_num(f, g->cur_ms > 0 ? g->cur_ms : NAN);
  fprintf(f, ", \"fresh\": %s, \"history_new\": %s, ", e->fresh ? "true" : "false",
          e->history_new ? "true" : "false");
  json_key_str(f, "source", g->source, 1);
  json_key_str(f, "first_bad", e->first_bad[0] ? e->first_bad : NULL, 1);
  fprintf(f, "\"acknowledged\": ");
  if (e->acked) {
    fputc('{', f);
    json_key_str(f, "who", e->ack.who, 1);
    json_key_str(f, "at", e->ack.at, 1);
    json_key_str(f, "reason", e->ack.reason, 0);
    fputc('}', f);
  } else {
    fputs("null", f);
  }
  fputc('}', f);
}

static void json_test(FILE *f, const struct rv_test *t)
{
  fputc('{', f);
  json_key_str(f, "suite", t->suite, 1);
  json_key_str(f, "name", t->name, 1);
  json_key_str(f, "kind", t->kind, 1);
  json_key_str(f, "source", t->source, 1);
  json_key_str(f, "verdict", t->verdict, 1);
  json_key_str(f, "state", rv_state_name(t->state), 1);
  json_key_str(f, "message", nz(t->message), 1);
  fputs("\"seconds\": ", f);
  json_num(f, t->seconds);
  if (t->repro) {
    fputs(", ", f);
    json_key_str(f, "repro", t->repro, 0);
  }
  if (t->range[0]) {
    fputs(", ", f);
    json_key_str(f, "commits", t->range, 0);
  }
  if (t->compared) {
    const char *const keys[] = {"ratio", "p", "base_ms", "cur_ms", "min_effect", "alpha"};
    const double vals[] = {t->ratio, t->p, t->base_ms, t->cur_ms, t->min_effect, t->alpha};
    for (int k = 0; k < 6; k++) {
      fprintf(f, ", \"%s\": ", keys[k]);
      json_num(f, vals[k]);
    }
  }
  fputc('}', f);
}

void run_verdict_json(FILE *f, const struct run_verdict *v, const char *in)
{
  fprintf(f, "{\n%s  ", in);
  json_key_str(f, "result", rv_result_name(v->result), 1);
  fprintf(f, "\"exit_code\": %d, \"ok\": %s,\n%s  ", v->exit_code,
          v->result == RV_RESULT_OK ? "true" : "false", in);
  json_key_str(f, "summary", v->summary, 0);
  json_run(f, v, in);
  fprintf(f, "%s  \"counts\": {\"tests\": %zu, \"passed\": %zu, \"failed\": %zu, \"skipped\": %zu, "
             "\"errors\": %zu, \"caught\": %zu, \"escaped\": %zu},\n",
          in, v->n, v->passed, v->failed, v->skipped, v->errors, v->caught, v->escaped);
  fprintf(f, "%s  \"gpu_variants\": {\"selected\": %zu, \"ran\": %zu, \"none_ran_allowed\": %s, ",
          in, v->gpu_selected, v->gpu_ran, v->no_gpu_allowed ? "true" : "false");
  json_key_str(f, "why_none", v->gpu_selected && !v->gpu_ran ? v->no_gpu_why : NULL, 0);
  fprintf(f, "},\n%s  \"baseline\": ", in);
  json_baseline(f, v);
  fprintf(f, ",\n%s  ", in);
  json_key_str(f, "clock_warning", v->clock_warning[0] ? v->clock_warning : NULL, 0);
  fprintf(f, ",\n%s  \"history_checked\": %s, \"open_regressions\": [", in,
          v->history_checked ? "true" : "false");
  size_t shown = 0;
  for (size_t i = 0; i < v->n_open; i++) {
    const struct rv_open *e = &v->open[i];
    if (e->closed)
      continue;
    fprintf(f, "%s\n%s    ", shown++ ? "," : "", in);
    json_open_reg(f, e);
  }
  if (shown)
    fprintf(f, "\n%s  ", in);
  fprintf(f, "], \"open_unacknowledged\": %zu, \"closed\": %zu", v->open_unacked, v->closed);
  fprintf(f, ",\n%s  \"tests\": [", in);
  for (size_t i = 0; i < v->n; i++) {
    const struct rv_test *t = &v->tests[i];
    fprintf(f, "%s\n%s    ", i ? "," : "", in);
    json_test(f, t);
  }
  if (v->n)
    fprintf(f, "\n%s  ", in);
  fprintf(f, "]\n%s}", in);
}

/* ---- JUnit -------------------------------------------------------------------------------- */

static void xml_attr(FILE *f, const char *name, const char *value)
{
  fprintf(f, " %s=\"", name);
  gr_xml_escape(f, value);
  fputc('"', f);
}

static void property(FILE *f, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void property(FILE *f, const char *name, const char *fmt, ...)
{
  char value[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(value, sizeof value, fmt, ap);
  va_end(ap);
  fprintf(f, "      <property");
  xml_attr(f, "name", name);
  xml_attr(f, "value", value);
  fprintf(f, "/>\n");
}

/* NVML at the start of run r (0 unknown) and the SM clock while timing, named prefix... */
static void gpu_state(FILE *f, const char *prefix, const struct store_run *r)
{
  char name[64];
  const char *const keys[] = {"sm_clock_now_mhz", "mem_clock_now_mhz", "gpu_temp_c"};
  const int vals[] = {r->sm_clock_now_mhz, r->mem_clock_now_mhz, r->temp_c};
  for (int i = 0; i < 3; i++) {
    gr_fmt(name, sizeof name, "%s%s", prefix, keys[i]);
    property(f, name, "%d", vals[i]);
  }
  gr_fmt(name, sizeof name, "%ssm_clock_timed_mhz", prefix);
  property(f, name, "%.0f", r->timed_sm_clock_mhz);
}

/* What the run ran on and from, in every suite (junit-10 has properties per testsuite). */
static void properties(FILE *f, const struct run_verdict *v)
{
  const struct store_run *r = &v->run;
  fprintf(f, "    <properties>\n");
  property(f, "run", "%lld", (long long)r->id);
  property(f, "result", "%s", rv_result_name(v->result));
  property(f, "seed", "%llu", (unsigned long long)r->seed);
  property(f, "gpu", "%s", r->gpu[0] ? r->gpu : "none");
  property(f, "compute_capability", "%s", r->cc);
  property(f, "driver", "%s", r->driver_release[0] ? r->driver_release : "unknown");
  property(f, "driver_cuda", "%d.%d", r->driver / 1000, r->driver % 1000 / 10);
  property(f, "runtime", "%d.%d", r->runtime / 1000, r->runtime % 1000 / 10);
  property(f, "commit", "%s%s", r->commit, r->dirty ? "-dirty" : "");
  if (r->checkout[0])
    property(f, "checkout_commit", "%s", r->checkout);
  property(f, "gpuregress_version", "%s", r->gr_version[0] ? r->gr_version : "unknown");
  property(f, "gpuregress_commit", "%s", r->gr_commit[0] ? r->gr_commit : "unknown");
  property(f, "runner", "%s", r->runner[0] ? r->runner : "gpuregress");
  property(f, "sm_clock_mhz", "%d", r->sm_clock_mhz);
  property(f, "mem_clock_mhz", "%d", r->mem_clock_mhz);
  gpu_state(f, "", r);
  property(f, "host", "%s", r->host);
  if (v->cmp) {
    const struct store_run *b = &v->cmp->base;
    property(f, "baseline_run", "%lld%s%s", (long long)b->id, v->base_file ? " of " : "",
             v->base_file ? v->base_file : "");
    property(f, "baseline_gpu", "%s", b->gpu[0] ? b->gpu : "none");
    property(f, "baseline_driver", "%s", b->driver_release[0] ? b->driver_release : "unknown");
    property(f, "baseline_commit", "%s", b->commit);
    gpu_state(f, "baseline_", b);
  }
  if (v->clock_warning[0])
    property(f, "clock_warning", "%s", v->clock_warning);
  if (v->history_checked)
    property(f, "open_regressions", "%zu (%zu acknowledged)", v->open_unacked + v->open_acked,
             v->open_acked);
  fprintf(f, "    </properties>\n");
}

static void junit_case(FILE *f, const struct rv_test *t)
{
  char name[sizeof t->name + 32];
  gr_fmt(name, sizeof name, "%s (%s)", t->name, t->kind);
  fprintf(f, "    <testcase");
  xml_attr(f, "name", name);
  fprintf(f, " classname=\"gpuregress.");
  gr_xml_escape(f, t->suite);
  fprintf(f, "\" time=\"%.3f\">\n", t->seconds);
  const char *msg = t->message && t->message[0] ? t->message : t->verdict;
  switch (t->state) {
  case RV_SKIP:
    fprintf(f, "      <skipped");
    xml_attr(f, "message", msg);
    fprintf(f, "/>\n");
    break;
  case RV_FAIL:
  case RV_ERROR:
    fprintf(f, "      <%s", t->state == RV_FAIL ? "failure" : "error");
    xml_attr(f, "message", msg);
    xml_attr(f, "type", t->verdict);
    fputc('>', f);
    gr_xml_escape(f, nz(t->body));
    if (t->repro && !strstr(nz(t->body), "reproduce: ")) {
      fputs("\nreproduce: ", f);
      gr_xml_escape(f, t->repro);
    }
    if (t->range[0] && !strstr(nz(t->body), "git log ")) {
      fputs("\ncommits: git log ", f);
      gr_xml_escape(f, t->range);
    }
    fprintf(f, "</%s>\n", t->state == RV_FAIL ? "failure" : "error");
    break;
  case RV_PASS: break;
  }
  fprintf(f, "      <system-out>%s", t->verdict);
  if (t->body && t->body[0]) {
    fputc('\n', f);
    gr_xml_escape(f, t->body);
  }
  fprintf(f, "</system-out>\n    </testcase>\n");
}

void run_verdict_junit(FILE *f, const struct run_verdict *v)
{
  double total = 0;
  for (size_t i = 0; i < v->n; i++)
    total += v->tests[i].seconds;
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(f, "<testsuites name=\"gpuregress run %lld\" tests=\"%zu\" failures=\"%zu\" "
             "errors=\"%zu\" time=\"%.3f\">\n",
          (long long)v->run.id, v->n, v->failed, v->errors, total);
  /* one suite per algorithm, in the order of their first test */
  for (size_t i = 0; i < v->n; i++) {
    int seen = 0;
    for (size_t k = 0; k < i && !seen; k++)
      seen = !strcmp(v->tests[k].suite, v->tests[i].suite);
    if (seen)
      continue;
    size_t n = 0, fl = 0, er = 0, sk = 0;
    double secs = 0;
    for (size_t k = i; k < v->n; k++) {
      const struct rv_test *t = &v->tests[k];
      if (strcmp(t->suite, v->tests[i].suite))
        continue;
      n++;
      fl += t->state == RV_FAIL;
      er += t->state == RV_ERROR;
      sk += t->state == RV_SKIP;
      secs += t->seconds;
    }
    char suite[96];
    gr_fmt(suite, sizeof suite, "gpuregress.%s", v->tests[i].suite);
    fprintf(f, "  <testsuite");
    xml_attr(f, "name", suite);
    fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\"", n,
            fl, er, sk, secs);
    xml_attr(f, "hostname", v->run.host);
    xml_attr(f, "timestamp", v->run.started);
    fprintf(f, ">\n");
    properties(f, v);
    for (size_t k = i; k < v->n; k++)
      if (!strcmp(v->tests[k].suite, v->tests[i].suite))
        junit_case(f, &v->tests[k]);
    fprintf(f, "  </testsuite>\n");
  }
  fprintf(f, "</testsuites>\n");
}
