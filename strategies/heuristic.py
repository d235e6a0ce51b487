"""heuristic: a tunable player whose integer parameters are the beginner tips.

Each parameter is one decision a player makes; ``shedsim tips`` switches them one at a
time to measure what each tip is worth, and ``shedsim tune`` searches for the best set.
The tips come from the rule pages (save the 2s and 10s for a big pile; strong cards face
up, low ones in hand; play pairs together; watch which aces and 10s have gone; pass the
problem on with a 9; a small pile of strong cards can be worth taking).

Parameters (``heuristic:name=value``; pile sizes and hand sizes are in cards):

``spend_pile``
    With an ordinary card that fits, burn the pile anyway (with a burn rank such as the
    10) once it holds at least this many cards. 99 = never: specials are saved.
``burn_pile``
    When only special cards fit, spend a burn card rather than another special (a reset
    2, an invisible 9, ...) once the pile holds at least this many cards.
``save_pile``
    When only special cards fit and the rules allow a voluntary pick-up, pick up a pile
    of at most this many cards (while the stock has cards) instead of spending a special.
    0 = never.
``take_pile``
    Where the rules allow it, pick up voluntarily (hand stage) a pile of at most this
    many cards when more than half of them are special. 0 = never.
``swap``
    Face-up choice: 1 = the highest face-up values go face up (strong cards up, low ones
    in hand); 0 = a uniformly random choice (as good as not swapping at all);
    -1 = the lowest values face up (the tip reversed).
``up_burn``, ``up_reset``, ``up_magic``
    Face-up value of a burn rank, a reset rank and any other rank that goes on anything
    (invisible, duel's 5, nines' ace), on the scale of the ordinary ranks (2..14 = A):
    15 puts it above an ace, 2 below everything.
``copies``
    1 = play every copy of the chosen rank at once (pairs together); 0 = one at a time.
``complete_four``
    1 = when the hand holds the cards that complete four of a kind on the pile, play them
    (the pile burns and the turn comes back).
``track``
    Card counting once the stock is empty: play the lowest ordinary rank that the next
    player beats with probability at most ``track`` percent (from the unseen cards, what
    is known of their hand, and the aces, 10s and 2s already gone), even if a lower rank
    fits. 0 = off (always the lowest).
``block``
    When the next player holds at most this many cards in all (stock empty), play the
    ordinary rank they are least likely to beat, whatever its rank. 0 = off.
``end_pile``
    The end-game decisions (``search``, ``track``, ``block``; stock empty) are taken only
    when the pile holds at least this many cards: forcing a pick-up of a small pile is
    not worth a high card.
``search``
    Not a tip: look-ahead at the end-game decisions. Every legal move is judged by
    ``search`` samples of the hidden cards, each finished by greedy play (as ``mc``
    does, but only once the stock is empty and the pile holds ``end_pile`` cards).
    0 = off: the tips alone decide (``track`` and ``block`` act only then).
``pass_on``
    1 = when only special cards fit, play an invisible card (nines' 9) first: the next
    player must still beat the card under it. 0 = the invisible card goes last.
``gamble_pile``
    Where the deck gamble is allowed (duel), gamble rather than pick up a pile of at
    least this many cards. 99 = never.

The face-down stage flips slot 1.

Defaults: from ``shedsim tune --strategy heuristic:search=8 --budget 150 --games 6000``
(shithead, 2 players, against greedy and the earlier defaults), except ``end_pile``: 2, not
the tuned 1, with which the search runs at almost every end-game decision, a game costs
several times as much and more shithead and duel games stall, for a small gain against
greedy at 2 players.
Parameters that shithead never uses come from ``shedsim tips`` (``take_pile=0``,
``pass_on=0``: both tips hurt there) or are kept (``save_pile``, ``gamble_pile``).
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.nb import can_pick_up, count, legal_moves, lowest, one, play, stage_cards, total
from shedsim.kernel.policies import rollout_places, seen_cards
from shedsim.kernel.rng import rng_below

NAME = "heuristic"
DESCRIPTION = (
    "the beginner tips as tunable parameters: saves specials, tracks cards, blocks, "
    "value-table swap"
)
DETERMINISTIC = True  # moves are a function of the observation (the search seeds itself from it);
# only swap=0 draws from the game's stream, in the swap phase
INLINE = False  # the search allocates its scratch arrays: it runs in the standard game loop
PARAMS = {
    "spend_pile": 99,
    "burn_pile": 40,
    "save_pile": 2,
    "take_pile": 0,
    "swap": 1,
    "up_burn": 15,
    "up_reset": 8,
    "up_magic": 15,
    "copies": 1,
    "complete_four": 1,
    "track": 10,
    "block": 1,
    "pass_on": 0,
    "gamble_pile": 3,
    "end_pile": 2,
    "search": 8,
}
_PILE = (0, L.MAX_DECK)  # a pile size (or a hand's): at most every card of two decks
PARAM_RANGES = {
    "spend_pile": _PILE,
    "burn_pile": _PILE,
    "save_pile": _PILE,
    "take_pile": _PILE,
    "swap": (-1, 1),
    "up_burn": (0, 99),
    "up_reset": (0, 99),
    "up_magic": (0, 99),
    "copies": (0, 1),
    "complete_four": (0, 1),
    "track": (0, 100),  # percent
    "block": _PILE,
    "pass_on": (0, 1),
    "gamble_pile": _PILE,
    "end_pile": _PILE,
    "search": (0, 1000),  # samples per end-game move
}
TRAITS = {
    "cost": "moderate",
    "search": True,
    "search_param": "search",
    "uses": ("own_cards", "pile", "opponents", "unseen"),
    "swap": "expert-table",
}
PARAM_SPACE = {
    # what ``shedsim tune`` searches: (lowest, highest[, "log"]) integers; "log" samples
    # on a log scale (pile sizes where 99 means never)
    "spend_pile": (2, 99, "log"),
    "burn_pile": (1, 99, "log"),
    "save_pile": (0, 8),
    "take_pile": (0, 8),
    "swap": (-1, 1),
    "up_burn": (2, 18),
    "up_reset": (2, 18),
    "up_magic": (2, 18),
    "copies": (0, 1),
    "complete_four": (0, 1),
    "track": (0, 100),
    "block": (0, 6),
    "pass_on": (0, 1),
    "gamble_pile": (1, 99, "log"),
    "end_pile": (0, 12),
    "search": (0, 16),
}
P_SPEND_PILE = 0
P_BURN_PILE = 1
P_SAVE_PILE = 2
P_TAKE_PILE = 3
P_SWAP = 4
P_UP_BURN = 5
P_UP_RESET = 6
P_UP_MAGIC = 7
P_COPIES = 8
P_COMPLETE_FOUR = 9
P_TRACK = 10
P_BLOCK = 11
P_PASS_ON = 12
P_GAMBLE_PILE = 13
P_END_PILE = 14
P_SEARCH = 15


@njit(cache=True)
def face_up_value(rules, params, r):
    """Face-up value of rank ``r`` (2..14): ordinary ranks their rank, roles from params."""
    f = rules[L.R_FLAGS + r]
    if (f & L.F_BURN) != 0:
        return params[P_UP_BURN]
    if (f & L.F_RESET) != 0:
        return params[P_UP_RESET]
    if (f & L.F_MAGIC) != 0:
        return params[P_UP_MAGIC]
    return np.int64(r)


@njit(cache=True)
def swap(visible, seat, players, rules, params, rng):
    n_up = rules[L.R_TABLE_SIZE]
    mode = params[P_SWAP]
    up = np.int64(0)
    left = visible
    if mode == 0:
        n_left = total(left)
        for _ in range(n_up):
            k = rng_below(rng, n_left)
            for r in range(2, 15):
                c = count(left, r)
                if k < c:
                    up += one(r)
                    left -= one(r)
                    break
                k -= c
            n_left -= 1
        return up
    for _ in range(n_up):
        best = np.int64(0)
        best_v = np.int64(0)
        for r in range(2, 15):
            if count(left, r) > 0:
                v = face_up_value(rules, params, r) * mode
                if best == 0 or v > best_v:
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
def _unseen(obs, rules):
    """Packed cards the mover has not seen: the deck minus its hand, every face-up row,
    the pile, the burned cards and the cards known to be in other hands (0 when the
    observation does not account for a whole deck)."""
    seen = seen_cards(obs)
    per = 4 * rules[L.R_DECKS]
    pool = np.int64(0)
    for r in range(2, 15):
        c = per - count(seen, r)
        if c < 0:
            return np.int64(0)
        pool += c * one(r)
    return pool


@njit(cache=True)
def beat_chance(obs, rules, nxt, pool, r):
    """Chance (0..1) that seat ``nxt`` can play on an effective top of rank ``r``: certain
    when a known card of theirs fits, else the hypergeometric chance that their unknown
    hand cards (drawn from the unseen ``pool``) hold one; in the face-up stage their row
    decides, in the face-down stage one unseen card."""
    beats = rules[L.R_PLAYABLE + r]
    hand_n = obs[L.O_HAND_N + nxt]
    if hand_n > 0:
        known = obs[L.O_KNOWN + nxt]
        if (known & beats) != 0:
            return 1.0
        draws = hand_n - total(known)
    elif obs[L.O_FACE_UP + nxt] != 0:
        return 1.0 if (obs[L.O_FACE_UP + nxt] & beats) != 0 else 0.0
    else:
        draws = 1
    n = total(pool)
    b = total(pool & beats)
    if n <= 0 or draws <= 0:
        return 0.0
    miss = 1.0
    for i in range(min(draws, n)):
        miss *= max(0.0, (n - b - i) / (n - i))
    return 1.0 - miss


@njit(cache=True)
def observation_stream(obs):
    """A ``uint64[1]`` random stream keyed by a hash of the observation (splitmix64
    finaliser over its entries, less the move, pick-up and burn counters). The search draws its
    samples from it, not from the game's
    strategy stream, so the move is a function of the observation alone: the strategy is
    deterministic and the kernel can prove a repeating game a loop
    (docs/reference/rules.md#proven-loop)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for i in range(L.O_SIZE):
        if i == L.O_MOVES or L.O_PICKUPS <= i < L.O_BURNS + L.MAX_PLAYERS or i >= L.O_VOID:
            continue  # history counters, and the voids (inference heuristic does not draw)
        h ^= np.uint64(obs[i] & 0x7FFFFFFFFFFFFFFF) + np.uint64(i)
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    out = np.empty(1, np.uint64)
    out[0] = h
    return out


@njit(cache=True)
def search_move(obs, rules, rollouts, rng, stats):
    """The legal move with the best mean place over ``rollouts`` samples of the hidden
    cards, each finished by greedy play for every seat (at most 400 more moves;
    :func:`shedsim.kernel.policies.rollout_places`); every move is judged on the same
    samples. Only plays are judged (voluntary pick-ups and gambles are left to
    ``save_pile``, ``take_pile`` and ``gamble_pile``). -1 when there are fewer than two
    plays or the observation does not account for a whole deck. ``stats`` (``int64[2]``):
    the rollouts' moves and count are added to it."""
    moves = np.empty(160, np.int64)
    n_all = legal_moves(obs, rules, moves)
    n = 0
    for i in range(n_all):  # voluntary pick-ups and gambles are left to the tips' parameters
        if moves[i] >= L.PLAY_MIN or n_all == 1:
            moves[n] = moves[i]
            n += 1
    if n < 2:
        return np.int64(-1)
    best = rollout_places(obs, rules, rng, moves, n, rollouts, 400, False, np.zeros(n), stats)
    if best < 0:
        return np.int64(-1)
    return moves[best]


@njit(cache=True)
def _searches(obs, params):
    """Whether the look-ahead decides (``search`` on, stock empty, pile of ``end_pile``)."""
    return (
        obs[L.O_STAGE] != L.STAGE_FACE_DOWN
        and params[P_SEARCH] > 0
        and obs[L.O_STOCK_N] == 0
        and obs[L.O_PILE_N] >= params[P_END_PILE]
    )


@njit(cache=True)
def move_stats(obs, rules, params, rng, stats):
    """The move, counting the look-ahead's work in ``stats`` (``int64[2]``): ``stats[0]`` +=
    rollout moves, ``stats[1]`` += rollouts (``shedsim bench --strategy heuristic`` reads
    them)."""
    if _searches(obs, params):
        m = search_move(obs, rules, params[P_SEARCH], observation_stream(obs), stats)
        if m >= 0:
            return m
    return tips_move(obs, rules, params)


@njit(cache=True)
def move(obs, rules, params, rng):
    if _searches(obs, params):
        m = search_move(
            obs, rules, params[P_SEARCH], observation_stream(obs), np.zeros(2, np.int64)
        )
        if m >= 0:
            return m
    return tips_move(obs, rules, params)


@njit(cache=True)
def tips_move(obs, rules, params):
    """The tips' move (the look-ahead aside): flip slot 1 face down, else the parameters'
    rules above."""
    st = obs[L.O_STAGE]
    if st == L.STAGE_FACE_DOWN:
        return np.int64(L.FLIP)
    special = rules[L.R_SPECIAL_MASK]
    cards = stage_cards(obs)
    ok = cards & rules[L.R_PLAYABLE + obs[L.O_TOP]]
    plain = ok & ~special
    pile_n = obs[L.O_PILE_N]
    stock_n = obs[L.O_STOCK_N]
    voluntary = can_pick_up(obs, rules, True)
    # A small pile made mostly of specials is ammunition, where the rules let you take it.
    if (
        voluntary
        and st == L.STAGE_HAND
        and 0 < pile_n <= params[P_TAKE_PILE]
        and 2 * total(obs[L.O_PILE] & special) > pile_n
    ):
        return np.int64(L.PICKUP)
    burn = ok & rules[L.R_BURN_MASK]
    if plain != 0:
        tr = obs[L.O_TOP_RANK]
        if (
            params[P_COMPLETE_FOUR] != 0
            and tr != 0
            and count(plain, tr) > 0
            and (obs[L.O_RUN] + count(plain, tr) >= rules[L.R_BURN_RUN])
        ):
            return play(tr, count(plain, tr))
        if burn != 0 and pile_n >= params[P_SPEND_PILE]:
            return play(lowest(burn), 1)
        r = lowest(plain)
        if (
            stock_n == 0
            and (params[P_TRACK] > 0 or params[P_BLOCK] > 0)
            and pile_n >= params[P_END_PILE]
        ):
            nxt = _next_seat(obs)
            if nxt != obs[L.O_SEAT]:
                pool = _unseen(obs, rules)
                left = (
                    obs[L.O_HAND_N + nxt]
                    + total(obs[L.O_FACE_UP + nxt])
                    + obs[L.O_FACE_DOWN_N + nxt]
                )
                if left <= params[P_BLOCK]:
                    best_p = 2.0
                    rest = plain
                    while rest != 0:
                        c = lowest(rest)
                        p = beat_chance(obs, rules, nxt, pool, c)
                        if p < best_p:
                            best_p = p
                            r = c
                        rest &= ~(np.int64(15) << (4 * (c - 2)))
                elif params[P_TRACK] > 0:
                    rest = plain
                    while rest != 0:
                        c = lowest(rest)
                        if 100.0 * beat_chance(obs, rules, nxt, pool, c) <= params[P_TRACK]:
                            r = c
                            break
                        rest &= ~(np.int64(15) << (4 * (c - 2)))
        k = count(plain, r) if params[P_COPIES] != 0 else np.int64(1)
        return play(r, k)
    if ok != 0:
        if voluntary and 0 < pile_n <= params[P_SAVE_PILE] and stock_n > 0:
            return np.int64(L.PICKUP)
        inv = ok & rules[L.R_INVISIBLE_MASK]
        other = ok & ~burn & ~inv
        if params[P_PASS_ON] != 0 and inv != 0 and pile_n > 0:
            return play(lowest(inv), 1)
        if burn != 0 and (pile_n >= params[P_BURN_PILE] or (other == 0 and inv == 0)):
            return play(lowest(burn), 1)
        if other != 0:
            return play(lowest(other), 1)
        if inv != 0:
            return play(lowest(inv), 1)
        return play(lowest(burn), 1)
    if rules[L.R_GAMBLE] != 0 and stock_n > 0 and pile_n >= params[P_GAMBLE_PILE]:
        return np.int64(L.GAMBLE)
    if pile_n > 0:
        return np.int64(L.PICKUP)
    return play(lowest(cards), 1)
