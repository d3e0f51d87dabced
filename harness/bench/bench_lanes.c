/* The timing layer over the GPUs of a host (bench --gpus): the plan dealt to one lane process per
 * GPU (lanes.h), each timing its share in one benchmark process. See bench_private.h. */
#define _GNU_SOURCE
#include "bench_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lanes.h"

/* The plan over lanes (lanes.h). The plan's (algorithm, case) groups (the items of one case
 * share its input and reference) are dealt to the lanes up front, the costliest group first to
 * the least loaded lane (longest processing time first). A group's cost is the seconds its
 * benchmarks took when last timed in this database (timings.seconds: setup, sampling and the
 * check after it); a benchmark never timed counts as the mean of those that were (1 when none
 * was), weighted from 0.5 to 1.5 by its case's bytes: with no history the groups are dealt by
 * their number of benchmarks and size, the largest cases spread over the lanes. Each lane
 * times its groups in one benchmark process, holding its GPU's lock exclusively: a benchmark
 * process starts a CUDA context and measures the copy bandwidth and the item peaks, once per
 * lane rather than once per group. With one GPU the whole plan is one job: the same single
 * benchmark process as without --gpus. Each lane stores its timings through its own
 * connection; the results come back to fill p->res.
 *
 * The deal is a guess (a case's instance is built ahead in a lane and not on one GPU, the CUDA
 * start of the lanes differs by a second on 4 H200s): a lane that is through with its own groups
 * takes over the others' not yet begun, those planned to start last first. Every lane's list is
 * the whole plan, its own groups first (costliest first, so that what is left to take over at
 * the end is small), and a group is timed by the lane that claims it first (bench_plan.h,
 * claim: one int per group in memory the lanes share). A lane takes over a group only where
 * it would end it sooner than its owner, builds counted (bench_take): a group taken over has
 * its case built again, and one taken just before its owner came to it ended the run late.
 *
 * The lanes start CUDA one at a time, in job order (bench_turn_wait, bench_plan.c): the driver serialises
 * the starts anyway (BENCH_CUDA_START_S), so in turns the first lane times after one start
 * rather than after four, and the others build their cases while they wait. The deal stays
 * even: the lanes that start late have their cases built when their GPU is ready, the first
 * builds its own as it goes (seen on 4 H100s: dealt m starts' less, job 0 ended 0.7-1.1 s after
 * the others), and taking over evens out the rest. */
struct bench_lanes {
  struct bench_plan *p;
  const struct bench_opts *o;
  struct bench_lists l;  /* the jobs' lists (bench_private.h) */
  size_t jobs;
  const double *gcost;   /* per group: expected seconds */
  int *claim;            /* per group: 0, or the job that times it + 1 (shared by the lanes);
                          * NULL with one job */
  int *turns;            /* CUDA starts over (shared); NULL with one job */
  double *free_at;       /* per job: when it begins its next own group (shared); NULL with one */
  double *built_s;       /* per group: its case's build seconds (shared); NULL with one job */
  double *ready_at;      /* per job: when its CUDA start was over (shared); NULL with one job */
  double *end_at;        /* per job: when its lane was through with it (shared) */
  int *gpu_of;           /* per job: the GPU (nvidia-smi index) of the lane that ran it */
  int *lost;             /* per job: its lane died before it reported */
  struct store *lane_store;
  char lane_why[GR_WHY_LEN];
  enum gr_status status; /* the worst a lane reported */
  size_t gpu_lane;       /* the lane whose GPU description p->gpu holds */
  char why[GR_WHY_LEN];
};

/* What a lane sends back for its job: this header, then a result per item of its list. */
struct bench_lane_res {
  enum gr_status status;
  char why[GR_WHY_LEN];
  double copy_gbps;
  char gpu_name[128], gpu_uuid[48];
  size_t n_peaks;
  struct bench_peak peaks[16];
  struct gr_gpu_info gpu;
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
  size_t n = b->l.count[job];
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
    items[k] = b->p->items[b->l.idx[b->l.start[job] + k]];
  sub.items = items;
  sub.res = rr;
  sub.n = n;
  sub.n_peaks = 0;
  sub.claim = b->claim;
  sub.group = b->claim ? b->l.gid + b->l.start[job] : NULL;
  sub.claim_tag = (int)job + 1;
  sub.n_own = b->l.n_own[job];
  sub.turns = b->turns;
  sub.lists = &b->l;
  sub.jobs = b->jobs;
  sub.gcost = b->gcost;
  sub.free_at = b->free_at;
  sub.built_s = b->built_s;
  sub.ready_at = b->ready_at;
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
  if (b->end_at) {
    double t = now_seconds();
    __atomic_store(&b->end_at[job], &t, __ATOMIC_RELEASE);
  }
}

static void bench_lane_done(void *ctx, size_t job, size_t lane, const void *res, size_t len)
{
  struct bench_lanes *b = ctx;
  struct bench_plan *p = b->p;
  const size_t *idx = b->l.idx + b->l.start[job], n = b->l.count[job];
  const struct bench_lane_res *r = res;
  b->gpu_of[job] = b->o->gpus->slot[lane].index;
  if (!r || len != sizeof *r + n * sizeof(struct bench_result)) {
    b->lost[job] = 1; /* what it did not report: bench_lost */
    return;
  }
  const struct bench_result *rr = (const struct bench_result *)(r + 1);
  const size_t *gid = b->l.gid + b->l.start[job];
  for (size_t k = 0; k < n; k++) {
    /* its own claim's results stand; for a group no lane claimed (no GPU here, an interrupt)
     * what this lane said stands until a lane that times it says more */
    int owner = b->claim ? __atomic_load_n(&b->claim[gid[k]], __ATOMIC_ACQUIRE) : (int)job + 1;
    if (rr[k].done && (owner == (int)job + 1 || (owner == 0 && !p->res[idx[k]].done)))
      p->res[idx[k]] = rr[k];
  }
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

/* Each group's expected seconds (see the top of this file): gcost[g] for the ng groups starting
 * at gs[g] with gc[g] items; cost is scratch for p->n items. */
static void bench_costs(const struct bench_plan *p, const struct bench_opts *o, const size_t *gs,
                        const size_t *gc, size_t ng, double *cost, double *gcost)
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
  /* a benchmark without history: the mean of the known ones (else 1), from 0.5 to 1.5 times it
   * by its case's bytes (the work model) against the largest such case: the costliest of the
   * unknown groups are dealt first, one to each lane, not by plan order (which put the largest
   * size of every algorithm's sweep on the same lane) */
  double max_bytes = 0, *bytes = cost; /* bytes of the unknown items, then their cost */
  for (size_t i = 0; i < p->n; i++) {
    double b = 0, items = 0;
    if (cost[i] > 0)
      continue;
    if (p->items[i].alg->work)
      p->items[i].alg->work(&p->items[i].c, &b, &items);
    bytes[i] = -(b > 0 ? b : 0) - 1; /* < 0: unknown */
    max_bytes = -bytes[i] - 1 > max_bytes ? -bytes[i] - 1 : max_bytes;
  }
  double fallback = n_known ? known / (double)n_known : 1.0;
  for (size_t g = 0; g < ng; g++) {
    gcost[g] = 0;
    for (size_t k = 0; k < gc[g]; k++) {
      double c = cost[gs[g] + k];
      gcost[g] += c > 0 ? c
                        : fallback * (max_bytes > 0 ? 0.5 + (-c - 1) / max_bytes : 1.0);
    }
  }
}

/* order[0..n): 0..n-1 sorted by key, largest first (stable). */
static void sort_desc(size_t *order, const double *key, size_t n)
{
  for (size_t k = 0; k < n; k++)
    order[k] = k;
  for (size_t a = 1; a < n; a++)
    for (size_t k = a; k > 0 && key[order[k]] > key[order[k - 1]]; k--) {
      size_t t = order[k];
      order[k] = order[k - 1];
      order[k - 1] = t;
    }
}

int bench_lane_lists(size_t nl, const size_t *gs, const size_t *gc, const double *gcost,
                     size_t ng, struct bench_lists *l, size_t *jobs_out)
{
  size_t cap = ng ? ng : 1, jobs = 0, at = 0;
  size_t *order = calloc(cap, sizeof *order), *late = calloc(cap, sizeof *late);
  size_t *lane_of = calloc(cap, sizeof *lane_of);
  double *load = calloc(nl ? nl : 1, sizeof *load), *begin = calloc(cap, sizeof *begin);
  if (!order || !late || !lane_of || !load || !begin) {
    free(order), free(late), free(lane_of), free(load), free(begin);
    return -1;
  }
  sort_desc(order, gcost, ng);
  for (size_t k = 0; k < ng; k++) { /* the costliest group first to the least loaded lane */
    size_t best = 0;
    for (size_t m = 1; m < nl; m++)
      best = load[m] < load[best] ? m : best;
    lane_of[order[k]] = best;
    begin[order[k]] = load[best]; /* when it would begin on its lane, costliest first there */
    load[best] += gcost[order[k]];
  }
  for (size_t m = 0; m < nl; m++) /* a lane with no group of its own gets no job */
    for (size_t g = 0; g < ng; g++)
      if (lane_of[g] == m) {
        jobs++;
        break;
      }
  sort_desc(late, begin, ng); /* the groups planned to begin last first */
  size_t job = 0;
  for (size_t m = 0; m < nl; m++) {
    size_t first = at;
    for (size_t k = 0; k < ng; k++) { /* its own: costliest first (several jobs) */
      size_t g = jobs > 1 ? order[k] : k;
      for (size_t i = 0; lane_of[g] == m && i < gc[g]; i++, at++) {
        l->idx[at] = gs[g] + i;
        l->gid[at] = g;
      }
    }
    if (at == first)
      continue;
    l->start[job] = first;
    l->n_own[job] = at - first;
    for (size_t k = 0; jobs > 1 && k < ng; k++) /* then the others', to take over */
      for (size_t i = 0; lane_of[late[k]] != m && i < gc[late[k]]; i++, at++) {
        l->idx[at] = gs[late[k]] + i;
        l->gid[at] = late[k];
      }
    l->count[job] = at - first;
    job++;
  }
  free(order), free(late), free(lane_of), free(load), free(begin);
  *jobs_out = job;
  return 0;
}

/* After the lanes: what no lane reported because its lane died, or because the run was
 * interrupted before a lane took it. */
static void bench_lost(struct bench_lanes *b, size_t jobs, const size_t *group_of)
{
  int lost_any = 0;
  for (size_t j = 0; j < jobs; j++)
    lost_any |= b->lost[j];
  for (size_t i = 0; i < b->p->n; i++) {
    struct bench_result *pr = &b->p->res[i];
    int owner = b->claim ? b->claim[group_of[i]] : 1;
    if (pr->done || !(owner ? b->lost[owner - 1] : lost_any || bench_interrupted))
      continue;
    memset(pr, 0, sizeof *pr);
    pr->done = !bench_interrupted;
    pr->verdict = bench_interrupted ? VERDICT_SKIP : VERDICT_CRASH;
    gr_fmt(pr->reason, sizeof pr->reason, "%s",
           bench_interrupted ? "interrupted" : "its lane process died");
  }
}

/* The claims, the turns, when each job is free and the builds' seconds, in memory the lanes and
 * their benchmark processes share: [claim: ng ints][turns: 1 int][free_at: jobs doubles,
 * 8-aligned][built_s: ng doubles][ready_at: jobs doubles][end_at: jobs doubles]. 0, or -1 with
 * errno (*bytes the size to unmap). */
static int map_shared(struct bench_lanes *b, size_t ng, size_t jobs, double t0, size_t *bytes)
{
  size_t at_free = ((ng + 1) * sizeof(int) + 7) & ~(size_t)7;
  *bytes = at_free + (3 * jobs + ng) * sizeof(double);
  void *m = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return -1;
  b->claim = m; /* zero-filled: no group claimed, no start over */
  b->turns = b->claim + ng;
  b->free_at = (double *)((char *)m + at_free);
  b->built_s = b->free_at + jobs;
  b->ready_at = b->built_s + ng;
  b->end_at = b->ready_at + jobs;
  for (size_t j = 0; j < jobs; j++) /* free once its CUDA start is over, as the deal has it */
    b->free_at[j] = t0 + (double)(j + 1) * BENCH_CUDA_START_S;
  return 0;
}

/* What each lane did, as a timeline on stdout. */
static void print_timeline(const struct bench_lanes *b, size_t ng, double t0)
{
  char tl[4096];
  if (bench_lanes_timeline(tl, sizeof tl, b->jobs, &b->l, ng, b->claim, b->gcost, b->built_s,
                           b->ready_at, b->end_at, t0, b->gpu_of))
    printf("\nlanes (seconds from their start):\n%s", tl);
}

enum gr_status bench_execute_lanes(struct bench_plan *p, const struct bench_opts *o, char *why,
                                   size_t len)
{
  struct bench_lanes b = {.p = p, .o = o};
  size_t nl = o->gpus->n, cap = p->n ? p->n : 1, ng = 0, jobs = 0, shared_bytes = 0;
  size_t *gs = calloc(cap, sizeof *gs), *gc = calloc(cap, sizeof *gc);
  size_t *group_of = calloc(cap, sizeof *group_of);
  double *cost = calloc(cap, sizeof *cost), *gcost = calloc(cap, sizeof *gcost);
  b.l.idx = calloc(nl * cap, sizeof *b.l.idx);
  b.l.gid = calloc(nl * cap, sizeof *b.l.gid);
  b.l.start = calloc(nl, sizeof *b.l.start);
  b.l.count = calloc(nl, sizeof *b.l.count);
  b.l.n_own = calloc(nl, sizeof *b.l.n_own);
  b.lost = calloc(nl, sizeof *b.lost);
  b.gpu_of = malloc(nl * sizeof *b.gpu_of);
  enum gr_status rc = GR_STATUS_OK;
  if (!gs || !gc || !group_of || !cost || !gcost || !b.l.idx || !b.l.gid || !b.l.start ||
      !b.l.count || !b.l.n_own || !b.lost || !b.gpu_of)
    goto oom;
  for (size_t j = 0; j < nl; j++)
    b.gpu_of[j] = -1;
  for (size_t i = 0; i < p->n; i++) { /* the (algorithm, case) groups */
    if (!ng || p->items[i].alg != p->items[i - 1].alg ||
        p->items[i].case_no != p->items[i - 1].case_no)
      gs[ng++] = i;
    gc[ng - 1]++;
    group_of[i] = ng - 1;
  }
  bench_costs(p, o, gs, gc, ng, cost, gcost);
  if (bench_lane_lists(nl, gs, gc, gcost, ng, &b.l, &jobs))
    goto oom;
  b.jobs = jobs;
  b.gcost = gcost;
  double t0 = now_seconds();
  if (jobs > 1 && map_shared(&b, ng, jobs, t0, &shared_bytes)) {
    gr_fmt(why, len, "cannot map the lanes' shared claims: %s", strerror(errno));
    rc = GR_STATUS_ENV;
    goto out;
  }
  struct lanes_spec spec = {
      .gpus = o->gpus, .n_jobs = jobs, .exclusive = 1, .ctx = &b, .begin = bench_lane_begin,
      .end = bench_lane_end, .job = bench_lane_job, .done = bench_lane_done,
      .interrupted = &bench_interrupted, .lane_flags = {&bench_interrupted, NULL}};
  if (o->store)
    store_suspend(o->store);
  if (lanes_run(&spec, why, len))
    rc = GR_STATUS_ENV;
  if (o->store && store_resume(o->store, why, len))
    rc = GR_STATUS_ENV;
  bench_lost(&b, jobs, group_of);
  if (b.claim) /* what each lane did, for the report (--json is refused with --gpus) */
    print_timeline(&b, ng, t0);
  if (rc == GR_STATUS_OK && b.status != GR_STATUS_OK) {
    rc = b.status;
    gr_fmt(why, len, "%s", b.why);
  }
  goto out;
oom:
  gr_fmt(why, len, "out of memory");
  rc = GR_STATUS_ENV;
out:
  if (b.claim)
    munmap(b.claim, shared_bytes);
  free(gs), free(gc), free(group_of), free(cost), free(gcost);
  free(b.l.idx), free(b.l.gid), free(b.l.start), free(b.l.count), free(b.l.n_own), free(b.lost);
  free(b.gpu_of);
  return rc;
}

/* bench.h: one GPU here (bench.c), several over the lanes. Here, so that bench.c never calls
 * this file back (it calls bench_execute_here). */
enum gr_status bench_execute(struct bench_plan *p, const struct bench_opts *o, char *why,
                             size_t len)
{
  if (!o->gpus || !o->gpus->n)
    return bench_execute_here(p, o, why, len);
  if (o->json) {
    gr_fmt(why, len, "--json with --gpus: the JSON is written by one benchmark process; time on "
                     "one GPU for it");
    return GR_STATUS_USAGE;
  }
  return bench_execute_lanes(p, o, why, len);
}
