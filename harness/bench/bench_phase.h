/* The timing layer's entries for the commands (bench_phase.c): `gpuregress bench` times a plan
 * into a run of the store and prints its summary (bench_session), `run --bench` times its
 * selection after the fuzzing (bench_phase), and `bench --against` compares what was timed with
 * an earlier run (bench_against). The command files parse, open the store, begin the run, call
 * one of these and print the result line (harness/cli/cmd_bench.c, harness/cli/cmd_run.c). */
#ifndef GR_BENCH_PHASE_H
#define GR_BENCH_PHASE_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "gpus.h"
#include "selection.h"
#include "store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Time plan p into run of st (o->store and o->run_id set here; SIGINT, SIGTERM and SIGHUP stop
 * it as an interruption: bench_interrupted) and print its summary (on stdout, on stderr where the
 * JSON goes to stdout). Returns the exit code: 0, 1 a check failed after timing, 3 no GPU, 130
 * interrupted; 2 after "gpuregress CMD: why" (a Google Benchmark flag refused), or 2 with nothing
 * printed when the store failed (store_write_failed: the caller says why). */
int bench_session(struct store *st, int64_t run, struct bench_plan *p, struct bench_opts *o,
                  const char *cmd);

struct shard;
/* The timing phase of `run --bench`: the selection's benchmarks into run, with the options o
 * (its commit, versions, gpus and display as the caller sets them; quick: the plan's quick form
 * and a 0.25 s cap). gpus (in o): NULL or none for the one visible GPU, else spread as bench
 * --gpus does. shard: NULL or count 0, or the night's shard: then sel is the night's whole
 * selection and only the benchmarks dealt to this shard are timed (shard_bench_plan, seed).
 * Returns an exit code (0, 1 a check failed after timing, 3 no GPU). */
int bench_phase(struct store *st, int64_t run, const struct selection *sel,
                const struct bench_opts *o, int quick, const struct shard *shard, uint64_t seed);
/* The seconds the timing phase of bench_phase (same selection, quick, gpus, shard and seed) is
 * expected to take, from the seconds its benchmarks took when last timed in st (spread over the
 * GPUs); 0 when one of them was never timed (unknown). */
double bench_phase_expected(struct store *st, const struct selection *sel, int quick,
                            const struct gpu_set *gpus, const struct shard *shard, uint64_t seed);

/* bench --against RUN|FILE names something that exists (FILE: a gpuregress database judged as
 * untrusted, store_attach_baseline): 0, else 2 after a message ("gpuregress bench: ..."). */
int bench_against_check(struct store *st, const char *db, const char *against);
/* Compare what run of db timed with --against's run: one line per benchmark timed in both,
 * judged as compare judges them. Returns 1 when one is slower, 0 when none, 2 after a message. */
int bench_against(const char *db, int64_t run, const char *against);

#ifdef __cplusplus
}
#endif

#endif
