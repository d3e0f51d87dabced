/* synth_many: a database of many nights made at once (issue 41 item 7: history and compare at
 * 10^6 runs), where tests/synth_db makes one run a call. Creates DB with the store's schema and,
 * in one transaction of plain SQL, N finished runs one minute apart (from 2000-01-01, one GPU
 * model, commits c0000001...), each timing SERIES benchmarks (ari/v2_shared n=1000+k, cold L2):
 * a median of 1 ms with 1% uniform night-to-night noise, 10% slower from night STEP on (0: no
 * step). The last two runs also get 64 samples a timing, so that `compare` of the latest night
 * against the one before it has samples to rank.
 *
 *   synth_many DB N [SERIES [STEP]]
 *
 * Prints the last run's id. Exit 0 ok, 2 usage or database error. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "gr.h"
#include "store.h"

static int exec(sqlite3 *db, const char *sql)
{
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "synth_many: %s\n", err ? err : "?");
    sqlite3_free(err);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 3 || argc > 5) {
    fprintf(stderr, "usage: synth_many DB N [SERIES [STEP]]\n");
    return 2;
  }
  long long n = strtoll(argv[2], NULL, 10), series = argc > 3 ? strtoll(argv[3], NULL, 10) : 1;
  long long step = argc > 4 ? strtoll(argv[4], NULL, 10) : 0;
  if (n < 2 || series < 1 || series > 64 || step < 0) {
    fprintf(stderr, "synth_many: bad N, SERIES or STEP\n");
    return 2;
  }
  struct store *st;
  char why[GR_WHY_LEN];
  if (store_open(argv[1], &st, why, sizeof why)) {
    fprintf(stderr, "synth_many: %s\n", why);
    return 2;
  }
  sqlite3 *db = store_db(st);
  char sql[4096];
  gr_fmt(sql, sizeof sql,
         "BEGIN;"
         "INSERT INTO runs (id, started_at, finished_at, status, exit_code, command, git_commit,"
         " git_dirty, host, gpu_name, seed, uid)"
         " WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
         " SELECT i, strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', '2000-01-01', '+' || i || ' minutes'),"
         " strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', '2000-01-01', '+' || i || ' minutes'), 'finished',"
         " 0, 'synth_many', printf('c%%07d', i), 0, 'synthhost', 'Synthetic GPU 80GB', i,"
         " 'synth_many:' || i FROM c;"
         "INSERT INTO timings (run_id, algorithm, variant, kind, params, seed, l2, launches,"
         " samples, median_ms, noise, verdict)"
         " WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j + 1 < %lld)"
         " SELECT r.id, 'ari', 'v2_shared', 'fixed', 'n=' || (1000 + k.j) || ' k=10', 1, 'cold', 1,"
         " 64, (1 + (abs(random()) %% 20001 - 10000) / 1e6)"
         " * CASE WHEN %lld > 0 AND r.id >= %lld THEN 1.1 ELSE 1 END, 0.001, 'pass'"
         " FROM runs r, k ORDER BY r.id, k.j;"
         "INSERT INTO samples (timing_id, idx, ms, sm_clock_mhz)"
         " WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 63)"
         " SELECT t.id, s.i, t.median_ms * (1 + (abs(random()) %% 2001 - 1000) / 1e5), 1980"
         " FROM timings t, s WHERE t.run_id > %lld;"
         "COMMIT;",
         n, series, step, step, n - 2);
  int rc = exec(db, sql);
  store_close(st);
  if (rc)
    return 2;
  printf("%lld\n", n);
  return 0;
}
