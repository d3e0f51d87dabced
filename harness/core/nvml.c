/* NVML through dlopen: only the entry points we need, declared by hand. See nvml.h.
 *
 * One load and one handle per process: the GPU description (gr_gpu_query) and the timing layer's
 * per-sample SM clock (bench_gpu.cu) used to load NVML and attach the GPU each on its own. Where
 * the handle is taken did not matter to the start of bench --gpus, whose benchmark processes
 * start CUDA at once: on 4 H100s, bench --quick --gpus all run back to back took 2.95 and 2.82 s
 * with the handle taken by UUID before CUDA, 2.80 and 2.82 s by PCI bus id after CUDA's start
 * (this), 2.78 and 2.86 s with no NVML at all. (An earlier comparison that put the first at 0.5 s
 * slower had run it right after a one-GPU bench: three of its GPUs had sat idle, and a GPU idle
 * for a few seconds starts CUDA about 0.5 s later, plain libcuda as much as gpuregress.) */
#define _GNU_SOURCE
#include "nvml.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "gr.h"

typedef int (*init_fn)(void);
typedef int (*version_fn)(char *version, unsigned length);
typedef int (*handle_fn)(const char *id, void **device);
typedef int (*clock_fn)(void *device, int type, unsigned *mhz);
typedef int (*temp_fn)(void *device, int sensor, unsigned *celsius);
#define NVML_TEMPERATURE_GPU 0

static struct {
  int tried; /* load() ran */
  void *lib, *dev;
  version_fn version;
  handle_fn by_pci;
  clock_fn clock;
  temp_fn temp;
} N;

/* Load and initialise NVML once (nvmlInit_v2 attaches no GPU: the handle calls do). 0 ok. */
static int load(void)
{
  if (N.tried)
    return N.lib ? 0 : -1;
  N.tried = 1;
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return -1;
  init_fn init = (init_fn)dlsym(lib, "nvmlInit_v2");
  if (!init || init() != 0) {
    dlclose(lib);
    return -1;
  }
  N.version = (version_fn)dlsym(lib, "nvmlSystemGetDriverVersion");
  N.by_pci = (handle_fn)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
  N.clock = (clock_fn)dlsym(lib, "nvmlDeviceGetClockInfo");
  N.temp = (temp_fn)dlsym(lib, "nvmlDeviceGetTemperature");
  N.lib = lib; /* stays loaded: the process ends soon after its GPU work */
  return 0;
}

int gr_nvml_attach_pci(const char *bus_id)
{
  if (N.dev)
    return 0;
  if (load() || !N.by_pci || N.by_pci(bus_id, &N.dev) != 0) {
    N.dev = NULL;
    return -1;
  }
  return 0;
}

int gr_nvml_attached(void) { return N.dev != NULL; }

void gr_nvml_release(char *buf, size_t len)
{
  char v[80] = "";
  if (load() == 0 && N.version && N.version(v, sizeof v) == 0)
    v[sizeof v - 1] = 0;
  else
    v[0] = 0;
  gr_fmt(buf, len, "%s", v);
}

int gr_nvml_clock(enum gr_nvml_clock which)
{
  unsigned u = 0;
  return N.dev && N.clock && N.clock(N.dev, (int)which, &u) == 0 ? (int)u : 0;
}

int gr_nvml_temp(void)
{
  unsigned u = 0;
  return N.dev && N.temp && N.temp(N.dev, NVML_TEMPERATURE_GPU, &u) == 0 ? (int)u : 0;
}
