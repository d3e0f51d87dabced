/* SPDX-License-Identifier: Apache-2.0 */
/* gpuregress/gpu.h (public API).
 * CUDA helpers shared by every GPU variant: the one error-check macro, device queries, and the
 * shared-memory poisoning kernel behind the differential check. Only worker processes call these:
 * the parent never initialises CUDA. */
#ifndef GR_GPU_H
#define GR_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Print "cuda error: ..." to stderr and end the worker with GR_WORKER_EXIT_CUDA: a CUDA error
 * (sticky or not) ends the case as a crash whose reason is that line. Never returns. */
void gr_cuda_fail(const char *what, const char *func, const char *file, int line, int err)
    __attribute__((noreturn));

#define GR_CUDA_CHECK(call)                                                                        \
  do {                                                                                             \
    int e_ = (int)(call);                                                                          \
    if (e_ != 0)                                                                                   \
      gr_cuda_fail(#call, __func__, __FILE__, __LINE__, e_);                                       \
  } while (0)

/* After every kernel launch: launch-configuration errors (and, with GR_SYNC_CHECK set in the
 * environment, execution errors). */
#define GR_CUDA_LAUNCH_CHECK() GR_CUDA_CHECK(gr_gpu_last_error())
int gr_gpu_last_error(void);

struct gr_gpu_info {
  char name[128];
  char uuid[48]; /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx": the physical GPU */
  int sm_count;
  int cc_major, cc_minor;
  size_t total_mem;
  size_t smem_per_block_optin; /* the most dynamic shared memory one block may ask for */
  size_t smem_per_sm;
  size_t l2_bytes;
  int driver_version, runtime_version; /* e.g. 13000 */
  int sm_clock_khz, mem_clock_khz;     /* peak clocks as reported */
  /* NVML (dlopen'd; "" / 0 when it is absent): the driver's release and, now, the clocks and
   * the temperature */
  char driver_release[32]; /* e.g. "580.159.04" */
  int sm_clock_now_mhz, mem_clock_now_mhz, temp_c;
};

/* Number of usable CUDA devices, or 0 with why saying what is true: "no NVIDIA driver: ...",
 * "NVIDIA driver too old (found CUDA X, need Y) ...", "no CUDA device: ...". */
int gr_gpu_device_count(char *why, size_t len);
/* 0 ok, -1 with why */
int gr_gpu_query(struct gr_gpu_info *info, char *why, size_t len);
/* Free and total device memory in bytes. */
void gr_gpu_mem_info(size_t *free_bytes, size_t *total_bytes);
/* Fill the shared memory of every SM with a pattern derived from `pattern`, by launching enough
 * blocks of the largest dynamic shared memory to cover every SM; synchronises. */
void gr_gpu_poison_shared(uint32_t pattern);
/* Synchronise the device, turning an execution error into gr_cuda_fail. */
void gr_gpu_sync(void);
/* Fill `bytes` bytes of device memory at dev with `byte` (synchronously). */
void gr_gpu_fill(void *dev, unsigned char byte, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
