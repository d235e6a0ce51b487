"""Positions for timing a search strategy's decisions (``shedsim bench --strategy mc``).

:func:`sample_positions` plays greedy games on the kernel's rules engine and keeps the
observation (:mod:`shedsim.layout`) of every ``every``-th decision that has a choice, so a
search strategy can be timed on real positions outside the game loop, where its work
(rollout moves) can be counted.
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.core import (
    constants,
    deal,
    stage_of,
    start_seat,
    step_with,
    valid_swap,
    write_turn,
)
from shedsim.kernel.nb import ix, n_legal
from shedsim.kernel.policies import greedy_move, strongest_face_up


@njit(cache=True)
def sample_positions(rules, n, every, key):
    """``int64[n, O_SIZE]``: observations from greedy self-play (greedy's swap), the mover's
    hand included; one in ``every`` decisions with two or more legal moves is kept. Games
    are dealt from the splitmix64 stream ``key`` (dealer seat 0). Returns fewer rows only
    if 10,000 games do not yield ``n`` positions."""
    out = np.zeros((n, L.O_SIZE), np.int64)
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    drng = np.zeros(1, np.uint64)
    drng[0] = np.uint64(key)
    rc = constants(rules)
    players = rc[0]
    got = 0
    seen = 0
    for _ in range(10_000):
        deal(rules, pub, priv, drng, 0)
        for s in range(players):
            visible = priv[ix(L.P_HANDS + s)] + pub[ix(L.O_FACE_UP + s)]
            up = strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
            if valid_swap(visible, up, rules[L.R_TABLE_SIZE]):
                pub[ix(L.O_FACE_UP + s)] = up
                priv[ix(L.P_HANDS + s)] = visible - up
        seat = start_seat(rules, pub, priv, drng)
        top = np.int64(0)
        trank = np.int64(0)
        run = np.int64(0)
        pile = np.int64(0)
        pile_n = np.int64(0)
        stock_n = pub[L.O_STOCK_N]
        n_in = pub[L.O_IN]
        direction = np.int64(1)
        moves = np.int64(0)
        while n_in > 0 and moves < rules[L.R_MAX_MOVES]:
            st = stage_of(pub, seat, stock_n)
            write_turn(
                pub, seat, st, priv[ix(L.P_HANDS + seat)], top, trank, run, pile, pile_n, moves
            )
            if n_legal(pub, rules) > 1:
                seen += 1
                if seen % every == 0:
                    out[got, :] = pub
                    got += 1
                    if got == n:
                        return out
            m = greedy_move(pub, rules)
            moves += 1
            seat, top, trank, run, pile, pile_n, stock_n, n_in, direction = step_with(
                rules,
                rc,
                pub,
                priv,
                m,
                seat,
                st,
                top,
                trank,
                run,
                pile,
                pile_n,
                stock_n,
                n_in,
                direction,
            )
    return out[:got]
