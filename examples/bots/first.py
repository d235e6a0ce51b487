"""first.py: the smallest bot, in plain Python (no packages): it keeps its face-up cards as
dealt and plays the first legal move. ``shedsim bench --bot first='python examples/bots/first.py'``
measures the pipe with it (docs/reference/bots.md)."""

import json
import sys

for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        reply = {"type": "hello", "name": "first", "protocol": 1, "deterministic": True}
    elif t == "swap":
        reply = {"type": "swap", "face_up": m["face_up"]}
    elif t == "move":
        reply = {"type": "move", "move": m["legal"][0]}
    elif t == "bye":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
