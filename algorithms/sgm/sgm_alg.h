/* The sgm algorithm as the harness sees it (its table lives in sgm_alg.c). */
#ifndef GR_ALGORITHMS_SGM_ALG_H
#define GR_ALGORITHMS_SGM_ALG_H

#include <stddef.h>
#include <stdint.h>

#include <gpuregress/alg.h>
#include "datasets/stereo.h"
#include "sgm_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct gr_algorithm sgm_algorithm;

/* The output layout holds the per-path costs when paths*w*h*D is at most this many values
 * (16 MiB of uint16); larger cases hold the disparity map and the summed cost only. */
#define SGM_PATH_OUT_LIMIT ((size_t)1 << 23)

/* The input of one case and, once computed, its reference output (same layout as out). */
struct sgm_data {
  struct sgm_params prm;
  enum stereo_content content;
  uint8_t *left, *right; /* w*h each */
  int16_t *gt;           /* w*h ground truth, -1 where none; NULL for a real pair without one */
  int16_t *gt_visible;   /* real pairs: gt where visible in the right view, else -1; or NULL */
  int per_path;          /* out layout: 1 = disp, smin, per-path costs; 0 = disp, smin */
  uint16_t *ref;         /* NULL until sgm_data_reference computed it */
};

/* The reference output in the out layout, computed on first use (a big case's reference takes
 * a while, and timing runs may never need it). NULL when memory runs out. */
const uint16_t *sgm_data_reference(struct sgm_data *d);

/* GPU side (sgm_driver.cu). */
extern const struct gr_gpu_lifecycle sgm_lifecycle; /* sgm_driver.cu */
size_t sgm_gpu_bytes(const struct sgm_params *p, int per_path);
/* The peak of cell updates per second of this GPU with v4's recurrence (sgm_peak.cu): the
 * algorithm's item_peak. */
double sgm_peak_cells(char *name, size_t len);

#ifdef __cplusplus
}
#endif

#endif
