#!/usr/bin/env bash
# A night over a fleet (issue 22, doc/fleet.md), on a CPU-only machine with stub scheduler
# environments: the split of --shard K/N (deterministic for a seed and N, disjoint, whole), the
# scheduler variables (Slurm array with its MIN, Kubernetes Indexed Job, GitLab parallel,
# GPUREGRESS_SHARD), the recipes' shard and merge scripts as the schedulers run them (ci/fleet,
# ci/slurm), and the merged night: one run, one verdict equal to the unsharded night's, the
# union of the cases equal to the unsharded run's, a missing shard making it incomplete, an
# import twice adding nothing. Also --gpus on a stub nvidia-smi (lanes on a machine without
# CUDA: the CPU variants run, the GPU ones skip).
#   tests/fleet.sh GPUREGRESS DB_QUERY
set -u
bin=$1 dbq=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/expect.sh"
# quick: CPU variants of the faster algorithms, 2 cases each
sel=(--filter 'ari,radix_sort,sgm,avos,ccc' --cases 2 --allow-no-gpu --quiet)
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_STEP \
  SLURM_ARRAY_JOB_ID JOB_COMPLETION_INDEX GPUREGRESS_SHARD_COUNT CI_NODE_INDEX CI_NODE_TOTAL \
  CI_PIPELINE_ID GITHUB_RUN_ID GPUREGRESS_SHARD GPUREGRESS_NIGHT GPUREGRESS_SEED
q() { "$dbq" "$@"; }
# a stub nvidia-smi listing two GPUs (this machine has none): --gpus resolves against it
mkdir -p "$tmp/stub"
printf '#!/bin/sh\necho "0, GPU-00000000-0000-0000-0000-000000000000, Stub GPU"\necho "1, GPU-11111111-1111-1111-1111-111111111111, Stub GPU"\n' > "$tmp/stub/nvidia-smi"
chmod +x "$tmp/stub/nvidia-smi"
export GPUREGRESS_LOCK_DIR=$tmp
cases_of() { q "$1" "SELECT algorithm || '/' || variant || ' ' || phase || ' ' || case_index || ' ' || params || ' ' || seed || ' ' || verdict FROM cases ORDER BY 1"; }
variants_of() { q "$1" "SELECT algorithm || '/' || variant FROM outcomes ORDER BY 1"; }

# ---- the split ---------------------------------------------------------------------------------
"$bin" run "${sel[@]}" --seed 9 --db "$tmp/full.db" > "$tmp/full.out" 2>&1
check "the unsharded night passes" grep -q "^result: ok" "$tmp/full.out"
for k in 1 2 3 4; do
  expect 0 "shard $k of 4 (--shard)" -- "$bin" run "${sel[@]}" --seed 9 --shard $k/4 --db "$tmp/s$k.db"
done
expect 0 "shard 2 of 4" -- "$bin" run "${sel[@]}" --seed 9 --shard 2/4 --db "$tmp/s2again.db"
check "the same seed and N give the same split" [ "$(variants_of "$tmp/s2.db")" = "$(variants_of "$tmp/s2again.db")" ]
all=$(for k in 1 2 3 4; do variants_of "$tmp/s$k.db"; done | sort)
check "the shards' variants are disjoint and make the whole selection" \
  [ "$all" = "$(variants_of "$tmp/full.db" | sort)" ]
check "no shard is empty or takes all" [ "$(variants_of "$tmp/s3.db" | wc -l)" -lt "$(variants_of "$tmp/full.db" | wc -l)" ]
expect 0 "shard 2 of 4" -- "$bin" run "${sel[@]}" --seed 10 --shard 2/4 --db "$tmp/s2seed10.db"
check "another seed deals the variants anew" [ "$(variants_of "$tmp/s2.db")" != "$(variants_of "$tmp/s2seed10.db")" ]

# ---- the merge: one night ----------------------------------------------------------------------
for k in 1 2 3; do "$bin" import --db "$tmp/night.db" "$tmp/s$k.db" > /dev/null; done
expect 3 "holds 3 of its 4 shards (missing: 4" -- "$bin" compare --db "$tmp/night.db"
expect 0 "1 shard folded into its night's run" -- "$bin" import --db "$tmp/night.db" "$tmp/s4.db"
expect 0 "0 runs added (1 already here)" -- "$bin" import --db "$tmp/night.db" "$tmp/s4.db"
expect 0 "1 shard of a night that holds it already (a rerun): kept as a run of its own" -- \
  "$bin" import --db "$tmp/rerun.db" "$tmp/s1.db" "$tmp/s2.db" "$tmp/s2again.db"
check "one run in the index of nights" [ "$(q "$tmp/night.db" 'SELECT count(*) FROM runs')" = 1 ]
check "four parts of the night" [ "$(q "$tmp/night.db" 'SELECT count(*) FROM night_parts')" = 4 ]
check "the union of the shards' cases is the unsharded run's" [ "$(cases_of "$tmp/night.db")" = "$(cases_of "$tmp/full.db")" ]
check "one set of coverage counts, the unsharded run's" \
  [ "$(q "$tmp/night.db" 'SELECT algorithm, variant, regime, cases FROM coverage ORDER BY 1, 2, 3')" = \
    "$(q "$tmp/full.db" 'SELECT algorithm, variant, regime, cases FROM coverage ORDER BY 1, 2, 3')" ]
verdict() { "$bin" export --db "$1" --format json | sed -n 's/.*"summary": "\([^"]*\)".*/\1/p' | head -1; }
check "the night's verdict is the unsharded night's" [ "$(verdict "$tmp/night.db")" = "$(verdict "$tmp/full.db")" ]
expect 0 "history: 1 nights" -- "$bin" history --db "$tmp/night.db"
expect 0 '"shards": 4, "shards_present": 4' -- "$bin" export --db "$tmp/night.db" --format json

# ---- the schedulers' variables -----------------------------------------------------------------
expect 0 "shard 2 of 4 (SLURM_ARRAY_TASK_ID)" -- env SLURM_ARRAY_TASK_ID=6 SLURM_ARRAY_TASK_COUNT=4 \
  SLURM_ARRAY_TASK_MIN=5 "$bin" run "${sel[@]}" --seed 9 --shard auto --db "$tmp/env.db"
expect 0 "shard 3 of 4 (SLURM_ARRAY_TASK_ID)" -- env SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_COUNT=4 \
  SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_STEP=2 "$bin" run "${sel[@]}" --seed 9 --shard auto --db "$tmp/env.db"
expect 0 "shard 1 of 4 (JOB_COMPLETION_INDEX)" -- env JOB_COMPLETION_INDEX=0 GPUREGRESS_SHARD_COUNT=4 \
  "$bin" run "${sel[@]}" --seed 9 --shard auto --db "$tmp/env.db"
expect 0 "shard 4 of 4 (CI_NODE_INDEX)" -- env CI_NODE_INDEX=4 CI_NODE_TOTAL=4 \
  "$bin" run "${sel[@]}" --seed 9 --shard auto --db "$tmp/env.db"
expect 0 "shard 3 of 4 (GPUREGRESS_SHARD)" -- env GPUREGRESS_SHARD=3/4 "$bin" run "${sel[@]}" --seed 9 --db "$tmp/env.db"
expect 2 "GPUREGRESS_SHARD_COUNT must give the Job's completions" -- env JOB_COMPLETION_INDEX=1 \
  "$bin" run "${sel[@]}" --shard auto --db "$tmp/env.db"
expect 2 "SLURM_ARRAY_TASK_ID is set but" -- env SLURM_ARRAY_TASK_ID=1 "$bin" run "${sel[@]}" --shard auto --db "$tmp/env.db"
expect 2 "is not in the array" -- env SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_STEP=2 \
  "$bin" run "${sel[@]}" --shard auto --db "$tmp/env.db"
expect 2 "gives shard 5 of 4" -- env CI_NODE_INDEX=5 CI_NODE_TOTAL=4 "$bin" run "${sel[@]}" --shard auto --db "$tmp/env.db"
expect 2 "no scheduler variable found" -- "$bin" run "${sel[@]}" --shard auto --db "$tmp/env.db"
expect 2 "expected K/N" -- "$bin" run "${sel[@]}" --shard 3 --db "$tmp/env.db"
expect 2 "1 <= K <= N" -- "$bin" run "${sel[@]}" --shard 0/4 --db "$tmp/env.db"
expect 2 "--night 'a b'" -- "$bin" run "${sel[@]}" --night 'a b' --db "$tmp/env.db"
expect 2 "GPUREGRESS_SHARD '1-4'" -- env GPUREGRESS_SHARD=1-4 "$bin" run "${sel[@]}" --db "$tmp/env.db"

# ---- the recipes: Slurm array (shared folder, the last task merges) ----------------------------
for id in 5 6 7 8; do
  env GPUREGRESS="$bin" SLURM_SUBMIT_DIR="$root" SLURM_ARRAY_JOB_ID=4242 SLURM_ARRAY_TASK_ID=$id \
    SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=5 GPUREGRESS_WORK="$tmp/slurm" GPUREGRESS_GPUS=1 \
    PATH="$tmp/stub:$PATH" "$root/ci/slurm/nightly.sbatch" "${sel[@]}" > "$tmp/slurm-$id.out" 2>&1
  echo "exit $?" >> "$tmp/slurm-$id.out"
done
check "slurm: the first tasks wait for the last" grep -q "the last one merges the night" "$tmp/slurm-5.out"
check "slurm: the last task merges and exits 0 with the night's verdict" grep -q "^night: exit 0" "$tmp/slurm-8.out"
check "slurm: exit 0" grep -q "^exit 0" "$tmp/slurm-8.out"
check "slurm: one night of four shards" [ "$(q "$tmp/slurm/history.db" 'SELECT count(*) || " " || night || " " || (SELECT count(*) FROM night_parts) FROM runs')" = "1 slurm-4242 4" ]
check "slurm: the night's cases are the unsharded run's (seed = the array job id)" \
  [ "$(cases_of "$tmp/slurm/history.db" | sort)" = "$("$bin" run "${sel[@]}" --seed 4242 --db "$tmp/full4242.db" > /dev/null; cases_of "$tmp/full4242.db" | sort)" ]
check "slurm: the dashboard and JUnit XML of the night" [ -s "$tmp/slurm/slurm-4242/junit.xml" ]

# ---- Kubernetes Indexed Job (the manifest's command and variables, shared volume) --------------
grep -q 'command: \["ci/fleet/shard", "/nights/$(GPUREGRESS_NIGHT)"\]' "$root/ci/kubernetes/nightly-indexed-job.yaml" ||
  { echo "FAIL: the manifest runs another command than the one tested here"; fails=$((fails + 1)); }
for idx in 3 1 0 2; do
  env GPUREGRESS="$bin" JOB_COMPLETION_INDEX=$idx GPUREGRESS_SHARD_COUNT=4 GPUREGRESS_K8S_JOB=gpuregress-night-x7 \
    GPUREGRESS_NIGHT=k8s-gpuregress-night-x7 GPUREGRESS_SEED=9 GPUREGRESS_GPUS=1 PATH="$tmp/stub:$PATH" \
    "$root/ci/fleet/shard" "$tmp/k8s/k8s-gpuregress-night-x7" "${sel[@]}" > "$tmp/k8s-$idx.out" 2>&1
  echo "exit $?" >> "$tmp/k8s-$idx.out"
done
check "k8s: the last pod merges the night" grep -q "^night: exit 0" "$tmp/k8s-2.out"
check "k8s: the night's verdict is the unsharded night's" [ "$(verdict "$tmp/k8s/k8s-gpuregress-night-x7/night.db")" = "$(verdict "$tmp/full.db")" ]

# ---- GitLab parallel / GitHub matrix: no shared folder, a merge job over the artefacts ---------
mkdir -p "$tmp/gl-artifacts"
for node in 1 2 3 4; do
  env GPUREGRESS="$bin" CI_NODE_INDEX=$node CI_NODE_TOTAL=4 CI_PIPELINE_ID=77 GPUREGRESS_MERGE=0 GPUREGRESS_GPUS=1 \
    PATH="$tmp/stub:$PATH" "$root/ci/fleet/shard" "$tmp/gl-$node" "${sel[@]}" > /dev/null 2>&1
  cp "$tmp/gl-$node"/shard-*.db "$tmp/gl-artifacts/"
done
check "gitlab: each job kept its shard (no merge)" [ ! -e "$tmp/gl-4/night.db" ]
expect 0 "night: exit 0" -- env GPUREGRESS="$bin" "$root/ci/fleet/merge" "$tmp/gl-artifacts" 4
check "gitlab: one night gitlab-77" [ "$(q "$tmp/gl-artifacts/night.db" 'SELECT night FROM runs')" = gitlab-77 ]
rm "$tmp/gl-artifacts/shard-3-of-4.db" "$tmp/gl-artifacts/night.db"
expect 3 "missing: 3" -- env GPUREGRESS="$bin" "$root/ci/fleet/merge" "$tmp/gl-artifacts" 4
for m in 1 2; do
  env GPUREGRESS="$bin" GPUREGRESS_SHARD=$m/2 GITHUB_RUN_ID=555 GPUREGRESS_MERGE=0 GPUREGRESS_GPUS=1 \
    PATH="$tmp/stub:$PATH" "$root/ci/fleet/shard" "$tmp/gh" "${sel[@]}" > /dev/null 2>&1
done
expect 0 "night: exit 0" -- env GPUREGRESS="$bin" "$root/ci/fleet/merge" "$tmp/gh" 2
expect 2 "usage: ci/fleet/shard DIR" -- "$root/ci/fleet/shard"
expect 2 "no shard-K-of-N.db" -- env GPUREGRESS="$bin" "$root/ci/fleet/merge" "$tmp"

# ---- --gpus on a stub nvidia-smi: one lane per (stub) GPU -------------------------------------
expect 0 "2 GPUs: GPU-00000000-0000-0000-0000-000000000000 Stub GPU GPU-11111111" -- \
  env PATH="$tmp/stub:$PATH" "$bin" run "${sel[@]}" --seed 9 --gpus all --db "$tmp/lanes.db"
check "--gpus: the lanes' cases are the one-GPU run's" [ "$(cases_of "$tmp/lanes.db")" = "$(cases_of "$tmp/full.db")" ]
# one variant, two GPUs: its case stream split in two parts, merged into one outcome
expect 0 "reference            reference  pass          7      7" -- \
  env PATH="$tmp/stub:$PATH" "$bin" fuzz ari/reference --gpus 2 --cases 7 --seed 3 --quiet --db "$tmp/parts.db"
check "--gpus 2 on one variant: the parts draw cases 0..6 between them" \
  [ "$(q "$tmp/parts.db" "SELECT group_concat(case_index) FROM (SELECT case_index FROM cases WHERE phase = 'fuzz' ORDER BY 1)")" = 0,1,2,3,4,5,6 ]
# historical variants are handed out first on lanes too: bug_caught after a hang that overruns the
# budget (one lane: the jobs go in order) is caught, not left one case
out=$(env PATH="$tmp/stub:$PATH" "$bin" run --filter selftest/hang,selftest/bug_caught --gpus 1 \
  --budget 6 --watchdog 8 --no-shrink --seed 1 --quiet --db "$tmp/order.db" 2>&1)
check "lanes: historical first (bug_caught caught beside an overrunning hang)" \
  grep -qE "^selftest +bug_caught +historical +caught" <<<"$out"
# the budget shared so that every variant gets as much: three variants that use their whole
# share (a historical bug no check sees, then two fixed) on two lanes in 9 s get 4.5 s each (the
# old share, left * lanes / m, gave 6, 9 and 3 s: busy lanes counted as free)
out=$(env PATH="$tmp/stub:$PATH" "$bin" run --filter selftest/bug_escapes,selftest/ok,ari/reference \
  --gpus 2 --budget 9 --no-shrink --seed 5 --quiet --db "$tmp/shares.db" 2>&1)
sec_of() { awk -v v="$1" '$2 == v {print $9}' <<<"$out"; }
esc=$(sec_of bug_escapes) ok=$(sec_of ok) ari=$(sec_of reference)
# overrun-proof: the two selftest variants draw microsecond cases (no overrun), and a slow last
# case of ari can only lengthen its own time: the old shares fail both (9.0 > 1.25 x 6.0, and
# 3.2 < 0.75 x 6.0)
check "lanes: the second variant's share as the first's (seconds: $esc, $ok, $ari)" \
  awk -v a="$esc" -v b="$ok" 'BEGIN { exit !(a > 0 && b <= 1.25 * a && a <= 1.25 * b) }'
check "lanes: the last variant not squeezed (seconds: $esc, $ok, $ari)" \
  awk -v a="$esc" -v c="$ari" 'BEGIN { exit !(a > 0 && c >= 0.75 * a) }'
expect 3 "only 2 GPUs are visible here" -- env PATH="$tmp/stub:$PATH" "$bin" run "${sel[@]}" --gpus 3 --db "$tmp/lanes.db"
expect 3 "no GPU 'GPU-99'" -- env PATH="$tmp/stub:$PATH" "$bin" run "${sel[@]}" --gpus GPU-99 --db "$tmp/lanes.db"
expect 2 "expected all, a count, or indices/UUIDs" -- "$bin" run "${sel[@]}" --gpus 0,x --db "$tmp/lanes.db"
expect 2 "is named twice" -- "$bin" run "${sel[@]}" --gpus 1,1 --db "$tmp/lanes.db"

[ "$fails" = 0 ] && echo "fleet: ok"
exit $((fails > 0))
