/* The Google Benchmark JSON file assembled by the parent. See bench_json.h. */
#define _GNU_SOURCE
#include "bench_json.h"
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "gr.h"

void bench_json_init(struct bench_json *j) { memset(j, 0, sizeof *j); }

void bench_json_release(struct bench_json *j)
{
  free(j->context);
  free(j->runs);
  bench_json_init(j);
}

void bench_json_context(struct bench_json *j, const char *text, size_t len)
{
  /* only an opening that ends in the benchmarks' array can take the runs */
  size_t end = len;
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' '))
    end--;
  if (j->context || end == 0 || text[end - 1] != '[')
    return;
  j->context = strndup(text, end);
  j->oom |= !j->context;
}

static void append(struct bench_json *j, const char *text, size_t len)
{
  if (j->len + len + 3 > j->cap) {
    size_t nc = 2 * j->cap + len + 4096;
    char *nb = realloc(j->runs, nc);
    if (!nb) {
      j->oom = 1;
      return;
    }
    j->runs = nb;
    j->cap = nc;
  }
  if (j->len) {
    memcpy(j->runs + j->len, ",\n", 2);
    j->len += 2;
  }
  memcpy(j->runs + j->len, text, len);
  j->len += len;
  j->runs[j->len] = 0;
}

void bench_json_runs(struct bench_json *j, const char *text, size_t len)
{
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
    len--;
  if (len)
    append(j, text, len);
}

void bench_json_error(struct bench_json *j, const char *name, const char *message)
{
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  if (!f) {
    j->oom = 1;
    return;
  }
  /* the fields and their order as Google Benchmark writes a run that skipped with an error */
  fputs("    {\n      \"name\": ", f);
  gr_json_string(f, name);
  fputs(",\n      \"run_name\": ", f);
  gr_json_string(f, name);
  fputs(",\n      \"run_type\": \"iteration\",\n      \"repetitions\": 1,\n"
        "      \"repetition_index\": 0,\n      \"threads\": 1,\n"
        "      \"error_occurred\": true,\n      \"error_message\": ", f);
  gr_json_string(f, message);
  fputs(",\n      \"iterations\": 0,\n      \"real_time\": 0.0000000000000000e+00,\n"
        "      \"cpu_time\": 0.0000000000000000e+00,\n      \"time_unit\": \"us\"\n    }", f);
  if (fclose(f) == 0)
    append(j, text, n);
  else
    j->oom = 1;
  free(text);
}

static int write_all(FILE *f, const struct bench_json *j, const char *const *extra)
{
  if (j->context) {
    fputs(j->context, f);
  } else {
    fputs("{\n  \"context\": {\n    \"library\": \"gpuregress\",\n    \"json_schema_version\": 1",
          f);
    for (int i = 0; extra && extra[i] && extra[i + 1]; i += 2) {
      fputs(",\n    ", f);
      gr_json_string(f, extra[i]);
      fputs(": ", f);
      gr_json_string(f, extra[i + 1]);
    }
    fputs("\n  },\n  \"benchmarks\": [", f);
  }
  fprintf(f, "\n%s\n  ]\n}\n", j->runs ? j->runs : "");
  return ferror(f) ? -1 : 0;
}

int bench_json_write(const struct bench_json *j, const char *path, const char *const *extra,
                     char *why, size_t len)
{
  if (strcmp(path, "-") == 0) {
    if (write_all(stdout, j, extra) || fflush(stdout)) {
      gr_fmt(why, len, "cannot write the JSON to stdout: %s", strerror(errno));
      return -1;
    }
    return 0;
  }
  struct outfile out;
  if (outfile_open(&out, path, why, len))
    return -1;
  if (write_all(out.f, j, extra)) {
    gr_fmt(why, len, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
    outfile_abort(&out);
    return -1;
  }
  return outfile_commit(&out, why, len);
}
