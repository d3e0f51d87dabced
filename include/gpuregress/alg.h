/* SPDX-License-Identifier: Apache-2.0 */
/* gpuregress/alg.h: the contract between the harness and an algorithm (public API).
 *
 * An algorithm is one `struct gr_algorithm` table: its parameters (the axes a case varies along),
 * its variants (reference, fixed, historical, peer), a boundary-biased case generator, the
 * reference and checker (bundled in instance_new/check), and a work model. The harness never
 * names an algorithm in its own code: it iterates the tables that registered themselves with
 * GR_REGISTER_ALGORITHM (below). Adding an algorithm is adding a folder under algorithms/ (in the
 * tree) or sources given to gpuregress_add_executable (out of the tree: doc/adding-your-kernel.md).
 *
 * Life of a case inside a worker process (harness/run/worker.c):
 *   instance_new(case)         host input, drawn from case->seed, plus the reference answer
 *   v->run(..., out, ctx)      twice, with different output poison and (GPU variants) shared
 *                              memory filled with different patterns before each run
 *   check(instance, out)       parity with the reference and the algorithm's invariants
 *   the two outputs must be bit-identical (determinism, every element written, no reads of
 *   uninitialised shared memory)
 *   instance_free(instance)
 *
 * Stability (see version.h): within one GR_API_VERSION, the public headers (include/gpuregress/)
 * keep every name, field, field order, type and meaning they have; new things are added only
 * where they change no layout (new functions and macros; new fields of struct gr_algorithm only at
 * its end, where a table that does not set them gets zero, which always means "not provided"). A
 * change that breaks a table written against an older header (removing or reordering fields,
 * changing a signature or a meaning) raises GR_API_VERSION, and a table built against another
 * GR_API_VERSION is refused at registration with a message (never run). The case text format
 * ("alg name=value ... seed=N") and the meaning of a seed (rng.h) are stable as well: a
 * reproducer printed by one version runs under every later one with the same API version.
 * Everything outside include/gpuregress/ (the harness's own headers) may change at any time. */
#ifndef GR_ALG_H
#define GR_ALG_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GR_MAX_PARAMS 12
#define GR_WHY_LEN 512

enum gr_variant_kind {
  GR_VARIANT_REFERENCE,  /* CPU reference, checked against the invariants only */
  GR_VARIANT_FIXED,      /* must pass every check */
  GR_VARIANT_HISTORICAL, /* a known bug kept on purpose: must be caught */
  GR_VARIANT_PEER,       /* a library baseline: timed, checked where comparable */
};

/* variant flags */
#define GR_VARIANT_GPU 0x1u     /* needs a CUDA device; skipped (with the reason) without one */
#define GR_VARIANT_NONDET 0x2u  /* output may legitimately differ run to run: no bit-identity */
#define GR_VARIANT_NOSHMEM 0x4u /* does not use shared memory itself: skip differential poison */
/* its timed launch does host-side library work (descriptor creation, size queries, allocations
 * inside the library): its time moves between processes more than within one, so compare asks
 * it for 4x the minimum effect of its algorithm (cuSPARSE's SpGEMM: 0.448-0.518 ms over 31
 * processes on H100s and H200s, 0.2-0.5% noise within each, where our v2_warp_hash moved < 2.5%) */
#define GR_VARIANT_HOST_BOUND 0x8u
/* a CPU variant that bench times on the CPU clock of its thread (no CUDA device; a loaded host
 * moves it less than the wall clock): the stand-in benchmarks of the tests (selftest), so that a
 * night timed on a machine without a GPU has timings to merge, compare and judge; its rows
 * record the host's CPU as their model */
#define GR_VARIANT_HOST_TIMED 0x10u

/* algorithm flags */
#define GR_ALG_HIDDEN 0x1u /* test-only: never selected by default, only when named */

/* GR_PARAM_FILE: a file the case reads its data from (a path; "data:REL" names REL in the dataset
 * directory, see gr_case_data_dir). Optional in a case: absent, the data is generated from the
 * seed. Given, the case's value is the file's content hash (FNV-1a 64), so a changed file is a
 * new case, and the algorithm's data_params fills what the files determine (sizes ...). By
 * convention the GR_PARAM_ENUM choice that names where the data comes from ("content", "dist",
 * "shape") has a last choice "file": never generated, refused as a fuzzing range. */
enum gr_param_type { GR_PARAM_INT, GR_PARAM_ENUM, GR_PARAM_FILE };

struct gr_param_spec {
  const char *name;
  enum gr_param_type type;
  int64_t min, max;           /* GR_PARAM_INT: inclusive bounds a case may take */
  const char *const *choices; /* GR_PARAM_ENUM: NULL-terminated, simplest first (shrinking order) */
  const char *help;           /* one line for `gpuregress list ALG` */
};

struct gr_algorithm;

/* A case: algorithm + parameter values + data seed. Text form: "ari n=891 k_a=50 ... seed=7". */
struct gr_case {
  const struct gr_algorithm *alg;
  int64_t v[GR_MAX_PARAMS]; /* in the order of alg->params; GR_PARAM_ENUM holds the choice index,
                               GR_PARAM_FILE the content hash (0 when not given) */
  uint64_t seed;            /* drives the input data only */
  const char *file[GR_MAX_PARAMS]; /* GR_PARAM_FILE: the path as given (interned for the life of
                                      the process), NULL when not given */
};

/* What a variant's run gets besides input and output. */
struct gr_run_ctx {
  unsigned char poison; /* fill the device (or host) output with this byte before computing */
  int trial;            /* 0 or 1: which of the two runs this is */
  uint32_t reached;     /* regimes the run reports it took (bit i: alg->regimes[i]), when only
                         * the launcher knows (a plan made from the data) */
  char why[GR_WHY_LEN]; /* filled on GR_RUN_UNSUPPORTED / GR_RUN_ERROR */
};

enum gr_run_status {
  GR_RUN_OK = 0,
  GR_RUN_UNSUPPORTED =
      1,            /* this variant cannot take this case (e.g. table beyond shared memory): skip */
  GR_RUN_ERROR = 2, /* a CUDA or internal error: reported as a crash of the case */
};

/* An instance: the input and reference answer of one case, owned by the algorithm. */
struct gr_instance {
  const struct gr_case *c;
  size_t out_bytes; /* size of the flat output buffer a variant fills completely */
  size_t elem_size; /* bytes per output element, to name the index of a difference */
  void *priv;       /* algorithm data: input, reference output, scratch */
};

/* What only a CUDA build has: in a host-only build (-DGPUREGRESS_CUDA=OFF, which defines
 * GR_HOST_ONLY for everything built against it) GR_IF_CUDA(x) is NULL, so that a table names its
 * GPU functions (the run of a GPU variant, the timing hooks, item_peak) without referencing them:
 * the .cu files are not built there, and a variant with no run is listed and skipped as "built
 * without CUDA". Host code that calls a GPU function directly keeps it under #ifndef
 * GR_HOST_ONLY. */
#ifdef GR_HOST_ONLY
#define GR_IF_CUDA(x) NULL
#else
#define GR_IF_CUDA(x) (x)
#endif

/* A variant's launcher as its `impl`: variants[] = {..., GR_IF_CUDA(run_gpu),
 * GR_GPU(alg_v2_launch), ...}; the run function casts it back to the launcher's type. */
#define GR_GPU(fn) GR_IF_CUDA((void (*)(void))(fn))

struct gr_variant {
  const char *name;
  enum gr_variant_kind kind;
  unsigned flags;
  /* Compute the case on inst into out (out_bytes), honouring ctx->poison. */
  enum gr_run_status (*run)(const struct gr_variant *v, const struct gr_instance *inst, void *out,
                            struct gr_run_ctx *ctx);
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
struct gr_check_report {
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
struct gr_regime {
  const char *name;     /* short, lowercase: "several chunks" */
  const char *variants; /* the variants it belongs to, space-separated; NULL: every GPU variant */
  /* 1 if case c takes this path. inst is the case's input where the worker has it (a path that
   * depends on the data); NULL in the parent, which only steers generation with the answer (the
   * best guess from the parameters). NULL: only the variant's run tells (run_ctx.reached). */
  int (*holds)(const struct gr_case *c, const struct gr_instance *inst);
  unsigned flags; /* GR_REGIME_LIMIT ... (0 for an ordinary code path) */
};

/* regime flags */
/* A limit of the code (a counter width reached, a launch-grid cap, 2^24 or 2^31 elements, the
 * last tier of a table): its cases are large and cost seconds, so steering aims at it until it
 * has one case (COVERAGE_WANT_LIMIT) instead of COVERAGE_WANT; the generator draws such cases
 * in a small share of the stream (its large branch), so that steering finds them. */
#define GR_REGIME_LIMIT 0x1u
/* An ordinary regime whose smallest case is still large (2^24 labels, a partition of 12,289
 * values): steered like any other, but the sanitizer lane leaves it, like the limits, to the
 * fuzz (under compute-sanitizer such a case runs for minutes). */
#define GR_REGIME_LARGE 0x2u
/* The path where a historical variant's known bug shows (and that a plain draw takes in few of
 * its cases: int8/int16 shifts for avos/v1_msb_small): on a tie of cases, steering aims at it
 * before the other regimes, so that the variant's short share of a night (often 4 s, a few cases)
 * meets it first. Name the historical variant in the regime's variants (with the fixed ones
 * whose same path it is). */
#define GR_REGIME_EARLY 0x4u

/* A regime predicate on the parameters alone: static int NAME(c, inst) returning EXPR (of c). */
#define GR_REGIME_PREDICATE(name, expr)                                                            \
  static int name(const struct gr_case *c, const struct gr_instance *inst)                         \
  {                                                                                                \
    (void)inst;                                                                                    \
    return (expr);                                                                                 \
  }

struct gr_gpu_lifecycle;

struct gr_algorithm {
  const char *name;
  const char *summary;
  unsigned flags;
  const struct gr_param_spec *params;
  size_t n_params;
  const struct gr_variant *variants;
  size_t n_variants;
  /* Draw the params of one case (boundary-biased); the harness set c->alg and c->seed. */
  void (*generate)(struct gr_case *c, struct gr_rng *r);
  /* Repair cross-parameter constraints after a change (clamp k to n ...). May be NULL. */
  void (*fixup)(struct gr_case *c);
  /* Reject a case whose params are inconsistent: 0 ok, else -1 with why. May be NULL. */
  int (*validate)(const struct gr_case *c, char *why, size_t len);
  /* Device memory a GPU variant needs for the case, in bytes. */
  size_t (*device_bytes)(const struct gr_case *c);
  /* Build input + reference. 0 ok, else -1 with why. Host work only: the benchmark process
   * builds the first cases on a helper thread while its main thread starts CUDA. */
  int (*instance_new)(const struct gr_case *c, struct gr_instance **out, char *why, size_t len);
  void (*instance_free)(struct gr_instance *inst);
  /* Compare out with the reference and check invariants: 0 pass, 1 fail (rep filled). */
  int (*check)(const struct gr_instance *inst, const void *out, struct gr_check_report *rep);
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
  const struct gr_regime *regimes;
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
  void *(*bench_setup)(const struct gr_variant *v, const struct gr_instance *inst, char *why,
                       size_t len);
  void (*bench_launch)(void *state);
  void (*bench_fetch)(void *state, void *out);
  void (*bench_teardown)(void *state);

  /* A case naming files (GR_PARAM_FILE): load and check them, fill the parameters they determine
   * and set bit i of *filled for each params[i] filled (case_parse then takes those as given,
   * and refuses a given value that disagrees). 0 ok; -1 with why naming the file and the
   * problem. NULL: the algorithm has no file parameters. */
  int (*data_params)(struct gr_case *c, uint32_t *filled, char *why, size_t len);
  /* Optional: check the header of the file given for parameter `param` (its type, its sizes
   * against the file's size) before anything reads it whole (the content hash of case_parse):
   * 0 ok; -1 with why naming the file. A file from elsewhere costs no more than its header
   * before it is refused. */
  int (*check_file)(const char *param, const char *path, char *why, size_t len);

  /* The GPU lifecycle (the one way to write a GPU variant; see struct gr_gpu_lifecycle below).
   * When set, the harness builds the checked run (gr_gpu_lifecycle_run as a variant's run) and
   * the timing (instead of the bench_* hooks above) from it. NULL: not provided. */
  const struct gr_gpu_lifecycle *gpu;

  /* Optional: 0 when variant v computes the case of inst; -1 with why when its run would skip it
   * (GR_RUN_UNSUPPORTED: a peer that takes part of the cases, such as cuSPARSE on an avos product
   * with zero terms). Host work, no GPU: the sanitizer lane picks the cases a variant takes, so
   * that its cell is not a skip by the draw. NULL: every variant takes every case it is given. */
  int (*takes)(const struct gr_variant *v, const struct gr_instance *inst, char *why, size_t len);
};

/* ---- the GPU lifecycle ----------------------------------------------------------------------
 * A GPU variant is written once as four steps; the harness makes from them both the checked run
 * (the worker's two runs: outputs filled with GR_POISON_A, then GR_POISON_B, shared memory
 * poisoned before each, launch, synchronise, fetch, compare) and the benchmark (setup once,
 * launch many times on the stream it times with CUDA events, fetch and check after the timing
 * loop, teardown). Work that needs the host between its kernels adds a fifth step, run (below),
 * whose sizes or plan the launches replay. A variant uses it by naming gr_gpu_lifecycle_run as its run:
 *     {"v2", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
 *      GR_GPU(alg_v2_launch), "story"},
 * and the algorithm sets .gpu = GR_IF_CUDA(&alg_lifecycle). */

/* The poison bytes of the two checked runs' outputs (each output byte, on the device and in the
 * host buffer), and the patterns written over shared memory before each (gr_gpu_poison_shared). */
#define GR_POISON_A 0xA5
#define GR_POISON_B 0x5A
#define GR_SMEM_POISON_A 0xa5a50002u
#define GR_SMEM_POISON_B 0x5a5a0001u

#define GR_GPU_MAX_OUTPUTS 4
/* One case on the device for one variant: the harness fills variant and inst, the steps the
 * rest. */
struct gr_gpu_case {
  const struct gr_variant *variant;
  const struct gr_instance *inst;
  void *state; /* the algorithm's own (buffers, plans, the launcher) */
  /* setup: the device buffers the harness fills with the run's poison byte before launching:
   * the outputs, and scratch whose read before a write should show (out_bytes 0: unused) */
  void *out[GR_GPU_MAX_OUTPUTS];
  size_t out_bytes[GR_GPU_MAX_OUTPUTS];
  /* set by the harness: 1 for the launches it times, 0 for a checked run's launch and the
   * benchmark's first (untimed) one; a timed launch may leave out outputs that only the check
   * reads (sgm's per-path costs), which that first launch wrote */
  int timed;
  uint32_t reached;     /* regimes taken, as gr_run_ctx.reached (setup, launch) */
  char why[GR_WHY_LEN]; /* the reason with GR_RUN_UNSUPPORTED or GR_RUN_ERROR */
  /* set by the harness: the byte out[] was filled with before this launch (GR_POISON_A or
   * GR_POISON_B), -1 for a timed launch; a step that sizes a buffer on the way (run below) fills
   * it with this byte itself, so that an entry read before it is written shows */
  int poison;
  /* set by the harness: 1 from setup to teardown of a benchmark, 0 in a checked run */
  int bench;
};

struct gr_gpu_lifecycle {
  /* Upload the input, allocate the outputs (set out[] / out_bytes[]) and whatever the launch
   * needs. GR_RUN_OK; GR_RUN_UNSUPPORTED (this variant cannot take the case) or GR_RUN_ERROR,
   * with why, after releasing what it took (teardown is not called then). */
  enum gr_run_status (*setup)(struct gr_gpu_case *g);
  /* Enqueue the computation on `stream` (a cudaStream_t; NULL: the default stream): no host
   * synchronisation, no allocation, the same work every call. GR_RUN_OK, or GR_RUN_UNSUPPORTED
   * with why (decided before anything is enqueued). */
  enum gr_run_status (*launch)(struct gr_gpu_case *g, void *stream);
  /* After the stream is synchronised: the outputs into out (inst->out_bytes, the layout the
   * algorithm's check reads). GR_RUN_OK; GR_RUN_ERROR with why when the device says the input was
   * bad (a flag the kernel raised), which the checked run reports as an error of the case. */
  enum gr_run_status (*fetch)(struct gr_gpu_case *g, void *out);
  /* Release everything setup took. */
  void (*teardown)(struct gr_gpu_case *g);
  /* Optional, for work that needs the host between its kernels (a product's size read back
   * before its entries are allocated, iterations until the medoids stop moving): the whole
   * computation on `stream`, which may synchronise and allocate, leaving behind what launch
   * replays (the sizes, the plan of an iteration). The checked run and a benchmark's first,
   * untimed launch call run; the timed launches call launch. NULL: launch everywhere. A variant
   * whose run and replay disagree (sizes that vary from run to run) is judged on run's output
   * in the checked run, and on the replay's after the timing loop. */
  enum gr_run_status (*run)(struct gr_gpu_case *g, void *stream);
};

/* The checked run of a lifecycle variant (harness/core/lifecycle.c): setup, the outputs filled
 * with ctx->poison, run (or launch) on the default stream, synchronise, fetch, teardown; the first
 * status that is not GR_RUN_OK is the run's, with its reason. */
enum gr_run_status gr_gpu_lifecycle_run(const struct gr_variant *v, const struct gr_instance *inst,
                                        void *out, struct gr_run_ctx *ctx);

/* Helpers every algorithm uses (harness/core/case.c). */
const struct gr_param_spec *gr_alg_param(const struct gr_algorithm *a, const char *name,
                                         size_t *index);
const struct gr_variant *gr_alg_variant(const struct gr_algorithm *a, const char *name);
const char *gr_variant_kind_name(enum gr_variant_kind k);
/* A zeroed instance of case c with a zeroed priv of priv_size bytes, or NULL with why ("out of
 * host memory"). The algorithm's instance_free releases both with free(). */
struct gr_instance *gr_instance_alloc(const struct gr_case *c, size_t priv_size, char *why,
                                      size_t len);

/* The dataset directory that "data:REL" file values are relative to: $GR_DATA, else
 * $XDG_CACHE_HOME/gpuregress/datasets, else $HOME/.cache/gpuregress/datasets (where
 * scripts/datasets writes). Returns buf. */
const char *gr_case_data_dir(char *buf, size_t len);
/* The path of file parameter `name` of c, resolved (see gr_case_data_dir), in buf; NULL when c does
 * not name that file. */
const char *gr_case_file(const struct gr_case *c, const char *name, char *buf, size_t len);
/* 1 if c reads data from a file (a GR_PARAM_FILE parameter is given). */
int gr_case_has_files(const struct gr_case *c);

/* ---- case text ----------------------------------------------------------------------------- */

#define GR_CASE_TEXT_LEN 1024 /* longest case text */
#define GR_CASE_PATH_LEN 256  /* longest path of a GR_PARAM_FILE value */

/* Parse "ALG name=value ... seed=N" (ALG a registered algorithm). Every parameter must be given
 * once, seed too, except those with a default (alg->defaults), GR_PARAM_FILE ones (optional)
 * and those the given files determine (alg->data_params). 0 ok; -1 with why naming the
 * offending token; -2 a "data:" file is missing (dataset not fetched). A helper program of an
 * algorithm (kmedoids' MPI program) reads its case this way. */
int gr_case_parse(const char *text, struct gr_case *c, char *why, size_t len);
/* The canonical text form of c (gr_case_parse gives c back from it); returns buf. */
char *gr_case_format(const struct gr_case *c, char *buf, size_t len);

/* ---- registration ------------------------------------------------------------------------ */

/* GR_REGISTER_ALGORITHM(table): put the algorithm `table` (a `const struct gr_algorithm` defined in
 * the same file) in the runner's registry, with no central list to edit. Write it once, at file
 * scope, after the table:
 *
 *     const struct gr_algorithm histogram_algorithm = { .name = "histogram", ... };
 *     GR_REGISTER_ALGORITHM(histogram_algorithm);
 *
 * It is a constructor (run before main, in a static link, a shared library or a plugin loaded
 * with dlopen alike) that calls gr_register_algorithm with the API version and the size of
 * struct gr_algorithm this file was compiled with. The runner refuses a table compiled against
 * another GR_API_VERSION, or whose struct gr_algorithm is larger than its own, with a message on
 * stderr naming the algorithm and the file (and never runs it); a second table of the same name
 * is refused too. A static library of algorithms must be linked whole (its objects are
 * referenced by no one): gpuregress_add_executable does that for the built-ins and compiles the
 * user's sources into the runner itself. */
#define GR_REGISTER_ALGORITHM(table)                                                               \
  __attribute__((constructor)) static void gr_register_##table(void)                               \
  {                                                                                                \
    gr_register_algorithm(&(table), GR_API_VERSION, sizeof(struct gr_algorithm), __FILE__);        \
  }                                                                                                \
  struct gr_register_##table##_semicolon_ /* so that the macro takes a ';' */

/* The registration behind GR_REGISTER_ALGORITHM: api and size are what the caller was compiled
 * with, where names its source. 0 registered; -1 refused (a message on stderr says why). */
int gr_register_algorithm(const struct gr_algorithm *a, unsigned api, size_t size,
                          const char *where);

#ifdef __cplusplus
}
#endif

#endif
