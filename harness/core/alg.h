/* The contract between the harness and an algorithm.
 *
 * An algorithm is one `struct algorithm` table: its parameters (the axes a case varies along),
 * its variants (reference, fixed, historical, peer), a boundary-biased case generator, the
 * reference and checker (bundled in instance_new/check), and a work model. The harness never
 * names an algorithm in its own code: it iterates these tables. Adding an algorithm is adding a
 * folder under algorithms/ and one line in harness/registry.c.
 *
 * Life of a case inside a worker process (harness/worker.c):
 *   instance_new(case)         host input, drawn from case->seed, plus the reference answer
 *   v->run(..., out, ctx)      twice, with different output poison and (GPU variants) shared
 *                              memory filled with different patterns before each run
 *   check(instance, out)       parity with the reference and the algorithm's invariants
 *   the two outputs must be bit-identical (determinism, every element written, no reads of
 *   uninitialised shared memory)
 *   instance_free(instance)
 */
#ifndef GR_ALG_H
#define GR_ALG_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GR_MAX_PARAMS 12
#define GR_WHY_LEN 512

enum variant_kind {
  VARIANT_REFERENCE,  /* CPU reference, checked against the invariants only */
  VARIANT_FIXED,      /* must pass every check */
  VARIANT_HISTORICAL, /* a known bug kept on purpose: must be caught */
  VARIANT_PEER,       /* a library baseline: timed, checked where comparable */
};

/* variant flags */
#define VARIANT_GPU 0x1u      /* needs a CUDA device; skipped (with the reason) without one */
#define VARIANT_NONDET 0x2u   /* output may legitimately differ run to run: no bit-identity */
#define VARIANT_NOSHMEM 0x4u  /* does not use shared memory itself: skip differential poison */

/* algorithm flags */
#define ALG_HIDDEN 0x1u /* test-only: never selected by default, only when named */

/* PARAM_FILE: a file the case reads its data from (a path; "data:REL" names REL in the dataset
 * directory, see case_data_dir). Optional in a case: absent, the data is generated from the
 * seed. Given, the case's value is the file's content hash (FNV-1a 64), so a changed file is a
 * new case, and the algorithm's data_params fills what the files determine (sizes ...). By
 * convention the PARAM_ENUM choice that names where the data comes from ("content", "dist",
 * "shape") has a last choice "file": never generated, refused as a fuzzing range. */
enum param_type { PARAM_INT, PARAM_ENUM, PARAM_FILE };

struct param_spec {
  const char *name;
  enum param_type type;
  int64_t min, max;           /* PARAM_INT: inclusive bounds a case may take */
  const char *const *choices; /* PARAM_ENUM: NULL-terminated, simplest first (shrinking order) */
  const char *help;           /* one line for `gpuregress list ALG` */
};

struct algorithm;

/* A case: algorithm + parameter values + data seed. Text form: "ari n=891 k_a=50 ... seed=7". */
struct gr_case {
  const struct algorithm *alg;
  int64_t v[GR_MAX_PARAMS]; /* in the order of alg->params; PARAM_ENUM holds the choice index,
                               PARAM_FILE the content hash (0 when not given) */
  uint64_t seed;            /* drives the input data only */
  const char *file[GR_MAX_PARAMS]; /* PARAM_FILE: the path as given (interned for the life of
                                      the process), NULL when not given */
};

/* What a variant's run gets besides input and output. */
struct run_ctx {
  unsigned char poison; /* fill the device (or host) output with this byte before computing */
  int trial;            /* 0 or 1: which of the two runs this is */
  uint32_t reached;     /* regimes the run reports it took (bit i: alg->regimes[i]), when only
                         * the launcher knows (a plan made from the data) */
  char why[GR_WHY_LEN]; /* filled on RUN_UNSUPPORTED / RUN_ERROR */
};

enum run_status {
  RUN_OK = 0,
  RUN_UNSUPPORTED = 1, /* this variant cannot take this case (e.g. table beyond shared memory): skip */
  RUN_ERROR = 2,       /* a CUDA or internal error: reported as a crash of the case */
};

/* An instance: the input and reference answer of one case, owned by the algorithm. */
struct gr_instance {
  const struct gr_case *c;
  size_t out_bytes; /* size of the flat output buffer a variant fills completely */
  size_t elem_size; /* bytes per output element, to name the index of a difference */
  void *priv;       /* algorithm data: input, reference output, scratch */
};

/* A variant's launcher as its `impl`: variants[] = {..., run_gpu, GPU(alg_v2_launch), ...}; the
 * run function casts it back to the launcher's type. */
#define GPU(fn) ((void (*)(void))(fn))

struct variant {
  const char *name;
  enum variant_kind kind;
  unsigned flags;
  /* Compute the case on inst into out (out_bytes), honouring ctx->poison. */
  enum run_status (*run)(const struct variant *v, const struct gr_instance *inst, void *out,
                         struct run_ctx *ctx);
  void (*impl)(void); /* the algorithm's launcher for this variant, cast back by its run */
  const char *story;  /* one line: what changed, which bug it carries or fixes */
};

/* Accuracy metrics of an output: error rates (lower is better, a rise is an accuracy
 * regression), such as SGM's bad-pixel rates against a ground truth. */
#define GR_MAX_METRICS 4
#define GR_METRIC_NAME 24
struct gr_metrics {
  size_t n;
  char name[GR_MAX_METRICS][GR_METRIC_NAME];
  double value[GR_MAX_METRICS];
};
/* Append one metric (ignored beyond GR_MAX_METRICS). */
void gr_metrics_add(struct gr_metrics *m, const char *name, double value);

/* The result of a check: empty why means pass. tag names the class of failure (shrinking keeps
 * a candidate only while it fails with the same tag). */
struct check_report {
  const char *tag; /* "parity", "bounds", "invariant", "determinism", ... (static string) */
  double err;      /* the largest error metric seen (algorithm-defined), 0 if exact */
  char why[GR_WHY_LEN];
  struct gr_metrics acc; /* accuracy metrics, filled whether the check passes or not */
};

/* A regime: a code path of some variants that the fuzzer must reach (one chunk / several
 * chunks, a single tile / several tiles, a warp / block / global table). The runner counts the
 * cases that reach each regime of a variant, steers generation toward the ones not reached yet,
 * and reports a fixed variant with an unreached regime as uncovered. */
#define GR_MAX_REGIMES 16
struct regime {
  const char *name;     /* short, lowercase: "several chunks" */
  const char *variants; /* the variants it belongs to, space-separated; NULL: every GPU variant */
  /* 1 if case c takes this path. inst is the case's input where the worker has it (a path that
   * depends on the data); NULL in the parent, which only steers generation with the answer (the
   * best guess from the parameters). NULL: only the variant's run tells (run_ctx.reached). */
  int (*holds)(const struct gr_case *c, const struct gr_instance *inst);
  unsigned flags; /* REGIME_LIMIT ... (0 for an ordinary code path) */
};

/* regime flags */
/* A limit of the code (a counter width reached, a launch-grid cap, 2^24 or 2^31 elements, the
 * last tier of a table): its cases are large and cost seconds, so steering aims at it until it
 * has one case (COVERAGE_WANT_LIMIT) instead of COVERAGE_WANT; the generator draws such cases
 * in a small share of the stream (its large branch), so that steering finds them. */
#define REGIME_LIMIT 0x1u

/* A regime predicate on the parameters alone: static int NAME(c, inst) returning EXPR (of c). */
#define GR_REGIME_PREDICATE(name, expr)                                                            \
  static int name(const struct gr_case *c, const struct gr_instance *inst)                         \
  {                                                                                                \
    (void)inst;                                                                                    \
    return (expr);                                                                                 \
  }

struct algorithm {
  const char *name;
  const char *summary;
  unsigned flags;
  const struct param_spec *params;
  size_t n_params;
  const struct variant *variants;
  size_t n_variants;
  /* Draw the params of one case (boundary-biased); the harness set c->alg and c->seed. */
  void (*generate)(struct gr_case *c, struct rng *r);
  /* Repair cross-parameter constraints after a change (clamp k to n ...). May be NULL. */
  void (*fixup)(struct gr_case *c);
  /* Reject a case whose params are inconsistent: 0 ok, else -1 with why. May be NULL. */
  int (*validate)(const struct gr_case *c, char *why, size_t len);
  /* Device memory a GPU variant needs for the case, in bytes. */
  size_t (*device_bytes)(const struct gr_case *c);
  /* Build input + reference. 0 ok, else -1 with why. */
  int (*instance_new)(const struct gr_case *c, struct gr_instance **out, char *why, size_t len);
  void (*instance_free)(struct gr_instance *inst);
  /* Compare out with the reference and check invariants: 0 pass, 1 fail (rep filled). */
  int (*check)(const struct gr_instance *inst, const void *out, struct check_report *rep);
  /* Work model: bytes a kernel must move and items it processes, for throughput and % of peak. */
  void (*work)(const struct gr_case *c, double *bytes, double *items);
  /* What items count ("cells": sgm's W*H*D*paths cost-volume cells) when the algorithm's
   * throughput means something in items per second rather than bytes: the tables then show
   * items/s and % of item_peak. NULL: GB/s and % of the copy bandwidth. */
  const char *item_unit;
  /* The peak items per second of this GPU, measured by a microbenchmark of the algorithm's own
   * in the benchmark process (CUDA initialised); name gets what it measures, for the tables.
   * Returns 0 when unknown. May be NULL (no % of peak). */
  double (*item_peak)(char *name, size_t len);
  /* The code paths the fuzzer must reach (at most GR_MAX_REGIMES); may be NULL. */
  const struct regime *regimes;
  size_t n_regimes;
  /* "NAME=VALUE ...": parameters a case text may leave out (added after the first release of the
   * algorithm, so that older reproducers still parse); case_format omits them at these values.
   * May be NULL. */
  const char *defaults;
  /* Sanitizer findings examined and explained, NULL-terminated, each
   * "VARIANT TOOL KERNEL: why" (KERNEL: a substring of the kernel named in every finding of that
   * tool on that variant): `gpuregress sanitize` reports them as explained instead of failing.
   * May be NULL. */
  const char *const *sanitizer_explained;

  /* Timing (gpuregress bench). The size sweep is a list of case texts; for each (variant, case)
   * the timer calls bench_setup once (inputs uploaded, outputs allocated: everything that is not
   * the kernel), bench_launch many times (enqueue the timed work on the default stream, no
   * synchronisation, no allocation), bench_fetch once after the timing loop (output to the host,
   * checked again), bench_teardown. bench_setup returns NULL with why when the variant cannot
   * take the case. Any of these NULL: the algorithm is not timed. */
  const char *const *bench_cases; /* NULL-terminated, smallest first */
  void *(*bench_setup)(const struct variant *v, const struct gr_instance *inst, char *why,
                       size_t len);
  void (*bench_launch)(void *state);
  void (*bench_fetch)(void *state, void *out);
  void (*bench_teardown)(void *state);

  /* A case naming files (PARAM_FILE): load and check them, fill the parameters they determine
   * and set bit i of *filled for each params[i] filled (case_parse then takes those as given,
   * and refuses a given value that disagrees). 0 ok; -1 with why naming the file and the
   * problem. NULL: the algorithm has no file parameters. */
  int (*data_params)(struct gr_case *c, uint32_t *filled, char *why, size_t len);
  /* Optional: check the header of the file given for parameter `param` (its type, its sizes
   * against the file's size) before anything reads it whole (the content hash of case_parse):
   * 0 ok; -1 with why naming the file. A file from elsewhere costs no more than its header
   * before it is refused. */
  int (*check_file)(const char *param, const char *path, char *why, size_t len);
};

/* Helpers every algorithm uses (harness/case.c). */
const struct param_spec *alg_param(const struct algorithm *a, const char *name, size_t *index);
const struct variant *alg_variant(const struct algorithm *a, const char *name);
const char *variant_kind_name(enum variant_kind k);
/* A zeroed instance of case c with a zeroed priv of priv_size bytes, or NULL with why ("out of
 * host memory"). The algorithm's instance_free releases both with free(). */
struct gr_instance *gr_instance_alloc(const struct gr_case *c, size_t priv_size, char *why,
                                      size_t len);

#ifdef __cplusplus
}
#endif

#endif
