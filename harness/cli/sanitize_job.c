/* One job of the sanitizer lane: start compute-sanitizer, read its log, judge. See
 * sanitize_job.h. */
#define _GNU_SOURCE
#include "sanitize_job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gr.h"

const char *const san_tools[SAN_N_TOOLS] = {"memcheck", "racecheck", "initcheck", "synccheck"};

/* compute-sanitizer on PATH, under $CUDA_HOME/bin or /usr/local/cuda/bin. 0 found (path). */
int san_find_sanitizer(const char *given, char *path, size_t len)
{
  if (given)
    return access(given, X_OK) == 0 ? (gr_fmt(path, len, "%s", given), 0) : -1;
  const char *p = getenv("PATH");
  char dirs[8192];
  gr_fmt(dirs, sizeof dirs, "%s:%s/bin:/usr/local/cuda/bin", p ? p : "",
         getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/nonexistent");
  for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
    gr_fmt(path, len, "%s/compute-sanitizer", d);
    if (access(path, X_OK) == 0)
      return 0;
  }
  return -1;
}

/* options of one tool beyond its defaults (none so far) */
static const char *tool_opts[SAN_N_TOOLS][4] = {{NULL}, {NULL}, {NULL}, {NULL}};

int san_job_start(struct san_job *j, const char *sanitizer, const char *self)
{
  int k = 0;
  j->argv[k++] = sanitizer;
  j->argv[k++] = "--tool";
  j->argv[k++] = san_tools[j->tool];
  for (int i = 0; tool_opts[j->tool][i]; i++)
    j->argv[k++] = tool_opts[j->tool][i];
  static const char *const common[] = {"--error-exitcode", "86", "--print-limit", "10",
                                       "--target-processes", "application-only",
                                       "--kernel-name-exclude", "kns=poison_shared_kernel"};
  for (size_t i = 0; i < sizeof common / sizeof *common; i++)
    j->argv[k++] = common[i];
  j->argv[k++] = self;
  j->argv[k++] = "repro";
  j->argv[k++] = "--in-process";
  j->argv[k++] = "--variant";
  j->argv[k++] = j->v->name;
  for (int i = 0; i < j->n_cases; i++)
    j->argv[k++] = j->cases[i];
  j->argv[k] = NULL;
  const char *tmp = getenv("TMPDIR");
  gr_fmt(j->log, sizeof j->log, "%s/gr-sanitize-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  int fd = mkstemp(j->log);
  if (fd < 0)
    return -1;
  child_init(&j->c);
  j->c.what = "compute-sanitizer";
  j->c.argv = j->argv;
  j->c.log_fd = fd;
  j->t0 = now_seconds();
  int rc = child_start(&j->c);
  close(fd);
  return rc;
}

/* The first line of the log that starts with prefix and holds needle (NULL: any); "" none. */
static void log_line(const char *path, const char *prefix, const char *needle, char *out,
                     size_t len)
{
  FILE *f = fopen(path, "r");
  char line[1024];
  out[0] = 0;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strncmp(line, prefix, strlen(prefix)) == 0 && (!needle || strstr(line, needle))) {
      gr_fmt(out, len, "%s", line + strlen(prefix));
      break;
    }
  }
  if (f)
    fclose(f);
}

/* The first line of a finding in the tool's log: "Invalid __global__ write of size 4 bytes",
 * "Error: Race reported between ...", "Program hit cudaErrorInvalidValue ..." (not the banner,
 * not the indented lines of its backtrace, not a summary); "" none. */
static void first_finding(const char *path, char *out, size_t len)
{
  FILE *f = fopen(path, "r");
  char line[1024];
  out[0] = 0;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    const char *t = line + 10;
    if (strncmp(line, "========= ", 10) == 0 && *t != ' ' && *t &&
        strncmp(t, "COMPUTE-SANITIZER", 17) != 0 && !strstr(t, "SUMMARY") &&
        strncmp(t, "Target application", 18) != 0) {
      gr_fmt(out, len, "%s", t);
      break;
    }
  }
  if (f)
    fclose(f);
}

/* The explanation in the algorithm's sanitizer_explained that covers every finding in j's log,
 * or NULL. first: the first finding. */
static const char *explained(const struct san_job *j, const char *first)
{
  for (const char *const *e = j->a->sanitizer_explained; e && *e; e++) {
    char var[64], tool[32], kern[128];
    int at;
    if (sscanf(*e, "%63s %31s %127[^:]: %n", var, tool, kern, &at) != 3 ||
        strcmp(var, j->v->name) != 0 || strcmp(tool, san_tools[j->tool]) != 0 || !first[0])
      continue;
    FILE *f = fopen(j->log, "r");
    char line[1024];
    int all = 1;
    while (f && fgets(line, sizeof line, f)) {
      const char *t = line + 10;
      if (strncmp(line, "========= ", 10) == 0 && *t != ' ' && *t != '\n' &&
          strncmp(t, "COMPUTE-SANITIZER", 17) != 0 && !strstr(t, "SUMMARY") &&
          strncmp(t, "Target application", 18) != 0 && !strstr(line, kern))
        all = 0;
    }
    if (f)
      fclose(f);
    if (all)
      return *e + at;
  }
  return NULL;
}

/* The first verdict line of repro ("NAME KIND VERDICT WHY") for variant name that is neither a
 * pass nor a skip, from its verdict on; "" none. */
static void failed_line(const char *path, const char *name, char *out, size_t len)
{
  FILE *f = fopen(path, "r");
  char line[1024], vn[64], kind[32], vd[32];
  int at;
  out[0] = 0;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (sscanf(line, "%63s %31s %31s %n", vn, kind, vd, &at) == 3 && strcmp(vn, name) == 0 &&
        strcmp(vd, "pass") != 0 && strcmp(vd, "skip") != 0) {
      gr_fmt(out, len, "%s %s", vd, line + at);
      break;
    }
  }
  if (f)
    fclose(f);
}

/* The verdict from the exit status and the log; the log is removed. */
void san_job_finish(struct san_job *j, int timed_out)
{
  int st = child_finish(&j->c, timed_out, NULL, 0);
  j->seconds = now_seconds() - j->t0;
  char first[GR_WHY_LEN], summary[256];
  if (timed_out) {
    j->verdict = "timeout";
    gr_fmt(j->detail, sizeof j->detail, "no end within %.0f s", j->seconds);
  } else if (st == SAN_FINDING_EXIT) {
    j->verdict = "finding";
    first_finding(j->log, first, sizeof first);
    const char *why = explained(j, first);
    if (why) {
      j->verdict = "explained";
      gr_fmt(j->detail, sizeof j->detail, "%s (examined: %s)", first, why);
      unlink(j->log);
      return;
    }
    log_line(j->log, "========= ", "SUMMARY", summary, sizeof summary);
    gr_fmt(j->detail, sizeof j->detail, "%s%s%s", first, summary[0] ? " | " : "", summary);
  } else if (st == 0) {
    j->verdict = "clean";
  } else if (st == GR_EXIT_FAIL) {
    j->verdict = "check";
    failed_line(j->log, j->v->name, first, sizeof first);
    gr_fmt(j->detail, sizeof j->detail, "the tool found nothing; the harness: %s", first);
  } else if (st == GR_EXIT_ENV) {
    j->verdict = "skip";
    gr_fmt(j->detail, sizeof j->detail, "no CUDA device");
  } else {
    j->verdict = "error";
    FILE *f = fopen(j->log, "r");
    char line[1024] = "", last[1024] = "";
    while (f && fgets(line, sizeof line, f))
      if (line[0] != '\n')
        gr_fmt(last, sizeof last, "%s", line);
    if (f)
      fclose(f);
    last[strcspn(last, "\n")] = 0;
    gr_fmt(j->detail, sizeof j->detail, "exit %d: %s", st, last);
  }
  unlink(j->log);
}

int san_tool_index(const char *name, size_t len)
{
  for (int t = 0; t < SAN_N_TOOLS; t++)
    if (strlen(san_tools[t]) == len && strncmp(san_tools[t], name, len) == 0)
      return t;
  return -1;
}
