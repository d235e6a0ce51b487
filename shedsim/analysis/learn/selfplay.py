"""Positions and outcomes from compiled self-play, the data a value model learns from.

:func:`play_chunk` plays whole 2-seat games on the kernel with the search of
:mod:`strategies.ismcts` (any of its parameter sets: ``champion``'s by default) in every seat
and greedy's swap, and keeps the features (:func:`shedsim.kernel.value.features`) of one in
``every`` decisions that offer a choice, each labelled 1 when the seat to move went on to
win. :func:`self_play` runs chunks of games on joblib workers; a chunk's deals and search
draws come from its own keys (:func:`shedsim.seeding.game_keys` of the run seed and the chunk
index), so the data are the same for any number of workers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.core import apply, deal, prepare, start_seat, valid_swap
from shedsim.kernel.nb import legal_moves
from shedsim.kernel.policies import strongest_face_up
from shedsim.kernel.value import N_FEATURES, features
from strategies.ismcts import move as search_move

CHUNK = 20
"""Games per chunk: the unit of work a worker takes (and of the run's progress)."""
ROWS_PER_GAME = 600
"""Decisions with a choice kept room for per game, before ``every`` (a chunk stops recording
when full; a self-play game between searchers lasts hundreds of moves)."""
QUIET = 300
"""Moves in a row with no burn, no seat out and no draw after which a self-play game is
given up as unfinished (searchers can pass the pile back and forth for ever)."""


@njit(cache=True)
def play_chunk(rules, params, games, deal_key, search_key, every, out_x, out_meta):
    """Play ``games`` self-play games, the cards dealt from the splitmix64 stream
    ``deal_key`` and the searches drawing from ``search_key``, and keep one in ``every``
    decisions with a choice while both seats are in: its features in ``out_x``
    (``float64[cap, N_FEATURES]``) and ``(game, mover, won, moves)`` in ``out_meta``
    (``int64[cap, 4]``: the game's index in the chunk, the seat to move, 1 if it won, 0 if
    it lost, -1 if the game was given up unfinished (the move cap, or :data:`QUIET` moves
    without progress), and the game's length in
    moves). Returns the rows written; recording stops when ``cap`` rows are full while the
    games go on, so the draws stay those of the whole chunk. Seat ``g % players`` deals
    game ``g``."""
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    drng = np.zeros(1, np.uint64)
    srng = np.zeros(1, np.uint64)
    drng[0] = np.uint64(deal_key)
    srng[0] = np.uint64(search_key)
    x = np.zeros(N_FEATURES, np.float64)
    buf = np.empty(160, np.int64)
    n = rules[L.R_PLAYERS]
    cap = out_x.shape[0]
    got = 0
    seen = 0
    for g in range(games):
        deal(rules, pub, priv, drng, g % n)
        for s in range(n):
            visible = priv[L.P_HANDS + s] + pub[L.O_FACE_UP + s]
            up = strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
            if valid_swap(visible, up, rules[L.R_TABLE_SIZE]):
                pub[L.O_FACE_UP + s] = up
                priv[L.P_HANDS + s] = visible - up
        pub[L.O_SEAT] = start_seat(rules, pub, priv, drng)
        first = got
        quiet = 0
        while pub[L.O_IN] > 0 and pub[L.O_MOVES] < rules[L.R_MAX_MOVES] and quiet < QUIET:
            prepare(pub, priv)
            if legal_moves(pub, rules, buf) == 1:
                m = buf[0]
            else:
                seen += 1
                if seen % every == 0 and got < cap and pub[L.O_IN] == n:
                    features(pub, priv, x)
                    out_x[got, :] = x
                    out_meta[got, 0] = g
                    out_meta[got, 1] = pub[L.O_SEAT]
                    got += 1
                m = search_move(pub, rules, params, srng)
            burned, stock_n, n_in = pub[L.O_BURNED_N], pub[L.O_STOCK_N], pub[L.O_IN]
            apply(rules, pub, priv, m)
            if burned == pub[L.O_BURNED_N] and stock_n == pub[L.O_STOCK_N] and n_in == pub[L.O_IN]:
                quiet += 1
            else:
                quiet = 0
        for i in range(first, got):
            p = pub[L.O_PLACE + out_meta[i, 1]]
            out_meta[i, 2] = -1 if p == 0 else (1 if p == 1 else 0)
            out_meta[i, 3] = pub[L.O_MOVES]
    return got


def _chunk(rules, params, games, deal_key, search_key, every, index):
    cap = games * ROWS_PER_GAME // every + 1
    x = np.zeros((cap, N_FEATURES), np.float64)
    meta = np.zeros((cap, 4), np.int64)
    got = play_chunk(rules, params, games, deal_key, search_key, every, x, meta)
    meta = meta[:got]
    meta[:, 0] += index * CHUNK  # the game's index in the run
    return x[:got].astype(np.float32), meta


def self_play(
    rules: np.ndarray,
    params: np.ndarray,
    games: int,
    seed: int,
    every: int = 4,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``games`` self-play games under the compiled ``rules`` (``int64[R_SIZE]``, 2 players)
    with the ismcts parameters ``params`` (``int64``, :mod:`strategies.ismcts`'s order) in
    both seats, on ``workers`` processes. Returns ``(x, meta)``: ``float32[n, N_FEATURES]``
    features and ``int64[n, 4]`` ``(game, mover, won, moves)`` rows as
    :func:`play_chunk` writes them, the game indices counted over the run, in game order.
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
        delayed(_chunk)(rules, params, sizes[i], deal_keys[i], search_keys[i], every, i)
        for i in range(chunks)
    )
    xs, metas = [], []
    for x, meta in Parallel(n_jobs=workers, return_as="generator")(jobs):
        xs.append(x)
        metas.append(meta)
        if progress is not None:
            progress(min(games, sum(sizes[: len(xs)])))
    return np.concatenate(xs), np.concatenate(metas)
