# Sourced by the scripts: repository root, CUDA on PATH, Open MPI allowed as root (CI and the GPU
# machines run as root), and the build helpers below.
GR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ -d /usr/local/cuda/bin ] && case ":$PATH:" in *:/usr/local/cuda/bin:*) ;; *) PATH=/usr/local/cuda/bin:$PATH ;; esac
export PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The CUDA architectures of this machine's GPUs for CMAKE_CUDA_ARCHITECTURES ("90", "80;90"),
# from nvidia-smi; nothing when there is no GPU or no nvidia-smi.
gr_local_cuda_archs() {
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
    tr -d ' .' | grep -E '^[0-9]+$' | sort -un | paste -sd';' -
}

# Build a configured build folder (all of it, or the targets given after it). On a terminal the
# build writes to stderr as it goes (ninja's progress line); elsewhere (CI logs, pipes) its
# output is kept and shown only when the build fails, so the compiler's errors are always seen.
# Returns the build's status.
gr_build() {
  local dir=$1
  shift
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  if [ -t 2 ]; then
    cmake --build "$dir" -j"$(nproc)" ${targets[@]+"${targets[@]}"} >&2
    return
  fi
  local log rc=0
  log=$(mktemp)
  echo "building $dir ..." >&2
  cmake --build "$dir" -j"$(nproc)" ${targets[@]+"${targets[@]}"} >"$log" 2>&1 || rc=$?
  if [ $rc != 0 ]; then
    cat "$log" >&2
    echo "build of '$dir' failed (exit $rc)" >&2
  fi
  rm -f "$log"
  return $rc
}
