/* Unit tests of k-medoids that need no GPU and no mpirun: the reference against known answers and
 * the SQFD properties, the dataset generator, writer and loader (every rejection), the engine with
 * the CPU backend (bit-identical to the reference), the work split, and the checker (it must fail
 * on broken outputs); the variant table's GPU lifecycle wiring. Exit 0 when all pass, 1 otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algorithms/kmedoids/km_engine.h"
#include "algorithms/kmedoids/km_mpirun.h"
#include "algorithms/kmedoids/kmedoids_alg.h"
#include "case.h"
#include "check.h"
#include "datasets/kmedoids_sig.h"
#include "gr.h"
#include "algorithms/kmedoids/kmedoids_ref.h"
#include "test_util.h"

/* A dataset of n signatures from explicit records (8 floats each) and sizes. */
/* The instance of case text (into *c, which it points to), NULL with the reason reported. */
static struct gr_instance *load_case(struct gr_case *c, const char *text)
{
  struct gr_instance *inst = NULL;
  char why[GR_WHY_LEN] = "";
  EXPECT(case_parse(text, c, why, sizeof why) == 0 &&
             kmedoids_algorithm.instance_new(c, &inst, why, sizeof why) == 0,
         "%s: %s", text, why);
  return inst;
}

/* The reference's answer of inst packed as a variant's output (malloc'ed; its layout in *l). */
static unsigned char *ref_output(const struct gr_instance *inst, struct km_out_layout *l)
{
  const struct km_data *d = inst->priv;
  *l = km_out_layout(d->ds.n, d->cfg.k, d->cfg.iters);
  unsigned char *o = malloc(l->bytes);
  EXPECT(o != NULL, "out of memory");
  if (o)
    km_out_pack(&d->res, o);
  return o;
}

/* A case's instance and the reference's answer packed as a variant's output, for the tests that
 * edit that output and check it. */
struct ref_fixture {
  struct gr_case c;
  struct gr_instance *inst;
  const struct km_data *d;
  struct km_out_layout l;
  unsigned char *o;
};

/* Loads case text into *f; 0, or -1 with the reason reported (nothing to free). */
static int fixture_load(struct ref_fixture *f, const char *text)
{
  f->inst = load_case(&f->c, text);
  if (!f->inst)
    return -1;
  f->d = f->inst->priv;
  f->o = ref_output(f->inst, &f->l);
  if (!f->o) {
    kmedoids_algorithm.instance_free(f->inst);
    return -1;
  }
  return 0;
}

static void fixture_free(struct ref_fixture *f)
{
  free(f->o);
  kmedoids_algorithm.instance_free(f->inst);
}

static void make_ds(struct kmsig *ds, int n, const int *sizes, const float *rec)
{
  ds->n = n;
  ds->off = malloc(sizeof(int64_t) * (size_t)(n + 1));
  ds->off[0] = 0;
  for (int i = 0; i < n; i++)
    ds->off[i + 1] = ds->off[i] + sizes[i];
  ds->total = ds->off[n];
  ds->data = malloc(sizeof(float) * KMSIG_REC * (size_t)ds->total);
  memcpy(ds->data, rec, sizeof(float) * KMSIG_REC * (size_t)ds->total);
}

/* One-centroid signatures at x on the first axis, weight w. */
static void line_ds(struct kmsig *ds, int n, const float *x)
{
  float *rec = calloc((size_t)n * KMSIG_REC, sizeof(float));
  int *sizes = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) {
    rec[i * KMSIG_REC] = x[i];
    rec[i * KMSIG_REC + KMSIG_DIM] = 1.0f + (float)i; /* normalised to 1 anyway */
    sizes[i] = 1;
  }
  make_ds(ds, n, sizes, rec);
  free(rec);
  free(sizes);
}

static void test_sqfd_known(void)
{
  /* single centroids: SQFD = sqrt(2 - 2 exp(-alpha d^2)) */
  struct kmsig ds;
  float x[3] = {0.0f, 1.0f, 3.0f};
  line_ds(&ds, 3, x);
  struct km_ref r;
  km_ref_init(&r, &ds, 0.2);
  EXPECT(fabs(km_ref_sqfd(&r, 0, 1) - sqrt(2 - 2 * exp(-0.2))) < 1e-15, "d(0,1) = %.17g",
         km_ref_sqfd(&r, 0, 1));
  EXPECT(fabs(km_ref_sqfd(&r, 0, 2) - sqrt(2 - 2 * exp(-1.8))) < 1e-15, "d(0,2) = %.17g",
         km_ref_sqfd(&r, 0, 2));
  EXPECT(fabs(r.self[1] - 1.0) < 1e-15, "self(1) = %.17g", r.self[1]);
  km_ref_release(&r);
  kmsig_free(&ds);

  /* two centroids against one: X = {0 w 1, 2 w 3} (weights 1/4, 3/4), Y = {1} */
  float rec[3 * KMSIG_REC] = {0};
  rec[0 * KMSIG_REC + KMSIG_DIM] = 1.0f;
  rec[1 * KMSIG_REC] = 2.0f;
  rec[1 * KMSIG_REC + KMSIG_DIM] = 3.0f;
  rec[2 * KMSIG_REC] = 1.0f;
  rec[2 * KMSIG_REC + KMSIG_DIM] = 5.0f;
  int sizes[2] = {2, 1};
  make_ds(&ds, 2, sizes, rec);
  km_ref_init(&r, &ds, 0.5);
  double a = 0.25, b = 0.75, f2 = exp(-0.5 * 4), f1 = exp(-0.5);
  double self_x = a * a + b * b + 2 * a * b * f2, cross = a * f1 + b * f1;
  double want = sqrt(self_x + 1 - 2 * cross);
  EXPECT(fabs(km_ref_sqfd(&r, 0, 1) - want) < 1e-15, "two-centroid SQFD %.17g, want %.17g",
         km_ref_sqfd(&r, 0, 1), want);
  km_ref_release(&r);
  kmsig_free(&ds);

  /* nearly equal signatures: the radicand under 1e-6 gives exactly 0 */
  float y[2] = {0.0f, 0.001f};
  line_ds(&ds, 2, y);
  km_ref_init(&r, &ds, 0.2);
  EXPECT(km_ref_sqfd(&r, 0, 1) == 0.0, "radicand 4e-7: SQFD %.17g, want 0", km_ref_sqfd(&r, 0, 1));
  km_ref_release(&r);
  kmsig_free(&ds);
}

static void test_sqfd_properties(void)
{
  struct kmsig ds;
  char why[256];
  struct kmsig_gen g = {40, 1, 30, 4, KMSIG_DIST_DUPLICATES, 7};
  EXPECT(kmsig_generate(&g, &ds, why, sizeof why) == 0, "generate: %s", why);
  struct km_ref r;
  km_ref_init(&r, &ds, 0.2);
  int bad_self = 0, bad_sym = 0, bad_neg = 0, bad_tri = 0, bad_copy = 0, copies = 0;
  for (int i = 0; i < ds.n; i++) {
    bad_self += km_ref_sqfd(&r, i, i) != 0.0;
    for (int j = 0; j < i; j++) /* exact copies: the same distance to everything, bit for bit */
      if (kmsig_size(&ds, i) == kmsig_size(&ds, j) &&
          memcmp(ds.data + ds.off[i] * KMSIG_REC, ds.data + ds.off[j] * KMSIG_REC,
                 32 * (size_t)kmsig_size(&ds, i)) == 0) {
        copies++;
        for (int m = 0; m < ds.n; m++)
          bad_copy += km_ref_sqfd(&r, i, m) != km_ref_sqfd(&r, j, m);
      }
    for (int j = 0; j < ds.n; j++) {
      double dij = km_ref_sqfd(&r, i, j);
      bad_sym += dij != km_ref_sqfd(&r, j, i);
      bad_neg += !(dij >= 0);
      for (int l = 0; l < ds.n; l += 7)
        bad_tri += dij > km_ref_sqfd(&r, i, l) + km_ref_sqfd(&r, l, j) + 2e-3;
    }
  }
  EXPECT(!bad_self && !bad_sym && !bad_neg && !bad_tri && !bad_copy && copies >= 10,
         "SQFD(x,x)=0 broken %d, symmetry %d, negative %d, triangle %d, copies %d (of %d)",
         bad_self, bad_sym, bad_neg, bad_tri, bad_copy, copies);
  km_ref_release(&r);
  kmsig_free(&ds);
}

static void test_reference_known(void)
{
  /* two groups on a line: the medoids end at the middle of each */
  struct kmsig ds;
  float x[6] = {0.0f, 0.1f, 0.2f, 5.0f, 5.1f, 5.2f};
  line_ds(&ds, 6, x);
  struct km_ref r;
  km_ref_init(&r, &ds, 0.2);
  struct km_config cfg = {2, 0.2, 16, 3};
  struct km_result res;
  km_result_alloc(&res, 6, 2, 16);
  EXPECT(km_reference(&r, &cfg, NULL, &res) == 0, "reference failed");
  int c0 = res.assign[0], c3 = res.assign[3];
  EXPECT(c0 != c3 && res.assign[1] == c0 && res.assign[2] == c0 && res.assign[4] == c3 &&
             res.assign[5] == c3,
         "assignment %d %d %d %d %d %d", res.assign[0], res.assign[1], res.assign[2],
         res.assign[3], res.assign[4], res.assign[5]);
  EXPECT(res.medoids[c0] == 1 && res.medoids[c3] == 4, "medoids %d %d, want 1 and 4",
         res.medoids[c0], res.medoids[c3]);
  double d01 = sqrt(2 - 2 * exp(-0.2 * 0.1f * 0.1f)); /* approx: coordinates are floats */
  EXPECT(fabs(res.objective[res.steps - 1] - 4 * d01) < 1e-6, "objective %.12g, want ~%.12g",
         res.objective[res.steps - 1], 4 * d01);
  for (int t = 0; t + 1 < res.steps; t++)
    EXPECT(res.objective[t + 1] <= res.objective[t], "objective increased at step %d", t);
  km_result_release(&res);

  /* iters = 0: the initial medoids and one assignment */
  cfg.iters = 0;
  km_result_alloc(&res, 6, 2, 0);
  km_reference(&r, &cfg, NULL, &res);
  int32_t init[2];
  km_init_medoids(6, 2, 3, init);
  EXPECT(res.steps == 1 && res.medoids[0] == init[0] && res.medoids[1] == init[1],
         "iters=0: steps %d medoids %d %d, initial %d %d", res.steps, res.medoids[0],
         res.medoids[1], init[0], init[1]);
  km_result_release(&res);
  km_ref_release(&r);
  kmsig_free(&ds);

  /* ties: two identical objects and k = 2; the earlier medoid wins distance ties, a cluster of two
   * keeps its first member, an empty cluster keeps its medoid */
  float z[2] = {1.0f, 1.0f};
  line_ds(&ds, 2, z);
  km_ref_init(&r, &ds, 0.2);
  for (uint64_t seed = 0; seed < 4; seed++) {
    struct km_config c2 = {2, 0.2, 16, seed};
    km_result_alloc(&res, 2, 2, 16);
    km_reference(&r, &c2, NULL, &res);
    EXPECT(res.assign[0] == 0 && res.assign[1] == 0, "ties: assignment %d %d", res.assign[0],
           res.assign[1]);
    EXPECT(res.medoids[0] == 0, "ties: medoid of the cluster of two is %d, want 0",
           res.medoids[0]);
    int32_t in[2];
    km_init_medoids(2, 2, seed, in);
    int want1 = in[1]; /* cluster 1 stays empty: keeps its initial medoid */
    EXPECT(res.medoids[1] == want1, "ties: empty cluster's medoid %d, want %d", res.medoids[1],
           want1);
    km_result_release(&res);
  }
  km_ref_release(&r);
  kmsig_free(&ds);
}

static void test_generator(void)
{
  char why[256];
  struct kmsig a, b, c;
  struct kmsig_gen g = {300, 10, 200, 5, KMSIG_DIST_CLASSES, 99};
  EXPECT(kmsig_generate(&g, &a, why, sizeof why) == 0, "%s", why);
  EXPECT(kmsig_generate(&g, &b, why, sizeof why) == 0, "%s", why);
  g.seed = 100;
  EXPECT(kmsig_generate(&g, &c, why, sizeof why) == 0, "%s", why);
  EXPECT(a.total == b.total && memcmp(a.off, b.off, 8 * (size_t)(a.n + 1)) == 0 &&
             memcmp(a.data, b.data, 32 * (size_t)a.total) == 0,
         "same seed, different dataset");
  EXPECT(a.total != c.total || memcmp(a.data, c.data, 32 * (size_t)a.total) != 0,
         "different seeds, same dataset");
  int64_t lo = 1000, hi = 0;
  for (int64_t i = 0; i < a.n; i++) {
    int64_t s = kmsig_size(&a, i);
    lo = s < lo ? s : lo;
    hi = s > hi ? s : hi;
  }
  EXPECT(lo >= 10 && hi <= 200 && hi - lo > 100, "sizes %lld..%lld", (long long)lo, (long long)hi);
  EXPECT(kmsig_validate(&a, why, sizeof why) == 0, "generated dataset invalid: %s", why);
  kmsig_free(&a);
  kmsig_free(&b);
  kmsig_free(&c);
  struct kmsig_gen gd = {40, 3, 9, 3, KMSIG_DIST_DUPLICATES, 5};
  kmsig_generate(&gd, &a, why, sizeof why);
  int copies = 0;
  for (int64_t i = 3; i < a.n; i += 4)
    for (int64_t j = 0; j < i; j++)
      if (kmsig_size(&a, i) == kmsig_size(&a, j) &&
          memcmp(a.data + a.off[i] * KMSIG_REC, a.data + a.off[j] * KMSIG_REC,
                 32 * (size_t)kmsig_size(&a, i)) == 0) {
        copies++;
        break;
      }
  EXPECT(copies == 10, "duplicates: %d of 10 objects are copies", copies);
  kmsig_free(&a);
  struct kmsig_gen bad = {0, 1, 1, 1, KMSIG_DIST_CLASSES, 1};
  EXPECT(kmsig_generate(&bad, &a, why, sizeof why) == KMSIG_E_ARG, "n = 0 accepted");
}

/* write bytes to path */
static void put(const char *path, const void *p, size_t n)
{
  FILE *f = fopen(path, "wb");
  fwrite(p, 1, n, f);
  fclose(f);
}

static void test_loader(void)
{
  char why[512], path[] = "/tmp/test_kmedoids_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  struct kmsig a, b;
  struct kmsig_gen g = {20, 2, 9, 3, KMSIG_DIST_CLASSES, 3};
  kmsig_generate(&g, &a, why, sizeof why);
  EXPECT(kmsig_write(&a, path, why, sizeof why) == 0, "write: %s", why);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == 0, "load: %s", why);
  EXPECT(b.n == a.n && b.total == a.total && memcmp(a.off, b.off, 8 * (size_t)(a.n + 1)) == 0 &&
             memcmp(a.data, b.data, 32 * (size_t)a.total) == 0,
         "round trip changed the dataset");
  kmsig_free(&b);
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  size_t size = (size_t)ftell(f);
  rewind(f);
  unsigned char *good = malloc(size), *bad = malloc(size + 8);
  EXPECT(fread(good, 1, size, f) == size, "read back");
  fclose(f);
  size_t index = 64, data = 64 + 8 * (size_t)(a.n + 1);
  /* truncated: inside the data, inside the index, inside the header */
  size_t cuts[3] = {size - 5, index + 12, 30};
  for (int i = 0; i < 3; i++) {
    put(path, good, cuts[i]);
    int e = kmsig_load(path, &b, why, sizeof why);
    EXPECT(e == KMSIG_E_TRUNCATED, "cut at %zu: %d (%s)", cuts[i], e, why);
    EXPECT(strstr(why, path) && strstr(why, "truncated"), "message '%s'", why);
  }
  /* wrong magic */
  memcpy(bad, good, size);
  bad[0] = 'X';
  put(path, bad, size);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_MAGIC, "bad magic: %s", why);
  /* wrong version */
  memcpy(bad, good, size);
  bad[8] = 2;
  put(path, bad, size);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_VERSION, "version 2: %s", why);
  /* index out of order: entry 5 below entry 4 */
  memcpy(bad, good, size);
  int64_t v;
  memcpy(&v, bad + index + 8 * 4, 8);
  v -= 1;
  memcpy(bad + index + 8 * 5, &v, 8);
  put(path, bad, size);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_INDEX_ORDER, "order: %s", why);
  EXPECT(strstr(why, "entry 5") != NULL, "message names the entry: '%s'", why);
  /* index not starting at 0 */
  memcpy(bad, good, size);
  v = 1;
  memcpy(bad + index, &v, 8);
  put(path, bad, size);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_INDEX_ORDER, "first entry: %s", why);
  /* index past the end */
  memcpy(bad, good, size);
  v = a.total + 100;
  memcpy(bad + index + 8 * 7, &v, 8);
  put(path, bad, size);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_INDEX_END, "past the end: %s", why);
  /* last entry short of the total */
  memcpy(bad, good, size);
  v = a.total - 1;
  memcpy(bad + index + 8 * (size_t)a.n, &v, 8);
  put(path, bad, size);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_INDEX_END, "last entry: %s", why);
  /* non-positive weight */
  memcpy(bad, good, size);
  float w = -1.0f;
  memcpy(bad + data + 32 * 3 + 28, &w, 4);
  put(path, bad, size);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_VALUE, "weight: %s", why);
  /* header sizes inconsistent, trailing bytes */
  memcpy(bad, good, size);
  v = (int64_t)data + 8;
  memcpy(bad + 40, &v, 8); /* data_offset */
  put(path, bad, size);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_HEADER, "data offset: %s", why);
  memcpy(bad, good, size);
  memset(bad + size, 0, 8);
  put(path, bad, size + 8);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_HEADER, "trailing: %s", why);
  unlink(path);
  EXPECT(kmsig_load(path, &b, why, sizeof why) == KMSIG_E_IO, "missing file: %s", why);
  EXPECT(b.off == NULL && b.data == NULL, "a failed load leaves the dataset empty");
  free(good);
  free(bad);
  kmsig_free(&a);
}

static void test_split(void)
{
  /* every source row of every cluster of >= 3 members goes to exactly one rank, costs balanced */
  int sizes[9] = {0, 1, 2, 3, 50, 7, 200, 3, 31};
  int64_t n = 0;
  for (int j = 0; j < 9; j++)
    n += sizes[j];
  int32_t *assign = malloc(sizeof(int32_t) * (size_t)n);
  for (int64_t i = 0, j = 0, left = 0; i < n; i++) {
    while (left == 0)
      left = sizes[j++];
    assign[i] = (int32_t)(j - 1);
    left--;
  }
  struct km_clusters cl;
  km_clusters_build(&cl, assign, n, 9);
  for (int R = 1; R <= 5; R++) {
    int64_t covered[9] = {0}, total = 0, cost[5] = {0};
    for (int r = 0; r < R; r++) {
      struct km_work *w;
      int nw;
      km_split_work(&cl, r, R, &w, &nw);
      for (int i = 0; i < nw; i++) {
        int64_t m = sizes[w[i].cluster];
        covered[w[i].cluster] += w[i].row_hi - w[i].row_lo;
        cost[r] += (w[i].row_hi - w[i].row_lo) * m;
        EXPECT(i == 0 || w[i].cluster > w[i - 1].cluster, "R=%d rank %d: clusters out of order", R,
               r);
      }
      free(w);
    }
    for (int j = 0; j < 9; j++) {
      EXPECT(covered[j] == (sizes[j] >= 3 ? sizes[j] : 0), "R=%d cluster %d: %lld rows of %d", R,
             j, (long long)covered[j], sizes[j]);
      total += sizes[j] >= 3 ? (int64_t)sizes[j] * sizes[j] : 0;
    }
    for (int r = 0; r < R; r++)
      EXPECT(llabs(cost[r] - total / R) <= 200, "R=%d rank %d: cost %lld of %lld", R, r,
             (long long)cost[r], (long long)total);
  }
  km_clusters_release(&cl);
  free(assign);
}

/* The engine with the CPU backend in one process equals the reference bit for bit. */
static void test_engine_cpu(void)
{
  const char *texts[] = {
      "kmedoids n=300 k=3 sig_min=2 sig_max=9 classes=3 alpha_milli=200 iters=16 ranks=1 "
      "dist=classes seed=11",
      "kmedoids n=57 k=57 sig_min=1 sig_max=40 classes=4 alpha_milli=50 iters=16 ranks=1 "
      "dist=duplicates seed=12",
      "kmedoids n=120 k=9 sig_min=20 sig_max=30 classes=3 alpha_milli=1000 iters=2 ranks=1 "
      "dist=uniform seed=13",
  };
  for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
    struct gr_case c;
    struct gr_instance *inst = load_case(&c, texts[t]);
    if (!inst)
      continue;
    const struct km_data *d = inst->priv;
    struct km_cpu *cpu = km_cpu_new(&d->ds, d->cfg.alpha);
    struct km_backend be = km_cpu_backend_ops;
    be.ctx = cpu;
    struct km_result res;
    char why[GR_WHY_LEN] = "";
    km_result_alloc(&res, d->ds.n, d->cfg.k, d->cfg.iters);
    EXPECT(km_engine_run(&d->cfg, d->ds.n, &be, &km_comm_single, &res, NULL, why, sizeof why) == 0,
           "%s", why);
    size_t bytes = inst->out_bytes;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    km_out_pack(&res, a);
    km_out_pack(&d->res, b);
    EXPECT(memcmp(a, b, bytes) == 0, "case %zu: engine (CPU backend) differs from the reference", t);
    struct gr_check_report rep;
    memset(&rep, 0, sizeof rep);
    EXPECT(kmedoids_algorithm.check(inst, a, &rep) == 0, "case %zu: check failed: %s", t, rep.why);
    free(a);
    free(b);
    km_result_release(&res);
    km_cpu_free(cpu);
    kmedoids_algorithm.instance_free(inst);
  }
}

/* Past KM_SCORE_MAX_N objects a score could wrap its 64 bits: the engine refuses with a reason
 * before it touches the backend (whose operations here would crash if called). */
static void test_engine_limit(void)
{
  struct km_backend be = {NULL, NULL, NULL};
  struct km_config cfg = {2, 0.2, 1, 1};
  struct km_result res;
  memset(&res, 0, sizeof res);
  char why[GR_WHY_LEN] = "";
  EXPECT(km_engine_run(&cfg, (int64_t)KM_SCORE_MAX_N + 1, &be, &km_comm_single, &res, NULL, why,
                       sizeof why) == -1 &&
             strstr(why, "at most 8388608"),
         "n = 2^23 + 1 not refused: '%s'", why);
}

/* The checker catches broken outputs. */
static void test_check_fails(void)
{
  struct gr_case c;
  struct gr_instance *inst = load_case(&c, "kmedoids n=200 k=4 sig_min=3 sig_max=8 classes=4 "
                                           "alpha_milli=200 iters=16 ranks=1 dist=classes seed=5");
  if (!inst)
    return;
  const struct km_data *d = inst->priv;
  struct km_out_layout l;
  unsigned char *good = ref_output(inst, &l), *o = malloc(l.bytes);
  struct gr_check_report rep;
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, good, &rep) == 0, "reference output fails: %s", rep.why);
  /* a wrong medoid (another member of the same cluster) */
  memcpy(o, good, l.bytes);
  int32_t *med = (int32_t *)(o + l.medoids), *asg = (int32_t *)(o + l.assign);
  for (int64_t i = 0; i < d->ds.n; i++)
    if (asg[i] == 0 && i != med[0]) {
      med[0] = (int32_t)i;
      break;
    }
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 1, "a wrong medoid passes");
  /* one object moved to another cluster */
  memcpy(o, good, l.bytes);
  asg = (int32_t *)(o + l.assign);
  med = (int32_t *)(o + l.medoids);
  int64_t victim = med[0] == 0 ? 1 : 0;
  asg[victim] = (asg[victim] + 1) % d->cfg.k;
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 1, "a misassigned object passes");
  /* an objective trace that increases */
  memcpy(o, good, l.bytes);
  double *obj = (double *)(o + l.objective);
  int32_t steps;
  memcpy(&steps, o, 4);
  if (steps > 1) {
    obj[1] = obj[0] * 1.01;
    memset(&rep, 0, sizeof rep);
    EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 1 && strcmp(rep.tag, "invariant") == 0,
           "an increasing objective passes (%s)", rep.why);
  }
  /* poison left in the padding word and past the steps */
  memcpy(o, good, l.bytes);
  memset(o + 4, 0xA5, 4);
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 1, "poisoned padding passes");
  memcpy(o, good, l.bytes);
  if (steps <= d->cfg.iters) {
    memset(o + l.objective + 8 * (size_t)steps, 0x5A, 8);
    memset(&rep, 0, sizeof rep);
    EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 1, "poison past the steps passes");
  }
  free(good);
  free(o);
  kmedoids_algorithm.instance_free(inst);
}

/* Past the reference's limit (n > KM_REF_MAX_N) the check samples 64 objects (i = s * n / 64)
 * and finds each one's nearest medoid in parallel: a right output passes, an output where a
 * sampled object sits in a farther cluster fails on that object, whatever the thread count. */
static void test_check_sampled(void)
{
  struct gr_case c;
  struct gr_instance *inst = load_case(&c, "kmedoids n=9000 k=8 sig_min=3 sig_max=6 classes=4 "
                                           "alpha_milli=200 iters=2 ranks=1 dist=classes seed=7");
  if (!inst)
    return;
  const struct km_data *d = inst->priv;
  EXPECT(!d->has_ref, "n = 9000 has a reference: the sampled path is not tested");
  int64_t n = d->ds.n;
  int k = d->cfg.k;
  struct km_out_layout l = km_out_layout(n, k, d->cfg.iters);
  unsigned char *o = calloc(1, l.bytes);
  int32_t *med = (int32_t *)(o + l.medoids), *asg = (int32_t *)(o + l.assign);
  double *obj = (double *)(o + l.objective);
  int32_t head[2] = {1, 0};
  memcpy(o, head, sizeof head);
  for (int j = 0; j < k; j++)
    med[j] = (int32_t)(j * 1000);
  double *dist = malloc(sizeof(double) * (size_t)n * (size_t)k);
  for (int64_t i = 0; i < n; i++) { /* nearest, the first of equals: the right assignment */
    double best = INFINITY;
    for (int j = 0; j < k; j++) {
      dist[i * k + j] = km_ref_sqfd(&d->ref, i, med[j]);
      if (dist[i * k + j] < best) {
        best = dist[i * k + j];
        asg[i] = j;
      }
    }
    obj[0] += best;
  }
  struct gr_check_report rep;
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 0, "a right output fails: %s", rep.why);
  /* a sampled object (the 37th: i = 37 * n / 64) moved to its farthest cluster */
  int64_t victim = 37 * (n / 64);
  int far = 0;
  for (int j = 1; j < k; j++)
    far = dist[victim * k + j] > dist[victim * k + far] ? j : far;
  EXPECT(dist[victim * k + far] > 1.01 * dist[victim * k + asg[victim]] + 1e-3,
         "object %lld has no cluster clearly farther than its own", (long long)victim);
  int32_t keep = asg[victim];
  asg[victim] = far;
  memset(&rep, 0, sizeof rep);
  char want[64];
  snprintf(want, sizeof want, "object %lld is assigned", (long long)victim);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 1 && strstr(rep.why, want),
         "a sampled object in a farther cluster passes (%s)", rep.why);
  asg[victim] = keep;
  free(dist);
  free(o);
  kmedoids_algorithm.instance_free(inst);
}

/* Generated cases stay cheap and valid. */
static void test_generated_cases(void)
{
  int big = 0, kn = 0;
  for (uint64_t i = 0; i < 2000; i++) {
    struct gr_case c;
    char why[GR_WHY_LEN];
    case_generate(&kmedoids_algorithm, 1, i, NULL, &c);
    EXPECT(case_validate(&c, why, sizeof why) == 0, "case %llu invalid: %s",
           (unsigned long long)i, why);
    double n = (double)case_get(&c, "n"), s = 0.5 * (double)(case_get(&c, "sig_min") +
                                                             case_get(&c, "sig_max"));
    EXPECT(0.5 * n * n * s * s <= KM_FUZZ_PAIRS, "case %llu too expensive", (unsigned long long)i);
    big += n / (double)case_get(&c, "k") >= 100;
    kn += case_get(&c, "k") == case_get(&c, "n");
  }
  EXPECT(big > 400 && kn > 20, "generator: %d cases with clusters of >= 100, %d with k = n", big,
         kn);
}

/* The self-similarities and the distance matrix computed on several threads (the instance's) are
 * the reference's and the one-loop definition's, bit for bit, for odd and even n (the matrix's
 * items pair rows t and n-1-t: the middle row of an odd n alone). */
static void test_parallel_terms(void)
{
  char why[256];
  const int ns[] = {1, 2, 3, 4, 5, 64, 129, 300};
  for (size_t t = 0; t < sizeof ns / sizeof *ns; t++) {
    struct kmsig ds;
    struct kmsig_gen g = {ns[t], 3, 12, 4, KMSIG_DIST_CLASSES, 7 + (uint64_t)t};
    EXPECT(kmsig_generate(&g, &ds, why, sizeof why) == 0, "%s", why);
    struct km_ref r;
    EXPECT(km_ref_init_parallel(&r, &ds, 0.2) == 0, "km_ref_init_parallel");
    double *m = km_ref_distance_matrix_parallel(&r);
    EXPECT(m != NULL, "matrix");
    struct km_ref rs;
    EXPECT(km_ref_init(&rs, &ds, 0.2) == 0, "km_ref_init");
    double *ms = km_ref_distance_matrix(&rs);
    EXPECT(ms && m && memcmp(ms, m, sizeof(double) * (size_t)(ds.n * ds.n)) == 0 &&
               memcmp(rs.self, r.self, sizeof(double) * (size_t)ds.n) == 0,
           "n=%lld: the serial reference's terms differ", (long long)ds.n);
    free(ms);
    km_ref_release(&rs);
    int64_t n = ds.n, bad_self = 0, bad = 0;
    for (int64_t i = 0; i < n; i++) {
      double s1 = km_ref_cross(&r, i, i);
      bad_self += memcmp(&s1, &r.self[i], sizeof s1) != 0;
      for (int64_t j = 0; m && j < n; j++) {
        double d = i == j ? 0.0 : km_ref_sqfd(&r, i, j);
        bad += memcmp(&d, &m[i * n + j], sizeof d) != 0;
      }
    }
    EXPECT(bad_self == 0, "n=%lld: %lld self-similarities differ from the loop's", (long long)n,
           (long long)bad_self);
    EXPECT(bad == 0, "n=%lld: %lld matrix entries differ from km_ref_sqfd", (long long)n,
           (long long)bad);
    free(m);
    km_ref_release(&r);
    kmsig_free(&ds);
  }
}

/* A near-tie flip that float distances may make (found on 2 x H200, stop 43: v2_gpu kept the
 * reference's medoids but put one object with the other medoid of a near tie, objective relative
 * 1.2e-4 off): the check accepts an object moved to a medoid within the distance tolerance
 * (2 dist_slack) of its nearest, and still fails one moved beyond it. */
static void test_check_near_tie(void)
{
  struct ref_fixture f;
  if (fixture_load(&f, "kmedoids n=14 k=4 sig_min=256 sig_max=256 classes=2 alpha_milli=1 "
                       "iters=0 ranks=1 dist=duplicates seed=245441520283404"))
    return;
  const struct km_data *d = f.d;
  const struct gr_instance *inst = f.inst;
  const struct km_out_layout l = f.l;
  unsigned char *o = f.o;
  int32_t *asg = (int32_t *)(o + l.assign);
  double *obj = (double *)(o + l.objective);
  struct gr_check_report rep;
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 0, "the reference fails: %s", rep.why);
  /* object 1: cluster 0 at 0.0035068, cluster 3 at 0.0035123 (a radicand 4e-8 apart) */
  EXPECT(asg[1] == 0 && asg[2] == 0, "the reference's assignment changed: %d %d", asg[1], asg[2]);
  double base = obj[0];
  asg[1] = 3;
  obj[0] = base + km_ref_sqfd(&d->ref, 1, d->res.medoids[3]) -
           km_ref_sqfd(&d->ref, 1, d->res.medoids[0]);
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 0, "the near-tie flip fails: %s", rep.why);
  /* object 2: cluster 0 at 0.0059335, cluster 1 at 0.0064642 (a radicand 6.5e-6 apart) */
  asg[1] = 0;
  asg[2] = 1;
  obj[0] = base + km_ref_sqfd(&d->ref, 2, d->res.medoids[1]) -
           km_ref_sqfd(&d->ref, 2, d->res.medoids[0]);
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 1 && strstr(rep.why, "object 2 is assigned"),
         "a flip beyond the tolerance passes (%s)", rep.why);
  fixture_free(&f);
}

/* A medoid update that float scores decide the other way (gpu-check on an H200, this stop:
 * cluster 1 of 34 members at alpha 0.01, objects 149 and 210 scoring 1.8e-6 apart; v2_gpu took
 * 210 and ended 0.46% above the reference after one more step): the output of that other path
 * passes; the same medoids on a case whose reference path has no near tie fail. */
static void flipped_output(const struct km_data *d, int cluster, int32_t medoid, unsigned char *o)
{
  struct km_out_layout l = km_out_layout(d->ds.n, d->cfg.k, d->cfg.iters);
  km_out_pack(&d->res, o);
  int32_t *med = (int32_t *)(o + l.medoids), *asg = (int32_t *)(o + l.assign);
  double *obj = (double *)(o + l.objective);
  med[cluster] = medoid;
  double sum = 0;
  for (int64_t i = 0; i < d->ds.n; i++) { /* nearest, a later medoid only if strictly closer */
    double best = INFINITY;
    for (int j = 0; j < d->cfg.k; j++) {
      double x = km_ref_sqfd(&d->ref, i, med[j]);
      if (x < best) {
        best = x;
        asg[i] = j;
      }
    }
    sum += best;
  }
  obj[d->res.steps - 1] = sum;
}

static void test_check_medoid_flip(void)
{
  struct gr_case c;
  struct gr_instance *inst =
      load_case(&c, "kmedoids n=223 k=4 sig_min=5 sig_max=8 classes=1 alpha_milli=10 iters=1 "
                    "ranks=1 dist=classes seed=237194589288699");
  if (!inst)
    return;
  const struct km_data *d = inst->priv;
  struct km_out_layout l = km_out_layout(d->ds.n, d->cfg.k, d->cfg.iters);
  unsigned char *o = malloc(l.bytes);
  EXPECT(d->res.steps == 2 && d->res.medoids[1] == 149, "the reference's path changed: %d steps, "
         "cluster 1's medoid %d", d->res.steps, d->res.medoids[1]);
  flipped_output(d, 1, 210, o);
  struct gr_check_report rep;
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 0, "the near-tie medoid flip fails: %s",
         rep.why);
  /* a medoid far from a tie (cluster 2's runner-up scores 2% above its best) fails */
  flipped_output(d, 1, 210, o);
  int32_t *med = (int32_t *)(o + l.medoids);
  med[2] = med[2] == 6 ? 207 : 6;
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 1, "a far medoid passes as a flip");
  free(o);
  kmedoids_algorithm.instance_free(inst);
  /* no near tie on the path: a member that is not the medoid fails */
  inst = load_case(&c, "kmedoids n=60 k=3 sig_min=3 sig_max=6 classes=3 alpha_milli=200 iters=1 "
                       "ranks=1 dist=classes seed=11");
  if (!inst)
    return;
  d = inst->priv;
  l = km_out_layout(d->ds.n, d->cfg.k, d->cfg.iters);
  o = malloc(l.bytes);
  int32_t other = -1;
  for (int64_t i = 0; i < d->ds.n && other < 0; i++)
    if (d->res.assign[i] == 0 && i != d->res.medoids[0])
      other = (int32_t)i;
  flipped_output(d, 0, other, o);
  memset(&rep, 0, sizeof rep);
  EXPECT(kmedoids_algorithm.check(inst, o, &rep) == 1 && strstr(rep.why, "no near tie"),
         "another medoid on a path without a near tie: '%s'", rep.why);
  free(o);
  kmedoids_algorithm.instance_free(inst);
}

/* A near-tie flip in the middle of a path that comes back to the reference's end (gpu-check on an
 * H200, stop 47: v2_gpu and mpi_gpu took the runner-up of cluster 1's update after step 1, 88
 * members scoring 1.9e-5 apart, reported objective[2] = 34.992894482 against the reference's
 * 34.8774086206, and ended on the reference's medoids and assignment): that output passes; an
 * objective before the path's first near tie, the final objective, or any objective of a path
 * without a near tie that differs as much fails. */
static void expect_objective(const char *text, int t, double value, int want, const char *why)
{
  struct ref_fixture f;
  if (fixture_load(&f, text))
    return;
  double *obj = (double *)(f.o + f.l.objective);
  EXPECT(f.d->res.steps == 4, "%s: the reference took %d steps, not 4", text, f.d->res.steps);
  obj[t] = value > 0 ? value : obj[t] * 1.01; /* value 0: 1% above the reference's */
  struct gr_check_report rep;
  memset(&rep, 0, sizeof rep);
  int got = kmedoids_algorithm.check(f.inst, f.o, &rep);
  EXPECT(got == want && (!want || strstr(rep.why, why)),
         "%s, objective[%d] = %.12g: check %d "
         "('%s'), expected %d%s%s",
         text, t, obj[t], got, rep.why, want, want ? " with " : "", want ? why : "");
  fixture_free(&f);
}

static void test_check_flip_and_back(void)
{
  const char *tie = "kmedoids n=462 k=4 sig_min=8 sig_max=14 classes=1 alpha_milli=49 iters=3 "
                    "ranks=1 dist=classes seed=42750159202324";
  expect_objective(tie, 2, 34.992894482, 0, NULL); /* the H200's output */
  expect_objective(tie, 1, 0, 1, "before the reference's first near tie");
  expect_objective(tie, 0, 0, 1, "before the reference's first near tie");
  expect_objective(tie, 3, 0, 1, "reported objective"); /* the end is the reference's */
  expect_objective("kmedoids n=60 k=3 sig_min=3 sig_max=6 classes=3 alpha_milli=200 iters=3 "
                   "ranks=1 dist=classes seed=11",
                   2, 0, 1, "no near tie to flip");
}

/* The GPU variants on the one lifecycle (km_lifecycle.c), with no GPU: v1_racy_score and v2_gpu
 * run through gr_gpu_lifecycle_run with their score launcher as impl, the mpi_* variants keep
 * their own runs, the table has no bench_* hooks of its own, and the lifecycle's setup declines
 * mpi_gpu (the timing's call) with its reason before touching the device. A host-only build has
 * neither the lifecycle nor GPU runs. */
static void test_lifecycle_table(void)
{
  const struct gr_algorithm *a = &kmedoids_algorithm;
  const struct gr_variant *v1 = gr_alg_variant(a, "v1_racy_score"), *v2 = gr_alg_variant(a, "v2_gpu"),
                          *mg = gr_alg_variant(a, "mpi_gpu"), *mc = gr_alg_variant(a, "mpi_cpu");
  EXPECT(v1 && v2 && mg && mc, "a variant is missing from the table");
  if (!v1 || !v2 || !mg || !mc)
    return;
  EXPECT(!a->bench_setup && !a->bench_launch && !a->bench_fetch && !a->bench_teardown,
         "kmedoids keeps timing hooks of its own beside its lifecycle");
  EXPECT(mg->run && mc->run && mg->run != v2->run && !mg->impl && !mc->impl,
         "the mpi_* variants should keep their own runs and no launcher");
#ifdef GR_HOST_ONLY
  EXPECT(!a->gpu && !v1->run && !v2->run, "a host-only build has GPU runs");
#else
  const struct gr_gpu_lifecycle *lc = a->gpu;
  EXPECT(lc == &km_lifecycle, "kmedoids' .gpu is not km_lifecycle");
  EXPECT(v1->run == gr_gpu_lifecycle_run && v2->run == gr_gpu_lifecycle_run && v1->impl &&
             v2->impl && v1->impl != v2->impl,
         "v1_racy_score and v2_gpu should run through gr_gpu_lifecycle_run with their launchers");
  if (!lc)
    return;
  EXPECT(lc->setup && lc->launch && lc->fetch && lc->teardown && lc->run,
         "the lifecycle lacks a step (run: the engine's iterations)");
  struct gr_case c;
  struct gr_instance *inst = load_case(&c, "kmedoids n=20 k=3 sig_min=2 sig_max=4 classes=2 "
                                           "alpha_milli=200 iters=4 ranks=2 dist=classes seed=3");
  if (!inst)
    return;
  struct gr_gpu_case g;
  memset(&g, 0, sizeof g);
  g.variant = mg;
  g.inst = inst;
  g.bench = 1;
  EXPECT(lc->setup(&g) == GR_RUN_UNSUPPORTED && strstr(g.why, "kmedoids_mpi --time") && !g.state,
         "the lifecycle's setup of mpi_gpu should decline with its reason: '%s'", g.why);
  a->instance_free(inst);
#endif
}

int main(void)
{
  test_parallel_terms();
  test_sqfd_known();
  test_sqfd_properties();
  test_reference_known();
  test_generator();
  test_loader();
  test_split();
  test_engine_cpu();
  test_engine_limit();
  test_check_fails();
  test_check_sampled();
  test_check_near_tie();
  test_check_medoid_flip();
  test_check_flip_and_back();
  test_generated_cases();
  test_lifecycle_table();
  if (test_failures) {
    printf("%d failure(s)\n", test_failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
