/* bench --gpus over several GPUs without GPUs: the lanes' lists (bench_lane_lists), the claims
 * through which a lane that is through with its own groups takes over the others' not yet begun
 * (bench_claim), where that is worth it (bench_take, bench_owner_begin), and the turns in which
 * the lanes start CUDA (bench_turn_wait). Simulations of four lanes check that every group is
 * timed exactly once, that taking over shortens the night when a lane starts a second late,
 * and that a lane no longer takes a group its owner is about to begin (its case built twice,
 * the night longer); forked processes check that no group is timed twice and that CUDA starts
 * never overlap; the timeline of what each lane did (bench_lanes_timeline). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_plan.h"
#include "gr.h"
#include "bench_private.h"
#include "test_util.h"

#define NG 12
#define NL 4
/* items per group and the deal's guess of each group's seconds (like bench --quick's 12
 * groups: a few of about a second, many small) */
static const size_t gc[NG] = {4, 4, 6, 6, 3, 3, 3, 3, 5, 5, 5, 5};
static const double guess[NG] = {0.08, 0.09, 0.36, 0.96, 0.68, 0.43, 1.43, 1.46, 0.09, 0.10, 0.54, 0.65};

struct lists {
  size_t gs[NG], n, jobs;
  size_t idx[NL * 64], gid[NL * 64], start[NL], count[NL], n_own[NL];
  struct bench_lists l;
};

static void make_lists(struct lists *L, size_t nl)
{
  memset(L, 0, sizeof *L);
  for (size_t g = 0; g < NG; g++) {
    L->gs[g] = L->n;
    L->n += gc[g];
  }
  L->l = (struct bench_lists){L->idx, L->gid, L->start, L->count, L->n_own};
  EXPECT(bench_lane_lists(nl, L->gs, gc, guess, NG, &L->l, &L->jobs) == 0);
}

/* Simulated lanes: lane j becomes ready at ready[j] and walks its list (take 0: its own groups
 * only; 1: taking over any group not begun, as bench_claim alone; 2: taking over where
 * bench_take finds it worth it); at each group it times it spends real[g] seconds, and build[g]
 * more when the group is not its own (its case was not built ahead). Returns when the last lane
 * ends; timed_by[g]: the job that timed group g; *first_end: when the first lane ended;
 * *last_claim: when the last group was begun. */
static double simulate(const struct lists *L, int take, const double *ready, const double *real,
                       const double *build, int *timed_by, double *first_end, double *last_claim)
{
  static const struct gr_algorithm alg_a = {.name = "a"}, alg_b = {.name = "b"};
  static struct bench_item items[NL][NL * 64];
  int claim[NG] = {0};
  double clock[NL], end = 0, free_at[NL];
  for (size_t j = 0; j < L->jobs; j++)
    for (size_t k = 0; k < L->count[j]; k++)
      items[j][k].alg = L->gid[L->start[j] + k] % 2 ? &alg_a : &alg_b;
  size_t at[NL], declined[NL];
  *last_claim = 0;
  for (size_t j = 0; j < L->jobs; j++) {
    clock[j] = ready[j];
    free_at[j] = ready[j]; /* as the deal has it: the lanes are ready when they say */
    at[j] = 0;
    declined[j] = (size_t)-1;
  }
  for (;;) { /* the lane that is free first goes next */
    size_t j = NL;
    for (size_t k = 0; k < L->jobs; k++) {
      size_t lim = take ? L->count[k] : L->n_own[k];
      if (at[k] < lim && (j == NL || clock[k] < clock[j]))
        j = k;
    }
    if (j == NL)
      break;
    const size_t *gid = L->gid + L->start[j];
    struct bench_plan p = {.claim = claim, .group = gid, .claim_tag = (int)j + 1,
                           .n_own = L->n_own[j]};
    if (take == 2) { /* the owners built their cases ahead: build[] is known to the rule */
      p.lists = &L->l;
      p.jobs = L->jobs;
      p.gcost = guess;
      p.free_at = free_at;
      p.items = items[j];
      p.n = L->count[j];
      p.built_s = (double *)build;
    }
    size_t g = gid[at[j]];
    if (bench_take(&p, at[j], clock[j], &declined[j])) {
      *last_claim = clock[j] > *last_claim ? clock[j] : *last_claim;
      clock[j] += real[g] + (at[j] >= L->n_own[j] ? build[g] : 0);
      timed_by[g] = (int)j;
    }
    size_t lim = take ? L->count[j] : L->n_own[j];
    while (at[j] < lim && gid[at[j]] == g) /* the rest of the group: claimed or skipped alike */
      at[j]++;
  }
  *first_end = clock[0];
  for (size_t j = 0; j < L->jobs; j++) {
    end = clock[j] > end ? clock[j] : end;
    *first_end = clock[j] < *first_end ? clock[j] : *first_end;
  }
  return end;
}

int main(void)
{
  struct lists L;

  /* one GPU: one job, the plan in order, all of it its own */
  make_lists(&L, 1);
  EXPECT(L.jobs == 1 && L.count[0] == L.n && L.n_own[0] == L.n);
  for (size_t k = 0; k < L.n; k++)
    EXPECT(L.idx[k] == k, "item %zu at %zu", L.idx[k], k);

  /* four: each list is the whole plan, every item once, its own groups first and costliest
   * first, the others' after them planned-last first; each group owned by exactly one job */
  make_lists(&L, NL);
  EXPECT(L.jobs == NL);
  int owner[NG];
  for (size_t g = 0; g < NG; g++)
    owner[g] = -1;
  double load[NL] = {0}, begin[NG] = {0};
  for (size_t j = 0; j < L.jobs; j++) {
    const size_t *idx = L.idx + L.start[j], *gid = L.gid + L.start[j];
    int seen[64] = {0};
    EXPECT(L.count[j] == L.n, "job %zu lists %zu of %zu items", j, L.count[j], L.n);
    for (size_t k = 0; k < L.count[j]; k++) {
      EXPECT(idx[k] < L.n && !seen[idx[k]]++, "job %zu lists item %zu twice", j, idx[k]);
      EXPECT(idx[k] >= L.gs[gid[k]] && idx[k] < L.gs[gid[k]] + gc[gid[k]]);
      if (k < L.n_own[j] && (k == 0 || gid[k] != gid[k - 1])) {
        EXPECT(owner[gid[k]] < 0, "group %zu owned twice", gid[k]);
        owner[gid[k]] = (int)j;
        begin[gid[k]] = load[j];
        load[j] += guess[gid[k]];
        EXPECT(k == 0 || guess[gid[k]] <= guess[gid[k - 1]], "job %zu: own groups not costliest first", j);
      }
    }
  }
  for (size_t g = 0; g < NG; g++)
    EXPECT(owner[g] >= 0, "group %zu owned by no job", g);
  for (size_t j = 0; j < L.jobs; j++) /* the rest: others' groups, planned-last first */
    for (size_t k = L.n_own[j] + 1; k < L.count[j]; k++) {
      const size_t *gid = L.gid + L.start[j];
      EXPECT(owner[gid[k]] != (int)j);
      EXPECT(begin[gid[k]] <= begin[gid[k - 1]], "job %zu takes over out of order", j);
    }
  double lo = load[0], hi = load[0]; /* the deal: longest processing time first */
  for (size_t j = 1; j < NL; j++) {
    lo = load[j] < lo ? load[j] : lo;
    hi = load[j] > hi ? load[j] : hi;
  }
  EXPECT(hi - lo <= 1.46 + 1e-9, "deal spread %.2f s", hi - lo);

  /* the night as the H200 host showed it: lanes ready 0.3 s apart, one a second late, and the
   * groups' real seconds unlike the guess (instances built ahead are cheaper) */
  double ready[NL] = {1.2, 1.3, 2.2, 1.25}, real[NG];
  for (size_t g = 0; g < NG; g++)
    real[g] = guess[g] * (g % 3 == 0 ? 0.6 : g % 3 == 1 ? 1.3 : 1.0);
  int by_static[NG], by_take[NG], by_rule[NG];
  memset(by_static, -1, sizeof by_static);
  memset(by_take, -1, sizeof by_take);
  memset(by_rule, -1, sizeof by_rule);
  double s_first, s_last, t_first, t_last, r_first, r_last, none[NG] = {0};
  double t_static = simulate(&L, 0, ready, real, none, by_static, &s_first, &s_last);
  double t_take = simulate(&L, 1, ready, real, none, by_take, &t_first, &t_last);
  double t_rule = simulate(&L, 2, ready, real, none, by_rule, &r_first, &r_last);
  printf("late lane: deal alone %.2f s, taking over any %.2f s, where worth it %.2f s\n",
         t_static, t_take, t_rule);
  for (size_t g = 0; g < NG; g++)
    EXPECT(by_static[g] >= 0 && by_take[g] >= 0 && by_rule[g] >= 0, "group %zu not timed", g);
  EXPECT(t_rule < t_static && t_rule <= t_take + 1e-9,
         "where worth it: %.2f s against %.2f s (deal alone), %.2f s (taking over any)", t_rule,
         t_static, t_take);

  /* no lane ends while a group is still to begin (the deal alone: one idles for a while) */
  EXPECT(t_first >= t_last, "a lane ended at %.2f s, a group began at %.2f s", t_first, t_last);
  EXPECT(s_first < s_last - 0.5, "the deal alone: first end %.2f s, last begin %.2f s", s_first,
         s_last);
  EXPECT(t_take < t_static, "taking over: %.2f s against %.2f s for the deal alone", t_take,
         t_static);

  /* the night of the H100 host: lanes ready together, the guess right, but a case taken over is
   * built again (0.2-0.65 s there): taking over a group its owner is about to begin ended the
   * night late; where worth it, never later than the deal, and sooner than taking over any */
  double b_static, b_take, b_rule, together[NL] = {1.2, 1.2, 1.2, 1.2}, build[NG];
  for (size_t g = 0; g < NG; g++) {
    build[g] = g % 2 ? 0.65 : 0.2;
    real[g] = guess[g] * (g % 4 == 0 ? 0.7 : g % 4 == 2 ? 1.25 : 1.0);
  }
  b_static = simulate(&L, 0, together, real, build, by_static, &s_first, &s_last);
  b_take = simulate(&L, 1, together, real, build, by_take, &t_first, &t_last);
  b_rule = simulate(&L, 2, together, real, build, by_rule, &r_first, &r_last);
  printf("builds: deal alone %.2f s, taking over any %.2f s, where worth it %.2f s\n", b_static,
         b_take, b_rule);
  for (size_t g = 0; g < NG; g++)
    EXPECT(by_take[g] >= 0 && by_rule[g] >= 0, "group %zu not timed", g);
  EXPECT(b_rule <= b_static + 1e-9 && b_rule < b_take,
         "where worth it: %.2f s against %.2f s (deal alone), %.2f s (taking over any)", b_rule,
         b_static, b_take);

  /* the rule: a lane takes over another's group only where it would end it sooner than its
   * owner, builds counted (the owner's none where its case is built, built_s) */
  {
    static const struct gr_algorithm alg_a = {.name = "a"}, alg_b = {.name = "b"};
    int claim[NG] = {0};
    double free_at[NL] = {5.0, 5.0, 5.0, 5.0}, built[NG] = {0};
    const size_t *gid0 = L.gid + L.start[0], *gid1 = L.gid + L.start[1];
    size_t last = gid0[L.n_own[0] - 1], first_item = L.n_own[0] - 1, who, k1 = L.n_own[1];
    while (first_item > 0 && gid0[first_item - 1] == last)
      first_item--;
    while (gid1[k1] != last)
      k1++;
    struct bench_item items[NL * 64];
    memset(items, 0, sizeof items);
    for (size_t k = 0; k < L.count[1]; k++) /* two algorithms: even and odd groups */
      items[k].alg = gid1[k] % 2 ? &alg_a : &alg_b;
    struct bench_plan p1 = {.items = items, .n = L.count[1], .claim = claim, .group = gid1,
                            .claim_tag = 2, .n_own = L.n_own[1], .lists = &L.l, .jobs = L.jobs,
                            .gcost = guess, .free_at = free_at, .built_s = built};
    /* when job 0 begins its last group: when it is free, plus its groups ahead not claimed */
    double ahead = 0;
    for (size_t k = 0; k < first_item; k++)
      if (k == 0 || gid0[k] != gid0[k - 1])
        ahead += guess[gid0[k]];
    EXPECT(ahead > 0, "job 0 owns a single group");
    double b = bench_owner_begin(&p1, last, 1.0, &who);
    EXPECT(who == 0 && fabs(b - (5.0 + ahead)) < 1e-9, "owner %zu begins at %.3f, not %.3f", who,
           b, 5.0 + ahead);
    b = bench_owner_begin(&p1, last, 7.0, &who);
    EXPECT(fabs(b - (7.0 + ahead)) < 1e-9, "a free_at in the past counts as now: %.3f", b);
    claim[gid0[0]] = 1;
    b = bench_owner_begin(&p1, last, 1.0, &who);
    EXPECT(fabs(b - (5.0 + ahead - guess[gid0[0]])) < 1e-9, "claimed groups count: %.3f", b);
    claim[gid0[0]] = 0;
    /* a case of gid0[0]'s algorithm took 0.4 s to build somewhere: each group of that algorithm
     * ahead counts 0.4 s more, but for those built already */
    size_t par = gid0[0] % 2, same = 0;
    built[gid0[0]] = 0.1;
    for (size_t g = 0; g < NG; g++)
      if (g % 2 == par && g != gid0[0] && g != last) {
        built[g] = 0.4;
        break;
      }
    for (size_t k = 0; k < first_item; k++)
      if ((k == 0 || gid0[k] != gid0[k - 1]) && gid0[k] % 2 == par && built[gid0[k]] == 0)
        same++;
    b = bench_owner_begin(&p1, last, 1.0, &who);
    EXPECT(fabs(b - (5.0 + ahead + 0.4 * (double)same)) < 1e-9,
           "the owner's builds ahead: begins at %.3f, not %.3f", b, 5.0 + ahead + 0.4 * same);
    memset(built, 0, sizeof built);

    /* the owner comes to `last` at 5 s (all its other groups begun) */
    for (size_t k = 0; k < first_item; k++)
      claim[gid0[k]] = 1;
    size_t declined = (size_t)-1;
    EXPECT(bench_take(&p1, k1, 4.9, &declined) && claim[last] == 2,
           "not taken over at 4.9 s (no builds known: this lane ends it first)");
    EXPECT(k1 + 1 >= L.count[1] || gid1[k1 + 1] != last || bench_take(&p1, k1 + 1, 9.0, &declined),
           "the rest of a group taken over");
    claim[last] = 0;
    EXPECT(!bench_take(&p1, k1, 5.0, &declined) && declined == last && claim[last] == 0,
           "taken over at 5 s: its owner is free then");
    EXPECT(k1 + 1 >= L.count[1] || gid1[k1 + 1] != last ||
               (!bench_take(&p1, k1 + 1, 1.0, &declined) && claim[last] == 0),
           "the rest of a declined group taken");
    /* its owner built it (0.3 s): this lane would build it again, so ends it sooner only
     * before 4.7 s */
    built[last] = 0.3;
    declined = (size_t)-1;
    EXPECT(!bench_take(&p1, k1, 4.75, &declined) && claim[last] == 0,
           "taken over at 4.75 s though the owner built it and is free at 5 s");
    declined = (size_t)-1;
    EXPECT(bench_take(&p1, k1, 4.65, &declined) && claim[last] == 2, "not taken over at 4.65 s");
    claim[last] = 0;
    /* nobody built it, but a case of its algorithm took 0.3 s: both would build it */
    built[last] = 0;
    built[(last + 2) % NG] = 0.3;
    built[(last + 1) % NG] = 2.0; /* another algorithm's: no bearing */
    declined = (size_t)-1;
    EXPECT(bench_take(&p1, k1, 4.9, &declined) && claim[last] == 2,
           "both build it: not taken over at 4.9 s");
    /* its own group: claimed whatever the time; free_at = now + guess + build */
    memset(built, 0, sizeof built);
    declined = (size_t)-1;
    EXPECT(bench_take(&p1, 0, 2.0, &declined) && claim[gid1[0]] == 2);
    EXPECT(fabs(free_at[1] - (2.0 + guess[gid1[0]])) < 1e-9, "free_at %.3f", free_at[1]);
    bench_built(&p1, k1, 0.75);
    EXPECT(built[last] == 0.75, "bench_built: %.2f", built[last]);
    /* an owner without a GPU (free_at never): every group of it is worth taking over */
    const size_t *gid2 = L.gid + L.start[2];
    size_t k2 = L.n_own[2], g3 = L.gid[L.start[3]];
    while (gid2[k2] != g3)
      k2++;
    struct bench_plan p2 = p1;
    p2.group = gid2;
    p2.claim_tag = 3;
    p2.n_own = L.n_own[2];
    p2.items = NULL;
    p2.n = 0;
    free_at[3] = INFINITY;
    declined = (size_t)-1;
    EXPECT(bench_take(&p2, k2, 100.0, &declined) && claim[g3] == 3,
           "the first group of a lane with no GPU not taken over");
  }

  /* the turns: four processes start "CUDA" (a 30 ms nap) in job order, never two at once; a
   * turn nobody passes holds the next lane only until the stall */
  {
    struct span {
      double from, to;
    };
    int *turns = mmap(NULL, sizeof(int) + NL * sizeof(struct span), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT(turns != MAP_FAILED);
    if (turns != MAP_FAILED) {
      struct span *sp = (struct span *)(turns + 2);
      pid_t pid[NL];
      for (size_t j = 0; j < NL; j++)
        if ((pid[j] = fork()) == 0) {
          usleep((useconds_t)(1000 * (NL - j))); /* the last job comes first */
          bench_turn_wait(turns, (int)j, 5.0);
          sp[j].from = now_seconds();
          usleep(30000);
          sp[j].to = now_seconds();
          bench_turn_pass(turns);
          _exit(0);
        }
      for (size_t j = 0; j < NL; j++)
        waitpid(pid[j], NULL, 0);
      for (size_t j = 1; j < NL; j++)
        EXPECT(sp[j].from >= sp[j - 1].to, "job %zu began %.4f s before job %zu ended", j,
               sp[j - 1].to - sp[j].from, j - 1);
      EXPECT(*turns == NL);
      *turns = 0; /* job 0 never passes: job 1 goes after the stall */
      double t0 = now_seconds();
      bench_turn_wait(turns, 1, 0.2);
      double waited = now_seconds() - t0;
      EXPECT(waited >= 0.2 && waited < 2.0, "stalled turn: waited %.3f s", waited);
      munmap(turns, sizeof(int) + NL * sizeof(struct span));
    }
  }

  /* real processes claiming at once: each group is timed by exactly one (shared memory, as the
   * lanes and their benchmark processes share it) */
  for (int round = 0; round < 20; round++) {
    int *shared = mmap(NULL, 2 * NG * sizeof(int), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT(shared != MAP_FAILED);
    if (shared == MAP_FAILED)
      break;
    int *claim = shared, *count = shared + NG;
    pid_t pid[NL];
    for (size_t j = 0; j < NL; j++)
      if ((pid[j] = fork()) == 0) {
        const size_t *gid = L.gid + L.start[j];
        struct bench_plan p = {.claim = claim, .group = gid, .claim_tag = (int)j + 1};
        for (size_t k = 0; k < L.count[j]; k++)
          if (bench_claim(&p, k) && (k == 0 || gid[k] != gid[k - 1]))
            __atomic_add_fetch(&count[gid[k]], 1, __ATOMIC_ACQ_REL);
        _exit(0);
      }
    for (size_t j = 0; j < NL; j++)
      waitpid(pid[j], NULL, 0);
    for (size_t g = 0; g < NG; g++)
      EXPECT(count[g] == 1 && claim[g] >= 1 && claim[g] <= NL,
             "round %d: group %zu timed %d times (claim %d)", round, g, count[g], claim[g]);
    munmap(shared, 2 * NG * sizeof(int));
  }

  /* the lanes' timeline of the report: 3 groups over 2 jobs (job 0 owns the costliest, job 1 the
   * other two), job 0 takes over group 2 */
  {
    size_t tgs[3] = {0, 2, 4}, tgc[3] = {2, 2, 1}, tjobs = 0;
    double tcost[3] = {3, 2, 1.5}, built[3] = {0.5, 0, 0.25};
    struct bench_lists tl;
    size_t cap = 2 * 5;
    tl.idx = calloc(cap, sizeof *tl.idx);
    tl.gid = calloc(cap, sizeof *tl.gid);
    tl.start = calloc(2, sizeof *tl.start);
    tl.count = calloc(2, sizeof *tl.count);
    tl.n_own = calloc(2, sizeof *tl.n_own);
    EXPECT(bench_lane_lists(2, tgs, tgc, tcost, 3, &tl, &tjobs) == 0 && tjobs == 2);
    int tclaim[3] = {1, 2, 1}, tgpu[2] = {0, 3};
    double t0 = 100, rdy[2] = {100.4, 100.8}, end[2] = {103.5, 103.2};
    char buf[1024];
    size_t n = bench_lanes_timeline(buf, sizeof buf, 2, &tl, 3, tclaim, tcost, built, rdy, end,
                                    t0, tgpu);
    EXPECT(n == strlen(buf));
    EXPECT(strstr(buf, "  lane 0, GPU 0: CUDA ready at 0.40 s, done at 3.50 s; timed 2 groups (1 "
                       "own, 1 taken over; 0 own timed by others), expected 4.50 s (dealt 3.00 s), "
                       "case builds 0.75 s\n"),
           "%s", buf);
    EXPECT(strstr(buf, "  lane 1, GPU 3: CUDA ready at 0.80 s, done at 3.20 s; timed 1 groups (1 "
                       "own, 0 taken over; 1 own timed by others), expected 2.00 s (dealt 3.50 s), "
                       "case builds 0.00 s\n"),
           "%s", buf);
    /* unknown GPU and times; one job: nothing; a short buffer: cut, terminated */
    tgpu[1] = -1;
    end[1] = 0;
    bench_lanes_timeline(buf, sizeof buf, 2, &tl, 3, tclaim, tcost, built, rdy, end, t0, tgpu);
    EXPECT(strstr(buf, "  lane 1, GPU ?: CUDA ready at 0.80 s, done at ?; "), "%s", buf);
    EXPECT(bench_lanes_timeline(buf, sizeof buf, 1, &tl, 3, tclaim, tcost, built, rdy, end, t0,
                                tgpu) == 0 &&
           buf[0] == 0);
    char small[40];
    memset(small, 'x', sizeof small);
    n = bench_lanes_timeline(small, sizeof small, 2, &tl, 3, tclaim, tcost, built, rdy, end, t0,
                             tgpu);
    EXPECT(n < sizeof small && small[n] == 0 && strlen(small) == n);
    free(tl.idx), free(tl.gid), free(tl.start), free(tl.count), free(tl.n_own);
  }
  TEST_DONE();
}
