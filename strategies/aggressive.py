"""aggressive: always play the highest card that fits.

Move: the highest playable ordinary rank, every copy, to push the pile up and make the
next player pick up; a special card (2, 10, ...) only when nothing ordinary fits, as
greedy does (spending the specials too makes games loop without end: cards leave the
game only through burns). When nothing fits: pick up (or flip face-down slot 1).
Swap: the strongest cards face up, as greedy. A foil for greedy: it spends its strength
early, which shows how much patience is worth.
"""

from numba import njit

from shedsim import layout as L
from shedsim.kernel.policies import aggressive_move, strongest_face_up

NAME = "aggressive"
DESCRIPTION = "highest playable ordinary rank first, all copies; specials when forced"
DETERMINISTIC = True
PARAMS = {}
# against copies of itself most games repeat a position and end as proven loops (`shedsim bench
# --strategy aggressive`)
TRAITS = {"cost": "fast", "uses": ("own_cards",), "swap": "greedy-high", "self_play_loops": True}


@njit(cache=True)
def swap(visible, seat, players, rules, params, rng):
    return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)


@njit(cache=True)
def move(obs, rules, params, rng):
    return aggressive_move(obs, rules)
