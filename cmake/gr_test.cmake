# Test helpers, used by tests/ and by every algorithm folder's CMakeLists.txt.
# Labels: `cpu` (runs anywhere) and `gpu` (skipped, not passed, without a CUDA device: exit 77).

# gr_test(NAME LABEL cpu|gpu [LABELS extra...] [TIMEOUT s] ARGS command...)
# LABELS adds labels beside cpu/gpu (`untrusted`: ctest -L untrusted runs every hostile-input probe).
# A gpu test asks CTest for one GPU (RESOURCE_GROUPS gpus:1) and runs through tests/gpu_env.sh,
# which turns the GPU CTest gave it into CUDA_VISIBLE_DEVICES: with the resource spec file of
# cmake/gpu_resources.cmake (ctest --preset gpu) the GPU tests spread over every GPU of the host,
# one test a GPU; without one (the other presets) CTest ignores the groups.
function(gr_test name)
  cmake_parse_arguments(T "" "LABEL;TIMEOUT" "LABELS;ARGS" ${ARGN})
  if(NOT GPUREGRESS_CUDA AND T_LABEL STREQUAL "gpu")
    return() # a host-only build (GPUREGRESS_CUDA OFF) has no GPU tests
  endif()
  set(labels ${T_LABEL} ${T_LABELS})
  if(T_LABEL STREQUAL "gpu")
    add_test(NAME ${name} COMMAND ${PROJECT_SOURCE_DIR}/tests/gpu_env.sh ${T_ARGS})
    set_tests_properties(${name} PROPERTIES RESOURCE_GROUPS "gpus:1")
  else()
    add_test(NAME ${name} COMMAND ${T_ARGS})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77
                       TIMEOUT "$<IF:$<BOOL:${T_TIMEOUT}>,${T_TIMEOUT},300>")
endfunction()

# gr_test_exe(NAME source...): a test program linked like gpuregress and with the test helpers
# (tests/test_util.h, tests/gpu_timing.h: library gr_test_util of tests/CMakeLists.txt). Every
# test program lands in <build>/tests/, whichever folder declares it (the kmedoids tests find
# kmedoids_mpi in the parent folder of their own).
# gr_test_exe(NAME [GPU] source...): GPU marks a program that calls the kernels (a .cu source
# does too): a host-only build (GPUREGRESS_CUDA OFF) leaves it out, with its gpu tests.
function(gr_test_exe name)
  set(sources ${ARGN})
  list(FIND sources GPU gpu_at)
  list(FILTER sources EXCLUDE REGEX "^GPU$")
  list(FILTER sources INCLUDE REGEX "\\.cu$")
  if(NOT GPUREGRESS_CUDA AND (gpu_at GREATER -1 OR sources))
    return()
  endif()
  set(sources ${ARGN})
  list(FILTER sources EXCLUDE REGEX "^GPU$")
  add_executable(${name} ${sources})
  # whole: the algorithms register themselves, referenced by no one
  target_link_libraries(${name} PRIVATE gr_test_util $<LINK_LIBRARY:WHOLE_ARCHIVE,gpuregress_core>)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests ${GR_INTERNAL_INCLUDES})
  target_compile_options(${name} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:${GR_C_WARNINGS}> $<$<COMPILE_LANGUAGE:CUDA>:${GR_CUDA_FLAGS}>)
  # in <build>/tests: Google Benchmark's library is the one copied beside gpuregress in <build>
  # (a GPU machine lacks it; with $ORIGIN alone ctest there failed on every test program)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests
                                           BUILD_RPATH "$ORIGIN;$ORIGIN/..")
endfunction()

# CTest's resource spec file for the GPU tests, from the GPUs present now (written again only
# when it changes): <build>/gpu-resources.json, which `ctest --preset gpu` reads.
execute_process(COMMAND ${CMAKE_COMMAND} -DOUT=${CMAKE_BINARY_DIR}/gpu-resources.json
                        -P ${CMAKE_CURRENT_LIST_DIR}/gpu_resources.cmake)
