#!/usr/bin/env bash
# Regenerates crates/arena/hot-text.ld, the linker script that places together
# the functions a match runs, phase by phase (see crates/arena/build.rs for
# why), from this tree's release build: callgrind profiles of `arena match
# first-free first-free` at concurrency 1 and 2 (every function that runs,
# however rarely), dumped in parts where the process lets go of its code's
# pages (the start, the games, the report), and `perf` samples of the same
# natively (the paths that the runtime's timing takes outside valgrind), the
# match's process apart from its bots (`arena bot first-free`, the same binary). Rebuild afterwards
# (`cargo build --release -p arena`) and check the peak RSS
# (docs/performance.md, "Lighter than fastchess").
#
#   scripts/hot-text.sh
#
# Needs valgrind, perf (Debian: linux-perf) and python3.
set -euo pipefail
cargo build --release -p arena --quiet
arena=$(readlink -f target/release/arena)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for concurrency in 1 2; do
  valgrind --tool=callgrind --dump-instr=yes --dump-before='arena::resident::release_idle_pages' \
    --callgrind-out-file="$work/callgrind-$concurrency.%p" \
    "$arena" match first-free first-free --games 200 --concurrency "$concurrency" --out "$work/profiled-$concurrency" \
    > /dev/null 2>&1
  perf record -q -F 25000 -o "$work/perf-$concurrency.data" -- \
    "$arena" match first-free first-free --games 4700 --concurrency "$concurrency" --out "$work/sampled-$concurrency" \
    > /dev/null 2>&1
  # The functions sampled in the binary, the match's own process's apart from its bots' (the first
  # process sampled is the match).
  perf script -i "$work/perf-$concurrency.data" -F pid,ip,sym,dso --no-demangle 2> /dev/null |
    awk -v dso="($arena)" -v main="$work/native.txt" -v bots="$work/native-bots.txt" '
      $4 == dso { if (first == "") first = $1; print $3 >> ($1 == first ? main : bots) }'
done
python3 scripts/hot-text.py "$arena" crates/arena/hot-text.ld "$work"/callgrind-* "$work/native.txt" "$work/native-bots.txt"
