#!/usr/bin/env bash
# (issue 40, docs/performance.md "Exact adjudication")
# The wall time a tournament of bots that think for their full time saves with adjudicate = "decided", and
# whether any result changed: the same tournament (the engine twice and the heuristic, 100 ms a move, one game
# at a time) run with and without it, each game's result compared; and every adjudicated game played out
# again from its adjudicated position by the same bots, whose result must be the one the bound proved (the
# engine plays by the clock, so a game played twice can differ: the play-outs are the check that cannot).
# ENGINE: the engines' built-in command, e.g. "engine" (which solves the endgame exactly and then answers at
# once) or "engine --exact-cells 0 --outcome-cells 0" (which searches for its full time on every move).
# usage: scripts/bench-adjudication.sh ARENA DIR [GAMES_PER_PAIR [ENGINE]]
set -euo pipefail
arena=$(realpath "$1"); dir=$2; per_pair=${3:-12}; engine=${4:-engine}
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
for mode in decided off; do
  cat > $mode.toml <<TOML
name = "adjudication"
seed = 40
games_per_pair = $per_pair
concurrency = 1

[rules]
adjudicate = "$mode"

[time]
move_ms = 100
margin_ms = 50

[[bots]]
name = "engine-a"
builtin = "$engine"

[[bots]]
name = "engine-b"
builtin = "$engine"

[[bots]]
name = "heuristic"
builtin = "heuristic"
TOML
done
for mode in decided off; do
  start=$(date +%s.%N)
  "$arena" run $mode.toml --out $mode > $mode.log 2>&1
  end=$(date +%s.%N)
  echo "$mode: $(echo "$end - $start" | bc) s wall, $(($(wc -l < $mode/journal.jsonl) - 1)) games"
done
results() { tail -n +2 "$1/journal.jsonl" | jq -r '[.id, .result] | @tsv' | sort; }
echo "results that differ between the two runs (the engine plays by the clock): $(join <(results decided) <(results off) | awk '$2 != $3' | wc -l)"
tail -n +2 decided/journal.jsonl | jq -r 'select(.termination.adjudicated) | [.id, .termination.adjudicated.ply] | @tsv' > adjudicated.tsv
echo "adjudicated: $(wc -l < adjudicated.tsv) games, $(tail -n +2 decided/journal.jsonl | jq -s '[.[] | select(.termination.adjudicated) | .moves | length] | add') stones and blocks played of $(tail -n +2 off/journal.jsonl | jq -s --slurpfile a <(tail -n +2 decided/journal.jsonl | jq -c 'select(.termination.adjudicated) | .id') '[.[] | select(.id as $i | $a | index($i)) | .moves | length] | add') in the same games played out"
builtin() { case $1 in engine-*) echo "$engine" ;; *) echo "$1" ;; esac; }
changed=0; forfeits=0
while IFS=$'\t' read -r id ply; do
  first=$(tail -n +2 decided/journal.jsonl | jq -r "select(.id == \"$id\") | .players.first")
  second=$(tail -n +2 decided/journal.jsonl | jq -r "select(.id == \"$id\") | .players.second")
  proven=$(tail -n +2 decided/journal.jsonl | jq -r "select(.id == \"$id\") | .result")
  "$arena" game --from decided --game "$id" --ply $((ply + 1)) --white "$(builtin "$first")" --black "$(builtin "$second")" \
    --names "$first,$second" --move-time 100ms --margin 50ms --out "playout-$id.json" > /dev/null 2>&1
  played=$(jq -r .result "playout-$id.json"); end=$(jq -r .termination.reason "playout-$id.json")
  # A forfeit (a timeout on a loaded machine) is no result of play: the bound says nothing of it.
  if [ "$end" != normal ]; then forfeits=$((forfeits + 1)); echo "$id: the play-out ended by $end"; continue; fi
  [ "$played" = "$proven" ] || { changed=$((changed + 1)); echo "$id: proven $proven, played out $played"; }
done < adjudicated.tsv
echo "adjudicated games played out from their adjudicated position: $(wc -l < adjudicated.tsv), results changed: $changed, ended by a forfeit: $forfeits"
"$arena" verify decided
