/* The GPU entry points of a host-only build (-DGPUREGRESS_CUDA=OFF: no CUDA toolkit, no
 * kernels; the CUDA builds compile harness/core/gpu.cu, harness/bench/bench_gpu.cu and
 * harness/core/selftest_gpu.cu instead). Nothing here touches a GPU: the device count is 0 with
 * the reason, so every command treats the machine as one without a GPU (GPU variants skipped
 * with "built without CUDA", exit 3 where GPU work was asked for, --allow-no-gpu as usual), and
 * the functions a run cannot reach without a device fail loudly instead of pretending. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "bench_gpu.h"
#include "gpu.h"
#include "gr.h"

#define NO_CUDA "this gpuregress was built without CUDA (-DGPUREGRESS_CUDA=OFF): no GPU variant can run"

/* reached only by a GPU code path that no host-only run takes: say so and end like a CUDA error */
static void no_cuda(const char *what) __attribute__((noreturn));
static void no_cuda(const char *what)
{
  fprintf(stderr, "%s: %s\n", what, NO_CUDA);
  fflush(stderr);
  _Exit(GR_WORKER_EXIT_CUDA);
}

void gr_cuda_fail(const char *what, const char *func, const char *file, int line, int err)
{
  fprintf(stderr, "cuda error: '%s' failed in %s (%s:%d): %d (%s)\n", what, func, file, line, err,
          NO_CUDA);
  fflush(stderr);
  _Exit(GR_WORKER_EXIT_CUDA);
}

int gr_gpu_last_error(void) { return 0; }

int gr_gpu_device_count(char *why, size_t len)
{
  gr_fmt(why, len, "%s", NO_CUDA);
  return 0;
}

int gr_gpu_query(struct gr_gpu_info *info, char *why, size_t len)
{
  memset(info, 0, sizeof *info);
  gr_fmt(why, len, "%s", NO_CUDA);
  return -1;
}

void gr_gpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
  *free_bytes = *total_bytes = 0;
}

void gr_gpu_sync(void) { no_cuda("gr_gpu_sync"); }
void gr_gpu_fill(void *dev, unsigned char byte, size_t bytes)
{
  (void)dev, (void)byte, (void)bytes;
  no_cuda("gr_gpu_fill");
}
void gr_gpu_poison_shared(uint32_t pattern)
{
  (void)pattern;
  no_cuda("gr_gpu_poison_shared");
}

int bench_gpu_open(int cold, char *why, size_t len)
{
  (void)cold;
  gr_fmt(why, len, "%s", NO_CUDA);
  return -1;
}
void bench_gpu_close(void) {}
double bench_gpu_copy_gbps(void) { return 0; }
void *bench_gpu_stream(void) { return NULL; }
double bench_gpu_sample(void (*launch)(void *), void *state, int launches, double spin_ns,
                        int *sm_clock_mhz, void *stream)
{
  (void)launch, (void)state, (void)launches, (void)spin_ns, (void)sm_clock_mhz, (void)stream;
  no_cuda("bench_gpu_sample");
}
int bench_gpu_sm_clock(void) { return 0; }
