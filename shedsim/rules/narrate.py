"""Moves and games told in words a player can follow (``shedsim trace`` and ``shedsim play``).

Everything here reads positions of the reference engine (:mod:`shedsim.rules.engine`) and
changes none. A move is told from the position before it and the position after it:
which stage the cards came from (hand, face-up row, face-down card), what landed, whether
the pile burned and why (a burn rank, or the fourth of a rank on top:
docs/reference/rules.md#burns),
why players were skipped or the direction turned, what was drawn from the stock, who went
out, and the pile's top cards and size afterwards.

``viewer``: ``None`` tells everything (a trace of a finished game); a seat number tells only
what that seat may see (docs/reference/rules.md#observation: its own hand, never another hand, a
face-down
card before it is turned or the stock), as ``shedsim play`` shows the game to its player.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from shedsim import layout as L
from shedsim.rules.cards import format_cards, rank_name, unpack
from shedsim.rules.engine import GameState, Move, apply_move, deal, legal_moves

STAGE_WORDS = {
    L.STAGE_HAND: "hand",
    L.STAGE_FACE_UP: "face-up",
    L.STAGE_FACE_DOWN: "face-down",
    L.STAGE_OUT: "out",
}
"""The stage names used in traces (``layout.STAGE_*``)."""

_COUNT_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def _count(n: int) -> str:
    return _COUNT_WORDS[n] if 0 <= n < len(_COUNT_WORDS) else str(n)


def _plural(name: str, n: int) -> str:
    return name if n == 1 else name + "s"


def cards_text(cards: Sequence[int]) -> str:
    """Ranks written out (``"7 7 K"``), or ``"none"``."""
    return format_cards(list(cards)) if cards else "none"


def pile_text(state: GameState, top: int = 4) -> str:
    """The pile's top ``top`` physical cards (top last) and its size, plus the effective top
    when invisible cards lie over it: ``"pile 5 9 9 [top 5] (7 cards)"``, ``"pile empty"``."""
    if not state.pile:
        return "pile empty"
    shown = state.pile[-top:]
    more = "... " if len(state.pile) > top else ""
    eff = state.effective_top()
    see = f" [counts as {rank_name(eff)}]" if state.pile[-1] in state.rules.invisible else ""
    return (
        f"pile {more}{format_cards(shown)}{see} ({len(state.pile)} "
        f"{_plural('card', len(state.pile))})"
    )


def seat_name(seat: int, names: Sequence[str] | None) -> str:
    """``"seat 2 (greedy)"`` (or ``"seat 2"`` without names)."""
    return f"seat {seat} ({names[seat]})" if names else f"seat {seat}"


def _role(state: GameState, rank: int, n: int) -> str:
    """Why a landed card that did not burn matters, in words ("" for an ordinary card)."""
    rules = state.rules
    name = rank_name(rank)
    if rank in rules.reset:
        return f"{name} resets the pile: anything goes on it"
    if rank in rules.invisible:
        eff = state.effective_top()
        return (
            f"{name} is invisible: the next card must still go on the {rank_name(eff)} beneath"
            if eff
            else f"{name} is invisible: the pile counts as empty"
        )
    if rank in rules.low:
        return f"{name} is low: the next card must be a {name} or lower (or a magic card)"
    return ""


def _walk(state: GameState, seat: int, steps: int) -> list[int]:
    """The seats met walking ``steps`` turns from ``seat`` in ``state``'s direction, counting
    only seats still in (the engine's turn order, docs/reference/rules.md#turn-order)."""
    out, pos, n = [], seat, state.players
    for _ in range(steps):
        pos = (pos + state.direction) % n
        while state.seats[pos].out and pos != seat:
            pos = (pos + state.direction) % n
        out.append(pos)
    return out


def tell_move(
    before: GameState,
    move: Move,
    after: GameState,
    names: Sequence[str] | None = None,
    viewer: int | None = None,
) -> str:
    """One move in words, from the position ``before`` it and the position ``after`` it.

    ``viewer`` None: everything (drawn cards included); else only what seat ``viewer``
    sees (cards another seat draws are counted, not named). Raises nothing for legal moves.
    """
    rules = before.rules
    s = before.to_move
    stage = before.stage(s)
    who = seat_name(s, names)
    parts: list[str] = []
    landed = 0
    if move.kind == "pickup":
        parts.append(
            f"{who} [{STAGE_WORDS[stage]}] picks up the pile ({len(before.pile)} "
            f"{_plural('card', len(before.pile))}: {cards_text(before.pile)})"
        )
    elif move.kind in ("flip", "gamble"):
        if move.kind == "flip":
            card = before.seats[s].face_down[move.slot]
            head = (
                f"{who} [face-down] flips card {move.slot + 1} of "
                f"{len(before.seats[s].face_down)}: {rank_name(card)}"
            )
        else:
            card = before.stock[0]
            head = (
                f"{who} [{STAGE_WORDS[stage]}] gambles on the stock's top card: {rank_name(card)}"
            )
        if rules.can_play(before.effective_top(), card):
            parts.append(head)
            landed = card
        else:
            parts.append(
                f"{head}, which cannot go on the {rank_name(before.effective_top())}: "
                f"picks it up with the pile ({len(before.pile) + 1} cards)"
            )
    else:
        n = move.count + move.extra
        src = "hand" if stage == L.STAGE_HAND else "face-up row"
        text = (
            f"{who} [{STAGE_WORDS[stage]}] plays {format_cards([move.rank] * move.count)} from "
            f"the {src}"
        )
        if move.extra:
            text += f" and {format_cards([move.rank] * move.extra)} from the face-up row"
        parts.append(text)
        landed = move.rank
    if landed:
        n = 1 if move.kind in ("flip", "gamble") else move.count + move.extra
        burned = after.burned - before.burned
        if burned:
            top, run = before.top_run()
            if landed in rules.burn:
                why = f"{rank_name(landed)} is a burn card"
            else:
                total = (run if top == landed else 0) + n
                why = f"{_count(total)} {_plural(rank_name(landed), total)} in a row on top"
            again = (
                after.to_move == s
                and not after.seats[s].out
                and not (after.finished or after.unfinished)
            )
            parts.append(
                f"the pile burns ({burned} {_plural('card', burned)}: {why})"
                + ("; moves again" if again else "")
            )
        else:
            role = _role(after, landed, n)
            if role:
                parts.append(role)
        drawn = len(before.stock) - len(after.stock) - (1 if move.kind == "gamble" else 0)
        if drawn > 0:
            first = 1 if move.kind == "gamble" else 0
            got = before.stock[first : first + drawn]
            show = viewer is None or viewer == s
            parts.append(f"draws {drawn}" + (f" ({cards_text(sorted(got))})" if show else ""))
            if not after.stock:
                parts.append("the stock is now empty")
        if after.seats[s].out and not before.seats[s].out:
            parts.append(f"goes out: place {after.place_of(s)}")
        if landed in rules.reverse and n % 2 == 1 and after.direction != before.direction:
            parts.append(f"{rank_name(landed)} reverses the direction")
        if not burned and landed in rules.skip and not after.finished:
            skipped = _walk(after, s, n)
            parts.append(
                f"{rank_name(landed)} skips {n} {_plural('turn', n)}: "
                + ", ".join(f"seat {x}" for x in skipped)
                + " miss"
                + ("es" if n == 1 else "")
                + " a turn"
            )
    for i, seat in enumerate(after.seats):
        if i != s and seat.out and not before.seats[i].out:
            parts.append(f"seat {i} is the last left holding cards: place {after.place_of(i)}")
    text = "; ".join(parts)
    if not (after.finished and not after.pile):
        text += f"  | {pile_text(after)}" + (f", stock {len(after.stock)}" if after.stock else "")
    if after.unfinished:
        text += "; " + stop_reason(after)
    return text


def stop_reason(state: GameState) -> str:
    """Why an unfinished game was stopped, in words ("" while it goes on or finished)."""
    rules = state.rules
    return {
        "loop": "game stopped: a proven loop (the position repeats and every seat still in "
        "plays a deterministic strategy)",
        "stalled": f"game stopped: {rules.stall_moves(state.players)} moves without a burn, anyone "
        f"going out or a draw (stall rule)",
        "cap": f"game stopped: move cap {rules.max_moves} reached",
    }.get(state.end, "")


def tell_swap(
    dealt_visible: Sequence[int],
    chosen: Sequence[int],
    face_down: Sequence[int],
    seat: int,
    names: Sequence[str] | None = None,
    hide_face_down: bool = False,
) -> str:
    """The swap phase of one seat: what it was dealt (hand + face-up), what it put face up.

    ``dealt_visible``: the dealt hand and face-up cards (ranks); ``chosen``: the face-up
    row it chose; ``face_down``: its face-down cards (shown unless ``hide_face_down``).
    """
    dealt, up = Counter(dealt_visible), Counter(chosen)
    hand = sorted((dealt - up).elements())
    down = "" if hide_face_down else f"; face-down {cards_text(sorted(face_down))}"
    return (
        f"{seat_name(seat, names)}: face-up {cards_text(sorted(chosen))}, hand "
        f"{cards_text(hand)}{down}"
    )


def swap_changes(dealt_face_up: Sequence[int], chosen: Sequence[int]) -> str:
    """What a swap moved: ``"keeps the cards as dealt"`` or ``"puts K A face up, takes 3 4 into the
    hand"``."""
    before, after = Counter(dealt_face_up), Counter(chosen)
    up, down = sorted((after - before).elements()), sorted((before - after).elements())
    if not up:
        return "keeps the cards as dealt"
    return f"puts {cards_text(up)} face up, takes {cards_text(down)} into the hand"


def table_text(
    state: GameState, viewer: int | None = None, names: Sequence[str] | None = None
) -> list[str]:
    """The table as lines: every seat's face-up row, hand size and face-down count (the
    ``viewer``'s own hand named; with ``viewer`` None every hand and face-down card), the
    pile, the stock and the burned count."""
    lines = []
    for i, s in enumerate(state.seats):
        mark = (
            " <- to move" if i == state.to_move and not (state.finished or state.unfinished) else ""
        )
        if s.out or state.place_of(i):
            lines.append(f"  {seat_name(i, names)}: out, place {state.place_of(i)}")
            continue
        if viewer is None or viewer == i:
            hand = f"hand {cards_text(s.hand)}"
        else:
            known = sorted(s.known.elements())
            hand = f"hand {len(s.hand)} {_plural('card', len(s.hand))}" + (
                f" (known: {cards_text(known)})" if known else ""
            )
        down = (
            f"face-down {cards_text(s.face_down)}"
            if viewer is None
            else f"face-down {len(s.face_down)}"
        )
        lines.append(
            f"  {seat_name(i, names)}: {hand}; face-up {cards_text(s.face_up)}; {down}{mark}"
        )
    lines.append(
        f"  {pile_text(state)}; stock {len(state.stock)}; burned {state.burned}"
        + ("" if state.direction == 1 else "; direction reversed")
    )
    return lines


def narrate_game(
    rules,
    deal_key: int,
    dealer: int,
    face_up: Sequence[int],
    start_seat: int,
    move_codes: Sequence[int],
    names: Sequence[str],
    deterministic: Sequence[bool] = (),
    deck: Sequence[int] | None = None,
) -> tuple[list[str], GameState]:
    """The whole game in words, rebuilt from its record: the deal (``deal_key``, ``dealer``;
    ``deck``: a given deal, :func:`shedsim.rules.engine.deal`),
    each seat's chosen face-up row (packed, ``int64`` per seat), the starting seat and the
    move codes (``layout`` encoding). Returns (lines, final position).

    Raises :class:`shedsim.rules.engine.IllegalMoveError` if a code is not legal where it
    is replayed (a record that does not belong to this deal).
    """
    state, _ = deal(rules, len(names), deal_key, dealer, deck)
    lines = [f"deal: dealer seat {dealer}; the stock holds {len(state.stock)} cards"]
    for i, s in enumerate(state.seats):
        chosen = unpack(int(face_up[i]))
        lines.append(
            f"  swap {seat_name(i, names)}: dealt hand {cards_text(s.hand)}, face-up "
            f"{cards_text(s.face_up)}; {swap_changes(s.face_up, chosen)}"
        )
        rest = Counter(s.hand + s.face_up) - Counter(chosen)
        s.face_up = sorted(chosen)
        s.hand = sorted(rest.elements())
    state.start_seat = state.to_move = start_seat
    state.deterministic = list(deterministic) or [False] * len(names)
    lines.append("after the swap:")
    lines.extend(table_text(state, None, names))
    lines.append(f"{seat_name(start_seat, names)} starts")
    for code in move_codes:
        move = Move.from_code(int(code))
        before = state.copy()
        apply_move(state, move)
        lines.append(f"{state.moves:4d}. {tell_move(before, move, state, names)}")
    return lines, state


def legal_text(state: GameState) -> list[str]:
    """The legal moves of the seat to move in scenario notation (``play 7x1``, ``pickup``,
    ``flip 2``, ``gamble``), in :func:`shedsim.rules.engine.legal_moves` order."""
    return [str(m) for m in legal_moves(state)]
