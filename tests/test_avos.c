/* Unit tests of the avos CPU side: the reference's known answers (doc/algorithms.md), overflow and
 * cycle reporting, the closure against an independent Floyd-Warshall, the parity invariant, the
 * genealogy generator (deterministic, valid, cycles where asked) and the text loader (round trip,
 * and each kind of bad input rejected with a message naming it), and the fuzzer's steering toward
 * rows wider than a warp's table (where v1_hash_full_drop loses entries) landing there on the
 * data, and the squeezed stash of v3_split_rows (drawn, named in case texts, overflowed when
 * steered to). Exit 0 ok, 1 a test failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/avos_csr_text.h"
#include "datasets/genealogy.h"
#include "algorithms/avos/avos_alg.h"
#include "algorithms/avos/avos_ref.h"
#include "case.h"
#include "coverage.h"
#include "registry.h"
#include "test_util.h"

static int64_t prod(int64_t x, int64_t y, int bits)
{
  int ovf = 0;
  int64_t v = avos_product(x, y, bits, &ovf);
  return ovf ? -99 : v; /* -99 marks an overflow in the expectations */
}

static void test_scalar(void)
{
  /* sum: the non-zero minimum, -1 wins */
  EXPECT_EQ(avos_sum(0, 5), 5);
  EXPECT_EQ(avos_sum(5, 0), 5);
  EXPECT_EQ(avos_sum(0, 0), 0);
  EXPECT_EQ(avos_sum(-1, 5), -1);
  EXPECT_EQ(avos_sum(5, -1), -1);
  EXPECT_EQ(avos_sum(-1, 1), -1);
  EXPECT_EQ(avos_sum(3, 2), 2);
  EXPECT_EQ(avos_sum(0, -1), -1);
  /* MSB */
  EXPECT_EQ(avos_msb(1), 0);
  EXPECT_EQ(avos_msb(2), 1);
  EXPECT_EQ(avos_msb(3), 1);
  EXPECT_EQ(avos_msb(4), 2);
  EXPECT_EQ(avos_msb(127), 6);
  EXPECT_EQ(avos_msb((int64_t)1 << 62), 62);
  /* product, rules in order */
  EXPECT_EQ(prod(2, 3, 32), 5); /* father's mother */
  EXPECT_EQ(prod(3, 2, 32), 6); /* mother's father: not commutative */
  EXPECT_EQ(prod(0, 3, 32), 0);
  EXPECT_EQ(prod(3, 0, 32), 0);
  EXPECT_EQ(prod(-1, -1, 32), -1);
  EXPECT_EQ(prod(1, 1, 32), 1);
  EXPECT_EQ(prod(-1, 1, 32), 0);
  EXPECT_EQ(prod(1, -1, 32), 0);
  EXPECT_EQ(prod(-1, 5, 32), 5); /* RED_ONE on the left reads as 1 */
  EXPECT_EQ(prod(1, 5, 32), 5);
  EXPECT_EQ(prod(4, -1, 32), 4); /* right RED_ONE keeps even values */
  EXPECT_EQ(prod(5, -1, 32), 0);
  EXPECT_EQ(prod(5, 1, 32), 5); /* right BLACK_ONE keeps odd values */
  EXPECT_EQ(prod(4, 1, 32), 0);
  EXPECT_EQ(prod(2, 2, 32), 4);
  EXPECT_EQ(prod(3, 3, 32), 7);
  EXPECT_EQ(prod(2, 4, 32), 8);
  EXPECT_EQ(prod(6, 5, 32), 25);
  EXPECT_EQ(prod(5, 6, 16), 22);
  /* overflow: MSB(x) + MSB(y) >= bits - 1 is reported, never wrapped */
  EXPECT_EQ(prod(32, 2, 8), 64);
  EXPECT_EQ(prod(63, 2, 8), 126);
  EXPECT_EQ(prod(64, 2, 8), -99);
  EXPECT_EQ(prod(2, 64, 8), -99);
  EXPECT_EQ(prod(127, 1, 8), 127);
  EXPECT_EQ(prod(127, -1, 8), 0);
  EXPECT_EQ(prod(8192, 3, 16), 16385);
  EXPECT_EQ(prod(16384, 2, 16), -99);
  EXPECT_EQ(prod((int64_t)1 << 29, 3, 32), ((int64_t)1 << 30) | 1);
  EXPECT_EQ(prod((int64_t)1 << 30, 2, 32), -99);
  EXPECT_EQ(prod((int64_t)1 << 61, 2, 64), (int64_t)1 << 62);
  EXPECT_EQ(prod((int64_t)1 << 62, 2, 64), -99);
  int ovf = 0;
  EXPECT_EQ(avos_product(64, 2, 8, &ovf), 0);
  EXPECT_EQ(ovf, 1);
  /* validity */
  EXPECT(avos_value_valid(-1, 8) && avos_value_valid(127, 8) && !avos_value_valid(128, 8) &&
             !avos_value_valid(-2, 64),
         "value ranges");
}

/* Build a small matrix from (row, col, value) triples sorted by row then column. */
static void build(struct avos_csr *m, int n, const int *t, int count)
{
  if (avos_csr_alloc(m, n, n, count)) {
    printf("out of memory\n");
    exit(1);
  }
  for (int i = 0; i < count; i++) {
    m->indices[i] = t[3 * i + 1];
    m->values[i] = t[3 * i + 2];
    m->indptr[t[3 * i] + 1] = i + 1;
  }
  for (int r = 1; r <= n; r++)
    if (m->indptr[r] < m->indptr[r - 1])
      m->indptr[r] = m->indptr[r - 1];
}

static void test_matrix(void)
{
  char why[512];
  /* 0 (male) has father 1 (male) and mother 2 (female); 1 has mother 3 (female) */
  static const int fam[] = {0, 0, -1, 0, 1, 2, 0, 2, 3, 1, 1, -1, 1, 3, 3, 2, 2, 1, 3, 3, 1};
  struct avos_csr w, c, f;
  build(&w, 4, fam, 7);
  EXPECT(avos_csr_validate(&w, 8, why, sizeof why) == 0, "%s", why);
  EXPECT(genealogy_validate(&w, why, sizeof why) == 0, "%s", why);
  EXPECT(avos_check_parity(&w, NULL, why, sizeof why) == 0, "%s", why);
  struct avos_stats st = {0, -1, 0, 0};
  EXPECT(avos_spgemm(&w, &w, NULL, 8, &c, &st, why, sizeof why) == 0, "%s", why);
  EXPECT_EQ(avos_csr_get(&c, 0, 3), 5); /* paternal grandmother */
  EXPECT_EQ(avos_csr_get(&c, 0, 0), -1);
  EXPECT_EQ(avos_csr_get(&c, 0, 1), 2);
  EXPECT_EQ(avos_csr_get(&c, 0, 2), 3);
  EXPECT_EQ(avos_csr_nnz(&c), 8);
  EXPECT_EQ(st.cycle_vertex, -1);
  EXPECT(avos_check_parity(&c, NULL, why, sizeof why) == 0, "%s", why);
  avos_csr_release(&c);
  EXPECT(avos_closure(&w, 8, &c, &st, why, sizeof why) == 0, "%s", why);
  EXPECT_EQ(st.fixed_point, 1);
  EXPECT_EQ(st.iterations, 2);
  EXPECT_EQ(avos_csr_get(&c, 0, 3), 5);
  int64_t fovf;
  EXPECT(avos_closure_floyd(&w, 8, &f, &fovf, why, sizeof why) == 0, "%s", why);
  EXPECT(avos_csr_equal(&c, &f), "closure and floyd differ");
  avos_csr_release(&c);
  avos_csr_release(&f);
  /* the parity invariant catches a father entry in a female column */
  w.values[2] = 2; /* (0, 2): 2, but 2 is female */
  EXPECT(avos_check_parity(&w, NULL, why, sizeof why) != 0, "parity not caught");
  EXPECT(strstr(why, "parity") != NULL, "%s", why);
  avos_csr_release(&w);

  /* a 2-cycle: 0 is 1's father and 1 is 0's father */
  static const int cyc[] = {0, 0, -1, 0, 1, 2, 1, 0, 2, 1, 1, -1};
  build(&w, 2, cyc, 4);
  struct avos_stats st2 = {0, -1, 0, 0};
  EXPECT(avos_spgemm(&w, &w, NULL, 32, &c, &st2, why, sizeof why) == 0, "%s", why);
  EXPECT_EQ(st2.cycle_vertex, 0);
  EXPECT_EQ(avos_csr_get(&c, 0, 0), -1); /* -1 wins the sum over the cycle's 4 */
  avos_csr_release(&c);
  EXPECT(avos_closure(&w, 32, &c, &st, why, sizeof why) == 0, "%s", why);
  EXPECT_EQ(st.cycle_vertex, 0);
  EXPECT_EQ(st.iterations, 1); /* W (+) W (x) W = W already: the cycle shows in that product */
  EXPECT_EQ(st.fixed_point, 1);
  avos_csr_release(&c);
  avos_csr_release(&w);
}

static void test_generator(void)
{
  char why[512];
  struct avos_csr a, b, c, f;
  struct genealogy_info info;
  for (int shape = 0; shape < 2; shape++)
    for (int collapse = 0; collapse <= 100; collapse += 50) {
      struct genealogy_opts o = {shape, 700, 9, collapse, 0, 42};
      EXPECT(genealogy_generate(&o, &a, &info, why, sizeof why) == 0, "%s", why);
      EXPECT_EQ(a.rows, 700);
      EXPECT(genealogy_validate(&a, why, sizeof why) == 0, "shape %d collapse %d: %s", shape, collapse, why);
      EXPECT(avos_check_parity(&a, NULL, why, sizeof why) == 0, "%s", why);
      EXPECT_EQ(info.cycle_from, -1);
      EXPECT(genealogy_generate(&o, &b, NULL, why, sizeof why) == 0, "%s", why);
      EXPECT(avos_csr_equal(&a, &b), "same seed, different graphs");
      avos_csr_release(&b);
      o.seed = 43;
      EXPECT(genealogy_generate(&o, &b, NULL, why, sizeof why) == 0, "%s", why);
      EXPECT(!avos_csr_equal(&a, &b), "different seeds, same graph");
      avos_csr_release(&b);
      /* acyclic: the closure reports no cycle, is parity-clean and agrees with Floyd-Warshall */
      struct avos_stats st;
      EXPECT(avos_closure(&a, 64, &c, &st, why, sizeof why) == 0, "%s", why);
      EXPECT_EQ(st.cycle_vertex, -1);
      EXPECT_EQ(st.overflow, 0);
      EXPECT_EQ(st.fixed_point, 1);
      EXPECT(avos_check_parity(&c, NULL, why, sizeof why) == 0, "%s", why);
      int64_t fovf;
      EXPECT(avos_closure_floyd(&a, 64, &f, &fovf, why, sizeof why) == 0, "%s", why);
      EXPECT(avos_csr_equal(&c, &f), "shape %d collapse %d: closure and floyd differ", shape, collapse);
      avos_csr_release(&c);
      avos_csr_release(&f);
      avos_csr_release(&a);
      /* with a cycle */
      o.cycle = 1;
      EXPECT(genealogy_generate(&o, &a, &info, why, sizeof why) == 0, "%s", why);
      EXPECT(info.cycle_from >= 0 && info.cycle_to >= 0, "no cycle injected");
      EXPECT(genealogy_validate(&a, why, sizeof why) == 0, "%s", why);
      EXPECT(avos_closure(&a, 64, &c, &st, why, sizeof why) == 0, "%s", why);
      EXPECT(st.cycle_vertex >= 0, "shape %d: injected cycle %lld -> %lld not reported", shape,
             (long long)info.cycle_from, (long long)info.cycle_to);
      avos_csr_release(&c);
      avos_csr_release(&a);
    }
  /* a deep pedigree overflows int8 in its closure */
  struct genealogy_opts p = {GENEALOGY_PEDIGREE, 1023, 1, 0, 0, 1};
  EXPECT(genealogy_generate(&p, &a, &info, why, sizeof why) == 0, "%s", why);
  EXPECT_EQ(info.depth, 10);
  struct avos_stats st;
  EXPECT(avos_closure(&a, 8, &c, &st, why, sizeof why) == 0, "%s", why);
  EXPECT(st.overflow > 0, "no overflow in a 10-generation int8 closure");
  EXPECT(avos_check_parity(&c, NULL, why, sizeof why) == 0, "%s", why);
  avos_csr_release(&c);
  EXPECT(avos_closure(&a, 16, &c, &st, why, sizeof why) == 0, "%s", why);
  EXPECT_EQ(st.overflow, 0);
  EXPECT_EQ(c.indptr[1] - c.indptr[0], 1023); /* person 0's row: every ancestor and itself */
  avos_csr_release(&c);
  avos_csr_release(&a);
  /* bad options */
  struct genealogy_opts bad = {GENEALOGY_FAMILY, 10, 0, 0, 0, 1};
  EXPECT(genealogy_generate(&bad, &a, NULL, why, sizeof why) != 0, "gens=0 accepted");
}

/* Load text as a matrix of `bits`; returns the loader's code, why filled. */
static int load(const char *text, int bits, struct avos_csr *m, char *why, size_t len)
{
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  if (!f) {
    printf("fmemopen failed\n");
    exit(1);
  }
  int rc = avos_csr_read_text(f, "t.txt", bits, m, why, len);
  fclose(f);
  return rc;
}

static void expect_reject(const char *text, int bits, const char *fragment, int line)
{
  struct avos_csr m;
  char why[512] = "";
  int rc = load(text, bits, &m, why, sizeof why);
  test_checks++;
  if (rc == 0 || !strstr(why, fragment)) {
    test_failures++;
    printf("FAIL %s:%d: loader %s (wanted a message with '%s'): %s\n", __FILE__, line,
           rc == 0 ? "accepted bad input" : "gave another message", fragment, why);
  }
  if (rc == 0)
    avos_csr_release(&m);
}

static void test_loader(void)
{
  char why[512];
  struct avos_csr a, b;
  struct genealogy_opts o = {GENEALOGY_FAMILY, 300, 6, 30, 1, 7};
  EXPECT(genealogy_generate(&o, &a, NULL, why, sizeof why) == 0, "%s", why);
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  EXPECT(avos_csr_write_text(f, &a) == 0, "write failed");
  fclose(f);
  EXPECT(load(buf, 8, &b, why, sizeof why) == 0, "%s", why);
  EXPECT(avos_csr_equal(&a, &b), "round trip differs");
  avos_csr_release(&b);
  free(buf);
  avos_csr_release(&a);

  const char *good = "# a comment\navos-csr 1\nshape 3 3 4\n0: 0=-1 2=3\n\n1: 1=1\n2: 2=1\n";
  EXPECT(load(good, 8, &a, why, sizeof why) == 0, "%s", why);
  EXPECT_EQ(avos_csr_get(&a, 0, 2), 3);
  avos_csr_release(&a);
  expect_reject("avos-csr 2\nshape 1 1 1\n0: 0=1\n", 8, "header", __LINE__);
  expect_reject("avos-csr 1\nshape 1 1\n0: 0=1\n", 8, "shape ROWS COLS NNZ", __LINE__);
  expect_reject("avos-csr 1\nshape 2 2 5\n0: 0=1\n1: 1=1\n", 8, "not possible", __LINE__);
  expect_reject("avos-csr 1\nshape 1 1 1\n0: 0=-2\n", 8, "value -2 outside [-1, 127]", __LINE__);
  expect_reject("avos-csr 1\nshape 1 1 1\n0: 0=128\n", 8, "value 128 outside [-1, 127]", __LINE__);
  expect_reject("avos-csr 1\nshape 1 1 1\n0: 0=x\n", 8, "not an integer", __LINE__);
  expect_reject("avos-csr 1\nshape 1 1 1\n0: 0=3z\n", 8, "not an integer", __LINE__);
  expect_reject("avos-csr 1\nshape 2 2 2\n0: 2=1\n1: 1=1\n", 8, "column 2 out of range [0, 2)", __LINE__);
  expect_reject("avos-csr 1\nshape 2 2 2\n0: -1=1\n1: 1=1\n", 8, "out of range", __LINE__);
  expect_reject("avos-csr 1\nshape 3 3 3\n0: 2=1 1=2\n1: 1=1\n2:\n", 8, "strictly increasing", __LINE__);
  expect_reject("avos-csr 1\nshape 3 3 3\n0: 1=1 1=2\n1: 1=1\n2:\n", 8, "strictly increasing", __LINE__);
  expect_reject("avos-csr 1\nshape 2 2 2\n1: 1=1\n0: 0=1\n", 8, "row 1 where row 0 was expected", __LINE__);
  expect_reject("avos-csr 1\nshape 2 2 1\n0: 0=1\n", 8, "end of file after 1 of 2 rows", __LINE__);
  expect_reject("avos-csr 1\nshape 2 2 1\n0: 0=1\n1: 1=1\n", 8, "more entries than", __LINE__);
  expect_reject("avos-csr 1\nshape 2 2 3\n0: 0=1\n1: 1=1\n", 8, "2 entries where", __LINE__);
  expect_reject("avos-csr 1\nshape 1 1 1\n0: 0=1\nextra\n", 8, "after the last row", __LINE__);
  expect_reject("avos-csr 1\nshape 1 1 1\nzero: 0=1\n", 8, "expected 'ROW: COL=VALUE", __LINE__);
  expect_reject("", 8, "header", __LINE__);
  /* the type decides the range */
  EXPECT(load("avos-csr 1\nshape 1 1 1\n0: 0=40000\n", 32, &a, why, sizeof why) == 0, "%s", why);
  avos_csr_release(&a);
  expect_reject("avos-csr 1\nshape 1 1 1\n0: 0=40000\n", 16, "outside [-1, 32767]", __LINE__);
  EXPECT(avos_csr_load_text("/nonexistent/x.txt", 8, &a, why, sizeof why) != 0 &&
             strstr(why, "cannot open '/nonexistent/x.txt'"),
         "%s", why);
}

/* avos' variant `name` (a failed check and NULL when it or avos is missing from the registry). */
static const struct gr_variant *avos_variant(const struct gr_algorithm *a, const char *name)
{
  for (size_t k = 0; a && k < a->n_variants; k++)
    if (!strcmp(a->variants[k].name, name))
      return &a->variants[k];
  EXPECT(0, "no avos/%s in the registry", name);
  return NULL;
}

/* Steering v1_hash_full_drop toward 'rows past a warp table' guesses from the parameters; the
 * reference's rows say whether a case is really there: at least a quarter of 40 steered cases
 * (21 of 40 when written), else the bug is found by chance again. */
static void test_full_table_steering(void)
{
  const struct gr_algorithm *a = registry_find("avos");
  const struct gr_variant *v = avos_variant(a, "v1_hash_full_drop");
  if (!v)
    return;
  struct coverage cv;
  coverage_init(&cv, a, v);
  int real = 0, steered = 0;
  for (uint64_t p = 0; p < 40; p++) {
    struct gr_case c;
    struct gr_instance *inst;
    char why[GR_WHY_LEN];
    if (!coverage_steer(&cv, v, 20261128, p * 7, NULL, AVOS_REGIME_FULL_TABLE, &c) ||
        a->instance_new(&c, &inst, why, sizeof why))
      continue;
    steered++;
    real += coverage_mask(&c, v, inst) >> AVOS_REGIME_FULL_TABLE & 1;
    a->instance_free(inst);
  }
  EXPECT(steered == 40, "%d of 40 steered cases built", steered);
  EXPECT(real * 4 >= steered, "steering toward rows past a warp table: %d of %d cases there", real,
         steered);
}

/* The stash of v3_split_rows: the generator squeezes it in about a quarter of the closures (the
 * generated genealogies never outgrow a full one), a case text names stash= only when it is not
 * 100, and steering toward 'stash full' builds closures whose first squaring overflows the room
 * the driver gives (avos_driver.cu, stash_prepare: (2 (|A| + |S|) + 1024) stash / 100 entries). */
static void test_stash_steering(void)
{
  const struct gr_algorithm *a = registry_find("avos");
  const struct gr_variant *v = avos_variant(a, "v3_split_rows");
  if (!v)
    return;
  char why[GR_WHY_LEN], text[1024];
  int closures = 0, squeezed = 0, texts = 0;
  for (uint64_t i = 0; i < 4000; i++) {
    struct gr_rng r;
    struct gr_case c;
    gr_rng_seed(&r, 7000 + i);
    memset(&c, 0, sizeof c);
    c.alg = a;
    a->generate(&c, &r);
    if (a->fixup)
      a->fixup(&c);
    const int64_t stash = case_get(&c, "stash");
    if (case_get(&c, "op") != AVOS_OP_CLOSURE) {
      EXPECT(stash == 100, "a %s case with stash=%lld", a->params[0].choices[c.v[0]],
             (long long)stash);
      continue;
    }
    closures++;
    squeezed += stash < 100;
    struct gr_case back;
    case_format(&c, text, sizeof text);
    texts += (strstr(text, "stash=") != NULL) == (stash < 100) &&
             gr_case_parse(text, &back, why, sizeof why) == 0 && case_get(&back, "stash") == stash;
  }
  EXPECT(closures > 500 && squeezed * 6 > closures && squeezed * 3 < closures,
         "%d of %d closures with a squeezed stash (a quarter wanted)", squeezed, closures);
  EXPECT(texts == closures, "%d of %d closure texts round-trip with stash= named when not 100",
         texts, closures);
  struct coverage cv;
  coverage_init(&cv, a, v);
  int steered = 0, over = 0;
  for (uint64_t p = 0; p < 20; p++) {
    struct gr_case c;
    struct gr_instance *inst;
    if (!coverage_steer(&cv, v, 20261129, p * 7, NULL, AVOS_REGIME_STASH_FULL, &c) ||
        a->instance_new(&c, &inst, why, sizeof why))
      continue;
    steered++;
    const struct avos_data *d = inst->priv;
    struct avos_csr w2;
    struct avos_stats st = {0, -1, 0, 0};
    long long room = (2 * (2 * avos_csr_nnz(&d->a)) + 1024) * d->stash_pct / 100;
    if (avos_spgemm(&d->a, &d->a, &d->a, d->bits, &w2, &st, why, sizeof why) == 0) {
      over += avos_csr_nnz(&w2) > room;
      avos_csr_release(&w2);
    }
    a->instance_free(inst);
  }
  EXPECT(steered == 20, "%d of 20 steered cases built", steered);
  EXPECT(over == steered, "steering toward a full stash: %d of %d first squarings outgrow it", over,
         steered);
}

static int same_stats(const struct avos_stats *x, const struct avos_stats *y)
{
  return x->overflow == y->overflow && x->cycle_vertex == y->cycle_vertex &&
         x->iterations == y->iterations && x->fixed_point == y->fixed_point;
}

/* The products and closures over the CPUs (avos_spgemm_parallel) are the serial reference's: the
 * same pattern, values and statistics (overflows at 8 bits, the cycle vertex of an injected
 * cycle), for genealogies of both shapes, with and without S, and tiny ones (rows < pieces). */
static void test_parallel_product(void)
{
  char why[256];
  const struct genealogy_opts os[] = {
      {GENEALOGY_FAMILY, 3000, 9, 30, 0, 5}, {GENEALOGY_FAMILY, 2000, 12, 90, 1, 6},
      {GENEALOGY_PEDIGREE, 2047, 1, 0, 0, 7}, {GENEALOGY_FAMILY, 5, 2, 0, 0, 8},
      {GENEALOGY_FAMILY, 1, 1, 0, 0, 9}};
  const int bits[] = {8, 16, 32, 64};
  int overflows = 0, cycles = 0;
  for (size_t t = 0; t < sizeof os / sizeof *os; t++)
    for (size_t k = 0; k < sizeof bits / sizeof *bits; k++) {
      struct avos_csr w, p1, p2, c1, c2;
      EXPECT(genealogy_generate(&os[t], &w, NULL, why, sizeof why) == 0, "%s", why);
      for (int with_s = 0; with_s < 2; with_s++) {
        struct avos_stats s1 = {0, -1, 0, 0}, s2 = {0, -1, 0, 0};
        int r1 = avos_spgemm(&w, &w, with_s ? &w : NULL, bits[k], &p1, &s1, why, sizeof why);
        int r2 = avos_spgemm_parallel(&w, &w, with_s ? &w : NULL, bits[k], &p2, &s2, why,
                                      sizeof why);
        EXPECT(r1 == 0 && r2 == 0 && avos_csr_equal(&p1, &p2) && same_stats(&s1, &s2),
               "shape %zu, %d bits, S %d: the product over the CPUs differs (overflow %lld/%lld, "
               "cycle %lld/%lld)", t, bits[k], with_s, (long long)s1.overflow,
               (long long)s2.overflow, (long long)s1.cycle_vertex, (long long)s2.cycle_vertex);
        overflows += s1.overflow > 0;
        cycles += s1.cycle_vertex > 0;
        avos_csr_release(&p1);
        avos_csr_release(&p2);
      }
      struct avos_stats s1, s2;
      int r1 = avos_closure(&w, bits[k], &c1, &s1, why, sizeof why);
      int r2 = avos_closure_by(&w, bits[k], avos_spgemm_parallel, &c2, &s2, why, sizeof why);
      EXPECT(r1 == 0 && r2 == 0 && avos_csr_equal(&c1, &c2) && same_stats(&s1, &s2),
             "shape %zu, %d bits: the closure over the CPUs differs", t, bits[k]);
      overflows += s1.overflow > 0;
      avos_csr_release(&c1);
      avos_csr_release(&c2);
      avos_csr_release(&w);
    }
  EXPECT(overflows > 0 && cycles > 0, "closures with overflows: %d, products with a cycle past row 0: %d",
         overflows, cycles);
}

/* The op regimes take cases with elements only: an n = 0 case launches nothing (steering once
 * counted an n = 0 sum as v1_unsigned_sum's sum, and the bug escaped its share). */
static void test_op_regimes(void)
{
  const struct gr_algorithm *a = registry_find("avos");
  static const int regime[] = {AVOS_REGIME_SUM, AVOS_REGIME_PRODUCT, AVOS_REGIME_SPGEMM,
                               AVOS_REGIME_CLOSURE};
  size_t p_op = 0, p_n = 0;
  for (size_t i = 0; i < a->n_params; i++) {
    p_op = strcmp(a->params[i].name, "op") == 0 ? i : p_op;
    p_n = strcmp(a->params[i].name, "n") == 0 ? i : p_n;
  }
  for (int op = AVOS_OP_SUM; op <= AVOS_OP_CLOSURE; op++) {
    struct gr_rng r;
    struct gr_case c;
    gr_rng_seed(&r, 11 + (uint64_t)op);
    memset(&c, 0, sizeof c);
    c.alg = a;
    a->generate(&c, &r);
    c.v[p_op] = op;
    c.v[p_n] = 0;
    EXPECT(a->regimes[regime[op]].holds(&c, NULL) == 0, "'%s' holds for n = 0",
           a->regimes[regime[op]].name);
    c.v[p_n] = 64;
    EXPECT(a->regimes[regime[op]].holds(&c, NULL) == 1, "'%s' does not hold for n = 64",
           a->regimes[regime[op]].name);
  }
}

int main(void)
{
  test_op_regimes();
  test_parallel_product();
  test_scalar();
  test_matrix();
  test_generator();
  test_loader();
  test_full_table_steering();
  test_stash_steering();
  printf("%s: %d of %d checks failed\n", test_failures ? "FAIL" : "ok", test_failures, test_checks);
  return test_failures ? 1 : 0;
}
