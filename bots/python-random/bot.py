#!/usr/bin/env python3
"""A Pah Tum bot that plays a uniformly random legal move.

It speaks the pahtum-arena protocol (protocol.md at the root of the
repository): it reads one JSON message per line on stdin and writes one JSON
answer per line on stdout. It uses only the standard library; copy this file
and replace the choices with your own ideas.
"""

import json
import random
import sys

NAME = "python-random"
VERSION = "1.0"
PROTOCOL = 1  # the protocol version this bot was written for

# All 49 cells, "a1" (bottom-left) to "g7" (top-right).
CELLS = [column + row for row in "1234567" for column in "abcdefg"]


def send(message):
    """Writes one answer: a single line of JSON, flushed at once.

    Without flush=True the answer would wait in Python's output buffer and
    the bot would lose on time.
    """
    print(json.dumps(message), flush=True)


def log(text):
    """Logs to stderr, which the referee keeps; stdout is only for answers."""
    print(f"[{NAME}] {text}", file=sys.stderr, flush=True)


def free_cells(request):
    """The cells with no block and no stone. Every request carries the whole
    board, so the bot needs to remember nothing between requests."""
    taken = set(request["blocks"]) | set(request["white"]) | set(request["black"])
    return [cell for cell in CELLS if cell not in taken]


def chosen(request, reply):
    """Logs the choice before it is sent: the referee shows each line of stderr
    beside the ply it was written for (`moves` holds the plies before it)."""
    choice = reply.get("cell", "swap" if reply.get("swap") else "keep")
    log(f"ply {len(request['moves']) + 1}: {choice} of {len(free_cells(request))} free cells")
    return reply


def answer(message):
    """The answer to one message from the referee, or None if it needs none."""
    kind = message["type"]
    if kind == "hello":
        return {"type": "hello", "protocol": PROTOCOL, "name": NAME, "version": VERSION}
    if kind == "new_game":
        log(f"new game {message['game']}, playing {message['color']}")
        return {"type": "ready", "id": message["id"]}
    if kind == "ping":
        return {"type": "pong", "id": message["id"]}
    if kind == "place_block":
        return chosen(message, {"type": "block", "id": message["id"], "cell": random.choice(free_cells(message))})
    if kind == "play_stone":
        return chosen(message, {"type": "stone", "id": message["id"], "cell": random.choice(free_cells(message))})
    if kind == "pie_decision":
        # Swap (take over White and its first stone) or keep Black: a coin toss.
        return chosen(message, {"type": "pie", "id": message["id"], "swap": random.random() < 0.5})
    if kind == "game_over":
        score = message["score"]
        log(f"game {message['game']} over ({message['reason']}): {message['result']} "
            f"wins {score['white']}-{score['black']}; I was {message['color']}")
    return None


def main():
    # Iterating over sys.stdin yields each line as soon as it arrives.
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "quit":
            break
        reply = answer(message)
        if reply is not None:
            send(reply)


if __name__ == "__main__":
    main()
