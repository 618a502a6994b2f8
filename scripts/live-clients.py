#!/usr/bin/env python3
"""N live clients of `arena serve`, as a browser's live page behaves: each
loads the run's page once, then follows the run's event stream and fetches the
run's tables on every event (what live.js does). On SIGTERM it prints what the
clients received as one JSON line.

    scripts/live-clients.py PORT RUN N [--stalled K] [--no-page]

--stalled K: K more clients open the event stream and never read it (stalled
tabs). --no-page: the clients do not load the run's page first (a page opened
before the run started)."""
import argparse, json, signal, socket, sys, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("run")
parser.add_argument("n", type=int)
parser.add_argument("--stalled", type=int, default=0)
parser.add_argument("--no-page", action="store_true")
args = parser.parse_args()
stats = {"clients": args.n, "stalled": args.stalled, "events": 0, "pages": 0, "bytes": 0}
lock = threading.Lock()
held = []


def connect():
    while True:
        try:
            return socket.create_connection(("127.0.0.1", args.port))
        except OSError:
            time.sleep(0.02)


def request(path):
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{args.port}\r\n".encode()


def get(path):
    conn = connect()
    conn.sendall(request(path) + b"Connection: close\r\n\r\n")
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    conn.close()
    with lock:
        stats["pages"] += 1
        stats["bytes"] += len(data)


def follow():
    if not args.no_page:
        get(f"/runs/{args.run}")
    conn = connect()
    conn.sendall(request(f"/runs/{args.run}/events") + b"\r\n")
    for line in conn.makefile("rb"):
        if line.startswith(b"data:"):
            with lock:
                stats["events"] += 1
            get(f"/runs/{args.run}/tables?length={line[5:].strip().decode()}")


def stall():
    conn = connect()
    conn.sendall(request(f"/runs/{args.run}/events") + b"\r\n")
    held.append(conn)


def stop(*_):
    with lock:
        print(json.dumps(stats), flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
for target in [follow] * args.n + [stall] * args.stalled:
    threading.Thread(target=target, daemon=True).start()
while True:
    time.sleep(1)
