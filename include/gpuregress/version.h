/* SPDX-License-Identifier: Apache-2.0 */
/* gpuregress/version.h: the version of gpuregress and of its algorithm API (public API).
 *
 * GR_VERSION_MAJOR.MINOR.PATCH is the release (the CMake package's version; the project's
 * CMakeLists.txt reads it from here). GR_API_VERSION is the version of the algorithm contract
 * (alg.h, check.h, rng.h, gpu.h): it rises only when a table or a checker written against the
 * older headers would no longer build or would mean something else, and an algorithm is
 * registered only by a runner of the same GR_API_VERSION (alg.h, GR_REGISTER_ALGORITHM). The CMake
 * package accepts find_package(gpuregress X.Y) for any release of the same major version
 * (SameMajorVersion) at or above X.Y. */
#ifndef GR_VERSION_H
#define GR_VERSION_H

#define GR_VERSION_MAJOR 0
#define GR_VERSION_MINOR 3
#define GR_VERSION_PATCH 0
#define GR_VERSION_STRING "0.3.0"

/* The algorithm contract's version. */
#define GR_API_VERSION 2

/* GR_VERSION_AT_LEAST(0, 2, 0): compile-time test of the release. */
#define GR_VERSION_AT_LEAST(major, minor, patch)                                                   \
  (GR_VERSION_MAJOR * 1000000 + GR_VERSION_MINOR * 1000 + GR_VERSION_PATCH >=                      \
   (major) * 1000000 + (minor) * 1000 + (patch))

#endif
