/* The option ids of run and fuzz (their tables: run_options.c; parsed in cmd_run.c). */
#ifndef GR_RUN_OPTIONS_H
#define GR_RUN_OPTIONS_H

enum {
  OPT_WATCHDOG = 256, OPT_NO_SHRINK, OPT_SHRINK_BUDGET, OPT_QUIET, OPT_BENCH, OPT_BENCH_QUICK,
  OPT_ALLOW_NO_GPU, OPT_STRICT_COVERAGE, OPT_GPUS, OPT_SHARD, OPT_NIGHT
};

#endif
