# Sourced by the scripts: repository root, CUDA on PATH, Open MPI allowed as root (CI and the GPU
# machines run as root), and the build helpers below.
GR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# GR_NO_CUDA=1: act as a machine without the CUDA toolkit (CI checks the host-only path so).
[ -z "${GR_NO_CUDA:-}" ] && [ -d /usr/local/cuda/bin ] &&
  case ":$PATH:" in *:/usr/local/cuda/bin:*) ;; *) PATH=/usr/local/cuda/bin:$PATH ;; esac
# gr_have_cuda: 0 when the CUDA toolkit is there to build the kernels
gr_have_cuda() { [ -z "${GR_NO_CUDA:-}" ] && command -v nvcc >/dev/null 2>&1; }
export PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Configure a preset (gr_configure PRESET [cmake args...]) with ccache as the compiler launcher
# when it is installed (scripts/setup installs it): a rebuild after a clean checkout, and the
# toy_algorithm test's copy of the tree, reuse the objects already compiled. CCACHE_BASEDIR
# defaults to the repository root, so that the copy (inside build/) hits the same entries.
gr_configure() {
  local preset=$1 cache=()
  shift
  if command -v ccache >/dev/null 2>&1 && [ -z "${CCACHE_DISABLE:-}" ]; then
    cache=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
           -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  cmake --preset "$preset" ${cache[@]+"${cache[@]}"} "$@" >/dev/null
}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$GR_ROOT}

# The CUDA architectures of this machine's GPUs for CMAKE_CUDA_ARCHITECTURES ("90", "80;90"),
# from nvidia-smi; nothing when there is no GPU or no nvidia-smi.
gr_local_cuda_archs() {
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
    tr -d ' .' | grep -E '^[0-9]+$' | sort -un | paste -sd';' -
}

# Build a configured build folder (all of it, or the targets given after it). On a terminal the
# build writes to stderr as it goes (ninja's progress line); elsewhere (CI logs, pipes) its
# output is kept, a heartbeat line (steps done, seconds) goes to stderr every GR_HEARTBEAT
# seconds (30) so that a long build is never silent, and the output is shown whole only when the
# build fails, so the compiler's errors are always seen. Returns the build's status.
gr_build() {
  local dir=$1
  shift
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  if [ -t 2 ]; then
    cmake --build "$dir" -j"$(nproc)" ${targets[@]+"${targets[@]}"} >&2
    return
  fi
  local log rc=0 start=$SECONDS
  log=$(mktemp)
  echo "building $dir${1:+ (${*})} ..." >&2
  cmake --build "$dir" -j"$(nproc)" ${targets[@]+"${targets[@]}"} >"$log" 2>&1 &
  local pid=$!
  gr_heartbeat "$pid" "building $dir" "$log"
  wait "$pid" || rc=$?
  if [ $rc != 0 ]; then
    cat "$log" >&2
    echo "build of '$dir' failed (exit $rc)" >&2
  else
    echo "built $dir in $((SECONDS - start)) s" >&2
  fi
  rm -f "$log"
  return $rc
}

# gr_heartbeat PID WHAT [NINJA_LOG]: while PID runs, every GR_HEARTBEAT seconds (30) print
# "WHAT: still running, N s" to stderr, with ninja's last "[done/total]" from NINJA_LOG.
gr_heartbeat() {
  local pid=$1 what=$2 log=${3:-} every=${GR_HEARTBEAT:-30} start=$SECONDS next step
  next=$((SECONDS + every))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    [ $SECONDS -ge $next ] || continue
    next=$((SECONDS + every))
    step=
    [ -n "$log" ] && step=$(grep -o '^\[[0-9]*/[0-9]*\]' "$log" 2>/dev/null | tail -n 1 | tr -d '[]')
    echo "$what: still running, $((SECONDS - start)) s${step:+, $step steps}" >&2
  done
}

# gr_pipe_heartbeat WHAT: copy stdin to stdout line by line; when nothing came for GR_HEARTBEAT
# seconds (30), print "WHAT: still running, N s".
gr_pipe_heartbeat() {
  local what=$1 every=${GR_HEARTBEAT:-30} start=$SECONDS line part='' st
  while :; do
    st=0
    IFS= read -r -t "$every" line || st=$?
    if [ $st = 0 ]; then
      printf '%s%s\n' "$part" "$line"
      part=
    elif [ $st -gt 128 ]; then # timed out: keep what came of the line
      part+=$line
      echo "$what: still running, $((SECONDS - start)) s" >&2
    else # end of input
      [ -z "$part$line" ] || printf '%s%s\n' "$part" "$line"
      return 0
    fi
  done
}

# gr_skip_reasons JUNIT_XML: the tests ctest skipped, grouped by the reason each printed last
# (a line with "skip" in it, else its last line).
gr_skip_reasons() {
  [ -f "$1" ] || return 0
  python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
groups = {}
for tc in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if tc.get("status") != "notrun":
        continue
    out = [l.strip() for l in (tc.findtext("system-out") or "").splitlines() if l.strip()]
    said = [l for l in out if "skip" in l.lower()]
    sk = tc.find("skipped")
    why = (said or out or [sk.get("message", "") if sk is not None else "no reason given"])[-1]
    groups.setdefault(why, []).append(tc.get("name"))
if groups:
    n = sum(len(v) for v in groups.values())
    print(f"{n} test{'s' * (n != 1)} skipped, and why:")
    for why, names in groups.items():
        print(f"  {len(names)}: {why}")
        print(f"     {' '.join(sorted(names))}")
PY
}
