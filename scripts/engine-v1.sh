#!/usr/bin/env bash
# The frozen reference engine: the engine of commit de4f6ef (the engine the
# strength measurements of EXPERIMENTS.md compare against), built from `git archive` of that commit into
# target/engine-v1/, so that benchmarks can match the current engine against it
# without a copy of its sources in the repository.
#
#   scripts/engine-v1.sh [COMMIT]
#
# Prints the path of the binary (target/engine-v1/pahtum-engine). The build has
# its own target folder (target/engine-v1/target); a second run reuses it.
set -euo pipefail
commit=${1:-de4f6ef}
root=$(git rev-parse --show-toplevel)
out=$root/target/engine-v1
mkdir -p "$out"
if [ "$(cat "$out/commit" 2>/dev/null)" != "$(git -C "$root" rev-parse "$commit")" ]; then
  rm -rf "$out/src"
  mkdir -p "$out/src"
  git -C "$root" archive "$commit" | tar -x -C "$out/src"
  git -C "$root" rev-parse "$commit" > "$out/commit"
fi
cargo build --release --quiet --locked -p pahtum-engine \
  --manifest-path "$out/src/Cargo.toml" --target-dir "$out/target" >&2
cp "$out/target/release/pahtum-engine" "$out/pahtum-engine"
echo "$out/pahtum-engine"
