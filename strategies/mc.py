"""mc: determinised Monte Carlo search with compiled greedy rollouts.

For each decision it samples ``rollouts`` full game states consistent with what it has
seen (its own hand, every face-up card, the pile, the burned cards and the cards seen
picked up; the unseen cards dealt at random to other hands, face-down rows and the
stock), plays every legal move in each sample, finishes the game with greedy play for all
seats (at most ``cap`` more moves) and keeps the move with the best mean place. All moves
are judged on the same samples (common random numbers), which makes the comparison much
less noisy. Equivalent face-down flips are judged once, and a sample drawn again (the same
hidden cards in the same places) is not played again. The swap is greedy's.

Parameters: ``rollouts`` (samples per decision, default 16), ``cap`` (move cap of a
rollout, default 400). Cost grows with both; it is left out of default tournaments.
Where the observation does not account for a whole deck (a scenario position, or a
playout of ``shedsim hint`` from one), the unseen cards are re-dealt with
:func:`~shedsim.kernel.policies.determinise_any` instead (cards the position leaves out are
unseen too); in a game dealt from a whole deck the samples are exactly as before.
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.nb import legal_moves
from shedsim.kernel.policies import (
    determinise,
    determinise_any,
    greedy_move,
    greedy_rollout,
    rollout_places,
    strongest_face_up,
)

NAME = "mc"
DESCRIPTION = "determinised Monte Carlo: samples hidden cards, greedy rollouts of every move"
DETERMINISTIC = False
PARAMS = {"rollouts": 16, "cap": 400}
PARAM_RANGES = {
    "rollouts": (1, 100_000),
    "cap": (10, 100_000),
}  # samples per decision; moves per rollout
TRAITS = {
    "cost": "slow",
    "search": True,
    "uses": ("own_cards", "pile", "opponents", "unseen"),
    "swap": "greedy-high",
}
INLINE = False  # too big to inline into the kernel's game loop; a call per decision is nothing here


@njit(cache=True)
def swap(visible, seat, players, rules, params, rng):
    return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)


@njit(cache=True)
def move_stats(obs, rules, params, rng, stats):
    """The decision, counting the work in ``stats`` (``int64[2]``): ``stats[0]`` += rollout
    moves played, ``stats[1]`` += rollouts. ``shedsim bench --strategy mc`` reads them."""
    moves = np.empty(160, np.int64)
    n = legal_moves(obs, rules, moves)
    if obs[L.O_STAGE] == L.STAGE_FACE_DOWN:
        # every face-down slot is unseen, so one flip stands for all of them
        k = 0
        for i in range(n):
            if moves[i] == L.FLIP or moves[i] < L.FLIP or moves[i] >= L.FLIP + L.MAX_TABLE:
                moves[k] = moves[i]
                k += 1
        n = k
    if n == 1:
        return moves[0]
    rollouts = max(1, params[0])
    cap = max(10, params[1])
    best = rollout_places(obs, rules, rng, moves, n, rollouts, cap, True, np.zeros(n), stats)
    if best < 0:
        return greedy_move(obs, rules)
    return moves[best]


@njit(cache=True)
def move(obs, rules, params, rng):
    return move_stats(obs, rules, params, rng, np.zeros(2, np.int64))


@njit(cache=True)
def playout_stats(obs, rules, params, rng, reps, play, stats):
    """The rollout loop alone, for ``shedsim bench``: ``reps`` determinisations of
    ``obs`` (``int64[O_SIZE]``), each rolled out by greedy for every seat (at most ``cap``
    moves) when ``play`` is true. ``stats`` (``int64[2]``): ``stats[0]`` += rollout moves,
    ``stats[1]`` += rollouts. Greedy draws nothing from ``rng``, so timing it with
    ``play`` false and then true from the same ``rng`` state gives the determinisations'
    time and, by difference, the rollouts' (:func:`shedsim.runs.benchmark.search_rates`)."""
    pub = np.empty(L.O_SIZE, np.int64)
    priv = np.empty(L.P_SIZE, np.int64)
    cap = max(10, params[1])
    me = obs[L.O_SEAT]
    for _ in range(reps):
        if not determinise(obs, rules, rng, pub, priv):
            if not determinise_any(obs, rules, rng, pub, priv):
                return
        if play:
            before = pub[L.O_MOVES]
            greedy_rollout(rules, pub, priv, me, cap)
            stats[0] += pub[L.O_MOVES] - before
            stats[1] += 1
