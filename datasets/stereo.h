/* Seeded synthetic stereo pairs with ground-truth disparity: a scene of two slanted planes
 * (split at a column) and a nearer rectangular box, textured by one of several contents, seen
 * by a rectified left and right camera. Deterministic from the seed, integer arithmetic only. */
#ifndef GR_DATASETS_STEREO_H
#define GR_DATASETS_STEREO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum stereo_content {
  STEREO_CONSTANT,  /* one grey level everywhere (every disparity matches equally) */
  STEREO_GRADIENT,  /* a diagonal ramp; right image warped from it */
  STEREO_RANDOMDOT, /* independent uniform grey dots, one per pixel; right image warped */
  STEREO_NOISE,     /* left and right independent noise: no correspondence, gt all invalid */
};

/* Fill left, right (w*h each) and gt (w*h, may be NULL) for disparities in [0, dmax).
 * gt(x, y) is the true disparity of left pixel (x, y), or -1 where that pixel has no match in
 * the right image (occluded by the box, x - d < 0, or content STEREO_NOISE).
 * Construction: every left pixel gets its scene disparity d(x, y) (planes: d0 + (gx*x + gy*y)/1024,
 * box: larger, all clamped to [0, dmax-1]); the right image starts as fresh texture and each left
 * pixel is copied to (x - d, y) with a z-test (larger disparity = nearer wins). A left pixel whose
 * copy survives is matched. Returns 0, or -1 on bad arguments (w, h, dmax < 1). */
int stereo_generate(int w, int h, int dmax, enum stereo_content content, uint64_t seed,
                    uint8_t *left, uint8_t *right, int16_t *gt);

/* Bad-pixel rate of disp against gt: the fraction of pixels with gt >= 0 where |disp - gt| >
 * thr; 0 when no pixel has a ground truth. *valid (may be NULL) gets the number of such pixels. */
double stereo_bad_pixel_rate(const uint16_t *disp, const int16_t *gt, size_t n, int thr,
                             size_t *valid);

/* The non-occluded part of a left-view ground truth (w*h, -1 unknown) when no occlusion map
 * comes with it: each known left pixel is warped to (x - d, y) in the right view, where the
 * largest disparity (the nearest surface) wins; a pixel is visible when it lands inside the
 * right image and its disparity is within 1 of the winner there (integer ground truth of a
 * slanted surface). out (w*h) gets gt where visible, -1 elsewhere. Returns 0, -1 out of memory. */
int stereo_nonoccluded(const int16_t *gt, int w, int h, int16_t *out);

#ifdef __cplusplus
}
#endif

#endif
