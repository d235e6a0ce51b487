"""expert: a careful human player's heuristics, with card tracking.

* Swap by a value table: burn cards, then reset cards, then other cards that go on
  anything, then high ranks face up; low cards stay in the hand to be shed early.
* Completes a four-of-a-kind burn whenever it can (a burn clears the pile and gives
  another move).
* Otherwise sheds the lowest ordinary rank, all copies, keeping pairs together.
* Tracks what has been seen: once the stock is empty, if the next seat's hand is fully
  known (everything in it was picked up in public) it prefers the lowest play that seat
  cannot beat, forcing a pick-up.
* Spends specials by pile size and stage: with nothing ordinary to play, a big pile (or
  any pile once the stock is gone) is burned or reset; a pile of one or two cards is
  picked up instead when voluntary pick-up is allowed and the stock still has cards.
* Picks up voluntarily, where the rules allow it, a small pile (at most 3) made mostly of
  special cards: ammunition for later.
* When stuck in a rule set with the deck gamble, gambles rather than takes a pile of 3+.
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.nb import can_pick_up, count, lowest, one, play, playable, stage_cards, total

NAME = "expert"
DESCRIPTION = "card tracking, burns, keeps specials for big piles, value-table swap"
DETERMINISTIC = True
PARAMS = {}


@njit(cache=True)
def _value(rules, r):
    f = rules[L.R_FLAGS + r]
    if (f & L.F_BURN) != 0:
        return 40
    if (f & L.F_RESET) != 0:
        return 38
    if (f & L.F_MAGIC) != 0:
        return 30 + r / 100.0
    if (f & L.F_LOW) != 0:
        return 8
    return r


@njit(cache=True)
def swap(visible, seat, players, rules, params, rng):
    up = np.int64(0)
    left = visible
    for _ in range(rules[L.R_TABLE_SIZE]):
        best = 0
        best_v = -1.0
        for r in range(2, 15):
            if count(left, r) > 0:
                v = _value(rules, r)
                if v > best_v:
                    best_v = v
                    best = r
        up += one(best)
        left -= one(best)
    return up


@njit(cache=True)
def _next_seat(obs):
    n = obs[L.O_PLAYERS]
    d = obs[L.O_DIRECTION]
    pos = obs[L.O_SEAT]
    for _ in range(n):
        pos = (pos + d + n) % n
        if obs[L.O_PLACE + pos] == 0:
            return pos
    return obs[L.O_SEAT]


@njit(cache=True)
def move(obs, rules, params, rng):
    st = obs[L.O_STAGE]
    if st == L.STAGE_FACE_DOWN:
        return np.int64(L.FLIP)
    special = rules[L.R_SPECIAL_MASK]
    ok = playable(obs, rules)
    plain = ok & ~special
    pile_n = obs[L.O_PILE_N]
    stock_n = obs[L.O_STOCK_N]
    voluntary = can_pick_up(obs, rules, True)
    # A small pile rich in specials is worth taking where the rules allow it.
    if voluntary and 0 < pile_n <= 3 and st == L.STAGE_HAND:
        if 2 * total(obs[L.O_PILE] & special) > pile_n:
            return np.int64(L.PICKUP)
    if plain != 0:
        tr = obs[L.O_TOP_RANK]
        if tr != 0 and count(plain, tr) > 0 and obs[L.O_RUN] + count(plain, tr) >= rules[L.R_BURN_RUN]:
            return play(tr, count(plain, tr))
        if stock_n == 0:
            nxt = _next_seat(obs)
            known = obs[L.O_KNOWN + nxt]
            if total(known) == obs[L.O_HAND_N + nxt] and obs[L.O_HAND_N + nxt] > 0:
                rest = plain
                while rest != 0:
                    r = lowest(rest)
                    beat = known & rules[L.R_PLAYABLE + r]
                    if beat == 0:
                        return play(r, count(plain, r))
                    rest -= count(rest, r) * one(r)
        r = lowest(plain)
        return play(r, count(plain, r))
    if ok != 0:
        if voluntary and pile_n <= 2 and stock_n > 0:
            return np.int64(L.PICKUP)
        burn = ok & rules[L.R_BURN_MASK]
        others = ok & ~rules[L.R_BURN_MASK]
        if burn != 0 and (pile_n >= 4 or others == 0):
            return play(lowest(burn), 1)
        if others != 0:
            return play(lowest(others), 1)
        return play(lowest(burn), 1)
    if rules[L.R_GAMBLE] != 0 and stock_n > 0 and pile_n >= 3:
        return np.int64(L.GAMBLE)
    if pile_n > 0:
        return np.int64(L.PICKUP)
    return play(lowest(stage_cards(obs)), 1)
