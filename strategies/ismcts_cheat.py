"""ismcts_cheat: ismcts that sees the hidden cards. A measuring tool, never a player.

The search of :mod:`strategies.ismcts` (the same tree, iterations, exploration, playouts
and backup) with every iteration starting from the game's true position instead of a
determinisation of what the mover has seen (:func:`strategies.ismcts.search` with
``seen``): other hands, face-down cards and the stock order are all known. Against
``ismcts`` it measures what perfect information is worth to this search, the most that
any inference of the hidden cards could give it (the gap Powley, Whitehouse and Cowling,
"Determinization in Monte-Carlo Tree Search for the card game Dou Di Zhu", AISB 2011,
measured between their cheating and determinised players).

``TRAITS['cheating']`` says so (:mod:`shedsim.plugin_meta`): the kernel calls
:func:`move_seeing` with its private state (``priv``, :mod:`shedsim.layout`'s ``P_*``),
only ``sprt`` and ``bench`` seat it, no default field or selection picks it, and the
reference engine (bots, ``play``, the differential tests), which gives a strategy only
its observation, refuses it. The parameters are ismcts's; the swap is greedy's.
"""

import numpy as np
from numba import njit

from strategies.ismcts import PARAM_RANGES as _RANGES
from strategies.ismcts import PARAMS as _PARAMS
from strategies.ismcts import SOLVE_NODES, moves_here, search
from shedsim import layout as L
from shedsim.kernel.policies import greedy_move, strongest_face_up

NAME = "ismcts_cheat"
DESCRIPTION = (
    "CHEATS: ismcts that sees every hidden card (a measuring tool for sprt and bench, never "
    "a player)"
)
DETERMINISTIC = False
# it sees the cards: no inference; and it runs every iteration and plays every playout out,
# as the ismcts it bounds
_LEFT_OUT = ("infer", "stop", "value", "valued_iterations")
PARAMS = {k: v for k, v in _PARAMS.items() if k not in _LEFT_OUT}
PARAM_RANGES = {k: v for k, v in _RANGES.items() if k in PARAMS}
_SOLVE = list(PARAMS).index("solve")  # where ismcts's solve lands in this shorter list
TRAITS = {
    "cost": "slow",
    "search": True,
    "uses": ("own_cards", "pile", "opponents", "unseen"),
    "swap": "greedy-high",
    "cheating": True,
}
INLINE = False  # allocates its tree per decision


@njit(cache=True)
def swap(visible, seat, players, rules, params, rng):
    return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)


@njit(cache=True)
def move_seeing(obs, priv, rules, params, rng):
    """The decision with the true position: ``obs`` (``int64[O_SIZE]``) the mover's
    observation, ``priv`` (``int64[P_SIZE]``) the kernel's private state of the game
    (only read). Returns the move code (``int64``)."""
    buf = np.empty(160, np.int64)
    n = moves_here(obs, rules, buf, True)
    if n == 1:
        return buf[0]
    root_moves = np.zeros(160, np.int64)
    root_visits = np.zeros(160, np.int64)
    root_value = np.zeros(160, np.float64)
    m = search(
        obs,
        rules,
        max(1, params[0]),
        params[1] / 100.0,
        params[2],
        max(10, params[3]),
        rng,
        root_moves,
        root_visits,
        root_value,
        np.zeros(2, np.int64),
        params[4],
        priv,
        solve=SOLVE_NODES if params[_SOLVE] != 0 else 0,
    )
    if m < 0:
        return greedy_move(obs, rules)
    return m


@njit(cache=True)
def move(obs, rules, params, rng):
    """Never asked: without the hidden cards there is nothing to cheat with. Returns -1,
    an illegal move (the kernel calls :func:`move_seeing`; the reference engine refuses
    the strategy before a game starts)."""
    return np.int64(-1)
