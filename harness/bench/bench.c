/* The timing layer's parent: starts the benchmark process (bench_child.c) through child.h,
 * reads its report (protocol in bench_child.h), summarises each item's raw samples, applies the
 * work model and stores the timing with its samples. A crash or a hang of the benchmark process
 * costs the item it was running; the plan goes on in a fresh process. See bench.h. */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_child.h"
#include "bench_json.h"
#include "bench_shim.h"
#include "child.h"
#include "bench_private.h"
#include "registry.h"


/* This host's name, for the timing rows ("" unknown). */
static const char *host_name(void)
{
  static char host[256];
  if (!host[0] && gethostname(host, sizeof host - 1) != 0)
    host[0] = 0;
  return host;
}

/* The model a host-timed variant's rows record (GR_VARIANT_HOST_TIMED): "host CPU" and the CPU's
 * model name where /proc/cpuinfo gives one, so that compare pairs them by CPU model. */
static const char *host_cpu_model(void)
{
  static char model[128];
  if (model[0])
    return model;
  gr_fmt(model, sizeof model, "host CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon) {
      colon += 1 + (colon[1] == ' ');
      colon[strcspn(colon, "\n")] = 0;
      gr_fmt(model, sizeof model, "host CPU %s", colon);
      break;
    }
  }
  if (f)
    fclose(f);
  return model;
}

/* Fill res from samples and store the timing row with its samples in one transaction. */
static void finish_item(struct bench_plan *p, const struct bench_opts *o, size_t i,
                        enum verdict vd, long launches, double seconds, const char *reason,
                        const double *ms, const int *clk, size_t n, const struct gr_metrics *acc)
{
  const struct bench_item *it = &p->items[i];
  struct bench_result *r = &p->res[i];
  memset(r, 0, sizeof *r);
  if (acc)
    r->acc = *acc;
  r->done = 1;
  r->verdict = vd;
  gr_fmt(r->reason, sizeof r->reason, "%s", reason ? reason : "");
  r->launches = launches;
  r->seconds = seconds;
  stats_summarize(ms, n, &r->s);
  bench_result_rates(p, i);
  if (n) {
    double *c = malloc(n * sizeof *c);
    if (c) {
      for (size_t k = 0; k < n; k++)
        c[k] = clk[k];
      r->clock_mhz = stats_median_inplace(c, n);
      free(c);
    }
  }
  if (o->progress_lines && (n || vd != VERDICT_SKIP)) { /* what ran, not what skipped */
    fprintf(stderr, "progress: timed %s/%s %s: %s, median %.4g ms, %.1f s\n", it->alg->name,
            it->v->name, it->params, verdict_name(vd), r->s.median, seconds);
    fflush(stderr);
  }
  if (!o->store)
    return;
  struct timing_row row = {.algorithm = it->alg->name,
                           .variant = it->v->name,
                           .kind = gr_variant_kind_name(it->v->kind),
                           .params = it->params,
                           .seed = it->c.seed,
                           .name = it->name,
                           .l2 = o->hot ? "hot" : "cold",
                           .launches = launches,
                           .samples = (int64_t)n,
                           .median_ms = r->s.median,
                           .mean_ms = r->s.mean,
                           .min_ms = r->s.min,
                           .max_ms = r->s.max,
                           .stddev_ms = r->s.stddev,
                           .noise = r->s.noise,
                           .bytes = r->bytes,
                           .items = r->items,
                           .gbps = r->gbps,
                           .items_per_s = r->items_per_s,
                           .copy_gbps = p->copy_gbps,
                           .pct_copy = r->pct_copy,
                           .item_unit = it->alg->item_unit,
                           .peak_items_per_s = r->peak_items_per_s,
                           .pct_peak = r->pct_peak,
                           .sm_clock_mhz = r->clock_mhz,
                           .seconds = seconds,
                           .verdict = vd,
                           .reason = r->reason};
  int64_t id = store_add_timing(o->store, o->run_id, &row);
  int on_gpu = (it->v->flags & GR_VARIANT_GPU) != 0;
  int bad = id < 0 || store_set_timing_gpu(o->store, id, on_gpu ? p->gpu_name : host_cpu_model(),
                                           on_gpu ? p->gpu_uuid : "", host_name());
  for (size_t k = 0; k < n && !bad; k++)
    bad = store_add_sample(o->store, id, (int64_t)k, ms[k], clk[k]) != 0;
  for (size_t k = 0; k < r->acc.n && !bad; k++)
    bad = store_add_accuracy(o->store, id, r->acc.name[k], r->acc.value[k]) != 0;
  /* a failed write makes the commit roll the batch back; the command reports it once and stops
   * (bench_stop, store_write_failed) */
  store_commit(o->store);
}

/* The samples of the item being reported, grown as needed. */
struct samples {
  double *ms;
  int *clk;
  size_t n, cap;
};

/* Read the n raw samples that follow an S line. -1: they are lost (out of memory: they are
 * skipped to keep the stream in step; or the child went quiet). */
static int samples_read(struct child *c, struct samples *s, size_t n, double timeout)
{
  s->n = 0;
  if (n > s->cap) {
    double *m = realloc(s->ms, n * sizeof *m);
    if (m)
      s->ms = m;
    int *k = m ? realloc(s->clk, n * sizeof *k) : NULL;
    if (k)
      s->clk = k;
    if (!m || !k) {
      char skip[4096];
      for (size_t left = n * (sizeof *s->ms + sizeof *s->clk); left > 0;) {
        size_t step = left < sizeof skip ? left : sizeof skip;
        if (child_read(c, timeout, skip, step) != CHILD_GOT)
          break;
        left -= step;
      }
      return -1;
    }
    s->cap = n;
  }
  if (child_read(c, timeout, s->ms, n * sizeof *s->ms) != CHILD_GOT ||
      child_read(c, timeout, s->clk, n * sizeof *s->clk) != CHILD_GOT)
    return -1;
  s->n = n;
  return 0;
}

/* What one benchmark process reported until it ended. */
struct session {
  long cur;     /* item begun and not ended, or -1 */
  long pending; /* item whose T line came, or -1 */
  enum verdict pv;
  long launches;
  double seconds;
  char reason[GR_WHY_LEN];
  struct gr_metrics acc; /* M lines of the pending item */
  long no_gpu;  /* the item an N line named (skipped: no device), -1 none */
  int done;     /* DONE or NOGPU: the plan is over */
  int started;  /* BW came: the device answered */
  int waiting;  /* WAIT came and BW not yet: the process waits for its GPU's lock */
  enum gr_status fatal; /* not OK: no benchmark can run (why) */
  struct bench_json *json; /* the JSON being assembled, or NULL */
};

/* An item that ended without its own report: an error entry in the JSON, under the name Google
 * Benchmark gives it (one iteration, manual time). */
static void json_lost(struct session *ss, const struct bench_item *it, enum verdict vd,
                      const char *reason)
{
  char name[sizeof it->name + 64], msg[GR_WHY_LEN + 32];
  if (!ss->json)
    return;
  gr_fmt(name, sizeof name, "%s/iterations:1/manual_time", it->name);
  gr_fmt(msg, sizeof msg, "%s: %s", verdict_name(vd), reason);
  bench_json_error(ss->json, name, msg);
}

/* Read n bytes of JSON after a J line into the assembled file. -1 when they are lost. */
static int json_read(struct child *c, struct session *ss, int what, size_t n, double timeout)
{
  char *text = malloc(n + 1);
  if (!text || child_read(c, timeout, text, n) != CHILD_GOT) {
    free(text);
    return -1;
  }
  if (ss->json && what == GBENCH_JSON_CONTEXT)
    bench_json_context(ss->json, text, n);
  else if (ss->json)
    bench_json_runs(ss->json, text, n);
  free(text);
  return 0;
}

/* BW COPY_GBPS UUID NAME: the copy bandwidth measured, the GPU that times. */
static void line_bw(struct session *ss, struct bench_plan *p, char *rest)
{
  char *save;
  ss->waiting = 0;
  p->copy_gbps = strtod(rest, &save);
  save += *save == '\t';
  size_t ul = strcspn(save, "\t");
  gr_fmt(p->gpu_uuid, sizeof p->gpu_uuid, "%.*s", (int)ul, strncmp(save, "-\t", 2) ? save : "");
  save += ul + (save[ul] == '\t');
  gr_fmt(p->gpu_name, sizeof p->gpu_name, "%s", save);
  ss->started = 1;
}

/* GI BYTES, then the bytes of a struct gr_gpu_info. */
static void line_gi(struct session *ss, struct child *c, struct bench_plan *p,
                    const struct bench_opts *o, const char *rest, char *why, size_t len)
{
  struct gr_gpu_info g;
  size_t n = (size_t)strtoull(rest, NULL, 10);
  if (n == sizeof g && child_read(c, o->watchdog, &g, sizeof g) == CHILD_GOT) {
    g.name[sizeof g.name - 1] = g.uuid[sizeof g.uuid - 1] = 0;
    g.driver_release[sizeof g.driver_release - 1] = 0;
    p->gpu = g;
    p->have_gpu = 1;
  } else if (n != sizeof g) {
    gr_fmt(why, len, "the benchmark process sent a GPU description of %zu bytes, not %zu", n,
           sizeof g);
    ss->fatal = GR_STATUS_ENV;
  }
}

/* PEAK ALG ITEMS_PER_S NAME: an algorithm's item peak, once. */
static void line_peak(struct bench_plan *p, char *rest)
{
  char *save = NULL, *alg = strtok_r(rest, "\t", &save), *rate = strtok_r(NULL, "\t", &save);
  const struct gr_algorithm *a = alg ? registry_find(alg) : NULL;
  if (a && rate && !bench_peak_of(p, a) && p->n_peaks < sizeof p->peaks / sizeof *p->peaks) {
    struct bench_peak *pk = &p->peaks[p->n_peaks++];
    pk->alg = a;
    pk->items_per_s = strtod(rate, NULL);
    gr_fmt(pk->name, sizeof pk->name, "%s", save ? save : "");
  }
}

/* T I VERDICT LAUNCHES SECONDS REASON: an item's end, pending its metrics and samples. */
static void line_t(struct session *ss, char *rest)
{
  char *save = NULL, *f[5] = {0};
  f[0] = strtok_r(rest, "\t", &save);
  for (int k = 1; k < 4 && f[k - 1]; k++)
    f[k] = strtok_r(NULL, "\t", &save);
  f[4] = save ? save : "";
  int vd = f[1] ? verdict_parse(f[1]) : -1;
  ss->pending = f[0] ? strtol(f[0], NULL, 10) : -1;
  ss->pv = vd < 0 ? VERDICT_ERROR : (enum verdict)vd;
  ss->launches = f[2] ? strtol(f[2], NULL, 10) : 0;
  ss->seconds = f[3] ? strtod(f[3], NULL) : 0;
  gr_fmt(ss->reason, sizeof ss->reason, "%s", f[4]);
  ss->acc.n = 0;
}

/* Act on one line of the benchmark process. */
static void session_line(struct session *ss, char *line, struct child *c, struct samples *sm,
                         struct bench_plan *p, const struct bench_opts *o, size_t *next,
                         char *why, size_t len)
{
  char *save = NULL, *tag = strtok_r(line, "\t", &save), *rest = save ? save : "";
  if (!tag)
    return;
  if (strcmp(tag, "NOGPU") == 0) {
    for (size_t i = *next; i < p->n; i++) {
      finish_item(p, o, i, VERDICT_SKIP, 0, 0, rest, NULL, NULL, 0, NULL);
      p->res[i].status = GR_STATUS_NO_GPU;
      json_lost(ss, &p->items[i], VERDICT_SKIP, rest);
    }
    *next = p->n;
    ss->done = 1;
  } else if (strcmp(tag, "ERR") == 0) {
    gr_fmt(why, len, "%s", rest);
    ss->fatal = GR_STATUS_USAGE;
  } else if (strcmp(tag, "WAIT") == 0) {
    ss->waiting = 1; /* the process said on stderr what it waits for */
  } else if (strcmp(tag, "BW") == 0) {
    line_bw(ss, p, rest);
  } else if (strcmp(tag, "GI") == 0) { /* the GPU's description: our own child's bytes */
    line_gi(ss, c, p, o, rest, why, len);
  } else if (strcmp(tag, "PEAK") == 0) {
    line_peak(p, rest);
  } else if (strcmp(tag, "X") == 0) { /* another lane's: its result stays not done here */
    size_t i = (size_t)strtoull(rest, NULL, 10);
    if (i < p->n && i >= *next)
      *next = i + 1;
  } else if (strcmp(tag, "N") == 0) {
    ss->no_gpu = strtol(rest, NULL, 10);
  } else if (strcmp(tag, "B") == 0) {
    ss->cur = strtol(rest, NULL, 10);
    sm->n = 0;
    ss->pending = -1;
  } else if (strcmp(tag, "T") == 0) {
    line_t(ss, rest);
  } else if (strcmp(tag, "M") == 0 && ss->pending >= 0) { /* an accuracy metric: NAME VALUE */
    char *name = strtok_r(rest, "\t", &save);
    if (name && save)
      gr_metrics_add(&ss->acc, name, strtod(save, NULL));
  } else if (strcmp(tag, "S") == 0 && ss->pending >= 0) {
    if (samples_read(c, sm, (size_t)strtoull(rest, NULL, 10), o->watchdog))
      sm->n = 0; /* out of memory or a broken pipe: the samples are lost, the end tells */
  } else if (strcmp(tag, "E") == 0 && ss->pending >= 0 && (size_t)ss->pending < p->n) {
    finish_item(p, o, (size_t)ss->pending, ss->pv, ss->launches, ss->seconds, ss->reason, sm->ms,
                sm->clk, sm->n, &ss->acc);
    if (ss->no_gpu == ss->pending)
      p->res[ss->pending].status = GR_STATUS_NO_GPU;
    *next = (size_t)ss->pending + 1;
    ss->cur = ss->pending = -1;
    sm->n = 0;
  } else if (strcmp(tag, "J") == 0) {
    char *end;
    int what = (int)strtol(rest, &end, 10);
    if (json_read(c, ss, what, (size_t)strtoull(end, NULL, 10), o->watchdog) && ss->json)
      ss->json->oom = 1;
  } else if (strcmp(tag, "DONE") == 0) {
    ss->done = 1;
    *next = p->n;
  }
}

/* Timing stops: an interrupt, or the store failed (nothing more could be recorded). */
static int bench_stop(const struct bench_opts *o)
{
  return bench_interrupted || (o->store && store_write_failed(o->store));
}

/* The plan in one benchmark process after another, on the one GPU this process sees. */
/* The lines of one benchmark process c until it ends, stops answering or is told to stop: each
 * read into the session ss (session_line); an item it was timing when it died or went silent
 * is finished as a crash or a timeout (skip when interrupted) and *next moves past it. */
static void session_run(struct session *ss, struct child *c, struct samples *sm,
                        struct bench_plan *p, const struct bench_opts *o, size_t *next,
                        int *restarts, char *why, size_t len)
{
  char line[GR_WHY_LEN * 4];
  for (;;) {
    /* waiting for the GPU's lock: no watchdog (the holder is bounded by its own), an interrupt
     * still stops it */
    enum child_read_status r =
        child_read_line(c, ss->waiting ? 1.0 : o->watchdog, line, sizeof line);
    if (r == CHILD_TIMEOUT && ss->waiting && !bench_stop(o))
      continue;
    if (r == CHILD_TIMEOUT || (r == CHILD_GOT && bench_stop(o))) {
      child_finish(c, 1, NULL, 0);
      int stopped = bench_stop(o);
      if (ss->cur < 0 && !stopped) {
        gr_fmt(why, len, "the benchmark process did not answer within %.0f s", o->watchdog);
        ss->fatal = GR_STATUS_ENV;
      } else if (ss->cur >= 0) {
        (*restarts)++;
        /* interrupted (or the store failed): not run to the end, a skip, never a timeout */
        enum verdict vd = stopped ? VERDICT_SKIP : VERDICT_TIMEOUT;
        const char *msg = stopped ? "interrupted" : "no word within the watchdog";
        finish_item(p, o, (size_t)ss->cur, vd, 0, o->watchdog, msg, NULL, NULL, 0, NULL);
        json_lost(ss, &p->items[ss->cur], vd, msg);
        *next = (size_t)ss->cur + 1;
      }
      return;
    }
    if (r != CHILD_GOT) {
      char msg[GR_WHY_LEN];
      child_finish(c, 0, msg, sizeof msg);
      if (!ss->done && ss->cur >= 0) {
        finish_item(p, o, (size_t)ss->cur, VERDICT_CRASH, 0, 0, msg, NULL, NULL, 0, NULL);
        json_lost(ss, &p->items[ss->cur], VERDICT_CRASH, msg);
        *next = (size_t)ss->cur + 1;
        (*restarts)++;
      } else if (!ss->done) {
        gr_fmt(why, len, "the benchmark process ended before any benchmark: %s", msg);
        ss->fatal = GR_STATUS_ENV;
      }
      return;
    }
    session_line(ss, line, c, sm, p, o, next, why, len);
    if (ss->fatal) {
      child_finish(c, 1, NULL, 0);
      return;
    }
  }
}

/* Google Benchmark's JSON (--json) written whole at the end, with the run's context. */
static void write_json(struct bench_json *json, const struct bench_plan *p,
                       const struct bench_opts *o)
{
  const char *extra[] = {"gpu", p->gpu_name[0] ? p->gpu_name : "none", "commit",
                         o->commit ? o->commit : "unknown", "gpuregress_version",
                         o->gr_version ? o->gr_version : "unknown", "gpuregress_commit",
                         o->gr_commit ? o->gr_commit : "unknown", "runner", gr_runner_name(),
                         NULL};
  char msg[GR_WHY_LEN];
  if (json->oom)
    fprintf(stderr, "gpuregress bench: part of the JSON was lost (out of memory)\n");
  if (bench_json_write(json, o->json, extra, msg, sizeof msg))
    fprintf(stderr, "gpuregress bench: %s\n", msg);
}

enum gr_status bench_execute_here(struct bench_plan *p, const struct bench_opts *o, char *why,
                                  size_t len)
{
  size_t next = 0;
  struct samples sm = {0};
  int restarts = 0, started_any = 0;
  enum gr_status rc = GR_STATUS_OK;
  struct bench_json json;
  bench_json_init(&json);
  while (next < p->n && !bench_stop(o)) {
    struct bench_child_arg arg = {p, o, next};
    struct child c;
    child_init(&c);
    c.what = "benchmark process";
    c.fn = bench_child_main;
    c.arg = &arg;
    c.pipe_out = c.pipe_err = c.forward_err = 1; /* Google Benchmark's table, CUDA errors */
    if (child_start(&c)) {
      gr_fmt(why, len, "cannot start the benchmark process: %s", strerror(errno));
      rc = GR_STATUS_ENV;
      break;
    }
    struct session ss = {.cur = -1, .pending = -1, .no_gpu = -1, .pv = VERDICT_PASS,
                         .json = o->json ? &json : NULL};
    session_run(&ss, &c, &sm, p, o, &next, &restarts, why, len);
    started_any |= ss.started;
    if (ss.fatal) {
      rc = ss.fatal;
      break;
    }
    if (restarts > 50) {
      gr_fmt(why, len, "the benchmark process crashed %d times: giving up", restarts);
      rc = started_any ? GR_STATUS_OK : GR_STATUS_ENV;
      break;
    }
  }
  free(sm.ms);
  free(sm.clk);
  if (o->json)
    write_json(&json, p, o);
  bench_json_release(&json);
  return rc;
}
