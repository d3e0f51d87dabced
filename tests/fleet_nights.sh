#!/usr/bin/env bash
# Fleet nights that time and are remembered (issue 38, doc/fleet.md), on a CPU-only machine with
# a stand-in GPU (a stub nvidia-smi, as tests/fleet.sh): four shards of a night through
# ci/fleet/shard and ci/fleet/merge with the timing phase on, the benchmarks being the host-timed
# selftest variants (GR_VARIANT_HOST_TIMED). The merged night has timings, each benchmark of the
# unsharded night's plan exactly once, every shard a part of the deal; the merge records the
# night (verdict and exit code in the index of nights). A second night into the same history,
# with a planted 50% slowdown of one variant (GR_TEST_SLOWDOWN), is red: the slower benchmarks
# with their reproducer, open regressions carried, the recorded exit 1. Also the progress lines
# of a run on a pipe (one per finished variant, with the night's ETA).
#   tests/fleet_nights.sh GPUREGRESS DB_QUERY
set -u
bin=$1 dbq=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/expect.sh"
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_STEP \
  SLURM_ARRAY_JOB_ID JOB_COMPLETION_INDEX GPUREGRESS_SHARD_COUNT CI_NODE_INDEX CI_NODE_TOTAL \
  CI_PIPELINE_ID GITHUB_RUN_ID GPUREGRESS_SHARD GPUREGRESS_NIGHT GPUREGRESS_SEED GR_TEST_SLOWDOWN
q() { "$dbq" "$@"; }
mkdir -p "$tmp/stub"
printf '#!/bin/sh\necho "0, GPU-00000000-0000-0000-0000-000000000000, Stub GPU"\n' > "$tmp/stub/nvidia-smi"
chmod +x "$tmp/stub/nvidia-smi"
export GPUREGRESS_LOCK_DIR=$tmp
# two host-timed variants over the selftest sweep (4 sizes: 8 benchmarks in 4 groups), and a
# CPU reference fuzzed beside them
sel=(--filter 'selftest/ok,selftest/bug_caught,ari/reference' --cases 2 --allow-no-gpu --quiet)
benchmarks() { q "$1" "SELECT algorithm || '/' || variant || ' ' || params FROM timings ORDER BY 1"; }

"$bin" run "${sel[@]}" --seed 9 --bench --db "$tmp/full.db" > "$tmp/full.out" 2>&1
check "the unsharded night times 8 benchmarks" [ "$(q "$tmp/full.db" 'SELECT count(*) FROM timings')" = 8 ]

# night 1: four shards through ci/fleet/shard (shared folder: the last one merges)
night() { # NAME SEED [environment...]: the four shards of a night, in a shuffled order
  local name=$1 seed=$2 k
  shift 2
  for k in 3 1 4 2; do
    env "$@" GPUREGRESS="$bin" GPUREGRESS_SHARD=$k/4 GPUREGRESS_NIGHT="$name" GPUREGRESS_SEED="$seed" \
      GPUREGRESS_GPUS=1 GPUREGRESS_BENCH=full GPUREGRESS_DB="$tmp/history.db" PATH="$tmp/stub:$PATH" \
      "$root/ci/fleet/shard" "$tmp/$name" "${sel[@]}" > "$tmp/$name-$k.out" 2>&1
    echo "exit $?" >> "$tmp/$name-$k.out"
  done
}
night n1 9 GR_TEST_SLOWDOWN=
for k in 1 2 3 4; do
  check "n1: shard $k times its part of the deal" \
    grep -q "^timing phase: shard $k of 4: 1 of 4 benchmark groups (2 of 8 benchmarks)" "$tmp/n1-$k.out"
done
# a CI log (a pipe, under --quiet) gets a line per finished variant with the night's ETA
out=$("$bin" run "${sel[@]}" --seed 9 --db "$tmp/progress.db" 2>&1 >/dev/null)
check "progress: a line per variant on a pipe" [ "$(grep -cE '^progress: [1-3]/3 variants, (selftest|ari)/[a-z_]+ (pass|caught), [0-9]+ cases in [0-9.]+ s; night ETA [0-9]+ s$' <<<"$out")" = 3 ]
check "n1: the last shard merges, exit 0" grep -q "^night: exit 0" "$tmp/n1-2.out"
check "n1: timings present, the unsharded night's benchmarks, each once" \
  [ "$(benchmarks "$tmp/history.db")" = "$(benchmarks "$tmp/full.db")" ]
check "n1: timed on the stand-in's host CPU" \
  [ "$(q "$tmp/history.db" "SELECT count(*) FROM timings WHERE gpu_name LIKE 'host CPU%'")" = 8 ]
check "n1: recorded in the index of nights (verdict ok, exit 0)" \
  [ "$(q "$tmp/history.db" "SELECT night || ' ' || verdict || ' ' || verdict_exit || ' ' || nightly_exit FROM runs")" = "n1 ok 0 0" ]

# night 2: the same history, selftest/ok planted 50% slower (20% was called unsure at one size of
# four once, on a 2-core box loaded by two builds and a parallel ctest): red, with the reproducer
night n2 10 GR_TEST_SLOWDOWN=selftest/ok=1.5
check "n2: the merge exits 1" grep -q "^night: exit 1" "$tmp/n2-2.out"
check "n2: compared with night 1" grep -q "^compare run 2 (.*) against run 1" "$tmp/n2-2.out"
# (the selftest launches spin to a deadline of the thread's CPU time, the clock bench times
# host-timed variants on: their times do not move with the machine's load)
slower=$(grep -cE '^selftest +ok +n=[0-9]+ dist=random .* slower$' "$tmp/n2-2.out")
check "n2: selftest/ok slower at every size ($slower of 4)" [ "$slower" = 4 ]
check "n2: bug_caught (hidden historical) not slower" \
  [ "$(grep -cE '^selftest +bug_caught .* slower$' "$tmp/n2-2.out")" = 0 ]
check "n2: nothing else slower" [ "$(grep -cE ' slower$' "$tmp/n2-2.out")" = 4 ]
check "n2: the reproducer of a slower benchmark" \
  grep -qE "reproduce: gpuregress bench selftest/ok --case 'selftest n=[0-9]+ dist=random seed=1' --against reproducers/slower-selftest-ok-[0-9a-f]{8}/baseline.db" "$tmp/n2-2.out"
check "n2: recorded red with its open regressions" \
  [ "$(q "$tmp/history.db" "SELECT verdict || ' ' || verdict_exit || ' ' || nightly_exit FROM runs WHERE night = 'n2'")" = "failed 1 1" ]
check "n2: its slower rows carried as open regressions" \
  [ "$(q "$tmp/history.db" "SELECT count(*) FROM open_regressions WHERE variant = 'ok'")" = "$slower" ]
check "two nights in the history" grep -q "^history: 2 nights" "$tmp/n2-2.out"
expect 2 "GPUREGRESS_BENCH must be quick, full or none" -- env GPUREGRESS="$bin" GPUREGRESS_BENCH=some \
  GPUREGRESS_SHARD=1/2 "$root/ci/fleet/shard" "$tmp/bad"

[ "$fails" = 0 ] || grep -E "^selftest" "$tmp/n2-2.out"
[ "$fails" = 0 ] && echo "fleet_nights: ok"
exit $((fails > 0))
