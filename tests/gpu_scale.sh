#!/usr/bin/env bash
# scripts/gpu-scale end to end on a CPU-only machine (issue 38: the multi-GPU measurement the
# lead runs on a GPU host): two stand-in GPUs (a stub nvidia-smi, as tests/fleet.sh), the
# host-timed selftest variants for the sweep and CPU variants for the fuzzing. Checks the shape
# of its output: a row per lane with its predicted cost, the measured and summed wall times, and
# the fuzz table (1 GPU, then 2, cases and the ratio to one GPU's).
#   tests/gpu_scale.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source "$here/expect.sh"
scale=$here/../scripts/gpu-scale
mkdir -p "$tmp/stub"
printf '#!/bin/sh\necho "0, GPU-00000000-0000-0000-0000-000000000000, Stub GPU"\necho "1, GPU-11111111-1111-1111-1111-111111111111, Stub GPU"\n' >"$tmp/stub/nvidia-smi"
chmod +x "$tmp/stub/nvidia-smi"
export GPUREGRESS_LOCK_DIR=$tmp
sel=(--filter 'selftest/ok,selftest/bug_caught,ari/reference' --allow-no-gpu)

out=$(cd "$tmp" && PATH="$tmp/stub:$PATH" "$scale" "$build" --budget 1 --out "$tmp/o" -- "${sel[@]}" 2>&1)
rc=$?
check "exit 0" [ "$rc" = 0 ]
num='[0-9]+\.[0-9]+'
check "a row per lane: lane, GPU, busy s, groups timed, predicted s timed and dealt" \
  [ "$(grep -cE "^ +[01] +[01] +$num +[0-9]+ +$num +$num$" <<<"$out")" = 2 ]
check "every group timed once over the lanes (4 sizes)" \
  [ "$(grep -E "^ +[01] +[01] +$num +[0-9]+ +$num +$num$" <<<"$out" | awk '{ s += $4 } END { print s }')" = 4 ]
# no history: the four sizes' groups cost 0.5 to 1.5 by their bytes (16384 to 49152 elements, 2
# variants each: 1.67, 2.00, 2.33, 3.00), the largest two on different lanes
check "the deal by size: 3.00 + 1.67 on one lane, 2.33 + 2.00 on the other" \
  [ "$(grep -E "^ +[01] +[01] +$num +[0-9]+ +$num +$num$" <<<"$out" | awk '{ print $6 }' | sort | tr '\n' ' ')" = "4.33 4.67 " ]
check "the measured wall time on 2 GPUs" grep -qE "^full sweep on 2 GPUs: measured wall $num s$" <<<"$out"
check "the one-GPU figure: the sum of the lanes" \
  grep -qE "^full sweep on 1 GPU: sum of lanes $num s \(estimate" <<<"$out"
check "the fuzz table's header" grep -qx "GPUs  wall s  cases  ratio" <<<"$out"
check "the fuzz table: 1 GPU (ratio 1.00x), then 2" \
  [ "$(grep -A2 -x "GPUs  wall s  cases  ratio" <<<"$out" | tail -2 | awk '{ print $1, ($3 > 0), $4 ~ /^[0-9]+\.[0-9][0-9]x$/ }' | tr '\n' ' ')" = "1 1 1 2 1 1 " ]
check "the nightly's budget stated" grep -qF 'ci/nightly --budget, default ${GPUREGRESS_BUDGET:-240} s' <<<"$out"
check "the outputs kept" [ -s "$tmp/o/bench.log" ] && [ -s "$tmp/o/fuzz-1.log" ] && [ -s "$tmp/o/fuzz-all.log" ]
out=$(cd "$tmp" && PATH="$tmp/stub:$PATH" "$scale" "$build" --skip-bench --skip-fuzz --out "$tmp/o2")
check "--skip-bench --skip-fuzz: neither" [ "$(grep -c '^==' <<<"$out")" = 0 ]
expect 0 "--skip-bench" -- "$scale" --help
expect 2 "bad value 'x' for --budget" -- "$scale" "$build" --budget x
expect 2 "unknown option '--nope'" -- "$scale" "$build" --nope
expect 2 "no gpuregress in '$tmp'" -- "$scale" "$tmp"
[ "$fails" = 0 ] || echo "$out"
[ "$fails" = 0 ] && echo "gpu_scale: ok"
exit $((fails > 0))
