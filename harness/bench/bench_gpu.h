/* The CUDA side of the timing layer: one sample of a variant's launches timed with CUDA events,
 * the L2 flush before a cold sample (a buffer of twice the device's L2, allocated once and
 * written outside the timed region), the device-to-device copy bandwidth, the SM clock read
 * through NVML (loaded with dlopen at run time: no build dependency; 0 when absent), and the spin
 * kernel behind the test-only slowdown knob. Only benchmark child processes call these. */
#ifndef GR_BENCH_GPU_H
#define GR_BENCH_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prepare events, the flush buffer (when cold) and NVML. 0 ok, -1 with why. CUDA errors end
 * the process (GR_CUDA_CHECK). */
int bench_gpu_open(int cold, char *why, size_t len);
void bench_gpu_close(void);

/* Device-to-device cudaMemcpy bandwidth in GB/s (1e9 B/s), counting bytes read + written: the
 * median of several copies of a large buffer (up to 1 GiB, a quarter of free memory). */
double bench_gpu_copy_gbps(void);

/* The stream the lifecycle's launches are timed on (a cudaStream_t created by bench_gpu_open,
 * blocking: work on the legacy default stream still serialises with it); NULL (the default
 * stream) before bench_gpu_open. */
void *bench_gpu_stream(void);

/* One sample on `stream` (NULL: the default stream; the stream launch(state) enqueues on):
 * flush L2 (when opened cold), then time `launches` calls of launch(state) (plus a spin of
 * spin_ns nanoseconds after each when spin_ns > 0) between two events. Returns the mean
 * milliseconds per launch; *sm_clock_mhz gets the SM clock just after (0 without NVML). */
double bench_gpu_sample(void (*launch)(void *), void *state, int launches, double spin_ns,
                        int *sm_clock_mhz, void *stream);

/* The current SM clock in MHz, 0 when NVML is absent. */
int bench_gpu_sm_clock(void);

#ifdef __cplusplus
}
#endif

#endif
