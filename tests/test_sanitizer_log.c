/* compute-sanitizer's log read into findings (kernel, file:line, case), and the examined-findings
 * lists: the matching rules, and every algorithm's list well formed (harness/run/sanitizer_log.h).
 * The logs below are the shapes the tools print (memcheck, racecheck, initcheck, synccheck, an
 * API error; CUDA 12/13 "KERNEL+0xOFF in FILE:LINE" and the older "0xOFF in FILE:LINE:KERNEL"). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "registry.h"
#include "sanitize_job.h"
#include "sanitizer_log.h"
#include "test_util.h"

static struct san_log parse(const char *text)
{
  struct san_log lg;
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  san_log_parse(f, &lg);
  fclose(f);
  return lg;
}

/* two cases, the second with two identical out-of-bounds reads and one of another size */
static const char memcheck_log[] =
    "========= COMPUTE-SANITIZER\n"
    "case: ccc n=1000 features=4 cat=0 max_cat=1 missing=0 values=continuous seed=1\n"
    "v3_rows              fixed      pass    \n"
    "case: ccc n=2 features=4 cat=25 max_cat=64 missing=0 values=ties seed=1\n"
    "========= Invalid __shared__ read of size 16 bytes\n"
    "=========     at ccc_partition_kernel(const float *, const unsigned char *, int, int, "
    "ccc_layout, unsigned char *, unsigned int *)+0x4d0 in "
    "/home/ci/gpuregress/algorithms/ccc/ccc_partition.cu:57\n"
    "=========     by thread (0,0,0) in block (1,0,0)\n"
    "=========     Address 0x10 is out of bounds\n"
    "=========     and is 8 bytes after the nearest allocation at 0x0 of size 8 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========         Host Frame: ccc_partition_launch [0x1c2d] in gpuregress\n"
    "=========\n"
    "========= Invalid __shared__ read of size 16 bytes\n"
    "=========     at ccc_partition_kernel(const float *, const unsigned char *, int, int, "
    "ccc_layout, unsigned char *, unsigned int *)+0x4d0 in "
    "/home/ci/gpuregress/algorithms/ccc/ccc_partition.cu:57\n"
    "=========     by thread (1,0,0) in block (1,0,0)\n"
    "=========\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at 0x150 in /src/gr/algorithms/ari/v3_global.cu:88:void "
    "ari_count<(int)4>(const int *, unsigned int *)\n"
    "=========     by thread (3,0,0) in block (0,0,0)\n"
    "=========\n"
    "v3_rows              fixed      pass    \n"
    "========= ERROR SUMMARY: 5 errors\n"
    "========= ERROR SUMMARY: 2 errors were not printed. Use --print-limit option to adjust the "
    "number of printed errors\n";

static void test_memcheck(void)
{
  struct san_log lg = parse(memcheck_log);
  EXPECT_EQ(lg.n, 2);
  EXPECT_EQ(lg.total, 3);
  EXPECT_EQ(lg.summary, 5);
  const struct san_finding *f = &lg.f[0];
  EXPECT(!strcmp(f->what, "Invalid __shared__ read of size 16 bytes"), "'%s'", f->what);
  EXPECT(!strcmp(f->kernel, "ccc_partition_kernel"), "'%s'", f->kernel);
  EXPECT(!strcmp(f->where, "algorithms/ccc/ccc_partition.cu:57"), "'%s'", f->where);
  EXPECT(!strcmp(f->case_text, "ccc n=2 features=4 cat=25 max_cat=64 missing=0 values=ties seed=1"),
         "'%s'", f->case_text);
  EXPECT_EQ(f->count, 2);
  EXPECT(!f->other[0]);
  f = &lg.f[1]; /* the older order, a template kernel */
  EXPECT(!strcmp(f->kernel, "ari_count<(int)4>"), "'%s'", f->kernel);
  EXPECT(!strcmp(f->where, "algorithms/ari/v3_global.cu:88"), "'%s'", f->where);
  char text[1024];
  san_finding_format(&lg.f[0], text, sizeof text);
  EXPECT(!strcmp(text, "Invalid __shared__ read of size 16 bytes in ccc_partition_kernel at "
                       "algorithms/ccc/ccc_partition.cu:57 (2 reports) | case 'ccc n=2 features=4 "
                       "cat=25 max_cat=64 missing=0 values=ties seed=1'"),
         "'%s'", text);
}

static const char racecheck_log[] =
    "========= COMPUTE-SANITIZER\n"
    "case: avos op=closure type=int32 n=300 shape=family gens=4 collapse=90 cycle=0 deg=1 seed=3\n"
    "========= Error: Race reported between Write access at void avos_symbolic_block_kernel"
    "<avos_ops_v2, int>(avos_args)::[lambda(int) (instance 1)]::operator ()(int) const+0x2e80 "
    "in /home/ci/gpuregress/algorithms/avos/avos_common.cuh:702\n"
    "=========     and Read access at long long avos_block_products<int, long long "
    "avos_block_row<avos_ops_v2, int, (bool)0>(const avos_args &, int)>(const avos_args &, int, "
    "T2, volatile int *)+0x1da0 in avos_common.cuh:690 [32 hazards]\n"
    "=========     and Read access at void avos_symbolic_block_kernel<avos_ops_v2, int>(avos_args)"
    "+0x2310 in avos_common.cuh:647 [24 hazards]\n"
    "========= \n"
    "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";

static void test_racecheck(void)
{
  struct san_log lg = parse(racecheck_log);
  EXPECT_EQ(lg.n, 1);
  EXPECT_EQ(lg.summary, 1);
  const struct san_finding *f = &lg.f[0];
  EXPECT(!strcmp(f->what, "Race reported between Write access and Read access"), "'%s'", f->what);
  EXPECT(!strcmp(f->kernel, "avos_symbolic_block_kernel<avos_ops_v2, int>"), "'%s'", f->kernel);
  EXPECT(!strcmp(f->where, "algorithms/avos/avos_common.cuh:702"), "'%s'", f->where);
  EXPECT(!strcmp(f->other, "avos_common.cuh:690"), "'%s'", f->other); /* the first other */
  EXPECT_STR_CONTAINS(f->case_text, "avos op=closure");
}

/* initcheck and synccheck reports, a kernel built without line information, an API error (no
 * kernel), no case line */
static const char other_log[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Uninitialized __global__ memory read of size 4 bytes\n"
    "=========     at radix_scatter_kernel(unsigned int *, int)+0x2f0 in radix_sort/v1_basic.cu:120\n"
    "=========     by thread (0,0,0) in block (7,0,0)\n"
    "=========     Address 0x7f0000001000\n"
    "=========\n"
    "========= Barrier error detected. Divergent thread(s) in warp\n"
    "=========     at km_score_kernel(km_args)+0x88\n"
    "=========     by thread (4,0,0) in block (0,0,0)\n"
    "=========\n"
    "========= Program hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" on CUDA "
    "API call to cudaMemcpyAsync.\n"
    "=========     Saved host backtrace up to driver entry point at error\n"
    "=========         Host Frame: radix_sort_launch at radix_sort_driver.cu:40 [0x4e21] in "
    "gpuregress\n"
    "=========\n"
    "========= Target application returned an error\n"
    "========= ERROR SUMMARY: 3 errors\n";

static void test_other_tools(void)
{
  struct san_log lg = parse(other_log);
  EXPECT_EQ(lg.n, 3);
  EXPECT(!strcmp(lg.f[0].kernel, "radix_scatter_kernel"), "'%s'", lg.f[0].kernel);
  EXPECT(!strcmp(lg.f[0].where, "radix_sort/v1_basic.cu:120"), "'%s'", lg.f[0].where);
  EXPECT(!lg.f[0].case_text[0]);
  EXPECT(!strcmp(lg.f[1].what, "Barrier error detected. Divergent thread(s) in warp"), "'%s'",
         lg.f[1].what);
  EXPECT(!strcmp(lg.f[1].kernel, "km_score_kernel"), "'%s'", lg.f[1].kernel);
  EXPECT(!lg.f[1].where[0], "'%s'", lg.f[1].where);
  EXPECT_STR_CONTAINS(lg.f[2].what, "Program hit cudaErrorInvalidValue");
  EXPECT(!lg.f[2].kernel[0], "'%s'", lg.f[2].kernel); /* a host frame is not a kernel */
  char text[1024];
  san_finding_format(&lg.f[2], text, sizeof text);
  EXPECT_STR_CONTAINS(text, "| case '?'");

  lg = parse("========= COMPUTE-SANITIZER\ncase: x\nv1 fixed pass\n"
             "========= ERROR SUMMARY: 0 errors\n");
  EXPECT_EQ(lg.n, 0);
  EXPECT_EQ(lg.total, 0);
  EXPECT_EQ(lg.summary, 0);
  lg = parse("");
  EXPECT_EQ(lg.n, 0);
  EXPECT_EQ(lg.summary, -1);
}

static void test_explained(void)
{
  struct san_log lg = parse(racecheck_log);
  const struct san_finding *f = &lg.f[0];
  static const char *const list[] = {
      "v2_warp_hash memcheck avos_symbolic: the wrong tool, it must not match this race",
      "v2_warp_hash racecheck avos_numeric: another kernel, it must not match this race",
      "bad entry without a reason",
      "v2_warp_hash racecheck avos_symbolic_block@other.cuh:702: the wrong file, no match here",
      "v2_warp_hash racecheck avos_block_products: the other access's kernel is not the finding's",
      "v2_warp_hash racecheck avos_symbolic_block@avos_common.cuh:702: s_stop only goes 0 to 1",
      NULL};
  const char *why = san_explained(list, "v2_warp_hash", "racecheck", f);
  EXPECT(why && !strcmp(why, "s_stop only goes 0 to 1"), "'%s'", why ? why : "(none)");
  EXPECT(!san_explained(list, "v1_msb_small", "racecheck", f)); /* another variant */
  static const char *const by_file[] = {"* racecheck symbolic@avos_common.cuh: any variant", NULL};
  EXPECT(san_explained(by_file, "v1_msb_small", "racecheck", f) != NULL);
  static const char *const other_line[] = {"* racecheck symbolic@avos_common.cuh:70: no", NULL};
  EXPECT(!san_explained(other_line, "v2_warp_hash", "racecheck", f)); /* :70 is not :702 */
  struct san_finding api = {.what = "Program hit cudaErrorInvalidValue"};
  static const char *const any[] = {"* memcheck _: an entry never covers a finding without kernel",
                                    NULL};
  EXPECT(!san_explained(any, "v1", "memcheck", &api));
  EXPECT(!san_explained(NULL, "v1", "memcheck", f));

  char w[256];
  static const char *const variants[] = {"v1", "v2_warp_hash"};
  static const char *const good[] = {"v2_warp_hash racecheck k: one two three four five",
                                     "* memcheck k@f.cu:3: one two three four five", NULL};
  EXPECT_EQ(san_explained_check(good, variants, 2, w, sizeof w), 0);
  static const char *const bad[][2] = {{"v9 racecheck k: one two three four five", NULL},
                                       {"v1 leakcheck k: one two three four five", NULL},
                                       {"v1 racecheck k: too short", NULL},
                                       {"v1 racecheck: one two three four five", NULL},
                                       {"v1 racecheck k@: one two three four five", NULL}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    EXPECT_EQ(san_explained_check(bad[i], variants, 2, w, sizeof w), -1);
}

/* every algorithm's examined findings name its own variants and known tools, with a reason */
static void test_registry_lists(void)
{
  for (size_t i = 0; i < registry_count; i++) {
    const struct gr_algorithm *a = registry[i];
    const char *names[64];
    int n = 0;
    for (size_t v = 0; v < a->n_variants && n < 64; v++)
      names[n++] = a->variants[v].name;
    char why[256] = "";
    EXPECT_EQ(san_explained_check(a->sanitizer_explained, names, n, why, sizeof why), 0);
    if (why[0])
      printf("  %s: %s\n", a->name, why);
  }
}

/* A repro log's verdict lines for one variant (sanitize_job.c): a cell whose cases were all
 * skipped must not read as clean (kmedoids/mpi_gpu without kmedoids_mpi did, on an H200). */
static void test_repro_counts(void)
{
  char path[] = "/tmp/gr_san_repro_XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  EXPECT(f != NULL, "cannot make a temporary log");
  if (!f)
    return;
  fputs("case: kmedoids n=10 k=2 seed=1\n"
        "mpi_gpu              fixed      skip    kmedoids_mpi not found next to gpuregress\n"
        "v2_gpu               fixed      pass    \n"
        "========= COMPUTE-SANITIZER\n"
        "mpi_gpu              fixed      skip    another reason\n",
        f);
  fclose(f);
  int passed = -1, skipped = -1;
  char why[256];
  EXPECT_EQ(san_repro_counts(path, "mpi_gpu", &passed, &skipped, why, sizeof why), 0);
  EXPECT_EQ(passed, 0);
  EXPECT_EQ(skipped, 2);
  EXPECT(strcmp(why, "kmedoids_mpi not found next to gpuregress") == 0, "why: '%s'", why);
  EXPECT_EQ(san_repro_counts(path, "v2_gpu", &passed, &skipped, why, sizeof why), 0);
  EXPECT(passed == 1 && skipped == 0 && why[0] == 0, "v2_gpu: %d passed, %d skipped", passed,
         skipped);
  unlink(path);
  EXPECT_EQ(san_repro_counts(path, "mpi_gpu", &passed, &skipped, why, sizeof why), -1);
}

int main(void)
{
  test_repro_counts();
  test_memcheck();
  test_racecheck();
  test_other_tools();
  test_explained();
  test_registry_lists();
  TEST_DONE();
}
