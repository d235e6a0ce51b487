"""The rules of play on the reference engine's state (:mod:`shedsim.rules.state`): the legal
moves of the seat to move (:func:`legal_moves`), a move applied (:func:`apply_move`: landing,
burning, picking up, the turn passing, a seat going out), the position key of the repetition
check (:func:`position_key`) and the stop of a stalled or looping game (:func:`place_stopped`).
:mod:`shedsim.rules.engine` deals, plays whole games and re-exports every name here.
"""

from __future__ import annotations

from collections import Counter


from shedsim import layout as L
from shedsim.rules.cards import RANKS, format_cards, pack, pack_counts, rank_mask, rank_name
from shedsim.rules.state import GameState, IllegalMoveError, Move


def _plays(state: GameState, cards: list[int], from_hand: bool) -> list[Move]:
    rules, top = state.rules, state.effective_top()
    seat = state.seats[state.to_move]
    moves = []
    counts = Counter(cards)
    for rank in sorted(counts):
        if not rules.can_play(top, rank):
            continue
        for k in range(1, counts[rank] + 1):
            moves.append(Move("play", rank, k))
        # mix_last_hand: with the whole hand (one rank), add face-up cards of that rank.
        if from_hand and rules.mix_last_hand and not state.stock and len(cards) == counts[rank]:
            extra = seat.face_up.count(rank)
            for j in range(1, extra + 1):
                moves.append(Move("play", rank, counts[rank], j))
    return moves


def legal_moves(state: GameState) -> list[Move]:
    """Every legal move of the seat to move, in a fixed order (plays by rank and count,
    flips by slot, then pick-up, then gamble). Empty once the game is over."""
    if state.finished or state.unfinished:
        return []
    seat = state.seats[state.to_move]
    rules = state.rules
    stage = state.stage()
    if stage == L.STAGE_HAND:
        moves = _plays(state, seat.hand, True)
        voluntary = rules.pickup in ("hand", "hand+faceup", "always")
    elif stage == L.STAGE_FACE_UP:
        moves = _plays(state, seat.face_up, False)
        voluntary = rules.pickup in ("hand+faceup", "always")
    elif stage == L.STAGE_FACE_DOWN:
        moves = [Move("flip", slot=i) for i in range(len(seat.face_down))]
        voluntary = rules.pickup == "always"
    else:
        return []
    has_play = bool(moves)
    if state.pile and (voluntary or not has_play):
        moves.append(Move("pickup"))
    if rules.deck_gamble and state.stock:
        moves.append(Move("gamble"))
    return moves


def _advance(state: GameState, seat: int, steps: int) -> int:
    """The seat ``steps`` turns after ``seat`` in the current direction, counting only
    seats still in (``seat`` itself counts if it is still in:
    docs/reference/rules.md#ruling-skip8)."""
    pos = seat
    n = state.players
    for _ in range(steps):
        pos = (pos + state.direction) % n
        while state.seats[pos].out:
            pos = (pos + state.direction) % n
    return pos


def _pick_up(state: GameState, seat_index: int, extra_card: int | None) -> None:
    """The pile (and a failed flip's or gamble's card) goes to the hand; the turn passes."""
    seat = state.seats[seat_index]
    taken = list(state.pile) + ([] if extra_card is None else [extra_card])
    seat.hand = sorted(seat.hand + taken)
    seat.known.update(taken)
    seat.pickups += 1
    state.pile = []
    state.to_move = _advance(state, seat_index, 1)


def _finish_if_over(state: GameState) -> None:
    in_seats = state.in_seats()
    if len(in_seats) == 1:
        last = in_seats[0]
        state.seats[last].out = True
        state.places.append(last)
        state.finished = True


def _land(state: GameState, seat_index: int, rank: int, n: int, from_hand: int) -> list[str]:
    """Cards have landed on the pile: burn, refill, out, next player
    (docs/reference/rules.md#landing)."""
    rules = state.rules
    seat = state.seats[seat_index]
    notes = []
    if from_hand:
        seat.known[rank] = max(0, seat.known[rank] - from_hand)
        if seat.known[rank] == 0:
            del seat.known[rank]
    state.pile.extend([rank] * n)
    # 1. burn check: a burn rank, or the top burn_run physical cards share one rank.
    top, run = state.top_run()
    burned_now = rank in rules.burn or run >= rules.burn_run
    if burned_now:
        state.burned += len(state.pile)
        state.burned_cards.update(state.pile)
        state.burned_order.extend(state.pile)
        notes.append(f"burns {len(state.pile)} cards")
        state.pile = []
        seat.burns += 1
    # 2. refill while the stock lasts.
    drawn = []
    while state.stock and len(seat.hand) + len(drawn) < rules.hand_size:
        drawn.append(state.stock.pop(0))
    if drawn:
        seat.hand = sorted(seat.hand + drawn)
        notes.append(f"draws {len(drawn)}")
    # 3. out check (never out while the stock has cards:
    # docs/reference/rules.md#ruling-refill-before-out).
    if not seat.holds_cards():
        seat.out = True
        state.places.append(seat_index)
        notes.append(f"is out (place {len(state.places)})")
    # direction: each reverse card turns it, even on a burn or a last card
    # (docs/reference/rules.md#ruling-reverse).
    if rank in rules.reverse and n % 2 == 1:
        state.direction = -state.direction
        notes.append("reverses")
    _finish_if_over(state)
    if state.finished:
        return notes
    # 4. next player (docs/reference/rules.md#turn-order).
    if burned_now:
        if rules.burn_passes or seat.out:
            state.to_move = _advance(state, seat_index, 1)
        else:
            state.to_move = seat_index
    else:
        skips = n if rank in rules.skip else 0
        if skips:
            notes.append(f"skips {skips}")
        state.to_move = _advance(state, seat_index, 1 + skips)
    return notes


def apply_move(state: GameState, move: Move, legal: list[Move] | None = None) -> str:
    """Apply a legal move in place and return a readable description of what happened.

    ``legal``: :func:`legal_moves` of ``state`` when the caller already has them (saves
    computing them again). Raises :class:`IllegalMoveError` if ``move`` is not in them.
    """
    if legal is None:
        legal = legal_moves(state)
    if move not in legal:
        raise IllegalMoveError(
            f"{move} is not legal for seat {state.to_move}; legal: "
            f"{', '.join(map(str, legal)) or 'none'}"
        )
    s = state.to_move
    seat = state.seats[s]
    rules = state.rules
    state.moves += 1
    text = f"seat {s}: {move}"
    if move.kind == "pickup":
        text += f" (takes {len(state.pile)}: {format_cards(state.pile)})"
        if state.stage() == L.STAGE_HAND and not state.stock and rules.pickup == "never":
            # forced with the stock empty: the hand held nothing that beats the pile, and no
            # unseen card enters it any more (docs/reference/rules.md#observation)
            top = state.effective_top()
            seat.void |= rank_mask(r for r in RANKS if rules.can_play(top, r))
        _pick_up(state, s, None)
        notes: list[str] = []
    elif move.kind in ("gamble", "flip"):
        if move.kind == "gamble":
            card = state.stock.pop(0)
        else:
            card = seat.face_down.pop(move.slot)
        text += f" turns {rank_name(card)}"
        if rules.can_play(state.effective_top(), card):
            notes = _land(state, s, card, 1, 0)
        else:
            text += f", not playable: takes it with the pile ({len(state.pile)} cards)"
            _pick_up(state, s, card)
            notes = []
    else:
        stage = state.stage()
        source = seat.hand if stage == L.STAGE_HAND else seat.face_up
        for _ in range(move.count):
            source.remove(move.rank)
        for _ in range(move.extra):
            seat.face_up.remove(move.rank)
        notes = _land(
            state, s, move.rank, move.count + move.extra, move.count if stage == L.STAGE_HAND else 0
        )
    if notes:
        text += ": " + ", ".join(notes)
    if state.finished:
        state.end = "finished"
    else:
        text += _check_stop(state)
    return text


def position_key(state: GameState) -> tuple:
    """What the loop check compares (the kernel's ``save_position``): the pile (as rank
    counts, its effective top, physical top rank and run), the seat to move, the direction,
    every seat's hand, face-up row, face-down count and publicly known hand cards, and the
    strategy stream. With no burn, nobody out and no draw since the last reset, that is
    everything the rules and a deterministic strategy's observation depend on
    (move, pick-up and burn counters apart)."""
    trank, run = state.top_run()
    seats = tuple(
        (pack(s.hand), pack(s.face_up), len(s.face_down), pack_counts(s.known)) for s in state.seats
    )
    stream = 0 if state.stream is None else int(state.stream[0])
    return (
        pack(state.pile),
        state.to_move,
        state.effective_top(),
        trank,
        run,
        state.direction,
        seats,
        stream,
    )


def _check_stop(state: GameState) -> str:
    """After a move that did not finish the game: the loop check, the no-progress rule and
    the move cap, in that order (module docstring). Returns text for the trace."""
    rules = state.rules
    end = ""
    mark = (state.burned, len(state.places), len(state.stock))
    if mark != state.progress_mark:
        state.progress_mark = mark
        state.quiet = 0
    else:
        state.quiet += 1
        if state.quiet > L.LOOP_FROM:
            key = position_key(state) if state.loop_on else None
            if state.loop_on and key == state.loop_saved:
                end = "loop"
            else:
                state.loop_lam += 1
                if state.loop_lam == state.loop_power:
                    state.loop_saved = key
                    state.loop_power *= 2
                    state.loop_lam = 0
        elif state.quiet == L.LOOP_FROM:  # a long quiet stretch: start the cycle search
            state.loop_on = bool(state.deterministic) and all(
                state.deterministic[i] for i in state.in_seats()
            )
            state.loop_saved = position_key(state) if state.loop_on else None
            state.loop_power, state.loop_lam = 1, 0
        if not end and state.quiet == rules.stall_moves(state.players):
            end = "stalled"
    if not end and state.moves >= rules.max_moves:
        end = "cap"
    if not end:
        return ""
    state.unfinished = True
    state.end = end
    if rules.stalemate == "most_cards":
        place_stopped(state)
    why = {
        "loop": "proven loop: the position repeats and every seat still in is deterministic",
        "stalled": f"stalled: {rules.stall_moves(state.players)} moves without a burn, anyone "
        "going out "
        f"or a draw",
        "cap": f"move cap {rules.max_moves} reached",
    }[end]
    return f"; {why}: game unfinished"


def place_stopped(state: GameState) -> None:
    """``stalemate:most_cards``: the seats still in take the remaining places by cards held
    (hand + face-up + face-down), fewest first, so the seat holding most is last (the
    loser); ties go in turn order from the seat to move (who would have played sooner
    gets the better place). Appends them to ``state.places``."""
    order = []
    pos = state.to_move
    for _ in range(len(state.in_seats())):
        order.append(pos)
        pos = _advance(state, pos, 1)
    held = {
        i: len(state.seats[i].hand) + len(state.seats[i].face_up) + len(state.seats[i].face_down)
        for i in order
    }
    state.places.extend(sorted(order, key=lambda i: held[i]))  # stable: ties keep turn order
