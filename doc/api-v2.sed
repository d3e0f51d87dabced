# From API 1 to API 2 (gpuregress 0.3): every public name gains gr_ / GR_.
#   sed -i -E -f doc/api-v2.sed $(git ls-files "*.c" "*.h" "*.cu" "*.cuh" "*.cc")
# It renames names the headers own only; a struct field of yours that happens to be spelled
# like an API function (x.case_file) is left alone.
s/\bstruct (algorithm|variant|param_spec|run_ctx|check_report|regime|rng|gpu_info)\b/struct gr_\1/g
s/\benum (variant_kind|param_type|run_status|elem_type)\b/enum gr_\1/g
s/\bVARIANT_(REFERENCE|FIXED|HISTORICAL|PEER|GPU|NONDET|NOSHMEM|HOST_BOUND|HOST_TIMED)\b/GR_VARIANT_\1/g
s/\bALG_HIDDEN\b/GR_ALG_HIDDEN/g
s/\bPARAM_(INT|ENUM|FILE)\b/GR_PARAM_\1/g
s/\bRUN_(OK|UNSUPPORTED|ERROR)\b/GR_RUN_\1/g
s/\bREGIME_(LIMIT|LARGE)\b/GR_REGIME_\1/g
s/\bELEM_(I8|U8|I16|U16|I32|U32|I64|U64)\b/GR_ELEM_\1/g
s/\bGPU\(([a-z_][a-z0-9]*_[a-z0-9_]*)\)/GR_GPU(\1)/g
s/(^|[^.>A-Za-z0-9_])(alg_param|alg_variant|variant_kind_name|case_data_dir|case_file|case_has_files|check_fail|check_exact|check_close_f64|check_close_f32|check_range_f64|check_first_diff|gpu_last_error|gpu_device_count|gpu_query|gpu_mem_info|gpu_poison_shared|gpu_sync|rng_seed|rng_u64|rng_u32|rng_range|rng_unit|rng_chance|rng_log_range|rng_boundary)\b/\1gr_\2/g
