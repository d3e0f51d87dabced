#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The newcomer without the CUDA toolkit (issue 39): a fresh clone of this checkout's HEAD, on a
# PATH where no nvcc is found, no CUDA in the environment (CUDA_HOME unset, search paths without
# it) and GR_NO_CUDA=1 (so that nothing adds /usr/local/cuda), runs scripts/suite: it must build the host-only runner (build/host, the host preset), run the
# CPU variants, draw the sample night's dashboard and exit 0. Prints the wall time (the goal:
# 120 s on a 2-core machine); fails past GR_HOST_ONLY_LIMIT seconds (default 600: a hang, not a
# slow machine). Run by .ci/run.
#   tests/host_only.sh [SOURCE_DIR]
set -uo pipefail
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
limit=${GR_HOST_ONLY_LIMIT:-600}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

git clone --quiet "$src" "$tmp/clone" || { echo "FAIL: git clone"; exit 1; }
# PATH without nvcc: a folder that holds it is replaced by a copy of its links without it
shadow=$tmp/path
newpath=
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  case $d in *cuda*) continue ;; esac
  if [ -e "$d/nvcc" ]; then
    s=$shadow/$(printf '%s' "$d" | tr '/' '_')
    mkdir -p "$s"
    for f in "$d"/*; do
      case ${f##*/} in nvcc* | cuda* | ptxas | fatbinary | nvlink | cicc) continue ;; esac
      ln -s "$f" "$s/${f##*/}"
    done
    d=$s
  fi
  newpath=${newpath:+$newpath:}$d
done
if PATH=$newpath command -v nvcc >/dev/null 2>&1; then
  echo "FAIL: nvcc still on the PATH built for the test"
  exit 1
fi

# ... and no CUDA in the environment: CUDA_HOME and the like unset, the search paths without it
unset CUDA_HOME CUDA_PATH CUDA_ROOT CUDACXX CUDAToolkit_ROOT
for v in LIBRARY_PATH LD_LIBRARY_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH PKG_CONFIG_PATH; do
  [ -n "${!v:-}" ] || continue
  val=$(tr ':' '\n' <<<"${!v}" | grep -iv cuda | paste -sd: -)
  if [ -n "$val" ]; then export "$v=$val"; else unset "$v"; fi
done
if env | grep -v '^_=\|^PATH=\|^GR_NO_CUDA=' | grep -qi cuda; then
  echo "FAIL: CUDA still in the environment built for the test:"
  env | grep -v '^_=\|^PATH=\|^GR_NO_CUDA=' | grep -i cuda
  exit 1
fi

cd "$tmp/clone" || exit 1
start=$SECONDS
PATH=$newpath GR_NO_CUDA=1 GR_BUDGET=${GR_BUDGET:-20} timeout -k 10 "$limit" scripts/suite >"$tmp/suite.log" 2>&1
rc=$?
wall=$((SECONDS - start))
echo "host_only: scripts/suite without nvcc: exit $rc in $wall s (goal: 120 s on 2 cores);" \
  "$(grep -o 'built build/host in [0-9]* s' "$tmp/suite.log"); $(sed -n 1p "$tmp/suite.log")"
[ $rc = 0 ] || { fail "scripts/suite exit $rc"; tail -n 30 "$tmp/suite.log"; }
grep -q "host-only runner in build/host" "$tmp/suite.log" || fail "suite did not say it builds the host-only runner"
[ -x build/host/gpuregress ] || fail "no build/host/gpuregress"
[ -f results/sample/dashboard/index.html ] || fail "no sample dashboard"
[ -f results/dashboard/index.html ] || fail "no dashboard of this run"
grep -q 'GR_HOST_ONLY' build/host/compile_commands.json || fail "build/host is not the host-only build"
! grep -q '\.cu"' build/host/compile_commands.json || fail "build/host compiled a .cu file"
build/host/gpuregress run --filter ari/v2_shared --cases 1 --db "$tmp/x.db" >"$tmp/gpu.log" 2>&1
grep -q "built without CUDA" "$tmp/gpu.log" || fail "a GPU variant on the host-only runner: not 'built without CUDA'"
[ $fails = 0 ] && echo "host_only: ok"
exit $((fails > 0))
