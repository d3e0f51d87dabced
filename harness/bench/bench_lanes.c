/* The timing layer over the GPUs of a host (bench --gpus): the plan dealt to one lane process per
 * GPU (lanes.h), each timing its share in one benchmark process. See bench_private.h. */
#define _GNU_SOURCE
#include "bench_private.h"

#include <stdlib.h>
#include <string.h>

#include "lanes.h"

/* The plan over lanes (lanes.h). The plan's (algorithm, case) groups (the items of one case
 * share its input and reference) are dealt to the lanes up front, the costliest group first to
 * the least loaded lane (longest processing time first). A group's cost is the seconds its
 * benchmarks took when last timed in this database (timings.seconds: setup, sampling and the
 * check after it); a benchmark never timed counts as the mean of those that were, or 1 when
 * none was: with no history the groups are dealt by their number of benchmarks. Each lane
 * times its groups in one benchmark process, holding its GPU's lock exclusively: a benchmark
 * process starts a CUDA context and measures the copy bandwidth and the item peaks, once per
 * lane rather than once per group. With one GPU the whole plan is one job: the same single
 * benchmark process as without --gpus. Each lane stores its timings through its own
 * connection; the results come back to fill p->res. */
struct bench_lanes {
  struct bench_plan *p;
  const struct bench_opts *o;
  size_t *idx;           /* the plan's items, job after job */
  size_t *start, *count; /* job j: idx[start[j] .. start[j] + count[j]) */
  struct store *lane_store;
  char lane_why[GR_WHY_LEN];
  enum gr_status status; /* the worst a lane reported */
  size_t gpu_lane;       /* the lane whose GPU description p->gpu holds */
  char why[GR_WHY_LEN];
};

/* What a lane sends back for a group: this header, then the group's results. */
struct bench_lane_res {
  enum gr_status status;
  char why[GR_WHY_LEN];
  double copy_gbps;
  char gpu_name[128], gpu_uuid[48];
  size_t n_peaks;
  struct bench_peak peaks[16];
  struct gpu_info gpu;
  int have_gpu;
};

static void bench_lane_begin(void *ctx, size_t lane)
{
  struct bench_lanes *b = ctx;
  (void)lane;
  setenv("GPUREGRESS_GPU_LOCKED", "1", 1); /* the lane holds it: its benchmark process must not
                                            * wait for it */
  if (b->o->store && store_open(store_path(b->o->store), &b->lane_store, b->lane_why,
                                sizeof b->lane_why))
    b->lane_store = NULL;
}

static void bench_lane_end(void *ctx, size_t lane)
{
  (void)lane;
  store_close(((struct bench_lanes *)ctx)->lane_store);
}

static void bench_lane_job(void *ctx, size_t lane, size_t job, double param, void **res,
                           size_t *len)
{
  struct bench_lanes *b = ctx;
  size_t n = b->count[job];
  (void)lane;
  (void)param;
  struct bench_lane_res *r = calloc(1, sizeof *r + n * sizeof(struct bench_result));
  *res = r;
  *len = r ? sizeof *r + n * sizeof(struct bench_result) : 0;
  if (!r)
    return;
  struct bench_result *rr = (struct bench_result *)(r + 1);
  if (b->o->store && !b->lane_store) {
    r->status = GR_STATUS_ENV;
    gr_fmt(r->why, sizeof r->why, "%s", b->lane_why);
    return;
  }
  struct bench_plan sub = *b->p;
  sub.have_gpu = 0;
  struct bench_item *items = malloc((n ? n : 1) * sizeof *items);
  if (!items) {
    r->status = GR_STATUS_ENV;
    gr_fmt(r->why, sizeof r->why, "out of memory");
    return;
  }
  for (size_t k = 0; k < n; k++)
    items[k] = b->p->items[b->idx[b->start[job] + k]];
  sub.items = items;
  sub.res = rr;
  sub.n = n;
  sub.n_peaks = 0;
  struct bench_opts o = *b->o;
  o.store = b->lane_store;
  o.gpus = NULL;
  r->status = bench_execute_here(&sub, &o, r->why, sizeof r->why);
  if (r->status == GR_STATUS_OK && o.store && store_write_failed(o.store)) {
    r->status = GR_STATUS_USAGE; /* a database error: exit 2, as on one GPU */
    gr_fmt(r->why, sizeof r->why, "cannot store the timings in '%s': %s", store_path(o.store),
           store_errmsg(o.store));
  }
  r->copy_gbps = sub.copy_gbps;
  memcpy(r->gpu_name, sub.gpu_name, sizeof r->gpu_name);
  memcpy(r->gpu_uuid, sub.gpu_uuid, sizeof r->gpu_uuid);
  r->gpu = sub.gpu;
  r->have_gpu = sub.have_gpu;
  r->n_peaks = sub.n_peaks;
  memcpy(r->peaks, sub.peaks, sizeof r->peaks);
  free(items);
}

static void bench_lane_done(void *ctx, size_t job, size_t lane, const void *res, size_t len)
{
  struct bench_lanes *b = ctx;
  struct bench_plan *p = b->p;
  const size_t *idx = b->idx + b->start[job], n = b->count[job];
  const struct bench_lane_res *r = res;
  if (!r || len != sizeof *r + n * sizeof(struct bench_result)) {
    const char *msg = bench_interrupted ? "interrupted" : "its lane process died";
    for (size_t k = 0; k < n; k++) {
      struct bench_result *pr = &p->res[idx[k]];
      memset(pr, 0, sizeof *pr);
      pr->done = !bench_interrupted;
      pr->verdict = bench_interrupted ? VERDICT_SKIP : VERDICT_CRASH;
      gr_fmt(pr->reason, sizeof pr->reason, "%s", msg);
    }
    return;
  }
  const struct bench_result *rr = (const struct bench_result *)(r + 1);
  for (size_t k = 0; k < n; k++)
    p->res[idx[k]] = rr[k];
  if (r->status != GR_STATUS_OK && b->status == GR_STATUS_OK) {
    b->status = r->status;
    gr_fmt(b->why, sizeof b->why, "%s", r->why);
  }
  if (r->have_gpu && (!p->have_gpu || lane < b->gpu_lane)) { /* the run describes the first */
    p->gpu = r->gpu;
    p->have_gpu = 1;
    b->gpu_lane = lane;
  }
  if (r->gpu_name[0]) {
    p->copy_gbps = r->copy_gbps;
    memcpy(p->gpu_name, r->gpu_name, sizeof p->gpu_name);
    memcpy(p->gpu_uuid, r->gpu_uuid, sizeof p->gpu_uuid);
  }
  for (size_t k = 0; k < r->n_peaks && k < 16; k++)
    if (!bench_peak_of(p, r->peaks[k].alg) && p->n_peaks < sizeof p->peaks / sizeof *p->peaks)
      p->peaks[p->n_peaks++] = r->peaks[k];
}

/* Deal the plan's groups to nl lanes (see the top of this file): lane_of[g] for each group g
 * of the ng starting at gs[g] with gc[g] items. */
static void bench_deal(const struct bench_plan *p, const struct bench_opts *o, size_t nl,
                       const size_t *gs, const size_t *gc, size_t ng, double *cost,
                       double *gcost, size_t *order, double *load, size_t *lane_of)
{
  double known = 0;
  size_t n_known = 0;
  for (size_t i = 0; i < p->n; i++) { /* each benchmark's expected seconds */
    cost[i] = 0;
    if (o->store && store_last_seconds(o->store, p->items[i].alg->name, p->items[i].v->name,
                                       p->items[i].params, &cost[i]) == 0) {
      known += cost[i];
      n_known++;
    }
  }
  for (size_t g = 0; g < ng; g++) {
    gcost[g] = 0;
    for (size_t k = 0; k < gc[g]; k++) {
      double c = cost[gs[g] + k];
      gcost[g] += c > 0 ? c : n_known ? known / (double)n_known : 1.0;
    }
    order[g] = g;
  }
  for (size_t a = 1; a < ng; a++) /* the costliest group first (stable) */
    for (size_t k = a; k > 0 && gcost[order[k]] > gcost[order[k - 1]]; k--) {
      size_t t = order[k];
      order[k] = order[k - 1];
      order[k - 1] = t;
    }
  for (size_t l = 0; l < nl; l++)
    load[l] = 0;
  for (size_t k = 0; k < ng; k++) { /* ... to the least loaded lane */
    size_t best = 0;
    for (size_t l = 1; l < nl; l++)
      best = load[l] < load[best] ? l : best;
    lane_of[order[k]] = best;
    load[best] += gcost[order[k]];
  }
}

enum gr_status bench_execute_lanes(struct bench_plan *p, const struct bench_opts *o, char *why,
                                   size_t len)
{
  struct bench_lanes b = {.p = p, .o = o};
  size_t nl = o->gpus->n, cap = p->n ? p->n : 1, ng = 0;
  size_t *gs = calloc(cap, sizeof *gs), *gc = calloc(cap, sizeof *gc), *order = calloc(cap, sizeof *order);
  size_t *lane_of = calloc(cap, sizeof *lane_of);
  double *load = calloc(nl, sizeof *load), *cost = calloc(cap, sizeof *cost);
  double *gcost = calloc(cap, sizeof *gcost);
  b.idx = calloc(cap, sizeof *b.idx);
  b.start = calloc(nl, sizeof *b.start);
  b.count = calloc(nl, sizeof *b.count);
  if (!gs || !gc || !order || !lane_of || !load || !cost || !gcost || !b.idx || !b.start ||
      !b.count) {
    free(gs), free(gc), free(order), free(lane_of), free(load), free(cost), free(gcost);
    free(b.idx), free(b.start), free(b.count);
    gr_fmt(why, len, "out of memory");
    return GR_STATUS_ENV;
  }
  for (size_t i = 0; i < p->n; i++) { /* the (algorithm, case) groups */
    if (!ng || p->items[i].alg != p->items[i - 1].alg ||
        p->items[i].case_no != p->items[i - 1].case_no)
      gs[ng++] = i;
    gc[ng - 1]++;
  }
  bench_deal(p, o, nl, gs, gc, ng, cost, gcost, order, load, lane_of);
  size_t jobs = 0, at = 0;
  for (size_t l = 0; l < nl; l++) { /* a job per lane with items: its groups in plan order */
    b.start[jobs] = at;
    for (size_t g = 0; g < ng; g++)
      for (size_t k = 0; lane_of[g] == l && k < gc[g]; k++)
        b.idx[at++] = gs[g] + k;
    b.count[jobs] = at - b.start[jobs];
    jobs += b.count[jobs] > 0;
  }
  free(gs), free(gc), free(order), free(lane_of), free(load), free(cost), free(gcost);
  struct lanes_spec spec = {
      .gpus = o->gpus, .n_jobs = jobs, .exclusive = 1, .ctx = &b, .begin = bench_lane_begin,
      .end = bench_lane_end, .job = bench_lane_job, .done = bench_lane_done,
      .interrupted = &bench_interrupted, .lane_flags = {&bench_interrupted, NULL}};
  enum gr_status rc = GR_STATUS_OK;
  if (o->store)
    store_suspend(o->store);
  if (lanes_run(&spec, why, len))
    rc = GR_STATUS_ENV;
  if (o->store && store_resume(o->store, why, len))
    rc = GR_STATUS_ENV;
  if (rc == GR_STATUS_OK && b.status != GR_STATUS_OK) {
    rc = b.status;
    gr_fmt(why, len, "%s", b.why);
  }
  free(b.idx);
  free(b.start);
  free(b.count);
  return rc;
}
