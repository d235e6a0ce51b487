"""Tiny bots for the tests of the bot protocol (tests/test_bot_*.py): each is a few lines of
Python (standard library only) written into a test's directory, and :func:`command` is the
``--bot`` command line that runs it with this interpreter.

Every bot answers ``hello`` and plays the first legal move; the hostile ones misbehave at
one point, counted in moves of the current game (``N`` below), the same in every game:
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

HEAD = """import json, os, sys, time
def say(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
n = 0
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        HELLO
    elif t == "game":
        n = 0
        GAME
    elif t == "swap":
        SWAP
    elif t == "move":
        n += 1
        MOVE
    elif t == "result":
        RESULT
    elif t == "bye":
        BYE
"""

BOTS = {
    # plays the first legal move, keeps its face-up cards
    "first": {},
    # never answers hello
    "silent": {"HELLO": "time.sleep(60)"},
    # answers hello with another protocol
    "oldproto": {"HELLO": 'say({"type": "hello", "name": "old", "protocol": 0})'},
    # prints a line that is not JSON, then exits, before any game
    "noise": {"HELLO": 'print("Segmentation fault (not really)", flush=True); sys.exit(3)'},
    # its Nth move comes after the time allowed
    "late": {
        "MOVE": (
            'time.sleep(float(os.environ.get("LATE_S", "0.5")) if n == 3 else 0); '
            'say({"type": "move", "move": m["legal"][0]})'
        )
    },
    # its Nth answer is not JSON
    "garbage": {
        "MOVE": (
            'say({"type": "move", "move": m["legal"][0]}) if n != 3 else '
            'print("{not json", flush=True)'
        )
    },
    # its Nth answer is a JSON object nested deeper than json can read
    "deep": {
        "MOVE": (
            'say({"type": "move", "move": m["legal"][0]}) if n != 3 else '
            'print(\'{"type": "move", "move": \' + "[" * 5000 + "]" * 5000 + "}", flush=True)'
        )
    },
    # every answer to move is not JSON: it forfeits every game at its first move
    "babble": {"MOVE": 'print("{not json", flush=True)'},
    # plays the first legal move in the first game its process plays, the last one after
    # (what it plays depends on the games it played before: a replay started afresh differs)
    "moody": {
        "HELLO": 'g = 0; say({"type": "hello", "name": "moody", "protocol": 1})',
        "SWAP": 'g += 1; say({"type": "swap", "face_up": m["face_up"]})',
        "MOVE": 'say({"type": "move", "move": m["legal"][0 if g == 1 else -1]})',
    },
    # its Nth move is not in legal
    "illegal": {"MOVE": 'say({"type": "move", "move": m["legal"][0] if n != 3 else "play Zx9"})'},
    # it swaps cards it was not dealt
    "badswap": {"SWAP": 'say({"type": "swap", "face_up": ["A", "A", "A", "A"]})'},
    # it exits at its Nth move
    "dies": {"MOVE": 'sys.exit(1) if n == 3 else say({"type": "move", "move": m["legal"][0]})'},
    # writes 300 kB to standard error before each answer
    "chatty": {
        "MOVE": (
            'sys.stderr.write("x" * 300000 + "\\n"); say({"type": "move", "move": m["legal"][0]})'
        )
    },
    # tells its pid on standard error when it starts, and every clock it gets
    "pid": {
        "HELLO": (
            'sys.stderr.write(f"pid {os.getpid()}\\n"); '
            'say({"type": "hello", "name": "pid", "protocol": 1})'
        ),
        "MOVE": (
            "sys.stderr.write(f\"clock {json.dumps(m['clock'])}\\n\"); "
            'say({"type": "move", "move": m["legal"][0]})'
        ),
    },
    # takes 30 ms a move (a per-game budget runs out)
    "slow": {"MOVE": 'time.sleep(0.03); say({"type": "move", "move": m["legal"][0]})'},
    # stays on after bye
    "stays": {"BYE": "time.sleep(60)"},
    # writes chatter (lines that answer nothing) a moment after each game and result
    # message, when shedsim has long sent its next request, and before each move's answer
    "chatter": {
        "GAME": (
            'time.sleep(0.005); print("a new game!", flush=True); '
            'say({"type": "log", "text": "dealt"})'
        ),
        "RESULT": 'time.sleep(0.005); print("", flush=True); print("[1, 2]", flush=True)',
        "MOVE": 'print("thinking...", flush=True); say({"type": "move", "move": m["legal"][0]})',
    },
    # writes a JSON note before its swap's answer: chatter (no type), so it plays every game
    "note": {"SWAP": 'say({"note": "hi"}); say({"type": "swap", "face_up": m["face_up"]})'},
    # its Nth move is not in legal; tells each result, and its pid at hello, on standard error
    "tells": {
        "HELLO": (
            'sys.stderr.write(f"hello from {os.getpid()}\\n"); '
            'say({"type": "hello", "name": "tells", "protocol": 1})'
        ),
        "MOVE": 'say({"type": "move", "move": m["legal"][0] if n != 3 else "play Zx9"})',
        "RESULT": "sys.stderr.write(f\"result {m['game']} {m['end']}\\n\")",
    },
}
DEFAULTS = {
    "HELLO": 'say({"type": "hello", "name": "first", "protocol": 1})',
    "SWAP": 'say({"type": "swap", "face_up": m["face_up"]})',
    "MOVE": 'say({"type": "move", "move": m["legal"][0]})',
    "BYE": "break",
    "GAME": "pass",
    "RESULT": "pass",
}


def write(directory: Path, name: str) -> Path:
    """Write bot ``name`` of :data:`BOTS` into ``directory``; returns its path."""
    text = HEAD
    for k, v in {**DEFAULTS, **BOTS[name]}.items():
        text = text.replace(k, v)
    p = Path(directory) / f"{name}.py"
    p.write_text(text)
    return p


def command(directory: Path, name: str) -> str:
    """The command line that runs bot ``name`` (written into ``directory`` first)."""
    return shlex.join([sys.executable, str(write(directory, name))])
