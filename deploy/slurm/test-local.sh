#!/usr/bin/env bash
# A real Slurm test on one machine: installs Debian's slurm-wlm and munge when
# missing, starts a one-node cluster on localhost (munged, slurmctld -D, slurmd -D),
# submits a small tournament of instant bots as a job array of 4 shards and the
# dependent merge job (submit.sh), waits, checks that the merged standings equal
# an unsharded run's, and stops the daemons it started. Needs root.
# Usage: deploy/slurm/test-local.sh [ARENA]  (default: target/debug/arena, built if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
arena=${1:-$root/target/debug/arena}
[[ -x $arena ]] || (cd "$root" && cargo build -p arena)
arena=$(realpath "$arena")

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge
fi

work=$(mktemp -d /tmp/arena-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if ((status != 0)); then
        echo "slurm test failed; logs:" >&2
        tail -n 40 "$work"/*.log "$work"/run/*.out 2>/dev/null >&2 || true
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

# munge: a key of our own and a socket in the work folder (not the system's).
mkdir -p "$work/munge" "$work/spool" "$work/state" "$work/run"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$work/munge" 2>/dev/null || true
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/seed" --log-file="$work/munged.log" \
    >>"$work/munged.log" 2>&1 &
pids+=($!)

cat >"$work/slurm.conf" <<CONF
ClusterName=arena-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
NodeName=localhost CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

wait_for() { # wait_for SECONDS WHAT COMMAND...: polls COMMAND until it succeeds
    local deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || { echo "timed out waiting for $what" >&2; return 1; }
        sleep 0.5
    done
}
wait_for 10 munged test -S "$socket"
slurmctld -D -f "$SLURM_CONF" >>"$work/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N localhost >>"$work/slurmd.log" 2>&1 &
pids+=($!)
# A busy two-core machine (the test suite just ended) once took over 60 s to register the node.
wait_for 180 "the node to be idle" bash -c 'sinfo -h -n localhost -o %t | grep -qx idle'

cp "$root/deploy/instant.toml" "$work/t.toml"

read -r array merge < <(ARENA=$arena "$root/deploy/slurm/submit.sh" "$work/t.toml" "$work/run" 4)
echo "slurm: array job $array, merge job $merge"
wait_for 180 "the merge job to end" bash -c "! squeue -h -j $array,$merge 2>/dev/null | grep -q ."
"$arena" run "$work/t.toml" --out "$work/whole" >/dev/null 2>&1
for table in standings.json standings.csv standings.md pairs.csv; do
    cmp "$work/run/merged/$table" "$work/whole/$table"
done
echo "slurm: the merged standings of 4 shards equal the unsharded run's"
