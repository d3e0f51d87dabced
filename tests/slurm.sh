#!/usr/bin/env bash
# ci/slurm/nightly.sbatch on a real Slurm (issue 38): a one-node cluster of this machine
# (slurmctld + slurmd from Debian's slurm-wlm, auth/none, configured and kept in the test's
# temporary folder on free ports, stopped at the end whatever happens), the recipe submitted as
# a 2-task array over CPU variants (stub nvidia-smi, as tests/fleet.sh), and the night the last
# task merged checked against an unsharded run of the same seed: one run of 2 parts, the same
# verdict, the same cases. Skips (77) with the reason where Slurm is not installed or does not
# start (not root, no free port, a daemon that exits).
#   tests/slurm.sh GPUREGRESS DB_QUERY
set -u
bin=$1 dbq=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/expect.sh"
skip() { echo "slurm: skipped: $*"; exit 77; }
for d in slurmctld slurmd sbatch squeue; do
  command -v "$d" >/dev/null || [ -x "/usr/sbin/$d" ] || skip "no '$d' (Debian's slurm-wlm; scripts/setup installs it when CI is set)"
done
[ "$(id -u)" = 0 ] || skip "slurmd runs jobs as their user only when started as root"
PATH=$PATH:/usr/sbin
conf="$tmp/slurm"
mkdir -p "$conf/state" "$conf/spool" "$conf/log" "$tmp/stub"
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctl_port=$(port) d_port=$(port)
[ -n "$ctl_port" ] && [ -n "$d_port" ] || skip "no free port for slurmctld and slurmd"
node=grnode$$
cat >"$conf/slurm.conf" <<EOF
ClusterName=gpuregress-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$conf/state
SlurmdSpoolDir=$conf/spool
SlurmctldPidFile=$conf/slurmctld.pid
SlurmdPidFile=$conf/slurmd.pid
SlurmctldLogFile=$conf/log/slurmctld.log
SlurmdLogFile=$conf/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName=$node NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=gr Nodes=$node Default=YES MaxTime=UNLIMITED State=UP
EOF
export SLURM_CONF="$conf/slurm.conf"
stop() {
  local f pid
  for f in slurmd slurmctld; do
    pid=$(cat "$conf/$f.pid" 2>/dev/null) && [ -n "$pid" ] && kill "$pid" 2>/dev/null
  done
  sleep 1
  for f in slurmd slurmctld; do
    pid=$(cat "$conf/$f.pid" 2>/dev/null) && [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap stop EXIT
slurmctld -i -f "$SLURM_CONF" >"$conf/log/ctld.out" 2>&1 || skip "slurmctld did not start: $(tail -1 "$conf/log/ctld.out")"
slurmd -N "$node" -f "$SLURM_CONF" >"$conf/log/d.out" 2>&1 || skip "slurmd did not start: $(tail -1 "$conf/log/d.out")"
for _ in $(seq 50); do
  sinfo -h -N -o '%T' 2>/dev/null | grep -q '^idle' && break
  sleep 0.2
done
sinfo -h -N -o '%T' 2>/dev/null | grep -q '^idle' ||
  skip "the node did not come up: $(tail -q -n 2 "$conf/log/slurmctld.log" "$conf/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"

printf '#!/bin/sh\necho "0, GPU-00000000-0000-0000-0000-000000000000, Stub GPU"\n' >"$tmp/stub/nvidia-smi"
chmod +x "$tmp/stub/nvidia-smi"
sel=(--filter 'ari,radix_sort,avos' --cases 2 --allow-no-gpu --quiet)
unset GPUREGRESS_NIGHT GPUREGRESS_SEED GPUREGRESS_SHARD GPUREGRESS_DB
# the recipe as a user submits it, from the checkout, with the test's options after the script;
# --gres=none: the node has no GPU for the recipe's --gres=gpu (the stub nvidia-smi stands in)
(cd "$root" && env PATH="$tmp/stub:$PATH" GPUREGRESS="$bin" GPUREGRESS_WORK="$tmp/nights" GPUREGRESS_GPUS=1 \
  GPUREGRESS_LOCK_DIR="$tmp" sbatch --wait --parsable --array=0-1 --time=5 --gres=none --export=ALL \
  --output="$tmp/task-%A_%a.log" ci/slurm/nightly.sbatch "${sel[@]}") >"$tmp/sbatch.out" 2>&1
rc=$?
job=$(head -1 "$tmp/sbatch.out" | tr -dc 0-9)
history="$tmp/nights/history.db"
check "sbatch --wait: the array exits 0 (the night's verdict, ok)" [ "$rc" = 0 ]
check "both tasks logged" [ "$(ls "$tmp"/task-"$job"_*.log 2>/dev/null | wc -l)" = 2 ]
check "one task merged the night" grep -q "^night: exit 0" "$tmp"/task-"$job"_*.log
q() { "$dbq" "$@"; }
check "one night slurm-$job of two parts" \
  [ "$(q "$history" 'SELECT count(*) || " " || night || " " || (SELECT count(*) FROM night_parts) FROM runs')" = "1 slurm-$job 2" ]
"$bin" run "${sel[@]}" --seed "$job" --db "$tmp/full.db" >/dev/null 2>&1
cases_of() { q "$1" "SELECT algorithm || '/' || variant || ' ' || phase || ' ' || case_index || ' ' || params || ' ' || seed || ' ' || verdict FROM cases ORDER BY 1"; }
check "the night's cases are the unsharded run's (seed = the array job id)" \
  [ "$(cases_of "$history")" = "$(cases_of "$tmp/full.db")" ]
verdict() { "$bin" export --db "$1" --format json | sed -n 's/.*"summary": "\([^"]*\)".*/\1/p' | head -1; }
check "the night's verdict is the unsharded night's" [ "$(verdict "$history")" = "$(verdict "$tmp/full.db")" ]
if [ "$fails" != 0 ]; then
  cat "$tmp/sbatch.out"
  tail -n 5 "$tmp"/task-*.log "$conf"/log/*.log
fi
[ "$fails" = 0 ] && echo "slurm: ci/slurm/nightly.sbatch as a 2-task array on a real slurmctld/slurmd: one night, the unsharded verdict and cases"
exit $((fails > 0))
