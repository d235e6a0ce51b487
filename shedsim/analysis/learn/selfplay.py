"""Positions and outcomes from compiled self-play, the data a value model learns from.

A teacher's module plays whole 2-seat games on the kernel with its search in every seat
(:func:`strategies.ismcts.self_play`, which champion shares) and greedy's swap, and keeps
the features (:func:`shedsim.kernel.value.features`) of one in ``every`` decisions that offer
a choice, each labelled 1 when the seat to move went on to win. :func:`self_play` runs
chunks of games on joblib workers; a chunk's deals and search draws come from its own keys
(:func:`shedsim.seeding.game_keys` of the run seed and the chunk index), so the data are the
same for any number of workers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from shedsim import layout as L
from shedsim.kernel.value import N_FEATURES

CHUNK = 20
"""Games per chunk: the unit of work a worker takes (and of the run's progress)."""
ROWS_PER_GAME = 600
"""Room kept per game, before ``every``, for the positions of its decisions with a choice (a
self-play game between searchers lasts hundreds of moves)."""


@functools.cache
def _play(teacher: str):
    """The compiled self-play of the strategy ``teacher`` (its module's ``self_play``)."""
    from shedsim.plugins import discover

    return discover().require(teacher).module.self_play


def _chunk(teacher, rules, params, games, deal_key, search_key, every, index):
    cap = games * ROWS_PER_GAME // every + 1
    x = np.zeros((cap, N_FEATURES), np.float64)
    meta = np.zeros((cap, 4), np.int64)
    got = _play(teacher)(rules, params, games, deal_key, search_key, every, x, meta)
    meta = meta[:got]
    meta[:, 0] += index * CHUNK  # the game's index in the run
    return x[:got].astype(np.float32), meta


def self_play(
    teacher: str,
    rules: np.ndarray,
    params: np.ndarray,
    games: int,
    seed: int,
    every: int = 4,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``games`` self-play games of the strategy ``teacher`` (its module's compiled
    ``self_play``, as :func:`strategies.ismcts.self_play`) with its parameters ``params``
    (``int64``) under the compiled ``rules`` (``int64[R_SIZE]``, 2 players), on ``workers``
    processes. Returns ``(x, meta)``: ``float32[n, N_FEATURES]`` features and ``int64[n, 4]``
    ``(game, mover, won, moves)`` rows as :func:`strategies.ismcts.self_play` writes them,
    the game indices counted over the run, in game order.
    ``progress`` is called with the games finished after each chunk. The same ``seed``
    gives the same arrays for any ``workers``. Raises ``ValueError`` for fewer than 1 game
    or a rules array not for 2 players."""
    from joblib import Parallel, delayed

    from shedsim.seeding import game_keys

    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if int(rules[L.R_PLAYERS]) != 2:
        raise ValueError("the value model is for 2 players")
    chunks = -(-games // CHUNK)
    deal_keys, search_keys = game_keys(seed, np.arange(chunks, dtype=np.int64))
    sizes = [min(CHUNK, games - i * CHUNK) for i in range(chunks)]
    jobs = (
        delayed(_chunk)(teacher, rules, params, sizes[i], deal_keys[i], search_keys[i], every, i)
        for i in range(chunks)
    )
    xs, metas = [], []
    for x, meta in Parallel(n_jobs=workers, return_as="generator")(jobs):
        xs.append(x)
        metas.append(meta)
        if progress is not None:
            progress(min(games, sum(sizes[: len(xs)])))
    return np.concatenate(xs), np.concatenate(metas)
