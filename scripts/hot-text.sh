#!/usr/bin/env bash
# Regenerates crates/arena/hot-text.ld, the linker script that places together
# the functions a match runs (see crates/arena/build.rs for why), from this
# tree's release build: callgrind profiles of `arena match first-free
# first-free` at concurrency 1 and 2 (every function that runs, however
# rarely), and `perf` samples of the same natively (the paths that the
# runtime's timing takes outside valgrind). Rebuild afterwards
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
  valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$work/callgrind-$concurrency.%p" \
    "$arena" match first-free first-free --games 200 --concurrency "$concurrency" --out "$work/profiled-$concurrency" \
    > /dev/null 2>&1
  perf record -q -F 25000 -o "$work/perf-$concurrency.data" -- \
    "$arena" match first-free first-free --games 4700 --concurrency "$concurrency" --out "$work/sampled-$concurrency" \
    > /dev/null 2>&1
  perf report -i "$work/perf-$concurrency.data" --no-demangle --dso "$(basename "$arena")" --sort sym --stdio \
    --no-children 2> /dev/null | awk '/^ +[0-9.]+%/ { print $NF }' >> "$work/native.txt"
done
python3 scripts/hot-text.py "$arena" crates/arena/hot-text.ld "$work"/callgrind-* "$work/native.txt"
