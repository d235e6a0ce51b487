"""The game's position, as the reference engine (:mod:`shedsim.rules.engine`) keeps it:
a move (:class:`Move`, with its code and text), a seat's cards (:class:`Seat`), the whole
position (:class:`GameState`) and the mover's observation (:func:`public_array`,
docs/reference/rules.md#observation). The engine's conventions (cards as ranks, the pile
bottom first, the stock top first) are in :mod:`shedsim.rules.engine`'s docstring.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from shedsim import layout as L
from shedsim.rules.cards import format_cards, pack, pack_counts, parse_rank, rank_name, CardError
from shedsim.rules.ruleset import RuleSet


class IllegalMoveError(ValueError):
    """A move that is not in the legal set of the position."""


class MoveSyntaxError(ValueError):
    """A move string that cannot be read."""


# --------------------------------------------------------------------------- moves
@dataclass(frozen=True, order=True)
class Move:
    """One move. ``kind`` is ``"play"``, ``"flip"``, ``"pickup"`` or ``"gamble"``.

    ``play``: ``count`` cards of ``rank`` from the current stage, plus ``extra`` face-up cards
    of that rank with the last hand card (``mix_last_hand``). ``flip``: ``slot`` is 0-based
    (written 1-based). :attr:`code` is the kernel's integer encoding (:mod:`shedsim.layout`).
    """

    kind: str
    rank: int = 0
    count: int = 0
    extra: int = 0
    slot: int = 0

    @property
    def code(self) -> int:
        """The ``int64`` move code the kernel and compiled strategies use."""
        if self.kind == "pickup":
            return L.PICKUP
        if self.kind == "gamble":
            return L.GAMBLE
        if self.kind == "flip":
            return L.FLIP + self.slot
        return (self.rank << 8) | (self.count << 4) | self.extra

    @staticmethod
    def from_code(code: int) -> Move:
        """Decode a move code. Raises :class:`MoveSyntaxError` for codes that mean nothing."""
        code = int(code)
        if code == L.PICKUP:
            return Move("pickup")
        if code == L.GAMBLE:
            return Move("gamble")
        if L.FLIP <= code < L.FLIP + L.MAX_TABLE:
            return Move("flip", slot=code - L.FLIP)
        rank, count, extra = code >> 8, (code >> 4) & 0xF, code & 0xF
        if code >= L.PLAY_MIN and 2 <= rank <= 14 and count >= 1:
            return Move("play", rank, count, extra)
        raise MoveSyntaxError(f"move code {code} means no move")

    @staticmethod
    def parse(text: str) -> Move:
        """Read ``play Rxk``, ``play Rxk+j``, ``flip s`` (1-based), ``pickup`` or ``gamble``."""
        if not isinstance(text, str):
            raise MoveSyntaxError(f"unknown move {text!r}: moves are strings")
        words = text.strip().lower().split()
        if words == ["pickup"] or words == ["pick", "up"]:
            return Move("pickup")
        if words == ["gamble"]:
            return Move("gamble")
        if len(words) == 2 and words[0] == "flip" and words[1].isdigit() and int(words[1]) >= 1:
            return Move("flip", slot=int(words[1]) - 1)
        if len(words) == 2 and words[0] == "play" and "x" in words[1]:
            rank_text, _, rest = words[1].partition("x")
            count_text, _, extra_text = rest.partition("+")
            try:
                rank = parse_rank(rank_text)
            except CardError:
                raise MoveSyntaxError(
                    f"unknown move {text!r}: unknown rank {rank_text!r}"
                ) from None
            if (
                count_text.isdigit()
                and int(count_text) >= 1
                and (extra_text == "" or (extra_text.isdigit() and int(extra_text) >= 1))
            ):
                return Move("play", rank, int(count_text), int(extra_text or 0))
        raise MoveSyntaxError(
            f"unknown move {text!r}: write 'play Rxk', 'play Rxk+j', 'flip s', 'pickup' or 'gamble'"
        )

    def __str__(self) -> str:
        if self.kind == "play":
            extra = f"+{self.extra}" if self.extra else ""
            return f"play {rank_name(self.rank)}x{self.count}{extra}"
        if self.kind == "flip":
            return f"flip {self.slot + 1}"
        return self.kind


# --------------------------------------------------------------------------- state
@dataclass
class Seat:
    """One seat's cards. ``hand`` and ``face_up`` are multisets kept sorted."""

    hand: list[int] = field(default_factory=list)
    face_up: list[int] = field(default_factory=list)
    face_down: list[int] = field(default_factory=list)
    out: bool = False
    known: Counter = field(default_factory=Counter)  # hand cards everyone saw picked up
    pickups: int = 0
    burns: int = 0
    void: int = 0  # packed rank mask: ranks the hand's unknown cards hold none of (O_VOID)

    def holds_cards(self) -> bool:
        return bool(self.hand or self.face_up or self.face_down)


@dataclass
class GameState:
    """A whole position: the seats, pile, stock, burned cards and whose move it is."""

    rules: RuleSet
    seats: list[Seat]
    pile: list[int] = field(default_factory=list)
    stock: list[int] = field(default_factory=list)
    burned: int = 0
    burned_cards: Counter = field(default_factory=Counter)
    burned_order: list[int] = field(
        default_factory=list
    )  # every burned card, in the order they burned
    dealer: int = 0
    to_move: int = 0
    direction: int = 1
    places: list[int] = field(default_factory=list)
    moves: int = 0
    finished: bool = False
    unfinished: bool = False
    start_seat: int = 0
    end: str = ""  # "" while playing, then a name in layout.END_NAMES
    deterministic: list[bool] = field(default_factory=list)  # per seat; the loop check needs all in
    stream: np.ndarray | None = None  # the strategy stream (uint64[1]), part of the position
    quiet: int = 0  # moves since a burn, a seat out or a draw from the stock
    loop_power: int = 1  # Brent's search: the saved position's age limit
    loop_lam: int = 0
    loop_on: bool = False
    loop_saved: tuple | None = None
    progress_mark: tuple | None = None  # (cards burned, seats out, stock size) at the last reset

    @property
    def players(self) -> int:
        return len(self.seats)

    def copy(self) -> GameState:
        return copy.deepcopy(self)

    # ----------------------------------------------------------- derived views
    def effective_top(self) -> int:
        """The topmost pile card that is not invisible; 0 if none
        (docs/reference/rules.md#effective-top)."""
        for card in reversed(self.pile):
            if card not in self.rules.invisible:
                return card
        return 0

    def stage(self, seat: int | None = None) -> int:
        """``layout.STAGE_*`` of ``seat`` (default: the seat to move)."""
        s = self.seats[self.to_move if seat is None else seat]
        if s.out:
            return L.STAGE_OUT
        if s.hand or self.stock:
            return L.STAGE_HAND
        if s.face_up:
            return L.STAGE_FACE_UP
        return L.STAGE_FACE_DOWN

    def in_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if not s.out]

    def place_of(self, seat: int) -> int:
        return self.places.index(seat) + 1 if seat in self.places else 0

    def top_run(self) -> tuple[int, int]:
        """(rank of the physical top card, how many of it lie on top in a row); (0, 0) if empty."""
        if not self.pile:
            return 0, 0
        top = self.pile[-1]
        run = 0
        for card in reversed(self.pile):
            if card != top:
                break
            run += 1
        return top, run

    def card_total(self) -> int:
        """Cards in play, burned included (the conservation checks use it)."""
        return (
            len(self.pile)
            + len(self.stock)
            + self.burned
            + sum(len(s.hand) + len(s.face_up) + len(s.face_down) for s in self.seats)
        )

    def describe(self) -> str:
        """A readable multi-line picture of the position."""
        lines = [
            "rules "
            f"{self.rules.name}{' + ' + ', '.join(self.rules.house) if self.rules.house else ''}"
            f"; {self.players} seats; dealer {self.dealer}; seat {self.to_move} to move"
            f"; direction {'clockwise' if self.direction == 1 else 'reversed'}; {self.moves} "
            f"move{'' if self.moves == 1 else 's'} made",
            f"pile (bottom->top): {format_cards(self.pile)}  [effective top: "
            f"{rank_name(self.effective_top())}]",
            f"stock: {len(self.stock)} cards ({format_cards(self.stock)}); burned: {self.burned}",
        ]
        for i, s in enumerate(self.seats):
            status = (
                f" OUT (place {self.place_of(i)})"
                if s.out
                else f" placed {self.place_of(i)} (game stopped)"
                if self.place_of(i)
                else ""
            )
            lines.append(
                f"seat {i}: hand [{format_cards(s.hand)}] face-up [{format_cards(s.face_up)}]"
                f" face-down [{format_cards(s.face_down)}]{status}"
            )
        return "\n".join(lines)


# --------------------------------------------------------------------------- observation
def public_array(state: GameState) -> np.ndarray:
    """The ``int64[layout.O_SIZE]`` observation of the seat to move
    (docs/reference/rules.md#observation).

    Holds only public information and the mover's own hand: never another hand, a
    face-down card or the stock order.
    """
    o = [0] * L.O_SIZE  # filled as a list, then one array: item by item into numpy costs more
    s = state.to_move
    o[L.O_SEAT] = s
    o[L.O_PLAYERS] = state.players
    o[L.O_STAGE] = state.stage()
    o[L.O_HAND] = pack(state.seats[s].hand)
    o[L.O_TOP] = state.effective_top()
    o[L.O_TOP_RANK], o[L.O_RUN] = state.top_run()
    o[L.O_PILE] = pack(state.pile)
    o[L.O_PILE_N] = len(state.pile)
    o[L.O_BURNED] = pack_counts(state.burned_cards)
    o[L.O_BURNED_N] = state.burned
    o[L.O_STOCK_N] = len(state.stock)
    o[L.O_DIRECTION] = state.direction
    o[L.O_IN] = len(state.in_seats())
    o[L.O_MOVES] = state.moves
    o[L.O_DEALER] = state.dealer
    for i, seat in enumerate(state.seats):
        o[L.O_FACE_UP + i] = pack(seat.face_up)
        o[L.O_HAND_N + i] = len(seat.hand)
        o[L.O_FACE_DOWN_N + i] = len(seat.face_down)
        o[L.O_PLACE + i] = state.place_of(i)
        o[L.O_KNOWN + i] = pack_counts(seat.known)
        o[L.O_PICKUPS + i] = seat.pickups
        o[L.O_BURNS + i] = seat.burns
        o[L.O_VOID + i] = seat.void
    return np.array(o, dtype=np.int64)
