/* Output layout, result files, and launching kmedoids_mpi under mpirun. See km_mpirun.h. */
#define _GNU_SOURCE /* nftw */
#include "km_mpirun.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpuregress/util.h>

static const char result_magic[8] = {'K', 'M', 'R', 'E', 'S', '\0', '\0', '\1'};

struct km_out_layout km_out_layout(int64_t n, int k, int iters)
{
  struct km_out_layout l;
  l.objective = 8;
  l.medoids = l.objective + 8 * ((size_t)iters + 1);
  l.assign = l.medoids + 4 * (size_t)k;
  l.bytes = l.assign + 4 * (size_t)n;
  return l;
}

void km_out_pack(const struct km_result *res, void *out)
{
  struct km_out_layout l = km_out_layout(res->n, res->k, res->iters);
  unsigned char *o = out;
  int32_t head[2] = {res->steps, 0};
  memcpy(o, head, sizeof head);
  memcpy(o + l.objective, res->objective, 8 * ((size_t)res->iters + 1));
  memcpy(o + l.medoids, res->medoids, 4 * (size_t)res->k);
  memcpy(o + l.assign, res->assign, 4 * (size_t)res->n);
}

int km_result_write(const char *path, const struct km_result *res, char *why, size_t len)
{
  struct km_out_layout l = km_out_layout(res->n, res->k, res->iters);
  unsigned char *body = malloc(l.bytes);
  if (!body) {
    gr_fmt(why, len, "out of host memory for the result");
    return -1;
  }
  km_out_pack(res, body);
  int64_t n = res->n, bytes = (int64_t)l.bytes;
  int32_t ki[2] = {res->k, res->iters};
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(result_magic, 8, 1, f) == 1 && fwrite(&n, 8, 1, f) == 1 &&
           fwrite(ki, 8, 1, f) == 1 && fwrite(&bytes, 8, 1, f) == 1 &&
           fwrite(body, l.bytes, 1, f) == 1;
  if (f && fclose(f) != 0)
    ok = 0;
  free(body);
  if (!ok) {
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

int km_result_read(const char *path, int64_t n, int k, int iters, void *out, char *why, size_t len)
{
  struct km_out_layout l = km_out_layout(n, k, iters);
  FILE *f = fopen(path, "rb");
  if (!f) {
    gr_fmt(why, len, "cannot open the result '%s': %s", path, strerror(errno));
    return -1;
  }
  char magic[8];
  int64_t fn = 0, bytes = 0;
  int32_t ki[2] = {0, 0};
  int ok = fread(magic, 8, 1, f) == 1 && fread(&fn, 8, 1, f) == 1 && fread(ki, 8, 1, f) == 1 &&
           fread(&bytes, 8, 1, f) == 1;
  if (!ok || memcmp(magic, result_magic, 8) != 0) {
    gr_fmt(why, len, "'%s' is not a k-medoids result file", path);
    fclose(f);
    return -1;
  }
  if (fn != n || ki[0] != k || ki[1] != iters || bytes != (int64_t)l.bytes) {
    gr_fmt(why, len, "'%s' holds n=%lld k=%d iters=%d, expected n=%lld k=%d iters=%d", path,
           (long long)fn, ki[0], ki[1], (long long)n, k, iters);
    fclose(f);
    return -1;
  }
  ok = fread(out, l.bytes, 1, f) == 1;
  fclose(f);
  if (!ok) {
    gr_fmt(why, len, "'%s' is truncated", path);
    return -1;
  }
  return 0;
}

int km_find_mpi_exe(char *path, size_t len, char *why, size_t why_len)
{
  const char *env = getenv("KMEDOIDS_MPI");
  if (env && *env) {
    gr_fmt(path, len, "%s", env);
    if (access(path, X_OK) == 0)
      return 0;
    gr_fmt(why, why_len, "KMEDOIDS_MPI='%s' is not an executable", env);
    return -1;
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    gr_fmt(why, why_len, "cannot read /proc/self/exe: %s", strerror(errno));
    return -1;
  }
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (slash)
    *slash = '\0';
  gr_fmt(path, len, "%s/kmedoids_mpi", self);
  if (access(path, X_OK) == 0)
    return 0;
  gr_fmt(path, len, "%s/../kmedoids_mpi", self);
  if (access(path, X_OK) == 0)
    return 0;
  gr_fmt(why, why_len,
         "kmedoids_mpi not found beside '%s' or in its parent folder: build the target "
         "kmedoids_mpi, or set KMEDOIDS_MPI",
         self);
  return -1;
}

/* The last lines of the file open as fd, at most len - 1 bytes, into log. */
static void tail_of(int fd, char *log, size_t len)
{
  if (!log || len == 0)
    return;
  log[0] = '\0';
  off_t end = lseek(fd, 0, SEEK_END);
  if (end <= 0)
    return;
  off_t from = end > (off_t)(len - 1) ? end - (off_t)(len - 1) : 0;
  ssize_t got = pread(fd, log, (size_t)(end - from), from);
  if (got < 0)
    got = 0;
  log[got] = '\0';
  char *nl = from > 0 ? strchr(log, '\n') : NULL;
  if (nl)
    memmove(log, nl + 1, strlen(nl + 1) + 1);
  for (char *p = log; *p; p++) /* one line for reports */
    if (*p == '\n')
      *p = ' ';
}

/* nftw callback: remove whatever it is given (the walk is depth-first). */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

int km_mpirun(int ranks, const char *exe, const char *const *args, double timeout_s, char *log,
              size_t len)
{
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp)
    tmp = "/tmp";
  /* A private folder for this launch: Open MPI's session directory (orte_tmpdir_base) and the log.
   * Every mpirun of a user on a node otherwise shares <tmp>/ompi.<host>.<uid>: one that ends
   * removes it when it looks empty, and another creating its own pid.<pid> inside at that moment
   * fails with "orte_session_dir failed" (concurrent ctest jobs, open-mpi/ompi#8510). */
  char session[4096], logpath[4200];
  gr_fmt(session, sizeof session, "%s/km_mpirun_XXXXXX", tmp);
  if (!mkdtemp(session)) {
    gr_fmt(log, len, "cannot create a temporary folder in '%s': %s", tmp, strerror(errno));
    return -1;
  }
  gr_fmt(logpath, sizeof logpath, "%s/log_XXXXXX", session);
  int fd = mkstemp(logpath);
  if (fd < 0) {
    gr_fmt(log, len, "cannot create a temporary file in '%s': %s", session, strerror(errno));
    rmdir(session);
    return -1;
  }
  unlink(logpath);
  const char *launcher = getenv("KMEDOIDS_MPIRUN");
  if (!launcher || !*launcher)
    launcher = "mpirun";
  const char *argv[64];
  char np[16];
  int a = 0;
  gr_fmt(np, sizeof np, "%d", ranks);
  argv[a++] = launcher;
  if (geteuid() == 0)
    argv[a++] = "--allow-run-as-root";
  argv[a++] = "--oversubscribe";
  argv[a++] = "--bind-to";
  argv[a++] = "none";
  argv[a++] = "-np";
  argv[a++] = np;
  argv[a++] = exe;
  for (int i = 0; args[i] && a < 63; i++)
    argv[a++] = args[i];
  argv[a] = NULL;
  /* this launch's own session directory (Open MPI 4: orte_tmpdir_base; later ones and PMIx
   * follow TMPDIR) */
  char tmpdir_base[4200], tmpdir[4200];
  gr_fmt(tmpdir_base, sizeof tmpdir_base, "OMPI_MCA_orte_tmpdir_base=%s", session);
  gr_fmt(tmpdir, sizeof tmpdir, "TMPDIR=%s", session);
  const char *const env[] = {
      "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
      /* containers often forbid the cross-memory attach of the shared-memory transport */
      "OMPI_MCA_btl_vader_single_copy_mechanism?=none", tmpdir_base, tmpdir, NULL};
  /* its own process group, killed whole on a timeout, and it dies with the caller; stdout and
   * stderr to the log, stdin from /dev/null: mpirun forwards it */
  int rc = gr_run_program(argv, env, fd, timeout_s);
  if (rc < 0) {
    gr_fmt(log, len, "cannot start %s: %s", argv[0], strerror(errno));
    close(fd);
    rmdir(session);
    return -1;
  }
  tail_of(fd, log, len);
  close(fd);
  /* what Open MPI left (all of it when the launch was killed) */
  nftw(session, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return rc;
}
