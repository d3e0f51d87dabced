/* The registry: the algorithms that registered themselves (GR_REGISTER_ALGORITHM in alg.h), kept
 * sorted by name, so that the order does not depend on the link order. Registration runs in
 * constructors, before main: nothing here allocates, and a refusal is a line on stderr. */
#include "registry.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

const struct gr_algorithm *registry[GR_MAX_ALGORITHMS];
size_t registry_count;
static size_t refused;
/* Tables built against an older header of the same API (a smaller struct gr_algorithm: fields were
 * added at its end since) are copied here, the missing fields zero ("not provided"). */
static struct gr_algorithm padded[GR_MAX_ALGORITHMS];

static int refuse(const struct gr_algorithm *a, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(const struct gr_algorithm *a, const char *where, const char *fmt, ...)
{
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  fprintf(stderr, "gpuregress: algorithm '%s' (%s) refused: %s\n",
          a && a->name ? a->name : "?", where ? where : "?", what);
  refused++;
  return -1;
}

int gr_register_algorithm(const struct gr_algorithm *a, unsigned api, size_t size,
                          const char *where)
{
  if (api != GR_API_VERSION)
    return refuse(a, where,
                  "built against the gpuregress algorithm API %u, this runner has API %u: "
                  "rebuild it against this gpuregress (gpuregress_add_executable)",
                  api, (unsigned)GR_API_VERSION);
  if (size > sizeof(struct gr_algorithm))
    return refuse(a, where,
                  "its struct gr_algorithm has %zu bytes, this runner's %zu: built against newer "
                  "headers; rebuild it against this gpuregress",
                  size, sizeof(struct gr_algorithm));
  /* data_params is the last field of API 1's first table: none can be shorter */
  if (size < offsetof(struct gr_algorithm, data_params) + sizeof(void (*)(void)))
    return refuse(a, where, "its struct gr_algorithm has %zu bytes, fewer than API %u ever had",
                  size, (unsigned)GR_API_VERSION);
  if (!a || !a->name || !a->name[0] || !a->variants || !a->n_variants)
    return refuse(a, where, "a table without a name or without variants");
  if (registry_count == GR_MAX_ALGORITHMS)
    return refuse(a, where, "more than %d algorithms", GR_MAX_ALGORITHMS);
  size_t at = 0;
  while (at < registry_count && strcmp(registry[at]->name, a->name) < 0)
    at++;
  if (at < registry_count && strcmp(registry[at]->name, a->name) == 0)
    return refuse(a, where, "an algorithm of that name is registered already");
  if (size < sizeof(struct gr_algorithm)) {
    memcpy(&padded[registry_count], a, size);
    a = &padded[registry_count];
  }
  memmove(&registry[at + 1], &registry[at], (registry_count - at) * sizeof *registry);
  registry[at] = a;
  registry_count++;
  return 0;
}

size_t registry_refused(void)
{
  return refused;
}

const struct gr_algorithm *registry_find(const char *name)
{
  for (size_t i = 0; i < registry_count; i++)
    if (strcmp(registry[i]->name, name) == 0)
      return registry[i];
  return NULL;
}
