#!/usr/bin/env bash
# cmake/gpu_resources.cmake, the resource spec file of `ctest --preset gpu`, with a stand-in
# nvidia-smi: one GPU (index 0) is listed as GPU "0", not as "none" (if(NOT ids) read the list
# "0" as false: a one-GPU host's tests said "no GPU listed"); four GPUs are four; no nvidia-smi,
# a failing one and output with no index give the one pseudo-GPU "none"; only indices are taken
# from its output.
#   tests/gpu_resources.sh SOURCE_DIR CMAKE
set -u
src=$1
cmake=$2
source "$(dirname "$0")/expect.sh"
mkdir -p "$tmp/bin"
spec() { # OUTPUT_OF_NVIDIA_SMI EXIT_STATUS: the spec file's GPU ids, space-separated
  if [ "$2" = absent ]; then
    rm -f "$tmp/bin/nvidia-smi"
  else
    printf '%b' "$1" >"$tmp/out.txt"
    printf '#!/bin/sh\ncat "%s"\nexit %s\n' "$tmp/out.txt" "$2" >"$tmp/bin/nvidia-smi"
    chmod +x "$tmp/bin/nvidia-smi"
  fi
  rm -f "$tmp/spec.json"
  PATH="$tmp/bin:/usr/bin:/bin" "$cmake" -DOUT="$tmp/spec.json" -P "$src/cmake/gpu_resources.cmake" >/dev/null
  grep -o '"id": "[^"]*"' "$tmp/spec.json" | sed 's/"id": "//; s/"$//' | tr '\n' ' '
}
check "one GPU is GPU 0" test "$(spec '0\n' 0)" = "0 "
check "four GPUs" test "$(spec '0\n1\n2\n3\n' 0)" = "0 1 2 3 "
check "no nvidia-smi" test "$(spec '' absent)" = "none "
check "nvidia-smi fails" test "$(spec '0\n' 9)" = "none "
check "no index in the output" test "$(spec 'No devices were found\n' 0)" = "none "
check "only the indices" test "$(spec '0\n../x"\n' 0)" = "0 "
[ "$fails" = 0 ] && echo "gpu_resources: ok"
exit $((fails > 0))
