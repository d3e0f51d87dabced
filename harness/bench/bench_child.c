/* The benchmark process: runs the plan's items from `start` on through Google Benchmark and
 * reports each over a pipe (protocol in bench_child.h). It measures and checks; it does not
 * summarise for the store: the samples go to the parent raw, and the parent (bench.c) computes
 * the summary and the rates. Only this process initialises CUDA. */
#define _GNU_SOURCE
#include "bench_child.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_gpu.h"
#include "bench_hooks.h"
#include "bench_sample.h"
#include "bench_prebuild.h"
#include "bench_shim.h"
#include "child.h"
#include "gpu.h"
#include "worker.h"

struct bench_child {
  const struct bench_plan *p;
  const struct bench_opts *o;
  int fd;
  /* the instance of the last case, shared by that case's variants */
  const struct gr_algorithm *inst_alg;
  char inst_text[GR_CASE_TEXT_LEN];
  struct gr_case inst_case;
  struct gr_instance *inst;
  struct bench_samples smp; /* the samples of the item being timed */
  size_t declined; /* the group of another lane this one left to its owner (bench_take) */
  int no_gpu;      /* no usable device: only host-timed items run (GR_VARIANT_HOST_TIMED) */
  char no_gpu_why[GR_WHY_LEN];
};

static struct bench_child C;

/* Before blocking on the GPU's lock: the parent's watchdog must not count the wait (another
 * gpuregress job of this host holds the GPU, and that job is bounded by its own budget). */
static void say_waiting(const char *what, void *arg)
{
  (void)arg;
  child_say(C.fd, "WAIT\t%s", what);
}

/* Google Benchmark's JSON for the parent (bench_json.h): "J\t<what>\t<bytes>" then the bytes. */
static void send_json(void *ctx, int what, const char *text, size_t len)
{
  (void)ctx;
  child_say(C.fd, "J\t%d\t%zu", what, len);
  child_say_bytes(C.fd, text, len);
}

/* The JSON's context: what ran where, from which commit. */
static void add_context(const struct gr_gpu_info *g, const struct bench_opts *o)
{
  char b[64];
  gbench_context("gpu", g->name);
  gbench_context("gpu_cc", gr_fmt(b, sizeof b, "%d.%d", g->cc_major, g->cc_minor));
  gbench_context("gpu_sms", gr_fmt(b, sizeof b, "%d", g->sm_count));
  /* the driver's release (NVML), not the CUDA version it supports (that is driver_cuda) */
  gbench_context("driver", g->driver_release[0] ? g->driver_release : "unknown");
  gbench_context("driver_cuda", gr_fmt(b, sizeof b, "%d.%d", g->driver_version / 1000,
                                       g->driver_version % 1000 / 10));
  gbench_context("cuda_runtime", gr_fmt(b, sizeof b, "%d.%d", g->runtime_version / 1000,
                                        g->runtime_version % 1000 / 10));
  gbench_context("sm_clock_mhz", gr_fmt(b, sizeof b, "%d", g->sm_clock_khz / 1000));
  gbench_context("mem_clock_mhz", gr_fmt(b, sizeof b, "%d", g->mem_clock_khz / 1000));
  if (g->sm_clock_now_mhz || g->temp_c) {
    gbench_context("sm_clock_now_mhz", gr_fmt(b, sizeof b, "%d", g->sm_clock_now_mhz));
    gbench_context("mem_clock_now_mhz", gr_fmt(b, sizeof b, "%d", g->mem_clock_now_mhz));
    gbench_context("gpu_temp_c", gr_fmt(b, sizeof b, "%d", g->temp_c));
  }
  gbench_context("commit", o->commit ? o->commit : "unknown"); /* the code under test's */
  gbench_context("gpuregress_version", o->gr_version ? o->gr_version : "unknown");
  gbench_context("gpuregress_commit", o->gr_commit ? o->gr_commit : "unknown");
  gbench_context("runner", gr_runner_name());
  gbench_context("l2", o->hot ? "hot" : "cold");
  gbench_context("rounds", gr_fmt(b, sizeof b, "%d", o->rounds > 1 ? o->rounds : 1));
  gbench_context("real_time", "median GPU time of one launch (CUDA events)");
  gbench_context("cpu_time", "host CPU time per launch over the sampling loop");
}

static struct gr_instance *child_instance(size_t i, char *why, size_t len)
{
  const struct bench_item *it = &C.p->items[i];
  char text[GR_CASE_TEXT_LEN];
  case_format(&it->c, text, sizeof text);
  if (C.inst && strcmp(text, C.inst_text) == 0)
    return C.inst;
  if (C.inst)
    C.inst_alg->instance_free(C.inst);
  C.inst = NULL;
  if ((C.inst = prebuild_take(i, text, &C.inst_alg))) { /* built ahead */
    gr_fmt(C.inst_text, sizeof C.inst_text, "%s", text);
    return C.inst;
  }
  C.inst_case = it->c; /* the instance keeps a pointer to its case */
  double t0 = now_seconds();
  if (it->alg->instance_new(&C.inst_case, &C.inst, why, len)) {
    C.inst = NULL;
    return NULL;
  }
  bench_built(C.p, i, now_seconds() - t0);
  C.inst_alg = it->alg;
  gr_fmt(C.inst_text, sizeof C.inst_text, "%s", text);
  return C.inst;
}

static void report_end(size_t i, const char *verdict, long launches, double seconds, char *reason,
                       size_t n, const struct gr_metrics *acc)
{
  child_flatten(reason);
  child_say(C.fd, "T\t%zu\t%s\t%ld\t%.6f\t%s", i, verdict, launches, seconds, reason);
  for (size_t k = 0; acc && k < acc->n; k++)
    child_say(C.fd, "M\t%s\t%.17g", acc->name[k], acc->value[k]);
  if (n) { /* the raw samples, bytes as they are in memory: the parent summarises them */
    child_say(C.fd, "S\t%zu", n);
    child_say_bytes(C.fd, C.smp.ms, n * sizeof *C.smp.ms);
    child_say_bytes(C.fd, C.smp.clk, n * sizeof *C.smp.clk);
  }
  child_say(C.fd, "E\t%zu", i);
}

/* Before the timing of item i: taken by this lane, a device when it needs one, the device memory
 * the case needs, its instance, the variant set up. 1 with *inst, *state (and h) to time; 0
 * when the item ended here (reported). */
static int child_prepare(struct gbench_state *gs, size_t i, double t0, struct bench_hooks *h,
                         struct gr_instance **inst, void **state)
{
  const struct bench_item *it = &C.p->items[i];
  const struct gr_algorithm *a = it->alg;
  char why[GR_WHY_LEN] = "";
  if (!bench_take(C.p, i, now_seconds(), &C.declined)) {
    child_say(C.fd, "X\t%zu", i);
    gbench_skip(gs, "timed on another GPU");
    return 0;
  }
  child_say(C.fd, "B\t%zu", i);
  int on_gpu = (it->v->flags & GR_VARIANT_GPU) != 0;
  if (on_gpu && C.no_gpu) { /* a host-timed item's process without a device */
    child_say(C.fd, "N\t%zu", i);
    gbench_skip(gs, C.no_gpu_why);
    report_end(i, "skip", 0, now_seconds() - t0, C.no_gpu_why, 0, NULL);
    return 0;
  }
  size_t free_b = 0, total_b = 0, need = on_gpu && a->device_bytes ? a->device_bytes(&it->c) : 0;
  if (on_gpu)
    gr_gpu_mem_info(&free_b, &total_b);
  if (need > free_b) {
    gr_fmt(why, sizeof why, "case needs %.2f GiB of device memory, %.2f GiB free",
           (double)need / (1 << 30), (double)free_b / (1 << 30));
    gbench_skip(gs, why);
    report_end(i, "skip", 0, now_seconds() - t0, why, 0, NULL);
    return 0;
  }
  if (!(*inst = child_instance(i, why, sizeof why))) {
    gbench_skip(gs, why);
    report_end(i, "error", 0, now_seconds() - t0, why, 0, NULL);
    return 0;
  }
  bench_hooks_of(a, h);
  if (!(*state = h->setup(it->v, *inst, why, sizeof why))) {
    gbench_skip(gs, why[0] ? why : "this variant cannot take this case");
    report_end(i, "skip", 0, now_seconds() - t0, why, 0, NULL);
    return 0;
  }
  return 1;
}

/* The output is still right after the timing loop: fetched and checked. The verdict (pass,
 * fail, caught, error) with why. */
static const char *check_after(const struct bench_item *it, const struct gr_instance *inst,
                               const struct bench_hooks *h, void *state,
                               struct gr_check_report *rep, char *why, size_t len)
{
  const char *verdict = "pass";
  memset(rep, 0, sizeof *rep);
  void *out = malloc(inst->out_bytes ? inst->out_bytes : 1);
  if (!out) {
    gr_fmt(why, len, "out of host memory for the output");
    return "error";
  }
  h->fetch(state, out);
  if (it->alg->check(inst, out, rep)) {
    verdict = it->v->kind == GR_VARIANT_HISTORICAL ? "caught" : "fail";
    gr_fmt(why, len, "after the timing loop: %s", rep->why);
  }
  free(out);
  return verdict;
}

/* Google Benchmark's counters of the item (its table only: the parent stores its own). */
static void report_counters(struct gbench_state *gs, const struct bench_item *it,
                            const struct stats_summary *s, size_t n, long launches)
{
  struct bench_rate rate;
  bench_rates(C.p, it, s->median, &rate);
  gbench_counter(gs, "bytes_per_second", rate.gbps * 1e9);
  gbench_counter(gs, "items_per_second", rate.items_per_s);
  gbench_counter(gs, "%copy", rate.pct_copy);
  if (rate.peak_items_per_s > 0)
    gbench_counter(gs, "%peak", rate.pct_peak);
  gbench_counter(gs, "noise%", 100 * s->noise);
  gbench_counter(gs, "samples", (double)n);
  gbench_counter(gs, "launches", (double)launches);
  if (n)
    gbench_counter(gs, "sm_MHz", (double)C.smp.clk[n - 1]);
}

static void child_body(struct gbench_state *gs, void *arg)
{
  size_t i = (size_t)(uintptr_t)arg;
  const struct bench_item *it = &C.p->items[i];
  const struct bench_opts *o = C.o;
  char why[GR_WHY_LEN] = "";
  double t0 = now_seconds();
  struct bench_hooks h;
  struct gr_instance *inst;
  void *state;
  if (!child_prepare(gs, i, t0, &h, &inst, &state))
    return;
  struct bench_sampling sm;
  bench_calibrate(it, state, o, &sm);
  struct stats_summary s;
  size_t n = bench_sample_all(gs, it, inst, &h, &state, o, &sm, &C.smp, &s, why, sizeof why);
  if (!state) { /* a round's set-up failed: what was sampled is kept, nothing to check */
    gbench_label(gs, "error");
    report_end(i, "error", sm.launches, now_seconds() - t0, why, n, NULL);
    return;
  }
  if (!why[0] && s.noise > o->noise)
    gr_fmt(why, sizeof why, "noise %.2f%% above the %.2f%% target after %zu samples (cap %.2g s)",
           100 * s.noise, 100 * o->noise, n, o->max_time);
  struct gr_check_report rep;
  const char *verdict = check_after(it, inst, &h, state, &rep, why, sizeof why);
  h.teardown(state);
  report_counters(gs, it, &s, n, sm.launches);
  gbench_label(gs, verdict);
  report_end(i, verdict, sm.launches, now_seconds() - t0, why, n, &rep.acc);
}

/* The device is up: describe it, take its lock, measure the copy bandwidth and the item peaks of
 * the plan's algorithms from start on, each reported to the parent (GI, WAIT, BW, PEAK). */
static void gpu_setup(struct bench_plan *p, const struct bench_opts *o, size_t start)
{
  char why[GR_WHY_LEN];
  /* the context is up: the next lane may start its own while this one describes its GPU (NVML)
   * and measures the copy bandwidth, which the driver does not serialise */
  bench_lane_started(p, 1);
  struct gr_gpu_info info;
  if (gr_gpu_query(&info, why, sizeof why) == 0) {
    gr_fmt(p->gpu_name, sizeof p->gpu_name, "%s", info.name);
    gr_fmt(p->gpu_uuid, sizeof p->gpu_uuid, "%s", info.uuid);
    add_context(&info, o);
    child_say(C.fd, "GI\t%zu", sizeof info); /* the whole description, bytes as in memory */
    child_say_bytes(C.fd, &info, sizeof info);
  }
  /* alone on the GPU: no other gpuregress job of this host loads it while we time (a lane
   * holds the lock already for its job: GPUREGRESS_GPU_LOCKED) */
  const char *locked = getenv("GPUREGRESS_GPU_LOCKED");
  if (p->gpu_uuid[0] && !(locked && *locked)) {
    struct gpu_slot slot = {.index = -1};
    gr_fmt(slot.uuid, sizeof slot.uuid, "%s", p->gpu_uuid);
    gpus_lock_wait(&slot, 1, say_waiting, NULL); /* held until this process ends */
  }
  p->copy_gbps = bench_gpu_copy_gbps();
  child_flatten(p->gpu_name);
  child_say(C.fd, "BW\t%.6f\t%s\t%s", p->copy_gbps, p->gpu_uuid[0] ? p->gpu_uuid : "-",
            p->gpu_name);
  p->n_peaks = 0;
  for (size_t i = start; i < p->n; i++) {
    const struct gr_algorithm *a = p->items[i].alg;
    if (!a->item_peak || bench_peak_of(p, a) || p->n_peaks == sizeof p->peaks / sizeof *p->peaks)
      continue;
    struct bench_peak *pk = &p->peaks[p->n_peaks++];
    pk->alg = a;
    pk->name[0] = 0;
    pk->items_per_s = a->item_peak(pk->name, sizeof pk->name);
    child_flatten(pk->name);
    child_say(C.fd, "PEAK\t%s\t%.6g\t%s", a->name, pk->items_per_s, pk->name);
  }
}

int bench_child_main(void *arg, int in, int out)
{
  struct bench_child_arg *ca = arg;
  struct bench_plan *p = ca->p;
  const struct bench_opts *o = ca->o;
  size_t start = ca->start;
  char why[GR_WHY_LEN];
  (void)in;
  C.p = p;
  C.o = o;
  C.fd = out;
  C.declined = (size_t)-1;
  char **argv = calloc((size_t)o->n_gb_args + 3, sizeof *argv);
  int argc = 0, color_given = 0;
  if (!argv)
    return 3;
  argv[argc++] = "gpuregress-bench";
  for (int k = 0; k < o->n_gb_args; k++) {
    color_given |= strncmp(o->gb_args[k], "--benchmark_color", 17) == 0;
    argv[argc++] = o->gb_args[k];
  }
  if (!color_given && !gr_color(STDOUT_FILENO)) /* its own reporters: NO_COLOR, not a terminal */
    argv[argc++] = "--benchmark_color=false";
  if (gbench_init(argc, argv, why, sizeof why)) {
    child_flatten(why);
    child_say(C.fd, "ERR\t%s", why);
    return 0;
  }
  prebuild_start(p, start);
  if (p->turns) /* after the lanes before this one (bench_plan.h); its cases build meanwhile */
    bench_turn_wait(p->turns, p->claim_tag - 1, 2.0);
  int host_items = 0;
  for (size_t i = start; i < p->n; i++)
    host_items += !(p->items[i].v->flags & GR_VARIANT_GPU);
  if (!worker_gpu_ready(why, sizeof why) || bench_gpu_open(!o->hot, why, sizeof why)) {
    bench_lane_started(p, 0);
    child_flatten(why);
    if (!host_items) {
      prebuild_free();
      child_say(C.fd, "NOGPU\t%s", why);
      return 0;
    }
    C.no_gpu = 1; /* the host-timed items still run; the GPU ones skip with this reason */
    gr_fmt(C.no_gpu_why, sizeof C.no_gpu_why, "%s", why);
  } else {
    gpu_setup(p, o, start);
  }
  prebuild_stop(!p->claim); /* one GPU: nothing runs beside the timing (bench_prebuild.c) */
  for (size_t i = start; i < p->n; i++)
    gbench_register(p->items[i].name, child_body, (void *)(uintptr_t)i);
  gbench_run(o->display, o->json ? send_json : NULL, NULL);
  gbench_shutdown();
  child_say(C.fd, "DONE");
  if (C.inst)
    C.inst_alg->instance_free(C.inst);
  prebuild_free();
  bench_gpu_close();
  return 0;
}