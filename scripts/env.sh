# Sourced by the scripts: repository root, CUDA on PATH, Open MPI allowed as root (CI and the GPU
# machines run as root).
GR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ -d /usr/local/cuda/bin ] && case ":$PATH:" in *:/usr/local/cuda/bin:*) ;; *) PATH=/usr/local/cuda/bin:$PATH ;; esac
export PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
