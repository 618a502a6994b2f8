#!/usr/bin/env bash
# The arena's cost per move and per game: `arena match first-free first-free` of
# two instant built-in bots on one core, journal in DIR (the disk, or /dev/shm
# for tmpfs), with its peak memory.
#
#   scripts/bench-match.sh [GAMES [DIR [EXTRA ARENA FLAGS...]]]
#
# Prints the wall and CPU time per move (the referee's and both bots', all on
# core 0), games per second and the peak RSS of the arena. Compare with the
# floor: `taskset -c 0 cargo bench -p pahtum-referee --bench referee` (a raw
# pipe ping-pong, the least a round trip between two processes costs).
set -euo pipefail
games=${1:-4700}
dir=${2:-target/bench-match}
shift $(( $# < 2 ? $# : 2 ))
arena=target/release/arena
cargo build --release -p arena --quiet
rm -rf "$dir/run"
mkdir -p "$dir"
/usr/bin/time -f '%e %U %S %M' -o "$dir/time" \
  taskset -c 0 "$arena" match first-free first-free --games "$games" --concurrency 1 \
  --out "$dir/run" "$@" > /dev/null
read -r wall user sys rss_kb < "$dir/time"
moves=$(tail -n +2 "$dir/run/journal.jsonl" | jq '.moves | length' | paste -sd+ | bc)
awk -v w="$wall" -v u="$user" -v s="$sys" -v m="$moves" -v g="$games" -v r="$rss_kb" 'BEGIN {
  printf "%d games, %d moves: %.1f us/move wall, %.1f us/move CPU (user %.1f + sys %.1f), %.0f games/s, peak RSS %.1f MB\n",
    g, m, w * 1e6 / m, (u + s) * 1e6 / m, u * 1e6 / m, s * 1e6 / m, g / w, r / 1024 }'
rm -rf "$dir/run"
