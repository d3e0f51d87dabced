/* CPU reference of Semi-Global Matching (census 9x7 centre-symmetric, Hamming cost, 4 or 8 path
 * aggregation, winner-takes-all). Plain integer loops; every border rule is stated in sgm.c's
 * header. The GPU variants must reproduce these numbers exactly. */
#ifndef GR_REFERENCE_SGM_H
#define GR_REFERENCE_SGM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SGM_CENSUS_BITS 31            /* 9x7 centre-symmetric census: 3 * 9 + 4 pairs */
#define SGM_COST_MAX 31               /* largest matching cost: popcount of 31 bits */
#define SGM_COST_OUTSIDE SGM_COST_MAX /* cost of (x, d) when x - d < 0: no pixel to match */
#define SGM_MAX_DISP 512
#define SGM_MAX_PATHS 8

/* The path directions, in path-index order. Path r walks along (dx, dy): its predecessor of
 * pixel (x, y) is (x - dx, y - dy). The first 4 are the 4-path set. */
extern const int sgm_path_dx[SGM_MAX_PATHS];
extern const int sgm_path_dy[SGM_MAX_PATHS];
extern const char *const sgm_path_name[SGM_MAX_PATHS]; /* "left-right", ... */

struct sgm_params {
  int width, height; /* >= 1 */
  int disp;          /* D: disparities 0 .. D-1, 1 <= D <= SGM_MAX_DISP */
  int paths;         /* 4 or 8 */
  int p1, p2;        /* penalties, 0 <= p1, p2; (SGM_COST_MAX + p2) * paths <= 65535 */
};

/* Census transform of a w x h 8-bit image into w*h 31-bit codes (see sgm.c for the bit order
 * and the border rule). */
void sgm_census(const uint8_t *img, int w, int h, uint32_t *out);

/* Number of set bits, by the classic SWAR sums (no libgcc call, no -mpopcnt needed). */
static inline int sgm_popcount(uint32_t v)
{
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return (int)((((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

/* Matching cost of left census cl at column x against the right census row cr at disparity d. */
static inline int sgm_cost(uint32_t cl, const uint32_t *cr_row, int x, int d)
{
  return x - d < 0 ? SGM_COST_OUTSIDE : sgm_popcount(cl ^ cr_row[x - d]);
}

/* The full cost volume: cost[(y*w + x)*D + d]. */
void sgm_cost_volume(const uint32_t *cl, const uint32_t *cr, int w, int h, int D, uint8_t *cost);

/* Aggregate the cost volume along one direction (dx, dy) into L[(y*w + x)*D + d]. */
void sgm_aggregate_path(const uint8_t *cost, int w, int h, int D, int dx, int dy, int p1, int p2,
                        uint16_t *L);

/* Whole pipeline. disp (w*h) gets argmin_d S (lowest d on ties), smin (w*h) gets S at that d,
 * where S = sum over the paths of L_r; path_cost, when not NULL, gets every L_r as
 * path_cost[((r*h + y)*w + x)*D + d] (paths * w*h*D values). smin may be NULL.
 * Returns 0, or -1 if the parameters are invalid or memory runs out. */
int sgm_reference(const struct sgm_params *p, const uint8_t *left, const uint8_t *right,
                  uint16_t *disp, uint16_t *smin, uint16_t *path_cost);

/* 0 when p is usable, else -1. */
int sgm_params_valid(const struct sgm_params *p);

#ifdef __cplusplus
}
#endif

#endif
