/* SPDX-License-Identifier: Apache-2.0 */
/* Registration (GR_REGISTER_ALGORITHM, alg.h): the built-ins are there without a list, sorted by
 * name; a table compiled against another algorithm API, a larger struct gr_algorithm (newer
 * headers), a second table of a name and a table without variants are refused with a message (on
 * stderr: tests/CMakeLists.txt checks the text), never registered, never a crash. */
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "test_util.h"

static enum gr_run_status run_nothing(const struct gr_variant *v, const struct gr_instance *inst,
                                      void *out, struct gr_run_ctx *ctx)
{
  return GR_RUN_OK;
}

static const struct gr_variant one_variant[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, run_nothing, NULL, "nothing"}};

/* A plugin built against a future header: its GR_API_VERSION is 999. */
#undef GR_API_VERSION
#define GR_API_VERSION 999
static const struct gr_algorithm future_api = {
    .name = "future_api", .variants = one_variant, .n_variants = 1};
GR_REGISTER_ALGORITHM(future_api);
#undef GR_API_VERSION
#define GR_API_VERSION 2

/* Two tables of one name (the first registered wins, the other is refused), and a table without
 * variants. */
static const struct gr_algorithm dup_one = {
    .name = "dup", .variants = one_variant, .n_variants = 1};
GR_REGISTER_ALGORITHM(dup_one);
static const struct gr_algorithm dup_two = {
    .name = "dup", .variants = one_variant, .n_variants = 1};
GR_REGISTER_ALGORITHM(dup_two);
static const struct gr_algorithm no_variants = {.name = "no_variants"};
GR_REGISTER_ALGORITHM(no_variants);

/* A valid one, registered here like any algorithm outside the harness. */
static const struct gr_algorithm aaa_local = {
    .name = "aaa_local", .summary = "test", .variants = one_variant, .n_variants = 1};
GR_REGISTER_ALGORITHM(aaa_local);

int main(void)
{
  /* newer headers: a larger table, refused before its fields are read */
  static const struct gr_algorithm bigger = {
      .name = "bigger", .variants = one_variant, .n_variants = 1};
  EXPECT_EQ(gr_register_algorithm(&bigger, GR_API_VERSION, sizeof bigger + 8, "test"), -1);
  EXPECT_EQ(gr_register_algorithm(&bigger, GR_API_VERSION, 16, "test"), -1);

  EXPECT_EQ(registry_refused(), 5);
  EXPECT(registry_find("future_api") == NULL);
  EXPECT(registry_find("no_variants") == NULL);
  EXPECT(registry_find("bigger") == NULL);
  EXPECT(registry_find("dup") == &dup_one || registry_find("dup") == &dup_two);
  EXPECT(registry_find("aaa_local") == &aaa_local);
  static const char *const builtin[] = {"ari", "avos", "ccc", "kmedoids", "radix_sort", "sgm",
                                        "selftest"};
  for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
    EXPECT(registry_find(builtin[i]) != NULL, "%s registered itself", builtin[i]);
  EXPECT(registry_count >= 8, "%zu", registry_count);
  for (size_t i = 1; i < registry_count; i++)
    EXPECT(strcmp(registry[i - 1]->name, registry[i]->name) < 0, "%s before %s",
           registry[i - 1]->name, registry[i]->name);
  EXPECT(!strcmp(registry[0]->name, "aaa_local"));
  TEST_DONE();
}
