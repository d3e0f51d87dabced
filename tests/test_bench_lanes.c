/* bench --gpus over several GPUs without GPUs: the lanes' lists (bench_lane_lists) and the
 * claims through which a lane that is through with its own groups takes over the others' not yet
 * begun (bench_claim). A simulation of four lanes, one of them starting a second late, the
 * lanes' costs unlike the deal's guess, checks that every group is timed exactly once and that
 * taking over shortens the night against the deal alone; forked processes claiming at once
 * check that no group is timed twice. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_plan.h"
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

/* Simulated lanes: lane j becomes ready at ready[j] and walks its list (take_over 0: its own
 * groups only); at each group it claims (bench_claim, the claims in plain memory) it spends
 * real[g] seconds. Returns when the last lane ends; timed_by[g]: the job that timed group g;
 * *first_end: when the first lane ended; *last_claim: when the last group was begun. */
static double simulate(const struct lists *L, int take_over, const double *ready,
                       const double *real, int *timed_by, double *first_end, double *last_claim)
{
  int claim[NG] = {0};
  double clock[NL], end = 0;
  *last_claim = 0;
  size_t at[NL];
  for (size_t j = 0; j < L->jobs; j++) {
    clock[j] = ready[j];
    at[j] = 0;
  }
  for (;;) { /* the lane that is free first goes next */
    size_t j = NL;
    for (size_t k = 0; k < L->jobs; k++) {
      size_t lim = take_over ? L->count[k] : L->n_own[k];
      if (at[k] < lim && (j == NL || clock[k] < clock[j]))
        j = k;
    }
    if (j == NL)
      break;
    const size_t *gid = L->gid + L->start[j];
    struct bench_plan p = {.claim = claim, .group = gid, .claim_tag = (int)j + 1};
    size_t g = gid[at[j]];
    if (bench_claim(&p, at[j])) {
      *last_claim = clock[j] > *last_claim ? clock[j] : *last_claim;
      clock[j] += real[g];
      timed_by[g] = (int)j;
    }
    size_t lim = take_over ? L->count[j] : L->n_own[j];
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
  int by_static[NG], by_take[NG];
  memset(by_static, -1, sizeof by_static);
  memset(by_take, -1, sizeof by_take);
  double s_first, s_last, t_first, t_last;
  double t_static = simulate(&L, 0, ready, real, by_static, &s_first, &s_last);
  double t_take = simulate(&L, 1, ready, real, by_take, &t_first, &t_last);
  for (size_t g = 0; g < NG; g++)
    EXPECT(by_static[g] >= 0 && by_take[g] >= 0, "group %zu not timed", g);
  /* no lane ends while a group is still to begin (the deal alone: one idles for a while) */
  EXPECT(t_first >= t_last, "a lane ended at %.2f s, a group began at %.2f s", t_first, t_last);
  EXPECT(s_first < s_last - 0.5, "the deal alone: first end %.2f s, last begin %.2f s", s_first,
         s_last);
  EXPECT(t_take < t_static, "taking over: %.2f s against %.2f s for the deal alone", t_take,
         t_static);

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
  TEST_DONE();
}
