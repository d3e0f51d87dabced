/* The sgm algorithm's table: parameters, variants, boundary-biased generator, instance (a
 * synthetic stereo pair with ground truth + the reference, computed on first use), checker,
 * work model and timing sweep.
 *
 * Output layout (uint16, every element written by every run):
 *   disp[w*h]  the disparity map, row-major
 *   smin[w*h]  S at the chosen disparity (the summed cost of the winner)
 *   path[paths*w*h*D]  every path's aggregated cost L_r, ((r*h + y)*w + x)*D + d, present only
 *              when paths*w*h*D <= SGM_PATH_OUT_LIMIT (2^23 values, 16 MiB)
 * Small cases therefore compare every L_r exactly (where the v1 bug shows first: every L too
 * large by the true minimum); large ones compare the disparity map and the winner's summed cost,
 * which the bug changes too. All comparisons are exact: integer arithmetic throughout.
 *
 * Invariants checked on every output: disparities in [0, D); every L_r <= 31 + P2 (layout with
 * paths); smin <= paths * (31 + P2). The bad-pixel rate against the ground truth (|d - gt| > 1
 * over pixels that have one) is the err metric for random-dot content and for real pairs with a
 * ground truth: reported, not asserted (tiny or extreme cases are legitimately poor); other
 * contents report 0. The same cases report accuracy metrics (stored by bench, compared night by
 * night): bad1 and bad2 (|d - gt| > 1 and > 2 px over pixels with a ground truth) and, for real
 * pairs, bad1_nonocc and bad2_nonocc over the pixels visible in the right view
 * (stereo_nonoccluded: the ground truth warped, nearest surface wins).
 *
 * Real pairs: `left=PGM right=PGM [gt=PGM]` (GR_PARAM_FILE, "data:REL" in the dataset directory
 * that scripts/datasets fills) replace the generated content: w and h come from the images and
 * content is "file". The ground truth is 8-bit, the left view's disparity in pixels, 0 unknown
 * (Middlebury's convention at full size).
 *
 * Cost: fixup keeps w*h*D <= 2e6 (the reference then takes about 0.1 s), except one case in 32
 * (by seed) allowed SGM_LARGE cells, past 2^24 (the limit regime "W*H*D > 2^24"). */
#include "sgm_alg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/check.h>
#include <gpuregress/util.h>
#include "datasets/pgm.h"
#include "sgm.h"

#define SGM_BUDGET 2000000 /* w*h*D of a generated case */
#define SGM_LARGE 20000000 /* ... of one case in 32 (by seed): past 2^24 = 16,777,216 */

static const char *const path_names[] = {"4", "8", NULL};
static const char *const content_names[] = {"constant", "gradient", "randomdot",
                                            "noise",    "file",     NULL};
#define SGM_CONTENT_FILE 4 /* the stereo pair comes from left= and right= */

enum { P_W, P_H, P_D, P_P1, P_P2, P_PATHS, P_CONTENT, P_LEFT, P_RIGHT, P_GT };
static const struct gr_param_spec sgm_params[] = {
    [P_W] = {"w", GR_PARAM_INT, 1, 8192, NULL, "image width"},
    [P_H] = {"h", GR_PARAM_INT, 1, 8192, NULL, "image height"},
    [P_D] = {"d", GR_PARAM_INT, 1, SGM_MAX_DISP, NULL,
             "disparity range D (0 .. D-1): the k of sgm"},
    [P_P1] = {"p1", GR_PARAM_INT, 0, 255, NULL, "penalty for a disparity change of 1"},
    [P_P2] = {"p2", GR_PARAM_INT, 0, 8160, NULL,
              "penalty for a larger change (31 + p2 > 255: 16-bit paths)"},
    [P_PATHS] = {"paths", GR_PARAM_ENUM, 0, 0, path_names, "aggregation paths"},
    [P_CONTENT] = {"content", GR_PARAM_ENUM, 0, 0, content_names,
                   "image content (file: the pair given by left= and right=)"},
    [P_LEFT] = {"left", GR_PARAM_FILE, 0, 0, NULL, "left image, 8-bit PGM"},
    [P_RIGHT] = {"right", GR_PARAM_FILE, 0, 0, NULL, "right image, 8-bit PGM, the left's size"},
    [P_GT] = {"gt", GR_PARAM_FILE, 0, 0, NULL,
              "ground truth, 8-bit PGM: left-view disparity in pixels, 0 unknown"},
};

static void case_params(const struct gr_case *c, struct sgm_params *p)
{
  p->width = (int)c->v[P_W];
  p->height = (int)c->v[P_H];
  p->disp = (int)c->v[P_D];
  p->p1 = (int)c->v[P_P1];
  p->p2 = (int)c->v[P_P2];
  p->paths = c->v[P_PATHS] ? 8 : 4;
}

static size_t out_values(const struct sgm_params *p, int *per_path)
{
  size_t n = (size_t)p->width * p->height, paths = n * p->disp * p->paths;
  *per_path = paths <= SGM_PATH_OUT_LIMIT;
  return 2 * n + (*per_path ? paths : 0);
}

const uint16_t *sgm_data_reference(struct sgm_data *d)
{
  if (d->ref)
    return d->ref;
  int per_path;
  size_t values = out_values(&d->prm, &per_path), n = (size_t)d->prm.width * d->prm.height;
  uint16_t *ref = malloc(values * sizeof *ref);
  if (!ref)
    return NULL;
  if (sgm_reference(&d->prm, d->left, d->right, ref, ref + n, per_path ? ref + 2 * n : NULL)) {
    free(ref);
    return NULL;
  }
  d->ref = ref;
  return ref;
}

/* reference "variant": the CPU reference itself, checked against the invariants */
static enum gr_run_status sgm_run_reference(const struct gr_variant *v,
                                            const struct gr_instance *inst, void *out,
                                            struct gr_run_ctx *ctx)
{
  (void)v;
  const struct sgm_data *d = inst->priv;
  size_t n = (size_t)d->prm.width * d->prm.height;
  uint16_t *o = out;
  if (sgm_reference(&d->prm, d->left, d->right, o, o + n, d->per_path ? o + 2 * n : NULL)) {
    gr_fmt(ctx->why, sizeof ctx->why, "reference: out of host memory");
    return GR_RUN_ERROR;
  }
  return GR_RUN_OK;
}

/* ---- regimes: the code paths the fuzzer must reach ----------------------------------------- */

GR_REGIME_PREDICATE(d_whole_warps, c->v[P_D] % 32 == 0)
GR_REGIME_PREDICATE(d_partial_warp, c->v[P_D] % 32 != 0)
GR_REGIME_PREDICATE(d_large, c->v[P_D] > 256)
GR_REGIME_PREDICATE(eight_paths, c->v[P_PATHS] == 1)
/* v3/v4 keep L in 8 bits while 31 + P2 <= 255, else in 16 */
GR_REGIME_PREDICATE(wide_paths, 31 + c->v[P_P2] > 255)
/* v5's last kernel loads up to 8 pixels ahead: a row no longer than its ring (prologue and end) */
GR_REGIME_PREDICATE(short_rows, c->v[P_W] <= 8)
/* v5 puts the left-right blocks first in the multi-path grid on wide images */
GR_REGIME_PREDICATE(wide_image, 5 * c->v[P_W] >= 8 * c->v[P_H])
/* v6's last-kernel ring on an H100/H200 (sgm_v6_ring): chunks of 2 pixels, of 1, and 2 slots
 * of 1 */
static int v6_ring_of(const struct gr_case *c, const struct gr_instance *inst, int want)
{
  (void)inst;
  int ch = 0, nb = 0;
  const int px = 32 * sgm_warp_pick_k((int)c->v[P_D]) * (31 + c->v[P_P2] > 255 ? 2 : 1) *
                 (c->v[P_PATHS] == 1 ? 7 : 3);
  sgm_v6_ring(px, SGM_V6_RING_WARP_BYTES, &ch, &nb);
  return want == 2 ? ch == 2 : want == 1 ? ch == 1 && nb == 4 : nb == 2;
}
static int v6_ring_2(const struct gr_case *c, const struct gr_instance *inst)
{
  return v6_ring_of(c, inst, 2);
}
static int v6_ring_1(const struct gr_case *c, const struct gr_instance *inst)
{
  return v6_ring_of(c, inst, 1);
}
static int v6_ring_1x2(const struct gr_case *c, const struct gr_instance *inst)
{
  return v6_ring_of(c, inst, 0);
}
/* the cost volume past 2^24 cells (a float or 24-bit index loses cells) */
GR_REGIME_PREDICATE(cells_2_24, c->v[P_W] * c->v[P_H] * c->v[P_D] > (int64_t)1 << 24)

/* D in whole warps or not (v1's full-mask shuffle over a partial warp), D beyond 256 (more than
 * 8 disparities per lane), and the 8-path aggregation (the diagonals). */
static const struct gr_regime sgm_regimes[] = {
    {"D % 32 == 0", NULL, d_whole_warps, 0},
    {"D % 32 != 0", NULL, d_partial_warp, 0},
    {"D > 256", NULL, d_large, 0},
    {"8 paths", NULL, eight_paths, 0},
    {"16-bit path costs", "v3_warp_fused v4_packed_dpx v5_prefetch_wta v6_staged_ring", wide_paths,
     0},
    {"W <= 8", "v5_prefetch_wta v6_staged_ring", short_rows, 0},
    {"W >= 1.6 H", "v5_prefetch_wta v6_staged_ring", wide_image, 0},
    {"ring of 2-pixel chunks", "v6_staged_ring", v6_ring_2, 0},
    {"ring of 1-pixel chunks", "v6_staged_ring", v6_ring_1, 0},
    {"ring of 2 slots", "v6_staged_ring", v6_ring_1x2, 0},
    {"W*H*D > 2^24", NULL, cells_2_24, GR_REGIME_LIMIT},
};

static const struct gr_variant sgm_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, sgm_run_reference, NULL,
     "plain loops over a materialised cost volume, one row of L per path at a time"},
    {"v1_fullmask", GR_VARIANT_HISTORICAL, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(sgm_v1_fullmask_launch),
     "blockDim = D, full-mask __shfl_down_sync min: partial last warp reads 0 when D % 32 != 0"},
    {"v2_padded", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(sgm_v2_padded_launch),
     "block rounded up to a multiple of 32, padding lanes hold UINT16_MAX and write nothing"},
    {"v3_warp_fused", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(sgm_v3_warp_fused_launch),
     "warp per scan line, ceil(D/32) disparities per lane, cost fused, last path fused with WTA"},
    {"v4_packed_dpx", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(sgm_v4_packed_dpx_launch),
     "v3 with two disparities per register: 16x2 min/add (Hopper DPX); 1.2-1.4x v3 at D >= 256"},
    {"v5_prefetch_wta", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(sgm_v5_prefetch_wta_launch),
     "v4 with the last kernel reading the other paths up to 8 pixels ahead (it waited on DRAM),"
     " rows first where W >= 1.6 H"},
    {"v6_staged_ring", GR_VARIANT_FIXED, GR_VARIANT_GPU, GR_IF_CUDA(gr_gpu_lifecycle_run),
     GR_GPU(sgm_v6_staged_ring_launch),
     "v5 with line kernels of fewer instructions a step (staged a row a warp, window offsets"
     " fixed) and the last kernel's other paths in a shared-memory ring 8-12 pixels ahead"},
};

static void sgm_fixup(struct gr_case *c)
{
  if (c->v[P_CONTENT] == SGM_CONTENT_FILE) /* the images fix the size */
    return;
  int64_t budget = (c->seed & 31) == 0 ? SGM_LARGE : SGM_BUDGET;
  int64_t w = c->v[P_W], h = c->v[P_H], d = c->v[P_D];
  if (w * h * d > budget) { /* shrink both sides alike, keeping the shape, then h alone */
    double f = sqrt((double)budget / ((double)w * (double)h * (double)d));
    w = (int64_t)((double)w * f);
    h = (int64_t)((double)h * f);
    w = w < 1 ? 1 : w;
    h = h < 1 ? 1 : h;
    while (w * h * d > budget && h > 1)
      h = budget / (w * d) < h ? budget / (w * d) : h - 1;
    while (w * h * d > budget && w > 1)
      w = budget / d < w ? budget / d : w - 1;
    w = w < 1 ? 1 : w;
    h = h < 1 ? 1 : h;
  }
  c->v[P_W] = w;
  c->v[P_H] = h;
}

static void sgm_generate(struct gr_case *c, struct gr_rng *r)
{
  static const int64_t d_edges[] = {1,   2,   31,  32,  33,  63,  64,  65,  100, 127, 128,
                                    129, 255, 256, 257, 270, 288, 383, 384, 385, 511, 512};
  static const int64_t w_edges[] = {1,   2,   3,   5,    8,    9,    31,  32,  33,
                                    63,  64,  65,  127,  128,  129,  255, 256, 257,
                                    511, 631, 640, 1000, 1024, 1920, 2000};
  static const int64_t h_edges[] = {1,  2,  3,  4,  7,   8,   9,   15,   16,   17,
                                    31, 32, 33, 64, 100, 479, 480, 1000, 1080, 1500};
  int64_t d = gr_rng_boundary(r, 1, SGM_MAX_DISP, d_edges, sizeof d_edges / sizeof *d_edges, 0.6);
  if (d % 32 == 0 && gr_rng_chance(r, 0.6)) /* weight towards D % 32 != 0, where v1 breaks */
    d += d > 1 && gr_rng_chance(r, 0.5) ? -1 : 1;
  c->v[P_D] = d > SGM_MAX_DISP ? SGM_MAX_DISP - 1 : d;
  c->v[P_W] = gr_rng_boundary(r, 1, 2000, w_edges, sizeof w_edges / sizeof *w_edges, 0.5);
  c->v[P_H] = gr_rng_boundary(r, 1, 1500, h_edges, sizeof h_edges / sizeof *h_edges, 0.5);
  if (gr_rng_chance(r, 0.4)) {
    c->v[P_P1] = 10;
    c->v[P_P2] = 120;
  } else {
    static const int64_t p1_edges[] = {0, 1, 10, 255};
    static const int64_t p2_edges[] = {0, 1, 120, 224, 225, 1000, 8160};
    c->v[P_P1] = gr_rng_boundary(r, 0, 255, p1_edges, sizeof p1_edges / sizeof *p1_edges, 0.5);
    c->v[P_P2] = gr_rng_boundary(r, 0, 8160, p2_edges, sizeof p2_edges / sizeof *p2_edges, 0.6);
  }
  c->v[P_PATHS] = gr_rng_range(r, 0, 1);
  c->v[P_CONTENT] = gr_rng_chance(r, 0.5) ? STEREO_RANDOMDOT : gr_rng_range(r, 0, 3);
  if ((c->seed & 31) == 0 && gr_rng_chance(r, 0.5)) { /* large: just past 2^24 cells */
    int64_t cells = ((int64_t)1 << 24) + gr_rng_range(r, 1, SGM_LARGE - ((int64_t)1 << 24));
    c->v[P_W] = gr_rng_range(r, 640, 2000);
    c->v[P_H] = cells / (c->v[P_W] * c->v[P_D]) + 1;
    if (c->v[P_H] > 8192) { /* small D: the width takes the rest */
      c->v[P_H] = gr_rng_range(r, 1000, 8192);
      c->v[P_W] = cells / (c->v[P_H] * c->v[P_D]) + 1;
    }
    c->v[P_W] = c->v[P_W] > 8192 ? 8192 : c->v[P_W];
  }
}

static int sgm_validate(const struct gr_case *c, char *why, size_t len)
{
  struct sgm_params p;
  case_params(c, &p);
  int file = c->v[P_CONTENT] == SGM_CONTENT_FILE;
  if (file && (!c->file[P_LEFT] || !c->file[P_RIGHT])) {
    gr_fmt(why, len, "'content=file' needs the images: left=PGM right=PGM");
    return -1;
  }
  if (!file && gr_case_has_files(c)) {
    gr_fmt(why, len, "'left', 'right' and 'gt' go with 'content=file' only");
    return -1;
  }
  if ((int64_t)p.width * p.height * p.disp > ((int64_t)1 << 33)) {
    char path[GR_CASE_PATH_LEN * 3];
    if (file && gr_case_file(c, "left", path, sizeof path))
      gr_fmt(why, len, "'w*h*d' = %lld cells (the pair '%s': %d x %d, d=%d) is beyond what this "
                       "suite addresses (2^33)",
             (long long)p.width * p.height * p.disp, path, p.width, p.height, p.disp);
    else
      gr_fmt(why, len, "'w*h*d' = %lld cells is beyond what this suite addresses (2^33)",
             (long long)p.width * p.height * p.disp);
    return -1;
  }
  if (sgm_params_valid(&p)) {
    gr_fmt(why, len, "'p2=%d' with %d paths: the summed cost %d * (31 + p2) exceeds 65535", p.p2,
           p.paths, p.paths);
    return -1;
  }
  return 0;
}

static size_t sgm_device_bytes(const struct gr_case *c)
{
  struct sgm_params p;
  int per_path;
  case_params(c, &p);
  out_values(&p, &per_path);
#ifdef GR_HOST_ONLY /* no GPU variant can run: nothing to reserve */
  return 0;
#else
  return sgm_gpu_bytes(&p, per_path);
#endif
}

/* Bytes: what must move at least (two 8-bit images in, a 16-bit disparity map out). Items: the
 * cost-volume cells aggregated, W * H * D * paths, the unit stereo papers report (cells/s);
 * compared with sgm_peak_cells, the rate of v4's recurrence with every operand in registers. */
static void sgm_work(const struct gr_case *c, double *bytes, double *items)
{
  double n = (double)c->v[P_W] * (double)c->v[P_H];
  *bytes = n * (1 + 1 + 2);
  *items = n * (double)c->v[P_D] * (c->v[P_PATHS] ? 8 : 4);
}

static void sgm_instance_free(struct gr_instance *inst)
{
  if (!inst)
    return;
  struct sgm_data *d = inst->priv;
  if (d) {
    free(d->left);
    free(d->right);
    free(d->gt);
    free(d->gt_visible);
    free(d->ref);
    free(d);
  }
  free(inst);
}

/* Read PGM file parameter `name` of c (w x h when *w > 0, else any size, then set). 0 ok, -1
 * with why naming the file; *px malloc'd. */
static int read_image(const struct gr_case *c, const char *name, uint8_t **px, int *w, int *h,
                      char *why, size_t len)
{
  char path[GR_CASE_PATH_LEN * 3];
  int fw, fh;
  *px = NULL;
  if (!gr_case_file(c, name, path, sizeof path))
    return 0;
  if (pgm_read(path, px, &fw, &fh, why, len) != PGM_OK)
    return -1;
  if (*w > 0 && (fw != *w || fh != *h)) {
    gr_fmt(why, len, "'%s' (%s=) is %d x %d, the left image %d x %d", path, name, fw, fh, *w, *h);
    free(*px);
    *px = NULL;
    return -1;
  }
  *w = fw;
  *h = fh;
  return 0;
}

/* Left, right and (when given) the ground truth of a real pair; on error nothing is kept. */
static int read_pair(const struct gr_case *c, uint8_t **left, uint8_t **right, uint8_t **gt,
                     int *w, int *h, char *why, size_t len)
{
  *w = *h = 0;
  *right = *gt = NULL;
  if (read_image(c, "left", left, w, h, why, len) == 0 &&
      read_image(c, "right", right, w, h, why, len) == 0 &&
      read_image(c, "gt", gt, w, h, why, len) == 0)
    return 0;
  free(*left);
  free(*right);
  *left = *right = NULL;
  return -1;
}

/* Every file of a pair is a PGM: its header and size, and its sizes within sgm's w and h,
 * before the case hashes it (a sparse 38730 x 38730 image is refused from its header, naming
 * it, not after 1.5 GB were hashed). */
static int sgm_check_file(const char *param, const char *path, char *why, size_t len)
{
  int w, h;
  if (pgm_read_header(path, &w, &h, why, len) != PGM_OK)
    return -1;
  if (w > sgm_params[P_W].max || h > sgm_params[P_H].max) {
    gr_fmt(why, len, "'%s' (%s=) is %d x %d: sgm takes images of at most %lld x %lld", path,
           param, w, h, (long long)sgm_params[P_W].max, (long long)sgm_params[P_H].max);
    return -1;
  }
  return 0;
}

static int sgm_data_params(struct gr_case *c, uint32_t *filled, char *why, size_t len)
{
  static const char *const names[] = {"left", "right", "gt"};
  int w = 0, h = 0;
  if (!c->file[P_LEFT] || !c->file[P_RIGHT]) {
    gr_fmt(why, len, "a stereo pair from files names both images: left=PGM right=PGM");
    return -1;
  }
  /* the sizes from the headers: the pixels are read when the case runs */
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char path[GR_CASE_PATH_LEN * 3];
    int fw, fh;
    if (!gr_case_file(c, names[i], path, sizeof path))
      continue;
    if (pgm_read_header(path, &fw, &fh, why, len) != PGM_OK)
      return -1;
    if (w && (fw != w || fh != h)) {
      gr_fmt(why, len, "'%s' (%s=) is %d x %d, the left image %d x %d", path, names[i], fw, fh, w,
             h);
      return -1;
    }
    w = fw;
    h = fh;
  }
  c->v[P_W] = w;
  c->v[P_H] = h;
  c->v[P_CONTENT] = SGM_CONTENT_FILE;
  *filled = 1u << P_W | 1u << P_H | 1u << P_CONTENT;
  return 0;
}

/* The instance of a real pair: images, ground truth (0 = unknown) and its visible part. */
static int instance_files(const struct gr_case *c, struct sgm_data *d, char *why, size_t len)
{
  uint8_t *g;
  int w, h;
  if (read_pair(c, &d->left, &d->right, &g, &w, &h, why, len))
    return -1;
  if (w != d->prm.width || h != d->prm.height) {
    gr_fmt(why, len, "the images are %d x %d, the case says %d x %d", w, h, d->prm.width,
           d->prm.height);
    free(g);
    return -1;
  }
  if (!g)
    return 0;
  size_t n = (size_t)w * h;
  d->gt = malloc(n * sizeof *d->gt);
  d->gt_visible = malloc(n * sizeof *d->gt_visible);
  if (d->gt && d->gt_visible)
    for (size_t i = 0; i < n; i++)
      d->gt[i] = g[i] ? g[i] : -1;
  free(g);
  if (!d->gt || !d->gt_visible || stereo_nonoccluded(d->gt, w, h, d->gt_visible)) {
    gr_fmt(why, len, "out of host memory for the ground truth");
    return -1;
  }
  return 0;
}

static int sgm_instance_new(const struct gr_case *c, struct gr_instance **out, char *why,
                            size_t len)
{
  struct gr_instance *inst = gr_instance_alloc(c, sizeof(struct sgm_data), why, len);
  if (!inst)
    return -1;
  struct sgm_data *d = inst->priv;
  case_params(c, &d->prm);
  d->content = (enum stereo_content)c->v[P_CONTENT];
  size_t n = (size_t)d->prm.width * d->prm.height;
  if (c->v[P_CONTENT] == SGM_CONTENT_FILE) {
    if (instance_files(c, d, why, len)) {
      sgm_instance_free(inst);
      return -1;
    }
    goto done;
  }
  d->left = malloc(n);
  d->right = malloc(n);
  d->gt = malloc(n * sizeof *d->gt);
  if (!d->left || !d->right || !d->gt ||
      stereo_generate(d->prm.width, d->prm.height, d->prm.disp, d->content, c->seed, d->left,
                      d->right, d->gt)) {
    gr_fmt(why, len, "cannot allocate the %d x %d stereo pair", d->prm.width, d->prm.height);
    sgm_instance_free(inst);
    return -1;
  }
done:
  inst->out_bytes = out_values(&d->prm, &d->per_path) * sizeof(uint16_t);
  inst->elem_size = sizeof(uint16_t);
  *out = inst;
  return 0;
}

/* Decode a per-path index into "path r (name) at (x, y, d)". */
static const char *where_path(const struct sgm_params *p, size_t i, char *buf, size_t len)
{
  size_t D = (size_t)p->disp, w = (size_t)p->width, h = (size_t)p->height;
  size_t d = i % D, pix = i / D, x = pix % w, y = (pix / w) % h, r = pix / (w * h);
  return gr_fmt(buf, len, "path %zu (%s) at (x=%zu, y=%zu, d=%zu)", r, sgm_path_name[r], x, y, d);
}

static int sgm_check(const struct gr_instance *inst, const void *out, struct gr_check_report *rep)
{
  struct sgm_data *d = inst->priv;
  const struct sgm_params *p = &d->prm;
  const uint16_t *o = out;
  size_t n = (size_t)p->width * p->height, cells = n * p->disp;
  const uint16_t *ref = sgm_data_reference(d);
  char at[160];
  if (d->gt && (d->content == STEREO_RANDOMDOT || d->gt_visible)) {
    rep->err = stereo_bad_pixel_rate(o, d->gt, n, 1, NULL);
    gr_metrics_add(&rep->acc, "bad1", rep->err);
    gr_metrics_add(&rep->acc, "bad2", stereo_bad_pixel_rate(o, d->gt, n, 2, NULL));
  }
  if (d->gt_visible) {
    gr_metrics_add(&rep->acc, "bad1_nonocc", stereo_bad_pixel_rate(o, d->gt_visible, n, 1, NULL));
    gr_metrics_add(&rep->acc, "bad2_nonocc", stereo_bad_pixel_rate(o, d->gt_visible, n, 2, NULL));
  }
  if (!ref)
    return gr_check_fail(rep, "input", "cannot compute the reference: out of host memory");
  /* bounds */
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++)
    if (o[i] >= p->disp && !bad++)
      first = i;
  if (bad)
    return gr_check_fail(
        rep, "bounds",
        "pixel (x=%zu, y=%zu): disparity %u outside [0, %d); %zu pixels out of range",
        first % p->width, first / p->width, o[first], p->disp, bad);
  int lmax = SGM_COST_MAX + p->p2, smax = p->paths * lmax;
  for (size_t i = 0; i < n; i++)
    if (o[n + i] > smax && !bad++)
      first = i;
  if (bad)
    return gr_check_fail(
        rep, "bounds",
        "pixel (x=%zu, y=%zu): summed cost %u > paths * (Cmax + P2) = %d; %zu pixels",
        first % p->width, first / p->width, o[n + first], smax, bad);
  const uint16_t *L = o + 2 * n, *refL = ref + 2 * n;
  size_t total = d->per_path ? cells * p->paths : 0;
  for (size_t i = 0; i < total; i++)
    if (L[i] > lmax && !bad++)
      first = i;
  if (bad)
    return gr_check_fail(rep, "bounds", "%s: aggregated cost %u > Cmax + P2 = %d; %zu values",
                         where_path(p, first, at, sizeof at), L[first], lmax, bad);
  /* parity: per-path costs first (where an aggregation error shows), then the results */
  for (size_t i = 0; i < total; i++)
    if (L[i] != refL[i] && !bad++)
      first = i;
  if (bad)
    return gr_check_fail(rep, "parity", "%s: cost %u, reference %u (%+d); %zu of %zu values differ",
                         where_path(p, first, at, sizeof at), L[first], refL[first],
                         (int)L[first] - (int)refL[first], bad, total);
  for (size_t i = 0; i < n; i++)
    if (o[n + i] != ref[n + i] && !bad++)
      first = i;
  if (bad)
    return gr_check_fail(
        rep, "parity",
        "pixel (x=%zu, y=%zu): summed cost %u, reference %u (%+d); %zu of %zu differ",
        first % p->width, first / p->width, o[n + first], ref[n + first],
        (int)o[n + first] - (int)ref[n + first], bad, n);
  for (size_t i = 0; i < n; i++)
    if (o[i] != ref[i] && !bad++)
      first = i;
  if (bad)
    return gr_check_fail(
        rep, "parity",
        "pixel (x=%zu, y=%zu): disparity %u, reference %u; %zu of %zu pixels (%.2f%%) "
        "differ",
        first % p->width, first / p->width, o[first], ref[first], bad, n,
        100.0 * (double)bad / (double)n);
  return 0;
}

/* The sweep; libSGM's H100 times for the same configurations are in the report. Then the
 * real pairs of scripts/datasets (Middlebury Aloe, 1282 x 1110, ground truth up to 211 px):
 * skipped, with the reason, where the dataset is absent. */
static const char *const sgm_bench_cases[] = {
    "sgm w=640 h=480 d=64 p1=10 p2=120 paths=4 content=randomdot seed=1",
    "sgm w=640 h=480 d=64 p1=10 p2=120 paths=8 content=randomdot seed=1",
    "sgm w=1920 h=1080 d=128 p1=10 p2=120 paths=4 content=randomdot seed=1",
    "sgm w=1920 h=1080 d=128 p1=10 p2=120 paths=8 content=randomdot seed=1",
    "sgm w=2964 h=2000 d=256 p1=10 p2=120 paths=4 content=randomdot seed=1",
    "sgm w=2964 h=2000 d=256 p1=10 p2=120 paths=8 content=randomdot seed=1",
    "sgm w=2964 h=2000 d=270 p1=10 p2=120 paths=4 content=randomdot seed=1",
    "sgm w=2964 h=2000 d=270 p1=10 p2=120 paths=8 content=randomdot seed=1",
    "sgm d=256 p1=10 p2=120 paths=4 left=data:middlebury/aloe/left.pgm"
    " right=data:middlebury/aloe/right.pgm gt=data:middlebury/aloe/gt.pgm seed=1",
    "sgm d=256 p1=10 p2=120 paths=8 left=data:middlebury/aloe/left.pgm"
    " right=data:middlebury/aloe/right.pgm gt=data:middlebury/aloe/gt.pgm seed=1",
    NULL,
};

const struct gr_algorithm sgm_algorithm = {
    .name = "sgm",
    .summary = "Semi-Global Matching stereo: census 9x7, Hamming cost, 4/8-path aggregation, WTA",
    .params = sgm_params,
    .n_params = sizeof sgm_params / sizeof *sgm_params,
    .variants = sgm_variants,
    .n_variants = sizeof sgm_variants / sizeof *sgm_variants,
    .generate = sgm_generate,
    .fixup = sgm_fixup,
    .validate = sgm_validate,
    .device_bytes = sgm_device_bytes,
    .instance_new = sgm_instance_new,
    .instance_free = sgm_instance_free,
    .check = sgm_check,
    .work = sgm_work,
    .item_unit = "cells",
    .item_peak = GR_IF_CUDA(sgm_peak_cells),
    .regimes = sgm_regimes,
    .n_regimes = sizeof sgm_regimes / sizeof *sgm_regimes,
    .bench_cases = sgm_bench_cases,
    .gpu = GR_IF_CUDA(&sgm_lifecycle),
    .data_params = sgm_data_params,
    .check_file = sgm_check_file,
};
GR_REGISTER_ALGORITHM(sgm_algorithm);
