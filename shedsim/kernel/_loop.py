"""Template of the generated kernel's game loop (see :mod:`shedsim.kernel.build`).

This file is valid Python so it can be read and linted, but it is not imported to run:
:func:`shedsim.kernel.build.kernel_module` copies it below a generated strategy dispatch
(``choose_swap``/``choose_move``), which replaces the stub import line, and numba caches
the result. Per-game records (``int`` arrays, one row per game, ``P`` = players):

``places`` int8[n, P] (0 = still in at the move cap), ``start`` int8[n], ``moves``
int32[n], ``pickups``/``burns`` int16[n, P], ``unfinished`` bool[n], ``dealt`` /
``face_up`` int64[n, P] (packed visible cards dealt, face-up cards chosen).

``trace`` int32[n, T]: the first T move codes of each game (T = 0 records nothing; the
differential test uses it).

``status`` int64[8]: on return ``status[0]`` = games completed; when a strategy fails,
``status[1]`` = error kind (1 impossible swap, 2 illegal move), ``status[2]`` = seat,
``status[3]`` = what the strategy returned, ``status[4]`` = move number. While running,
``status[0]`` is the game in progress, so an exception raised inside a strategy can be
traced to its game.
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.core import apply, deal, is_legal, prepare, start_seat, valid_swap
from shedsim.kernel._stub import choose_move, choose_swap  # GENERATED-DISPATCH


@njit(cache=True)
def play_chunk(rules, entry_ids, entry_params, seating, deal_keys, strategy_keys, dealers, places, start, moves,
               pickups, burns, unfinished, dealt, face_up, trace, status):
    """Play ``len(deal_keys)`` games. ``seating[g, seat]`` is an entry index: entry ``e``
    is strategy id ``entry_ids[e]`` with parameters ``entry_params[e]`` (``int64[8]``)."""
    n_games = deal_keys.shape[0]
    trace_len = trace.shape[1]
    players = rules[L.R_PLAYERS]
    max_moves = rules[L.R_MAX_MOVES]
    table = rules[L.R_TABLE_SIZE]
    pub = np.zeros(L.O_SIZE, dtype=np.int64)
    priv = np.zeros(L.P_SIZE, dtype=np.int64)
    drng = np.zeros(1, dtype=np.uint64)
    srng = np.zeros(1, dtype=np.uint64)
    # The mover's parameters, copied element by element: slicing entry_params[e] would
    # create an array view, whose reference counting costs more than a whole move.
    n_params = entry_params.shape[1]
    params = np.zeros(n_params, dtype=np.int64)
    status[1] = 0
    for g in range(n_games):
        status[0] = g
        drng[0] = deal_keys[g]
        srng[0] = strategy_keys[g]
        deal(rules, pub, priv, drng, dealers[g])
        for s in range(players):
            visible = priv[L.P_HANDS + s] + pub[L.O_FACE_UP + s]
            dealt[g, s] = visible
            pub[L.O_SEAT] = s
            status[4] = 0
            e = seating[g, s]
            for i in range(n_params):
                params[i] = entry_params[e, i]
            up = choose_swap(entry_ids[e], visible, s, players, rules, params, srng)
            if not valid_swap(visible, up, table):
                status[1] = 1
                status[2] = s
                status[3] = up
                return g
            pub[L.O_FACE_UP + s] = up
            priv[L.P_HANDS + s] = visible - up
            face_up[g, s] = up
        first = start_seat(rules, pub, priv, drng)
        start[g] = first
        pub[L.O_SEAT] = first
        while pub[L.O_IN] > 0 and pub[L.O_MOVES] < max_moves:
            prepare(pub, priv)
            s = pub[L.O_SEAT]
            e = seating[g, s]
            for i in range(n_params):
                params[i] = entry_params[e, i]
            m = choose_move(entry_ids[e], pub, rules, params, srng)
            if not is_legal(rules, pub, priv, m):
                status[1] = 2
                status[2] = s
                status[3] = m
                status[4] = pub[L.O_MOVES] + 1
                return g
            if pub[L.O_MOVES] < trace_len:
                trace[g, pub[L.O_MOVES]] = m
            apply(rules, pub, priv, m)
        moves[g] = pub[L.O_MOVES]
        unfinished[g] = pub[L.O_IN] > 0
        for s in range(players):
            places[g, s] = pub[L.O_PLACE + s]
            pickups[g, s] = pub[L.O_PICKUPS + s]
            burns[g, s] = pub[L.O_BURNS + s]
    status[0] = n_games
    return n_games
