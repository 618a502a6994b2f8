#!/usr/bin/env bash
# (issue 40, docs/performance.md "What a balanced book buys an SPRT")
# The games an SPRT needs to tell two engine levels apart: random layouts against a balanced book, alternated by seed.
# usage: scripts/sprt-books.sh ARENA RUNS FIRST_SEED A B SPRT BOOK
arena=$1; runs=$2; first=$3; a=$4; b=$5; sprt=$6; book=$7
for ((s=first; s<first+runs; s++)); do
  for mode in random book; do
    out=/dev/shm/sprt-$mode-$s; rm -rf $out
    extra=""; [ $mode = book ] && extra="--openings $book --openings-order shuffled"
    $arena match "$a" "$b" --games 4000 --sprt="$sprt" --seed $s --concurrency 2 --out $out $extra > /dev/shm/sprt-$mode-$s.log 2>&1
    games=$(($(wc -l < $out/journal.jsonl) - 1))
    verdict=$(grep -o "H[01] accepted\|accepted H[01]\|H[01]" /dev/shm/sprt-$mode-$s.log | head -1)
    echo "$mode seed $s games $games $verdict"
  done
done
