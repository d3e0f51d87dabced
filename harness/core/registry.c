/* The registry: every algorithm the harness knows. Adding an algorithm is adding its folder under
 * algorithms/ (CMake finds it) and its lines here: the declaration and the entry. */
#include "registry.h"

#include <string.h>

extern const struct algorithm ari_algorithm;
extern const struct algorithm radix_sort_algorithm;
extern const struct algorithm sgm_algorithm;
extern const struct algorithm kmedoids_algorithm;
extern const struct algorithm avos_algorithm;
extern const struct algorithm ccc_algorithm;
extern const struct algorithm selftest_algorithm;

const struct algorithm *const registry[] = {
    &ari_algorithm,
    &radix_sort_algorithm,
    &sgm_algorithm,
    &kmedoids_algorithm,
    &avos_algorithm,
    &ccc_algorithm,
    &selftest_algorithm, /* hidden, test-only */
};
const size_t registry_count = sizeof registry / sizeof *registry;

const struct algorithm *registry_find(const char *name)
{
  for (size_t i = 0; i < registry_count; i++)
    if (strcmp(registry[i]->name, name) == 0)
      return registry[i];
  return NULL;
}
