/* The GPU timing loop of the test programs (the speed tables of test_*_bench and
 * test_radix_sort_gpu). Modelled on benchmark_kernel of llm.c's dev/cuda/common.h: CUDA events
 * around each launch on the default stream, warm-up launches first, and, when asked, the L2
 * scrubbed before each timed launch (a memset of the L2's size, outside the timed window).
 * CUDA errors end the program through GR_CUDA_CHECK. */
#ifndef GR_TESTS_GPU_TIMING_H
#define GR_TESTS_GPU_TIMING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_timing {
  double median_ms; /* the middle time (the mean of the middle two for an even count) */
  double min_ms;
};

enum { GPU_L2_WARM = 0, GPU_L2_SCRUB = 1 };

/* Time fn(arg): `warm` untimed launches and a synchronisation, then reps (>= 1) timed launches,
 * each between two events on the default stream. l2: GPU_L2_WARM (launches back to back) or
 * GPU_L2_SCRUB (cold L2 for each). */
struct gpu_timing gpu_time(void (*fn)(void *), void *arg, int warm, int reps, int l2);

/* Device-to-device copy bandwidth in bytes read plus written per second: a copy of `bytes`, 3
 * warm-up copies, the median of reps (the yardstick of the bandwidth-bound kernels). */
double gpu_copy_bandwidth(size_t bytes, int reps);

#ifdef __cplusplus
}
#endif

#endif
