"""``shedsim hint --search``: the moves of a position ranked by the strongest player's own
search instead of by playouts of a policy.

:func:`searched` runs the root search of a strategy whose module defines ``root_search``
(the strongest player, ``TRAITS['strongest']``: :func:`strategies.ismcts.root_search`) from
the seat's observation, for ``iterations`` iterations, each from a fresh deal of the cards
the seat has not seen, with the reward of the hint's objective (P(lose): not being last;
expected place: the place; P(first): going out first), so the search spends its iterations
on what the ranking follows. Moves are ranked by the search's visits, most first (equal
visits by the better figure): the move ranked first is the one the strategy would play with
that budget.

The figures of each move are the search's own estimates: the mean, over that move's visits,
of the seat's place, of being last and of going out first. They are not samples of one fixed
way of playing on (the search's choices improve as it runs, and it visits the better moves
more), so they carry no confidence interval; a move visited little has a rough figure. Where
figures with intervals are wanted, the playouts of :func:`shedsim.analysis.hint.rank_moves`
give them.
"""

from __future__ import annotations

import math

import numpy as np

from shedsim.analysis.hint_result import HintError, Interval, MoveFigures
from shedsim.rules.scoring import FIGURE_NAMES
from shedsim.rules.state import GameState, Move

DEFAULT_ITERATIONS = 200_000
"""Iterations of ``hint --search`` by default (about a second on one core)."""
MAX_ITERATIONS = 10_000_000
"""The most iterations ``hint --search`` runs (its tree holds one node per iteration)."""


REWARDS = {"place": 0, "lose": 1, "first": 2}
"""The ``reward_kind`` a ``root_search`` takes for each hint objective: 0 the place, 1 not
being last, 2 going out first (``strategies.ismcts.REWARD_PLACE``, ``REWARD_NOT_LAST``,
``REWARD_FIRST``)."""


def search_reward(objective: str) -> int:
    """The search's reward (:data:`REWARDS`) for a hint ``objective``."""
    return REWARDS[objective]


def searched(
    st: GameState,
    strat,
    params: np.ndarray,
    reps: list[Move],
    iterations: int,
    seed: int,
    objective: str,
) -> tuple[list, int]:
    """Search ``st`` (the seat to move is the one advised) with ``strat``'s ``root_search``
    and parameters ``params`` (``int64[k]``) for ``iterations`` iterations, from the
    strategy stream of ``seed``. ``reps``: the legal moves to rank (one face-down flip
    standing for all). Returns the :class:`shedsim.analysis.hint_result.MoveFigures` of
    ``reps``, most visited first, and the iterations run. Raises
    :class:`shedsim.analysis.hint_result.HintError` when no deal of the unseen cards fits
    the position."""
    from shedsim.rules.engine import public_array
    from shedsim.seeding import game_keys

    obs = public_array(st)
    rules_array = st.rules.compile(st.players)
    moves = np.zeros(160, np.int64)
    visits = np.zeros(160, np.int64)
    out = np.zeros((160, 3), np.float64)
    _, sk = game_keys(seed, np.arange(1))
    rng = np.array([sk[0]], np.uint64)
    best = strat.module.root_search(
        obs, rules_array, params, rng, iterations, search_reward(objective), moves, visits, out
    )
    if best < 0:
        raise HintError(
            "no deal of the unseen cards fits this position (more hidden places than unseen cards)"
        )
    n = st.players
    where = {int(c): k for k, c in enumerate(moves) if c != 0}
    nan = math.nan
    figs = []
    for m in reps:
        k = where.get(m.code)
        v = int(visits[k]) if k is not None else 0
        if v:
            place = n - out[k, 0] / v * (n - 1)
            p_lose = 1.0 - out[k, 1] / v
            p_first = out[k, 2] / v
        else:
            place = p_lose = p_first = nan
        figs.append(
            MoveFigures(
                str(m),
                v,
                Interval(float(place), nan, nan),
                Interval(float(p_lose), nan, nan),
                Interval(float(p_first), nan, nan),
            )
        )
    worse = {"lose": 1.0, "place": 1.0, "first": -1.0}[objective]  # ties: the better figure
    figs.sort(key=lambda f: (-f.samples, worse * f.figure(objective).value))
    return figs, int(visits.sum())


def search_why(result) -> str:
    """``--why`` of a ranking by search: how the search shared its iterations between the
    first two moves and what it estimated for each."""
    name = FIGURE_NAMES[result.objective]
    total = max(1, sum(m.samples for m in result.moves))
    best = result.moves[0]

    def said(m) -> str:
        f = m.figure(result.objective)
        if f.value != f.value:  # NaN: never visited
            return f"{m.move} (never visited)"
        value = f"{f.value:.2f}" if result.objective == "place" else f"{100 * f.value:.1f}%"
        return f"{m.move} ({100 * m.samples / total:.0f}% of the iterations, {name} {value})"

    if len(result.moves) == 1:
        return f"{best.move} is the only legal move."
    return (
        f"{result.policy}'s search settled on {said(best)} over {said(result.moves[1])}: it "
        f"spends its iterations on the move whose {name} looks best as it plays each one on, "
        f"its own play deciding every later move."
    )
