/* kmedoids_mpi: distributed k-medoids over image signatures with SQFD. Run under mpirun; every
 * rank loads the dataset, drives one GPU (rank i on local device i mod count) or the CPU backend,
 * and takes its share of each step (km_engine.h): assignment by object ranges exchanged with
 * Allgatherv, score work split by equal cost with big clusters shared, the ranks' parts of the
 * scores summed with Allreduce. Every rank derives the same medoids; rank 0 writes the result file.
 *
 *   mpirun -np R kmedoids_mpi (--data FILE | --generate N,SIGMIN,SIGMAX,CLASSES,SEED) --k K
 *          [--alpha A] [--iters I] [--init-seed S] [--backend gpu|cpu] [--score fixed|racy]
 *          [--out FILE] [--time]
 *
 * Exit status: 0 ok, 1 the run failed, 2 usage or input error (an option value that is not a whole
 * number in its range, an option given twice, a dataset the loader rejects, k outside 1..n, more
 * than KM_SCORE_MAX_N objects, a dataset the GPU kernels do not take), 3 environment (no CUDA
 * device for the gpu backend). */
#include <ctype.h>
#ifndef GR_HOST_ONLY
#include <cuda_runtime_api.h>
#endif
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/kmedoids_sig.h"
#include <gpuregress/alg.h>
#include <gpuregress/gpu.h>
#include <gpuregress/util.h>
#include "km_engine.h"
#include "km_gpu.h"
#include "km_mpirun.h"
#include "kmedoids.h"

/* Open MPI keeps allocations past MPI_Finalize (its plugins, by design): under the ASan preset,
 * no leak report for this program. Unused in other builds. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
  return "detect_leaks=0";
}

struct opts {
  const char *data, *out, *backend, *score;
  struct kmsig_gen gen; /* --generate, when generate is set */
  int generate, k, iters, time;
  double alpha;
  uint64_t init_seed;
};

static void usage(FILE *f)
{
  fprintf(f,
          "usage: mpirun -np R kmedoids_mpi (--data FILE | --generate N,SIGMIN,SIGMAX,CLASSES,SEED)\n"
          "           --k K [--alpha A] [--iters I] [--init-seed S] [--backend gpu|cpu]\n"
          "           [--score fixed|racy] [--out FILE] [--time]\n"
          "  --data FILE      signature file (datasets/kmedoids_sig.h format)\n"
          "  --generate ...   generate the dataset instead (latent classes), the same on every rank\n"
          "  --k K            clusters, 1..n\n"
          "  --alpha A        similarity exp(-A d^2), 0 < A <= 1e6 (default 0.2)\n"
          "  --iters I        iteration limit, 0..1000000 (default 16)\n"
          "  --init-seed S    seed of the initial medoids (default 42)\n"
          "  --backend B      gpu (one GPU per rank, default) or cpu\n"
          "  --score S        big-cluster score kernel: fixed (default) or racy (the historical bug)\n"
          "  --out FILE       rank 0 writes the result (medoids, assignment, objective) here\n"
          "  --time           print per-phase times (max over ranks)\n"
          "exit: 0 ok, 1 run failed, 2 usage or input error, 3 no CUDA device\n");
}

/* Option values are whole strings: decimal integers within [lo, hi] (no sign on unsigned ones,
 * no blanks, no trailing text), finite numbers. 0 ok, -1 with why naming the option. */
#define MAX_ITERS 1000000
#define MAX_ALPHA 1e6
#define MAX_SIG 1000000
#define MAX_CLASSES 1000000

static int int_value(const char *opt, const char *field, const char *val, int64_t lo, int64_t hi,
                     int64_t *out, char *why, size_t len)
{
  int64_t v;
  if ((*val != '-' && (*val < '0' || *val > '9')) || gr_parse_i64(val, &v) || v < lo || v > hi) {
    gr_fmt(why, len, "'%s %s': %s%snot an integer in %lld..%lld", opt, val, field,
           *field ? " is " : "", (long long)lo, (long long)hi);
    return -1;
  }
  *out = v;
  return 0;
}

static int u64_value(const char *opt, const char *field, const char *val, uint64_t *out, char *why,
                     size_t len)
{
  if (*val < '0' || *val > '9' || gr_parse_u64(val, out)) {
    gr_fmt(why, len, "'%s %s': %s%snot an integer in 0..18446744073709551615", opt, val, field,
           *field ? " is " : "");
    return -1;
  }
  return 0;
}

static int alpha_value(const char *val, double *out, char *why, size_t len)
{
  char *end;
  errno = 0;
  double v = strtod(val, &end);
  if (!*val || isspace((unsigned char)*val) || *end || errno || !isfinite(v) || !(v > 0) ||
      v > MAX_ALPHA) {
    gr_fmt(why, len, "'--alpha %s': not a number in (0, %g]", val, MAX_ALPHA);
    return -1;
  }
  *out = v;
  return 0;
}

/* --generate N,SIGMIN,SIGMAX,CLASSES,SEED: exactly five fields, each checked. */
static int gen_value(const char *val, struct kmsig_gen *g, char *why, size_t len)
{
  static const char *const names[5] = {"N", "SIGMIN", "SIGMAX", "CLASSES", "SEED"};
  char field[5][32];
  int nf = 0;
  for (const char *p = val;; nf++) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if (nf == 5 || n >= sizeof field[0]) {
      gr_fmt(why, len, "'--generate %s': expected N,SIGMIN,SIGMAX,CLASSES,SEED", val);
      return -1;
    }
    memcpy(field[nf], p, n);
    field[nf][n] = '\0';
    if (!comma)
      break;
    p = comma + 1;
  }
  if (nf != 4) {
    gr_fmt(why, len, "'--generate %s': expected N,SIGMIN,SIGMAX,CLASSES,SEED (5 fields)", val);
    return -1;
  }
  int64_t n, sig_min, sig_max, classes;
  uint64_t seed;
  if (int_value("--generate", names[0], field[0], 1, KMSIG_MAX_N, &n, why, len) ||
      int_value("--generate", names[1], field[1], 1, MAX_SIG, &sig_min, why, len) ||
      int_value("--generate", names[2], field[2], sig_min, MAX_SIG, &sig_max, why, len) ||
      int_value("--generate", names[3], field[3], 1, MAX_CLASSES, &classes, why, len) ||
      u64_value("--generate", names[4], field[4], &seed, why, len)) {
    /* name the whole value, not just the field */
    char inner[GR_WHY_LEN];
    gr_fmt(inner, sizeof inner, "%s", why);
    const char *colon = strstr(inner, "': ");
    gr_fmt(why, len, "'--generate %s': %s", val, colon ? colon + 3 : inner);
    return -1;
  }
  memset(g, 0, sizeof *g);
  g->n = n;
  g->sig_min = (int)sig_min;
  g->sig_max = (int)sig_max;
  g->classes = (int)classes;
  g->seed = seed;
  g->dist = KMSIG_DIST_CLASSES;
  return 0;
}

static int parse(int argc, char **argv, struct opts *o, char *why, size_t len)
{
  memset(o, 0, sizeof *o);
  o->alpha = 0.2;
  o->iters = 16;
  o->init_seed = 42;
  o->backend = "gpu";
  o->score = "fixed";
  static const char *const names[] = {"--data", "--generate", "--out", "--backend", "--score",
                                      "--k", "--iters", "--alpha", "--init-seed", "--time"};
  enum { N_NAMES = sizeof names / sizeof *names };
  int seen[N_NAMES] = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      gr_fmt(why, len, "help");
      return 1;
    }
    int which = -1;
    for (int j = 0; j < N_NAMES; j++)
      if (strcmp(a, names[j]) == 0)
        which = j;
    if (which < 0) {
      gr_fmt(why, len, "unknown option '%s'", a);
      return -1;
    }
    if (seen[which]++) {
      gr_fmt(why, len, "'%s' is given twice", a);
      return -1;
    }
    if (strcmp(a, "--time") == 0) {
      o->time = 1;
      continue;
    }
    if (!val) {
      gr_fmt(why, len, "'%s' needs a value", a);
      return -1;
    }
    i++;
    int64_t v;
    if (strcmp(a, "--data") == 0) {
      if (!*val) {
        gr_fmt(why, len, "'--data' needs a file name, not ''");
        return -1;
      }
      o->data = val;
    } else if (strcmp(a, "--generate") == 0) {
      if (gen_value(val, &o->gen, why, len))
        return -1;
      o->generate = 1;
    } else if (strcmp(a, "--out") == 0) {
      if (!*val) {
        gr_fmt(why, len, "'--out' needs a file name, not ''");
        return -1;
      }
      o->out = val;
    } else if (strcmp(a, "--backend") == 0) {
      o->backend = val;
    } else if (strcmp(a, "--score") == 0) {
      o->score = val;
    } else if (strcmp(a, "--k") == 0) {
      if (int_value(a, "", val, 1, INT32_MAX, &v, why, len))
        return -1;
      o->k = (int)v;
    } else if (strcmp(a, "--iters") == 0) {
      if (int_value(a, "", val, 0, MAX_ITERS, &v, why, len))
        return -1;
      o->iters = (int)v;
    } else if (strcmp(a, "--alpha") == 0) {
      if (alpha_value(val, &o->alpha, why, len))
        return -1;
    } else if (u64_value(a, "", val, &o->init_seed, why, len)) { /* --init-seed */
      return -1;
    }
  }
  if (!o->data == !o->generate) {
    gr_fmt(why, len, "give one of '--data' and '--generate'");
    return -1;
  }
  if (!seen[5]) {
    gr_fmt(why, len, "'--k' is required");
    return -1;
  }
  if (strcmp(o->backend, "gpu") != 0 && strcmp(o->backend, "cpu") != 0) {
    gr_fmt(why, len, "'--backend %s': use gpu or cpu", o->backend);
    return -1;
  }
  if (strcmp(o->score, "fixed") != 0 && strcmp(o->score, "racy") != 0) {
    gr_fmt(why, len, "'--score %s': use fixed or racy", o->score);
    return -1;
  }
  return 0;
}

/* MPI communicator of the engine */

static int mpi_allgather_assign(void *ctx, int32_t *assign, double *mind, const int *counts,
                                const int *displs)
{
  MPI_Comm c = *(MPI_Comm *)ctx;
  if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, assign, counts, displs, MPI_INT32_T, c) !=
      MPI_SUCCESS)
    return -1;
  return MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, mind, counts, displs, MPI_DOUBLE, c) ==
                 MPI_SUCCESS
             ? 0
             : -1;
}

/* n <= KM_SCORE_MAX_N (the engine refuses more): one int count. */
static int mpi_allreduce_score(void *ctx, uint64_t *score, int64_t n)
{
  MPI_Comm c = *(MPI_Comm *)ctx;
  return MPI_Allreduce(MPI_IN_PLACE, score, (int)n, MPI_UINT64_T, MPI_SUM, c) == MPI_SUCCESS ? 0
                                                                                              : -1;
}

/* The lowest rank whose flag is nonzero, or -1 when none is: only that rank reports. */
static int first_failing(int flag)
{
  int rank, size, first;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = flag ? rank : size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return first < size ? first : -1;
}

static int finish(int code)
{
  MPI_Finalize();
  return code;
}

/* the GPU backend's state, freed (none in a host-only build: the backend is not there) */
static void free_gpu(struct km_gpu *g)
{
#ifdef GR_HOST_ONLY
  (void)g;
#else
  km_gpu_free(g);
#endif
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm world = MPI_COMM_WORLD;
  int rank, size;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  struct opts o;
  char why[GR_WHY_LEN] = "";
  int pr = parse(argc, argv, &o, why, sizeof why);
  if (pr) {
    if (rank == 0) {
      if (pr < 0)
        fprintf(stderr, "kmedoids_mpi: %s\n", why);
      usage(pr < 0 ? stderr : stdout);
    }
    return finish(pr < 0 ? GR_EXIT_USAGE : GR_EXIT_OK);
  }

  /* the dataset, on every rank */
  struct kmsig ds;
  int err;
  if (o.data)
    err = kmsig_load(o.data, &ds, why, sizeof why);
  else
    err = kmsig_generate(&o.gen, &ds, why, sizeof why);
  int bad = first_failing(err != 0);
  if (bad >= 0) {
    if (rank == bad)
      fprintf(stderr, "kmedoids_mpi: %s\n", why);
    if (!err)
      kmsig_free(&ds);
    return finish(GR_EXIT_USAGE);
  }
  if (o.k < 1 || o.k > ds.n) {
    if (rank == 0)
      fprintf(stderr, "kmedoids_mpi: '--k %d' outside 1..%lld (the dataset's objects)\n", o.k,
              (long long)ds.n);
    kmsig_free(&ds);
    return finish(GR_EXIT_USAGE);
  }
  if (ds.n > KM_SCORE_MAX_N) {
    if (rank == 0)
      fprintf(stderr,
              "kmedoids_mpi: %lld objects: at most %d (a score of more members could wrap its "
              "64 bits)\n",
              (long long)ds.n, KM_SCORE_MAX_N);
    kmsig_free(&ds);
    return finish(GR_EXIT_USAGE);
  }

  /* the backend */
  int64_t lo, hi;
  km_rank_range(ds.n, rank, size, &lo, &hi);
  struct km_backend be = {0};
  struct km_gpu *g = NULL;
  struct km_cpu *cpu = NULL;
  int gpu = strcmp(o.backend, "gpu") == 0;
  if (gpu) {
    int ndev = gr_gpu_device_count(why, sizeof why);
    bad = first_failing(ndev <= 0);
    if (bad >= 0) {
      if (rank == bad)
        fprintf(stderr, "kmedoids_mpi: rank %d: %s (use --backend cpu)\n", rank, why);
      kmsig_free(&ds);
      return finish(GR_EXIT_ENV);
    }
#ifdef GR_HOST_ONLY /* gr_gpu_device_count said 0 above: not reached */
    err = -1;
#else
    MPI_Comm local;
    int local_rank = 0;
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &local_rank);
    MPI_Comm_free(&local);
    GR_CUDA_CHECK(cudaSetDevice(local_rank % ndev));
    km_score_big_fn big = strcmp(o.score, "racy") == 0 ? km_v1_racy_score_launch
                                                       : km_v2_score_launch;
    err = km_gpu_new(&ds, o.alpha, lo, hi, big, &g, why, sizeof why);
    be = km_gpu_backend_ops;
    be.ctx = g;
#endif
  } else {
    cpu = km_cpu_new(&ds, o.alpha);
    err = cpu ? 0 : -1;
    if (!cpu)
      gr_fmt(why, sizeof why, "out of host memory for the CPU backend");
    be = km_cpu_backend_ops;
    be.ctx = cpu;
  }
  bad = first_failing(err != 0);
  if (bad >= 0) {
    if (rank == bad)
      fprintf(stderr, "kmedoids_mpi: rank %d: %s\n", rank, why);
    free_gpu(g);
    km_cpu_free(cpu);
    kmsig_free(&ds);
    return finish(err > 0 ? GR_EXIT_USAGE : GR_EXIT_FAIL);
  }

  /* the run */
  struct km_comm comm = {&world, rank, size, mpi_allgather_assign, mpi_allreduce_score};
  struct km_config cfg = {o.k, o.alpha, o.iters, o.init_seed};
  struct km_result res;
  struct km_stats st;
  err = km_result_alloc(&res, ds.n, o.k, o.iters);
  if (err)
    gr_fmt(why, sizeof why, "out of host memory for the result");
  MPI_Barrier(world);
  double t0 = MPI_Wtime();
  if (!err)
    err = km_engine_run(&cfg, ds.n, &be, &comm, &res, &st, why, sizeof why);
  double wall = MPI_Wtime() - t0;
  bad = first_failing(err != 0);
  if (bad >= 0) {
    if (rank == bad)
      fprintf(stderr, "kmedoids_mpi: rank %d: %s\n", rank, why);
    km_result_release(&res);
    free_gpu(g);
    km_cpu_free(cpu);
    kmsig_free(&ds);
    return finish(GR_EXIT_FAIL);
  }
  int code = GR_EXIT_OK;
  double phases[5] = {st.assign_s, st.exchange_s, st.plan_s, st.score_s, wall}, worst[5];
  MPI_Reduce(phases, worst, 5, MPI_DOUBLE, MPI_MAX, 0, world);
  if (rank == 0) {
    if (o.out && km_result_write(o.out, &res, why, sizeof why)) {
      fprintf(stderr, "kmedoids_mpi: %s\n", why);
      code = GR_EXIT_FAIL;
    }
    printf("kmedoids_mpi: n=%lld k=%d ranks=%d backend=%s steps=%d objective=%.12g\n",
           (long long)ds.n, o.k, size, o.backend, res.steps, res.objective[res.steps - 1]);
    if (o.time)
      printf("kmedoids_mpi: time: total %.6f s, %.6f s/step (assign %.6f, exchange %.6f, plan "
             "%.6f, score %.6f; max over ranks)\n",
             worst[4], worst[4] / res.steps, worst[0], worst[1], worst[2], worst[3]);
  }
  km_result_release(&res);
  free_gpu(g);
  km_cpu_free(cpu);
  kmsig_free(&ds);
  return finish(code);
}
