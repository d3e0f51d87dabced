/* Shards of a night across hosts (doc/fleet.md): `run --shard K/N` runs the K-th of N parts of
 * the selected variants, the same split on every host for the same seed and N, and names the
 * night the shards share so that `import` folds them into one run (store_night.c).
 *
 * `--shard auto` takes K and N from the scheduler that started the process, the first found of:
 *   Slurm job arrays     SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN
 *                        (and SLURM_ARRAY_TASK_STEP): K = (ID - MIN) / STEP + 1
 *   Kubernetes Indexed   JOB_COMPLETION_INDEX (0-based) and GPUREGRESS_SHARD_COUNT (the Job's
 *   Jobs                 completions: Kubernetes does not pass the count to the pod)
 *   GitLab CI parallel   CI_NODE_INDEX (1-based), CI_NODE_TOTAL
 *   anything else        GPUREGRESS_SHARD=K/N (a GitHub Actions matrix, a shell loop)
 * GPUREGRESS_SHARD also applies when --shard is not given.
 *
 * The split: the selected variants are ordered by a hash of (seed, ALG/VARIANT), GPU variants
 * first, and dealt round-robin: shard K gets positions K-1, K-1+N, ... (so shards differ in size
 * by at most one variant of each group, and a variant moves between hosts from night to night).
 * Within a shard the variants keep the selection's order. */
#ifndef GR_SHARD_H
#define GR_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "selection.h"

#ifdef __cplusplus
extern "C" {
#endif

struct shard {
  int index, count;   /* K of N, 1-based; count 0: not sharded */
  char source[64];    /* where K/N came from: "--shard", "SLURM_ARRAY_TASK_ID", ... */
};

/* "K/N" or "auto" (the scheduler's variables; none found is an error). 0 ok; -1 with why. */
int shard_parse(const char *spec, struct shard *sh, char *why, size_t len);

/* The shard GPUREGRESS_SHARD names, when --shard was not given: 0 none or ok (sh->count 0 when
 * none); -1 with why when it is malformed. */
int shard_default(struct shard *sh, char *why, size_t len);

/* Keep in sel only the variants of shard sh (stable order). No-op when sh->count is 0. */
void shard_select(struct selection *sel, const struct shard *sh, uint64_t seed);

/* Keep in the timing plan p (nothing run yet) only the benchmarks shard sh times: every
 * benchmark of the night's plan is timed on exactly one shard. The plan's (algorithm, case)
 * groups (the variants of a case share its input and reference) are dealt as a host's lanes deal
 * them, the costliest first to the least loaded shard; a group's cost is its number of
 * benchmarks (the shards' databases are fresh: no host's timing history may weigh in, every
 * shard computes the same deal), ties ordered by a hash of (seed, algorithm, case) so that a
 * group moves between hosts from night to night as the fuzzed variants do. *groups gets the
 * plan's groups, *kept this shard's. 0 ok, -1 out of memory. */
struct bench_plan;
int shard_bench_plan(struct bench_plan *p, const struct shard *sh, uint64_t seed, size_t *groups,
                     size_t *kept);

/* The seed every shard of tonight's night derives alike when none is given: from the build's
 * commit and the UTC date. */
uint64_t shard_night_seed(const char *commit);

/* The night id derived from commit, UTC date and seed: "YYYY-MM-DD-<commit12>-<seed>". */
char *shard_night_id(char *buf, size_t len, const char *commit, uint64_t seed);

/* A given night id: letters, digits, '.', '_', '-', ':' and '+', 1 to 100 characters. 0 ok. */
int shard_night_valid(const char *id);

#ifdef __cplusplus
}
#endif

#endif
