/* A night's reproducers as files that travel (`gpuregress export --format reproducers --out
 * DIR`): one file per failing case, one folder per slower benchmark, written beside junit.xml
 * by the CI scripts and uploaded with it, so that anyone can reproduce a red night on another
 * machine with no database of the runner. The format (doc/bisect.md, "Reproducers that
 * travel") is versioned: the first line is "gpuregress-reproducer 1", then "key: value" lines
 * whose values are one printable line each (they come from a database: untrusted text). */
#ifndef GR_REPRODUCERS_H
#define GR_REPRODUCERS_H

#include <stddef.h>
#include <stdint.h>

struct store;
struct run_verdict;

#define REPRODUCER_VERSION 1

/* Write dir (made when missing; files of the same names in it are replaced through temporary
 * files) for the run judged by v: for each outcome that failed or caught a bug with a case
 * text, NN-ALG-VARIANT.txt (kind correctness, its `repro` command); for each timing slower than
 * the baseline, the folder reproducer_slower_name() with reproducer.txt (kind slowdown, its
 * `bench --against baseline.db` command) and baseline.db: that benchmark alone of the baseline
 * run (its timing and stored samples, store_copy_timing: kilobytes, not the run), where the
 * baseline is a run of st. The commands start the
 * runner stored with the run (schema 10), else runner (the exporting one's name). *n gets how many were written. 0 ok; -1 with why. */
int reproducers_write(struct store *st, const struct run_verdict *v, const char *dir,
                      const char *runner, size_t *n, char *why, size_t len);

/* The folder of a slower benchmark in a reproducers/ folder: "slower-ALG-VARIANT-HASH" (slugs;
 * HASH: 8 hex digits of the params, seed and L2 mode), the same name whoever computes it, so
 * that a verdict's slower row names its file (reproducers/NAME/baseline.db) before the folder
 * is written. */
void reproducer_slower_name(char *dst, size_t len, const char *algorithm, const char *variant,
                            const char *params, uint64_t seed, const char *l2);

/* A reproducer file read back (what bisect takes): its kind, case text and variant. */
struct reproducer {
  int slowdown;                 /* kind: slowdown (else correctness) */
  int hot;                      /* l2: hot (a slowdown timed with the L2 warm) */
  char case_text[1024];
  char variant[128];
};

/* Read and validate the reproducer file at path (from another machine: untrusted): at most
 * REPRODUCER_MAX_BYTES, the version line, "key: value" lines of printable text only, a known
 * kind, a case and a variant. 0 ok; -1 with why naming the file and what is wrong. */
#define REPRODUCER_MAX_BYTES 65536
int reproducer_read(const char *path, struct reproducer *r, char *why, size_t len);

#endif
