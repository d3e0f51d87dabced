/* The variants a command runs, benches or sanitizes: chosen from the registry by the command
 * line's filter (select_variants, harness/cli/cli.c), cut to a night's shard (shard.h), planned
 * by the fuzzing and timing phases (fuzz_phase.h, bench_phase.h). Parallel arrays, n used. */
#ifndef GR_SELECTION_H
#define GR_SELECTION_H

#include <stddef.h>

#include "alg.h"

struct selection {
  const struct gr_algorithm *alg[256];
  const struct gr_variant *v[256];
  size_t n;
};

#endif
