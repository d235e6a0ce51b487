"""ismcts: information-set Monte Carlo tree search (single observer, max^n backup).

After Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE
Trans. Computational Intelligence and AI in Games 4(2), 2012 (SO-ISMCTS, section IV):

* one search tree over the mover's information set: a node is the sequence of moves
  from the decision (a move's code is its key, whoever makes it), not a hidden state;
* every iteration draws a fresh determinisation of the hidden cards (other hands beyond
  what was seen picked up, face-down cards, the stock order) consistent with what the
  mover has seen (:func:`shedsim.kernel.policies.determinise_any`) and descends the
  tree with it, only through moves legal in that determinisation;
* selection is UCB with availability counts: a child's exploration term is
  ``C * sqrt(ln(a) / n)`` where ``a`` counts the iterations in which its move was
  legal (available) at its parent, not the parent's visits (the paper's equation 2);
* an untried legal move is expanded (chosen uniformly), then the game is played out
  by the playout policy for every seat;
* max^n backup (Sturtevant 2008, as the paper does for more than two players): each
  node keeps a reward total per seat, and the seat to move at a node picks the child
  by its own reward; a seat's reward is ``(players - place) / (players - 1)`` (1 for
  going out first, 0 for the loser), unfinished games sharing the places left; with
  ``reward=1`` it is only whether the seat escaped the last place (1 out, 0 last), the
  seats still in at the cap sharing the one last place (``(in - 1) / in`` each): the
  shithead scoring, where only the loser loses. At 2 players both rewards are the same;
* the move played is the root's most visited child.

Face-down flips are all unseen, so one flip stands for all of them (as in ``mc``).

Parameters (integers): ``iterations`` per decision (default 300; cost grows linearly,
docs/explanation/strength.md#ladder gives the cost of a game); ``explore``: the exploration constant
C in
hundredths (default 70: C = 0.7, the paper's choice for rewards in [0, 1]);
``playout``: the playout policy (0 greedy, 1 aggressive: see
:mod:`shedsim.kernel.policies`); ``cap``: the most moves of a playout (default 400);
``reward``: 0 the place (default), 1 not being last (see the backup above), 2 going out
first; ``infer``: 0
deals the hidden cards by what was seen (default), 1 also by the ranks a seat was shown not to
hold (:func:`determinise_void`); ``stop``: 0 runs every iteration (default), 1 stops as soon
as no other move can overtake the most visited one (the same move, fewer iterations:
:func:`search`'s ``stop_early``); ``value``: the learned value model's share, in percent, of
a leaf's reward (:mod:`shedsim.kernel.value`): 0 the playout's outcome alone (default), 100 the
model alone (no playout), between the two mixed (:func:`search`'s ``value``); it applies at 2
players under the rules the model was trained for, elsewhere the playout decides;
``valued_iterations``: the iterations per decision where that value applies (0, the default:
``iterations``; the model's forward pass costs about as much as a playout, so fewer iterations
buy the same time); ``solve``: 0 plays every leaf out (default), 1 solves a
leaf exactly when its determinisation is a two-seat end game with the stock empty and at most
``SOLVE_CARDS`` cards left in play: every card is known there, and the exact value of the
game from there (:mod:`shedsim.kernel.endgame`, within ``SOLVE_NODES`` nodes, else the
playout) replaces the playout's outcome (:func:`search`'s ``solve``).
The swap is greedy's. Randomness comes from the game's strategy stream, so a game is
reproducible from its seed.
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel import endgame as EG
from shedsim.kernel.core import apply, deal, prepare, stage_of, start_seat, step, valid_swap
from shedsim.kernel.core import write_public, write_turn
from shedsim.kernel.nb import count, legal_moves, one, total
from shedsim.kernel.policies import aggressive_move, determinise_any, greedy_move, hidden_places
from shedsim.kernel.policies import strongest_face_up, unseen_pool
from shedsim.kernel.rng import rng_below
from shedsim.kernel.value import HIDDEN, N_FEATURES, applies, features, win_probability

NAME = "ismcts"
DESCRIPTION = (
    "information-set MCTS: one tree over what it can see, a fresh deal of the hidden cards per "
    "iteration"
)
DETERMINISTIC = False
PARAMS = {
    "iterations": 300,
    "explore": 70,
    "playout": 0,
    "cap": 400,
    "reward": 0,
    "infer": 0,
    "stop": 0,
    "value": 0,
    "valued_iterations": 0,
    "solve": 0,
}
# iterations per decision; the exploration constant in hundredths; PLAYOUT_*; moves per
# playout; REWARD_*; INFER_*; 1: stop once the root's choice is settled (search's stop_early);
# the learned value's share of a leaf's reward in percent (0: the playout's alone; search's value);
# iterations per decision where that value applies (0: as iterations);
# 1: solve two-seat end games with the stock empty exactly at the leaves (SOLVE_NODES a solve)
PARAM_RANGES = {
    "iterations": (1, 100_000),
    "explore": (0, 10_000),
    "playout": (0, 1),
    "cap": (10, 100_000),
    "reward": (0, 2),
    "infer": (0, 1),
    "stop": (0, 1),
    "value": (0, 100),
    "valued_iterations": (0, 100_000),
    "solve": (0, 1),
}
TRAITS = {
    "cost": "slow",
    "search": True,
    "uses": ("own_cards", "pile", "opponents", "unseen"),
    "swap": "greedy-high",
}
INLINE = False  # allocates its tree per decision

PLAYOUT_GREEDY = 0
PLAYOUT_AGGRESSIVE = 1
REWARD_PLACE = 0  # (players - place) / (players - 1)
REWARD_NOT_LAST = 1  # 1 unless last; the seats still in at the cap share the last place
REWARD_FIRST = 2  # 1 for going out first; the seats still in share it when nobody went out
INFER_NONE = 0  # every deal of the unseen cards consistent with what was seen
INFER_VOIDS = 1  # and with the ranks a seat was shown not to hold (determinise_void)
VOID_TRIES = 1000  # draws of the void seats' cards before a deal gives the voids up
SOLVE_NODES = 2000  # with solve=1: the nodes of one exact end-game search before it gives up
SOLVE_CARDS = 8  # and the most cards left in play (the two hands and rows, the pile) it takes


@njit(cache=True)
def swap(visible, seat, players, rules, params, rng):
    return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)


@njit(cache=True, _nrt=False)
def playout(rules, pub, priv, policy, cap):
    """Play the game on with ``policy`` (PLAYOUT_*) for every seat, at most ``cap`` more
    moves; the places end in ``pub[O_PLACE:]`` (0 = still in). Allocates nothing."""
    moves = pub[L.O_MOVES]
    stop = moves + cap
    s = pub[L.O_SEAT]
    top = pub[L.O_TOP]
    trank = pub[L.O_TOP_RANK]
    run = pub[L.O_RUN]
    pile = pub[L.O_PILE]
    pile_n = pub[L.O_PILE_N]
    stock_n = pub[L.O_STOCK_N]
    n_in = pub[L.O_IN]
    direction = pub[L.O_DIRECTION]
    while n_in > 0 and moves < stop:
        st = stage_of(pub, s, stock_n)
        write_turn(pub, s, st, priv[L.P_HANDS + s], top, trank, run, pile, pile_n, moves)
        if policy == PLAYOUT_AGGRESSIVE:
            m = aggressive_move(pub, rules)
        else:
            m = greedy_move(pub, rules)
        moves += 1
        s, top, trank, run, pile, pile_n, stock_n, n_in, direction = step(
            rules, pub, priv, m, s, st, top, trank, run, pile, pile_n, stock_n, n_in, direction
        )
    write_public(
        pub,
        s,
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
def rewards(pub, out, kind=REWARD_PLACE):
    """Write each seat's reward into ``out`` (``float64[players]``): with ``kind``
    REWARD_PLACE ``(players - place) / (players - 1)``, seats still in sharing the places
    left (their mean); with REWARD_NOT_LAST 0 for the last place and 1 for every other,
    the ``in`` seats still in each getting ``(in - 1) / in`` (one of them is last); with
    REWARD_FIRST 1 for the first place, the seats still in each getting ``1 / in`` when
    nobody went out yet, else 0."""
    n = pub[L.O_PLAYERS]
    n_in = 0
    for s in range(n):
        if pub[L.O_PLACE + s] == 0:
            n_in += 1
    shared = (n - n_in + 1 + n) / 2.0
    for s in range(n):
        p = pub[L.O_PLACE + s]
        if kind == REWARD_NOT_LAST:
            out[s] = (n_in - 1) / n_in if p == 0 else (0.0 if p == n else 1.0)
        elif kind == REWARD_FIRST:
            out[s] = (1.0 / n_in if n_in == n else 0.0) if p == 0 else (1.0 if p == 1 else 0.0)
        else:
            place = shared if p == 0 else float(p)
            out[s] = (n - place) / (n - 1)


@njit(cache=True)
def moves_here(pub, rules, buf, every_flip=False):
    """The mover's legal moves in ``buf``; face-down flips reduced to one (all unseen)
    unless ``every_flip`` (a search that sees the face-down cards tells them apart)."""
    n = legal_moves(pub, rules, buf)
    if pub[L.O_STAGE] == L.STAGE_FACE_DOWN and not every_flip:
        k = 0
        for i in range(n):
            m = buf[i]
            if m < L.FLIP or m >= L.FLIP + L.MAX_TABLE or m == L.FLIP:
                buf[k] = m
                k += 1
        n = k
    return n


@njit(cache=True)
def _unknown(obs, s):
    """How many of seat ``s``'s hand cards nobody has seen (beyond ``O_KNOWN``)."""
    return obs[L.O_HAND_N + s] - total(obs[L.O_KNOWN + s])


@njit(cache=True)
def determinise_void(obs, rules, rng, pub, priv):
    """As :func:`shedsim.kernel.policies.determinise_any`, but a seat whose unknown hand cards
    hold none of some ranks (``obs[O_VOID + s]``, a packed rank mask: it was forced to pick
    up with the stock empty, docs/reference/rules.md#observation) is dealt only cards outside
    them.

    The deal is uniform over the deals consistent with the observation and the voids, every
    unseen card told apart from its copies: each void seat's unknown cards are a uniform
    draw, without replacement, from the unseen cards outside its void ranks, drawn for each
    such seat independently and kept only when no card was drawn twice (rejection sampling:
    every draw without a repeat is equally likely, and each leaves the same number of ways to
    deal the rest); the other hidden places then take a uniform ordered draw of the cards left,
    as determinise_any deals. With one void seat (every 2-player game) the first draw is kept.
    After ``VOID_TRIES`` rejected draws (void seats competing for the same few cards), or
    when a void seat's allowed cards are fewer than its unknown ones, the deal is
    determinise_any's (the voids ignored). ``pub`` (``int64[O_SIZE]``) and ``priv``
    (``int64[P_SIZE]``) receive the position; returns False only when determinise_any
    would (fewer unseen cards than hidden places).
    """
    n = obs[L.O_PLAYERS]
    me = obs[L.O_SEAT]
    voids = 0
    for s in range(n):
        if s != me and obs[L.O_VOID + s] != 0 and _unknown(obs, s) > 0:
            voids += 1
    if voids == 0:
        return determinise_any(obs, rules, rng, pub, priv)
    pool = np.empty(rules[L.R_DECK_SIZE], np.int64)
    m = unseen_pool(obs, rules, pool)
    if m < 0:
        return False
    need = hidden_places(obs)
    drawn = 0
    for s in range(n):
        if s != me and obs[L.O_VOID + s] != 0:
            drawn += _unknown(obs, s)
    if need > m:
        return False
    owner = np.full(m, -1, np.int64)  # the void seat that drew pool[i], -1: none
    idx = np.empty(m, np.int64)
    kept = False
    for _ in range(VOID_TRIES):
        owner[:] = -1
        kept = True
        for s in range(n):
            k = _unknown(obs, s)
            v = obs[L.O_VOID + s]
            if s == me or v == 0 or k <= 0:
                continue
            a = 0
            for i in range(m):
                if count(v, pool[i]) == 0:
                    idx[a] = i
                    a += 1
            if a < k:  # the voids leave this seat too few cards: no draw can be kept
                return determinise_any(obs, rules, rng, pub, priv)
            for j in range(k):  # partial Fisher-Yates over the allowed cards
                t = j + rng_below(rng, a - j)
                x = idx[t]
                idx[t] = idx[j]
                idx[j] = x
                if owner[x] >= 0:
                    kept = False
                    break
                owner[x] = s
            if not kept:
                break
        if kept:
            break
    if not kept:
        return determinise_any(obs, rules, rng, pub, priv)
    f = 0
    for i in range(m):
        if owner[i] < 0:
            idx[f] = i
            f += 1
    for j in range(need - drawn):  # the other hidden places: a uniform draw of the rest
        t = j + rng_below(rng, f - j)
        x = idx[t]
        idx[t] = idx[j]
        idx[j] = x
    pub[:] = obs[:]
    priv[:] = 0
    pos = 0
    for s in range(n):
        if s == me:
            priv[L.P_HANDS + s] = obs[L.O_HAND]
        else:
            h = obs[L.O_KNOWN + s]
            if obs[L.O_VOID + s] != 0:
                for i in range(m):
                    if owner[i] == s:
                        h += one(pool[i])
            else:
                for _ in range(_unknown(obs, s)):
                    h += one(pool[idx[pos]])
                    pos += 1
            priv[L.P_HANDS + s] = h
        for i in range(obs[L.O_FACE_DOWN_N + s]):
            priv[L.P_FACE_DOWN + s * L.MAX_TABLE + i] = pool[idx[pos]]
            pos += 1
    size = rules[L.R_DECK_SIZE]
    for i in range(obs[L.O_STOCK_N]):
        priv[L.P_DECK + size - obs[L.O_STOCK_N] + i] = pool[idx[pos]]
        pos += 1
    return True


@njit(cache=True)
def true_state(obs, seen, pub, priv):
    """The position as it is: ``pub`` (``int64[O_SIZE]``) a copy of ``obs``, ``priv``
    (``int64[P_SIZE]``) the hands, face-down slots and deck of ``seen`` (the kernel's
    private state, ``priv[:P_LOOP]``) and zeros after (the loop check's and the guards'
    scratch, which a search never reads). ``seen`` is not written."""
    pub[:] = obs[:]
    priv[:] = 0
    priv[: L.P_LOOP] = seen[: L.P_LOOP]


@njit(cache=True)
def search(
    obs,
    rules,
    iterations,
    explore,
    policy,
    cap,
    rng,
    root_moves,
    root_visits,
    root_value,
    stats,
    reward_kind=REWARD_PLACE,
    seen=None,
    infer=INFER_NONE,
    stop_early=False,
    root_out=None,
    value=0,
    solve=0,
):
    """Run SO-ISMCTS from the observation ``obs`` (``int64[O_SIZE]``) and return the most
    visited root move (``int64``), or -1 when the observation admits no determinisation.

    ``seen`` (``int64[P_SIZE]`` or None): the game's true private state (hands, face-down
    cards, the deck whose tail is the stock). Given, every iteration starts from it
    instead of a determinisation (:func:`true_state`) and face-down flips are told apart:
    the same tree, iterations and playouts with perfect information, the determinised
    search's ceiling (``ismcts_cheat``; Long, Sturtevant, Buro and Furtak, "Understanding
    the Success of Perfect Information Monte Carlo Sampling in Game Tree Search", AAAI
    2010, and Powley, Whitehouse and Cowling, "Determinization in Monte-Carlo Tree Search
    for the card game Dou Di Zhu", AISB 2011, measure the same gap). ``seen`` is only read.

    ``root_moves`` (``int64[160]``, zeros) receives the root's moves (move codes are never
    0, so the first 0 ends the list), ``root_visits`` (``int64[160]``) their visits and
    ``root_value`` (``float64[160]``) the mover's mean reward after each.
    ``iterations`` iterations; ``explore`` the constant C; ``policy`` PLAYOUT_*; ``cap``
    the playout's move cap; ``rng`` the strategy stream (``uint64[1]``); ``reward_kind``
    REWARD_* (:func:`rewards`); ``infer`` INFER_* (how the hidden cards are dealt: with
    INFER_VOIDS by :func:`determinise_void`). With ``stop_early`` the search ends as soon
    as the most visited root move can no longer be overtaken: its lead in visits over the
    second exceeds the iterations left, so the move returned is the one the whole budget
    would return (the time management of Huang, Coulom and Lin, "Time Management for
    Monte-Carlo Tree Search Applied to the Game of Go", TAAI 2010, in its exact form).
    With ``value`` > 0 (a percentage), where the learned model applies
    (:func:`shedsim.kernel.value.applies`: 2 players, its rules), a leaf with both seats in is
    scored ``lam * v + (1 - lam) * z`` for ``lam = value / 100``, where ``v`` is the model's
    probability that the seat to move wins (the other seat's is ``1 - v``; at 2 players every
    kind of reward is the winning one) and ``z`` the playout's reward; with ``value`` 100 no
    playout is played. The mixed leaf evaluation of Silver et al., "Mastering the game of Go
    with deep neural networks and tree search", Nature 529, 2016 (their lambda).
    ``root_out`` (``float64[160, 3]``, zeros, or None) receives, for each root move in the
    order of ``root_moves``, the sums over its visits of the mover's reward by each kind (the
    playouts' outcomes, even where the tree's rewards mix in the learned value; with
    ``value`` 100, which plays none, the model's estimates),
    REWARD_PLACE, REWARD_NOT_LAST and REWARD_FIRST (what ``shedsim hint --search`` shows:
    expected place, P(lose), P(first)). ``stats``
    (``int64[2]``) counts the work: ``stats[0]`` += moves played in the tree and the
    playouts, ``stats[1]`` += iterations (``shedsim bench --strategy ismcts`` reads them).

    ``solve`` (``int``, 0 = off): where the leaf's determinised position is an end game of
    two seats with the stock empty and at most ``SOLVE_CARDS`` cards in play, its exact
    value under perfect information (:func:`shedsim.kernel.endgame.solve`, at most
    ``solve`` nodes) is the iteration's outcome instead of a playout: the places are left
    in the state as a playout that played it out would leave them (a draw leaves both
    seats in, sharing the places), so :func:`rewards` reads them unchanged. A search that
    gives up (over its nodes, a line too deep or reaching the move cap) plays the position
    out as without ``solve``. The end-game search of perfect-information Monte Carlo (Long,
    Sturtevant, Buro and Furtak 2010, above) at the leaves of the information-set tree;
    the solves of one decision share a transposition table (exact values of positions).
    A solve draws nothing from ``rng``.
    """
    n_pl = obs[L.O_PLAYERS]
    me = obs[L.O_SEAT]
    size = iterations + 2
    parent = np.full(size, -1, np.int64)
    code = np.zeros(size, np.int64)
    child = np.full(size, -1, np.int64)
    sibling = np.full(size, -1, np.int64)
    visits = np.zeros(size, np.float64)
    avail = np.zeros(size, np.float64)
    total = np.zeros((size, n_pl), np.float64)
    nodes = 1
    base_pub = np.empty(L.O_SIZE, np.int64)  # noqa: F841 - kept: numba types the loop with them
    base_priv = np.empty(L.P_SIZE, np.int64)  # noqa: F841
    pub = np.empty(L.O_SIZE, np.int64)
    priv = np.empty(L.P_SIZE, np.int64)
    buf = np.empty(160, np.int64)
    found = np.empty(160, np.int64)
    untried = np.empty(160, np.int64)
    reward = np.zeros(n_pl, np.float64)
    path = np.empty(size + 1, np.int64)
    outcome = np.zeros((size if root_out is not None else 1, 3), np.float64)
    max_moves = rules[L.R_MAX_MOVES]
    every_flip = seen is not None
    learned = value > 0 and applies(rules)
    lam = value / 100.0
    mixed = np.zeros(n_pl, np.float64)
    x = np.empty(N_FEATURES, np.float64)
    hidden = np.empty(HIDDEN, np.float64)
    # the exact end-game search's memory, shared by the decision's solves (its table too):
    # allocated at the first solve, so a search that never reaches an end game pays nothing
    pubs, privs, sm, si, keys, values = EG.scratch(0, 0)
    work = np.zeros(2, np.int64)
    for it in range(iterations):
        if stop_early and it >= 2:
            first = 0.0
            second = 0.0
            c = child[0]
            while c >= 0:
                if visits[c] > first:
                    second = first
                    first = visits[c]
                elif visits[c] > second:
                    second = visits[c]
                c = sibling[c]
            if first - second > iterations - it:
                break
        if seen is not None:
            true_state(obs, seen, pub, priv)
        elif infer == INFER_VOIDS:
            if not determinise_void(obs, rules, rng, pub, priv):
                return np.int64(-1)
        elif not determinise_any(obs, rules, rng, pub, priv):
            return np.int64(-1)
        start_moves = pub[L.O_MOVES]
        node = 0
        depth = 0
        path[depth] = 0
        while pub[L.O_IN] > 0 and pub[L.O_MOVES] < max_moves:
            prepare(pub, priv)
            mover = pub[L.O_SEAT]
            nm = moves_here(pub, rules, buf, every_flip)
            n_untried = 0
            for i in range(nm):
                c = child[node]
                while c >= 0 and code[c] != buf[i]:
                    c = sibling[c]
                found[i] = c
                if c >= 0:
                    avail[c] += 1.0
                else:
                    untried[n_untried] = buf[i]
                    n_untried += 1
            if n_untried > 0:
                m = untried[rng_below(rng, n_untried)]
                c = nodes
                nodes += 1
                parent[c] = node
                code[c] = m
                sibling[c] = child[node]
                child[node] = c
                avail[c] = 1.0
                apply(rules, pub, priv, m)
                depth += 1
                path[depth] = c
                break
            best = -1
            best_v = -1e300
            for i in range(nm):
                c = found[i]
                v = total[c, mover] / visits[c] + explore * np.sqrt(np.log(avail[c]) / visits[c])
                if v > best_v:
                    best_v = v
                    best = c
            apply(rules, pub, priv, code[best])
            node = best
            depth += 1
            path[depth] = node
        scored = False  # the leaf has the learned value in ``mixed``
        if pub[L.O_IN] > 0:
            prepare(pub, priv)
            exact = EG.GAVE_UP
            if (
                solve > 0
                and pub[L.O_IN] == 2
                and pub[L.O_STOCK_N] == 0
                and EG.cards_left(pub) <= SOLVE_CARDS
            ):
                if keys.shape[0] == 1:
                    pubs, privs, sm, si, keys, values = EG.scratch(EG.MAX_DEPTH, EG.TT_BITS)
                exact = EG.solve(rules, pub, priv, solve, pubs, privs, sm, si, keys, values, work)
            if exact != EG.GAVE_UP:
                EG.write_result(pub, exact)  # the exact outcome: nothing to estimate
            else:
                if learned and pub[L.O_IN] == 2:
                    v = win_probability(pub, priv, x, hidden)
                    mover = pub[L.O_SEAT]
                    mixed[mover] = lam * v
                    mixed[1 - mover] = lam * (1.0 - v)
                    scored = True
                if not scored or value < 100:
                    playout(rules, pub, priv, policy, cap)
        stats[0] += pub[L.O_MOVES] - start_moves
        stats[1] += 1
        if root_out is not None and depth >= 1:
            # the figures count the playouts' outcomes (the model's alone where none was played)
            for kind in range(3):
                rewards(pub, reward, kind)
                outcome[path[1], kind] += reward[me] if value < 100 or not scored else mixed[me]
        rewards(pub, reward, reward_kind)
        if scored:
            for s in range(n_pl):
                reward[s] = mixed[s] if value >= 100 else mixed[s] + (1.0 - lam) * reward[s]
        for d in range(depth + 1):
            nd = path[d]
            visits[nd] += 1.0
            for s in range(n_pl):
                total[nd, s] += reward[s]
    best = np.int64(-1)
    best_n = -1.0
    k = 0
    c = child[0]
    while c >= 0:
        if k < root_moves.shape[0]:
            root_moves[k] = code[c]
            root_visits[k] = np.int64(visits[c])
            root_value[k] = total[c, me] / visits[c] if visits[c] > 0 else 0.0
            if root_out is not None:
                root_out[k, :] = outcome[c, :]
            k += 1
        if visits[c] > best_n:
            best_n = visits[c]
            best = code[c]
        c = sibling[c]
    return best


@njit(cache=True)
def move_stats(obs, rules, params, rng, stats):
    """The decision, counting the search's work in ``stats`` (``int64[2]``: moves played,
    iterations); see :func:`search`."""
    buf = np.empty(160, np.int64)
    n = moves_here(obs, rules, buf)
    if n == 1:
        return buf[0]
    iterations = max(1, params[0])
    if params[7] > 0 and params[8] > 0 and applies(rules):
        iterations = params[8]
    explore = params[1] / 100.0
    cap = max(10, params[3])
    root_moves = np.zeros(160, np.int64)
    root_visits = np.zeros(160, np.int64)
    root_value = np.zeros(160, np.float64)
    m = search(
        obs,
        rules,
        iterations,
        explore,
        params[2],
        cap,
        rng,
        root_moves,
        root_visits,
        root_value,
        stats,
        params[4],
        None,
        params[5],
        params[6] != 0,
        None,
        params[7],
        SOLVE_NODES if params[9] != 0 else 0,
    )
    if m < 0:
        return greedy_move(obs, rules)
    return m


@njit(cache=True)
def move(obs, rules, params, rng):
    return move_stats(obs, rules, params, rng, np.zeros(2, np.int64))


@njit(cache=True)
def root_search(obs, rules, params, rng, iterations, reward_kind, moves, visits, out):
    """The search behind ``shedsim hint --search``: :func:`search` from ``obs`` with the
    strategy's parameters ``params`` but ``iterations`` iterations, no early stop and the
    reward ``reward_kind`` (REWARD_*: what the hint ranks by). Writes the root's moves into
    ``moves`` (``int64[160]``, zeros; the first 0 ends them), their visits into ``visits``
    (``int64[160]``) and the sums of the mover's rewards into ``out`` (``float64[160, 3]``,
    zeros; see :func:`search`'s ``root_out``); returns the most visited move, or -1 when the
    observation admits no determinisation."""
    value = np.zeros(moves.shape[0], np.float64)
    return search(
        obs,
        rules,
        max(1, iterations),
        params[1] / 100.0,
        params[2],
        max(10, params[3]),
        rng,
        moves,
        visits,
        value,
        np.zeros(2, np.int64),
        reward_kind,
        None,
        params[5],
        False,
        out,
        params[7],
        SOLVE_NODES if params[9] != 0 else 0,
    )


QUIET = 300
"""Moves in a row with no burn, no seat out and no draw after which a game of
:func:`self_play` is given up as unfinished (searchers can pass the pile back and forth for
ever)."""


@njit(cache=True)
def self_play(rules, params, games, deal_key, search_key, every, out_x, out_meta):
    """Self-play for the learned value's training data (:mod:`shedsim.analysis.learn`):
    play ``games`` games of this search in every seat (greedy's swap), the cards dealt from
    the splitmix64 stream ``deal_key`` and the searches drawing from ``search_key``, and keep
    one in ``every`` decisions with a choice while both seats are in: its features
    (:func:`shedsim.kernel.value.features`) in ``out_x`` (``float64[cap, N_FEATURES]``) and
    ``(game, mover, won, moves)`` in ``out_meta`` (``int64[cap, 4]``: the game's index in the
    chunk, the seat to move, 1 if it won, 0 if it lost, -1 if the game was given up
    unfinished (the move cap, or :data:`QUIET` moves without progress), and the game's length
    in moves). Returns the rows written; recording stops when ``cap`` rows are full while the
    games go on, so the draws stay those of the whole chunk. Seat ``g % players`` deals
    game ``g``."""
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    drng = np.zeros(1, np.uint64)
    srng = np.zeros(1, np.uint64)
    drng[0] = np.uint64(deal_key)
    srng[0] = np.uint64(search_key)
    x = np.zeros(N_FEATURES, np.float64)
    buf = np.empty(160, np.int64)
    n = rules[L.R_PLAYERS]
    cap = out_x.shape[0]
    got = 0
    seen = 0
    for g in range(games):
        deal(rules, pub, priv, drng, g % n)
        for s in range(n):
            visible = priv[L.P_HANDS + s] + pub[L.O_FACE_UP + s]
            up = strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
            if valid_swap(visible, up, rules[L.R_TABLE_SIZE]):
                pub[L.O_FACE_UP + s] = up
                priv[L.P_HANDS + s] = visible - up
        pub[L.O_SEAT] = start_seat(rules, pub, priv, drng)
        first = got
        quiet = 0
        while pub[L.O_IN] > 0 and pub[L.O_MOVES] < rules[L.R_MAX_MOVES] and quiet < QUIET:
            prepare(pub, priv)
            if legal_moves(pub, rules, buf) == 1:
                m = buf[0]
            else:
                seen += 1
                if seen % every == 0 and got < cap and pub[L.O_IN] == n:
                    features(pub, priv, x)
                    out_x[got, :] = x
                    out_meta[got, 0] = g
                    out_meta[got, 1] = pub[L.O_SEAT]
                    got += 1
                m = move(pub, rules, params, srng)
            burned, stock_n, n_in = pub[L.O_BURNED_N], pub[L.O_STOCK_N], pub[L.O_IN]
            apply(rules, pub, priv, m)
            if burned == pub[L.O_BURNED_N] and stock_n == pub[L.O_STOCK_N] and n_in == pub[L.O_IN]:
                quiet += 1
            else:
                quiet = 0
        for i in range(first, got):
            p = pub[L.O_PLACE + out_meta[i, 1]]
            out_meta[i, 2] = -1 if p == 0 else (1 if p == 1 else 0)
            out_meta[i, 3] = pub[L.O_MOVES]
    return got


@njit(cache=True)
def playout_stats(obs, rules, params, rng, reps, play, stats):
    """The playout loop alone, for ``shedsim bench``: ``reps`` determinisations of ``obs``
    (``int64[O_SIZE]``), each played to the end (or ``cap`` moves) by the playout policy
    when ``play`` is true. ``stats`` (``int64[2]``): ``stats[0]`` += playout moves,
    ``stats[1]`` += playouts. The playout policy draws nothing from ``rng``, so timing it
    with ``play`` false and then true from the same ``rng`` state gives the time of the
    determinisations and, by difference, of the playouts
    (:func:`shedsim.runs.benchmark.search_rates`)."""
    pub = np.empty(L.O_SIZE, np.int64)
    priv = np.empty(L.P_SIZE, np.int64)
    cap = max(10, params[3])
    for _ in range(reps):
        if not determinise_any(obs, rules, rng, pub, priv):
            return
        if play and pub[L.O_IN] > 0:
            before = pub[L.O_MOVES]
            prepare(pub, priv)
            playout(rules, pub, priv, params[2], cap)
            stats[0] += pub[L.O_MOVES] - before
            stats[1] += 1
