#!/usr/bin/env bash
# The scripts refuse bad options and environment values at once, with the reason and exit 2,
# before installing or building anything: `scripts/test --bogus` ran the whole build and exited 0
# (ctest ignores options it does not know), `scripts/suite` checked its options only after setup
# and a build, `scripts/gpu-check` with a bad GR_BUDGET exited 2 without a word. Also keeps
# scripts/suite's copy of the `gpuregress run` options in step with the binary's --help.
#   tests/scripts.sh GPUREGRESS
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
source "$(dirname "$0")/expect.sh"

# scripts/test: unknown options and missing values; nothing is built (these return at once)
expect 2 "unknown option '--bogus'" -- "$root/scripts/test" --bogus
expect 2 "unknown option 'stray'" -- "$root/scripts/test" -R ari stray
expect 2 "'-R' needs a value" -- "$root/scripts/test" -R
expect 0 "usage: scripts/test" -- "$root/scripts/test" --help

# scripts/suite: checked before setup (GR_SUITE_DRY_RUN=1 stops right after the check)
export GR_SUITE_DRY_RUN=1
expect 2 "unrecognized option '--bogus'" -- "$root/scripts/suite" --bogus
expect 2 "option '--filter' requires an argument" -- "$root/scripts/suite" --filter
expect 2 "unexpected argument 'extra'" -- "$root/scripts/suite" --filter ari extra
expect 2 "GR_BUDGET='abc' is not a number of seconds" -- env GR_BUDGET=abc "$root/scripts/suite"
expect 0 "options ok" -- env GR_BUDGET=2.5 "$root/scripts/suite" --filter=ari -v --seed 3
# every option `gpuregress run --help` lists is one scripts/suite accepts (with a value if any)
help=$("$bin" run --help)
opts=$(grep -oE '^ +(-[a-z], )?--[a-z-]+( [A-Z]+)?' <<<"$help" | sed -E 's/^ +(-[a-z], )?//')
[ -n "$opts" ] || { echo "FAIL: no options found in 'gpuregress run --help'"; fails=$((fails + 1)); }
while read -r opt val; do
  [ -n "$opt" ] || continue
  expect 0 "options ok" -- "$root/scripts/suite" "$opt" ${val:+1}
done <<<"$opts"
unset GR_SUITE_DRY_RUN

# scripts/gpu-check: the environment and arguments are checked first, and named
build=$(dirname "$bin")
expect 2 "GR_BUDGET='ten' is not a number of seconds" -- env GR_BUDGET=ten "$root/scripts/gpu-check" "$build"
expect 2 "GR_SEED='-1' is not an unsigned decimal integer" -- env GR_SEED=-1 "$root/scripts/gpu-check" "$build"
expect 2 "GR_SANITIZE_BUDGET='1.5' is not a whole number of seconds" -- env GR_SANITIZE_BUDGET=1.5 "$root/scripts/gpu-check" "$build"
expect 2 "usage: scripts/gpu-check [BUILD_DIR]" -- "$root/scripts/gpu-check" "$build" extra
expect 2 "bad value 'x' for --slice-budget" -- "$root/ci/nightly" --no-build --slice-budget x
expect 2 "--slice-budget needs a value" -- "$root/ci/nightly" --no-build --slice-budget
expect 2 "no gpuregress in '$tmp'" -- "$root/scripts/gpu-check" "$tmp"

# the build helpers of scripts/env.sh: this machine's GPU architectures from nvidia-smi (a fake
# one here); a failed build shows the compiler's error even when its output is
# not a terminal (scripts/suite hid it behind >/dev/null)
mkdir -p "$tmp/fakebin" "$tmp/proj"
printf '#!/bin/sh\necho 9.0\necho 9.0\necho 8.6\n' >"$tmp/fakebin/nvidia-smi"
chmod +x "$tmp/fakebin/nvidia-smi"
expect 0 "86;90" -- env PATH="$tmp/fakebin:$PATH" bash -c "source '$root/scripts/env.sh'; gr_local_cuda_archs"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(p C)\nadd_executable(p p.c)\n' >"$tmp/proj/CMakeLists.txt"
printf 'int main(void) { return undeclared_thing; }\n' >"$tmp/proj/p.c"
if cmake -S "$tmp/proj" -B "$tmp/proj/b" -G Ninja >/dev/null 2>&1; then
  expect 1 "undeclared_thing" -- bash -c "source '$root/scripts/env.sh'; gr_build '$tmp/proj/b' </dev/null 2>&1 | cat; exit \${PIPESTATUS[0]}"
fi

[ "$fails" = 0 ] && echo "ok" || echo "$fails failure(s)"
exit $((fails > 0))
