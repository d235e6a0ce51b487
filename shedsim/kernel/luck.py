"""The luck of a 2-player game's chance events, measured by greedy rollouts: a control variate.

A game's score mixes skill with luck. Pairing (the same deal with the seats swapped) takes out
the deal's luck, but once the two games' play diverges they turn over different face-down
cards and draw different stock cards. This module replays a traced game and, at each such
chance event, estimates how much the card revealed helped seat 0 (AIVAT: N. Burch, M. Schmid,
M. Moravcik, D. Morrill and M. Bowling, "AIVAT: a new variance reduction technique for agent
evaluation in imperfect information games", AAAI 2018)::

    term = V(after the event) - V(before it)

``V`` is seat 0's chance of winning estimated by ``reps`` greedy rollouts (both seats greedy,
:func:`shedsim.kernel.policies.greedy_rollout`) from the position, with every card nobody has
seen (the stock and every face-down slot: :func:`unseen_places`) dealt anew for each
rollout; "after" keeps the revealed cards where they are, "before" deals them anew too.

Why the term has mean zero. Given the game so far, the cards nobody has seen lie in a uniformly
random order: the deal is a uniform shuffle and no decision depended on them (a strategy that
sees them, a cheating one, breaks this). "Before" samples exactly that order. "After" fixes
the revealed cards at their true places, which are themselves a uniform draw, and samples the
rest given them: over the event's outcome it samples the same order. So both have the same
expectation whatever ``V`` is, and ``score - sum of terms`` estimates the expected score
without bias; ``V`` need only be good for the variance to shrink. Each "before" rollout is
the "after" sample with each revealed card exchanged with a uniformly chosen unseen place
(an exchange independent of the order keeps the order uniform), so the two rollouts of a
sample share most of their cards and their difference is mostly the revealed card's effect
(common random numbers).

Events: every face-down card turned over (``FLIP``), and the stock draws made while the
stock holds at most ``max_stock`` cards (early draws are many, each matters little, and their
terms add more noise than they take out). Which events count depends only on the game so far,
so the sum keeps mean zero. The rollouts draw from a stream keyed by the game's strategy key
and the move number (:data:`SALT`), never from the game's streams.
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.core import apply, deal, place_by_cards, prepare
from shedsim.kernel.nb import ix
from shedsim.kernel.policies import greedy_rollout
from shedsim.kernel.rng import GOLDEN, mix, rng_below

SALT = np.uint64(0x6A09E667F3BCC909)
"""XORed into a game's strategy key to key the rollouts' stream (``uint64``)."""

REPS = 128
"""Rollouts per value (``reps``): fewer leave more noise in each term."""

MAX_STOCK = 6
"""Stock draws count as events while the stock holds at most this many cards (``max_stock``)."""

ROLLOUT_CAP = 1000
"""Moves a rollout plays at most; an unfinished one scores 1/2 (:func:`greedy_rollout`)."""


@njit(cache=True)
def unseen_places(pub, size, out):
    """The ``priv`` indices (``int64``) of the cards nobody has seen, the stock's positions in
    the deck then every seat's face-down slots, into ``out`` (``int64[MAX_DECK]``); returns
    how many. ``size``: the deck's size (``rules[R_DECK_SIZE]``)."""
    n = 0
    for i in range(size - pub[L.O_STOCK_N], size):
        out[n] = L.P_DECK + i
        n += 1
    for s in range(pub[L.O_PLAYERS]):
        for i in range(pub[ix(L.O_FACE_DOWN_N + s)]):
            out[n] = L.P_FACE_DOWN + s * L.MAX_TABLE + i
            n += 1
    return n


@njit(cache=True)
def chance_term(rules, pub, priv, m, fixed, n_fixed, reps, key, where, rest, tp, tq, sq):
    """The term of move ``m``'s chance event from the prepared 2-seat position (``pub``,
    ``priv``; unchanged): the move reveals the cards in the ``priv`` places
    ``fixed[:n_fixed]``. Seat 0's rollout value after the event minus before it (module
    docstring), each the mean of ``reps`` greedy rollouts that start with ``m``; float64.
    ``key``: the rollouts' stream (``uint64``). Scratch: ``where``, ``rest``
    (``int64[MAX_DECK]``), ``tp`` (``int64[O_SIZE]``), ``tq``, ``sq`` (``int64[P_SIZE]``)."""
    size = rules[L.R_DECK_SIZE]
    n_all = unseen_places(pub, size, where)
    k = 0
    for i in range(n_all):  # the places the event does not reveal
        hit = False
        for j in range(n_fixed):
            if where[i] == fixed[j]:
                hit = True
        if not hit:
            rest[k] = where[i]
            k += 1
    rng = np.empty(1, np.uint64)
    rng[0] = key
    sq[:] = priv
    after = 0.0
    before = 0.0
    for _ in range(reps):
        for i in range(k - 1, 0, -1):  # the cards not revealed, in a new order (Fisher-Yates)
            j = rng_below(rng, i + 1)
            a = sq[rest[i]]
            sq[rest[i]] = sq[rest[j]]
            sq[rest[j]] = a
        tp[:] = pub
        tq[:] = sq
        after += 2.0 - greedy_rollout(rules, tp, tq, 0, ROLLOUT_CAP, m)
        tp[:] = pub
        tq[:] = sq
        for f in range(n_fixed):  # the same sample, each revealed card exchanged at random
            q = where[rng_below(rng, n_all)]
            a = tq[fixed[f]]
            tq[fixed[f]] = tq[q]
            tq[q] = a
        before += 2.0 - greedy_rollout(rules, tp, tq, 0, ROLLOUT_CAP, m)
    return (after - before) / reps


@njit(cache=True)
def redeal(rules, pub, priv, deal_key, dealer, face_up, start):
    """Set up a recorded 2-seat game for replay: dealt from ``deal_key`` (``uint64``) by
    ``dealer`` as the kernel deals it, each seat's face-up row ``face_up[s]`` (packed, as the
    swap left it; the rest of its visible cards in hand), ``start`` to move first."""
    drng = np.empty(1, np.uint64)
    drng[0] = deal_key
    deal(rules, pub, priv, drng, dealer)
    for s in range(rules[L.R_PLAYERS]):
        visible = priv[ix(L.P_HANDS + s)] + pub[ix(L.O_FACE_UP + s)]
        pub[ix(L.O_FACE_UP + s)] = face_up[s]
        priv[ix(L.P_HANDS + s)] = visible - face_up[s]
    pub[L.O_SEAT] = start


@njit(cache=True, nogil=True)
def luck(rules, deal_keys, keys, dealers, start, face_up, trace, moves, reps, max_stock, out):
    """Replay 2-seat games and sum their chance events' terms (seat 0's luck). Game ``g``:
    :func:`redeal` from ``deal_keys[g]``, ``dealers[g]``, ``face_up[g]`` (``int64[n, 2]``) and
    ``start[g]``, then its moves ``trace[g, :moves[g]]`` (``int32[n, T]``, the kernel's
    trace; ``moves[g]`` at most T: a game traced in part gets the terms of its traced
    moves, which keeps the mean zero). ``keys`` (``uint64[n]``): the games' strategy keys,
    which key the rollouts (:data:`SALT`). ``reps``: rollouts per value; ``max_stock``: stock
    draws count while the stock holds at most this many cards. Writes ``out[g]``
    (``float64[n]``) and returns ``places`` (``int8[n, 2]``, as the replay ends and the
    kernel records them: the recorded places for a game traced to its end)."""
    n_games = deal_keys.shape[0]
    size = rules[L.R_DECK_SIZE]
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    up = np.zeros(L.O_SIZE, np.int64)
    uq = np.zeros(L.P_SIZE, np.int64)
    fixed = np.zeros(L.MAX_DECK, np.int64)
    where = np.zeros(L.MAX_DECK, np.int64)
    rest = np.zeros(L.MAX_DECK, np.int64)
    tp = np.zeros(L.O_SIZE, np.int64)
    tq = np.zeros(L.P_SIZE, np.int64)
    sq = np.zeros(L.P_SIZE, np.int64)
    places = np.zeros((n_games, 2), np.int8)
    for g in range(n_games):
        redeal(rules, pub, priv, deal_keys[g], dealers[g], face_up[g], start[g])
        total = 0.0
        for t in range(moves[g]):
            if pub[L.O_IN] == 0:
                break
            m = np.int64(trace[g, t])
            prepare(pub, priv)
            seat = pub[L.O_SEAT]
            stock = pub[L.O_STOCK_N]
            up[:] = pub
            uq[:] = priv
            apply(rules, pub, priv, m)
            drawn = stock - pub[L.O_STOCK_N]
            n_fixed = 0
            if L.FLIP <= m < L.FLIP + L.MAX_TABLE:
                fixed[0] = L.P_FACE_DOWN + seat * L.MAX_TABLE + (m - L.FLIP)
                n_fixed = 1
            elif drawn > 0 and stock <= max_stock:
                for i in range(drawn):
                    fixed[i] = L.P_DECK + size - stock + i
                n_fixed = drawn
            if n_fixed > 0:
                key = mix((keys[g] ^ SALT) + GOLDEN * np.uint64(t + 1))
                total += chance_term(
                    rules, up, uq, m, fixed, n_fixed, reps, key, where, rest, tp, tq, sq
                )
        out[g] = total
        n_in = pub[L.O_IN]
        if n_in > 0 and rules[L.R_STALEMATE] == L.STALEMATE_MOST_CARDS:
            place_by_cards(pub, pub[L.O_SEAT], pub[L.O_DIRECTION], 2, n_in)
        for s in range(2):
            places[g, s] = pub[L.O_PLACE + s]
    return places


TRACE = 1000
"""Moves of each game traced and replayed for its luck (:func:`play_traced`): a longer game
gets the terms of these moves only, which keeps the correction's mean zero."""


class ReplayMismatch(RuntimeError):
    """The replay of a traced game did not reach the places the kernel recorded."""


def play_traced(kernel, rules_array, ids, params, seating, deal_keys, strategy_keys, dealers,
                reps=REPS, max_stock=MAX_STOCK):  # fmt: skip
    """Play 2-seat games on ``kernel`` (:meth:`shedsim.kernel.build.Kernel.play`'s arguments)
    traced to :data:`TRACE` moves, and measure each one's luck by :func:`luck`. Returns the
    records without the trace, plus ``luck`` (``float64[n]``: seat 0's summed terms; seat
    1's is minus it). Raises what ``Kernel.play`` raises (its ``KernelError`` numbers the
    game within these), and :class:`ReplayMismatch` when a game traced to its end replays
    to other places (a replay that is not the game played)."""
    rec = kernel.play(rules_array, ids, params, seating, deal_keys, strategy_keys, dealers,
                      trace_moves=TRACE)  # fmt: skip
    moves = rec["moves"].astype(np.int64)
    terms = np.zeros(len(moves))
    places = luck(
        rules_array, deal_keys, strategy_keys, np.asarray(dealers, np.int64),
        rec["start"].astype(np.int64), rec["face_up"], rec.pop("trace"),
        np.minimum(moves, TRACE), reps, max_stock, terms,
    )  # fmt: skip
    full = moves <= TRACE
    if not (places[full] == rec["places"][full]).all():
        raise ReplayMismatch("the replay of a traced game missed its recorded places")
    rec["luck"] = terms
    return rec
