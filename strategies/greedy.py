"""greedy: shed the cheapest card you can, keep the specials for emergencies.

Move: play the lowest playable rank that has no special role, every copy at once (copies
shed together cost one turn and build toward a four-of-a-kind burn). A 2, 10 or other
special card is played only when nothing ordinary fits (one card, the lowest), since it
is the only escape from a high pile. When nothing fits: pick up (or flip face-down slot 1).
Swap: the strongest cards go face up (burn, reset and other specials, then high ranks),
because face-up cards are played late, when the pile is at its worst.
It never picks up voluntarily and never gambles.
"""

from numba import njit

from shedsim import layout as L
from shedsim.kernel.policies import greedy_move, strongest_face_up

NAME = "greedy"
DESCRIPTION = "lowest non-special rank, all copies; specials only when forced; strong cards face up"
DETERMINISTIC = True
PARAMS = {}
TRAITS = {"cost": "fast", "uses": ("own_cards",), "swap": "greedy-high"}


@njit(cache=True)
def swap(visible, seat, players, rules, params, rng):
    return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)


@njit(cache=True)
def move(obs, rules, params, rng):
    return greedy_move(obs, rules)
