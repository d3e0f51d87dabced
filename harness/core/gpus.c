/* The GPUs of a command and their locks. See gpus.h. */
#define _GNU_SOURCE
#include "gpus.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "child.h"
#include "gr.h"

/* Copy s with surrounding blanks removed into dst. */
static void trimmed(char *dst, size_t len, const char *s, size_t n)
{
  while (n && isspace((unsigned char)*s))
    s++, n--;
  while (n && isspace((unsigned char)s[n - 1]))
    n--;
  gr_fmt(dst, len, "%.*s", (int)n, s);
}

/* Run nvidia-smi's query into buf (its stdout and stderr). 0 ok, -1 with why. */
static int smi_query(char *buf, size_t len, char *why, size_t why_len)
{
  const char *tmp = getenv("TMPDIR");
  char path[4096];
  gr_fmt(path, sizeof path, "%s/gpuregress_smi_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) {
    gr_fmt(why, why_len, "cannot create a temporary file '%s': %s", path, strerror(errno));
    return -1;
  }
  unlink(path);
  static const char *const argv[] = {"nvidia-smi", "--query-gpu=index,uuid,name,pci.bus_id",
                                     "--format=csv,noheader", NULL};
  struct child c;
  child_init(&c);
  c.what = "nvidia-smi";
  c.argv = argv;
  c.log_fd = fd;
  if (child_start(&c)) {
    gr_fmt(why, why_len, "cannot start nvidia-smi: %s", strerror(errno));
    close(fd);
    return -1;
  }
  int rc = child_finish(&c, !child_wait(&c, 30), NULL, 0);
  ssize_t k = pread(fd, buf, len - 1, 0);
  close(fd);
  buf[k > 0 ? k : 0] = 0;
  if (rc != 0) {
    gr_fmt(why, why_len, "nvidia-smi failed (exit %d): %.200s", rc, buf);
    return -1;
  }
  return 0;
}

/* 1 if id (an index or a UUID, as CUDA_VISIBLE_DEVICES takes them) names slot s */
static int names(const struct gpu_slot *s, const char *id)
{
  if (!strncmp(id, "GPU-", 4) || !strncmp(id, "MIG-", 4))
    return !strcmp(id, s->uuid);
  char *end;
  long v = strtol(id, &end, 10);
  return *id && !*end && v == s->index;
}

int gpus_list(struct gpu_set *out, char *why, size_t len)
{
  char buf[16384];
  memset(out, 0, sizeof *out);
  if (smi_query(buf, sizeof buf, why, len))
    return -1;
  struct gpu_set all;
  memset(&all, 0, sizeof all);
  for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line && all.n < GPUS_MAX;
       line = strtok_r(NULL, "\n", &save)) {
    char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    char idx[32];
    if (!c2)
      continue;
    trimmed(idx, sizeof idx, line, (size_t)(c1 - line));
    char *end;
    long v = strtol(idx, &end, 10);
    if (!idx[0] || *end || v < 0)
      continue;
    struct gpu_slot *s = &all.slot[all.n++];
    s->index = (int)v;
    trimmed(s->uuid, sizeof s->uuid, c1 + 1, (size_t)(c2 - c1 - 1));
    char *c3 = strchr(c2 + 1, ','); /* the bus id, when the query had it */
    trimmed(s->name, sizeof s->name, c2 + 1, c3 ? (size_t)(c3 - c2 - 1) : strlen(c2 + 1));
    if (c3)
      trimmed(s->pci, sizeof s->pci, c3 + 1, strlen(c3 + 1));
    gr_fmt(s->id, sizeof s->id, "%s", s->uuid[0] ? s->uuid : idx);
  }
  /* within CUDA_VISIBLE_DEVICES, in its order */
  const char *vis = getenv("CUDA_VISIBLE_DEVICES");
  if (!vis) {
    *out = all;
    return 0;
  }
  char list[1024];
  gr_fmt(list, sizeof list, "%s", vis);
  for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && out->n < GPUS_MAX;
       tok = strtok_r(NULL, ",", &save)) {
    char id[96];
    trimmed(id, sizeof id, tok, strlen(tok));
    size_t i = 0;
    while (i < all.n && !names(&all.slot[i], id))
      i++;
    if (i == all.n)
      break; /* CUDA stops at the first id it cannot use */
    out->slot[out->n++] = all.slot[i];
  }
  return 0;
}

/* The ids of a LIST (indices or UUIDs, comma-separated), checked for shape and repeats. Their
 * count, or -1 with why. */
static int parse_list(const char *spec, char ids[GPUS_MAX][96], char *why, size_t len)
{
  char list[1024];
  int n = 0;
  if (strlen(spec) >= sizeof list) {
    gr_fmt(why, len, "--gpus: the list is too long");
    return -1;
  }
  gr_fmt(list, sizeof list, "%s", spec);
  for (char *p = list;; p++) {
    char *comma = strchr(p, ',');
    size_t k = comma ? (size_t)(comma - p) : strlen(p);
    trimmed(ids[n], sizeof ids[n], p, k);
    /* an index, or a UUID as nvidia-smi prints it */
    int uuid = !strncmp(ids[n], "GPU-", 4) || !strncmp(ids[n], "MIG-", 4);
    int ok = ids[n][0] != 0 && (!uuid || ids[n][4]);
    for (const char *q = ids[n] + (uuid ? 4 : 0); ok && *q; q++)
      ok = uuid ? isxdigit((unsigned char)*q) || *q == '-' || *q == '/' : isdigit((unsigned char)*q);
    if (!ok) {
      gr_fmt(why, len, "--gpus '%s': expected all, a count, or indices/UUIDs separated by commas",
             spec);
      return -1;
    }
    for (int j = 0; j < n; j++)
      if (!strcmp(ids[j], ids[n])) {
        gr_fmt(why, len, "--gpus '%s': GPU '%s' is named twice", spec, ids[n]);
        return -1;
      }
    if (++n == GPUS_MAX || !comma)
      return n;
    p = comma;
  }
}

/* A LIST resolved: checked for shape, then against nvidia-smi when it answers (without it, each
 * id as given). 0, or the exit code with why. */
static int resolve_list(const char *spec, struct gpu_set *out, char *why, size_t len)
{
  char ids[GPUS_MAX][96], lwhy[GR_WHY_LEN];
  int n = parse_list(spec, ids, why, len);
  if (n < 0)
    return GR_EXIT_USAGE;
  struct gpu_set host;
  int listed = gpus_list(&host, lwhy, sizeof lwhy) == 0;
  for (int i = 0; i < n; i++) {
    struct gpu_slot *s = &out->slot[out->n++];
    size_t j = 0;
    while (listed && j < host.n && !names(&host.slot[j], ids[i]))
      j++;
    if (listed && j == host.n) {
      gr_fmt(why, len, "--gpus: no GPU '%s' here (nvidia-smi lists %zu visible GPU%s)", ids[i],
             host.n, host.n == 1 ? "" : "s");
      return GR_EXIT_ENV;
    }
    if (listed) {
      *s = host.slot[j];
    } else {
      memset(s, 0, sizeof *s);
      s->index = -1;
      gr_fmt(s->id, sizeof s->id, "%s", ids[i]);
      if (!strncmp(ids[i], "GPU-", 4))
        gr_fmt(s->uuid, sizeof s->uuid, "%s", ids[i]);
    }
  }
  return 0;
}

int gpus_resolve(const char *spec, struct gpu_set *out, char *why, size_t len)
{
  char lwhy[GR_WHY_LEN];
  memset(out, 0, sizeof *out);
  if (!spec || !*spec) {
    gr_fmt(why, len, "--gpus needs a value: all, a count or a list of GPUs");
    return GR_EXIT_USAGE;
  }
  char *end;
  int all = !strcmp(spec, "all");
  long count = all ? 0 : strtol(spec, &end, 10);
  int is_count = !all && *end == 0 && isdigit((unsigned char)spec[0]) && !strchr(spec, ',');
  if (is_count && (count < 1 || count > GPUS_MAX)) {
    gr_fmt(why, len, "--gpus %s: a count from 1 to %d, 'all' or a list of GPUs (one GPU by "
                     "index: CUDA_VISIBLE_DEVICES=I without --gpus)", spec, GPUS_MAX);
    return GR_EXIT_USAGE;
  }
  if (!all && !is_count) /* a LIST */
    return resolve_list(spec, out, why, len);
  if (gpus_list(out, lwhy, sizeof lwhy)) {
    gr_fmt(why, len, "--gpus %s: cannot list the GPUs: %s", spec, lwhy);
    return GR_EXIT_ENV;
  }
  if (out->n == 0) {
    gr_fmt(why, len, "--gpus %s: nvidia-smi lists no visible GPU", spec);
    return GR_EXIT_ENV;
  }
  if (is_count && (size_t)count > out->n) {
    gr_fmt(why, len, "--gpus %ld: only %zu GPU%s visible here", count, out->n,
           out->n == 1 ? " is" : "s are");
    return GR_EXIT_ENV;
  }
  if (is_count)
    out->n = (size_t)count;
  return 0;
}

int gpus_lock(const struct gpu_slot *slot, int exclusive)
{
  return gpus_lock_wait(slot, exclusive, NULL, NULL);
}

int gpus_lock_wait(const struct gpu_slot *slot, int exclusive,
                   void (*waiting)(const char *what, void *arg), void *arg)
{
  const char *key = slot->uuid[0] ? slot->uuid : slot->id;
  if (!key[0])
    return -1;
  const char *dir = getenv("GPUREGRESS_LOCK_DIR");
  char path[4096], safe[96];
  size_t k = 0;
  for (const char *p = key; *p && k + 1 < sizeof safe; p++)
    safe[k++] = isalnum((unsigned char)*p) || *p == '-' ? *p : '_';
  safe[k] = 0;
  gr_fmt(path, sizeof path, "%s/gpuregress-gpu-%s.lock", dir && *dir ? dir : "/tmp", safe);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    return -1;
  int op = exclusive ? LOCK_EX : LOCK_SH;
  if (flock(fd, op | LOCK_NB) == 0)
    return fd;
  fprintf(stderr, "gpuregress: GPU %s is busy with another gpuregress job (%s): waiting for it\n",
          key, path);
  if (waiting) {
    char what[4200];
    waiting(gr_fmt(what, sizeof what, "GPU %s (%s)", key, path), arg);
  }
  if (flock(fd, op) != 0) { /* an interrupt: the job sees it and stops */
    close(fd);
    return -1;
  }
  return fd;
}

int gpus_near_cpus(const char *pci, const char *sysfs, void *out)
{
  cpu_set_t *set = out;
  CPU_ZERO(set);
  /* DDDDDDDD:BB:DD.F (nvidia-smi) or DDDD:BB:DD.F (Linux): hex digits, ':' and '.' only, so
   * that the id cannot leave the devices folder */
  char id[32];
  size_t n = pci ? strlen(pci) : 0;
  if (n != 16 && n != 12)
    return -1;
  const char *p = n == 16 ? pci + 4 : pci;
  if (n == 16 && strncmp(pci, "0000", 4))
    return -1;
  for (size_t i = 0; i < 12; i++) {
    char c = (char)tolower((unsigned char)p[i]);
    int want_colon = i == 4 || i == 7, want_dot = i == 10;
    if (want_colon ? c != ':' : want_dot ? c != '.' : !isxdigit((unsigned char)c))
      return -1;
    id[i] = c;
  }
  id[12] = 0;
  char path[4096], text[4096];
  gr_fmt(path, sizeof path, "%s/bus/pci/devices/%s/local_cpulist", sysfs, id);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t k = read(fd, text, sizeof text - 1);
  close(fd);
  if (k <= 0)
    return -1;
  text[k] = 0;
  /* "0-15,32-47\n": ranges and single CPUs */
  const char *s = text;
  while (*s && *s != '\n') {
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (end == s || a < 0)
      return -1;
    s = end;
    if (*s == '-') {
      b = strtol(s + 1, &end, 10);
      if (end == s + 1 || b < a)
        return -1;
      s = end;
    }
    for (long c = a; c <= b && c < CPU_SETSIZE; c++)
      CPU_SET((int)c, set);
    if (*s == ',')
      s++;
    else if (*s && *s != '\n')
      return -1;
  }
  return CPU_COUNT(set) > 0 ? 0 : -1;
}

int gpus_lane_cpus(const struct gpu_set *set, size_t lane, const char *sysfs, const void *allowed,
                   void *out)
{
  cpu_set_t near, mine;
  const cpu_set_t *now = allowed;
  if (lane >= set->n || gpus_near_cpus(set->slot[lane].pci, sysfs, &near))
    return -1;
  CPU_AND(&mine, &near, now);
  int n = CPU_COUNT(&mine);
  if (n == 0)
    return -1;
  size_t peers = 0, rank = 0; /* the lanes whose GPUs have the same nearest CPUs */
  for (size_t k = 0; k < set->n; k++) {
    cpu_set_t other;
    if (gpus_near_cpus(set->slot[k].pci, sysfs, &other) == 0 && CPU_EQUAL(&other, &near)) {
      rank += k < lane;
      peers++;
    }
  }
  if (peers > 1 && (size_t)n >= peers) {
    size_t per = (size_t)n / peers, lo = rank * per, hi = rank + 1 == peers ? (size_t)n : lo + per;
    cpu_set_t slice;
    CPU_ZERO(&slice);
    for (size_t c = 0, i = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &mine)) {
        if (i >= lo && i < hi)
          CPU_SET(c, &slice);
        i++;
      }
    mine = slice;
  }
  memcpy(out, &mine, sizeof mine);
  return 0;
}

int gpus_bind_lane(const struct gpu_set *set, size_t lane)
{
  cpu_set_t now, mine;
  if (sched_getaffinity(0, sizeof now, &now) || gpus_lane_cpus(set, lane, "/sys", &now, &mine) ||
      CPU_EQUAL(&mine, &now) || sched_setaffinity(0, sizeof mine, &mine))
    return 0;
  return CPU_COUNT(&mine);
}
