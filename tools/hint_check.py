"""How often ``shedsim hint`` ranks a winning move first, by playouts and by search, on end
games the exact solver settles.

Random two-seat shithead end games are dealt (seat 0 to move, the stock empty, no face-down
card: each seat 1-5 hand cards and 0-2 face-up, 0-2 ordinary cards on the pile, every other
card burned and listed, so seat 0 knows the other hand). Each is solved exactly
(:func:`shedsim.analysis.endgame.solve`); those in which some move wins and some does not
are kept: a decision that matters. On each, with the solver turned off (``solve_limit=0``),
the move ranked first by the playouts of the default policy, by ``--search`` (the strongest
player's search) and the move greedy plays are checked against the exact values.

Usage: ``python tools/hint_check.py [--positions N] [--seed S]``; prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shedsim.analysis.endgame import WIN, NotSolved, solve  # noqa: E402
from shedsim.analysis.hint import default_policy, rank_moves, search_policy  # noqa: E402
from shedsim.kernel.policies import greedy_move  # noqa: E402
from shedsim.rules.cards import RANKS  # noqa: E402
from shedsim.rules.engine import Move, public_array  # noqa: E402
from shedsim.rules.scenario import ScenarioError, parse_scenario, play_moves  # noqa: E402
from shedsim.stats import wilson  # noqa: E402

NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
PILE_RANKS = [r for r in RANKS if r not in (2, 10)]  # no reset, no burn on the pile's top


def _name(r: int) -> str:
    return NAMES.get(r, str(r))


def deal_end_game(rng: np.random.Generator):
    """One random tracked end game (a GameState), or None when the deal is not a position."""
    deck = [r for r in RANKS for _ in range(4)]
    rng.shuffle(deck)
    sizes = [int(rng.integers(1, 6)), int(rng.integers(1, 6))]
    ups = [int(rng.integers(0, 3)), int(rng.integers(0, 3))]
    seats, k = [], 0
    for s in range(2):
        hand = deck[k : k + sizes[s]]
        k += sizes[s]
        up = deck[k : k + ups[s]]
        k += ups[s]
        seats.append({"hand": [_name(r) for r in hand], "face_up": [_name(r) for r in up]})
    rest = deck[k:]
    pile = []
    for _ in range(int(rng.integers(0, 3))):
        choices = [i for i, r in enumerate(rest) if r in PILE_RANKS]
        i = choices[int(rng.integers(len(choices)))]
        pile.append(rest.pop(i))
    pile.sort()  # ordinary cards in rising order: a pile that could have been played
    data = {
        "rules": "shithead",
        "to_move": 0,
        "pile": [_name(r) for r in pile],
        "stock": [],
        "burned_cards": [_name(r) for r in rest],
        "seats": seats,
    }
    try:
        return play_moves(parse_scenario(data))[0]
    except ScenarioError:
        return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200, help="positions kept (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    methods = {"playouts": default_policy(), "search": search_policy(), "greedy": "greedy"}
    right: Counter = Counter()
    seconds: Counter = Counter()
    dealt = kept = 0
    while kept < args.positions:
        st = deal_end_game(rng)
        dealt += 1
        if st is None:
            continue
        try:
            sol = solve(st)
        except NotSolved:
            continue
        value = {v.move: v.result for v in sol.values}
        if WIN not in value.values() or all(r == WIN for r in value.values()):
            continue
        kept += 1
        t = time.perf_counter()
        top = rank_moves(st, solve_limit=0, seed=kept, search=False).moves[0].move
        seconds["playouts"] += time.perf_counter() - t
        right["playouts"] += value[top] == WIN
        t = time.perf_counter()
        top = rank_moves(st, solve_limit=0, seed=kept, search=True).moves[0].move
        seconds["search"] += time.perf_counter() - t
        right["search"] += value[top] == WIN
        g = str(Move.from_code(greedy_move(public_array(st), st.rules.compile(2))))
        right["greedy"] += value[g] == WIN
    out = {"positions": kept, "dealt": dealt, "seed": args.seed}
    for m, who in methods.items():
        lo, hi = wilson(right[m], kept)
        out[m] = {
            "strategy": who,
            "win_first": right[m],
            "share": right[m] / kept,
            "lo": float(lo),
            "hi": float(hi),
            "seconds_per_hint": seconds[m] / kept if m != "greedy" else None,
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
