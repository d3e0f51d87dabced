/* The timing layer: plan, child process, storage, summary. See bench.h.
 *
 * Protocol on the child's pipe (one line each, tab-separated; reasons flattened):
 *   "NOGPU\t<why>"        no usable device: every item is skipped with that reason
 *   "ERR\t<why>"          the child could not start the benchmarks (bad Google Benchmark flag)
 *   "BW\t<GB/s>\t<gpu>"   the copy bandwidth and the device name, once per child
 *   "B\t<i>"              item i begins (a crash from here on is its crash)
 *   "T\t<i>\t<verdict>\t<launches>\t<seconds>\t<reason>"   item i's result, then its samples:
 *   "S\t<ms>\t<sm MHz>"   one per sample
 *   "E\t<i>"              item i ends
 *   "DONE"                every registered benchmark ran */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_gpu.h"
#include "bench_shim.h"
#include "gpu.h"
#include "worker.h"

volatile int bench_interrupted;

void bench_opts_default(struct bench_opts *o)
{
  memset(o, 0, sizeof *o);
  o->max_time = 1.0;
  o->noise = 0.005;
  o->min_samples = 30;
  o->max_samples = 10000;
  o->watchdog = 300;
  o->display = 1;
}

/* ---- plan ---------------------------------------------------------------------------------- */

static int timed_kind(const struct variant *v)
{
  return (v->flags & VARIANT_GPU) &&
         (v->kind == VARIANT_FIXED || v->kind == VARIANT_HISTORICAL || v->kind == VARIANT_PEER);
}

static int has_hooks(const struct algorithm *a)
{
  return a->bench_cases && a->bench_setup && a->bench_launch && a->bench_fetch &&
         a->bench_teardown;
}

/* Parse "0,2,4-6" into a mask over n cases. 0 ok, -1 with why. */
static int parse_sizes(const char *sizes, size_t n, unsigned char *mask, const char *alg, char *why,
                       size_t len)
{
  char buf[256];
  gr_fmt(buf, sizeof buf, "%s", sizes);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *end;
    long lo = strtol(tok, &end, 10), hi = lo;
    if (end == tok || lo < 0)
      goto bad;
    if (*end == '-') {
      char *e2;
      hi = strtol(end + 1, &e2, 10);
      if (e2 == end + 1 || *e2 || hi < lo)
        goto bad;
    } else if (*end) {
      goto bad;
    }
    for (long i = lo; i <= hi; i++)
      if ((size_t)i < n)
        mask[i] = 1;
    continue;
  bad:
    gr_fmt(why, len, "bad size '%s' in '--sizes %s': use indices into the sweep (0 = smallest), e.g. 0,2-3",
           tok, sizes);
    return -1;
  }
  (void)alg;
  return 0;
}

static void case_params_text(const struct gr_case *c, char *params, size_t len)
{
  char text[GR_CASE_TEXT_LEN];
  case_format(c, text, sizeof text);
  const char *p = text + strlen(c->alg->name);
  p += *p == ' ';
  gr_fmt(params, len, "%s", p);
  char *s = strstr(params, " seed=");
  if (s)
    *s = 0;
  else if (strncmp(params, "seed=", 5) == 0)
    params[0] = 0;
}

static int plan_add(struct bench_plan *p, size_t *cap, const struct algorithm *a,
                    const struct variant *v, const struct gr_case *c, int case_no)
{
  if (p->n == *cap) {
    size_t nc = *cap ? 2 * *cap : 64;
    struct bench_item *ni = realloc(p->items, nc * sizeof *ni);
    if (!ni)
      return -1;
    p->items = ni;
    *cap = nc;
  }
  struct bench_item *it = &p->items[p->n++];
  memset(it, 0, sizeof *it);
  it->alg = a;
  it->v = v;
  it->c = *c;
  it->case_no = case_no;
  case_params_text(c, it->params, sizeof it->params);
  /* Google Benchmark style: alg/variant/param=value/... */
  int k = snprintf(it->name, sizeof it->name, "%s/%s/%s", a->name, v->name, it->params);
  for (char *s = it->name; k > 0 && *s; s++)
    if (*s == ' ')
      *s = '/';
  if (c->seed != 1)
    snprintf(it->name + strlen(it->name), sizeof it->name - strlen(it->name), "/seed=%llu",
             (unsigned long long)c->seed);
  return 0;
}

int bench_plan_new(const struct algorithm *const *algs, const struct variant *const *vs, size_t n,
                   const char *sizes, int quick, const char *const *cases, size_t n_cases,
                   struct bench_plan **out, char *why, size_t len)
{
  struct bench_plan *p = calloc(1, sizeof *p);
  size_t cap = 0;
  if (!p)
    goto oom;
  const struct algorithm *seen[64];
  size_t n_seen = 0;
  int any_alg = 0;
  for (size_t i = 0; i < n; i++) {
    const struct algorithm *a = algs[i];
    int dup = 0;
    for (size_t j = 0; j < n_seen; j++)
      dup |= seen[j] == a;
    if (dup || n_seen == sizeof seen / sizeof *seen)
      continue;
    seen[n_seen++] = a;
    if (!has_hooks(a))
      continue;
    any_alg = 1;
    size_t nc = 0;
    while (a->bench_cases[nc])
      nc++;
    unsigned char mask[256] = {0};
    if (nc > sizeof mask)
      nc = sizeof mask;
    if (sizes) {
      if (parse_sizes(sizes, nc, mask, a->name, why, len))
        goto fail;
    } else {
      for (size_t k = 0; k < nc; k++)
        mask[k] = !quick || k < 2;
    }
    int chosen = 0;
    for (size_t k = 0; k < nc; k++)
      chosen += mask[k];
    if (n_cases && !sizes)
      chosen = 0, memset(mask, 0, sizeof mask); /* explicit cases replace the sweep */
    for (size_t k = 0; k < nc + n_cases; k++) {
      struct gr_case c;
      if (k < nc && !mask[k])
        continue;
      const char *text = k < nc ? a->bench_cases[k] : cases[k - nc];
      if (case_parse(text, &c, why, len)) {
        if (k < nc) /* the algorithm's own table: a bug, say whose */
          snprintf(why + strlen(why), len - strlen(why), " (bench case of '%s')", a->name);
        goto fail;
      }
      if (c.alg != a)
        continue;
      if (case_validate(&c, why, len))
        goto fail;
      for (size_t j = 0; j < n; j++)
        if (algs[j] == a && timed_kind(vs[j]) &&
            plan_add(p, &cap, a, vs[j], &c, k < nc ? (int)k : (int)k))
          goto oom;
    }
    (void)chosen;
  }
  if (p->n == 0) {
    gr_fmt(why, len, "%s",
           any_alg ? "nothing to time: no GPU variant (fixed, historical or peer) of the selection "
                     "at the chosen sizes"
                   : "nothing to time: no selected algorithm has timing hooks (see 'gpuregress list')");
    goto fail;
  }
  /* explicit cases of an algorithm not selected are an error: they would be silently dropped */
  for (size_t k = 0; k < n_cases; k++) {
    struct gr_case c;
    if (case_parse(cases[k], &c, why, len))
      goto fail;
    int found = 0;
    for (size_t i = 0; i < p->n; i++)
      found |= p->items[i].alg == c.alg;
    if (!found) {
      gr_fmt(why, len, "case '%s': algorithm '%s' is not selected or has no timing hooks", cases[k],
             c.alg->name);
      goto fail;
    }
  }
  p->res = calloc(p->n, sizeof *p->res);
  if (!p->res)
    goto oom;
  *out = p;
  return 0;
oom:
  gr_fmt(why, len, "out of memory");
fail:
  bench_plan_free(p);
  return -1;
}

void bench_plan_free(struct bench_plan *p)
{
  if (!p)
    return;
  free(p->items);
  free(p->res);
  free(p);
}

/* ---- child --------------------------------------------------------------------------------- */

struct child {
  const struct bench_plan *p;
  const struct bench_opts *o;
  int fd;
  /* the instance of the last case, shared by that case's variants */
  const struct algorithm *inst_alg;
  char inst_text[GR_CASE_TEXT_LEN];
  struct gr_case inst_case;
  struct gr_instance *inst;
  double *ms;
  int *clk;
  size_t cap;
};

static struct child C;

static void flatten(char *s)
{
  for (; *s; s++)
    if (*s == '\t' || *s == '\n' || *s == '\r')
      *s = ' ';
}

static void send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_line(const char *fmt, ...)
{
  char buf[GR_WHY_LEN * 2 + 256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  if (k < 0)
    return;
  size_t len = (size_t)k < sizeof buf - 1 ? (size_t)k : sizeof buf - 2;
  if (buf[len - 1] != '\n')
    buf[len++] = '\n';
  const char *s = buf;
  while (len > 0) {
    ssize_t w = write(C.fd, s, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      _exit(3); /* the parent is gone */
    s += w;
    len -= (size_t)w;
  }
}

/* The slowdown factor of this variant from GR_TEST_SLOWDOWN, 1 if none. */
static double slowdown_of(const struct bench_item *it)
{
  const char *env = getenv("GR_TEST_SLOWDOWN");
  char buf[512], key[256];
  if (!env || !*env)
    return 1;
  gr_fmt(buf, sizeof buf, "%s", env);
  gr_fmt(key, sizeof key, "%s/%s", it->alg->name, it->v->name);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq)
      continue;
    *eq = 0;
    if (strcmp(tok, key) == 0) {
      double f = strtod(eq + 1, NULL);
      return f > 1 && f < 100 ? f : 1;
    }
  }
  return 1;
}

static struct gr_instance *child_instance(const struct bench_item *it, char *why, size_t len)
{
  char text[GR_CASE_TEXT_LEN];
  case_format(&it->c, text, sizeof text);
  if (C.inst && strcmp(text, C.inst_text) == 0)
    return C.inst;
  if (C.inst)
    C.inst_alg->instance_free(C.inst);
  C.inst = NULL;
  C.inst_case = it->c; /* the instance keeps a pointer to its case */
  if (it->alg->instance_new(&C.inst_case, &C.inst, why, len)) {
    C.inst = NULL;
    return NULL;
  }
  C.inst_alg = it->alg;
  gr_fmt(C.inst_text, sizeof C.inst_text, "%s", text);
  return C.inst;
}

static int push_sample(size_t n, double ms, int clk)
{
  if (n == C.cap) {
    size_t nc = C.cap ? 2 * C.cap : 1024;
    double *m = realloc(C.ms, nc * sizeof *m);
    if (!m)
      return -1;
    C.ms = m;
    int *k = realloc(C.clk, nc * sizeof *k);
    if (!k)
      return -1;
    C.clk = k;
    C.cap = nc;
  }
  C.ms[n] = ms;
  C.clk[n] = clk;
  return 0;
}

static void report_end(size_t i, const char *verdict, long launches, double seconds, char *reason,
                       size_t n)
{
  flatten(reason);
  send_line("T\t%zu\t%s\t%ld\t%.6f\t%s", i, verdict, launches, seconds, reason);
  for (size_t k = 0; k < n; k++)
    send_line("S\t%.9g\t%d", C.ms[k], C.clk[k]);
  send_line("E\t%zu", i);
}

static void child_body(struct gbench_state *gs, void *arg)
{
  size_t i = (size_t)(uintptr_t)arg;
  const struct bench_item *it = &C.p->items[i];
  const struct algorithm *a = it->alg;
  const struct bench_opts *o = C.o;
  char why[GR_WHY_LEN] = "";
  double t0 = now_seconds();
  send_line("B\t%zu", i);

  size_t free_b, total_b, need = a->device_bytes ? a->device_bytes(&it->c) : 0;
  gpu_mem_info(&free_b, &total_b);
  if (need > free_b) {
    gr_fmt(why, sizeof why, "case needs %.2f GiB of device memory, %.2f GiB free",
           (double)need / (1 << 30), (double)free_b / (1 << 30));
    gbench_skip(gs, why);
    report_end(i, "skip", 0, now_seconds() - t0, why, 0);
    return;
  }
  struct gr_instance *inst = child_instance(it, why, sizeof why);
  if (!inst) {
    gbench_skip(gs, why);
    report_end(i, "error", 0, now_seconds() - t0, why, 0);
    return;
  }
  void *state = a->bench_setup(it->v, inst, why, sizeof why);
  if (!state) {
    gbench_skip(gs, why[0] ? why : "this variant cannot take this case");
    report_end(i, "skip", 0, now_seconds() - t0, why, 0);
    return;
  }

  /* warm-up, discarded; its median sizes the hot batch and the test slowdown */
  double warm[128];
  int nw = 0, clk;
  double warm_time = o->max_time / 10 < 0.02 ? o->max_time / 10 : 0.02, tw = now_seconds();
  while (nw < 2 || (now_seconds() - tw < warm_time && nw < (int)(sizeof warm / sizeof *warm)))
    warm[nw++] = bench_gpu_sample(a->bench_launch, state, 1, 0, &clk);
  double t_one = stats_median_inplace(warm, (size_t)nw); /* ms */
  long launches = 1;
  if (o->hot && t_one > 0) {
    launches = (long)ceil(0.1 / t_one);
    launches = launches < 1 ? 1 : launches > 1000 ? 1000 : launches;
  }
  double slow = slowdown_of(it), spin_ns = slow > 1 ? (slow - 1) * t_one * 1e6 : 0;

  size_t n = 0;
  struct stats_summary s;
  memset(&s, 0, sizeof s);
  while (gbench_keep_running(gs)) {
    double ts = now_seconds();
    n = 0;
    for (;;) {
      double ms = bench_gpu_sample(a->bench_launch, state, (int)launches, spin_ns, &clk);
      if (push_sample(n, ms, clk)) {
        gr_fmt(why, sizeof why, "out of host memory for the samples");
        break;
      }
      n++;
      double el = now_seconds() - ts;
      if ((long)n >= o->max_samples || (el >= o->max_time && n >= 3) || bench_interrupted)
        break;
      /* the noise test sorts the samples: do it about 32 times per doubling */
      if ((long)n >= o->min_samples && (n < 64 || n % (n / 32) == 0)) {
        stats_summarize(C.ms, n, &s);
        if (s.noise <= o->noise)
          break;
      }
    }
    stats_summarize(C.ms, n, &s);
    gbench_set_iteration_time(gs, s.median * 1e-3 > 0 ? s.median * 1e-3 : 1e-12);
  }
  if (!why[0] && s.noise > o->noise)
    gr_fmt(why, sizeof why, "noise %.2f%% above the %.2f%% target after %zu samples (cap %.2g s)",
           100 * s.noise, 100 * o->noise, n, o->max_time);

  /* the output is still right after the timing loop */
  const char *verdict = "pass";
  struct check_report rep;
  memset(&rep, 0, sizeof rep);
  void *out = malloc(inst->out_bytes ? inst->out_bytes : 1);
  if (!out) {
    verdict = "error";
    gr_fmt(why, sizeof why, "out of host memory for the output");
  } else {
    a->bench_fetch(state, out);
    if (a->check(inst, out, &rep)) {
      verdict = it->v->kind == VARIANT_HISTORICAL ? "caught" : "fail";
      gr_fmt(why, sizeof why, "after the timing loop: %s", rep.why);
    }
    free(out);
  }
  a->bench_teardown(state);

  double bytes = 0, items = 0;
  if (a->work)
    a->work(&it->c, &bytes, &items);
  double sec = s.median * 1e-3;
  double gbps = sec > 0 ? bytes / sec / 1e9 : 0;
  gbench_counter(gs, "GB/s", gbps);
  gbench_counter(gs, "items/s", sec > 0 ? items / sec : 0);
  gbench_counter(gs, "%copy", C.p->copy_gbps > 0 ? 100 * gbps / C.p->copy_gbps : 0);
  gbench_counter(gs, "noise%", 100 * s.noise);
  gbench_counter(gs, "samples", (double)n);
  gbench_counter(gs, "launches", (double)launches);
  if (n)
    gbench_counter(gs, "sm_MHz", (double)C.clk[n - 1]);
  gbench_label(gs, verdict);
  report_end(i, verdict, launches, now_seconds() - t0, why, n);
}

static void child_main(struct bench_plan *p, const struct bench_opts *o, size_t start, int fd,
                       const char *json)
{
  char why[GR_WHY_LEN];
  C.p = p;
  C.o = o;
  C.fd = fd;
  char **argv = calloc((size_t)o->n_gb_args + 4, sizeof *argv);
  char out_flag[4096];
  int argc = 0;
  if (!argv)
    _exit(3);
  argv[argc++] = "gpuregress-bench";
  for (int k = 0; k < o->n_gb_args; k++)
    argv[argc++] = o->gb_args[k];
  if (json) {
    gr_fmt(out_flag, sizeof out_flag, "--benchmark_out=%s", json);
    argv[argc++] = out_flag;
    argv[argc++] = "--benchmark_out_format=json";
  }
  if (gbench_init(argc, argv, why, sizeof why)) {
    flatten(why);
    send_line("ERR\t%s", why);
    _exit(0);
  }
  if (!worker_gpu_ready(why, sizeof why) || bench_gpu_open(!o->hot, why, sizeof why)) {
    flatten(why);
    send_line("NOGPU\t%s", why);
    _exit(0);
  }
  struct gpu_info info;
  if (gpu_query(&info, why, sizeof why) == 0)
    gr_fmt(p->gpu_name, sizeof p->gpu_name, "%s", info.name);
  p->copy_gbps = bench_gpu_copy_gbps();
  flatten(p->gpu_name);
  send_line("BW\t%.6f\t%s", p->copy_gbps, p->gpu_name);

  for (size_t i = start; i < p->n; i++)
    gbench_register(p->items[i].name, child_body, (void *)(uintptr_t)i);
  gbench_run(o->display);
  gbench_shutdown();
  send_line("DONE");
  if (C.inst)
    C.inst_alg->instance_free(C.inst);
  bench_gpu_close();
  _exit(0);
}

/* ---- parent -------------------------------------------------------------------------------- */

struct cproc {
  pid_t pid;
  int from, err;
  char line[GR_WHY_LEN * 4];
  size_t line_len;
  char errtail[2048];
  size_t err_len;
};

static int cproc_start(struct cproc *cp, struct bench_plan *p, const struct bench_opts *o,
                       size_t start, const char *json, char *why, size_t len)
{
  int from[2], err[2];
  memset(cp, 0, sizeof *cp);
  cp->from = cp->err = -1;
  if (pipe2(from, O_CLOEXEC))
    goto fail;
  if (pipe2(err, O_CLOEXEC)) {
    close(from[0]), close(from[1]);
    goto fail;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(from[0]), close(from[1]), close(err[0]), close(err[1]);
    goto fail;
  }
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    dup2(err[1], 2);
    close(from[0]), close(err[0]), close(err[1]);
    child_main(p, o, start, from[1], json);
  }
  setpgid(pid, pid);
  close(from[1]), close(err[1]);
  cp->pid = pid;
  cp->from = from[0];
  cp->err = err[0];
  return 0;
fail:
  gr_fmt(why, len, "cannot start the benchmark process: %s", strerror(errno));
  return -1;
}

/* Forward the child's stderr (Google Benchmark's table, CUDA errors) and keep its tail. */
static void cproc_drain_err(struct cproc *cp)
{
  char buf[4096];
  ssize_t k = read(cp->err, buf, sizeof buf);
  if (k <= 0) {
    if (k == 0) {
      close(cp->err);
      cp->err = -1;
    }
    return;
  }
  fwrite(buf, 1, (size_t)k, stderr);
  fflush(stderr);
  for (ssize_t i = 0; i < k; i++) {
    if (cp->err_len + 1 >= sizeof cp->errtail) {
      memmove(cp->errtail, cp->errtail + sizeof cp->errtail / 2, sizeof cp->errtail / 2);
      cp->err_len -= sizeof cp->errtail / 2;
    }
    cp->errtail[cp->err_len++] = buf[i];
  }
  cp->errtail[cp->err_len] = 0;
}

static void cproc_last_err(const struct cproc *cp, char *buf, size_t len)
{
  size_t end = cp->err_len;
  while (end > 0 && (cp->errtail[end - 1] == '\n' || cp->errtail[end - 1] == '\r'))
    end--;
  size_t start = end;
  while (start > 0 && cp->errtail[start - 1] != '\n')
    start--;
  size_t n = end - start < len - 1 ? end - start : len - 1;
  memcpy(buf, cp->errtail + start, n);
  buf[n] = 0;
}

/* Reap the child (killing it first if asked); describe its end in why. */
static void cproc_reap(struct cproc *cp, int kill_it, char *why, size_t len)
{
  int status = 0;
  if (cp->pid <= 0)
    return;
  if (kill_it)
    kill(-cp->pid, SIGKILL);
  while (cp->err >= 0) {
    struct pollfd pf = {cp->err, POLLIN, 0};
    if (poll(&pf, 1, kill_it ? 50 : 500) <= 0)
      break;
    cproc_drain_err(cp);
  }
  while (waitpid(cp->pid, &status, 0) < 0 && errno == EINTR)
    ;
  char last[GR_WHY_LEN / 2];
  cproc_last_err(cp, last, sizeof last);
  if (WIFSIGNALED(status))
    gr_fmt(why, len, "benchmark process killed by signal %d (%s)%s%s", WTERMSIG(status),
           strsignal(WTERMSIG(status)), last[0] ? ": " : "", last);
  else if (WIFEXITED(status) && WEXITSTATUS(status) == GR_WORKER_EXIT_CUDA)
    gr_fmt(why, len, "%s", last[0] ? last : "cuda error");
  else
    gr_fmt(why, len, "benchmark process exited with status %d%s%s",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1, last[0] ? ": " : "", last);
  if (cp->from >= 0)
    close(cp->from);
  if (cp->err >= 0)
    close(cp->err);
  cp->from = cp->err = -1;
  cp->pid = 0;
}

/* One line from the child within timeout seconds: 1 line; 0 the child closed its pipe; -1
 * timeout or interrupted. */
static int cproc_line(struct cproc *cp, double timeout, char *buf, size_t len)
{
  double deadline = now_seconds() + timeout;
  for (;;) {
    char *nl = memchr(cp->line, '\n', cp->line_len);
    if (nl) {
      size_t n = (size_t)(nl - cp->line), c = n < len - 1 ? n : len - 1;
      memcpy(buf, cp->line, c);
      buf[c] = 0;
      memmove(cp->line, nl + 1, cp->line_len - n - 1);
      cp->line_len -= n + 1;
      return 1;
    }
    double left = deadline - now_seconds();
    if (left <= 0)
      return -1;
    struct pollfd pf[2] = {{cp->from, POLLIN, 0}, {cp->err, POLLIN, 0}};
    int k = poll(pf, cp->err >= 0 ? 2 : 1, left > 0.25 ? 250 : (int)(left * 1000) + 1);
    if (k < 0 && errno != EINTR)
      return 0;
    if (k <= 0)
      continue;
    if (cp->err >= 0 && (pf[1].revents & (POLLIN | POLLHUP)))
      cproc_drain_err(cp);
    if (pf[0].revents & (POLLIN | POLLHUP)) {
      if (cp->line_len + 1 >= sizeof cp->line)
        cp->line_len = 0; /* longer than any line we write: drop it */
      ssize_t r = read(cp->from, cp->line + cp->line_len, sizeof cp->line - 1 - cp->line_len);
      if (r > 0)
        cp->line_len += (size_t)r;
      else if (r == 0 || errno != EINTR)
        return 0;
    }
  }
}

/* Fill res from samples and store the timing row with its samples in one transaction. */
static void finish_item(struct bench_plan *p, const struct bench_opts *o, size_t i,
                        enum verdict vd, long launches, double seconds, const char *reason,
                        const double *ms, const int *clk, size_t n)
{
  const struct bench_item *it = &p->items[i];
  struct bench_result *r = &p->res[i];
  memset(r, 0, sizeof *r);
  r->done = 1;
  r->verdict = vd;
  gr_fmt(r->reason, sizeof r->reason, "%s", reason ? reason : "");
  r->launches = launches;
  r->seconds = seconds;
  stats_summarize(ms, n, &r->s);
  if (it->alg->work)
    it->alg->work(&it->c, &r->bytes, &r->items);
  double sec = r->s.median * 1e-3;
  if (sec > 0) {
    r->gbps = r->bytes / sec / 1e9;
    r->items_per_s = r->items / sec;
    r->pct_copy = p->copy_gbps > 0 ? 100 * r->gbps / p->copy_gbps : 0;
  }
  if (n) {
    double *c = malloc(n * sizeof *c);
    if (c) {
      for (size_t k = 0; k < n; k++)
        c[k] = clk[k];
      r->clock_mhz = stats_median_inplace(c, n);
      free(c);
    }
  }
  if (!o->store)
    return;
  struct timing_row row = {
      .algorithm = it->alg->name, .variant = it->v->name, .kind = variant_kind_name(it->v->kind),
      .params = it->params, .seed = it->c.seed, .name = it->name, .l2 = o->hot ? "hot" : "cold",
      .launches = launches, .samples = (int64_t)n, .median_ms = r->s.median, .mean_ms = r->s.mean,
      .min_ms = r->s.min, .max_ms = r->s.max, .stddev_ms = r->s.stddev, .noise = r->s.noise,
      .bytes = r->bytes, .items = r->items, .gbps = r->gbps, .items_per_s = r->items_per_s,
      .copy_gbps = p->copy_gbps, .pct_copy = r->pct_copy, .sm_clock_mhz = r->clock_mhz,
      .seconds = seconds, .verdict = vd, .reason = r->reason};
  int64_t id = store_add_timing(o->store, o->run_id, &row);
  int bad = id < 0;
  for (size_t k = 0; k < n && !bad; k++)
    bad = store_add_sample(o->store, id, (int64_t)k, ms[k], clk[k]) != 0;
  if (bad || store_commit(o->store))
    fprintf(stderr, "gpuregress bench: cannot record a timing: %s\n", store_errmsg(o->store));
}

int bench_execute(struct bench_plan *p, const struct bench_opts *o, char *why, size_t len)
{
  size_t next = 0, cap = 0, n = 0;
  double *ms = NULL;
  int *clk = NULL;
  int restarts = 0, started_any = 0;
  char line[GR_WHY_LEN * 4], msg[GR_WHY_LEN];
  int rc = 0;
  while (next < p->n && !bench_interrupted) {
    char json_part[4096];
    const char *json = o->json;
    if (o->json && restarts) {
      gr_fmt(json_part, sizeof json_part, "%s.%d", o->json, restarts + 1);
      json = json_part;
      fprintf(stderr, "gpuregress bench: benchmarks from '%s' on go to '%s'\n", p->items[next].name,
              json);
    }
    struct cproc cp;
    if (cproc_start(&cp, p, o, next, json, why, len)) {
      rc = -1;
      break;
    }
    long cur = -1;       /* item begun and not ended */
    long pending = -1;   /* item whose T line came */
    enum verdict pv = VERDICT_PASS;
    long p_launches = 0;
    double p_seconds = 0;
    char p_reason[GR_WHY_LEN] = "";
    int done = 0, fatal = 0;
    for (;;) {
      int r = cproc_line(&cp, o->watchdog, line, sizeof line);
      if (r == -1 || (r == 1 && bench_interrupted)) {
        cproc_reap(&cp, 1, msg, sizeof msg);
        if (cur < 0 && !bench_interrupted) {
          gr_fmt(why, len, "the benchmark process did not answer within %.0f s", o->watchdog);
          fatal = 1;
        } else if (cur >= 0) {
          restarts++;
          finish_item(p, o, (size_t)cur, bench_interrupted ? VERDICT_ERROR : VERDICT_TIMEOUT, 0,
                      o->watchdog, bench_interrupted ? "interrupted" : "no word within the watchdog",
                      NULL, NULL, 0);
          next = (size_t)cur + 1;
        }
        break;
      }
      if (r == 0) {
        cproc_reap(&cp, 0, msg, sizeof msg);
        if (!done) {
          if (cur >= 0) {
            finish_item(p, o, (size_t)cur, VERDICT_CRASH, 0, 0, msg, NULL, NULL, 0);
            next = (size_t)cur + 1;
            restarts++;
          } else {
            gr_fmt(why, len, "the benchmark process ended before any benchmark: %s", msg);
            fatal = 1;
          }
        }
        break;
      }
      char *save = NULL, *tag = strtok_r(line, "\t", &save), *rest = save ? save : "";
      if (!tag)
        continue;
      if (strcmp(tag, "NOGPU") == 0) {
        for (size_t i = next; i < p->n; i++)
          finish_item(p, o, i, VERDICT_SKIP, 0, 0, rest, NULL, NULL, 0);
        next = p->n;
        done = 1;
      } else if (strcmp(tag, "ERR") == 0) {
        gr_fmt(why, len, "%s", rest);
        fatal = 1;
      } else if (strcmp(tag, "BW") == 0) {
        p->copy_gbps = strtod(rest, &save);
        save += *save == '\t';
        gr_fmt(p->gpu_name, sizeof p->gpu_name, "%s", save);
        started_any = 1;
      } else if (strcmp(tag, "B") == 0) {
        cur = strtol(rest, NULL, 10);
        n = 0;
        pending = -1;
      } else if (strcmp(tag, "T") == 0) {
        char *f[5] = {0};
        f[0] = strtok_r(rest, "\t", &save);
        for (int k = 1; k < 4 && f[k - 1]; k++)
          f[k] = strtok_r(NULL, "\t", &save);
        f[4] = save ? save : "";
        int vd = f[1] ? verdict_parse(f[1]) : -1;
        pending = f[0] ? strtol(f[0], NULL, 10) : -1;
        pv = vd < 0 ? VERDICT_ERROR : (enum verdict)vd;
        p_launches = f[2] ? strtol(f[2], NULL, 10) : 0;
        p_seconds = f[3] ? strtod(f[3], NULL) : 0;
        gr_fmt(p_reason, sizeof p_reason, "%s", f[4]);
      } else if (strcmp(tag, "S") == 0 && pending >= 0) {
        if (n == cap) {
          size_t nc = cap ? 2 * cap : 1024;
          double *m2 = realloc(ms, nc * sizeof *m2);
          int *c2 = m2 ? realloc(clk, nc * sizeof *c2) : NULL;
          if (m2)
            ms = m2;
          if (c2)
            clk = c2;
          if (!m2 || !c2)
            continue; /* out of memory: this sample is lost */
          cap = nc;
        }
        ms[n] = strtod(rest, &save);
        clk[n++] = (int)strtol(save, NULL, 10);
      } else if (strcmp(tag, "E") == 0 && pending >= 0 && (size_t)pending < p->n) {
        finish_item(p, o, (size_t)pending, pv, p_launches, p_seconds, p_reason, ms, clk, n);
        next = (size_t)pending + 1;
        cur = pending = -1;
        n = 0;
      } else if (strcmp(tag, "DONE") == 0) {
        done = 1;
        next = p->n;
      }
      if (fatal) {
        cproc_reap(&cp, 1, msg, sizeof msg);
        break;
      }
    }
    if (fatal) {
      rc = -1;
      break;
    }
    if (restarts > 50) {
      gr_fmt(why, len, "the benchmark process crashed %d times: giving up", restarts);
      rc = started_any ? 0 : -1;
      break;
    }
  }
  free(ms);
  free(clk);
  return rc;
}

/* ---- summary ------------------------------------------------------------------------------- */

int bench_failed(const struct bench_plan *p)
{
  for (size_t i = 0; i < p->n; i++) {
    const struct bench_result *r = &p->res[i];
    if (r->done && p->items[i].v->kind != VARIANT_HISTORICAL &&
        (r->verdict == VERDICT_FAIL || r->verdict == VERDICT_CRASH ||
         r->verdict == VERDICT_TIMEOUT))
      return 1;
  }
  return 0;
}

static const char *si(double v, char *buf, size_t len)
{
  static const char *const units[] = {"", "k", "M", "G", "T", "P"};
  int u = 0;
  while (fabs(v) >= 1000 && u < 5)
    v /= 1000, u++;
  return gr_fmt(buf, len, "%.3g%s", v, units[u]);
}

void bench_print_summary(FILE *f, const struct bench_plan *p, const struct bench_opts *o)
{
  char b1[32], b2[32];
  fprintf(f, "\ngpuregress bench%s%lld  %s  L2 %s", o->store ? " run " : "",
          (long long)(o->store ? o->run_id : 0), p->gpu_name[0] ? p->gpu_name : "no GPU",
          o->hot ? "hot" : "cold");
  if (p->copy_gbps > 0)
    fprintf(f, "  copy bandwidth %.0f GB/s (device to device, read + write)", p->copy_gbps);
  fprintf(f, "\n");
  /* nothing timed and one reason for all (no GPU): one line, not a table of skips */
  size_t n_done = 0, n_same = 0;
  const char *reason0 = NULL;
  for (size_t i = 0; i < p->n; i++) {
    const struct bench_result *r = &p->res[i];
    if (!r->done)
      continue;
    if (!n_done++)
      reason0 = r->reason;
    n_same += r->verdict == VERDICT_SKIP && r->s.n == 0 && strcmp(r->reason, reason0) == 0;
  }
  if (n_done && n_same == n_done) {
    fprintf(f, "all %zu benchmarks skipped: %s\n", n_done, reason0);
    return;
  }
  for (size_t i = 0; i < p->n; i++) {
    const struct bench_item *it = &p->items[i];
    const struct bench_result *r = &p->res[i];
    int first_of_case = i == 0 || p->items[i - 1].alg != it->alg ||
                        strcmp(p->items[i - 1].params, it->params) != 0 ||
                        p->items[i - 1].c.seed != it->c.seed;
    int any = 0;
    for (size_t j = i; j < p->n && p->items[j].alg == it->alg &&
                       strcmp(p->items[j].params, it->params) == 0;
         j++)
      any |= p->res[j].done;
    if (!any)
      continue;
    if (first_of_case) {
      fprintf(f, "\n%s %s  (%s B, %s items)\n", it->alg->name, it->params, si(r->bytes, b1, sizeof b1),
              si(r->items, b2, sizeof b2));
      fprintf(f, "  %-20s %-10s %10s %7s %7s %9s %6s %8s %6s  %s\n", "variant", "kind",
              "median ms", "noise", "samples", "GB/s", "%copy", "vs peer", "MHz", "check");
    }
    if (!r->done)
      continue;
    /* the peer of this case, timed in this run */
    const struct bench_result *peer = NULL;
    for (size_t j = 0; j < p->n; j++)
      if (p->items[j].alg == it->alg && p->items[j].v->kind == VARIANT_PEER &&
          strcmp(p->items[j].params, it->params) == 0 && p->items[j].c.seed == it->c.seed &&
          p->res[j].done && p->res[j].s.n)
        peer = &p->res[j];
    char ratio[32] = "-", noise[16] = "-", pct[16] = "-", med[24] = "-", gbps[24] = "-";
    if (r->s.n) {
      gr_fmt(med, sizeof med, "%.4f", r->s.median);
      gr_fmt(noise, sizeof noise, "%.2f%%", 100 * r->s.noise);
      gr_fmt(gbps, sizeof gbps, "%.1f", r->gbps);
      if (r->pct_copy > 0)
        gr_fmt(pct, sizeof pct, "%.1f%%", r->pct_copy);
      if (peer && peer != r)
        gr_fmt(ratio, sizeof ratio, "%.2fx", r->s.median / peer->s.median);
    }
    fprintf(f, "  %-20s %-10s %10s %7s %7zu %9s %6s %8s %6.0f  %s\n", it->v->name,
            variant_kind_name(it->v->kind), med, noise, r->s.n, gbps, pct, ratio, r->clock_mhz,
            verdict_name(r->verdict));
  }
  int details = 0;
  for (size_t i = 0; i < p->n; i++) {
    const struct bench_result *r = &p->res[i];
    if (!r->done || !r->reason[0] || r->verdict == VERDICT_PASS || r->verdict == VERDICT_CAUGHT)
      continue;
    if (!details++)
      fprintf(f, "\n");
    fprintf(f, "%s %s: %s\n", p->items[i].name, verdict_name(r->verdict), r->reason);
  }
}
