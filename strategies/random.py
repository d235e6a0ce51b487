"""random: a uniformly random legal move and a uniformly random swap.

The baseline every other strategy must beat: every legal move (each rank and count,
voluntary pick-ups and gambles where allowed) is equally likely, and the face-up row is a
uniformly random draw of the visible cards. Its coin flips come from the game's strategy
stream, so runs stay reproducible.
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.nb import n_legal, nth_legal, one, total
from shedsim.kernel.rng import rng_below

NAME = "random"
DESCRIPTION = "uniformly random legal move and random swap (baseline)"
DETERMINISTIC = False
PARAMS = {}
TRAITS = {"cost": "fast", "uses": (), "swap": "random"}


@njit(cache=True)
def swap(visible, seat, players, rules, params, rng):
    left = visible
    up = np.int64(0)
    for _ in range(rules[L.R_TABLE_SIZE]):
        k = rng_below(rng, total(left))
        r = 2
        while True:
            c = (left >> (4 * (r - 2))) & 15
            if k < c:
                break
            k -= c
            r += 1
        up += one(r)
        left -= one(r)
    return up


@njit(cache=True)
def move(obs, rules, params, rng):
    n = n_legal(obs, rules)
    return nth_legal(obs, rules, rng_below(rng, n))
