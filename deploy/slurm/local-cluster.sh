#!/usr/bin/env bash
# A one-node Slurm cluster on localhost, for tests. Needs root.
#   deploy/slurm/local-cluster.sh start WORK   installs Debian's slurm-wlm and munge when missing, starts
#       munged, slurmctld -D and slurmd -D with a key, a config, state, sockets and logs of their own in
#       WORK (not the system's), waits until the node is idle, and returns; use the cluster with
#       SLURM_CONF=WORK/slurm.conf.
#   deploy/slurm/local-cluster.sh stop WORK    stops the daemons that start left running.
# The ports are fixed (16817, 16818): one such cluster at a time.
set -euo pipefail
action=$1 work=$2

if [[ $action == stop ]]; then
    [[ -f $work/pids ]] || exit 0
    while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$work/pids"
    while read -r pid; do
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done <"$work/pids"
    rm -f "$work/pids"
    exit 0
fi

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge
fi
for port in 16817 16818; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "port $port is taken: another local cluster runs (stop it with: $0 stop ITS_WORK_FOLDER)" >&2
        exit 1
    fi
done
mkdir -p "$work"
chmod 755 "$work"
failed() {
    echo "the local Slurm cluster did not start; logs:" >&2
    tail -n 40 "$work"/*.log >&2 || true
    "$0" stop "$work"
}
trap 'failed' ERR

# munge: a key of our own and a socket in the work folder (not the system's).
mkdir -p "$work/munge" "$work/spool" "$work/state"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$work/munge" 2>/dev/null || true
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/seed" --log-file="$work/munged.log" \
    </dev/null >>"$work/munged.log" 2>&1 &
echo $! >>"$work/pids"

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

source "$(dirname "$0")/wait-for.sh"
wait_for 10 munged test -S "$socket"
slurmctld -D -f "$SLURM_CONF" </dev/null >>"$work/slurmctld.log" 2>&1 &
echo $! >>"$work/pids"
slurmd -D -f "$SLURM_CONF" -N localhost </dev/null >>"$work/slurmd.log" 2>&1 &
echo $! >>"$work/pids"
# A busy two-core machine (the test suite just ended) once took over 60 s to register the node.
wait_for 180 "the node to be idle" bash -c 'sinfo -h -n localhost -o %t | grep -qx idle'
