# Writes OUT, CTest's resource spec file (ctest --preset gpu reads it): one "gpus" resource per
# GPU nvidia-smi lists, id = its index (CUDA_DEVICE_ORDER=PCI_BUS_ID order), one slot each, so
# that each GPU test gets a GPU of its own and the tests spread over every GPU of the host.
# Without nvidia-smi or a GPU it lists one pseudo-GPU "none": the GPU tests still run (one at a
# time) and skip as they do without a device.
#   cmake -DOUT=build/gpu/gpu-resources.json -P cmake/gpu_resources.cmake
# The configure step writes it into the build folder; run this again before ctest on another
# machine than the build's (scripts/gpu-check does).
if(NOT OUT)
  message(FATAL_ERROR "gpu_resources.cmake: -DOUT=FILE is required")
endif()
set(ids)
find_program(GR_NVIDIA_SMI nvidia-smi)
if(GR_NVIDIA_SMI)
  execute_process(COMMAND ${GR_NVIDIA_SMI} --query-gpu=index --format=csv,noheader
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0)
    string(REGEX MATCHALL "[0-9]+" ids "${out}")
  endif()
endif()
list(LENGTH ids n_ids) # not if(NOT ids): one GPU is the list "0", which if() reads as false
if(n_ids EQUAL 0)
  set(ids none)
endif()
set(entries)
foreach(id ${ids})
  list(APPEND entries "{\"id\": \"${id}\", \"slots\": 1}")
endforeach()
list(JOIN entries ", " body)
set(text "{\"version\": {\"major\": 1, \"minor\": 0},\n \"local\": [{\"gpus\": [${body}]}]}\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
list(LENGTH ids n)
message(STATUS "GPU tests: ${n} resource(s) in ${OUT}: ${ids}")
