/* CUDA helpers shared by every GPU variant: error handling, device queries and the shared-memory
 * poisoning kernel of the differential check. See gpu.h. */
#include "gpu.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"
#include "nvml.h"

/* device helpers */

/* A value that differs per word, per block and per pattern, so that whatever a later kernel
 * reads from shared memory it did not write is garbage of a different kind on each run. */
__device__ static unsigned poison_word(unsigned pattern, unsigned i)
{
  unsigned x = pattern * 0x9e3779b9u ^ (i * 0x85ebca6bu) ^ (blockIdx.x * 0xc2b2ae35u);
  x ^= x >> 15;
  return x | 0x01010101u; /* never zero, so a counter left in place is visibly wrong */
}

/* kernels */

static __global__ void poison_shared_kernel(unsigned pattern, unsigned words)
{
  extern __shared__ unsigned smem[];
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    smem[i] = poison_word(pattern, i);
  __syncthreads();
  /* keep the stores: the compiler may not drop shared stores nothing reads, but a volatile read
   * of one word makes that certain */
  if (threadIdx.x == 0 && ((volatile unsigned *)smem)[0] == 0xffffffffu && pattern == 0xffffffffu)
    smem[1] = 0;
}

/* host side */

extern "C" void gr_cuda_fail(const char *what, const char *func, const char *file, int line, int err)
{
  fprintf(stderr, "cuda error: '%s' failed in %s (%s:%d): %s (%s)\n", what, func, file, line,
          cudaGetErrorString((cudaError_t)err), cudaGetErrorName((cudaError_t)err));
  fflush(stderr);
  _Exit(GR_WORKER_EXIT_CUDA);
}

extern "C" int gr_gpu_last_error(void)
{
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && getenv("GR_SYNC_CHECK"))
    e = cudaDeviceSynchronize();
  return (int)e;
}

extern "C" int gr_gpu_device_count(char *why, size_t len)
{
  int n = 0, driver = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaDriverGetVersion(&driver); /* 0: no driver at all */
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (lib)
      dlclose(lib);
    if (e == cudaErrorInsufficientDriver && (!lib || driver == 0))
      gr_fmt(why, len, "no NVIDIA driver: libcuda.so.1 cannot be loaded (install the driver)");
    else if (e == cudaErrorInsufficientDriver)
      gr_fmt(why, len, "NVIDIA driver too old (found CUDA %d.%d, need %d.%d): update the driver",
             driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    else if (e == cudaErrorNoDevice)
      gr_fmt(why, len, "no CUDA device: the NVIDIA driver found none");
    else
      gr_fmt(why, len, "no usable CUDA device: %s", cudaGetErrorString(e));
    cudaGetLastError(); /* clear: this error is not sticky */
    return 0;
  }
  if (n == 0)
    gr_fmt(why, len, "no CUDA device: the NVIDIA driver found none");
  return n;
}

/* NVML (nvml.h): the driver's release, the current clocks and the temperature of device dev.
 * Leaves info's fields empty where NVML or an entry point is missing. */
static void nvml_query(struct gr_gpu_info *info, int dev)
{
  char bus[32];
  if (!gr_nvml_attached() && cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess)
    gr_nvml_attach_pci(bus);
  gr_nvml_release(info->driver_release, sizeof info->driver_release);
  info->sm_clock_now_mhz = gr_nvml_clock(GR_NVML_CLOCK_SM);
  info->mem_clock_now_mhz = gr_nvml_clock(GR_NVML_CLOCK_MEM);
  info->temp_c = gr_nvml_temp();
}

extern "C" int gr_gpu_query(struct gr_gpu_info *info, char *why, size_t len)
{
  memset(info, 0, sizeof *info);
  int dev = 0;
  cudaDeviceProp p;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess)
    e = cudaGetDeviceProperties(&p, dev);
  if (e != cudaSuccess) {
    gr_fmt(why, len, "cannot query the CUDA device: %s", cudaGetErrorString(e));
    return -1;
  }
  memcpy(info->name, p.name, sizeof info->name - 1);
  info->name[sizeof info->name - 1] = 0;
  /* the UUID as nvidia-smi prints it: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
  const unsigned char *u = (const unsigned char *)p.uuid.bytes;
  char *o = info->uuid + sprintf(info->uuid, "GPU-");
  for (int i = 0; i < 16; i++)
    o += sprintf(o, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
  info->sm_count = p.multiProcessorCount;
  info->cc_major = p.major;
  info->cc_minor = p.minor;
  info->total_mem = p.totalGlobalMem;
  info->smem_per_block_optin = p.sharedMemPerBlockOptin;
  info->smem_per_sm = p.sharedMemPerMultiprocessor;
  info->l2_bytes = (size_t)p.l2CacheSize;
  cudaDriverGetVersion(&info->driver_version);
  cudaRuntimeGetVersion(&info->runtime_version);
  cudaDeviceGetAttribute(&info->sm_clock_khz, cudaDevAttrClockRate, dev);
  cudaDeviceGetAttribute(&info->mem_clock_khz, cudaDevAttrMemoryClockRate, dev);
  nvml_query(info, dev);
  return 0;
}

extern "C" void gr_gpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
  GR_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
}

extern "C" void gr_gpu_sync(void)
{
  GR_CUDA_CHECK(cudaDeviceSynchronize());
}

extern "C" void gr_gpu_fill(void *dev, unsigned char byte, size_t bytes)
{
  if (bytes)
    GR_CUDA_CHECK(cudaMemset(dev, byte, bytes));
}

extern "C" void gr_gpu_poison_shared(uint32_t pattern)
{
  static int smem_bytes = -1, blocks = 0;
  if (smem_bytes < 0) {
    int dev, sms, optin, per_sm;
    GR_CUDA_CHECK(cudaGetDevice(&dev));
    GR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    GR_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    GR_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    GR_CUDA_CHECK(cudaFuncSetAttribute(poison_shared_kernel,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    smem_bytes = optin;
    /* every SM, several rounds: the block scheduler does not promise one block per SM, so
     * oversubscribe until each SM has certainly run one */
    blocks = sms * 4 * (per_sm / optin > 0 ? per_sm / optin : 1);
  }
  poison_shared_kernel<<<blocks, 1024, smem_bytes>>>(pattern, (unsigned)smem_bytes / 4u);
  GR_CUDA_LAUNCH_CHECK();
  GR_CUDA_CHECK(cudaDeviceSynchronize());
}
