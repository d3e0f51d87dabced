/* Helpers shared by the subcommands (cli.h): usage errors, number parsing, the run metadata with
 * its GPU probe, the selection of variants, and the machine-readable status file. */
#define _GNU_SOURCE
#include "cli.h"

#include "gpus.h"
#include "outfile.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case.h"
#include "child.h"
#include "gpu.h"
#include "registry.h"

#include "gr_gitinfo.h" /* GR_GIT_COMMIT, GR_GIT_TOPLEVEL: gpuregress's own build */

#ifndef GR_VERSION
#define GR_VERSION "unknown"
#endif

/* ---- shared option helpers ---------------------------------------------------------------- */

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "gpuregress %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(see 'gpuregress %s --help')\n", cmd);
  return GR_EXIT_USAGE;
}

int cli_parse_double(const char *s, double lo, double hi, double *out)
{
  char *end;
  /* a decimal number as written: no leading blank or '+', no hexadecimal (strtod takes them) */
  if (!((s[0] >= '0' && s[0] <= '9') || s[0] == '.' || s[0] == '-') || strpbrk(s, "xXpP"))
    return -1;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

int cli_opt_double(const char *cmd, const char *opt, const char *s, double lo, double hi,
                   double *out)
{
  if (cli_parse_double(s, lo, hi, out) == 0)
    return 0;
  return cli_usage_error(cmd, "bad value '%s' for %s: a number from %g to %g", s, opt, lo, hi);
}

int cli_opt_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi,
                uint64_t *out)
{
  uint64_t v;
  if (gr_parse_u64(s, &v) == 0 && v >= lo && v <= hi) {
    *out = v;
    return 0;
  }
  return cli_usage_error(cmd, "bad value '%s' for %s: a whole number from %llu to %llu", s, opt,
                         (unsigned long long)lo, (unsigned long long)hi);
}

int cli_opt_text(const char *cmd, const char *opt, const char *s, size_t max, const char **out)
{
  if (!*s)
    return cli_usage_error(cmd, "empty value for %s", opt);
  if (strlen(s) > max)
    return cli_usage_error(cmd, "the value of %s is too long (%zu characters, at most %zu)", opt,
                           strlen(s), max);
  *out = s;
  return 0;
}

/* the option word cli_getopt refused as another option's value, NULL none */
static const char *value_is_option;

int cli_getopt(int argc, char **argv, const char *optstring, const struct option *longopts)
{
  value_is_option = NULL;
  int c = getopt_long(argc, argv, optstring, longopts, NULL);
  /* a value taken from the next word (not written --db=--x or -d--x) that starts with "--" is
   * an option the user meant as one: the option before it has no value */
  if (c != -1 && c != ':' && c != '?' && optarg && optind > 1 && optarg == argv[optind - 1] &&
      strncmp(optarg, "--", 2) == 0) {
    value_is_option = optarg;
    optind--; /* argv[optind - 1] is the option again, for cli_opt_error */
    optopt = c < 128 ? c : 0;
    return ':';
  }
  return c;
}

int cli_opt_date(const char *cmd, const char *opt, const char *s, char *canon, size_t len)
{
  if (gr_date_instant(s, canon, len) == 0)
    return 0;
  char shown[64];
  return cli_usage_error(cmd, "bad date '%s' for %s: a real date, YYYY-MM-DD, optionally "
                         "THH:MM or THH:MM:SS and Z (UTC)", gr_printable(shown, sizeof shown, s),
                         opt);
}

int cli_opt_error(const char *cmd, int c, char **argv)
{
  const char *arg = optind > 0 ? argv[optind - 1] : "";
  char name[64];
  int is_long = strncmp(arg, "--", 2) == 0;
  if (is_long)
    gr_fmt(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
  else if (optopt > 0 && optopt < 128)
    gr_fmt(name, sizeof name, "-%c", optopt);
  else
    gr_fmt(name, sizeof name, "%s", arg);
  if (c == ':' && value_is_option) {
    char word[64];
    gr_printable(word, sizeof word, value_is_option);
    return cli_usage_error(cmd, "option '%s' needs a value, not the option '%s' (a value that "
                           "starts with '--' is written %s=%s)", name, word, name, word);
  }
  if (c == ':')
    return cli_usage_error(cmd, "option '%s' needs a value", name);
  if (is_long && strchr(arg, '=') && optopt)
    return cli_usage_error(cmd, "option '%s' takes no value", name);
  return cli_usage_error(cmd, "unknown option '%s'", name);
}


int cli_check_tmpdir(const char *cmd)
{
  const char *t = getenv("TMPDIR");
  struct stat sb;
  if (!t || !*t)
    return 0;
  int err = stat(t, &sb) ? errno : !S_ISDIR(sb.st_mode) ? ENOTDIR : access(t, W_OK | X_OK) ? errno : 0;
  if (!err)
    return 0;
  char shown[256];
  fprintf(stderr, "gpuregress %s: TMPDIR '%s' cannot take temporary files (%s): variants make "
                  "theirs there (kmedoids' MPI launches); name a writable folder or unset it\n",
          cmd, gr_printable(shown, sizeof shown, t), strerror(err));
  return GR_EXIT_ENV;
}

/* ---- run metadata ------------------------------------------------------------------------- */

const char *cli_build_commit(void) { return GR_GIT_COMMIT; }

/* The runner and the code under test: gpuregress's own build unless gr_runner_identify (the
 * file gpuregress_add_executable generates) names a runner of one's own and its project. */
static const char *runner_registered = "gpuregress";
static const char *code_commit = GR_GIT_COMMIT, *code_toplevel = GR_GIT_TOPLEVEL;

void gr_runner_identify(const char *name, const char *commit, const char *toplevel)
{
  runner_registered = name;
  code_commit = commit;
  code_toplevel = toplevel;
  gr_set_runner_name(name);
}

const char *cli_code_commit(void) { return code_commit; }

void cli_set_runner_name(const char *argv0)
{
  const char *base = strrchr(argv0, '/');
  base = base ? base + 1 : argv0;
  if (base == argv0 && argv0[0]) { /* no '/': the shell found it on PATH */
    gr_set_runner_name(argv0);
    return;
  }
  /* invoked by a path: its name only if that name on PATH is this very program */
  struct stat self, found;
  const char *path = getenv("PATH");
  char dir[4096], file[4096 + GR_NAME_MAX + 2];
  gr_set_runner_name(runner_registered);
  if (!path || !gr_name_ok(base) || stat("/proc/self/exe", &self) != 0)
    return;
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, ":");
    if (n > 0 && n < sizeof dir) {
      memcpy(dir, p, n);
      dir[n] = 0;
      gr_fmt(file, sizeof file, "%s/%s", dir, base);
      if (stat(file, &found) == 0 && found.st_dev == self.st_dev && found.st_ino == self.st_ino) {
        gr_set_runner_name(base);
        return;
      }
    }
    p += n + (p[n] == ':');
  }
}

/* The probe child: arg is the GPU to describe (an index or UUID in nvidia-smi's order), NULL for
 * the one the environment makes device 0. */
static int probe_main(void *arg, int in, int out)
{
  struct probe q;
  (void)in;
  if (arg) { /* CUDA starts on that GPU only: on a 4-GPU host, 0.3 s instead of 0.7-1.3 s */
    setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
    setenv("CUDA_VISIBLE_DEVICES", arg, 1);
  }
  memset(&q, 0, sizeof q);
  if (gr_gpu_device_count(q.why, sizeof q.why) > 0)
    q.ok = gr_gpu_query(&q.info, q.why, sizeof q.why) == 0;
  q.status = q.ok ? GR_STATUS_OK : GR_STATUS_NO_GPU;
  child_say_bytes(out, &q, sizeof q);
  return 0;
}

/* Ask a child process about GPU id (NULL: device 0): the parent never initialises CUDA. */
static void probe_gpu(struct probe *p, const char *id)
{
  struct child c;
  child_init(&c);
  c.what = "GPU probe";
  c.fn = probe_main;
  c.arg = (void *)id;
  c.pipe_out = 1;
  memset(p, 0, sizeof *p);
  if (child_start(&c)) {
    p->status = GR_STATUS_ENV;
    gr_fmt(p->why, sizeof p->why, "cannot start the GPU probe: %s", strerror(errno));
    return;
  }
  if (child_read(&c, 60, p, sizeof *p) != CHILD_GOT) {
    memset(p, 0, sizeof *p);
    p->status = GR_STATUS_ENV;
    gr_fmt(p->why, sizeof p->why, "the GPU probe did not answer");
  }
  child_wait(&c, 10);
  child_finish(&c, 1, NULL, 0);
}

static void read_cmd(const char *cmd, char *buf, size_t len)
{
  buf[0] = 0;
  FILE *f = popen(cmd, "r");
  if (!f)
    return;
  if (!fgets(buf, (int)len, f))
    buf[0] = 0;
  buf[strcspn(buf, "\n")] = 0;
  pclose(f);
}

void collect_meta(struct run_meta *m, int argc, char **argv, const struct gpu_set *gpus, int probe)
{
  memset(m, 0, sizeof *m);
  /* the code under test: the commit its tree was at when this binary was built (gpuregress's
   * own, or the project of a runner of one's own); that tree's checkout now only as extra
   * information, when it still exists here and moved on since the build */
  const char *built = code_commit;
  size_t n = strlen(built);
  m->dirty = n > 6 && strcmp(built + n - 6, "-dirty") == 0;
  gr_fmt(m->commit, sizeof m->commit, "%.*s", (int)(m->dirty ? n - 6 : n), built);
  gr_fmt(m->gr_commit, sizeof m->gr_commit, "%s", GR_GIT_COMMIT);
  gr_fmt(m->gr_version, sizeof m->gr_version, "%s", GR_VERSION);
  gr_fmt(m->runner, sizeof m->runner, "%s", gr_runner_name());
  if (code_toplevel[0] && strcmp(m->commit, "unknown") != 0) {
    char cmd[4096 + 64], q[4096 + 16];
    gr_fmt(cmd, sizeof cmd, "git -C %s rev-parse --verify -q HEAD 2>/dev/null",
           gr_sh_quote(q, sizeof q, code_toplevel));
    read_cmd(cmd, m->checkout, sizeof m->checkout);
  }
  if (strcmp(m->checkout, m->commit) == 0)
    m->checkout[0] = 0;
  else if (m->checkout[0])
    fprintf(stderr,
            "%s: warning: this binary was built from commit %.12s of '%s', that checkout is now "
            "at %.12s: the run records the build's commit (rebuild to test the checkout)\n",
            gr_runner_name(), m->commit, code_toplevel, m->checkout);
  gethostname(m->host, sizeof m->host - 1);
  size_t used = 0;
  for (int i = 0; i < argc && used + 2 < sizeof m->command; i++)
    used += (size_t)snprintf(m->command + used, sizeof m->command - used, "%s%s", i ? " " : "",
                             argv[i]);
  if (probe)
    probe_gpu(&m->gpu, gpus && gpus->n ? gpus->slot[0].id : NULL);
  if (m->gpu.ok)
    gr_fmt(m->cc, sizeof m->cc, "%d.%d", m->gpu.info.cc_major, m->gpu.info.cc_minor);
}


struct run_info run_info_from_meta(const struct run_meta *m, uint64_t seed, double budget)
{
  struct run_info ri = {m->command, m->commit, m->dirty, m->host,
                        m->gpu.ok ? m->gpu.info.name : NULL, m->gpu.info.sm_count, m->cc,
                        m->gpu.info.driver_version, m->gpu.info.runtime_version,
                        m->gpu.info.sm_clock_khz / 1000, m->gpu.info.mem_clock_khz / 1000,
                        (int64_t)m->gpu.info.total_mem, seed, budget, m->checkout, 0, NULL, 0, 0, 0,
                        m->gr_version, m->gr_commit, m->runner};
  ri.driver_release = m->gpu.info.driver_release;
  ri.sm_clock_now_mhz = m->gpu.info.sm_clock_now_mhz;
  ri.mem_clock_now_mhz = m->gpu.info.mem_clock_now_mhz;
  ri.temp_c = m->gpu.info.temp_c;
  return ri;
}

/* ---- selection ---------------------------------------------------------------------------- */

/* Select by a comma-separated filter of ALG or ALG/VARIANT patterns (fnmatch); NULL selects every
 * visible algorithm. Hidden algorithms are taken only when a pattern names them without
 * wildcards. 0 ok; -1 with why naming the pattern that matched nothing. */
int select_variants(const char *filter, struct selection *sel, char *why, size_t len)
{
  char buf[1024];
  sel->n = 0;
  if (!filter)
    filter = "*";
  if (strlen(filter) >= sizeof buf) {
    gr_fmt(why, len, "the filter is too long (%zu characters, at most %zu)", strlen(filter),
           sizeof buf - 1);
    return -1;
  }
  strcpy(buf, filter);
  for (char *pat = buf, *next; pat; pat = next) {
    next = strchr(pat, ',');
    if (next)
      *next++ = 0;
    char apat[256], vpat[256] = "*";
    char *slash = strchr(pat, '/');
    size_t alen = slash ? (size_t)(slash - pat) : strlen(pat);
    if (!*pat || alen == 0 || (slash && !slash[1])) {
      gr_fmt(why, len, "empty pattern in the filter '%s': use ALG or ALG/VARIANT, comma-separated",
             filter);
      return -1;
    }
    if (alen >= sizeof apat || (slash && strlen(slash + 1) >= sizeof vpat)) {
      gr_fmt(why, len, "the pattern '%.40s...' is too long (at most %zu characters each side of "
                       "'/')", pat, sizeof apat - 1);
      return -1;
    }
    gr_fmt(apat, sizeof apat, "%.*s", (int)alen, pat);
    if (slash)
      gr_fmt(vpat, sizeof vpat, "%s", slash + 1);
    int alg_hit = 0, var_hit = 0;
    for (size_t i = 0; i < registry_count; i++) {
      const struct gr_algorithm *a = registry[i];
      if (fnmatch(apat, a->name, 0) != 0)
        continue;
      if ((a->flags & GR_ALG_HIDDEN) && strcmp(apat, a->name) != 0)
        continue;
      alg_hit = 1;
      for (size_t j = 0; j < a->n_variants; j++) {
        if (fnmatch(vpat, a->variants[j].name, 0) != 0)
          continue;
        var_hit = 1;
        int dup = 0;
        for (size_t k = 0; k < sel->n && !dup; k++)
          dup = sel->v[k] == &a->variants[j];
        if (!dup && sel->n < sizeof sel->v / sizeof *sel->v) {
          sel->alg[sel->n] = a;
          sel->v[sel->n++] = &a->variants[j];
        }
      }
    }
    if (!alg_hit) {
      gr_fmt(why, len, "unknown algorithm '%s' (see 'gpuregress list')", apat);
      return -1;
    }
    if (!var_hit) {
      gr_fmt(why, len, "no variant of '%s' matches '%s' (see 'gpuregress list %s')", apat, vpat,
             apat);
      return -1;
    }
  }
  return 0;
}


/* ---- store failures ---------------------------------------------------------------------- */

int cli_store_failed(const char *cmd, struct store *st, int64_t run)
{
  fprintf(stderr, "gpuregress %s: cannot store the results in '%s': %s: the run stops (what was "
                  "printed above is stored)\n", cmd, store_path(st), store_errmsg(st));
  printf("\nresult: error (the database failed) exit %d\n", GR_EXIT_USAGE);
  cli_status_set("result", "error");
  if (store_finish_run(st, run, "error", GR_EXIT_USAGE))
    fprintf(stderr, "gpuregress %s: run %lld stays 'running' in the database: %s\n", cmd,
            (long long)run, store_errmsg(st));
  return GR_EXIT_USAGE;
}


/* ---- the status file ---------------------------------------------------------------------- */

static const char *status_path; /* NULL: no status file asked for */
static char status_text[16384];
static size_t status_len;

int cli_status_take_option(int *argc, char **argv)
{
  int out = 2;
  for (int i = 2; i < *argc; i++) {
    if (strcmp(argv[i], "--status-file") == 0) {
      if (i + 1 >= *argc || strncmp(argv[i + 1], "--", 2) == 0) /* an option, not its value */
        return -1;
      status_path = argv[++i];
    } else if (strncmp(argv[i], "--status-file=", 14) == 0) {
      status_path = argv[i] + 14;
    } else {
      argv[out++] = argv[i];
    }
  }
  if (*argc > 2)
    *argc = out;
  argv[*argc] = NULL;
  return status_path && !*status_path ? -1 : 0;
}

int cli_status_check(char *why, size_t len)
{
  return status_path ? outfile_check(status_path, why, len) : 0;
}

void cli_status_set(const char *key, const char *fmt, ...)
{
  char value[GR_CASE_TEXT_LEN * 2];
  va_list ap;
  if (!status_path)
    return;
  va_start(ap, fmt);
  vsnprintf(value, sizeof value, fmt, ap);
  va_end(ap);
  for (char *c = value; *c; c++) /* one line per key */
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  int k = snprintf(status_text + status_len, sizeof status_text - status_len, "%s=%s\n", key, value);
  if (k > 0 && (size_t)k < sizeof status_text - status_len)
    status_len += (size_t)k;
}

int cli_status_finish(const char *cmd, int rc)
{
  if (!status_path)
    return rc;
  char why[GR_WHY_LEN];
  struct outfile out;
  cli_status_set("command", "%s", cmd);
  cli_status_set("exit", "%d", rc);
  if (outfile_open(&out, status_path, why, sizeof why) == 0) {
    if (fwrite(status_text, 1, status_len, out.f) != status_len) {
      gr_fmt(why, sizeof why, "cannot write '%s': %s", status_path, strerror(errno ? errno : EIO));
      outfile_abort(&out);
    } else if (outfile_commit(&out, why, sizeof why) == 0) {
      return rc;
    }
  }
  /* the status file is an output like any other: losing it is exit 2 (an interrupt stays 130) */
  fprintf(stderr, "gpuregress %s: the status file: %s\n", cmd, why);
  return rc == 130 ? rc : GR_EXIT_USAGE;
}

int cli_gpus(const char *cmd, const char *spec, struct gpu_set *out)
{
  char why[GR_WHY_LEN];
  int r = gpus_resolve(spec, out, why, sizeof why);
  if (r == GR_EXIT_USAGE)
    return cli_usage_error(cmd, "%s", why);
  if (r)
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
  return r;
}
