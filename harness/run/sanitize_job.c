/* One job of the sanitizer lane: start compute-sanitizer, read its log, judge. See
 * sanitize_job.h. */
#define _GNU_SOURCE
#include "sanitize_job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gr.h"
#include "sanitizer_log.h"

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
  if (j->cvd[0]) { /* pinned to one GPU of --gpus */
    j->env[0] = j->cvd;
    j->env[1] = "CUDA_DEVICE_ORDER=PCI_BUS_ID";
    j->env[2] = NULL;
    j->c.env = j->env;
  }
  j->t0 = now_seconds();
  int rc = child_start(&j->c);
  close(fd);
  return rc;
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

int san_repro_counts(const char *path, const char *name, int *passed, int *skipped, char *why,
                     size_t len)
{
  FILE *f = fopen(path, "r");
  char line[1024], vn[64], kind[32], vd[32];
  int at;
  *passed = *skipped = 0;
  why[0] = 0;
  if (!f)
    return -1;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (sscanf(line, "%63s %31s %31s %n", vn, kind, vd, &at) != 3 || strcmp(vn, name) != 0)
      continue;
    if (strcmp(vd, "pass") == 0)
      (*passed)++;
    else if (strcmp(vd, "skip") == 0 && !(*skipped)++)
      gr_fmt(why, len, "%s", line + at);
  }
  fclose(f);
  return 0;
}

int san_slow_tool(int tool)
{
  return tool == 1 || tool == SAN_INITCHECK;
}

/* A cell with findings (exit 86): the log read into findings; explained when the algorithm's
 * table explains every one (the detail: the first, with its reason), else a finding (the
 * detail: the first unexplained one with its kernel, file:line and case, and how many more). */
static void judge_findings(struct san_job *j)
{
  static struct san_log lg; /* large; the lane judges one job at a time */
  FILE *f = fopen(j->log, "r");
  j->verdict = "finding";
  if (!f) {
    gr_fmt(j->detail, sizeof j->detail, "the tool's log cannot be read: %s", strerror(errno));
    return;
  }
  san_log_parse(f, &lg);
  fclose(f);
  j->findings = lg.n;
  if (lg.n == 0) {
    gr_fmt(j->detail, sizeof j->detail, "the tool reported errors (summary: %ld) but no report "
           "line was read from its log", lg.summary);
    return;
  }
  const char *const *list = j->a->sanitizer_explained;
  int bad = -1;
  for (int i = 0; i < lg.n && bad < 0; i++)
    if (!san_explained(list, j->v->name, san_tools[j->tool], &lg.f[i]))
      bad = i;
  char text[GR_WHY_LEN];
  san_finding_format(&lg.f[bad < 0 ? 0 : bad], text, sizeof text);
  if (bad < 0) {
    j->verdict = "explained";
    gr_fmt(j->detail, sizeof j->detail, "%s (examined: %s)", text,
           san_explained(list, j->v->name, san_tools[j->tool], &lg.f[0]));
    return;
  }
  char more[64] = "";
  if (lg.n > 1)
    gr_fmt(more, sizeof more, " [+%d more distinct]", lg.n - 1);
  gr_fmt(j->detail, sizeof j->detail, "%s%s", text, more);
}

/* The log kept as LOGS/ALG.VARIANT.TOOL.log (--logs), else removed. */
static void log_done(const struct san_job *j)
{
  char kept[4096];
  if (j->logs) {
    gr_fmt(kept, sizeof kept, "%s/%s.%s.%s.log", j->logs, j->a->name, j->v->name,
           san_tools[j->tool]);
    if (rename(j->log, kept) == 0)
      return;
    fprintf(stderr, "gpuregress sanitize: cannot keep the log as %s: %s\n", kept, strerror(errno));
  }
  unlink(j->log);
}

/* The verdict from the exit status and the log; the log is removed (or kept: --logs). */
void san_job_finish(struct san_job *j, int timed_out)
{
  int st = child_finish(&j->c, timed_out, NULL, 0);
  j->seconds = now_seconds() - j->t0;
  char first[GR_WHY_LEN];
  if (timed_out) {
    j->verdict = "timeout";
    gr_fmt(j->detail, sizeof j->detail, "no end within %.0f s%s", j->seconds,
           timed_out > 1 ? " (stopped at the end of the lane's budget)" : "");
  } else if (st == SAN_FINDING_EXIT) {
    judge_findings(j);
  } else if (st == 0) {
    int passed, skipped;
    j->verdict = "clean";
    if (san_repro_counts(j->log, j->v->name, &passed, &skipped, first, sizeof first) == 0 &&
        skipped > 0) { /* the tool saw only the cases that ran */
      if (!passed)
        j->verdict = "skip";
      gr_fmt(j->detail, sizeof j->detail, "%d of %d cases skipped: %s", skipped, passed + skipped,
             first);
    }
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
  log_done(j);
}

int san_tool_index(const char *name, size_t len)
{
  for (int t = 0; t < SAN_N_TOOLS; t++)
    if (strlen(san_tools[t]) == len && strncmp(san_tools[t], name, len) == 0)
      return t;
  return -1;
}

void san_job_pin(struct san_job *j, const struct gpu_set *gpus, const struct san_job *jobs,
                 const size_t *live, size_t running)
{
  size_t best = 0, load[GPUS_MAX] = {0};
  j->gpu = -1;
  j->cvd[0] = 0;
  if (!gpus->n)
    return;
  for (size_t k = 0; k < running; k++)
    if (jobs[live[k]].gpu >= 0)
      load[jobs[live[k]].gpu]++;
  for (size_t g = 1; g < gpus->n; g++)
    best = load[g] < load[best] ? g : best;
  j->gpu = (int)best;
  gr_fmt(j->cvd, sizeof j->cvd, "CUDA_VISIBLE_DEVICES=%s", gpus->slot[best].id);
}
