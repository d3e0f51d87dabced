/* SPDX-License-Identifier: Apache-2.0 */
/* gpuregress/compat_v1.h: the names of API 1, for one release (0.3), deprecated.
 *
 * API 2 (gpuregress 0.3) gave every public name a gr_ / GR_ prefix, so that the headers can be
 * included into any project without taking its names (`struct variant`, `RUN_OK`, a macro `GPU`,
 * `rng_range`). A source written against API 1 builds again with this header included after
 * <gpuregress/gpuregress.h>: the old function, constant and macro names become the new ones. It
 * must still be rebuilt (a table compiled against API 1 is refused at registration), and it
 * leaves one thing to do by hand unless GR_COMPAT_V1_TAGS is defined before the include: the
 * struct and enum tags (`struct algorithm` -> `struct gr_algorithm`, see below), since a macro
 * for a tag renames every identifier of that spelling in the including file. sed(1) does the
 * whole rename: doc/api-v2.sed is the script.
 *
 * This header is not part of gpuregress.h and goes away in the next release. */
#ifndef GR_COMPAT_V1_H
#define GR_COMPAT_V1_H

#include "gpuregress.h"

#if defined(__GNUC__) && !defined(GR_COMPAT_V1_QUIET)
#pragma message("gpuregress/compat_v1.h: API 1 names are deprecated; see doc/adding-your-kernel.md")
#endif

/* variant kinds and flags, algorithm flags */
#define VARIANT_REFERENCE GR_VARIANT_REFERENCE
#define VARIANT_FIXED GR_VARIANT_FIXED
#define VARIANT_HISTORICAL GR_VARIANT_HISTORICAL
#define VARIANT_PEER GR_VARIANT_PEER
#define VARIANT_GPU GR_VARIANT_GPU
#define VARIANT_NONDET GR_VARIANT_NONDET
#define VARIANT_NOSHMEM GR_VARIANT_NOSHMEM
#define VARIANT_HOST_BOUND GR_VARIANT_HOST_BOUND
#define VARIANT_HOST_TIMED GR_VARIANT_HOST_TIMED
#define ALG_HIDDEN GR_ALG_HIDDEN
/* parameters, run status, regimes, element types */
#define PARAM_INT GR_PARAM_INT
#define PARAM_ENUM GR_PARAM_ENUM
#define PARAM_FILE GR_PARAM_FILE
#define RUN_OK GR_RUN_OK
#define RUN_UNSUPPORTED GR_RUN_UNSUPPORTED
#define RUN_ERROR GR_RUN_ERROR
#define REGIME_LIMIT GR_REGIME_LIMIT
#define REGIME_LARGE GR_REGIME_LARGE
#define ELEM_I8 GR_ELEM_I8
#define ELEM_U8 GR_ELEM_U8
#define ELEM_I16 GR_ELEM_I16
#define ELEM_U16 GR_ELEM_U16
#define ELEM_I32 GR_ELEM_I32
#define ELEM_U32 GR_ELEM_U32
#define ELEM_I64 GR_ELEM_I64
#define ELEM_U64 GR_ELEM_U64
#define GPU(fn) GR_GPU(fn)
/* functions */
#define alg_param gr_alg_param
#define alg_variant gr_alg_variant
#define variant_kind_name gr_variant_kind_name
#define case_data_dir gr_case_data_dir
#define case_file gr_case_file
#define case_has_files gr_case_has_files
#define check_fail gr_check_fail
#define check_exact gr_check_exact
#define check_close_f64 gr_check_close_f64
#define check_close_f32 gr_check_close_f32
#define check_range_f64 gr_check_range_f64
#define check_first_diff gr_check_first_diff
#define gpu_last_error gr_gpu_last_error
#define gpu_device_count gr_gpu_device_count
#define gpu_query gr_gpu_query
#define gpu_mem_info gr_gpu_mem_info
#define gpu_poison_shared gr_gpu_poison_shared
#define gpu_sync gr_gpu_sync
#define rng_seed gr_rng_seed
#define rng_u64 gr_rng_u64
#define rng_u32 gr_rng_u32
#define rng_range gr_rng_range
#define rng_unit gr_rng_unit
#define rng_chance gr_rng_chance
#define rng_log_range gr_rng_log_range
#define rng_boundary gr_rng_boundary

/* The tags, only on request: each renames every identifier of its spelling in the file. */
#ifdef GR_COMPAT_V1_TAGS
#define algorithm gr_algorithm
#define variant gr_variant
#define param_spec gr_param_spec
#define run_ctx gr_run_ctx
#define check_report gr_check_report
#define regime gr_regime
#define rng gr_rng
#define gpu_info gr_gpu_info
#define variant_kind gr_variant_kind
#define param_type gr_param_type
#define run_status gr_run_status
#define elem_type gr_elem_type
#endif

#endif
