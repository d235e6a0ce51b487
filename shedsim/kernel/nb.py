"""Small compiled helpers for strategies and the kernel: packed rank counts and moves.

Packed multisets hold 4 bits per rank (:mod:`shedsim.rules.cards`); all values are ``int64``.
Strategy plugins use these to read their observation (:mod:`shedsim.layout`).
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from shedsim import layout as L


@njit(cache=True, inline="always")
def ix(i):
    """``i`` (``int64``, known to be >= 0) as a ``uint64`` array index. numba adds the
    array's length to a negative signed index (Python's ``a[-1]``): a compare and a select
    on every access; an unsigned index is used as is. The game loop indexes with seats
    and ranks on every move, and this check was about an eighth of its time."""
    return np.uint64(i)


@njit(cache=True, inline="always")
def count(packed, rank):
    """Cards of ``rank`` in the packed multiset."""
    return (packed >> (4 * (rank - 2))) & 15


@njit(cache=True, inline="always")
def one(rank):
    """The packed multiset holding one card of ``rank``."""
    return np.int64(1) << (4 * (rank - 2))


@njit(cache=True)
def total(packed):
    """Cards in the packed multiset."""
    n = 0
    while packed != 0:
        n += packed & 15
        packed >>= 4
    return n


@njit(cache=True, inline="always")
def lowest(packed):
    """The lowest rank present in the packed multiset (2..14); 0 if it is empty."""
    if packed == 0:
        return np.int64(0)
    return np.int64((trailing_zeros(packed) >> 2) + 2)


@njit(cache=True, inline="always")
def highest(packed):
    """The highest rank present in the packed multiset (2..14); 0 if it is empty."""
    if packed == 0:
        return np.int64(0)
    return np.int64(((63 - leading_zeros(packed)) >> 2) + 2)


@njit(cache=True, inline="always")
def play(rank, k):
    """The move code for playing ``k`` cards of ``rank`` from the current stage."""
    return (rank << 8) | (k << 4)


@njit(cache=True, inline="always")
def flip(slot):
    """The move code for turning face-down slot ``slot`` (0-based)."""
    return L.FLIP + slot


@njit(cache=True, inline="always")
def stage_cards(obs):
    """The packed cards the mover plays from now: its hand, or its face-up row."""
    if obs[L.O_STAGE] == L.STAGE_HAND:
        return obs[L.O_HAND]
    if obs[L.O_STAGE] == L.STAGE_FACE_UP:
        return obs[ix(L.O_FACE_UP + obs[L.O_SEAT])]
    return np.int64(0)


@njit(cache=True, inline="always")
def playable(obs, rules):
    """The packed cards of the current stage that may be played on the effective top."""
    return stage_cards(obs) & rules[ix(L.R_PLAYABLE + obs[L.O_TOP])]


@njit(cache=True, inline="always")
def can_pick_up(obs, rules, has_play):
    """Whether ``PICKUP`` is legal now (``has_play``: some play or flip is legal)."""
    if obs[L.O_PILE_N] == 0:
        return False
    if not has_play:
        return True
    mode = rules[L.R_PICKUP]
    st = obs[L.O_STAGE]
    return (
        mode == L.PICKUP_ALWAYS
        or (st == L.STAGE_HAND and mode >= L.PICKUP_HAND)
        or (st == L.STAGE_FACE_UP and mode >= L.PICKUP_HAND_FACEUP)
    )


@njit(cache=True)
def _walk(obs, rules, out, target):
    """Enumerate legal moves in :func:`shedsim.rules.engine.legal_moves` order, writing them to
    ``out`` unless it is None. Returns (count, the ``target``-th move code or -1)."""
    n = 0
    found = np.int64(-1)
    st = obs[L.O_STAGE]
    seat = obs[L.O_SEAT]
    has_play = False
    voluntary = False
    mode = rules[L.R_PICKUP]
    if st == L.STAGE_HAND or st == L.STAGE_FACE_UP:
        cards = stage_cards(obs)
        ok = cards & rules[L.R_PLAYABLE + obs[L.O_TOP]]
        whole = st == L.STAGE_HAND and rules[L.R_MIX_LAST] != 0 and obs[L.O_STOCK_N] == 0
        for r in range(2, 15):
            c = count(ok, r)
            if c > 0:
                has_play = True
                for k in range(1, c + 1):
                    code = play(r, k)
                    if out is not None:
                        out[n] = code
                    if n == target:
                        found = code
                    n += 1
                if whole and c == obs[L.O_HAND_N + seat]:
                    for j in range(1, count(obs[L.O_FACE_UP + seat], r) + 1):
                        code = play(r, c) | j
                        if out is not None:
                            out[n] = code
                        if n == target:
                            found = code
                        n += 1
        voluntary = (
            mode == L.PICKUP_ALWAYS
            or (st == L.STAGE_HAND and mode >= L.PICKUP_HAND)
            or (st == L.STAGE_FACE_UP and mode >= L.PICKUP_HAND_FACEUP)
        )
    elif st == L.STAGE_FACE_DOWN:
        for i in range(obs[L.O_FACE_DOWN_N + seat]):
            code = np.int64(L.FLIP + i)
            if out is not None:
                out[n] = code
            if n == target:
                found = code
            n += 1
        has_play = n > 0
        voluntary = mode == L.PICKUP_ALWAYS
    if obs[L.O_PILE_N] > 0 and (voluntary or not has_play):
        if out is not None:
            out[n] = L.PICKUP
        if n == target:
            found = np.int64(L.PICKUP)
        n += 1
    if rules[L.R_GAMBLE] != 0 and obs[L.O_STOCK_N] > 0:
        if out is not None:
            out[n] = L.GAMBLE
        if n == target:
            found = np.int64(L.GAMBLE)
        n += 1
    return n, found


@njit(cache=True)
def legal_moves(obs, rules, out):
    """Write every legal move code into ``out`` (``int64[>= 128]``); returns how many.
    Same order as :func:`shedsim.rules.engine.legal_moves`."""
    return _walk(obs, rules, out, -1)[0]


@njit(cache=True)
def n_legal(obs, rules):
    """How many legal moves the mover has."""
    return _walk(obs, rules, None, -1)[0]


@njit(cache=True)
def nth_legal(obs, rules, target):
    """The ``target``-th legal move code (0-based, in :func:`legal_moves` order)."""
    return _walk(obs, rules, None, target)[1]
