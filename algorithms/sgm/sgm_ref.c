/* CPU reference of Semi-Global Matching. Straightforward loops, integer arithmetic throughout;
 * this file is the definition the GPU variants are held to, bit for bit.
 *
 * Census (9x7, centre-symmetric, 31 bits, the libSGM pipeline). For pixel (x, y) and each pair
 * of window positions symmetric about the centre, in this order:
 *   dy = -3, -2, -1 with dx = -4 .. 4 (27 pairs), then dy = 0 with dx = -4 .. -1 (4 pairs),
 * the bit is (I(x + dx, y + dy) >= I(x - dx, y - dy)), shifted in from the right:
 * code = (code << 1) | bit. The first pair ends in bit 30, the last in bit 0; bit 31 is 0.
 * Border: pixels outside the image take the value of the nearest edge pixel (coordinates are
 * clamped to [0, w-1] x [0, h-1] separately). A constant image has census 0x7fffffff everywhere.
 *
 * Matching cost. C(x, y, d) = popcount(censusL(x, y) XOR censusR(x - d, y)) in [0, 31].
 * When x - d < 0 there is no right pixel: C = SGM_COST_OUTSIDE = 31 (the largest cost).
 *
 * Aggregation. Path r walks along (dx, dy) (table below); the predecessor of p = (x, y) is
 * p - r = (x - dx, y - dy).
 *   L_r(p, d) = C(p, d) + min(L_r(p-r, d), L_r(p-r, d-1) + P1, L_r(p-r, d+1) + P1,
 *                             m + P2) - m,        m = min_k L_r(p-r, k), k in [0, D)
 *   d - 1 < 0 and d + 1 >= D: those terms are absent (+infinity).
 *   p - r outside the image (the first pixel of every scan line): L_r(p, d) = C(p, d).
 * Hence C <= L_r <= C + P2 <= SGM_COST_MAX + P2 for every path, pixel and disparity.
 * Paths: 0 left-right (1,0), 1 right-left (-1,0), 2 top-down (0,1), 3 bottom-up (0,-1); with 8
 * paths also 4 (1,1), 5 (-1,-1), 6 (-1,1), 7 (1,-1).
 *
 * Sum and winner-takes-all. S(p, d) = sum_r L_r(p, d) <= paths * (31 + P2) <= 65535 by the
 * parameter rule; disparity(p) = the lowest d with the smallest S (ties go to the lower d).
 * No uniqueness ratio, no left-right check, no median filter.
 *
 * Cost of the reference: 3 bytes per cell (cost volume + 16-bit S; L is kept one row at a time
 * unless the per-path costs are asked for), about 5 ns per cell and path on one core: 0.7 s for
 * 640x480 D=64 with 8 paths, about a minute for 2964x2000 D=270. */
#include "sgm_ref.h"

#include <stdlib.h>
#include <string.h>

const int sgm_path_dx[SGM_MAX_PATHS] = {1, -1, 0, 0, 1, -1, -1, 1};
const int sgm_path_dy[SGM_MAX_PATHS] = {0, 0, 1, -1, 1, -1, 1, -1};
const char *const sgm_path_name[SGM_MAX_PATHS] = {"left-right",
                                                  "right-left",
                                                  "top-down",
                                                  "bottom-up",
                                                  "top-left to bottom-right",
                                                  "bottom-right to top-left",
                                                  "top-right to bottom-left",
                                                  "bottom-left to top-right"};

static int clampi(int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

void sgm_census(const uint8_t *img, int w, int h, uint32_t *out)
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint32_t code = 0;
      for (int dy = -3; dy <= 0; dy++)
        for (int dx = -4; dx <= 4; dx++) {
          if (dy == 0 && dx >= 0)
            break;
          int a = img[(size_t)clampi(y + dy, 0, h - 1) * w + clampi(x + dx, 0, w - 1)];
          int b = img[(size_t)clampi(y - dy, 0, h - 1) * w + clampi(x - dx, 0, w - 1)];
          code = (code << 1) | (uint32_t)(a >= b);
        }
      out[(size_t)y * w + x] = code;
    }
}

void sgm_cost_volume(const uint32_t *cl, const uint32_t *cr, int w, int h, int D, uint8_t *cost)
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int d = 0; d < D; d++)
        cost[((size_t)y * w + x) * D + d] =
            (uint8_t)sgm_cost(cl[(size_t)y * w + x], cr + (size_t)y * w, x, d);
}

static int mini(int a, int b)
{
  return a < b ? a : b;
}

/* One pixel of one path: l from its costs c and its predecessor's L prev (NULL: the first pixel
 * of a scan line, l = c). The ends d = 0 and d = D-1 have one neighbour only. */
static void path_step(const uint16_t *restrict prev, const uint8_t *restrict c,
                      uint16_t *restrict l, int D, int p1, int p2)
{
  if (!prev) {
    for (int d = 0; d < D; d++)
      l[d] = c[d];
    return;
  }
  int m = prev[0];
  for (int d = 1; d < D; d++)
    m = mini(m, prev[d]);
  const int cap = m + p2;
  if (D == 1) {
    l[0] = (uint16_t)(c[0] + mini(prev[0], cap) - m);
    return;
  }
  l[0] = (uint16_t)(c[0] + mini(mini(prev[0], cap), prev[1] + p1) - m);
  for (int d = 1; d < D - 1; d++)
    l[d] = (uint16_t)(c[d] + mini(mini(prev[d], cap), mini(prev[d - 1], prev[d + 1]) + p1) - m);
  l[D - 1] = (uint16_t)(c[D - 1] + mini(mini(prev[D - 1], cap), prev[D - 2] + p1) - m);
}

/* Aggregate one direction (dx, dy), one row at a time in the order that puts every predecessor
 * first: the predecessor of (x, y) is in this row (dy = 0) or in the row done just before.
 * Costs come from the volume cost, or when it is NULL are computed per row from the census.
 * Each finished row goes to L (if not NULL) and is added to S (if not NULL). 0, or -1 when out
 * of memory. */
static int aggregate(const uint8_t *cost, const uint32_t *cl, const uint32_t *cr, int w, int h,
                     int D, int dx, int dy, int p1, int p2, uint16_t *L, uint16_t *S)
{
  size_t row = (size_t)w * D;
  uint16_t *prev = malloc(row * sizeof *prev), *cur = malloc(row * sizeof *cur);
  uint8_t *crow = cost ? NULL : malloc(row);
  int rc = -1;
  if (!prev || !cur || (!cost && !crow))
    goto out_free;
  for (int yi = 0; yi < h; yi++) {
    int y = dy >= 0 ? yi : h - 1 - yi;
    const uint8_t *c = cost ? cost + (size_t)y * row : crow;
    if (!cost)
      for (int x = 0; x < w; x++)
        for (int d = 0; d < D; d++)
          crow[(size_t)x * D + d] =
              (uint8_t)sgm_cost(cl[(size_t)y * w + x], cr + (size_t)y * w, x, d);
    for (int xi = 0; xi < w; xi++) {
      int x = dx >= 0 ? xi : w - 1 - xi, px = x - dx, py = y - dy;
      const uint16_t *pv = NULL;
      if (px >= 0 && px < w && py >= 0 && py < h)
        pv = (dy == 0 ? cur : prev) + (size_t)px * D;
      path_step(pv, c + (size_t)x * D, cur + (size_t)x * D, D, p1, p2);
    }
    if (L)
      memcpy(L + (size_t)y * row, cur, row * sizeof *cur);
    if (S)
      for (size_t i = 0; i < row; i++)
        S[(size_t)y * row + i] += cur[i];
    uint16_t *t = prev;
    prev = cur;
    cur = t;
  }
  rc = 0;
out_free:
  free(prev);
  free(cur);
  free(crow);
  return rc;
}

void sgm_aggregate_path(const uint8_t *cost, int w, int h, int D, int dx, int dy, int p1, int p2,
                        uint16_t *L)
{
  aggregate(cost, NULL, NULL, w, h, D, dx, dy, p1, p2, L, NULL);
}

int sgm_params_valid(const struct sgm_params *p)
{
  if (p->width < 1 || p->height < 1 || p->disp < 1 || p->disp > SGM_MAX_DISP)
    return -1;
  if (p->paths != 4 && p->paths != 8)
    return -1;
  if (p->p1 < 0 || p->p2 < 0 || (long)(SGM_COST_MAX + p->p2) * p->paths > 65535)
    return -1;
  return 0;
}

int sgm_reference(const struct sgm_params *p, const uint8_t *left, const uint8_t *right,
                  uint16_t *disp, uint16_t *smin, uint16_t *path_cost)
{
  if (sgm_params_valid(p))
    return -1;
  int w = p->width, h = p->height, D = p->disp, rc = -1;
  size_t n = (size_t)w * h, cells = n * D;
  uint32_t *cl = malloc(n * sizeof *cl), *cr = malloc(n * sizeof *cr);
  uint16_t *S = calloc(cells, sizeof *S); /* fits: paths * (31 + p2) <= 65535 */
  uint8_t *cost = malloc(cells);
  if (!cl || !cr || !S || !cost)
    goto out_free;
  sgm_census(left, w, h, cl);
  sgm_census(right, w, h, cr);
  sgm_cost_volume(cl, cr, w, h, D, cost);
  for (int r = 0; r < p->paths; r++)
    if (aggregate(cost, cl, cr, w, h, D, sgm_path_dx[r], sgm_path_dy[r], p->p1, p->p2,
                  path_cost ? path_cost + (size_t)r * cells : NULL, S))
      goto out_free;
  for (size_t i = 0; i < n; i++) {
    const uint16_t *s = S + i * D;
    int best = 0;
    for (int d = 1; d < D; d++)
      if (s[d] < s[best])
        best = d;
    disp[i] = (uint16_t)best;
    if (smin)
      smin[i] = s[best];
  }
  rc = 0;
out_free:
  free(cl);
  free(cr);
  free(S);
  free(cost);
  return rc;
}
