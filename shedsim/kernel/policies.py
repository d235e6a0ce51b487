"""Compiled building blocks shared by strategies: the greedy policy and MC rollouts.

``greedy_move`` is the built-in ``greedy`` strategy's move rule; the ``mc`` strategy uses
it for every seat in its rollouts. :func:`determinise` samples the hidden cards
consistently with an observation (docs/reference/rules.md#observation: what a seat may know).
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

from shedsim import layout as L
from shedsim.kernel.core import constants, stage_of, step_with, write_turn
from shedsim.kernel.nb import count, highest, ix, lowest, one, play, playable, total
from shedsim.kernel.rng import rng_below


@njit(cache=True, inline="always")
def greedy_move(obs, rules):
    """Lowest playable non-special rank, all copies; else the lowest special card (one);
    else flip slot 1 in the face-down stage; else pick up."""
    if obs[L.O_STAGE] == L.STAGE_FACE_DOWN:
        return np.int64(L.FLIP)
    ok = playable(obs, rules)
    plain = ok & ~rules[L.R_SPECIAL_MASK]
    if plain != 0:
        r = lowest(plain)
        return play(r, count(plain, r))
    if ok != 0:
        return play(lowest(ok), 1)
    return np.int64(L.PICKUP)


@njit(cache=True, inline="always")
def aggressive_move(obs, rules):
    """Highest playable non-special rank, all copies; else the lowest special card (one);
    flip slot 1 in the face-down stage; else pick up."""
    if obs[L.O_STAGE] == L.STAGE_FACE_DOWN:
        return np.int64(L.FLIP)
    ok = playable(obs, rules)
    plain = ok & ~rules[L.R_SPECIAL_MASK]
    if plain != 0:
        r = highest(plain)
        return play(r, count(plain, r))
    if ok != 0:
        return play(lowest(ok), 1)
    return np.int64(L.PICKUP)


@njit(cache=True, inline="always")
def _take_highest(left, group, need, up):
    """Move up to ``need`` cards of ``left`` that lie in ``group`` (a packed rank mask)
    into ``up``, highest rank first; returns ``(left, need, up)``."""
    g = left & group
    while need > 0 and g != 0:
        sh = (63 - leading_zeros(g)) & ~3
        k = (g >> sh) & 15
        if k > need:
            k = need
        up += k << sh
        left -= k << sh
        g &= ~(np.int64(15) << sh)
        need -= k
    return left, need, up


@njit(cache=True, inline="always")
def strongest_face_up(visible, n_up, rules):
    """The ``n_up`` strongest of the packed ``visible`` cards: special ranks first (burn,
    then reset, then other roles, higher rank first among them), then high ranks.

    Strength is ``rank + 100 * (rank has a role) + (200 if burn else 150 if reset)``; the
    ranks fall into six bands of that value, so taking each band's cards highest rank
    first gives the cards one at a time in falling strength."""
    burn = rules[L.R_BURN_MASK]
    reset = rules[L.R_RESET_MASK] & ~burn  # a rank that burns counts as a burn card
    role = rules[L.R_SPECIAL_MASK]
    plain = ~role
    left = visible
    need = np.int64(n_up)
    up = np.int64(0)
    left, need, up = _take_highest(left, burn & role, need, up)  # 300 + r
    left, need, up = _take_highest(left, reset & role, need, up)  # 250 + r
    left, need, up = _take_highest(left, burn & plain, need, up)  # 200 + r
    left, need, up = _take_highest(left, reset & plain, need, up)  # 150 + r
    left, need, up = _take_highest(left, role, need, up)  # 100 + r
    left, need, up = _take_highest(left, plain, need, up)  # r
    return up


@njit(cache=True)
def seen_cards(obs):
    """The packed cards the mover has seen (``int64``): its hand, every face-up row, the
    pile, the burned cards whose ranks are known and the cards seen picked up
    (``O_KNOWN``) of every other seat."""
    me = obs[L.O_SEAT]
    seen = obs[L.O_HAND] + obs[L.O_PILE] + obs[L.O_BURNED]
    for s in range(obs[L.O_PLAYERS]):
        seen += obs[L.O_FACE_UP + s]
        if s != me:
            seen += obs[L.O_KNOWN + s]
    return seen


@njit(cache=True)
def unseen_pool(obs, rules, pool):
    """Write the rank of every card the mover has not seen into ``pool[:m]`` (rank order,
    one entry per card) and return ``m``; -1 when the observation shows more copies of a
    rank than the deck holds (an impossible position).

    Seen: :func:`seen_cards`. ``pool``: ``int64[R_DECK_SIZE]`` or longer.
    """
    per = 4 * rules[L.R_DECKS]
    seen = seen_cards(obs)
    m = 0
    for r in range(2, 15):
        c = per - count(seen, r)
        if c < 0:
            return -1
        for _ in range(c):
            pool[m] = r
            m += 1
    return m


@njit(cache=True)
def hidden_places(obs):
    """How many places the mover cannot see: the stock, every face-down slot and the other
    hands' cards beyond those seen picked up."""
    n = obs[L.O_PLAYERS]
    me = obs[L.O_SEAT]
    need = obs[L.O_STOCK_N]
    for s in range(n):
        need += obs[L.O_FACE_DOWN_N + s]
        if s != me:
            need += obs[L.O_HAND_N + s] - total(obs[L.O_KNOWN + s])
    return need


@njit(cache=True)
def place_hidden(obs, rules, pool, priv):
    """Deal ``pool``'s cards in order into the hidden places of ``priv``
    (``int64[P_SIZE]``, zeros): each other hand (after its known cards), then each seat's
    face-down slots, seat by seat, then the stock (the deck's tail); the mover's hand is
    ``obs[O_HAND]``. Reads ``pool[:hidden_places(obs)]``."""
    n = obs[L.O_PLAYERS]
    me = obs[L.O_SEAT]
    pos = 0
    for s in range(n):
        if s == me:
            priv[L.P_HANDS + s] = obs[L.O_HAND]
        else:
            h = obs[L.O_KNOWN + s]
            for _ in range(obs[L.O_HAND_N + s] - total(h)):
                h += one(pool[pos])
                pos += 1
            priv[L.P_HANDS + s] = h
        for i in range(obs[L.O_FACE_DOWN_N + s]):
            priv[L.P_FACE_DOWN + s * L.MAX_TABLE + i] = pool[pos]
            pos += 1
    size = rules[L.R_DECK_SIZE]
    for i in range(obs[L.O_STOCK_N]):
        priv[L.P_DECK + size - obs[L.O_STOCK_N] + i] = pool[pos]
        pos += 1


@njit(cache=True, inline="always")
def unseen_to_place(obs, rules, unseen):
    """The unseen cards that fill the hidden places: their ranks into ``unseen[:m]``
    (``int64[MAX_DECK]``, :func:`unseen_pool`'s rank order), ``m`` returned, or -1 where the
    observation does not account for a whole deck (the unseen cards are not as many as the
    hidden places)."""
    m = unseen_pool(obs, rules, unseen)
    if m < 0 or hidden_places(obs) != m:
        return np.int64(-1)
    return np.int64(m)


@njit(cache=True, inline="always")
def _shuffle(pool, m, rng):
    """Put ``pool[:m]`` in a random order (Fisher-Yates, from ``rng``)."""
    for i in range(m - 1, 0, -1):
        j = rng_below(rng, i + 1)
        a = pool[i]
        pool[i] = pool[j]
        pool[j] = a


@njit(cache=True, inline="always")
def deal_hidden(obs, rules, rng, unseen, m, pool, priv):
    """One sample of the hidden cards: ``pool[:m]`` gets the ``m`` cards of
    ``unseen[:m]`` (:func:`unseen_to_place`) in a random order (Fisher-Yates from ``rng``),
    dealt into the hidden places of ``priv`` (:func:`place_hidden`). ``priv`` holds zeros
    or an earlier sample of the same observation: the same places are written each time."""
    pool[:m] = unseen[:m]
    _shuffle(pool, m, rng)
    place_hidden(obs, rules, pool, priv)


@njit(cache=True, inline="always")
def determinise_into(obs, rules, rng, pub, priv, pool):
    """:func:`determinise` with the caller's scratch ``pool`` (``int64[MAX_DECK]``): returns
    ``m``, the number of hidden cards, whose ranks ``pool[:m]`` holds in the order they were
    placed (so two samples are the same state exactly when their ``pool[:m]`` agree), or -1
    where the observation does not account for a whole deck."""
    pub[:] = obs[:]
    priv[:] = 0
    m = unseen_to_place(obs, rules, pool)
    if m >= 0:
        _shuffle(pool, m, rng)
        place_hidden(obs, rules, pool, priv)
    return m


@njit(cache=True)
def determinise(obs, rules, rng, pub, priv):
    """Fill ``pub``/``priv`` with a full game state consistent with ``obs``: the mover's
    hand, every face-up card, the pile and the burned cards as seen; each other hand holds
    its publicly known cards plus unseen cards; face-down cards and the stock are unseen
    cards in random order. Unseen = deck minus everything seen (:func:`unseen_pool`).
    Returns False if the observation does not account for a whole deck (a scenario
    position)."""
    return determinise_into(obs, rules, rng, pub, priv, np.empty(L.MAX_DECK, np.int64)) >= 0


@njit(cache=True, _nrt=False)
def greedy_rollout(rules, pub, priv, seat, cap, first=-1):
    """Play greedy for every seat from the state until ``seat`` has its place (the rest of
    the game cannot change it), the game ends or ``cap`` more moves; returns ``seat``'s
    place (for an unfinished game, the mean of the places left). ``first``: a legal move
    of the seat to move (``pub[O_SEAT]``, in the stage ``pub[O_STAGE]``) made before the
    ``cap`` moves, as :func:`shedsim.kernel.core.apply` would make it; -1 (the default):
    none. ``pub[O_MOVES]`` is left at the moves made in all (so the caller can count the
    rollout's moves); the other seats' places are not final when ``seat`` went out before
    the end.

    Compiled without reference counting, like the kernel's game loop (see
    :mod:`shedsim.kernel._loop`): it allocates nothing. The same loop as the kernel's,
    with greedy inlined: the rules' scalars in registers, unsigned indices (:func:`ix`).
    """
    rc = constants(rules)
    moves = pub[L.O_MOVES]
    stop = moves + cap + (1 if first >= 0 else 0)
    s = pub[L.O_SEAT]
    top = pub[L.O_TOP]
    trank = pub[L.O_TOP_RANK]
    run = pub[L.O_RUN]
    pile = pub[L.O_PILE]
    pile_n = pub[L.O_PILE_N]
    stock_n = pub[L.O_STOCK_N]
    n_in = pub[L.O_IN]
    direction = pub[L.O_DIRECTION]
    place = ix(L.O_PLACE + seat)
    m = np.int64(first)
    was_in = n_in
    while n_in > 0 and moves < stop:
        st = stage_of(pub, s, stock_n)
        write_turn(pub, s, st, priv[ix(L.P_HANDS + s)], top, trank, run, pile, pile_n, moves)
        if m < 0:
            m = greedy_move(pub, rules)
        moves += 1
        s, top, trank, run, pile, pile_n, stock_n, n_in, direction = step_with(
            rules, rc, pub, priv, m, s, st, top, trank, run, pile, pile_n, stock_n, n_in, direction
        )
        m = -1
        if n_in != was_in:  # a seat went out: was it this one?
            if pub[place] != 0:
                break
            was_in = n_in
    pub[L.O_MOVES] = moves
    if pub[place] != 0:
        return float(pub[place])
    players = rc[0]
    return (players - n_in + 1 + players) / 2.0


KEPT_SAMPLES = 64
"""How many different samples of one decision :func:`rollout_places` keeps to find a sample
drawn again (memory: a row of ``MAX_DECK`` ranks each; later ones are played all the same)."""


@njit(cache=True)
def _same_sample(samples, d, pool, m):
    """The index of the row of ``samples[:d]`` (``int64[R, MAX_DECK]``) whose first ``m``
    entries are ``pool[:m]``, or -1."""
    for i in range(d):
        same = True
        for j in range(m):
            if samples[i, j] != pool[j]:
                same = False
                break
        if same:
            return i
    return -1


@njit(cache=True)
def _out_of_reach(scores, alive, n, c, left, players):
    """Whether move ``c`` can no longer be the one chosen (the lowest total, the first of
    equal ones) whatever places the ``left`` samples still to come give: some move still
    judged ends below it (or level, for a move before it) even at its worst."""
    lo = scores[c] + left
    for o in range(n):
        if o != c and alive[o]:
            hi = scores[o] + left * players
            if hi < lo or (o < c and hi == lo):
                return True
    return False


@njit(cache=True)
def rollout_places(obs, rules, rng, moves, n, reps, cap, any_deck, scores, stats):
    """Choose among the candidate moves ``moves[:n]`` of the seat to move by greedy rollouts:
    the move with the lowest total of the mover's places over ``reps`` samples of the
    hidden cards (:func:`determinise`; every move on the same samples, common random
    numbers), each finished by :func:`greedy_rollout` (at most ``cap`` more moves); the
    first of equal totals. Returns its index, or -1 when a sample cannot be drawn.
    ``any_deck``: where the observation does not account for a whole deck, sample with
    :func:`determinise_any` (the unseen cards a random subset), else give up.

    The same choice with less play. A sample drawn again (the same hidden cards in the same
    places) adds the places it gave the first time, without playing them again (rollouts
    are deterministic); the first :data:`KEPT_SAMPLES` different samples are kept for
    that. A move that can no longer be chosen, whatever places the samples
    left could give (each place is between 1 and the number of players), is not rolled out
    again, and once one move alone is in reach the rollouts stop (the samples are still
    drawn, so ``rng`` ends where it would). ``scores`` (``float64[n]``) gets each move's
    total, which stops growing once the move is out of reach or chosen.

    ``stats`` (``int64[2]``): ``stats[0]`` += the rollouts' moves after the candidate move,
    ``stats[1]`` += the rollouts played."""
    pool = np.empty(L.MAX_DECK, np.int64)
    unseen = np.empty(L.MAX_DECK, np.int64)
    keep = min(reps, KEPT_SAMPLES)
    samples = np.empty((keep, L.MAX_DECK), np.int64)
    places = np.empty((keep + 1, n))  # a row per sample kept, and one for the others
    alive = np.ones(n, np.bool_)
    base_pub = obs.copy()
    base_priv = np.zeros(L.P_SIZE, np.int64)
    pub = np.empty(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)  # past P_CARDS_END: never read by a rollout
    me = obs[L.O_SEAT]
    players = obs[L.O_PLAYERS]
    n_alive = n
    d = 0
    # the unseen cards once; each sample deals them anew (as determinise would: same draws)
    m = unseen_to_place(obs, rules, unseen)
    if m < 0 and not any_deck:
        return np.int64(-1)
    for k in range(reps):
        if m >= 0:
            deal_hidden(obs, rules, rng, unseen, m, pool, base_priv)
        elif not determinise_any(obs, rules, rng, base_pub, base_priv):
            return np.int64(-1)  # a subset of the unseen cards: samples are not compared
        if n_alive == 1:
            continue  # the choice is made; the samples are still drawn (the same stream)
        row = _same_sample(samples, d, pool, m) if m >= 0 else -1
        if row < 0:
            row = keep  # played, not kept
            if m >= 0 and d < keep:
                row = d
                samples[d, :m] = pool[:m]
                d += 1
            for c in range(n):
                if alive[c]:
                    pub[:] = base_pub
                    priv[: L.P_CARDS_END] = base_priv[: L.P_CARDS_END]  # all a rollout reads
                    before = pub[L.O_MOVES] + 1
                    places[row, c] = greedy_rollout(rules, pub, priv, me, cap, moves[c])
                    stats[0] += pub[L.O_MOVES] - before
                    stats[1] += 1
        for c in range(n):
            if alive[c]:
                scores[c] += places[row, c]
        left = reps - 1 - k
        for c in range(n):
            if alive[c] and _out_of_reach(scores, alive, n, c, left, players):
                alive[c] = False
                n_alive -= 1
    best = -1
    for c in range(n):
        if alive[c] and (best < 0 or scores[c] < scores[best]):
            best = c
    return np.int64(best)


@njit(cache=True)
def determinise_any(obs, rules, rng, pub, priv):
    """As :func:`determinise`, but the observation need not account for a whole deck.

    The unseen cards are the deck minus everything the mover has seen (its hand, every
    face-up row, the pile, the burned cards whose ranks are known, the cards seen picked
    up); the hidden places (other hands beyond their known cards, every face-down slot,
    the stock) take a uniformly random subset of them, in random order, and the rest are
    out of play. In a game dealt from a whole deck the subset is all of them, and the
    result has the same distribution as :func:`determinise`'s. In a scenario position
    (which lists only the cards that matter, docs/reference/scenarios.md#unlisted-cards), the
    mover cannot tell a hidden card from one left out, so both are unseen alike: the
    sample never depends on which hidden cards the file names. Returns False only when
    fewer unseen cards remain than hidden places (an impossible position).
    """
    pub[:] = obs[:]
    priv[:] = 0
    pool = np.empty(rules[L.R_DECK_SIZE], np.int64)
    m = unseen_pool(obs, rules, pool)
    if m < 0:
        return False
    need = hidden_places(obs)
    if need > m:
        return False
    for i in range(need):  # partial Fisher-Yates: pool[:need] is a uniform random draw
        j = i + rng_below(rng, m - i)
        a = pool[i]
        pool[i] = pool[j]
        pool[j] = a
    place_hidden(obs, rules, pool, priv)
    return True
