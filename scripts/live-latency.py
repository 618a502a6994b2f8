#!/usr/bin/env python3
"""How long a move takes from the referee to a browser's event stream.

Usage: scripts/live-latency.py ARENA [GAMES] [MOVE_TIME] [--serve]

Plays `arena match engine heuristic --games GAMES --move-time MOVE_TIME`
(default 20 games, 20ms) in a fresh folder, as in a terminal, while
`arena serve` follows that folder (with --serve: the match serves itself, in
the process), and reads the run's stream of games in progress
(/runs/NAME/games, server-sent events) as a browser's EventSource does. Each
`move` event carries `unix_ms`, the wall clock when the runner had the move
from the referee (right after the referee read and checked the answer);
the reader takes the wall clock as soon as the line is read, before parsing
it. Both are CLOCK_REALTIME on the same machine, so the difference is the
latency, to a few microseconds. Prints the count, p50, p90, p99 and max, in
milliseconds. Snapshots (sent to a reader that fell behind) are not counted.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    args = [arg for arg in sys.argv[1:] if arg != "--serve"]
    in_process = "--serve" in sys.argv
    arena = args[0]
    games = args[1] if len(args) > 1 else "20"
    move_time = args[2] if len(args) > 2 else "20ms"
    folder = tempfile.mkdtemp()
    port = free_port()
    match = [arena, "match", "engine", "heuristic", "--games", games, "--move-time", move_time,
             "--out", os.path.join(folder, "m")]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    server = None
    if in_process:
        run = subprocess.Popen(match + ["--serve", f"127.0.0.1:{port}"], **quiet)
    else:
        server = subprocess.Popen([arena, "serve", folder, "--listen", f"127.0.0.1:{port}"], **quiet)
        run = subprocess.Popen(match, **quiet)
    deadline = time.time() + 30
    while True:
        try:
            stream = socket.create_connection(("127.0.0.1", port))
            break
        except OSError:
            if time.time() > deadline:
                sys.exit("the server did not listen")
            time.sleep(0.01)
    stream.sendall(f"GET /runs/m/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    stream.settimeout(0.5)
    latencies, buffer = [], b""
    while run.poll() is None:
        try:
            chunk = stream.recv(1 << 16)
        except socket.timeout:
            continue
        now = time.time() * 1000
        if not chunk:
            break
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            if line.startswith(b'data: {"type":"move"'):
                latencies.append(now - json.loads(line[6:])["ply"]["unix_ms"])
    if server:
        server.terminate()
        server.wait()
    latencies.sort()
    if not latencies:
        sys.exit("no move was seen")
    at = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print(f"{len(latencies)} moves: p50 {at(0.5):.2f} ms, p90 {at(0.9):.2f} ms, p99 {at(0.99):.2f} ms, "
          f"max {latencies[-1]:.2f} ms")


main()
