/* Google Benchmark JSON as `gpuregress bench --json` writes it, without a GPU: benchmarks with
 * planted times run through the real shim (bench_shim.h: manual time, microseconds, the CPU time
 * a body sets, counters, custom context) and the parent's file writer (bench_json.h), one of them
 * ending the way a crashed benchmark does (an error entry). Writes OUT/base.json and
 * OUT/new.json, the second with one benchmark planted 20% slower; tests/gbench_json.sh reads the
 * pair the way Google Benchmark's tools/compare.py does.
 *   test_bench_json OUTDIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_json.h"
#include "bench_shim.h"

struct planted {
  const char *name;
  double us;  /* the GPU median a body reports */
  double cpu; /* the host CPU time per launch, microseconds */
  double bytes;
};

static const struct planted benches[] = {
    {"ari/v2_shared/n=1000", 52.0, 7.5, 4e6},
    {"ari/v3_global/n=1000", 85.0, 8.0, 4e6},
    {"radix_sort/v2_onesweep/n=65536", 21.0, 6.0, 1e6},
};
static double slow = 1.0; /* of benches[0] */

static void body(struct gbench_state *gs, void *arg)
{
  const struct planted *b = arg;
  double us = b->us * (b == &benches[0] ? slow : 1.0);
  while (gbench_keep_running(gs)) {
    gbench_set_iteration_time(gs, us * 1e-6);
    gbench_cpu_time(gs, b->cpu * 1e-6);
  }
  gbench_counter(gs, "bytes_per_second", b->bytes / (us * 1e-6));
  gbench_counter(gs, "items_per_second", 1000 / (us * 1e-6));
  gbench_label(gs, "pass");
}

static void collect(void *ctx, int what, const char *text, size_t len)
{
  if (what == GBENCH_JSON_CONTEXT)
    bench_json_context(ctx, text, len);
  else
    bench_json_runs(ctx, text, len);
}

static int write_run(const char *path, int crash)
{
  struct bench_json j;
  char why[512];
  bench_json_init(&j);
  gbench_run(0, collect, &j);
  if (crash) /* what the parent writes for a benchmark whose process died */
    bench_json_error(&j, "sgm/v2_paths/w=640/h=480/iterations:1/manual_time",
                     "crash: killed by signal 11 (Segmentation fault)");
  int rc = bench_json_write(&j, path, NULL, why, sizeof why);
  if (rc)
    fprintf(stderr, "test_bench_json: %s\n", why);
  bench_json_release(&j);
  return rc;
}

int main(int argc, char **argv)
{
  char why[512], a[4096], b[4096];
  char *gargv[] = {"test_bench_json", NULL};
  if (argc != 2) {
    fprintf(stderr, "usage: test_bench_json OUTDIR\n");
    return 2;
  }
  if (gbench_init(1, gargv, why, sizeof why)) {
    fprintf(stderr, "test_bench_json: %s\n", why);
    return 1;
  }
  gbench_context("gpu", "Planted GPU");
  gbench_context("commit", "0123456789abcdef");
  for (size_t i = 0; i < sizeof benches / sizeof *benches; i++)
    gbench_register(benches[i].name, body, (void *)&benches[i]);
  snprintf(a, sizeof a, "%s/base.json", argv[1]);
  snprintf(b, sizeof b, "%s/new.json", argv[1]);
  if (write_run(a, 0))
    return 1;
  slow = 1.2;
  if (write_run(b, 1))
    return 1;
  gbench_shutdown();
  return 0;
}
