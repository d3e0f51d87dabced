/* Between the timing layer's parent (bench.c) and its benchmark process (bench_child.c); not for
 * other callers.
 *
 * Protocol on the child's output pipe (lines tab-separated, reasons flattened):
 *   "NOGPU\t<why>"        no usable device: every item is skipped with that reason
 *   "ERR\t<why>"          the child could not start the benchmarks (bad Google Benchmark flag)
 *   "WAIT\t<what>"        the child waits for its GPU's lock (another gpuregress job of this
 *                         host holds the GPU): the parent's watchdog is off until BW
 *   "BW\t<GB/s>\t<uuid>\t<gpu>"   the copy bandwidth, the device's UUID ("-" unknown) and
 *                         name, once per child
 *   "PEAK\t<alg>\t<items/s>\t<name>"   an algorithm's item peak (alg->item_peak), once per
 *                         child and algorithm of the plan that has one
 *   "X\t<i>"              item i's group is timed by another lane (bench_plan.h, claim):
 *                         nothing is run or reported for it here
 *   "B\t<i>"              item i begins (a crash from here on is its crash)
 *   "N\t<i>"              item i, a GPU variant's, is skipped because this process has no
 *                         usable device while it times host-timed items (GR_VARIANT_HOST_TIMED);
 *                         its T and E follow
 *   "T\t<i>\t<verdict>\t<launches>\t<seconds>\t<reason>"   item i's result, then its accuracy
 *   "M\t<name>\t<value>"  metrics (gr_metrics: error rates, one line each) and its samples:
 *   "S\t<n>"              followed by n doubles (milliseconds) then n ints (SM MHz), raw bytes
 *                         as in memory (same host, same build); absent when n is 0
 *   "E\t<i>"              item i ends
 *   "J\t<what>\t<n>"      followed by n bytes of Google Benchmark JSON (bench_json.h): what 0
 *                         the file's opening with its context, 1 a group of runs
 *   "DONE"                every registered benchmark ran */
#ifndef GR_BENCH_CHILD_H
#define GR_BENCH_CHILD_H

#include <stddef.h>

#include "bench_plan.h"

struct bench_child_arg {
  struct bench_plan *p;
  const struct bench_opts *o;
  size_t start;     /* the first item to run */
};

/* The body of the benchmark process (a child_start fn): arg is a struct bench_child_arg; out is
 * the pipe above. Returns its exit status. */
int bench_child_main(void *arg, int in, int out);

#endif
