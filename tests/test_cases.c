/* Generic in-process case driver for ctest: runs generated cases of one algorithm on its CPU or
 * GPU variants through worker_run_case and asserts the contract of each kind: reference and
 * fixed variants pass every case they can take, historical variants are caught. No fork: a crash
 * fails the test outright, which is what a test wants.
 *
 *   test_cases ALG cpu|gpu [CASES [SEED]]
 *
 * Exit 0 ok, 1 a contract broken, 77 (ctest's skip) for `gpu` on a machine without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "registry.h"
#include "worker.h"

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: test_cases ALG cpu|gpu [CASES [SEED]]\n");
    return 2;
  }
  const struct gr_algorithm *a = registry_find(argv[1]);
  if (!a) {
    fprintf(stderr, "unknown algorithm '%s'\n", argv[1]);
    return 2;
  }
  int want_gpu = strcmp(argv[2], "gpu") == 0;
  long cases = argc > 3 ? atol(argv[3]) : 40;
  unsigned long long seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
  char why[GR_WHY_LEN], text[GR_CASE_TEXT_LEN];
  if (want_gpu && !worker_gpu_ready(why, sizeof why)) {
    printf("skipped: %s\n", why);
    return 77;
  }
  int bad = 0;
  for (size_t vi = 0; vi < a->n_variants; vi++) {
    const struct gr_variant *v = &a->variants[vi];
    if (!!(v->flags & GR_VARIANT_GPU) != want_gpu)
      continue;
    long pass = 0, skip = 0, fail = 0;
    char first[GR_WHY_LEN + GR_CASE_TEXT_LEN] = "";
    for (long i = 0; i < cases; i++) {
      struct gr_case c;
      struct case_result r;
      case_generate(a, seed, (uint64_t)i, NULL, &c);
      worker_run_case(&c, v, &r);
      if (r.verdict == VERDICT_PASS)
        pass++;
      else if (r.verdict == VERDICT_SKIP)
        skip++;
      else {
        if (!fail++)
          snprintf(first, sizeof first, "%s: %s: %s", case_format(&c, text, sizeof text),
                   verdict_name(r.verdict), r.why);
        if (v->kind == GR_VARIANT_HISTORICAL)
          break;
      }
    }
    int ok = v->kind == GR_VARIANT_HISTORICAL ? fail > 0 : fail == 0;
    printf("%-4s %-22s %-10s pass %ld skip %ld fail %ld%s%s\n", ok ? "ok" : "BAD", v->name,
           gr_variant_kind_name(v->kind), pass, skip, fail, first[0] ? "\n     first: " : "",
           first);
    bad += !ok;
  }
  return bad ? 1 : 0;
}
