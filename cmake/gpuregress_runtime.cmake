# SPDX-License-Identifier: Apache-2.0
# Run (cmake -P) after a runner of gpuregress_add_executable is linked: the files a runner reads
# beside it copied into its folder, under a lock on that folder. Two runners of one project build
# at once into one folder, and two copies writing the same file together failed ("Error copying
# file (if different)" in a parallel build of examples/histogram).
#   cmake -DDST=FOLDER -DBENCH=LIBBENCHMARK -DDATA=SHARE_GPUREGRESS [-DMPI=KMEDOIDS_MPI] -P this
# file(COPY) keeps timestamps and skips a file already there with the same one: a relink copies
# nothing.
foreach(var DST BENCH DATA)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "gpuregress_runtime.cmake: -D${var}=... is missing")
  endif()
endforeach()
file(MAKE_DIRECTORY "${DST}/share" "${DST}/scripts")
file(LOCK "${DST}/.gpuregress-runtime.lock" GUARD PROCESS TIMEOUT 300)
file(COPY "${BENCH}" DESTINATION "${DST}")
file(COPY "${DATA}/dashboard.html" "${DATA}/history.html" DESTINATION "${DST}/share")
file(COPY "${DATA}/scripts/" DESTINATION "${DST}/scripts")
if(DEFINED MPI AND NOT "${MPI}" STREQUAL "")
  file(COPY "${MPI}" DESTINATION "${DST}")
endif()
