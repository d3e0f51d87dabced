#!/usr/bin/env bash
# Runs a GPU test on the GPU CTest gave it (ctest --preset gpu: resource allocation over the
# GPUs of cmake/gpu_resources.cmake): CTEST_RESOURCE_GROUP_0_GPUS="id:2,slots:1" becomes
# CUDA_VISIBLE_DEVICES=2 (nvidia-smi's order), and the device is said on the first line of the
# test's output. Without an allocation (ctest without a resource spec file) the test runs as it
# is, on the GPUs the environment gives it.
set -u
if [ -n "${CTEST_RESOURCE_GROUP_0_GPUS:-}" ]; then
  id=${CTEST_RESOURCE_GROUP_0_GPUS#id:}
  id=${id%%,*}
  if [ "$id" != none ]; then
    export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=$id
    uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i "$id" 2>/dev/null || true)
    echo "gpu test on device $id ${uuid:-} (CTEST_RESOURCE_GROUP_0_GPUS=$CTEST_RESOURCE_GROUP_0_GPUS)"
  else
    echo "gpu test: no GPU listed in the resource spec file (CTEST_RESOURCE_GROUP_0_GPUS=$CTEST_RESOURCE_GROUP_0_GPUS)"
  fi
fi
exec "$@"
