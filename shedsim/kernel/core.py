"""The rules engine in numba: deal, swap bookkeeping, start, legality and moves.

The same rules as :mod:`shedsim.engine`, over three ``int64`` arrays (layouts in
:mod:`shedsim.layout`): ``rules`` (compiled :class:`~shedsim.rules.RuleSet`), ``pub`` (the
public state, which is also every strategy's observation) and ``priv`` (hands, face-down
slots, the deck). Hands, face-up rows and the pile are packed rank counts, so a pick-up is
one addition and the legal plays are one ``&`` with the ``can_play`` mask of the effective
top. Nothing here allocates: callers allocate the arrays once per chunk.

The pile keeps only what the rules read: its packed contents and size, the effective
top (the last non-invisible card played: the pile only grows until it is burned or picked
up, so that card is the topmost visible one) and the physical top rank with its run
length (for the four-of-a-kind burn). Used by the generated kernel
(:mod:`shedsim.kernel.build`) and the ``mc`` strategy's rollouts.
"""

import numpy as np
from numba import njit

from .. import layout as L
from .nb import count, lowest, one
from .rng import rng_below


@njit(cache=True)
def deal(rules, pub, priv, drng, dealer):
    """Reset ``pub``/``priv`` and deal a new game from the deal stream ``drng`` (``uint64[1]``).

    Same order as :func:`shedsim.engine.deal`: Fisher-Yates shuffle, then one card at a
    time from the dealer's left, face-down rounds, face-up rounds, hand rounds.
    """
    n = rules[L.R_PLAYERS]
    size = rules[L.R_DECK_SIZE]
    per = 4 * rules[L.R_DECKS]
    table = rules[L.R_TABLE_SIZE]
    hand_size = rules[L.R_HAND_SIZE]
    pub[:] = 0
    priv[:] = 0
    pos = 0
    for r in range(2, 15):
        for _ in range(per):
            priv[L.P_DECK + pos] = r
            pos += 1
    for i in range(size - 1, 0, -1):
        j = rng_below(drng, i + 1)
        a = priv[L.P_DECK + i]
        priv[L.P_DECK + i] = priv[L.P_DECK + j]
        priv[L.P_DECK + j] = a
    pos = 0
    for _ in range(table):
        for k in range(n):
            s = (dealer + 1 + k) % n
            priv[L.P_FACE_DOWN + s * L.MAX_TABLE + pub[L.O_FACE_DOWN_N + s]] = priv[L.P_DECK + pos]
            pub[L.O_FACE_DOWN_N + s] += 1
            pos += 1
    for _ in range(table):
        for k in range(n):
            s = (dealer + 1 + k) % n
            pub[L.O_FACE_UP + s] += one(priv[L.P_DECK + pos])
            pos += 1
    for _ in range(hand_size):
        for k in range(n):
            s = (dealer + 1 + k) % n
            priv[L.P_HANDS + s] += one(priv[L.P_DECK + pos])
            pub[L.O_HAND_N + s] += 1
            pos += 1
    pub[L.O_PLAYERS] = n
    pub[L.O_STOCK_N] = size - pos
    pub[L.O_DIRECTION] = 1
    pub[L.O_IN] = n
    pub[L.O_DEALER] = dealer


@njit(cache=True)
def valid_swap(visible, up, table_size):
    """Whether packed ``up`` is a sub-multiset of packed ``visible`` with ``table_size`` cards."""
    if up < 0:
        return False
    n = 0
    for r in range(2, 15):
        c = count(up, r)
        if c > count(visible, r):
            return False
        n += c
    return n == table_size and (up >> 52) == 0


@njit(cache=True)
def start_seat(rules, pub, priv, drng):
    """The starting seat after the swap (RULES.md section 2, ruling 8); draws from ``drng``
    only where the start rule is random."""
    n = rules[L.R_PLAYERS]
    dealer = pub[L.O_DEALER]
    rule = rules[L.R_START]
    ordinary = rules[L.R_ORDINARY_MASK]
    if rule == L.START_DEALER_LEFT:
        return (dealer + 1) % n
    if rule == L.START_RANDOM:
        return rng_below(drng, n)
    if rule == L.START_LOWEST_HAND:
        best = 99
        best_seat = (dealer + 1) % n
        for k in range(n):
            s = (dealer + 1 + k) % n
            lo = lowest(priv[L.P_HANDS + s] & ordinary)
            if lo != 0 and lo < best:
                best = lo
                best_seat = s
        return best_seat
    # lowest ordinary face-up card; ties and nobody settled at random
    best = 99
    tied = 0
    for s in range(n):
        lo = lowest(pub[L.O_FACE_UP + s] & ordinary)
        if lo != 0:
            if lo < best:
                best = lo
                tied = 1
            elif lo == best:
                tied += 1
    if best == 99:
        return rng_below(drng, n)
    pick = 0 if tied == 1 else rng_below(drng, tied)
    for s in range(n):
        if lowest(pub[L.O_FACE_UP + s] & ordinary) == best:
            if pick == 0:
                return s
            pick -= 1
    return 0


@njit(cache=True, inline="always")
def stage(pub, priv, s):
    """``STAGE_*`` of seat ``s``."""
    if pub[L.O_PLACE + s] != 0:
        return L.STAGE_OUT
    if pub[L.O_HAND_N + s] > 0 or pub[L.O_STOCK_N] > 0:
        return L.STAGE_HAND
    if pub[L.O_FACE_UP + s] != 0:
        return L.STAGE_FACE_UP
    return L.STAGE_FACE_DOWN


@njit(cache=True, inline="always")
def prepare(pub, priv):
    """Fill the mover's fields of the observation (stage and own hand) before a decision."""
    s = pub[L.O_SEAT]
    pub[L.O_STAGE] = stage(pub, priv, s)
    pub[L.O_HAND] = priv[L.P_HANDS + s]


@njit(cache=True, inline="always")
def is_legal(rules, pub, priv, move):
    """Whether ``move`` is legal for the seat to move (as :func:`shedsim.engine.legal_moves`).
    Call :func:`prepare` first."""
    s = pub[L.O_SEAT]
    st = pub[L.O_STAGE]
    mask = rules[L.R_PLAYABLE + pub[L.O_TOP]]
    if move >= L.PLAY_MIN:
        r = move >> 8
        k = (move >> 4) & 15
        j = move & 15
        if r < 2 or r > 14 or k < 1 or count(mask, r) == 0:
            return False
        if st == L.STAGE_HAND:
            if count(priv[L.P_HANDS + s], r) < k:
                return False
            if j == 0:
                return True
            return (rules[L.R_MIX_LAST] != 0 and pub[L.O_STOCK_N] == 0
                    and pub[L.O_HAND_N + s] == k and count(pub[L.O_FACE_UP + s], r) >= j)
        if st == L.STAGE_FACE_UP:
            return j == 0 and count(pub[L.O_FACE_UP + s], r) >= k
        return False
    if move == L.PICKUP:
        if pub[L.O_PILE_N] == 0:
            return False
        mode = rules[L.R_PICKUP]
        if st == L.STAGE_HAND:
            return mode >= L.PICKUP_HAND or (priv[L.P_HANDS + s] & mask) == 0
        if st == L.STAGE_FACE_UP:
            return mode >= L.PICKUP_HAND_FACEUP or (pub[L.O_FACE_UP + s] & mask) == 0
        return mode == L.PICKUP_ALWAYS
    if move == L.GAMBLE:
        return rules[L.R_GAMBLE] != 0 and pub[L.O_STOCK_N] > 0
    if move >= L.FLIP and move < L.FLIP + L.MAX_TABLE:
        return st == L.STAGE_FACE_DOWN and move - L.FLIP < pub[L.O_FACE_DOWN_N + s]
    return False


@njit(cache=True, inline="always")
def _step(pos, d, n):
    pos += d
    if pos >= n:
        return pos - n
    if pos < 0:
        return pos + n
    return pos


@njit(cache=True, inline="always")
def advance(pub, seat, steps):
    """The seat ``steps`` turns after ``seat``, counting only seats still in."""
    n = pub[L.O_PLAYERS]
    d = pub[L.O_DIRECTION]
    pos = seat
    for _ in range(steps):
        pos = _step(pos, d, n)
        while pub[L.O_PLACE + pos] != 0:
            pos = _step(pos, d, n)
    return pos


@njit(cache=True, inline="always")
def _pick_up(pub, priv, s, card):
    """The pile, plus ``card`` if non-zero, goes to seat ``s``'s hand; the turn passes."""
    taken = pub[L.O_PILE]
    n = pub[L.O_PILE_N]
    if card != 0:
        taken += one(card)
        n += 1
    priv[L.P_HANDS + s] += taken
    pub[L.O_HAND_N + s] += n
    pub[L.O_KNOWN + s] += taken
    pub[L.O_PICKUPS + s] += 1
    pub[L.O_PILE] = 0
    pub[L.O_PILE_N] = 0
    pub[L.O_TOP] = 0
    pub[L.O_TOP_RANK] = 0
    pub[L.O_RUN] = 0
    pub[L.O_SEAT] = advance(pub, s, 1)


@njit(cache=True, inline="always")
def _land(rules, pub, priv, s, r, n, from_hand):
    """``n`` cards of rank ``r`` landed on the pile: burn, refill, out, next player."""
    flags = rules[L.R_FLAGS + r]
    if from_hand > 0 and pub[L.O_KNOWN + s] != 0:
        kn = count(pub[L.O_KNOWN + s], r)
        pub[L.O_KNOWN + s] -= min(kn, from_hand) * one(r)
    pub[L.O_PILE] += n * one(r)
    pub[L.O_PILE_N] += n
    if (flags & L.F_INVISIBLE) == 0:
        pub[L.O_TOP] = r
    if pub[L.O_TOP_RANK] == r:
        pub[L.O_RUN] += n
    else:
        pub[L.O_TOP_RANK] = r
        pub[L.O_RUN] = n
    burned = (flags & L.F_BURN) != 0 or pub[L.O_RUN] >= rules[L.R_BURN_RUN]
    if burned:
        pub[L.O_BURNED] += pub[L.O_PILE]
        pub[L.O_BURNED_N] += pub[L.O_PILE_N]
        pub[L.O_PILE] = 0
        pub[L.O_PILE_N] = 0
        pub[L.O_TOP] = 0
        pub[L.O_TOP_RANK] = 0
        pub[L.O_RUN] = 0
        pub[L.O_BURNS + s] += 1
    # refill
    hand_size = rules[L.R_HAND_SIZE]
    size = rules[L.R_DECK_SIZE]
    while pub[L.O_STOCK_N] > 0 and pub[L.O_HAND_N + s] < hand_size:
        priv[L.P_HANDS + s] += one(priv[L.P_DECK + size - pub[L.O_STOCK_N]])
        pub[L.O_STOCK_N] -= 1
        pub[L.O_HAND_N + s] += 1
    players = pub[L.O_PLAYERS]
    # out check
    if pub[L.O_HAND_N + s] == 0 and pub[L.O_FACE_UP + s] == 0 and pub[L.O_FACE_DOWN_N + s] == 0:
        pub[L.O_PLACE + s] = players - pub[L.O_IN] + 1
        pub[L.O_IN] -= 1
    if (flags & L.F_REVERSE) != 0 and (n & 1) == 1:
        pub[L.O_DIRECTION] = -pub[L.O_DIRECTION]
    if pub[L.O_IN] == 1:
        for i in range(players):
            if pub[L.O_PLACE + i] == 0:
                pub[L.O_PLACE + i] = players
        pub[L.O_IN] = 0
        return
    if burned:
        if rules[L.R_BURN_PASSES] != 0 or pub[L.O_PLACE + s] != 0:
            pub[L.O_SEAT] = advance(pub, s, 1)
        else:
            pub[L.O_SEAT] = s
    elif (flags & L.F_SKIP) != 0:
        pub[L.O_SEAT] = advance(pub, s, 1 + n)
    else:
        pub[L.O_SEAT] = advance(pub, s, 1)


@njit(cache=True, inline="always")
def apply(rules, pub, priv, move):
    """Apply a move already checked by :func:`is_legal` (as :func:`shedsim.engine.apply_move`).
    Call :func:`prepare` first: the stage is read from the observation."""
    s = pub[L.O_SEAT]
    pub[L.O_MOVES] += 1
    if move >= L.PLAY_MIN:
        r = move >> 8
        k = (move >> 4) & 15
        j = move & 15
        if pub[L.O_STAGE] == L.STAGE_HAND:
            priv[L.P_HANDS + s] -= k * one(r)
            pub[L.O_HAND_N + s] -= k
            pub[L.O_FACE_UP + s] -= j * one(r)
            _land(rules, pub, priv, s, r, k + j, k)
        else:
            pub[L.O_FACE_UP + s] -= k * one(r)
            _land(rules, pub, priv, s, r, k, 0)
    elif move == L.PICKUP:
        _pick_up(pub, priv, s, 0)
    else:
        if move == L.GAMBLE:
            card = priv[L.P_DECK + rules[L.R_DECK_SIZE] - pub[L.O_STOCK_N]]
            pub[L.O_STOCK_N] -= 1
        else:
            slot = move - L.FLIP
            base = L.P_FACE_DOWN + s * L.MAX_TABLE
            card = priv[base + slot]
            last = pub[L.O_FACE_DOWN_N + s] - 1
            for i in range(slot, last):
                priv[base + i] = priv[base + i + 1]
            priv[base + last] = 0
            pub[L.O_FACE_DOWN_N + s] = last
        if count(rules[L.R_PLAYABLE + pub[L.O_TOP]], card) != 0:
            _land(rules, pub, priv, s, card, 1, 0)
        else:
            _pick_up(pub, priv, s, card)


@njit(cache=True)
def card_total(pub, priv):
    """Cards in play plus burned (conservation checks): hands, table, stock, pile, burned."""
    n = pub[L.O_PILE_N] + pub[L.O_STOCK_N] + pub[L.O_BURNED_N]
    for s in range(pub[L.O_PLAYERS]):
        n += pub[L.O_HAND_N + s] + pub[L.O_FACE_DOWN_N + s]
        f = pub[L.O_FACE_UP + s]
        while f != 0:
            n += f & 15
            f >>= 4
    return n
