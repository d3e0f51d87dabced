/* Cases: text form, parameters, validation (generation and shrinking: case_gen.c). See case.h. */
#include "case.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datasets/data_file.h"
#include "gr.h"

const struct gr_param_spec *gr_alg_param(const struct gr_algorithm *a, const char *name,
                                         size_t *index)
{
  for (size_t i = 0; i < a->n_params; i++)
    if (strcmp(a->params[i].name, name) == 0) {
      if (index)
        *index = i;
      return &a->params[i];
    }
  return NULL;
}

const struct gr_variant *gr_alg_variant(const struct gr_algorithm *a, const char *name)
{
  for (size_t i = 0; i < a->n_variants; i++)
    if (strcmp(a->variants[i].name, name) == 0)
      return &a->variants[i];
  return NULL;
}

const char *gr_variant_kind_name(enum gr_variant_kind k)
{
  static const char *const names[] = {"reference", "fixed", "historical", "peer"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

struct gr_instance *gr_instance_alloc(const struct gr_case *c, size_t priv_size, char *why,
                                      size_t len)
{
  struct gr_instance *inst = calloc(1, sizeof *inst);
  void *priv = calloc(1, priv_size ? priv_size : 1);
  if (!inst || !priv) {
    free(inst);
    free(priv);
    gr_fmt(why, len, "out of host memory");
    return NULL;
  }
  inst->c = c;
  inst->priv = priv;
  return inst;
}

void gr_metrics_add(struct gr_metrics *m, const char *name, double value)
{
  if (m->n >= GR_MAX_METRICS)
    return;
  gr_fmt(m->name[m->n], sizeof m->name[m->n], "%s", name);
  m->value[m->n++] = value;
}

const char *gr_case_data_dir(char *buf, size_t len)
{
  const char *env = getenv("GR_DATA"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (env && *env)
    return gr_fmt(buf, len, "%s", env);
  if (xdg && *xdg)
    return gr_fmt(buf, len, "%s/gpuregress/datasets", xdg);
  return gr_fmt(buf, len, "%s/.cache/gpuregress/datasets", home && *home ? home : ".");
}

/* A file value as a path: "data:REL" in the dataset directory, anything else as it is. NULL
 * when the path does not fit len or the dataset directory its buffer (a very long GR_DATA):
 * never a path cut short. */
static const char *file_path(const char *value, char *buf, size_t len)
{
  if (strncmp(value, "data:", 5) != 0)
    return gr_fmt(buf, len, "%s", value);
  char dir[GR_CASE_PATH_LEN * 2];
  gr_case_data_dir(dir, sizeof dir);
  int n = snprintf(buf, len, "%s/%s", dir, value + 5);
  return strlen(dir) + 1 < sizeof dir && n >= 0 && (size_t)n < len ? buf : NULL;
}

const char *gr_case_file(const struct gr_case *c, const char *name, char *buf, size_t len)
{
  size_t i;
  if (!gr_alg_param(c->alg, name, &i) || !c->file[i])
    return NULL;
  return file_path(c->file[i], buf, len);
}

int gr_case_has_files(const struct gr_case *c)
{
  for (size_t i = 0; i < c->alg->n_params; i++)
    if (c->file[i])
      return 1;
  return 0;
}

/* The file values of this process, kept for its life: cases are copied by value and point here. */
static const char *intern(const char *s)
{
  static struct interned {
    struct interned *next;
    char s[];
  } *head;
  for (struct interned *e = head; e; e = e->next)
    if (strcmp(e->s, s) == 0)
      return e->s;
  struct interned *e = malloc(sizeof *e + strlen(s) + 1);
  if (!e)
    return NULL;
  strcpy(e->s, s);
  e->next = head;
  head = e;
  return e->s;
}

/* 1 when rel is absolute or has a ".." component (it would leave the dataset folder) */
static int dotdot_or_absolute(const char *rel)
{
  if (rel[0] == '/')
    return 1;
  for (const char *c = rel; *c;) {
    size_t n = strcspn(c, "/");
    if (n == 2 && c[0] == '.' && c[1] == '.')
      return 1;
    c += n + (c[n] == '/');
  }
  return 0;
}

/* A GR_PARAM_FILE value "PATH" or "PATH#HASH" (the canonical form: 16 hex digits): intern PATH
 * into *file, the hash it must have into *want (*has_want 1) and check the file's header
 * (algorithm's check_file) without reading it whole; file_hashes reads every file of the case
 * once all are checked. 0 ok, -1 with why naming the file; -2 a "data:" file that does not
 * exist (the dataset is not fetched). */
static int file_value(const struct gr_algorithm *a, const struct gr_param_spec *p, const char *val,
                      const char **file, uint64_t *want, int *has_want, char *why, size_t len)
{
  char text[GR_CASE_PATH_LEN], path[GR_CASE_PATH_LEN * 3];
  const char *mark = strrchr(val, '#');
  size_t n = mark ? (size_t)(mark - val) : strlen(val);
  if (n == 0 || n >= sizeof text) {
    gr_fmt(why, len, "'%s=%s': a path of 1 to %d characters expected", p->name, val,
           GR_CASE_PATH_LEN - 1);
    return -1;
  }
  memcpy(text, val, n);
  text[n] = 0;
  *has_want = 0;
  if (mark) {
    char *end;
    errno = 0;
    *want = strtoull(mark + 1, &end, 16);
    if (strlen(mark + 1) != 16 || *end || errno || !isxdigit((unsigned char)mark[1])) {
      gr_fmt(why, len, "'%s=%s': the content hash after '#' must be 16 hex digits", p->name, val);
      return -1;
    }
    *has_want = 1;
  }
  if (strncmp(text, "data:", 5) == 0 && dotdot_or_absolute(text + 5)) {
    gr_fmt(why, len, "'%s=%s': a data: path names a file inside the dataset folder (relative, no "
                     "'..')", p->name, text);
    return -1;
  }
  if (!file_path(text, path, sizeof path)) {
    gr_fmt(why, len, "'%s=%s': the dataset folder (GR_DATA, else XDG_CACHE_HOME or HOME) is too "
                     "long: a data: path must fit %zu characters", p->name, text, sizeof path - 1);
    return -1;
  }
  if (access(path, F_OK) != 0) {
    gr_fmt(why, len, "cannot open '%s': %s", path, strerror(errno));
    if (strncmp(text, "data:", 5) != 0)
      return -1;
    snprintf(why + strlen(why), len - strlen(why), " (%s: run scripts/datasets)", text);
    return -2;
  }
  /* the header first: a file that is not what the parameter reads is refused before any file
   * of the case is read whole (a sparse file of many gigabytes, a FIFO) */
  if (a->check_file && a->check_file(p->name, path, why, len))
    return -1;
  if (!(*file = intern(text))) {
    gr_fmt(why, len, "out of host memory");
    return -1;
  }
  return 0;
}

/* The content hash of every file of c into its value, checked against the hash the case text
 * gave (want, has_want per parameter). 0 ok, -1 with why naming the file. */
static int file_hashes(struct gr_case *c, const uint64_t *want, const int *has_want, char *why,
                       size_t len)
{
  for (size_t i = 0; i < c->alg->n_params; i++) {
    char path[GR_CASE_PATH_LEN * 3];
    uint64_t got;
    if (!c->file[i])
      continue;
    file_path(c->file[i], path, sizeof path);
    if (data_file_hash(path, &got, why, len))
      return -1;
    if (has_want[i] && got != want[i]) {
      gr_fmt(why, len,
             "'%s' has changed: its content hash is %016llx, the case was made with %016llx", path,
             (unsigned long long)got, (unsigned long long)want[i]);
      return -1;
    }
    c->v[i] = (int64_t)got;
  }
  return 0;
}

int64_t case_get(const struct gr_case *c, const char *name)
{
  size_t i;
  return gr_alg_param(c->alg, name, &i) ? c->v[i] : -1;
}

void case_set(struct gr_case *c, const char *name, int64_t value)
{
  size_t i;
  if (gr_alg_param(c->alg, name, &i))
    c->v[i] = value;
}

static int choice_index(const struct gr_param_spec *p, const char *s)
{
  for (int i = 0; p->choices[i]; i++)
    if (strcmp(p->choices[i], s) == 0)
      return i;
  return -1;
}

static size_t choice_count(const struct gr_param_spec *p)
{
  size_t n = 0;
  while (p->choices[n])
    n++;
  return n;
}

static void choices_list(const struct gr_param_spec *p, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; p->choices[i] && used + 1 < len; i++)
    used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", p->choices[i]);
}

int case_param_value(const struct gr_param_spec *p, const char *val, int64_t *out, char *why,
                     size_t len)
{
  if (p->type == GR_PARAM_ENUM) {
    int idx = choice_index(p, val);
    if (idx < 0) {
      char list[256];
      choices_list(p, list, sizeof list);
      gr_fmt(why, len, "unknown value '%s' for '%s' (one of: %s)", val, p->name, list);
      return -1;
    }
    *out = idx;
    return 0;
  }
  if (gr_parse_i64(val, out)) {
    gr_fmt(why, len, "'%s=%s' is not an integer", p->name, val);
    return -1;
  }
  return 0;
}

int case_validate(const struct gr_case *c, char *why, size_t len)
{
  const struct gr_algorithm *a = c->alg;
  for (size_t i = 0; i < a->n_params; i++) {
    const struct gr_param_spec *p = &a->params[i];
    if (p->type == GR_PARAM_FILE)
      continue;
    if (p->type == GR_PARAM_ENUM) {
      if (c->v[i] < 0 || (size_t)c->v[i] >= choice_count(p)) {
        gr_fmt(why, len, "'%s' has no choice number %lld", p->name, (long long)c->v[i]);
        return -1;
      }
    } else if (c->v[i] < p->min || c->v[i] > p->max) {
      gr_fmt(why, len, "'%s=%lld' is out of range: %s must be in [%lld, %lld]", p->name,
             (long long)c->v[i], p->name, (long long)p->min, (long long)p->max);
      return -1;
    }
  }
  if (a->validate)
    return a->validate(c, why, len);
  return 0;
}

/* A case naming files: the algorithm fills what they determine; a value given as well must
 * agree. 0 ok, -1 with why. */
static int data_params(struct gr_case *c, unsigned char *seen, char *why, size_t len)
{
  const struct gr_algorithm *a = c->alg;
  int64_t given[GR_MAX_PARAMS];
  uint32_t filled = 0;
  memcpy(given, c->v, sizeof given);
  if (!a->data_params) {
    gr_fmt(why, len, "algorithm '%s' reads no files", a->name);
    return -1;
  }
  if (a->data_params(c, &filled, why, len))
    return -1;
  for (size_t i = 0; i < a->n_params; i++) {
    if (!(filled >> i & 1))
      continue;
    if (seen[i] && given[i] != c->v[i]) {
      char v_given[64], v_file[64];
      const struct gr_param_spec *p = &a->params[i];
      if (p->type == GR_PARAM_ENUM) {
        gr_fmt(v_given, sizeof v_given, "%s", p->choices[given[i]]);
        gr_fmt(v_file, sizeof v_file, "%s", p->choices[c->v[i]]);
      } else {
        gr_fmt(v_given, sizeof v_given, "%lld", (long long)given[i]);
        gr_fmt(v_file, sizeof v_file, "%lld", (long long)c->v[i]);
      }
      gr_fmt(why, len, "'%s=%s' disagrees with the case's files, which give %s=%s", p->name,
             v_given, p->name, v_file);
      return -1;
    }
    seen[i] = 1;
  }
  return 0;
}

/* The default of parameter idx from a->defaults ("NAME=VALUE ..."). 1 found (*v set), else 0. */
static int param_default(const struct gr_algorithm *a, size_t idx, int64_t *v)
{
  const char *name = a->params[idx].name;
  size_t nl = strlen(name);
  for (const char *s = a->defaults; s && *s;) {
    s += strspn(s, " ");
    size_t w = strcspn(s, " ");
    if (w > nl && strncmp(s, name, nl) == 0 && s[nl] == '=') {
      char val[64], why[GR_WHY_LEN];
      gr_fmt(val, sizeof val, "%.*s", (int)(w - nl - 1), s + nl + 1);
      return case_param_value(&a->params[idx], val, v, why, sizeof why) == 0;
    }
    s += w;
  }
  return 0;
}

int gr_case_parse(const char *text, struct gr_case *c, char *why, size_t len)
{
  extern const struct gr_algorithm *registry_find(const char *name);
  char buf[GR_CASE_TEXT_LEN * 2];
  if (strlen(text) >= sizeof buf) {
    gr_fmt(why, len, "case text is too long (%zu characters)", strlen(text));
    return -1;
  }
  strcpy(buf, text);
  memset(c, 0, sizeof *c);
  char *save = NULL;
  char *tok = strtok_r(buf, " \t\n", &save);
  if (!tok) {
    gr_fmt(why, len, "empty case text: expected 'ALG name=value ... seed=N'");
    return -1;
  }
  c->alg = registry_find(tok);
  if (!c->alg) {
    gr_fmt(why, len, "unknown algorithm '%s' (see 'gpuregress list')", tok);
    return -1;
  }
  unsigned char seen[GR_MAX_PARAMS + 1] = {0}; /* last slot: seed */
  uint64_t want[GR_MAX_PARAMS] = {0};
  int has_want[GR_MAX_PARAMS] = {0};
  while ((tok = strtok_r(NULL, " \t\n", &save))) {
    char *eq = strchr(tok, '=');
    if (!eq || eq == tok || !eq[1]) {
      gr_fmt(why, len, "malformed token '%s': expected name=value", tok);
      return -1;
    }
    *eq = 0;
    const char *name = tok, *val = eq + 1;
    size_t idx;
    if (strcmp(name, "seed") == 0) {
      if (seen[GR_MAX_PARAMS]++) {
        gr_fmt(why, len, "'seed' given twice");
        return -1;
      }
      if (gr_parse_u64(val, &c->seed)) {
        gr_fmt(why, len, "'seed=%s' is not an unsigned integer", val);
        return -1;
      }
      continue;
    }
    const struct gr_param_spec *p = gr_alg_param(c->alg, name, &idx);
    if (!p) {
      gr_fmt(why, len, "unknown parameter '%s' for algorithm '%s'", name, c->alg->name);
      return -1;
    }
    if (seen[idx]++) {
      gr_fmt(why, len, "'%s' given twice", name);
      return -1;
    }
    int rc = p->type == GR_PARAM_FILE
                 ? file_value(c->alg, p, val, &c->file[idx], &want[idx], &has_want[idx], why, len)
                 : case_param_value(p, val, &c->v[idx], why, len);
    if (rc)
      return rc;
  }
  if (gr_case_has_files(c) && file_hashes(c, want, has_want, why, len))
    return -1;
  if (gr_case_has_files(c) && data_params(c, seen, why, len))
    return -1;
  for (size_t i = 0; i < c->alg->n_params; i++)
    if (!seen[i] && c->alg->params[i].type != GR_PARAM_FILE &&
        !param_default(c->alg, i, &c->v[i])) {
      gr_fmt(why, len, "missing parameter '%s' (a case names every parameter and the seed)",
             c->alg->params[i].name);
      return -1;
    }
  if (!seen[GR_MAX_PARAMS]) {
    gr_fmt(why, len, "missing 'seed='");
    return -1;
  }
  return case_validate(c, why, len);
}

char *gr_case_format(const struct gr_case *c, char *buf, size_t len)
{
  const struct gr_algorithm *a = c->alg;
  size_t used = (size_t)snprintf(buf, len, "%s", a->name);
  for (size_t i = 0; i < a->n_params && used < len; i++) {
    const struct gr_param_spec *p = &a->params[i];
    int64_t def;
    if (p->type != GR_PARAM_FILE && param_default(a, i, &def) && def == c->v[i])
      continue;
    if (p->type == GR_PARAM_FILE) {
      if (c->file[i])
        used += (size_t)snprintf(buf + used, len - used, " %s=%s#%016llx", p->name, c->file[i],
                                 (unsigned long long)c->v[i]);
    } else if (p->type == GR_PARAM_ENUM && c->v[i] >= 0 && (size_t)c->v[i] < choice_count(p))
      used += (size_t)snprintf(buf + used, len - used, " %s=%s", p->name, p->choices[c->v[i]]);
    else if (p->type == GR_PARAM_ENUM) /* no such choice: shown, never read past choices[] */
      used += (size_t)snprintf(buf + used, len - used, " %s=#%lld", p->name, (long long)c->v[i]);
    else
      used += (size_t)snprintf(buf + used, len - used, " %s=%lld", p->name, (long long)c->v[i]);
  }
  if (used < len)
    snprintf(buf + used, len - used, " seed=%llu", (unsigned long long)c->seed);
  return buf;
}

void case_params_text(const struct gr_case *c, char *params, size_t len)
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
