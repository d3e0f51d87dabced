/* The runner against the test-only `selftest` variants: every kind of misbehaviour becomes the
 * right verdict naming the case, the variant carries on in a fresh worker, failures shrink to the
 * known minimal case (n = 37), historical variants are caught or escape, and the CPU-only `ok`
 * variant passes. Uses a temporary database and checks what it holds. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case.h"
#include "registry.h"
#include "runner.h"
#include "test_util.h"

static int64_t count(sqlite3 *db, const char *sql)
{
  sqlite3_stmt *s;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
    v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

int main(void)
{
  const struct gr_algorithm *a = registry_find("selftest");
  char dbpath[] = "/tmp/gr_runner_XXXXXX";
  int fd = mkstemp(dbpath);
  close(fd);
  unlink(dbpath);
  struct store *st;
  char why[GR_WHY_LEN];
  EXPECT(store_open(dbpath, &st, why, sizeof why) == 0);
  struct run_info ri = {.command = "test_runner", .seed = 3};
  int64_t run = store_begin_run(st, &ri, why, sizeof why);
  EXPECT(run > 0);
  /* a run begun without its GPU (bench --gpus) gets the first lane's description afterwards */
  struct store_run sr;
  EXPECT(store_get_run(st, STORE_MAIN, run, &sr) == 0 && sr.gpu[0] == 0 && sr.sms == 0);
  struct run_info gi = {.gpu_name = "NVIDIA Test GPU", .gpu_sms = 132, .gpu_cc = "9.0",
                        .driver_version = 13000, .sm_clock_mhz = 1980,
                        .driver_release = "580.159.04", .temp_c = 37};
  EXPECT(store_set_run_gpu(st, run, &gi) == 0);
  EXPECT(store_get_run(st, STORE_MAIN, run, &sr) == 0);
  EXPECT(strcmp(sr.gpu, "NVIDIA Test GPU") == 0 && sr.sms == 132 && strcmp(sr.cc, "9.0") == 0 &&
             sr.driver == 13000 && sr.sm_clock_mhz == 1980 &&
             strcmp(sr.driver_release, "580.159.04") == 0 && sr.temp_c == 37 &&
             strcmp(sr.command, "test_runner") == 0 && sr.seed == 3,
         "run %lld: gpu '%s', %d SMs, cc '%s', driver %d, release '%s'", (long long)run, sr.gpu,
         sr.sms, sr.cc, sr.driver, sr.driver_release);
  struct runner_opts o = {.seed = 3, .watchdog = 1.0, .max_cases = 300, .shrink_budget = 60,
                          .shrink = 1, .store = st, .run_id = run};
  static const struct {
    const char *variant;
    enum verdict verdict;
    const char *reason;
  } expect[] = {
      {"ok", VERDICT_PASS, ""},
      {"wrong", VERDICT_FAIL, "sum 36: got"},
      {"segfault", VERDICT_CRASH, "signal 11"},
      {"abort", VERDICT_CRASH, "signal 6"},
      {"hang", VERDICT_TIMEOUT, "watchdog"},
      {"silent", VERDICT_FAIL, "sum 0: got"},
      {"unwritten", VERDICT_FAIL, "two runs differ from output element"},
      {"bug_caught", VERDICT_CAUGHT, "sum 36"},
      {"bug_escapes", VERDICT_ESCAPED, "survived 300 cases"},
  };
  for (size_t i = 0; i < sizeof expect / sizeof *expect; i++) {
    struct outcome out;
    const struct gr_variant *v = gr_alg_variant(a, expect[i].variant);
    runner_fuzz_variant(&o, a, v, 1e9, &out);
    if (out.verdict != expect[i].verdict)
      fprintf(stderr, "%s: verdict %s, expected %s (%s)\n", v->name, verdict_name(out.verdict),
              verdict_name(expect[i].verdict), out.reason);
    EXPECT(out.verdict == expect[i].verdict);
    EXPECT_STR_CONTAINS(out.reason, expect[i].reason);
    if (verdict_is_failure(expect[i].verdict) || expect[i].verdict == VERDICT_CAUGHT) {
      /* the failure was shrunk to the threshold of misbehaviour, with the simplest input */
      EXPECT_STR_CONTAINS(out.shrunk_case, "selftest n=37 dist=ones seed=");
      EXPECT(out.cases_to_catch >= 1 && out.cases_to_catch == out.cases);
      /* and the shrunk case fails again the same way in a fresh worker */
      struct gr_case c;
      struct case_result res1;
      EXPECT(case_parse(out.shrunk_case, &c, why, sizeof why) == 0);
      EXPECT(runner_one_case(&o, &c, v, &res1) ==
             (expect[i].verdict == VERDICT_CAUGHT ? VERDICT_FAIL : expect[i].verdict));
      c.v[0] = 36; /* one below the threshold: passes */
      EXPECT(runner_one_case(&o, &c, v, &res1) == VERDICT_PASS);
    } else {
      EXPECT(out.cases == 300 && out.passed == 300);
    }
  }
  /* a failure that does not repeat is reported as flaky, never as a steady reproducer; a steady
   * one is confirmed */
  {
    struct outcome out;
    runner_fuzz_variant(&o, a, gr_alg_variant(a, "flaky"), 1e9, &out);
    EXPECT(out.verdict == VERDICT_FAIL && out.flaky == 1);
    /* its failure rate was measured; replayed with the repeat count it carries, it fails */
    EXPECT(out.flaky_fails >= 1 && out.flaky_runs >= out.flaky_fails && out.repeat >= 2);
    struct gr_case c;
    struct case_result first;
    long ran = 0;
    EXPECT(case_parse(out.shrunk_case, &c, why, sizeof why) == 0);
    EXPECT(runner_repeat_case(&o, &c, gr_alg_variant(a, "flaky"), out.repeat, &ran, &first) >= 1);
    EXPECT(ran == out.repeat && first.verdict == VERDICT_FAIL && first.why[0]);
    runner_fuzz_variant(&o, a, gr_alg_variant(a, "wrong"), 1e9, &out);
    EXPECT(out.verdict == VERDICT_FAIL && out.flaky == 0 && out.repeat == 0);
    /* a race that fails two runs in three passes a two-run confirmation now and then: the
     * steady check after it finds the passes, and the reproducer repeats */
    runner_fuzz_variant(&o, a, gr_alg_variant(a, "racy"), 1e9, &out);
    EXPECT(out.verdict == VERDICT_FAIL && out.flaky == 1 && out.repeat >= 2);
    EXPECT(out.flaky_fails >= 4 && out.flaky_runs > out.flaky_fails);
  }
  /* the store holds every case: fuzz cases of `ok` and the crash rows naming the case */
  sqlite3 *db = store_db(st);
  EXPECT(count(db, "SELECT count(*) FROM cases WHERE variant = 'ok' AND verdict = 'pass'") == 300);
  EXPECT(count(db, "SELECT count(*) FROM cases WHERE variant = 'segfault' AND phase = 'fuzz'"
                   " AND verdict = 'crash' AND params LIKE 'n=%'") == 1);
  EXPECT(count(db, "SELECT count(*) FROM cases WHERE variant = 'hang' AND verdict = 'timeout'") >= 1);
  /* past its budget a variant goes on while steering can still reach a regime of it that no
   * case reached (the grace): its first case overruns a budget of a microsecond, and selftest/ok
   * still reaches both sides of n = 37, in one more case; where parameter limits exclude a regime
   * it stops as soon as steering finds no case for it */
  {
    struct runner_opts g = {.seed = 5, .watchdog = 5.0, .store = st, .run_id = run};
    struct outcome out;
    runner_fuzz_variant(&g, a, gr_alg_variant(a, "ok"), 1e-6, &out);
    EXPECT(out.verdict == VERDICT_PASS && out.cases == 2 && out.uncovered[0] == 0,
           "grace: %s, %ld cases, uncovered '%s'", verdict_name(out.verdict), out.cases,
           out.uncovered);
    struct case_limits lim;
    memset(&lim, 0, sizeof lim);
    EXPECT(case_limits_add(a, &lim, "n=0..36", why, sizeof why) == 0);
    g.limits = &lim;
    runner_fuzz_variant(&g, a, gr_alg_variant(a, "ok"), 1e-6, &out);
    EXPECT(out.verdict == VERDICT_PASS && out.cases == 2 && strstr(out.uncovered, "n >= 37"),
           "limits: %s, %ld cases, uncovered '%s'", verdict_name(out.verdict), out.cases,
           out.uncovered);
  }
  /* the decision itself (runner_fuzz_next), on selftest/ok's two regimes: past the grace (a
   * budget of 1 s: 2 s more) a regime no case reached goes on only while none was aimed at it,
   * up to the cap (8 s more); a regime steering cannot reach, or none left, stops it */
  {
    struct coverage cv;
    coverage_init(&cv, a, gr_alg_variant(a, "ok"));
    EXPECT(runner_fuzz_next(0.5, 1, &cv, 0, 0) == FUZZ_GO);
    EXPECT(runner_fuzz_next(2.9, 1, &cv, 0, 3) == FUZZ_GO, "in the grace");
    EXPECT(runner_fuzz_next(3.1, 1, &cv, 0, 0) == FUZZ_GO_UNAIMED, "past the grace, none aimed");
    EXPECT(runner_fuzz_next(3.1, 1, &cv, 0, 1) == FUZZ_GO_UNAIMED, "past the grace, one aimed");
    EXPECT(runner_fuzz_next(3.1, 1, &cv, 0, 3) == FUZZ_STOP, "past the grace, both aimed");
    EXPECT(runner_fuzz_next(8.9, 1, &cv, 0, 0) == FUZZ_GO_UNAIMED, "before the cap");
    EXPECT(runner_fuzz_next(9.1, 1, &cv, 0, 0) == FUZZ_STOP, "past the cap");
    EXPECT(runner_fuzz_next(25, 10, &cv, 0, 0) == FUZZ_GO_UNAIMED, "a 10 s budget: grace 10 s");
    EXPECT(runner_fuzz_next(41, 10, &cv, 0, 0) == FUZZ_STOP, "a 10 s budget: cap 30 s");
    EXPECT(runner_fuzz_next(1.5, 1, &cv, 3, 0) == FUZZ_STOP, "both unsteerable");
    coverage_add(&cv, 1u, -1);
    EXPECT(runner_fuzz_next(3.1, 1, &cv, 0, 1) == FUZZ_GO_UNAIMED, "n >= 37 unreached, unaimed");
    EXPECT(runner_fuzz_next(3.1, 1, &cv, 0, 2) == FUZZ_STOP, "n >= 37 unreached, aimed");
    coverage_add(&cv, 2u, -1);
    EXPECT(runner_fuzz_next(1.5, 1, &cv, 0, 0) == FUZZ_STOP, "every regime reached");
    EXPECT(runner_fuzz_next(0.5, 1, &cv, 0, 0) == FUZZ_GO, "within the budget");
  }
  store_close(st);
  unlink(dbpath);
  TEST_DONE();
}
