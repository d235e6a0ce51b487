"""The rules engine in numba: deal, swap bookkeeping, start, legality and moves.

The same rules as :mod:`shedsim.rules.engine`, over three ``int64`` arrays (layouts in
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
from numba.cpython.unsafe.numbers import trailing_zeros

from shedsim import layout as L
from shedsim.kernel.nb import count, ix, lowest, one, total
from shedsim.kernel.rng import GOLDEN, below, mix, rng_below


@njit(cache=True, inline="always")
def deal(rules, pub, priv, drng, dealer):
    """Reset ``pub``/``priv`` and deal a new game from the deal stream ``drng`` (``uint64[1]``).

    Same order as :func:`shedsim.rules.engine.deal`: Fisher-Yates shuffle, then one card at a
    time from the dealer's left, face-down rounds, face-up rounds, hand rounds.
    """
    size = rules[L.R_DECK_SIZE]
    per = 4 * rules[L.R_DECKS]
    # Nothing past the deck needs clearing: the deck's unused tail is never read, and the
    # loop check's state and the shuffle's scratch are written before they are read.
    if per == 4:  # one deck: card i is rank 2 + i // 4, a loop the compiler vectorises
        for i in range(size):
            priv[ix(L.P_DECK + i)] = 2 + (i >> 2)
    else:
        pos = L.P_DECK
        for r in range(2, 15):
            for _ in range(per):
                priv[pos] = r
                pos += 1
    # Fisher-Yates in two passes with the same draws as rng_below on drng, one per position
    # from the last: first every swap position (a pass without memory dependences, which
    # the compiler vectorises: draw k uses counter + (k + 1) * GOLDEN), then the swaps.
    counter = drng[0]
    m = size - 1
    for k in range(m):
        z = mix(counter + GOLDEN * np.uint64(k + 1))
        priv[ix(L.P_SHUFFLE + k)] = L.P_DECK + below(z, m + 1 - k)
    for k in range(m):
        i = ix(L.P_DECK + m - k)
        j = ix(priv[ix(L.P_SHUFFLE + k)])
        a = priv[i]
        priv[i] = priv[j]
        priv[j] = a
    drng[0] = counter + GOLDEN * np.uint64(m)
    deal_out(rules, pub, priv, dealer)


@njit(cache=True, inline="always")
def deal_out(rules, pub, priv, dealer):
    """Reset ``pub`` and the table part of ``priv``, then deal the deck already in
    ``priv[P_DECK:]`` (face-down rounds, face-up rounds, hand rounds from the dealer's left;
    the rest is the stock)."""
    n = rules[L.R_PLAYERS]
    size = rules[L.R_DECK_SIZE]
    table = rules[L.R_TABLE_SIZE]
    hand_size = rules[L.R_HAND_SIZE]
    for i in range(L.O_SIZE):
        pub[i] = 0
    for i in range(L.P_DECK):
        priv[i] = 0
    # Cards go round from the dealer's left: a running seat instead of (dealer + 1 + k) % n;
    # ix(): unsigned indices, used without numba's negative-index check (nb.ix).
    pos = L.P_DECK
    first = dealer + 1 if dealer + 1 < n else 0
    for t in range(table):  # face-down round t fills slot t of every seat
        s = first
        for _ in range(n):
            priv[ix(L.P_FACE_DOWN + s * L.MAX_TABLE + t)] = priv[ix(pos)]
            pos += 1
            s = s + 1 if s + 1 < n else 0
    # Face-up rounds, then hand rounds: card k of a round goes to the k-th seat from the
    # dealer's left; each seat's cards are summed in a register (one store a seat).
    for k in range(n):
        s = first + k if first + k < n else first + k - n
        up = np.int64(0)
        for t in range(table):
            up += one(priv[ix(pos + t * n + k)])
        pub[ix(L.O_FACE_UP + s)] = up
        hand = np.int64(0)
        for t in range(hand_size):
            hand += one(priv[ix(pos + (table + t) * n + k)])
        priv[ix(L.P_HANDS + s)] = hand
    pos += (table + hand_size) * n
    for s in range(n):
        pub[L.O_FACE_DOWN_N + s] = table
        pub[L.O_HAND_N + s] = hand_size
    pos -= L.P_DECK
    pub[L.O_PLAYERS] = n
    pub[L.O_STOCK_N] = size - pos
    pub[L.O_DIRECTION] = 1
    pub[L.O_IN] = n
    pub[L.O_DEALER] = dealer


@njit(cache=True)
def _visible_slot(rules, dealer, seat, p):
    """Whether deck position ``p`` is dealt to ``seat``'s face-up row or hand."""
    n = rules[L.R_PLAYERS]
    table = rules[L.R_TABLE_SIZE]
    lo = table * n
    hi = (2 * table + rules[L.R_HAND_SIZE]) * n
    return lo <= p < hi and (dealer + 1 + p % n) % n == seat


@njit(cache=True)
def deal_given(rules, pub, priv, drng, dealer, seat, visible):
    """A deal conditioned on ``seat``'s visible cards (hand plus face-up) being the packed
    multiset ``visible``; everything else (other seats, face-down cards, stock order) is
    uniformly random given that (used by the swap study, :mod:`shedsim.analysis.swaps`).

    Method: shuffle as :func:`deal` does; remove one uniformly chosen copy of each card of
    ``visible`` from the shuffled deck (for exchangeable copies, removing a uniformly chosen
    one leaves a uniformly random arrangement of the rest); lay the rest, in order, into
    every position not dealt to ``seat``'s hand or face-up row; give ``visible`` to those
    positions. Returns False (dealing nothing new) when the deck lacks a card of
    ``visible`` or the count is not hand size plus table size.
    """
    size = rules[L.R_DECK_SIZE]
    want = rules[L.R_TABLE_SIZE] + rules[L.R_HAND_SIZE]
    got = 0
    for r in range(2, 15):
        c = count(visible, r)
        if c > 4 * rules[L.R_DECKS]:
            return False
        got += c
    if got != want:
        return False
    deal(rules, pub, priv, drng, dealer)
    for r in range(2, 15):
        for _ in range(count(visible, r)):
            c = 0
            for p in range(size):
                if priv[L.P_DECK + p] == r:
                    c += 1
            u = rng_below(drng, c)
            for p in range(size):
                if priv[L.P_DECK + p] == r:
                    if u == 0:
                        priv[L.P_DECK + p] = 0
                        break
                    u -= 1
    w = 0
    for p in range(size):  # compact the remaining cards to the front, in order
        if priv[L.P_DECK + p] != 0:
            priv[L.P_DECK + w] = priv[L.P_DECK + p]
            w += 1
    left = visible
    for p in range(size - 1, -1, -1):  # spread them back from the end, skipping seat's slots
        if _visible_slot(rules, dealer, seat, p):
            u = rng_below(drng, want)  # a uniformly chosen card of those left
            want -= 1
            r = 2
            while u >= count(left, r):
                u -= count(left, r)
                r += 1
            left -= one(r)
            priv[L.P_DECK + p] = r
        else:
            w -= 1
            priv[L.P_DECK + p] = priv[L.P_DECK + w]
    deal_out(rules, pub, priv, dealer)
    return True


@njit(cache=True)
def valid_swap(visible, up, table_size):
    """Whether packed ``up`` is a sub-multiset of packed ``visible`` with ``table_size`` cards."""
    if up < 0 or (up >> 52) != 0:
        return False
    n = 0
    rest = up
    while rest != 0:  # one pass per distinct rank of up
        sh = trailing_zeros(rest) & ~3
        c = (rest >> sh) & 15
        if c > ((visible >> sh) & 15):
            return False
        n += c
        rest &= ~(np.int64(15) << sh)
    return n == table_size


@njit(cache=True, inline="always")
def start_seat(rules, pub, priv, drng):
    """The starting seat after the swap (docs/reference/rules.md#start); draws from ``drng``
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
        first = dealer + 1 if dealer + 1 < n else 0
        best_seat = first
        s = first
        for _ in range(n):
            lo = lowest(priv[ix(L.P_HANDS + s)] & ordinary)
            if lo != 0 and lo < best:
                best = lo
                best_seat = s
            s = s + 1 if s + 1 < n else 0
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
def stage_of(pub, s, stock_n):
    """``STAGE_*`` of seat ``s`` when the stock holds ``stock_n`` cards."""
    if pub[ix(L.O_PLACE + s)] != 0:
        return L.STAGE_OUT
    if pub[ix(L.O_HAND_N + s)] > 0 or stock_n > 0:
        return L.STAGE_HAND
    if pub[ix(L.O_FACE_UP + s)] != 0:
        return L.STAGE_FACE_UP
    return L.STAGE_FACE_DOWN


@njit(cache=True, inline="always")
def stage_in(pub, s, stock_n):
    """:func:`stage_of` for a seat known to be still in (the seat to move always is)."""
    if pub[ix(L.O_HAND_N + s)] > 0 or stock_n > 0:
        return L.STAGE_HAND
    if pub[ix(L.O_FACE_UP + s)] != 0:
        return L.STAGE_FACE_UP
    return L.STAGE_FACE_DOWN


@njit(cache=True, inline="always")
def stage(pub, priv, s):
    """``STAGE_*`` of seat ``s``."""
    return stage_of(pub, s, pub[L.O_STOCK_N])


@njit(cache=True, inline="always")
def prepare(pub, priv):
    """Fill the mover's fields of the observation (stage and own hand) before a decision."""
    s = pub[L.O_SEAT]
    pub[L.O_STAGE] = stage(pub, priv, s)
    pub[L.O_HAND] = priv[L.P_HANDS + s]


@njit(cache=True, inline="always")
def constants(rules):
    """The rules' scalars that every move reads, as a tuple ``(players, hand_size,
    deck_size, burn_run, burn_passes, pickup_mode, mix_last, gamble)``: read once per
    chunk, they stay in registers (a read of the rules array after a write to the state
    arrays must be repeated, since numba cannot tell that the arrays are distinct)."""
    return (
        rules[L.R_PLAYERS],
        rules[L.R_HAND_SIZE],
        rules[L.R_DECK_SIZE],
        rules[L.R_BURN_RUN],
        rules[L.R_BURN_PASSES],
        rules[L.R_PICKUP],
        rules[L.R_MIX_LAST],
        rules[L.R_GAMBLE],
    )


@njit(cache=True, inline="always")
def legal_with(rc, pub, move, s, st, mask, hand, pile_n, stock_n):
    """:func:`legal_now` with the rules' scalars ``rc`` (:func:`constants`), the can-play
    mask ``mask`` of the effective top and seat ``s``'s packed ``hand`` already in hand."""
    if move >= L.PLAY_MIN:
        r = move >> 8
        k = (move >> 4) & 15
        j = move & 15
        if r < 2 or r > 14 or k < 1 or count(mask, r) == 0:
            return False
        if st == L.STAGE_HAND:
            if count(hand, r) < k:
                return False
            if j == 0:
                return True
            return (
                rc[6] != 0
                and stock_n == 0
                and pub[ix(L.O_HAND_N + s)] == k
                and count(pub[ix(L.O_FACE_UP + s)], r) >= j
            )
        if st == L.STAGE_FACE_UP:
            return j == 0 and count(pub[ix(L.O_FACE_UP + s)], r) >= k
        return False
    if move == L.PICKUP:
        if pile_n == 0:
            return False
        mode = rc[5]
        if st == L.STAGE_HAND:
            return mode >= L.PICKUP_HAND or (hand & mask) == 0
        if st == L.STAGE_FACE_UP:
            return mode >= L.PICKUP_HAND_FACEUP or (pub[ix(L.O_FACE_UP + s)] & mask) == 0
        return mode == L.PICKUP_ALWAYS
    if move == L.GAMBLE:
        return rc[7] != 0 and stock_n > 0
    if move >= L.FLIP and move < L.FLIP + L.MAX_TABLE:
        return st == L.STAGE_FACE_DOWN and move - L.FLIP < pub[ix(L.O_FACE_DOWN_N + s)]
    return False


@njit(cache=True, inline="always")
def legal_now(rules, pub, priv, move, s, st, top, pile_n, stock_n):
    """Whether ``move`` is legal for seat ``s`` in stage ``st`` (as
    :func:`shedsim.rules.engine.legal_moves`), given the pile's effective top, its size and the
    stock's size."""
    return legal_with(
        constants(rules),
        pub,
        move,
        s,
        st,
        rules[L.R_PLAYABLE + top],
        priv[L.P_HANDS + s],
        pile_n,
        stock_n,
    )


@njit(cache=True, inline="always")
def is_legal(rules, pub, priv, move):
    """Whether ``move`` is legal for the seat to move (as :func:`shedsim.rules.engine.legal_moves`).
    Call :func:`prepare` first."""
    return legal_now(
        rules,
        pub,
        priv,
        move,
        pub[L.O_SEAT],
        pub[L.O_STAGE],
        pub[L.O_TOP],
        pub[L.O_PILE_N],
        pub[L.O_STOCK_N],
    )


@njit(cache=True, inline="always")
def _step(pos, d, n):
    pos += d
    if pos >= n:
        return pos - n
    if pos < 0:
        return pos + n
    return pos


@njit(cache=True, inline="always")
def advance_dir(pub, seat, steps, d, n):
    """The seat ``steps`` turns after ``seat`` in direction ``d``, counting only seats still in."""
    pos = seat
    for _ in range(steps):
        pos = _step(pos, d, n)
        while pub[ix(L.O_PLACE + pos)] != 0:
            pos = _step(pos, d, n)
    return pos


@njit(cache=True, inline="always")
def step_with(
    rules, rc, pub, priv, move, seat, st, top, trank, run, pile, pile_n, stock_n, n_in, direction
):
    """:func:`step` with the rules' scalars ``rc`` (:func:`constants`) passed in."""
    players = rc[0]
    land = True
    card = 0
    n = 0
    from_hand = 0
    r = 0
    if move >= L.PLAY_MIN:
        r = move >> 8
        k = (move >> 4) & 15
        j = move & 15
        if st == L.STAGE_HAND:
            priv[ix(L.P_HANDS + seat)] -= k * one(r)
            pub[ix(L.O_HAND_N + seat)] -= k
            if j != 0:
                pub[ix(L.O_FACE_UP + seat)] -= j * one(r)
            from_hand = k
            n = k + j
        else:
            pub[ix(L.O_FACE_UP + seat)] -= k * one(r)
            n = k
    elif move == L.PICKUP:
        land = False
    else:
        if move == L.GAMBLE:
            card = priv[ix(L.P_DECK + rc[2] - stock_n)]
            stock_n -= 1
            pub[L.O_STOCK_N] = stock_n
        else:
            slot = move - L.FLIP
            base = L.P_FACE_DOWN + seat * L.MAX_TABLE
            card = priv[ix(base + slot)]
            last = pub[ix(L.O_FACE_DOWN_N + seat)] - 1
            for i in range(slot, last):
                priv[ix(base + i)] = priv[ix(base + i + 1)]
            priv[ix(base + last)] = 0
            pub[ix(L.O_FACE_DOWN_N + seat)] = last
        if count(rules[ix(L.R_PLAYABLE + top)], card) != 0:
            r = card
            n = 1
        else:
            land = False
    if not land:
        # pick up the pile (and a failed flip's or gamble's card); the turn passes
        if move == L.PICKUP and st == L.STAGE_HAND and stock_n == 0 and rc[5] < L.PICKUP_HAND:
            # forced (no voluntary pick-up from the hand) with the stock empty: the hand held
            # no rank that beats the pile, and no unseen card enters it any more
            pub[ix(L.O_VOID + seat)] |= rules[ix(L.R_PLAYABLE + top)]
        taken = pile
        tn = pile_n
        if card != 0:
            taken += one(card)
            tn += 1
        priv[ix(L.P_HANDS + seat)] += taken
        pub[ix(L.O_HAND_N + seat)] += tn
        pub[ix(L.O_KNOWN + seat)] += taken
        pub[ix(L.O_PICKUPS + seat)] += 1
        seat = advance_dir(pub, seat, 1, direction, players)
        return seat, 0, 0, 0, np.int64(0), 0, stock_n, n_in, direction
    flags = rules[ix(L.R_FLAGS + r)]
    if from_hand > 0:
        kn = pub[ix(L.O_KNOWN + seat)]
        if kn != 0:
            # not min(): numba calls its builtin min out of line, spilling the loop's registers
            seen = count(kn, r)
            if seen > from_hand:
                seen = from_hand
            pub[ix(L.O_KNOWN + seat)] = kn - seen * one(r)
    pile += n * one(r)
    pile_n += n
    if (flags & L.F_INVISIBLE) == 0:
        top = r
    if trank == r:
        run += n
    else:
        trank = r
        run = n
    burned = (flags & L.F_BURN) != 0 or run >= rc[3]
    if burned:
        pub[L.O_BURNED] += pile
        pub[L.O_BURNED_N] += pile_n
        pile = 0
        pile_n = 0
        top = 0
        trank = 0
        run = 0
        pub[ix(L.O_BURNS + seat)] += 1
    # refill while the stock lasts
    hn = pub[ix(L.O_HAND_N + seat)]
    if stock_n > 0 and hn < rc[1]:
        size = rc[2]
        h = priv[ix(L.P_HANDS + seat)]
        while stock_n > 0 and hn < rc[1]:
            h += one(priv[ix(L.P_DECK + size - stock_n)])
            stock_n -= 1
            hn += 1
        priv[ix(L.P_HANDS + seat)] = h
        pub[ix(L.O_HAND_N + seat)] = hn
        pub[L.O_STOCK_N] = stock_n
    # out check (refill came first: docs/reference/rules.md#ruling-refill-before-out)
    out = hn == 0 and pub[ix(L.O_FACE_UP + seat)] == 0 and pub[ix(L.O_FACE_DOWN_N + seat)] == 0
    if out:
        pub[ix(L.O_PLACE + seat)] = players - n_in + 1
        n_in -= 1
        pub[L.O_IN] = n_in
    if (flags & L.F_REVERSE) != 0 and (n & 1) == 1:
        direction = -direction
        pub[L.O_DIRECTION] = direction
    if n_in == 1:
        for i in range(players):
            if pub[ix(L.O_PLACE + i)] == 0:
                pub[ix(L.O_PLACE + i)] = players
        pub[L.O_IN] = 0
        return seat, top, trank, run, pile, pile_n, stock_n, 0, direction
    if burned:
        if rc[4] != 0 or out:
            seat = advance_dir(pub, seat, 1, direction, players)
    elif (flags & L.F_SKIP) != 0:
        seat = advance_dir(pub, seat, 1 + n, direction, players)
    else:
        seat = advance_dir(pub, seat, 1, direction, players)
    return seat, top, trank, run, pile, pile_n, stock_n, n_in, direction


@njit(cache=True, inline="always")
def step(rules, pub, priv, move, seat, st, top, trank, run, pile, pile_n, stock_n, n_in, direction):
    """Apply a legal move (as :func:`shedsim.rules.engine.apply_move`) with the pile, stock,
    turn and direction held in arguments rather than in ``pub`` (so the kernel's game loop
    keeps them in registers). Per-seat state is updated in ``pub``/``priv`` in place.

    Returns the new ``(seat, top, trank, run, pile, pile_n, stock_n, n_in, direction)``;
    ``n_in`` is 0 once the game is over. Does not count the move.
    """
    return step_with(
        rules,
        constants(rules),
        pub,
        priv,
        move,
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


@njit(cache=True, inline="always")
def write_turn(pub, seat, st, hand, top, trank, run, pile, pile_n, moves):
    """Write the scalars that change from move to move into the observation array (before
    a decision): the mover, its stage and hand, the pile and the move count. The stock's
    size, the seats still in and the direction are written by :func:`step_with` when they
    change (and by :func:`deal_out` at the start), so a loop that only applies moves with
    :func:`step_with` needs nothing more; every store here costs the game loop time."""
    pub[L.O_SEAT] = seat
    pub[L.O_STAGE] = st
    pub[L.O_HAND] = hand
    pub[L.O_TOP] = top
    pub[L.O_TOP_RANK] = trank
    pub[L.O_RUN] = run
    pub[L.O_PILE] = pile
    pub[L.O_PILE_N] = pile_n
    pub[L.O_MOVES] = moves


@njit(cache=True, inline="always")
def write_public(
    pub, seat, st, hand, top, trank, run, pile, pile_n, stock_n, n_in, direction, moves
):
    """Write the turn's scalars into the observation array (before a decision):
    :func:`write_turn` plus the stock's size, the seats still in and the direction."""
    write_turn(pub, seat, st, hand, top, trank, run, pile, pile_n, moves)
    pub[L.O_STOCK_N] = stock_n
    pub[L.O_IN] = n_in
    pub[L.O_DIRECTION] = direction


@njit(cache=True)
def apply(rules, pub, priv, move):
    """Apply a move already checked by :func:`is_legal` (as
    :func:`shedsim.rules.engine.apply_move`).
    Call :func:`prepare` first: the stage is read from the observation."""
    seat, top, trank, run, pile, pile_n, stock_n, n_in, direction = step(
        rules,
        pub,
        priv,
        move,
        pub[L.O_SEAT],
        pub[L.O_STAGE],
        pub[L.O_TOP],
        pub[L.O_TOP_RANK],
        pub[L.O_RUN],
        pub[L.O_PILE],
        pub[L.O_PILE_N],
        pub[L.O_STOCK_N],
        pub[L.O_IN],
        pub[L.O_DIRECTION],
    )
    moves = pub[L.O_MOVES] + 1
    write_public(
        pub,
        seat,
        pub[L.O_STAGE],
        pub[L.O_HAND],
        top,
        trank,
        run,
        pile,
        pile_n,
        stock_n,
        n_in,
        direction,
        moves,
    )


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


# ---- games that cannot end: the loop check and the scoring of a stopped game ----------
@njit(cache=True)
def save_position(pub, priv, players, seat, top, trank, run, pile, direction):
    """Save the position for the loop check into ``priv[P_SNAP:]``: pile, turn, direction
    and each seat's hand, face-up row, face-down count and publicly known hand cards.

    That is the whole state when no card has been burned or drawn and nobody has gone out
    since the last save (burned cards, places and the stock cannot change then; face-down
    cards only leave, so an equal count means equal slots). The strategy stream is kept by
    the caller.
    """
    b = L.P_SNAP
    priv[b] = pile
    priv[b + 1] = seat
    priv[b + 2] = top
    priv[b + 3] = trank
    priv[b + 4] = run
    priv[b + 5] = direction
    for s in range(players):
        o = b + 6 + 4 * s
        priv[o] = priv[L.P_HANDS + s]
        priv[o + 1] = pub[L.O_FACE_UP + s]
        priv[o + 2] = pub[L.O_FACE_DOWN_N + s]
        priv[o + 3] = pub[L.O_KNOWN + s]


@njit(cache=True)
def same_position(pub, priv, players, seat, top, trank, run, pile, direction):
    """Whether the position equals the one :func:`save_position` saved (exact comparison,
    cheapest and most often different fields first)."""
    b = L.P_SNAP
    if priv[b] != pile or priv[b + 1] != seat or priv[b + 2] != top or priv[b + 3] != trank:
        return False
    if priv[b + 4] != run or priv[b + 5] != direction:
        return False
    for s in range(players):
        o = b + 6 + 4 * s
        if (
            priv[o] != priv[L.P_HANDS + s]
            or priv[o + 1] != pub[L.O_FACE_UP + s]
            or priv[o + 2] != pub[L.O_FACE_DOWN_N + s]
            or priv[o + 3] != pub[L.O_KNOWN + s]
        ):
            return False
    return True


@njit(cache=True)
def stop_check(
    pub,
    priv,
    players,
    seat,
    top,
    trank,
    run,
    pile,
    direction,
    rng_state,
    quiet,
    stall,
    det_mask,
    loop_from,
):
    """The loop check and the no-progress rule after a quiet move (no burn, nobody out, no
    draw), called by the game loop only once ``quiet`` reaches ``min(LOOP_FROM, stall)``
    so that ordinary moves pay for nothing but the counter. Returns ``END_LOOP``,
    ``END_STALLED`` or 0 (play on); the search's state lives in ``priv[P_LOOP:]``.

    ``loop_from`` is ``layout.LOOP_FROM``, passed in because numba freezes another module's
    globals into this function's on-disk cache, which a change to layout.py alone would not
    refresh (the generated kernel's file name hashes layout.py; this file's cache does not).

    From ``quiet == LOOP_FROM`` on, when every seat still in is deterministic (bit s of
    ``det_mask``), Brent's cycle search: positions saved at quiet = F, F+1, F+3, F+7, ...
    and each later one compared exactly with the last saved (:func:`same_position`;
    ``rng_state`` is the strategy stream, uint64 reinterpreted as int64). Same rules as
    :func:`shedsim.rules.engine.apply_move`'s ``_check_stop``.
    """
    if quiet > loop_from:
        if (
            priv[L.P_LOOP_ON] != 0
            and priv[L.P_LOOP_RNG] == rng_state
            and same_position(pub, priv, players, seat, top, trank, run, pile, direction)
        ):
            return L.END_LOOP
        lam = priv[L.P_LOOP_LAM] + 1
        if lam == priv[L.P_LOOP_POWER]:
            save_position(pub, priv, players, seat, top, trank, run, pile, direction)
            priv[L.P_LOOP_RNG] = rng_state
            priv[L.P_LOOP_POWER] += priv[L.P_LOOP_POWER]
            lam = 0
        priv[L.P_LOOP_LAM] = lam
    elif quiet == loop_from:
        on = 1
        for s in range(players):
            if pub[L.O_PLACE + s] == 0 and (det_mask >> s) & 1 == 0:
                on = 0
        priv[L.P_LOOP_ON] = on
        save_position(pub, priv, players, seat, top, trank, run, pile, direction)
        priv[L.P_LOOP_RNG] = rng_state
        priv[L.P_LOOP_POWER] = 1
        priv[L.P_LOOP_LAM] = 0
    if quiet == stall:
        return L.END_STALLED
    return 0


@njit(cache=True)
def place_by_cards(pub, seat, direction, players, n_in):
    """``stalemate:most_cards``: give the ``n_in`` seats still in the remaining places by
    cards held (hand + face-up + face-down), fewest first; the seat holding most is last
    (the loser). Ties go in turn order from ``seat`` (the seat to move) in ``direction``:
    the seat that would have played sooner gets the better place. Same as
    :func:`shedsim.rules.engine.place_stopped`."""
    place = players - n_in + 1
    for _ in range(n_in):
        best = -1
        best_cards = 1 << 30
        pos = seat
        for _ in range(players):
            if pub[L.O_PLACE + pos] == 0:
                c = (
                    pub[L.O_HAND_N + pos]
                    + pub[L.O_FACE_DOWN_N + pos]
                    + total(pub[L.O_FACE_UP + pos])
                )
                if c < best_cards:
                    best = pos
                    best_cards = c
            pos = _step(pos, direction, players)
        pub[L.O_PLACE + best] = place
        place += 1


@njit(cache=True, inline="always")
def obs_saved(obs, priv):
    """Copy the observation (int64[O_SIZE]) into the kernel's private state
    (``priv[P_OBS_COPY:P_OBS_COPY + O_SIZE]``, never given to a strategy) before a plugin's
    decision (see :func:`shedsim.kernel.build.dispatch_source`)."""
    for i in range(L.O_SIZE):
        priv[L.P_OBS_COPY + i] = obs[i]


@njit(cache=True, inline="always")
def obs_unchanged(obs, priv):
    """Whether the observation still equals the copy :func:`obs_saved` made: False when the
    plugin's decision wrote into the game's own state. Exact (every entry compared), one
    branch-free pass that the compiler vectorises. (It replaced a weighted sum, which a
    plugin could balance by writing a second entry.)"""
    diff = np.int64(0)
    for i in range(L.O_SIZE):
        diff |= obs[i] ^ priv[L.P_OBS_COPY + i]
    return diff == 0


@njit(cache=True, inline="always")
def lend_stream(streams, priv, seat):
    """Before a decision of a plugin from outside ``strategies/`` at ``seat``: put the seat's
    own stream (``priv[P_SEAT_RNG + seat]``, never given to a strategy) into
    ``streams[S_LENT]``, the entry the plugin gets as its ``rng`` (``streams`` uint64[S_SIZE],
    layout ``S_*``), and make ``streams[S_BEAT]`` odd (a decision runs: the parent of a
    forked child times it, :mod:`shedsim.kernel.isolate`). Returns what the streams it does
    not own hold, ``(strategy, deal)`` (``uint64``), for :func:`stream_written`."""
    streams[L.S_BEAT] += np.uint64(1)
    streams[L.S_LENT] = np.uint64(priv[ix(L.P_SEAT_RNG + seat)])
    return streams[L.S_STRATEGY], streams[L.S_DEAL]


@njit(cache=True, inline="always")
def stream_written(streams, strategy, deal):
    """After the plugin's decision: make ``streams[S_BEAT]`` even again, and return
    ``S_STRATEGY`` or ``S_DEAL`` when that stream no longer holds what :func:`lend_stream`
    returned (the plugin wrote past its own ``rng[0]``, into a stream it does not own), else
    0. Two compares a decision."""
    streams[L.S_BEAT] += np.uint64(1)
    if streams[L.S_STRATEGY] != strategy:
        return L.S_STRATEGY
    if streams[L.S_DEAL] != deal:
        return L.S_DEAL
    return 0


@njit(cache=True, inline="always")
def keep_stream(streams, priv, seat):
    """After the decision of a plugin that is not ``DETERMINISTIC``: keep what it left in its
    stream (its draws) for its next decision. A ``DETERMINISTIC`` plugin's stream is not kept:
    it is lent afresh, from the seat's key, for every decision, so that a write into it can
    neither carry memory from one decision to the next (and end a game as a proven loop
    that is none) nor keep the position from repeating (and prolong a loop)."""
    priv[ix(L.P_SEAT_RNG + seat)] = np.int64(streams[L.S_LENT])


@njit(cache=True, inline="always")
def first_change(kept, given):
    """Index of the first entry where ``given`` differs from ``kept`` (two ``int64[n]``
    arrays), or -1 when equal. The kernel hands strategies copies of the rules and
    parameters (``given``) and compares them with its own (``kept``) after each game: a
    strategy that writes into them is stopped and named. The equal case (every
    game) is one pass without a branch, which the compiler vectorises; the index is
    searched only when something differs."""
    diff = np.int64(0)
    for i in range(kept.shape[0]):
        diff |= kept[i] ^ given[i]
    if diff == 0:
        return -1
    for i in range(kept.shape[0]):
        if kept[i] != given[i]:
            return i
    return -1


@njit(cache=True, inline="always")
def first_change_rows(kept, given):
    """:func:`first_change` for two ``int64[E, W]`` arrays: the flat index (``e * W + w``)
    of the first difference, or -1."""
    w = kept.shape[1]
    diff = np.int64(0)
    for e in range(kept.shape[0]):
        for j in range(w):
            diff |= kept[e, j] ^ given[e, j]
    if diff == 0:
        return -1
    for e in range(kept.shape[0]):
        for j in range(w):
            if kept[e, j] != given[e, j]:
                return e * w + j
    return -1
