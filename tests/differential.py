"""The differential check: the reference engine and the compiled kernel play the same
seeded games and must agree move for move (shared by the test suite and ``make differential``).
"""

from __future__ import annotations

import numpy as np

from shedsim import plugins, seeding
from shedsim.rules import engine
from shedsim.kernel.build import kernel_module
from shedsim.layout import END_NAMES
from shedsim.rules.ruleset import RuleSet

STRATEGIES = ("greedy", "heuristic", "aggressive", "random")


def kernel_for_builtins():
    known = plugins.discover()
    return known, kernel_module([s for s in known.values() if s.compiled])


def seatings(n_games: int, players: int, n_strats: int) -> np.ndarray:
    """Seat s of game g plays strategy (g + s) % n_strats; rotates strategies over seats."""
    g = np.arange(n_games)[:, None]
    s = np.arange(players)[None, :]
    return ((g + s * (1 + g // n_strats)) % n_strats).astype(np.int64)


def compare(
    rules: RuleSet,
    players: int,
    n_games: int,
    seed: int,
    first: int = 0,
    names=STRATEGIES,
    ends: list[str] | None = None,
) -> list[str]:
    """Play games ``first .. first+n_games-1`` of ``seed`` both ways; returns disagreements.
    ``ends``, if given, receives how each of the kernel's games ended (``layout.END_NAMES``)."""
    known, k = kernel_for_builtins()
    ra = rules.compile(players)
    ids = k.ids
    entry_ids = np.array([ids[n] for n in names], np.int64)
    entry_params = np.stack([known[n].params_array() for n in names])
    index = np.arange(first, first + n_games)
    dk, sk = seeding.game_keys(seed, index)
    dealers = index % players
    seating = seatings(n_games, players, len(names))
    rec = k.play(ra, entry_ids, entry_params, seating, dk, sk, dealers, trace_moves=rules.max_moves)
    if ends is not None:
        ends.extend(END_NAMES[e] for e in rec["end"])
    ref_players = {n: known[n].player() for n in names}
    problems = []
    for g in range(n_games):
        seated = [ref_players[names[e]] for e in seating[g]]
        res = engine.play_game(rules, seated, int(dk[g]), int(sk[g]), int(dealers[g]))
        kmoves = rec["trace"][g, : rec["moves"][g]].tolist()
        checks = {
            "moves": (res.move_codes, kmoves),
            "places": (res.places, rec["places"][g].tolist()),
            "start": (res.start_seat, int(rec["start"][g])),
            "pickups": (res.pickups, rec["pickups"][g].tolist()),
            "burns": (res.burns, rec["burns"][g].tolist()),
            "unfinished": (res.unfinished, bool(rec["unfinished"][g])),
            "end": (res.end, END_NAMES[rec["end"][g]]),
            "dealt": (res.dealt_visible, rec["dealt"][g].tolist()),
            "face_up": (res.face_up, rec["face_up"][g].tolist()),
        }
        for key, (ref, ker) in checks.items():
            if ref != ker:
                where = ""
                if key == "moves":
                    i = next(
                        (i for i, (a, b) in enumerate(zip(ref, ker)) if a != b),
                        min(len(ref), len(ker)),
                    )
                    where = (
                        f" first difference at move {i + 1}: reference "
                        f"{engine.Move.from_code(ref[i]) if i < len(ref) else 'end'}, kernel "
                        f"{engine.Move.from_code(ker[i]) if i < len(ker) else 'end'}"
                    )
                problems.append(
                    f"{rules.name}{'+' + ','.join(rules.house) if rules.house else ''} "
                    f"{players}p seed {seed} game {first + g}: {key} differ{where}"
                )
                break
    return problems
