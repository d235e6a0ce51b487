"""Exact values of determinised two-seat end games in numba, for the search's leaves.

A determinisation (:func:`shedsim.kernel.policies.determinise_any`) deals every hidden card,
so once the stock is empty and two seats are left the game on from there is a deterministic
two-player game of perfect information: every card is known, face-down ones included (a
flip turns a known card). :func:`solve` finds its value for the seat to move, ``WIN`` (it
can go out first of the two against every reply), ``LOSS`` (the other seat can force it to
be last) or ``DRAW`` (neither can force the end), by depth-first alpha-beta search (Knuth
and Moore, "An analysis of alpha-beta pruning", Artificial Intelligence 6(4), 1975) over the
kernel's own transition (:func:`shedsim.kernel.core.apply` on copies of the state), so every
house toggle applies. It is the end-game search that perfect-information Monte Carlo
players run on each determinisation (Long, Sturtevant, Buro and Furtak, "Understanding the
Success of Perfect Information Monte Carlo Sampling in Game Tree Search", AAAI 2010).

The conventions are those of :mod:`shedsim.analysis.endgame` (the reference engine's exact
solver): a position repeated on the current line is a draw (play that goes round forever
is stopped by the rules for games that cannot end, and under ``stalemate:share`` a stopped
game places neither seat: both share the last two places); a finished game is won by the
seat that went out. The move cap is checked on the line searched: a line that reaches
``rules[R_MAX_MOVES]`` gives the search up (a value found in the table is taken as it is,
though: the cap is thousands of moves beyond the end games solved, and the table lives for
one decision), as does a draw under ``stalemate:most_cards``
(a stopped game is placed by the cards held there, so a draw is no value). The stall limit
is not applied, as the search's playouts do not apply it (a default one is thousands of
moves away).

Search details. The state lives on an explicit stack of copies (one row per depth,
allocated once by :func:`scratch` and reused), so a node allocates nothing. Moves are
tried greedy's first (:func:`shedsim.kernel.policies.greedy_move`), then burns, then the
other plays, the pick-up last; face-down flips of the same rank are one move. Values are
integers, ``LOSS`` 0, ``DRAW`` 1, ``WIN`` 2 for the seat to move, and alpha-beta is
fail-soft. A transposition table keyed by a 64-bit hash of what the rules read (pile, its
tops and run, the seat to move, the direction, every hand, face-up row and face-down
cards, who is out) keeps the values ``WIN`` and ``LOSS`` only: a returned 0 or 2 is exact
whatever the window and its proof never passes through a repetition (a repetition scores
``DRAW``), so it holds on any line; a draw may rest on the line's repetitions and is never
kept. The table may be shared by many calls with the same rules (the search keeps one per
decision): entries are exact values of positions, whichever call found them. After
``budget`` nodes, a line deeper than the stack or one that reaches the move cap, the search
gives up (``GAVE_UP``), and its caller plays the position out instead.
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.core import apply, prepare
from shedsim.kernel.nb import count, legal_moves, one, total
from shedsim.kernel.policies import greedy_move
from shedsim.kernel.rng import GOLDEN, mix

LOSS = 0
DRAW = 1
WIN = 2
GAVE_UP = -1
MAX_DEPTH = 200  # the deepest line the stack holds
TT_BITS = 14  # the transposition table's entries: 2**TT_BITS
_MOVES = 160  # room for every legal move (nb.legal_moves)
# the stack's integer columns
_N = 0  # moves listed
_NEXT = 1  # the next move to try
_ALPHA = 2
_BETA = 3
_BEST = 4  # the best value found so far (for the seat to move)
_KEY = 5  # the position's hash
_MOVER = 6
_BURNED = 7  # cards burned (only grows along a line: positions before a burn never repeat)
_COLS = 8


@njit(cache=True)
def scratch(depth=MAX_DEPTH, tt_bits=TT_BITS):
    """The solver's working memory, allocated once and reused by every :func:`solve` call:
    ``(pubs, privs, moves, ints, keys, values)``, the stack of public states
    (``int64[depth + 1, O_SIZE]``), of private states (``int64[depth + 1, P_DECK]``: the
    hands and face-down slots; with the stock empty nothing else is read), of move lists,
    of each level's bookkeeping, and the transposition table (``int64`` keys, 0 empty, and
    ``int8`` values)."""
    return (
        np.zeros((depth + 1, L.O_SIZE), np.int64),
        np.zeros((depth + 1, L.P_DECK), np.int64),
        np.zeros((depth + 1, _MOVES), np.int64),
        np.zeros((depth + 1, _COLS), np.int64),
        np.zeros(1 << tt_bits, np.int64),
        np.zeros(1 << tt_bits, np.int8),
    )


@njit(cache=True)
def cards_left(pub):
    """The cards still in play: the pile and every hand, face-up row and face-down slot of
    the seats still in (what an end game's size grows with)."""
    n = pub[L.O_PILE_N]
    for s in range(pub[L.O_PLAYERS]):
        if pub[L.O_PLACE + s] == 0:
            n += pub[L.O_HAND_N + s] + pub[L.O_FACE_DOWN_N + s] + total(pub[L.O_FACE_UP + s])
    return n


@njit(cache=True, inline="always")
def _fold(h, x):
    return mix(h ^ np.uint64(x)) + GOLDEN


@njit(cache=True)
def position_key(pub, priv):
    """A 64-bit hash (``int64``, never 0) of what the rules read of the position (module
    docstring); face-down cards as a multiset (any slot may be turned)."""
    h = np.uint64(0x2545F4914F6CDD1D)
    h = _fold(h, pub[L.O_PILE])
    h = _fold(h, pub[L.O_TOP] | (pub[L.O_TOP_RANK] << 8) | (pub[L.O_RUN] << 16))
    h = _fold(h, pub[L.O_SEAT] | ((pub[L.O_DIRECTION] + 1) << 8))
    for s in range(pub[L.O_PLAYERS]):
        if pub[L.O_PLACE + s] != 0:
            h = _fold(h, 1000 + s)
            continue
        h = _fold(h, priv[L.P_HANDS + s])
        h = _fold(h, pub[L.O_FACE_UP + s])
        down = np.int64(0)
        for i in range(pub[L.O_FACE_DOWN_N + s]):
            down += one(priv[L.P_FACE_DOWN + s * L.MAX_TABLE + i])
        h = _fold(h, down)
    k = np.int64(h)
    return k if k != 0 else np.int64(1)


@njit(cache=True)
def order_moves(pub, priv, rules, out):
    """The legal moves of the seat to move (call :func:`shedsim.kernel.core.prepare` first)
    into ``out``, in the order the search tries them: greedy's move, burns, the other plays,
    flips (one per face-down rank), the pick-up. Returns how many."""
    n = legal_moves(pub, rules, out)
    s = pub[L.O_SEAT]
    g = greedy_move(pub, rules)
    if pub[L.O_STAGE] == L.STAGE_FACE_DOWN:  # a flip per rank: the slots' order is moot
        seen = np.int64(0)
        k = 0
        for i in range(n):
            m = out[i]
            if m >= L.FLIP and m < L.FLIP + L.MAX_TABLE:
                r = priv[L.P_FACE_DOWN + s * L.MAX_TABLE + (m - L.FLIP)]
                if count(seen, r) != 0:
                    continue
                seen += one(r)
            out[k] = m
            k += 1
        n = k
    # a score per move, higher first (a stable selection sort: lists are short)
    burn_run = rules[L.R_BURN_RUN]
    for i in range(n):
        best = i
        best_score = -1
        for j in range(i, n):
            m = out[j]
            if m == g:
                sc = 4
            elif m >= L.PLAY_MIN:
                r = m >> 8
                c = ((m >> 4) & 15) + (m & 15)
                burns = (rules[L.R_FLAGS + r] & L.F_BURN) != 0 or (
                    pub[L.O_TOP_RANK] == r and pub[L.O_RUN] + c >= burn_run
                )
                sc = 3 if burns else 2
            elif m == L.PICKUP:
                sc = 0
            else:
                sc = 1
            if sc > best_score:
                best_score = sc
                best = j
        m = out[best]
        for j in range(best, i, -1):
            out[j] = out[j - 1]
        out[i] = m
    return n


@njit(cache=True, inline="always")
def _take(ints, d, v):
    """A child of the node at depth ``d`` is worth ``v`` to the node's seat to move: its best
    and alpha rise to it, and the moves left are cut off once alpha reaches beta."""
    if v > ints[d, _BEST]:
        ints[d, _BEST] = v
    if v > ints[d, _ALPHA]:
        ints[d, _ALPHA] = v
    if ints[d, _ALPHA] >= ints[d, _BETA]:
        ints[d, _NEXT] = ints[d, _N]  # cut off


@njit(cache=True, inline="always")
def _to_parent(ints, d, value):
    """Back from depth ``d``, whose node is worth ``value`` to its seat to move, to its parent
    (the same seat after a burn, else the other: ``WIN - value``); returns the parent's depth."""
    _take(ints, d - 1, value if ints[d - 1, _MOVER] == ints[d, _MOVER] else WIN - value)
    return d - 1


@njit(cache=True)
def solve(rules, pub, priv, budget, pubs, privs, moves, ints, keys, values, stats):
    """The exact value of the position ``pub`` (``int64[O_SIZE]``), ``priv``
    (``int64[P_SIZE]``, a determinisation: every card known) for its seat to move: ``WIN``,
    ``DRAW`` or ``LOSS`` (module docstring), or ``GAVE_UP`` after ``budget`` nodes (or a
    line deeper than the stack or reaching the move cap, or a draw under
    ``stalemate:most_cards``), or when the position is not a two-seat end game with the
    stock empty. ``pub`` and ``priv`` are only read. ``pubs`` .. ``values``: the working
    memory of :func:`scratch`; ``stats`` (``int64[2]``): ``stats[0]`` += nodes searched,
    ``stats[1]`` += 1 per solved call."""
    if pub[L.O_IN] != 2 or pub[L.O_STOCK_N] != 0:
        return GAVE_UP
    depth_max = pubs.shape[0] - 1
    max_moves = rules[L.R_MAX_MOVES]
    mask = keys.shape[0] - 1
    players = pub[L.O_PLAYERS]
    pubs[0, :] = pub[:]
    privs[0, :] = priv[: L.P_DECK]
    ints[0, _ALPHA] = LOSS
    ints[0, _BETA] = WIN
    d = 0
    nodes = 0
    entering = True
    while True:
        if entering:
            entering = False
            p = pubs[d]
            q = privs[d]
            prepare(p, q)
            key = position_key(p, q)
            ints[d, _KEY] = key
            ints[d, _MOVER] = p[L.O_SEAT]
            ints[d, _BURNED] = p[L.O_BURNED_N]
            value = -1
            a = d - 1
            while a >= 0 and ints[a, _BURNED] == ints[d, _BURNED]:
                if ints[a, _KEY] == key:
                    value = DRAW
                    break
                a -= 1
            if value < 0 and keys[key & mask] == key:
                value = np.int64(values[key & mask])
            if value < 0:
                nodes += 1
                if nodes > budget:
                    stats[0] += nodes
                    return GAVE_UP
                ints[d, _N] = order_moves(p, q, rules, moves[d])
                ints[d, _NEXT] = 0
                ints[d, _BEST] = -1
            else:  # known: back to the parent with it
                if d == 0:
                    stats[0] += nodes
                    stats[1] += 1
                    return value
                d = _to_parent(ints, d, value)
        if ints[d, _NEXT] < ints[d, _N]:
            m = moves[d, ints[d, _NEXT]]
            ints[d, _NEXT] += 1
            if d + 1 > depth_max:
                stats[0] += nodes
                return GAVE_UP
            c = d + 1
            pubs[c, :] = pubs[d, :]
            privs[c, :] = privs[d, :]
            apply(rules, pubs[c], privs[c], m)
            if pubs[c, L.O_IN] == 0:  # the game is over: whoever moved went out, or not
                _take(ints, d, WIN if pubs[c, L.O_PLACE + ints[d, _MOVER]] != players else LOSS)
                continue
            if pubs[c, L.O_MOVES] >= max_moves:
                stats[0] += nodes
                return GAVE_UP
            if pubs[c, L.O_SEAT] == ints[d, _MOVER]:
                ints[c, _ALPHA] = ints[d, _ALPHA]
                ints[c, _BETA] = ints[d, _BETA]
            else:
                ints[c, _ALPHA] = WIN - ints[d, _BETA]
                ints[c, _BETA] = WIN - ints[d, _ALPHA]
            d = c
            entering = True
            continue
        # every move tried (or cut off): the node's value
        value = ints[d, _BEST]
        if value != DRAW:
            key = ints[d, _KEY]
            keys[key & mask] = key
            values[key & mask] = value
        if d == 0:
            stats[0] += nodes
            if value == DRAW and rules[L.R_STALEMATE] == L.STALEMATE_MOST_CARDS:
                return GAVE_UP
            stats[1] += 1
            return value
        d = _to_parent(ints, d, value)


@njit(cache=True)
def write_result(pub, value):
    """Leave the places of a solved end game in ``pub`` as a playout that played it to the
    end would: the seat to move, with ``value`` ``WIN``, gets the better of the two places
    left and the other seat the last; ``LOSS`` the other way round; a ``DRAW`` leaves both
    at 0 (still in: :func:`strategies.ismcts.rewards` shares the places)."""
    if value == DRAW:
        return
    n = pub[L.O_PLAYERS]
    me = pub[L.O_SEAT]
    for s in range(n):
        if pub[L.O_PLACE + s] == 0:
            win = (s == me) == (value == WIN)
            pub[L.O_PLACE + s] = n - 1 if win else n
    pub[L.O_IN] = 0
