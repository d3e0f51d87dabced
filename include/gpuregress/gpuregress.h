/* SPDX-License-Identifier: Apache-2.0 */
/* gpuregress/gpuregress.h: the whole public API of gpuregress in one include.
 *   version.h  the release and the algorithm API version (GR_API_VERSION)
 *   alg.h      the algorithm contract: parameters, variants, generator, instance, check, work
 *              model, timing hooks, regimes; GR_REGISTER_ALGORITHM; stability statement
 *   check.h    comparison helpers for checkers (exact, tolerance, range), with readable reasons
 *   rng.h      the deterministic random numbers (the same seed, the same stream, everywhere)
 *   gpu.h      CUDA helpers for GPU variants: GR_CUDA_CHECK, GR_CUDA_LAUNCH_CHECK, gr_gpu_sync
 *   util.h     host helpers: gr_fmt, gr_parse_*, gr_now_seconds, gr_parallel_for (CPU references),
 *              GR_EXIT_*, gr_run_program (a helper program such as an MPI launch)
 * (compat_v1.h, not included here: the API 1 names, deprecated, for one release.)
 * Build a runner with find_package(gpuregress) and gpuregress_add_executable (CMake), see
 * doc/adding-your-kernel.md. */
#ifndef GR_GPUREGRESS_H
#define GR_GPUREGRESS_H

#include "version.h"
#include "alg.h"
#include "check.h"
#include "rng.h"
#include "gpu.h"
#include "util.h"

#endif
