/* The fuzzing phase's budget rule (fuzz_lanes.h): fuzz_budget_share on one lane and on several,
 * and fuzz_budget_reserve, the cut for the overruns to come. The reserve is checked on the phase
 * of a gpu-check on an H200 (stop 47, 150 s, 35 variants): the historical variants' seconds as
 * they ran, then 26 variants each running past its share by what it did there (the last case
 * or its shrinking: sgm's reference 4.5 s on a 7.4 s case, radix sort's CUB 3.1 s). Without the
 * reserve the variants after those got the rest (there sgm v4 and v5 fuzzed 1.2 and 0.4 s);
 * with it no variant's share falls below half the fair one. */
#include <math.h>
#include <stdio.h>

#include "fuzz_lanes.h"
#include "test_util.h"

static const double hist_s[] = {0.8, 7.8, 0.4, 0.4, 2.3, 0.5, 0.9, 0.3, 0.4};
static const double over_s[] = {0.9, 0.9, 0.7, 0.7, 0.5, 1.0, 0.6, 1.5, 0.4, 0.6, 0.6, 0.4, 0.5,
                                1.8, 0.4, 0.5, 0.7, 1.2, 1.2, 1.4, 3.1, 4.5, 0.5, 0.5, 0.5, 0.5};
#define N_HIST (sizeof hist_s / sizeof *hist_s)
#define N_OVER (sizeof over_s / sizeof *over_s)

/* The in-process phase's shares (fuzz_inproc_share, as fuzz_phase.c takes them) over the recorded
 * variants: each share, the smallest of the non-historical ones into *least and the last into
 * *last; returns when the phase ended. reserve = 0: the rule without the reserve. */
static double phase(double budget, int reserve, double *least, double *last)
{
  const double free_now = 0;
  double t = 0, over = 0;
  size_t done = 0, active = N_HIST + N_OVER;
  *least = INFINITY;
  for (size_t k = 0; k < N_HIST + N_OVER; k++) {
    double left = budget - t;
    double share = reserve ? fuzz_inproc_share(left, over, done, active)
                   : left > 0 ? fuzz_budget_share(left, &free_now, 1, active)
                              : 0;
    active--;
    double ran = k < N_HIST ? hist_s[k] : share + over_s[k - N_HIST];
    if (k >= N_HIST && share < *least)
      *least = share;
    *last = share;
    t += ran;
    over += ran > share ? ran - share : 0;
    done++;
  }
  return t;
}

int main(void)
{
  /* the share: one lane free now, left over m; two lanes, one busy for 10 of 30 s, 3 jobs: 15 s
   * each (two on the free lane, one on the other from 10 s on) */
  const double none = 0, busy[2] = {0, 10};
  EXPECT(fabs(fuzz_budget_share(120, &none, 1, 4) - 30) < 1e-9);
  EXPECT(fabs(fuzz_budget_share(30, busy, 2, 3) - 15) < 1e-9);
  EXPECT(fuzz_budget_share(0, &none, 1, 3) == 0);
  /* the reserve: nothing before a job has finished or when none ran over, then the mean overrun
   * for each job to come, never below 0 */
  EXPECT(fuzz_budget_reserve(100, 0, 0, 5) == 100 && fuzz_budget_reserve(100, 3, 0, 5) == 100);
  EXPECT(fuzz_budget_reserve(100, 0, 4, 5) == 100);
  EXPECT(fabs(fuzz_budget_reserve(100, 8, 4, 5) - 90) < 1e-9);
  EXPECT(fuzz_budget_reserve(5, 8, 4, 5) == 0);
  /* the recorded phase */
  const double budget = 150, fair = budget / (N_HIST + N_OVER);
  double least0, last0, least1, last1;
  double end0 = phase(budget, 0, &least0, &last0), end1 = phase(budget, 1, &least1, &last1);
  printf("# without the reserve: least share %.2f s, last %.2f s, end %.1f s; with it: %.2f, %.2f, "
         "%.1f (fair %.2f)\n",
         least0, last0, end0, least1, last1, end1, fair);
  EXPECT(last0 < fair / 3, "the recorded phase no longer starves its last variant (%.2f s)", last0);
  EXPECT(least1 >= fair / 2, "with the reserve a share fell to %.2f s (fair %.2f)", least1, fair);
  EXPECT(end1 <= budget + 1, "with the reserve the phase ended at %.1f s of %.0f", end1, budget);
  TEST_DONE();
}
