/* NVML, resolved at run time (no build dependency on it): the driver's release, and the clocks
 * and temperature of the one GPU this process uses. Internal to the harness (gpu.cu, the timing
 * layer). Everything answers "unknown" (0, "") where NVML, an entry point or the GPU's handle is
 * missing. Not thread-safe: the process's main thread only. */
#ifndef GR_NVML_H
#define GR_NVML_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Take the handle of this process's GPU by the CUDA device's PCI bus id (once: later calls
 * return at once). 0 ok. */
int gr_nvml_attach_pci(const char *bus_id);

int gr_nvml_attached(void);

/* The driver's release ("580.159.04"), "" unknown. */
void gr_nvml_release(char *buf, size_t len);

enum gr_nvml_clock { GR_NVML_CLOCK_SM = 1, GR_NVML_CLOCK_MEM = 2 };

/* The GPU's current clock in MHz, 0 unknown. */
int gr_nvml_clock(enum gr_nvml_clock which);

/* The GPU's temperature in degrees C, 0 unknown. */
int gr_nvml_temp(void);

#ifdef __cplusplus
}
#endif

#endif
