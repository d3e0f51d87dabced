/* The timing layer behind `gpuregress bench` (and `gpuregress run --bench`): a plan of
 * (algorithm, variant, bench case) items, timed in a child process (child.c) through Google
 * Benchmark (bench_shim.h) so that the parent never initialises CUDA, every sample stored.
 *
 * Per item, in the child: the case's instance (input + reference) is built once per case and
 * shared by its variants; bench_setup uploads it; warm-up samples are discarded; then samples
 * until the relative noise of the median is under the target (0.5% by default) or the time cap
 * is spent. A sample is one launch after an L2 flush (cold, the default), or a batch of launches
 * lasting about 0.1 ms with the L2 left warm (hot). The SM clock is read with each sample. After
 * the loop the output is fetched and checked by the algorithm's check(): fixed variants must
 * still pass, historical ones are "caught" when the check fails. The child reports over a pipe
 * and sends each item's samples raw; the parent summarises them (stats.h), applies the work
 * model (bench_rates), stores timings and samples (one transaction per item) and survives a
 * crash or a hang of the child (recorded as crash / timeout, the plan goes on in a fresh child).
 *
 * Files: bench_plan.c (the plan, the rates: bench_plan.h), bench_child.c (the benchmark process;
 * protocol in bench_child.h), bench.c (the parent: process control and the store), bench_report.c
 * (the summary table).
 *
 * A CPU variant flagged GR_VARIANT_HOST_TIMED (the tests' stand-in benchmarks, selftest) is timed
 * on the host's monotonic clock without CUDA: in a process with no device its items still run (the
 * GPU items skip with the reason), and its rows name the host's CPU as their model.
 *
 * Test-only: GR_TEST_SLOWDOWN="ALG/VARIANT=FACTOR[,...]" makes the named variants' samples about
 * FACTOR times longer (a spin kernel after each launch, sized from the warm-up median less the
 * cost of launching it; a busy wait for a host-timed variant). */
#ifndef GR_BENCH_H
#define GR_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_plan.h"
#include "gr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Time the plan (see the top of this file). GR_STATUS_OK when the plan ran (items may have
 * failed, crashed or been skipped: see p->res); else, with why, GR_STATUS_USAGE (a Google
 * Benchmark flag the child refused) or GR_STATUS_ENV (no benchmark could start). */
enum gr_status bench_execute(struct bench_plan *p, const struct bench_opts *o, char *why,
                             size_t len);

/* The summary table: per algorithm and case, each variant's median, noise, samples,
 * throughput in the algorithm's unit (GB/s, or items/s where it has an item_unit), % of the copy
 * bandwidth (or of its item peak), ratio to the peer timed in the same run, SM clock, check
 * verdict; then the failures. */
void bench_print_summary(FILE *f, const struct bench_plan *p, const struct bench_opts *o);

/* 1 if a fixed or peer variant's output failed its check after the timing loop or crashed,
 * else 0. */
int bench_failed(const struct bench_plan *p);

/* 1 if items ran and every one was skipped because there is no GPU (GR_STATUS_NO_GPU). */
int bench_all_no_gpu(const struct bench_plan *p);

#ifdef __cplusplus
}
#endif

#endif
