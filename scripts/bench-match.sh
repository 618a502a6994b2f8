#!/usr/bin/env bash
# The arena's cost per move and per game: `arena match first-free first-free` of
# two instant built-in bots, journal in DIR (the disk, or /dev/shm for tmpfs),
# with its peak memory, beside the floor measured in the same run.
#
#   scripts/bench-match.sh [GAMES [DIR [CONCURRENCY [EXTRA ARENA FLAGS...]]]]
#
# CONCURRENCY 1 (the default) runs everything on core 0 (`taskset -c 0`); a
# higher one runs on every core as a user's run would: with as many games as
# cores, each game's bots and the referee thread that plays it are pinned to a
# core of their own (add --no-affinity for the unpinned cost). Prints the load average, the floor (a raw pipe ping-pong between two
# processes, from the referee's benchmark, on core 0), then per move: the wall
# time (of throughput: the run's wall time over all its moves), the CPU time of
# the referee and both bots (user + sys), games per second and the arena's
# peak RSS. Read a figure against the floor of the same run, and compare
# variants by CPU time when the load is high (see docs/performance.md).
#
# ARENA=PATH measures that binary instead of building this tree's (another
# commit's, say, alternated with this one's; the floor is this tree's).
set -euo pipefail
games=${1:-4700}
dir=${2:-target/bench-match}
concurrency=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
arena=${ARENA:-target/release/arena}
[ -n "${ARENA:-}" ] || cargo build --release -p arena --quiet
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
BENCH_GAMES=100 BENCH_TIMING_MOVES=0 taskset -c 0 cargo bench --quiet -p pahtum-referee --bench referee 2>/dev/null |
  sed -n '/^raw pipe/,/^referee/p' | grep -v '^referee' | sed 's/^/floor: /'
pin=()
if [ "$concurrency" -eq 1 ]; then pin=(taskset -c 0); fi
rm -rf "$dir/run" "$dir/stderr"
mkdir -p "$dir"
/usr/bin/time -f '%e %U %S %M' -o "$dir/time" \
  "${pin[@]}" "$arena" match first-free first-free --games "$games" --concurrency "$concurrency" \
  --out "$dir/run" "$@" > /dev/null 2> "$dir/stderr" || { cat "$dir/stderr" >&2; exit 1; }
read -r wall user sys rss_kb < "$dir/time"
moves=$(tail -n +2 "$dir/run/journal.jsonl" | jq '.moves | length' | paste -sd+ | bc)
awk -v w="$wall" -v u="$user" -v s="$sys" -v m="$moves" -v g="$games" -v r="$rss_kb" -v c="$concurrency" 'BEGIN {
  printf "%d games, %d moves, concurrency %d: %.1f us/move wall, %.1f us/move CPU (user %.1f + sys %.1f), %.0f games/s, peak RSS %.1f MB\n",
    g, m, c, w * 1e6 / m, (u + s) * 1e6 / m, u * 1e6 / m, s * 1e6 / m, g / w, r / 1024 }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$dir/run" "$dir/stderr"
