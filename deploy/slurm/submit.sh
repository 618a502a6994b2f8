#!/usr/bin/env bash
# Submits a tournament as a Slurm job array of N shards and its merge job.
# Usage: deploy/slurm/submit.sh FILE OUT N [extra sbatch options...]
#   FILE  the tournament file, OUT an output folder on shared storage (see shard.sbatch),
#   N     the number of shards (array tasks 1..N; each plays shard K of N).
# Set ARENA to the arena executable if it is not on the PATH (exported to the jobs).
# Prints the two job ids: the array's and the merge's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
file=$1 out=$2 shards=$3
shift 3
mkdir -p "$out"
array=$(sbatch --parsable --export=ALL --array="1-$shards" --chdir="$out" "$@" \
    "$here/shard.sbatch" "$(realpath "$file")" "$(realpath "$out")")
merge=$(sbatch --parsable --export=ALL --dependency="afterok:${array%%;*}" --chdir="$out" "$@" \
    "$here/merge.sbatch" "$(realpath "$out")")
echo "$array $merge"
