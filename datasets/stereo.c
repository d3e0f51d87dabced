/* Synthetic stereo pairs with ground truth: see stereo.h. The scene is drawn from the seed with
 * the harness rng (same stream on every machine), everything else is integer arithmetic. */
#include "stereo.h"

#include <stdlib.h>
#include <string.h>

#include <gpuregress/rng.h>

struct scene {
  int split;                     /* plane 0 for x < split, plane 1 from there */
  int64_t base[2], gx[2], gy[2]; /* plane disparity base + (gx*x + gy*y) / 1024 */
  int lim;                       /* planes are clamped to [0, lim] */
  int bx0, bx1, by0, by1, bd;    /* the box [bx0, bx1) x [by0, by1) at disparity bd */
  int dmax;
};

static int clampi(int64_t v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : (int)v;
}

static void scene_draw(struct scene *s, int w, int h, int dmax, struct gr_rng *r)
{
  s->dmax = dmax;
  s->lim = (dmax - 1) * 7 / 10;
  s->split = (int)gr_rng_range(r, 0, w);
  for (int i = 0; i < 2; i++) {
    s->base[i] = gr_rng_range(r, 0, s->lim);
    /* slopes that move the disparity by at most about lim/2 across the image */
    int64_t sx = (int64_t)1024 * s->lim / (2 * (int64_t)w),
            sy = (int64_t)1024 * s->lim / (2 * (int64_t)h);
    s->gx[i] = gr_rng_range(r, -sx, sx);
    s->gy[i] = gr_rng_range(r, -sy, sy);
  }
  s->bx0 = (int)gr_rng_range(r, 0, w - 1);
  s->bx1 = s->bx0 + (int)gr_rng_range(r, 1, w / 2 > 1 ? w / 2 : 1);
  s->by0 = (int)gr_rng_range(r, 0, h - 1);
  s->by1 = s->by0 + (int)gr_rng_range(r, 1, h / 2 > 1 ? h / 2 : 1);
  s->bd = (int)gr_rng_range(r, s->lim, dmax - 1);
}

static int scene_disparity(const struct scene *s, int x, int y)
{
  if (x >= s->bx0 && x < s->bx1 && y >= s->by0 && y < s->by1)
    return s->bd;
  int i = x >= s->split;
  int64_t d = s->base[i] + (s->gx[i] * x + s->gy[i] * y) / 1024;
  return clampi(d, 0, s->lim);
}

static uint8_t texture(enum stereo_content content, int x, int y, int w, int h, uint8_t level,
                       struct gr_rng *r)
{
  switch (content) {
  case STEREO_CONSTANT: return level;
  case STEREO_GRADIENT: return (uint8_t)(255 * (int64_t)(x + y) / (w + h > 2 ? w + h - 2 : 1));
  case STEREO_RANDOMDOT:
  case STEREO_NOISE:
  default: return (uint8_t)(gr_rng_u32(r) >> 24);
  }
}

int stereo_generate(int w, int h, int dmax, enum stereo_content content, uint64_t seed,
                    uint8_t *left, uint8_t *right, int16_t *gt)
{
  if (w < 1 || h < 1 || dmax < 1)
    return -1;
  struct gr_rng r;
  gr_rng_seed(&r, seed);
  struct scene s;
  scene_draw(&s, w, h, dmax, &r);
  uint8_t level = (uint8_t)(gr_rng_u32(&r) >> 24);
  size_t n = (size_t)w * h;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      left[(size_t)y * w + x] = texture(content, x, y, w, h, level, &r);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      right[(size_t)y * w + x] = texture(content, x, y, w, h, level, &r);
  if (content == STEREO_NOISE) {
    for (size_t i = 0; gt && i < n; i++)
      gt[i] = -1;
    return 0;
  }
  /* forward warp with a z-test, one row at a time: zbuf holds the disparity of the left pixel
   * that owns each right pixel so far (-1: none), owner its column */
  int *zbuf = malloc((size_t)w * sizeof *zbuf), *owner = malloc((size_t)w * sizeof *owner);
  if (!zbuf || !owner) {
    free(zbuf);
    free(owner);
    return -1;
  }
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++)
      zbuf[x] = -1;
    for (int x = 0; x < w; x++) {
      int d = scene_disparity(&s, x, y), xr = x - d;
      if (xr >= 0 && d > zbuf[xr]) {
        zbuf[xr] = d;
        owner[xr] = x;
        right[(size_t)y * w + xr] = left[(size_t)y * w + x];
      }
    }
    for (int x = 0; gt && x < w; x++) {
      int d = scene_disparity(&s, x, y), xr = x - d;
      gt[(size_t)y * w + x] = (int16_t)(xr >= 0 && zbuf[xr] == d && owner[xr] == x ? d : -1);
    }
  }
  free(zbuf);
  free(owner);
  return 0;
}

double stereo_bad_pixel_rate(const uint16_t *disp, const int16_t *gt, size_t n, int thr,
                             size_t *valid)
{
  size_t v = 0, bad = 0;
  for (size_t i = 0; i < n; i++) {
    if (gt[i] < 0)
      continue;
    v++;
    int diff = (int)disp[i] - gt[i];
    bad += diff > thr || diff < -thr;
  }
  if (valid)
    *valid = v;
  return v ? (double)bad / (double)v : 0.0;
}

int stereo_nonoccluded(const int16_t *gt, int w, int h, int16_t *out)
{
  int16_t *near = malloc((size_t)w * sizeof *near); /* per right column: the largest disparity */
  if (!near)
    return -1;
  for (int y = 0; y < h; y++) {
    const int16_t *g = gt + (size_t)y * w;
    int16_t *o = out + (size_t)y * w;
    for (int x = 0; x < w; x++)
      near[x] = -1;
    for (int x = 0; x < w; x++)
      if (g[x] >= 0 && x - g[x] >= 0 && g[x] > near[x - g[x]])
        near[x - g[x]] = g[x];
    for (int x = 0; x < w; x++)
      o[x] = g[x] >= 0 && x - g[x] >= 0 && g[x] + 1 >= near[x - g[x]] ? g[x] : -1;
  }
  free(near);
  return 0;
}
