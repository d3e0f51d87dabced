/* kmedoids_mpi under mpirun: a set of cases (big clusters shared across ranks, k = n, exact
 * duplicates, more clusters than classes) through the mpi_cpu or mpi_gpu variant with RANKS ranks
 * (two runs, the checker, bit-identical outputs); on the CPU backend the result must also equal the
 * serial reference bit for bit. With `cpu`, the command line's exit status is checked too: 2 for
 * a dataset the loader rejects (truncated, bad magic, index out of order, a directory), for k
 * outside 1..n, for a bad option and for each kind of bad option value (trailing text, overflow,
 * empty, NaN and infinity, out of range, given twice, missing), with a message naming it.
 *
 *   test_kmedoids_mpi cpu|gpu RANKS
 *   test_kmedoids_mpi concurrent JOBS   JOBS x 3 launches at once in one TMPDIR: all succeed,
 *                                       nothing left behind
 *
 * Exit 0 ok, 1 a failure, 77 (ctest's skip) for gpu without a CUDA device. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algorithms/kmedoids/km_mpirun.h"
#include "algorithms/kmedoids/kmedoids_alg.h"
#include "case.h"
#include "datasets/kmedoids_sig.h"
#include "registry.h"
#include "worker.h"

static int failures;

static const char *const case_texts[] = {
    "kmedoids n=800 k=3 sig_min=1 sig_max=10 classes=3 alpha_milli=200 iters=16 ranks=%d "
    "dist=classes seed=21",
    "kmedoids n=40 k=40 sig_min=5 sig_max=30 classes=4 alpha_milli=200 iters=16 ranks=%d "
    "dist=classes seed=22",
    "kmedoids n=200 k=7 sig_min=3 sig_max=12 classes=3 alpha_milli=200 iters=16 ranks=%d "
    "dist=duplicates seed=23",
    "kmedoids n=300 k=20 sig_min=10 sig_max=20 classes=4 alpha_milli=200 iters=16 ranks=%d "
    "dist=classes seed=24",
    "kmedoids n=150 k=5 sig_min=1 sig_max=64 classes=2 alpha_milli=1000 iters=2 ranks=%d "
    "dist=uniform seed=25",
    "kmedoids n=3 k=1 sig_min=1 sig_max=1 classes=1 alpha_milli=200 iters=16 ranks=%d "
    "dist=classes seed=26",
};

static void run_cases(const char *backend, int ranks)
{
  char variant[32];
  snprintf(variant, sizeof variant, "mpi_%s", backend);
  const struct gr_variant *v = gr_alg_variant(&kmedoids_algorithm, variant);
  for (size_t t = 0; t < sizeof case_texts / sizeof *case_texts; t++) {
    char text[GR_CASE_TEXT_LEN], why[GR_WHY_LEN];
    snprintf(text, sizeof text, case_texts[t], ranks);
    struct gr_case c;
    if (case_parse(text, &c, why, sizeof why)) {
      printf("FAIL %s: %s\n", text, why);
      failures++;
      continue;
    }
    struct case_result r;
    worker_run_case(&c, v, &r);
    printf("%-4s %s %s: %s%s%s (err %.2e, %.2f s)\n", r.verdict == VERDICT_PASS ? "ok" : "FAIL",
           variant, text, verdict_name(r.verdict), r.why[0] ? ": " : "", r.why, r.err, r.seconds);
    failures += r.verdict != VERDICT_PASS;
    if (strcmp(backend, "cpu") != 0 || r.verdict != VERDICT_PASS)
      continue;
    /* the CPU backend is the reference's arithmetic: equal bit for bit */
    struct gr_instance *inst;
    if (kmedoids_algorithm.instance_new(&c, &inst, why, sizeof why)) {
      printf("FAIL %s: %s\n", text, why);
      failures++;
      continue;
    }
    const struct km_data *d = inst->priv;
    unsigned char *got = malloc(inst->out_bytes), *want = malloc(inst->out_bytes);
    struct gr_run_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    km_out_pack(&d->res, want);
    if (v->run(v, inst, got, &ctx) != GR_RUN_OK || memcmp(got, want, inst->out_bytes) != 0) {
      printf("FAIL %s: cpu backend with %d ranks differs from the reference %s\n", text, ranks,
             ctx.why);
      failures++;
    }
    free(got);
    free(want);
    kmedoids_algorithm.instance_free(inst);
  }
}

/* kmedoids_mpi on a file edited by `edit` must exit with `want`. */
static void expect_exit(const char *exe, int ranks, const char *what, const unsigned char *file,
                        size_t bytes, const char *k, int want)
{
  char path[] = "/tmp/test_kmedoids_mpi_XXXXXX", log[400];
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, file, bytes) != (ssize_t)bytes) {
    printf("FAIL cannot write a temporary file\n");
    failures++;
    return;
  }
  close(fd);
  const char *args[] = {"--data", path, "--k", k, "--backend", "cpu", NULL};
  const char *bad_opt[] = {"--data", path, "--k", k, "--frobnicate", NULL};
  int rc = km_mpirun(ranks, exe, strcmp(what, "bad option") == 0 ? bad_opt : args, 120.0, log,
                     sizeof log);
  unlink(path);
  int ok = rc == want;
  printf("%-4s kmedoids_mpi (%d ranks) on %s: exit %d, want %d%s%s\n", ok ? "ok" : "FAIL", ranks,
         what, rc, want, ok ? "" : ": ", ok ? "" : log);
  failures += !ok;
}

/* kmedoids_mpi with args must exit 2 with a message containing `says` (the option and why). */
static void expect_usage(const char *exe, int ranks, const char *const *args, const char *says)
{
  char log[8192];
  int rc = km_mpirun(ranks, exe, args, 120.0, log, sizeof log);
  int ok = rc == 2 && strstr(log, says) != NULL;
  printf("%-4s kmedoids_mpi (%d ranks) %s %s: exit %d, want 2 and \"%s\"%s%s\n", ok ? "ok" : "FAIL",
         ranks, args[0], args[1] ? args[1] : "", rc, says, ok ? "" : ": ", ok ? "" : log);
  failures += !ok;
}

/* Option values are parsed whole and in range: each of these used to be accepted, wrapped or
 * reported late (issue 12). */
static void run_options(const char *exe, int ranks)
{
  char dir[] = "/tmp/test_kmedoids_mpi_dir_XXXXXX";
  if (!mkdtemp(dir)) {
    printf("FAIL cannot create a temporary folder\n");
    failures++;
    return;
  }
#define GEN "--generate", "10,1,2,3,4"
  const struct {
    const char *args[10];
    const char *says;
  } probes[] = {
      {{"--generate", "10,1,2,3,4garbage", "--k", "2", "--backend", "cpu"},
       "'--generate 10,1,2,3,4garbage': SEED is not an integer"},
      {{"--generate", "10,1,2,3", "--k", "2", "--backend", "cpu"}, "(5 fields)"},
      {{"--generate", "10,3,2,3,4", "--k", "2", "--backend", "cpu"}, "SIGMAX is not an integer in 3.."},
      {{GEN, "--k", "4294967297", "--backend", "cpu"}, "'--k 4294967297': not an integer in 1..2147483647"},
      {{GEN, "--k", " 2", "--backend", "cpu"}, "'--k  2': not an integer"},
      {{GEN, "--k", "2", "--iters", "", "--backend", "cpu"}, "'--iters ': not an integer in 0..1000000"},
      {{GEN, "--k", "2", "--alpha", "inf", "--backend", "cpu"}, "'--alpha inf': not a number in (0, 1e+06]"},
      {{GEN, "--k", "2", "--alpha", "nan", "--backend", "cpu"}, "'--alpha nan': not a number"},
      {{GEN, "--k", "2", "--alpha", "0.2x", "--backend", "cpu"}, "'--alpha 0.2x': not a number"},
      {{GEN, "--k", "2", "--init-seed", "-1", "--backend", "cpu"}, "'--init-seed -1': not an integer"},
      {{GEN, "--k", "2", "--k", "3", "--backend", "cpu"}, "'--k' is given twice"},
      {{GEN, "--backend", "cpu"}, "'--k' is required"},
      {{GEN, "--backend", "cpu", "--k"}, "'--k' needs a value"},
      {{"--data", dir, "--k", "2", "--backend", "cpu"}, "is a directory, not a regular file"},
  };
#undef GEN
  for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
    expect_usage(exe, ranks, probes[i].args, probes[i].says);
  rmdir(dir);
}

static void run_cli(int ranks)
{
  char exe[4096], why[GR_WHY_LEN];
  if (km_find_mpi_exe(exe, sizeof exe, why, sizeof why)) {
    printf("FAIL %s\n", why);
    failures++;
    return;
  }
  struct kmsig ds;
  struct kmsig_gen g = {30, 2, 6, 2, KMSIG_DIST_CLASSES, 4};
  char path[] = "/tmp/test_kmedoids_mpi_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  if (kmsig_generate(&g, &ds, why, sizeof why) || kmsig_write(&ds, path, why, sizeof why)) {
    printf("FAIL %s\n", why);
    failures++;
    return;
  }
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  size_t size = (size_t)ftell(f);
  rewind(f);
  unsigned char *good = malloc(size), *bad = malloc(size);
  size_t got = fread(good, 1, size, f);
  fclose(f);
  unlink(path);
  if (got != size) {
    printf("FAIL cannot read back the dataset\n");
    failures++;
    return;
  }
  expect_exit(exe, ranks, "a good file", good, size, "3", 0);
  expect_exit(exe, ranks, "a truncated file", good, size - 7, "3", 2);
  memcpy(bad, good, size);
  bad[1] = 'Q';
  expect_exit(exe, ranks, "a file with a wrong magic", bad, size, "3", 2);
  memcpy(bad, good, size);
  int64_t v = 1000000;
  memcpy(bad + 64 + 8 * 3, &v, 8);
  expect_exit(exe, ranks, "an index past the end", bad, size, "3", 2);
  memcpy(bad, good, size);
  memcpy(&v, bad + 64 + 8 * 4, 8);
  v -= 2;
  memcpy(bad + 64 + 8 * 5, &v, 8);
  expect_exit(exe, ranks, "an index out of order", bad, size, "3", 2);
  expect_exit(exe, ranks, "k > n", good, size, "31", 2);
  expect_exit(exe, ranks, "bad option", good, size, "3", 2);
  if (ranks <= 2) /* one rank and several: enough for the option checks (each is a launch) */
    run_options(exe, ranks);
  free(good);
  free(bad);
  kmsig_free(&ds);
}

/* JOBS processes each launch kmedoids_mpi three times at once, in one TMPDIR: every launch must
 * succeed (Open MPI's shared session directory made concurrent launches fail now and then with
 * "orte_session_dir failed"), and nothing may be left in TMPDIR afterwards. */
static void run_concurrent(int jobs)
{
  char exe[4096], why[GR_WHY_LEN], tmp[] = "/tmp/test_kmedoids_mpi_tmp_XXXXXX";
  if (km_find_mpi_exe(exe, sizeof exe, why, sizeof why) || !mkdtemp(tmp)) {
    printf("FAIL %s\n", why);
    failures++;
    return;
  }
  setenv("TMPDIR", tmp, 1);
  const char *args[] = {"--generate", "40,1,4,2,7", "--k", "3", "--backend", "cpu", NULL};
  for (int j = 0; j < jobs; j++)
    if (fork() == 0) {
      for (int t = 0; t < 3; t++) {
        char log[2000];
        int rc = km_mpirun(1 + (j + t) % 2, exe, args, 120.0, log, sizeof log);
        if (rc != 0) {
          printf("FAIL concurrent launch %d.%d: exit %d: %s\n", j, t, rc, log);
          _exit(1);
        }
      }
      _exit(0);
    }
  int bad = 0, status;
  while (wait(&status) > 0)
    bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  int left = 0;
  DIR *d = opendir(tmp);
  for (struct dirent *e; d && (e = readdir(d));)
    left += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  if (d)
    closedir(d);
  rmdir(tmp);
  printf("%-4s %d x 3 concurrent launches: %d failed, %d entries left in TMPDIR\n",
         bad || left ? "FAIL" : "ok", jobs, bad, left);
  failures += bad + left;
}

int main(int argc, char **argv)
{
  if (argc == 3 && strcmp(argv[1], "concurrent") == 0 && atoi(argv[2]) >= 1) {
    run_concurrent(atoi(argv[2]));
    printf(failures ? "%d failure(s)\n" : "ok\n", failures);
    return failures ? 1 : 0;
  }
  if (argc != 3 || (strcmp(argv[1], "cpu") != 0 && strcmp(argv[1], "gpu") != 0) ||
      atoi(argv[2]) < 1) {
    fprintf(stderr, "usage: test_kmedoids_mpi cpu|gpu RANKS | concurrent JOBS\n");
    return 2;
  }
  int ranks = atoi(argv[2]);
  char why[GR_WHY_LEN];
  if (strcmp(argv[1], "gpu") == 0 && !worker_gpu_ready(why, sizeof why)) {
    printf("skipped: %s\n", why);
    return 77;
  }
  run_cases(argv[1], ranks);
  if (strcmp(argv[1], "cpu") == 0)
    run_cli(ranks);
  if (failures)
    printf("%d failure(s)\n", failures);
  else
    printf("ok\n");
  return failures ? 1 : 0;
}
