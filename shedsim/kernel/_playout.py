"""Template of the generated playout kernel of ``shedsim hint`` (see
:mod:`shedsim.kernel.playouts`).

Valid Python so it can be read and linted, but not imported to run: the generator puts a
dispatch holding one strategy, the playout policy, in place of the stub import line (as
:mod:`shedsim.kernel.build` does for the game loop) and sets ``_NRT`` (reference counting
off when the policy allocates nothing, as in the fast game loop), and numba caches it.

:func:`run_samples` plays, for each sample (a determinisation of what the seat has not
seen) and each candidate move, the move and then the rest of the game with the policy for
every seat. The same determinisation and the same policy stream serve every move of a
sample: common random numbers, so the moves' differences are measured on paired games.

As in the game loop (:mod:`shedsim.kernel._loop`), the policy never sees the kernel's own
rules and parameters: it decides on copies (``srules``, ``sparams``); a plugin policy's
copies are compared with the originals after every sample
(:func:`shedsim.kernel.core.first_change`), and one that wrote into them stops the playouts
(``status[1] = 3``) before the sample counts, as its moves are checked for legality.
shedsim's own policies (trusted by their file's origin, ``is_checked``) skip both checks, as
in the game loop. A policy
from outside ``strategies/`` decides through the observation guard of the generated
dispatch (a write into the observation returns ``layout.OBS_WRITTEN``, an illegal move)
and draws from each seat's own stream, as in the game loop (a write into a stream it does
not own returns ``layout.RNG_WRITTEN + S_*``, an illegal move).
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.core import (
    apply,
    first_change,
    is_legal,
    legal_now,
    prepare,
    stage_of,
    step,
    write_public,
    write_turn,
)
from shedsim.kernel.policies import determinise_any
from shedsim.kernel.rng import seat_key
from shedsim.kernel._stub import OUTSIDE, choose_move, choose_swap, is_deterministic  # DISPATCH
from shedsim.kernel._stub import is_checked  # DISPATCH

_NRT = True  # GENERATED-NRT

# facts recorded per sample and move (int8): column indices
F_BURN = 0  # the move burned the pile
F_AGAIN = 1  # the seat moves again at once
F_PICKUP = 2  # the move picked up (the pile, or with a failed flip or gamble)
F_NEXT_OUT = 3  # the next seat to move went out on that move
F_PICKUP_NEXT = 4  # the seat's own next move was a pick-up (or a failed flip/gamble)
F_FINISHED = 5  # the game ended within the cap
F_OUT_NOW = 6  # the move took the seat out
F_PICKUPS_LATER = 7  # pick-ups by the seat after the move (capped at 100)
N_FACTS = 8


@njit(cache=True, _nrt=_NRT)
def _play_on(rules, srules, pub, priv, sparams, srng, streams, me, cap, facts, k, j, status):
    """Play on from ``pub``/``priv`` with the policy for every seat, at most ``cap`` moves,
    recording facts about the seat ``me``; False if the policy made an illegal move. The
    policy decides on ``srules``/``sparams`` (copies of ``rules`` and its parameters)."""
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
    first = True
    my_turns = 0
    later = 0
    while n_in > 0 and moves < stop:
        st = stage_of(pub, s, stock_n)
        write_turn(pub, s, st, priv[L.P_HANDS + s], top, trank, run, pile, pile_n, moves)
        m = choose_move(0, pub, srules, sparams, srng, streams, priv)
        # a plugin policy's moves are checked; shedsim's own are trusted (is_checked: by the
        # file's origin), as in the game loop
        if is_checked(0) and not legal_now(rules, pub, priv, m, s, st, top, pile_n, stock_n):
            status[1] = 2
            status[2] = s
            status[3] = m
            return False
        mover = s
        before = pub[L.O_PICKUPS + mover]
        moves += 1
        s, top, trank, run, pile, pile_n, stock_n, n_in, direction = step(
            rules, pub, priv, m, s, st, top, trank, run, pile, pile_n, stock_n, n_in, direction
        )
        if mover == me:
            if pub[L.O_PICKUPS + me] > before:
                later += 1
                if my_turns == 0:
                    facts[k, j, F_PICKUP_NEXT] = 1
            my_turns += 1
        elif first and pub[L.O_PLACE + mover] != 0:
            facts[k, j, F_NEXT_OUT] = 1
        first = False
    facts[k, j, F_PICKUPS_LATER] = min(later, 100)
    if n_in == 0:
        facts[k, j, F_FINISHED] = 1
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
    return True


@njit(cache=True)
def run_samples(rules, obs, codes, active, keys, params, cap, places, facts, status, streams):
    """Play ``keys.shape[0]`` samples of every active candidate move.

    ``obs`` int64[O_SIZE]: the seat's observation (the seat to move); ``codes`` int64[M]
    the candidate move codes, ``active`` bool[M] which of them to play; ``keys``
    uint64[K, 2]: per sample, the determinisation key and the policy's stream key;
    ``params`` int64[8] the policy's parameters; ``cap`` the most moves after the
    candidate; ``streams`` uint64[S_SIZE] the random streams' scratch (``layout.S_*``:
    ``streams[S_BEAT]`` is odd while a plugin policy decides, so that the parent of a
    forked child can time its decisions, :func:`shedsim.kernel.isolate.watch`). Writes ``places``
    float64[K, M] (the seat's place: 1 = first out; seats
    still in at the cap share the places left) and ``facts`` int8[K, M, N_FACTS].
    Returns the samples done; on a failure ``status[1]`` says why (1: no determinisation
    fits the observation, 2: the policy made an illegal move; ``status[2]`` its seat,
    ``status[3]`` the move; 3: the policy wrote into the rules (``status[2]`` = 1) or its
    parameters (2), ``status[3]`` the first index that differs). The sample that failed
    is not counted.
    """
    me = obs[L.O_SEAT]
    n = obs[L.O_PLAYERS]
    base_pub = np.empty(L.O_SIZE, np.int64)
    base_priv = np.empty(L.P_SIZE, np.int64)
    pub = np.empty(L.O_SIZE, np.int64)
    priv = np.empty(L.P_SIZE, np.int64)
    drng = streams[L.S_DEAL : L.S_DEAL + 1]
    srng = streams[L.S_STRATEGY : L.S_STRATEGY + 1]
    srules = rules.copy()  # what the policy sees: a copy, compared after every sample
    sparams = params.copy()
    for k in range(keys.shape[0]):
        drng[0] = keys[k, 0]
        if not determinise_any(obs, rules, drng, base_pub, base_priv):
            status[1] = 1
            return k
        for j in range(codes.shape[0]):
            if not active[j]:
                continue
            pub[:] = base_pub
            priv[:] = base_priv
            prepare(pub, priv)
            m = codes[j]
            if not is_legal(rules, pub, priv, m):
                status[1] = 2
                status[2] = me
                status[3] = m
                return k
            burns = pub[L.O_BURNS + me]
            pickups = pub[L.O_PICKUPS + me]
            apply(rules, pub, priv, m)
            if pub[L.O_BURNS + me] > burns:
                facts[k, j, F_BURN] = 1
            if pub[L.O_PICKUPS + me] > pickups:
                facts[k, j, F_PICKUP] = 1
            if pub[L.O_PLACE + me] != 0:
                facts[k, j, F_OUT_NOW] = 1
            if pub[L.O_IN] > 0:
                if pub[L.O_SEAT] == me:
                    facts[k, j, F_AGAIN] = 1
                srng[0] = keys[k, 1]
                if (
                    OUTSIDE
                ):  # a plugin policy draws from each seat's own stream, as in the game loop
                    for s in range(n):
                        priv[L.P_SEAT_RNG + s] = np.int64(seat_key(keys[k, 1], s))
                if not _play_on(
                    rules, srules, pub, priv, sparams, srng, streams, me, cap, facts, k, j, status
                ):
                    _tampered(rules, srules, params, sparams, status)
                    return k
            else:
                facts[k, j, F_FINISHED] = 1
            p = pub[L.O_PLACE + me]
            if p != 0:
                places[k, j] = p
            else:
                n_in = 0
                for s in range(n):
                    if pub[L.O_PLACE + s] == 0:
                        n_in += 1
                places[k, j] = (n - n_in + 1 + n) / 2.0
        if is_checked(0) and _tampered(rules, srules, params, sparams, status):
            return k
    return keys.shape[0]


@njit(cache=True)
def _tampered(rules, srules, params, sparams, status):
    """Whether the policy wrote into its copy of the rules or parameters; if so ``status``
    says where (``status[1] = 3``, ``status[2]`` 1 rules / 2 parameters, ``status[3]`` the
    first index that differs). Checked after every sample and before an illegal move is
    reported (an illegal move after such a write is blamed on the write)."""
    changed = first_change(rules, srules)
    which = 1
    if changed < 0:
        changed = first_change(params, sparams)
        which = 2
    if changed < 0:
        return False
    status[1] = 3
    status[2] = which
    status[3] = changed
    return True
