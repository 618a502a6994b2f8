#!/usr/bin/env bash
# Instructions a move of the arena's own process, without its start and end:
# callgrind of `arena match first-free first-free` at concurrency 1 over 60
# and over 300 games; the difference of the two totals over the difference of
# their moves (docs/performance.md, "Per move").
#
#   scripts/callgrind-per-move.sh [ARENA]
#
# Needs valgrind and jq.
set -euo pipefail
arena=${1:-target/release/arena}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A instructions moves
for games in 60 300; do
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$games.%p" \
    "$arena" match first-free first-free --games "$games" --concurrency 1 --out "$work/run-$games" > /dev/null 2>&1
  # The match's own profile is the largest (the bots are not traced; a fork before an exec leaves an empty one).
  profile=$(ls -S "$work"/callgrind."$games".* | head -1)
  instructions[$games]=$(awk '/^(summary|totals):/ { print $2; exit }' "$profile")
  moves[$games]=$(tail -n +2 "$work/run-$games/journal.jsonl" | jq '.moves | length' | paste -sd+ | bc)
  echo "$games games: ${instructions[$games]} instructions, ${moves[$games]} moves"
done
echo "a move without the start: $(( (instructions[300] - instructions[60]) / (moves[300] - moves[60]) )) instructions"
