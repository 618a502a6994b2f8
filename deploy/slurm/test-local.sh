#!/usr/bin/env bash
# A real Slurm test on one machine: starts a one-node cluster on localhost
# (local-cluster.sh: munged, slurmctld -D, slurmd -D; slurm-wlm and munge installed when missing),
# submits a small tournament of instant bots as a job array of 4 shards and the
# dependent merge job (submit.sh), waits, checks that the merged standings equal
# an unsharded run's, and stops the daemons it started. Needs root.
# Usage: deploy/slurm/test-local.sh [ARENA]  (default: target/debug/arena, built if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
arena=${1:-$root/target/debug/arena}
[[ -x $arena ]] || (cd "$root" && cargo build -p arena)
arena=$(realpath "$arena")

work=$(mktemp -d /tmp/arena-slurm.XXXXXX)
cleanup() {
    local status=$?
    "$root/deploy/slurm/local-cluster.sh" stop "$work"
    if ((status != 0)); then
        echo "slurm test failed; logs:" >&2
        tail -n 40 "$work"/*.log "$work"/run/*.out 2>/dev/null >&2 || true
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
"$root/deploy/slurm/local-cluster.sh" start "$work"
export SLURM_CONF=$work/slurm.conf
mkdir -p "$work/run"

source "$(dirname "$0")/wait-for.sh"

cp "$root/deploy/instant.toml" "$work/t.toml"

read -r array merge < <(ARENA=$arena "$root/deploy/slurm/submit.sh" "$work/t.toml" "$work/run" 4)
echo "slurm: array job $array, merge job $merge"
wait_for 180 "the merge job to end" bash -c "! squeue -h -j $array,$merge 2>/dev/null | grep -q ."
"$arena" run "$work/t.toml" --out "$work/whole" >/dev/null 2>&1
for table in standings.json standings.csv standings.md pairs.csv; do
    cmp "$work/run/merged/$table" "$work/whole/$table"
done
echo "slurm: the merged standings of 4 shards equal the unsharded run's"
