#!/usr/bin/env bash
# What serving a run costs the run, and what following runs costs the server.
#
#   scripts/bench-serve.sh wall [ROUNDS [GAMES [CLIENTS [CLIENT FLAGS...]]]]
#   scripts/bench-serve.sh memory [GAMES [CLIENTS...]]
#
# wall: `arena match first-free first-free --games GAMES` (default 4,700),
# alternated ROUNDS times (default 12) without --serve and with
# `--serve 127.0.0.1:PORT` and CLIENTS (default 20) live clients
# (scripts/live-clients.py: each loads the page, then follows the run's event
# stream and fetches its tables on every event, as the live page does), with
# 2 stalled clients that never read (CLIENT FLAGS go to live-clients.py:
# --no-page for clients that do not load the page). Prints each round's wall
# times, then the means and medians.
#
# memory: for each number of clients (default 0 and 100), a match of GAMES
# (default 100,000) games played in one process while `arena serve` follows it
# from another, the clients following the run through that server; prints the
# server's peak RSS (VmHWM) and what the clients received.
#
# On a loaded machine compare the alternated rounds, not single runs (see
# docs/performance.md).
set -euo pipefail
mode=${1:-wall}
shift || true
arena=target/release/arena
cargo build --release -p arena --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
case $mode in
wall)
  rounds=${1:-12} games=${2:-4700} clients=${3:-20}
  shift $(( $# < 3 ? $# : 3 ))
  for i in $(seq 1 "$rounds"); do
    /usr/bin/time -f %e -o "$work/plain" "$arena" match first-free first-free --games "$games" \
      --concurrency 2 --out "$work/plain$i" >/dev/null 2>&1
    p=$(port)
    scripts/live-clients.py "$p" "served$i" "$clients" --stalled 2 "$@" >"$work/clients" &
    followers=$!
    /usr/bin/time -f %e -o "$work/served" "$arena" match first-free first-free --games "$games" \
      --concurrency 2 --out "$work/served$i" --serve "127.0.0.1:$p" >/dev/null 2>&1
    kill -TERM $followers
    wait $followers || true
    echo "round $i: plain $(cat "$work/plain") s, served $(cat "$work/served") s, clients $(cat "$work/clients")"
    rm -rf "$work/plain$i" "$work/served$i"
  done | tee "$work/rounds"
  python3 - "$work/rounds" <<'PY'
import re, statistics, sys
rows = [re.findall(r"(plain|served) ([0-9.]+) s", line) for line in open(sys.argv[1])]
plain = [float(dict(row)["plain"]) for row in rows]
served = [float(dict(row)["served"]) for row in rows]
for name, f in [("mean", statistics.mean), ("median", statistics.median)]:
    print(f"{name}: plain {f(plain):.3f} s, served {f(served):.3f} s, {100 * (f(served) / f(plain) - 1):+.1f}%")
PY
  ;;
memory)
  games=${1:-100000}
  shift || true
  counts=("${@:-0}")
  [ $# -eq 0 ] && counts=(0 100)
  for clients in "${counts[@]}"; do
    rm -rf "$work/runs"
    mkdir -p "$work/runs"
    p=$(port)
    "$arena" serve "$work/runs" --listen "127.0.0.1:$p" >/dev/null 2>&1 &
    server=$!
    scripts/live-clients.py "$p" big "$clients" >"$work/clients" &
    followers=$!
    /usr/bin/time -f "%e s, arena's own peak %M KiB" -o "$work/match" "$arena" match first-free first-free \
      --games "$games" --concurrency 2 --out "$work/runs/big" >/dev/null 2>&1
    # The clients take the last event and its tables.
    sleep 3
    kill -TERM $followers
    wait $followers || true
    peak=$(grep VmHWM "/proc/$server/status" | awk '{print $2}')
    kill $server
    wait $server 2>/dev/null || true
    echo "$clients clients: server peak RSS $((peak / 1024)) MiB; match $(cat "$work/match"); clients $(cat "$work/clients")"
  done
  ;;
*)
  echo "usage: $0 wall [ROUNDS [GAMES [CLIENTS [CLIENT FLAGS...]]]] | memory [GAMES [CLIENTS...]]" >&2
  exit 2
  ;;
esac
