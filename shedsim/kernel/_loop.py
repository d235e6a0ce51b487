"""Template of the generated kernel's game loop (see :mod:`shedsim.kernel.build`).

This file is valid Python so it can be read and linted, but it is not imported to run:
:func:`shedsim.kernel.build.kernel_module` copies it below a generated strategy dispatch
(``choose_swap``/``choose_move``), which replaces the stub import line, and numba caches
the result. Per-game records (``int`` arrays, one row per game, ``P`` = players):

``places`` int8[n, P] (0 = still in when the game was stopped, under ``stalemate:share``),
``start`` int8[n], ``moves`` int32[n], ``pickups``/``burns`` int16[n, P], ``unfinished``
bool[n] (the game was stopped: ``end != END_FINISHED``), ``ends`` int8[n] (how it ended,
``layout.END_*``: finished, stalled, proven loop, move cap), ``dealt`` / ``face_up``
int64[n, P] (packed visible cards dealt, face-up cards chosen).

Games that cannot end (docs/reference/rules.md#cannot-end; the same rules as
:func:`shedsim.rules.engine.apply_move`):
after each move that burns nothing, puts nobody out and draws no card from the stock,
``quiet`` (moves since the last such event) grows by one. (Once the stock is empty, that
is "no card leaves play"; while it lasts, a draw is progress too, since players holding
four cards or more can go round without drawing, and such games loop as well.)

* Proven loop: once ``quiet`` reaches ``layout.LOOP_FROM`` (so that ordinary moves pay
  only for the counter), when every seat still in plays a ``DETERMINISTIC`` strategy
  (its move is a function of the position and the strategy stream alone), Brent's cycle
  search compares each position (pile, turn, direction, every hand, face-up row,
  face-down count and known-hand cards, and the strategy stream) exactly with one saved
  at ``quiet`` = F, F+1, F+3, F+7, F+15, ... (F = LOOP_FROM); a match proves the game
  repeats forever, and it ends at that move (R. P. Brent, "An improved Monte Carlo factorization
  algorithm", BIT 20,
  1980).
* Stalled: ``quiet`` reaching ``rules[R_STALL]`` (``stall:N``; 0 = off) ends it.
* The move cap ends it otherwise. A stopped game's seats still in keep place 0
  (``stalemate:share``) or are placed by cards held (``stalemate:most_cards``,
  :func:`shedsim.kernel.core.place_by_cards`).

``trace`` int32[n, T]: the first T move codes of each game (T = 0 records nothing; the
differential test uses it).

Scratch arrays come from the caller: ``pub`` int64[O_SIZE], ``priv`` int64[P_SIZE],
``streams`` uint64[S_SIZE] (the game's random streams, ``layout.S_*``: the deal stream
``drng`` and the strategy stream ``srng`` are views of its entries). A strategy's ``params``
is its entry's row of ``entry_params`` (``int64[W]``, a view: strategies must not write to it).

Random streams: shedsim's own strategies share the game's strategy stream ``srng``. A
plugin from outside ``strategies/`` draws from its seat's own stream instead
(``priv[P_SEAT_RNG + seat]``, keyed from the game's by :func:`shedsim.kernel.rng.seat_key`,
set for every seat at the start of each game when the dispatch holds a plugin: ``OUTSIDE``):
the generated dispatch lends it in ``streams[S_LENT]`` for each decision (swap and moves) and
compares the streams after it, which the plugin does not own, when it is done
(:func:`shedsim.kernel.core.lend_stream`, :func:`~shedsim.kernel.core.stream_written`); a
write there returns ``layout.RNG_WRITTEN + S_*``, an impossible swap or an illegal move that
:meth:`shedsim.kernel.build.Kernel.play` reports as that write. So nothing a plugin draws or
writes reaches another seat's draws, the deal or the loop check (which compares the shared
stream); a ``DETERMINISTIC`` plugin's stream is lent afresh for each decision
(:func:`~shedsim.kernel.core.keep_stream`), so a write into it changes no game's end.

The generator also emits a copy, ``play_chunk_fast``, compiled with numba's reference
counting off (``_nrt=False``): every helper inlined into the loop takes arrays, and with
reference counting on, each such call costs an atomic increment and decrement per array
argument, which was most of the time of a move (about 6x slower). Nothing in the loop
allocates, so nothing needs counting; strategies that allocate (``INLINE = False``, such
as ``mc``) are left out of the fast copy and run in this one.

Swap-phase controls (the swap study, :mod:`shedsim.analysis.swaps`): ``swap_from`` int64[E] names,
per entry, the entry whose swap function (strategy and parameters) decides its face-up
cards (``swap_from[e] == e`` normally; ``-1`` keeps the face-up cards as dealt: no swap);
``forced_up`` int64[n, P] overrides that choice for one game and seat when non-zero (a
packed face-up multiset, checked like any swap; int64[0, P]: none). ``given_seat`` int64[n]
(-1: an ordinary deal) and ``given_visible`` int64[n] (both int64[0]: every deal ordinary):
game g is dealt conditioned on that seat's visible cards being ``given_visible[g]``
(:func:`shedsim.kernel.core.deal_given`; an impossible
multiset is reported as an impossible swap of that seat). ``decks`` int64[n, D]: with D > 0,
game g is dealt the deck ``decks[g]`` as it stands (a deal-set file, :mod:`shedsim.rules.deals`;
:func:`shedsim.kernel.core.deal_out`) instead of a shuffle; the deal stream then starts at
the game's deal key for the start rule's draws. D = 0: shuffled deals.

Strategies do not see the kernel's own ``rules`` and ``entry_params`` (one exception
below): they decide on copies (``srules`` int64[R_SIZE], ``sparams`` int64[E, W], made by
the caller), which the
loop compares with the originals after each game (:func:`shedsim.kernel.core.first_change`,
about 50 + E*W compares a game). A strategy that wrote into them changes nothing the
kernel reads; its game is not counted and the loop stops with ``status[1] = 3``.

Trusted strategies: the comparison of the copies, the legality check of each chosen
move (:func:`shedsim.kernel.core.legal_with`) and the check of each swap
(:func:`shedsim.kernel.core.valid_swap`; a ``forced_up`` choice is always checked) are made
for the plugins from outside ``strategies/`` only. A chunk whose entries are all shedsim's
own strategies (the generated ``is_checked(sid)`` is False for each: trusted by the
origin of the module's file in the installed package,
:func:`shedsim.plugin_meta.is_own_strategy`, never by a name) skips them; their moves and
swaps are legal by construction, which the differential tests check against
the reference engine, so the records are the same as with the checks. Where one of
them holds every seat (the copy ``play_chunk_one{i}``,
:func:`shedsim.kernel.build.kernel_source`), its moves read the kernel's ``rules`` and
``entry_params`` themselves: two arrays fewer for the loop to keep in registers. The
observation is the kernel's ``pub`` itself (a copy before each decision made a move 50-60%
slower): a plugin from outside ``strategies/`` decides through a guard generated in the
dispatch (:func:`shedsim.kernel.build.dispatch_source`) that copies the observation into
``priv`` (``P_OBS_COPY``, which no strategy sees) before the decision, compares every entry
after, and returns ``layout.OBS_WRITTEN`` on a change, which
stops the loop as an illegal move that :meth:`shedsim.kernel.build.Kernel.play` reports
as a write into the observation. Built-in strategies skip the guard.

``status`` int64[8]: on return ``status[0]`` = games completed; when a strategy fails,
``status[1]`` = error kind (1 impossible swap, 2 illegal move, 3 the rules (``status[2]`` =
1) or parameters (2) were written to, ``status[3]`` = the first flat index that differs),
``status[2]`` = seat, ``status[3]`` = what the strategy returned, ``status[4]`` = move
number. While running,
``status[0]`` is the game in progress, so an exception raised inside a strategy can be
traced to its game.
"""

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.core import (
    constants,
    deal,
    deal_given,
    deal_out,
    first_change,
    first_change_rows,
    legal_with,
    place_by_cards,
    stage_in,
    start_seat,
    step_with,
    stop_check,
    valid_swap,
    write_turn,
)
from shedsim.kernel.nb import ix
from shedsim.kernel.rng import seat_key
from shedsim.kernel._stub import OUTSIDE, choose_move, choose_swap, is_deterministic  # DISPATCH
from shedsim.kernel._stub import is_checked  # DISPATCH


# nogil: threads of one process play chunks side by side (shedsim.runs.simulate.run_calls)
@njit(cache=True, nogil=True)
def play_chunk(
    rules,
    entry_ids,
    entry_params,
    seating,
    deal_keys,
    strategy_keys,
    dealers,
    places,
    start,
    moves,
    pickups,
    burns,
    unfinished,
    ends,
    dealt,
    face_up,
    trace,
    status,
    pub,
    priv,
    streams,
    swap_from,
    forced_up,
    given_seat,
    given_visible,
    srules,
    sparams,
    decks,
):
    """Play ``len(deal_keys)`` games. ``seating[g, seat]`` is an entry index: entry ``e``
    is strategy id ``entry_ids[e]`` with parameters ``entry_params[e]`` (``int64[W]``)."""
    n_games = deal_keys.shape[0]
    trace_len = trace.shape[1]
    deck_len = decks.shape[1]
    # no forced swaps, no conditioned deals: empty arrays (not n rows of zeros to allocate)
    any_forced = forced_up.shape[0] > 0
    any_given = given_seat.shape[0] > 0
    players = rules[L.R_PLAYERS]
    max_moves = rules[L.R_MAX_MOVES]
    table = rules[L.R_TABLE_SIZE]
    stall = rules[L.R_STALL]
    check_from = L.LOOP_FROM if stall == 0 else min(L.LOOP_FROM, stall)
    rc = constants(rules)
    drng = streams[L.S_DEAL : L.S_DEAL + 1]
    srng = streams[L.S_STRATEGY : L.S_STRATEGY + 1]
    status[1] = 0
    # A plugin's moves are checked for legality and its copies of the rules and parameters
    # compared after each game; shedsim's own strategies are trusted (is_checked: by the
    # file's origin), so a chunk of them alone skips both.
    checked = False
    for e in range(entry_ids.shape[0]):
        if is_checked(entry_ids[e]):
            checked = True
    for g in range(n_games):
        status[0] = g
        drng[0] = deal_keys[g]
        srng[0] = strategy_keys[g]
        if OUTSIDE:  # each seat's own stream, for a plugin from outside strategies/
            for s in range(players):
                priv[ix(L.P_SEAT_RNG + s)] = np.int64(seat_key(strategy_keys[g], s))
        if deck_len > 0:  # a given deck order: dealt as it stands
            for i in range(deck_len):
                priv[ix(L.P_DECK + i)] = decks[g, i]
            deal_out(rules, pub, priv, dealers[g])
        elif not any_given or given_seat[g] < 0:
            deal(rules, pub, priv, drng, dealers[g])
        elif not deal_given(rules, pub, priv, drng, dealers[g], given_seat[g], given_visible[g]):
            status[1] = 1
            status[2] = given_seat[g]
            status[3] = given_visible[g]
            return g
        for s in range(players):
            visible = priv[ix(L.P_HANDS + s)] + pub[ix(L.O_FACE_UP + s)]
            dealt[g, s] = visible
            pub[L.O_SEAT] = s
            status[4] = 0
            e = swap_from[ix(seating[g, s])]
            # a forced choice and a plugin's are checked; shedsim's own swaps take their
            # face-up cards from the visible ones (valid by construction, as their moves)
            check_up = checked
            if any_forced and forced_up[g, s] != 0:
                up = forced_up[g, s]
                check_up = True
            elif e < 0:
                up = pub[L.O_FACE_UP + s]
            else:
                up = choose_swap(
                    entry_ids[ix(e)],
                    visible,
                    s,
                    players,
                    srules,
                    sparams[ix(e)],
                    srng,
                    streams,
                    priv,
                )
            if check_up and not valid_swap(visible, up, table):
                status[1] = 1
                status[2] = s
                status[3] = up
                return g
            pub[ix(L.O_FACE_UP + s)] = up
            priv[ix(L.P_HANDS + s)] = visible - up
            face_up[g, s] = up
        seat = start_seat(rules, pub, priv, drng)
        start[g] = seat
        # The turn's scalars live in local variables (registers); the observation array is
        # refreshed from them before each decision (write_turn: the ones that change every
        # move; step_with writes the stock's size, the seats in and the direction itself).
        top = np.int64(0)
        trank = np.int64(0)
        run = np.int64(0)
        pile = np.int64(0)
        pile_n = np.int64(0)
        stock_n = pub[L.O_STOCK_N]
        n_in = pub[L.O_IN]
        direction = np.int64(1)
        n_moves = np.int64(0)
        # Games that cannot end: ``quiet`` counts moves since the last burn, seat out or
        # card drawn from the stock (the first move is a reset);
        # long quiet stretches go to stop_check (the loop search, the stall rule).
        quiet = np.int64(0)
        last_progress = np.int64(1) << 40  # no position has it: the first move is a reset
        det_mask = np.int64(0)
        for s in range(players):
            if is_deterministic(entry_ids[ix(seating[g, s])]):
                det_mask |= np.int64(1) << s
        end = L.END_FINISHED
        row = seating[g]
        # The moves of a game run in the inner loop; it is left for the loop search and the
        # stall rule (a call) only once ``quiet`` reaches ``check_from``, so that ordinary
        # moves pay only for the counter and the call's register spills stay outside it.
        while True:
            checking = False
            while n_in > 0 and n_moves < max_moves:
                # ix(): unsigned indices, which numba uses without a negative-index check
                st = stage_in(pub, seat, stock_n)  # the seat to move is always still in
                hand = priv[ix(L.P_HANDS + seat)]
                write_turn(pub, seat, st, hand, top, trank, run, pile, pile_n, n_moves)
                e = row[ix(seat)]
                m = choose_move(entry_ids[ix(e)], pub, srules, sparams[ix(e)], srng, streams, priv)
                if checked and not legal_with(
                    rc, pub, m, seat, st, rules[ix(L.R_PLAYABLE + top)], hand, pile_n, stock_n
                ):
                    status[1] = 2
                    status[2] = seat
                    status[3] = m
                    status[4] = n_moves + 1
                    return g
                if n_moves < trace_len:
                    trace[g, ix(n_moves)] = m
                n_moves += 1
                seat, top, trank, run, pile, pile_n, stock_n, n_in, direction = step_with(
                    rules,
                    rc,
                    pub,
                    priv,
                    m,
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
                # burned cards only grow, seats in and the stock only shrink: this sum changes
                # exactly when one of them does (one compare per move)
                progress = pub[L.O_BURNED_N] - n_in - stock_n
                if progress != last_progress:
                    last_progress = progress
                    quiet = 0
                else:
                    quiet += 1
                    if quiet >= check_from:
                        checking = True
                        break
            if not checking:
                break
            end = stop_check(
                pub,
                priv,
                players,
                seat,
                top,
                trank,
                run,
                pile,
                direction,
                np.int64(srng[0]),
                quiet,
                stall,
                det_mask,
                L.LOOP_FROM,
            )
            if end != L.END_FINISHED:
                break
        if n_in > 0:
            if end == L.END_FINISHED:
                end = L.END_CAP
            if rules[L.R_STALEMATE] == L.STALEMATE_MOST_CARDS:
                place_by_cards(pub, seat, direction, players, n_in)
        pub[L.O_MOVES] = n_moves
        pub[L.O_IN] = n_in
        moves[g] = pub[L.O_MOVES]
        unfinished[g] = end != L.END_FINISHED
        ends[g] = end
        for s in range(players):
            places[g, s] = pub[L.O_PLACE + s]
            pickups[g, s] = pub[L.O_PICKUPS + s]
            burns[g, s] = pub[L.O_BURNS + s]
        # strategies decide on copies of the rules and parameters (srules, sparams): one
        # that wrote into them is stopped here, before its game counts
        if not checked:
            continue
        changed = first_change(rules, srules)
        which = 1
        if changed < 0:
            changed = first_change_rows(entry_params, sparams)
            which = 2
        if changed >= 0:
            status[1] = 3
            status[2] = which
            status[3] = changed
            status[4] = n_moves
            return g
    status[0] = n_games
    return n_games
