/* Unit tests of the sgm pieces that run anywhere: the CPU reference against known answers (census
 * bit order and border rule, hand-computed aggregation, tie-breaking, the L <= Cmax + P2 bound,
 * quality on a random-dot stereogram), the stereo generator, the PGM reader's rejections, the
 * case generator's promises, and the checker catching a corrupted output.
 *
 *   test_sgm        exit 0 when every test passes, 1 otherwise (each failure printed) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algorithms/sgm/sgm.h"
#include "algorithms/sgm/sgm_alg.h"
#include "case.h"
#include "datasets/pgm.h"
#include "datasets/stereo.h"
#include "algorithms/sgm/sgm_ref.h"
#include "registry.h"
#include "test_util.h"

/* census --------------------------------------------------------------------------------------- */

/* Census by an independent route: pad the image by replication first, then compare without any
 * clamping. */
static uint32_t census_padded(const uint8_t *img, int w, int h, int x, int y)
{
  uint8_t pad[7][9];
  for (int j = 0; j < 7; j++)
    for (int i = 0; i < 9; i++) {
      int xx = x + i - 4, yy = y + j - 3;
      xx = xx < 0 ? 0 : xx >= w ? w - 1 : xx;
      yy = yy < 0 ? 0 : yy >= h ? h - 1 : yy;
      pad[j][i] = img[yy * w + xx];
    }
  uint32_t code = 0;
  int k = 0;
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 9 && k < 31; i++, k++) {
      if (j == 3 && i >= 4)
        break;
      code = (code << 1) | (pad[j][i] >= pad[6 - j][8 - i]);
    }
  return code;
}

static void test_census(void)
{
  enum { W = 13, H = 11 };
  uint8_t inc[W * H], dec[W * H], one[W * H];
  uint32_t c[W * H];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      inc[y * W + x] = (uint8_t)(x + 10 * y);
      dec[y * W + x] = (uint8_t)(250 - x - 10 * y);
      one[y * W + x] = 0;
    }
  /* interior pixel of an increasing image: I(p + o) >= I(p - o) iff o points forward: never for
   * the offsets the census uses (all point up, or left on the centre row) */
  sgm_census(inc, W, H, c);
  EXPECT(c[5 * W + 6] == 0, "increasing image: census 0x%08x, want 0", c[5 * W + 6]);
  sgm_census(dec, W, H, c);
  EXPECT(c[5 * W + 6] == 0x7fffffffu, "decreasing image: census 0x%08x, want 0x7fffffff",
         c[5 * W + 6]);
  /* bit order: the first pair (dy=-3, dx=-4) is bit 30; make only its second pixel bright */
  one[(5 + 3) * W + (6 + 4)] = 200;
  sgm_census(one, W, H, c);
  EXPECT(c[5 * W + 6] == 0x3fffffffu, "bit order: census 0x%08x, want 0x3fffffff", c[5 * W + 6]);
  /* the last pair (dy=0, dx=-1) is bit 0 */
  memset(one, 0, sizeof one);
  one[5 * W + 7] = 200;
  sgm_census(one, W, H, c);
  EXPECT(c[5 * W + 6] == 0x7ffffffeu, "bit order: census 0x%08x, want 0x7ffffffe", c[5 * W + 6]);
  uint8_t px = 77;
  uint32_t c1;
  sgm_census(&px, 1, 1, &c1);
  EXPECT(c1 == 0x7fffffffu, "1x1 image: census 0x%08x, want 0x7fffffff", c1);
  /* every pixel, borders included, against the padded route on a random image */
  uint8_t rnd[W * H];
  for (int i = 0; i < W * H; i++)
    rnd[i] = (uint8_t)((i * 2654435761u) >> 13);
  sgm_census(rnd, W, H, c);
  int bad = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      bad += c[y * W + x] != census_padded(rnd, W, H, x, y);
  EXPECT(bad == 0, "%d pixels differ from the replicate-padded census", bad);
}

/* cost and aggregation ---------------------------------------------------------------------------
 */

static void test_cost(void)
{
  uint32_t cr[4] = {0x0, 0xffffffffu, 0x7fffffffu, 0x1};
  EXPECT(sgm_cost(0x7fffffffu, cr, 1, 1) == 31, "cost of 31 differing bits");
  EXPECT(sgm_cost(0x3u, cr, 3, 0) == 1, "cost of 1 differing bit");
  EXPECT(sgm_cost(0x0u, cr, 1, 2) == SGM_COST_OUTSIDE, "x - d < 0 must cost %d", SGM_COST_OUTSIDE);
  EXPECT(SGM_COST_OUTSIDE == 31, "outside cost is Cmax");
}

/* Costs of a 3-pixel line, D = 3, P1 = 2, P2 = 6; L computed by hand:
 * left-right: [5 0 9] -> [2 7 5] (m=0) -> [4 6 3] (m=2)
 * right-left: [4 4 0] -> [4 9 3] (m=0) -> [6 2 9] (m=3) */
static const uint8_t line_cost[3][3] = {{5, 0, 9}, {0, 7, 3}, {4, 4, 0}};
static const uint16_t want_lr[3][3] = {{5, 0, 9}, {2, 7, 5}, {4, 6, 3}};
static const uint16_t want_rl[3][3] = {{6, 2, 9}, {4, 9, 3}, {4, 4, 0}};

static void test_aggregate_known(void)
{
  uint8_t cost[9];
  uint16_t L[27];
  memcpy(cost, line_cost, 9);
  sgm_aggregate_path(cost, 3, 1, 3, 1, 0, 2, 6, L);
  EXPECT(memcmp(L, want_lr, sizeof want_lr) == 0,
         "left-right: got [%u %u %u] [%u %u %u] [%u %u %u]", L[0], L[1], L[2], L[3], L[4], L[5],
         L[6], L[7], L[8]);
  sgm_aggregate_path(cost, 3, 1, 3, -1, 0, 2, 6, L);
  EXPECT(memcmp(L, want_rl, sizeof want_rl) == 0,
         "right-left: got [%u %u %u] [%u %u %u] [%u %u %u]", L[0], L[1], L[2], L[3], L[4], L[5],
         L[6], L[7], L[8]);
  /* the same line as a column (top-down) and as the diagonal of a 3x3 image (path 4) */
  sgm_aggregate_path(cost, 1, 3, 3, 0, 1, 2, 6, L);
  EXPECT(memcmp(L, want_lr, sizeof want_lr) == 0, "top-down differs from left-right");
  uint8_t c33[27];
  for (int i = 0; i < 27; i++)
    c33[i] = (uint8_t)(i * 7 % 13);
  for (int t = 0; t < 3; t++)
    memcpy(c33 + (t * 3 + t) * 3, line_cost[t], 3);
  sgm_aggregate_path(c33, 3, 3, 3, 1, 1, 2, 6, L);
  int bad = 0;
  for (int t = 0; t < 3; t++)
    bad += memcmp(L + (t * 3 + t) * 3, want_lr[t], 6) != 0;
  EXPECT(bad == 0, "diagonal (1,1): %d of 3 pixels differ", bad);
  /* path 5 (-1,-1) walks the same diagonal backwards: the right-left answer */
  sgm_aggregate_path(c33, 3, 3, 3, -1, -1, 2, 6, L);
  bad = 0;
  for (int t = 0; t < 3; t++)
    bad += memcmp(L + (t * 3 + t) * 3, want_rl[t], 6) != 0;
  EXPECT(bad == 0, "diagonal (-1,-1): %d of 3 pixels differ", bad);
}

static void test_bounds_random(void)
{
  enum { W = 41, H = 29, D = 37 };
  uint8_t *cost = malloc(W * H * D);
  uint16_t *L = malloc(W * H * D * sizeof *L);
  for (int i = 0; i < W * H * D; i++)
    cost[i] = (uint8_t)((i * 2654435761u >> 11) % 32);
  int p2s[] = {0, 7, 120, 1000};
  for (int pi = 0; pi < 4; pi++)
    for (int r = 0; r < SGM_MAX_PATHS; r++) {
      sgm_aggregate_path(cost, W, H, D, sgm_path_dx[r], sgm_path_dy[r], 10, p2s[pi], L);
      int bad = 0;
      for (int i = 0; i < W * H * D; i++)
        bad += L[i] < cost[i] || L[i] > cost[i] + p2s[pi];
      EXPECT(bad == 0, "path %d, P2 %d: %d values outside [C, C + P2]", r, p2s[pi], bad);
    }
  free(cost);
  free(L);
}

static void test_pipeline(void)
{
  enum { W = 16, H = 8 };
  uint8_t img[W * H];
  memset(img, 90, sizeof img);
  uint16_t disp[W * H], smin[W * H];
  struct sgm_params p = {W, H, 5, 8, 10, 120};
  EXPECT(sgm_reference(&p, img, img, disp, smin, NULL) == 0, "reference failed");
  int nonzero = 0;
  for (int i = 0; i < W * H; i++)
    nonzero += disp[i] != 0;
  EXPECT(nonzero == 0, "constant image: %d disparities are not the lowest tied d = 0", nonzero);
  struct sgm_params bad = p;
  bad.p2 = 8160;
  bad.paths = 8;
  EXPECT(sgm_reference(&bad, img, img, disp, smin, NULL) == 0, "p2 = 8160 with 8 paths is valid");
  bad.p2 = 8161;
  EXPECT(sgm_reference(&bad, img, img, disp, smin, NULL) == -1, "p2 = 8161 with 8 paths overflows");
  bad = p;
  bad.disp = 0;
  EXPECT(sgm_reference(&bad, img, img, disp, smin, NULL) == -1, "D = 0 is invalid");
}

/* The reference recovers a random-dot scene: the pipeline is wired right end to end. */
static void test_quality(void)
{
  enum { W = 200, H = 150, D = 48 };
  uint8_t *l = malloc(W * H), *r = malloc(W * H);
  int16_t *gt = malloc(W * H * sizeof *gt);
  uint16_t *disp = malloc(W * H * sizeof *disp), *smin = malloc(W * H * sizeof *smin);
  uint16_t *paths = malloc((size_t)8 * W * H * D * sizeof *paths);
  EXPECT(stereo_generate(W, H, D, STEREO_RANDOMDOT, 12345, l, r, gt) == 0, "generate");
  for (int np = 4; np <= 8; np += 4) {
    struct sgm_params p = {W, H, D, np, 10, 120};
    EXPECT(sgm_reference(&p, l, r, disp, smin, paths) == 0, "reference");
    size_t valid;
    double rate = stereo_bad_pixel_rate(disp, gt, W * H, 1, &valid);
    printf("random-dot %dx%d D=%d %d paths: bad-pixel rate %.4f over %zu pixels\n", W, H, D, np,
           rate, valid);
    EXPECT(valid > W * H / 2, "too few pixels with a ground truth: %zu", valid);
    EXPECT(rate < 0.05, "%d paths: bad-pixel rate %.4f, want < 0.05", np, rate);
    /* smin is the sum of the path costs at the winner */
    int bad = 0;
    for (int i = 0; i < W * H; i++) {
      unsigned s = 0;
      for (int q = 0; q < np; q++)
        s += paths[((size_t)q * W * H + i) * D + disp[i]];
      bad += s != smin[i];
    }
    EXPECT(bad == 0, "%d pixels: smin is not the sum of the path costs at the winner", bad);
    /* without the per-path output the same answer */
    uint16_t *d2 = malloc(W * H * sizeof *d2), *s2 = malloc(W * H * sizeof *s2);
    EXPECT(sgm_reference(&p, l, r, d2, s2, NULL) == 0, "reference without path costs");
    EXPECT(!memcmp(d2, disp, W * H * sizeof *d2) && !memcmp(s2, smin, W * H * sizeof *s2),
           "%d paths: the answer changes when the path costs are not asked for", np);
    free(d2);
    free(s2);
  }
  free(l);
  free(r);
  free(gt);
  free(disp);
  free(smin);
  free(paths);
}

/* stereo generator
 * --------------------------------------------------------------------------------- */

static void test_stereo(void)
{
  enum { W = 97, H = 61, D = 33 };
  uint8_t l1[W * H], r1[W * H], l2[W * H], r2[W * H];
  int16_t g1[W * H], g2[W * H];
  for (int content = 0; content <= STEREO_NOISE; content++) {
    stereo_generate(W, H, D, (enum stereo_content)content, 7, l1, r1, g1);
    stereo_generate(W, H, D, (enum stereo_content)content, 7, l2, r2, g2);
    EXPECT(!memcmp(l1, l2, sizeof l1) && !memcmp(r1, r2, sizeof r1) && !memcmp(g1, g2, sizeof g1),
           "content %d: same seed, different images", content);
    int bad = 0, valid = 0;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        int d = g1[y * W + x];
        if (d < -1 || d >= D) {
          bad++;
          continue;
        }
        if (d < 0)
          continue;
        valid++;
        bad += x - d < 0 || r1[y * W + x - d] != l1[y * W + x];
      }
    EXPECT(bad == 0, "content %d: %d ground-truth pixels out of range or not matching", content,
           bad);
    if (content == STEREO_NOISE)
      EXPECT(valid == 0, "noise has no ground truth, %d pixels claim one", valid);
    else
      EXPECT(valid > W * H / 2, "content %d: only %d pixels with a ground truth", content, valid);
  }
  stereo_generate(W, H, D, STEREO_RANDOMDOT, 8, l2, r2, g2);
  EXPECT(memcmp(l1, l2, sizeof l1) != 0, "different seeds, same image");
  stereo_generate(W, H, D, STEREO_CONSTANT, 9, l1, r1, g1);
  int varied = 0;
  for (int i = 1; i < W * H; i++)
    varied += l1[i] != l1[0] || r1[i] != l1[0];
  EXPECT(varied == 0, "constant content varies at %d pixels", varied);
  EXPECT(stereo_generate(0, 5, 4, STEREO_NOISE, 1, l1, r1, g1) == -1, "w = 0 accepted");
  uint16_t disp[4] = {3, 5, 9, 0};
  int16_t gt[4] = {3, 4, 7, -1};
  size_t v;
  double rate = stereo_bad_pixel_rate(disp, gt, 4, 1, &v);
  EXPECT(v == 3 && rate > 0.33 && rate < 0.34, "bad-pixel rate %.3f over %zu, want 1/3 over 3",
         rate, v);
}

/* PGM
 * ------------------------------------------------------------------------------------------------
 */

static enum pgm_status parse_text(const char *text, size_t n, uint8_t **px, int *w, int *h,
                                  char *why, size_t len)
{
  return pgm_parse((const unsigned char *)text, n, "t.pgm", px, w, h, why, len);
}

static void test_pgm(void)
{
  char path[] = "/tmp/test_sgm_XXXXXX";
  int fd = mkstemp(path);
  EXPECT(fd >= 0, "mkstemp");
  close(fd);
  uint8_t img[6] = {0, 1, 2, 253, 254, 255}, *px = NULL;
  char why[512];
  int w = 0, h = 0;
  EXPECT(pgm_write(path, img, 3, 2, why, sizeof why) == PGM_OK, "write: %s", why);
  EXPECT(pgm_read(path, &px, &w, &h, why, sizeof why) == PGM_OK, "read back: %s", why);
  EXPECT(px && w == 3 && h == 2 && !memcmp(px, img, 6), "round trip differs");
  free(px);
  remove(path);
  EXPECT(pgm_read(path, &px, &w, &h, why, sizeof why) == PGM_ERR_IO && px == NULL,
         "missing file not reported as an I/O error");

  /* a header with comments and odd spacing is fine */
  const char ok[] = "P5 # a comment\n 2\t# width\n2\n200\n\x01\x02\x03\xc8";
  EXPECT(parse_text(ok, sizeof ok - 1, &px, &w, &h, why, sizeof why) == PGM_OK, "comments: %s",
         why);
  EXPECT(px && w == 2 && h == 2 && px[3] == 200, "comments: wrong pixels");
  free(px);

  static const struct {
    const char *text;
    size_t n; /* 0: strlen */
    enum pgm_status want;
    const char *says; /* a word the message must contain */
  } bad[] = {
      {"", 0, PGM_ERR_MAGIC, "P5"},
      {"P6\n2 2\n255\n0123456789ab", 0, PGM_ERR_MAGIC, "P5"},
      {"P2\n2 2\n255\n1 2 3 4\n", 0, PGM_ERR_MAGIC, "ASCII"},
      {"P52 2 255\n0000", 0, PGM_ERR_MAGIC, "whitespace"},
      {"P5\n", 0, PGM_ERR_HEADER, "width"},
      {"P5\n2", 0, PGM_ERR_HEADER, "width"},
      {"P5\n2 x 255\n0000", 0, PGM_ERR_HEADER, "height"},
      {"P5\n2 2\n", 0, PGM_ERR_HEADER, "maxval"},
      {"P5\n2 2 -255\n0000", 0, PGM_ERR_HEADER, "maxval"},
      {"P5\n2 2 25x\n0000", 0, PGM_ERR_HEADER, "maxval"},
      {"P5\n2 2 255#c\n0000", 0, PGM_ERR_HEADER, "comment"},
      {"P5\n0 2\n255\n", 0, PGM_ERR_SIZE, "size"},
      {"P5\n2 70000\n255\n00", 0, PGM_ERR_SIZE, "size"},
      {"P5\n99999999999999999999 2\n255\n00", 0, PGM_ERR_SIZE, "size"},
      {"P5\n2 2\n0\n\0\0\0\0", 17, PGM_ERR_MAXVAL, "maxval"},
      {"P5\n2 2\n65535\n00000000", 0, PGM_ERR_MAXVAL, "16-bit"},
      {"P5\n2 2\n255\n012", 0, PGM_ERR_TRUNCATED, "truncated"},
      {"P5\n2 2\n255\n", 0, PGM_ERR_TRUNCATED, "truncated"},
      {"P5\n2 2\n255\n01234", 0, PGM_ERR_TRAILING, "after"},
      {"P5\n2 2\n100\n\x01\x02\x03\x65", 0, PGM_ERR_PIXEL, "above maxval"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    size_t n = bad[i].n ? bad[i].n : strlen(bad[i].text);
    why[0] = 0;
    px = (uint8_t *)1;
    enum pgm_status st = parse_text(bad[i].text, n, &px, &w, &h, why, sizeof why);
    EXPECT(st == bad[i].want, "case %zu: status %d, want %d (%s)", i, st, bad[i].want, why);
    EXPECT(px == NULL, "case %zu: pixels allocated on failure", i);
    EXPECT(strstr(why, bad[i].says) != NULL, "case %zu: message '%s' does not say '%s'", i, why,
           bad[i].says);
    EXPECT(strstr(why, "t.pgm") != NULL || st == PGM_ERR_MAGIC,
           "case %zu: message '%s' does not name the file", i, why);
  }
  /* a truncated file on disk */
  strcpy(path, "/tmp/test_sgm_XXXXXX");
  fd = mkstemp(path);
  EXPECT(fd >= 0, "mkstemp");
  if (fd < 0)
    return;
  FILE *f = fdopen(fd, "wb");
  fputs("P5\n4 4\n255\nabc", f);
  fclose(f);
  EXPECT(pgm_read(path, &px, &w, &h, why, sizeof why) == PGM_ERR_TRUNCATED && strstr(why, path),
         "truncated file: '%s'", why);
  remove(path);
}

/* case generator and checker
 * -------------------------------------------------------------------------- */

static void test_cases_generated(void)
{
  const struct gr_algorithm *a = registry_find("sgm");
  EXPECT(a != NULL, "sgm is not registered");
  if (!a)
    return;
  int odd = 0, big = 0, n = 600, over = 0;
  char text[GR_CASE_TEXT_LEN], why[GR_WHY_LEN];
  for (int i = 0; i < n; i++) {
    struct gr_case c, back;
    case_generate(a, 3, (uint64_t)i, NULL, &c);
    int64_t cells = case_get(&c, "w") * case_get(&c, "h") * case_get(&c, "d");
    odd += case_get(&c, "d") % 32 != 0;
    big += cells > 2000000;
    over += cells > 20000000; /* SGM_LARGE: the large cases past 2^24 */
    case_format(&c, text, sizeof text);
    EXPECT(case_parse(text, &back, why, sizeof why) == 0 && back.seed == c.seed &&
               !memcmp(back.v, c.v, sizeof c.v),
           "'%s' does not round-trip: %s", text, why);
  }
  EXPECT(odd > n * 6 / 10, "only %d of %d cases have D %% 32 != 0", odd, n);
  EXPECT(big < n / 10 && over == 0, "%d cases above the budget, %d above 2e7 cells", big, over);
  for (int i = 0; a->bench_cases[i]; i++) {
    struct gr_case c;
    int rc = case_parse(a->bench_cases[i], &c, why, sizeof why);
    /* -2: a real pair whose dataset is not fetched (scripts/datasets) */
    EXPECT(rc == 0 || (rc == -2 && strstr(a->bench_cases[i], "=data:")), "bench case '%s': %s",
           a->bench_cases[i], why);
  }
}

/* The checker passes the reference and names what is wrong in a corrupted copy. */
static void test_checker(void)
{
  const struct gr_algorithm *a = registry_find("sgm");
  struct gr_case c;
  char why[GR_WHY_LEN];
  EXPECT(case_parse("sgm w=23 h=9 d=33 p1=10 p2=120 paths=8 content=randomdot seed=5", &c, why,
                    sizeof why) == 0,
         "%s", why);
  struct gr_instance *inst;
  EXPECT(a->instance_new(&c, &inst, why, sizeof why) == 0, "%s", why);
  const struct gr_variant *ref = gr_alg_variant(a, "reference");
  uint16_t *out = malloc(inst->out_bytes);
  struct gr_run_ctx ctx = {0};
  EXPECT(ref->run(ref, inst, out, &ctx) == GR_RUN_OK, "reference run");
  struct gr_check_report rep;
  memset(&rep, 0, sizeof rep);
  EXPECT(a->check(inst, out, &rep) == 0, "reference fails its own check: %s", rep.why);
  size_t n = 23 * 9, cell = 2 * n + ((size_t)2 * n + 3 * 23 + 4) * 33 + 7; /* path 2, (4,3), d=7 */
  out[cell] += 1;
  memset(&rep, 0, sizeof rep);
  EXPECT(a->check(inst, out, &rep) == 1 && strstr(rep.why, "path 2 (top-down) at (x=4, y=3, d=7)"),
         "corrupted path cost: '%s'", rep.why);
  out[cell] = 9999;
  memset(&rep, 0, sizeof rep);
  EXPECT(a->check(inst, out, &rep) == 1 && !strcmp(rep.tag, "bounds"), "cost above the bound: '%s'",
         rep.why);
  ref->run(ref, inst, out, &ctx);
  out[5] = 33;
  memset(&rep, 0, sizeof rep);
  EXPECT(a->check(inst, out, &rep) == 1 && !strcmp(rep.tag, "bounds") &&
             strstr(rep.why, "(x=5, y=0)"),
         "disparity out of range: '%s'", rep.why);
  free(out);
  a->instance_free(inst);
}

/* v6's last-kernel ring (sgm.h: sgm_v6_ring, sgm_warp_pick_k): for every D, paths and element
 * size, the ring fits the warp's share, is the largest shape of the list that does, and the
 * shapes the sizes take are the documented ones. */
static void test_v6_ring(void)
{
  static const int shapes[][2] = {{4, 4}, {2, 4}, {1, 4}, {1, 2}}; /* (CH, NB), largest first */
  int seen[4] = {0};
  for (int D = 1; D <= SGM_MAX_DISP; D++)
    for (int paths = 4; paths <= 8; paths += 4)
      for (int es = 1; es <= 2; es++) {
        const int K = sgm_warp_pick_k(D), px = 32 * K * es * (paths - 1);
        int ch = 0, nb = 0, i;
        if (sgm_v6_ring(px, SGM_V6_RING_WARP_BYTES, &ch, &nb)) {
          printf("FAIL v6 ring: D %d paths %d element %d: no shape for %d bytes\n", D, paths, es,
                 px);
          test_failures++;
          return;
        }
        for (i = 0; i < 4 && (shapes[i][0] != ch || shapes[i][1] != nb); i++)
          ;
        if (i == 4 || 32 * K < D || ch * nb * px > SGM_V6_RING_WARP_BYTES ||
            (i > 0 && shapes[i - 1][0] * shapes[i - 1][1] * px <= SGM_V6_RING_WARP_BYTES)) {
          printf("FAIL v6 ring: D %d paths %d element %d: K %d, (CH %d, NB %d) for %d bytes a "
                 "pixel\n",
                 D, paths, es, K, ch, nb, px);
          test_failures++;
          return;
        }
        seen[i]++;
      }
  for (int i = 0; i < 4; i++)
    EXPECT(seen[i] > 0, "v6 ring: shape %d (CH %d, NB %d) taken by some D", i, shapes[i][0],
           shapes[i][1]);
  /* two blocks of 8 warps and their line tiles fit an H100/H200 SM (227 KiB a block at most) */
  EXPECT(2 * 8 * SGM_V6_RING_WARP_BYTES <= 227 * 1024, "v6 ring: two blocks an SM");
  int ch, nb;
  sgm_v6_ring(32 * 4 * 7, SGM_V6_RING_WARP_BYTES, &ch, &nb); /* 1920x1080 D=128 8 paths, 8-bit */
  EXPECT(ch == 4 && nb == 4, "v6 ring: D 128 8 paths 8-bit is (4, 4), got (%d, %d)", ch, nb);
  sgm_v6_ring(32 * 8 * 7, SGM_V6_RING_WARP_BYTES, &ch, &nb); /* 2964x2000 D=256 */
  EXPECT(ch == 2 && nb == 4, "v6 ring: D 256 8 paths 8-bit is (2, 4), got (%d, %d)", ch, nb);
  sgm_v6_ring(32 * 9 * 7, SGM_V6_RING_WARP_BYTES, &ch, &nb); /* D=270 */
  EXPECT(ch == 1 && nb == 4, "v6 ring: D 270 8 paths 8-bit is (1, 4), got (%d, %d)", ch, nb);
  sgm_v6_ring(32 * 16 * 2 * 7, SGM_V6_RING_WARP_BYTES, &ch, &nb); /* D=512 16-bit */
  EXPECT(ch == 1 && nb == 2, "v6 ring: D 512 8 paths 16-bit is (1, 2), got (%d, %d)", ch, nb);
  /* a GPU of 99 KiB a block (RTX 30xx/40xx, L4): smaller rings, and none for the largest pixels */
  const int small = 99 * 1024 / 8;
  EXPECT(sgm_v6_ring(32 * 4 * 7, small, &ch, &nb) == 0 && ch == 2 && nb == 4,
         "v6 ring: D 128 8 paths within %d bytes is (2, 4), got (%d, %d)", small, ch, nb);
  EXPECT(sgm_v6_ring(32 * 16 * 2 * 7, small, &ch, &nb) == -1 && ch == 0 && nb == 0,
         "v6 ring: D 512 16-bit 8 paths within %d bytes: none, got (%d, %d)", small, ch, nb);
}

int main(void)
{
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_census();
  test_cost();
  test_aggregate_known();
  test_bounds_random();
  test_pipeline();
  test_quality();
  test_stereo();
  test_pgm();
  test_cases_generated();
  test_checker();
  test_v6_ring();
  if (test_failures) {
    printf("%d failures\n", test_failures);
    return 1;
  }
  printf("all sgm unit tests passed\n");
  return 0;
}
