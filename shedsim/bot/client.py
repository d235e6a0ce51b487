"""Writing a bot in Python: a :class:`Bot` with ``swap(state)`` and ``move(state, legal)``, a
readable :class:`State`, and :func:`run`, the loop that speaks the protocol on standard
input and output (docs/reference/bots.md). Standard library only, so a bot starts fast::

    from shedsim.bot import Bot, run

    class First(Bot):
        name = "first"

        def move(self, state, legal):
            return legal[0]

    if __name__ == "__main__":
        raise SystemExit(run(First()))

and ``shedsim tournament --bot first='python first.py' --strategies greedy`` measures it.
:mod:`shedsim.bot.example` is a whole bot (it plays as the built-in ``greedy`` does).
"""

from __future__ import annotations

import json
import sys
from functools import cached_property
from typing import Any, BinaryIO

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
"""The protocol's ranks, low to high."""
VALUE = {r: i + 2 for i, r in enumerate(RANKS)}
"""A rank's value: ``"2"`` is 2, ``"10"`` 10, ``"J"`` 11, ..., ``"A"`` 14."""
RANK_SETS = ("reset", "burn", "invisible", "magic", "low", "under", "skip", "reverse")
"""The rules' settings that are sets of ranks; a rank in none of them is ordinary."""
PROTOCOL = 1


class SeatState:
    """What every seat sees of one seat: ``hand`` (a count), ``known`` (its hand cards every
    seat has seen it take and not play since), ``face_up`` (ranks), ``face_down`` (a
    count), ``place`` (None while it is in)."""

    __slots__ = ("hand", "known", "face_up", "face_down", "place")

    def __init__(self, d: dict[str, Any]) -> None:
        self.hand: int = d["hand"]
        self.known: list[str] = d["known"]
        self.face_up: list[str] = d["face_up"]
        self.face_down: int = d["face_down"]
        self.place = d["place"]

    def __repr__(self) -> str:
        return (
            f"SeatState(hand={self.hand}, known={self.known}, face_up={self.face_up}, "
            f"face_down={self.face_down}, place={self.place})"
        )


class State:
    """The position as one seat sees it (a ``swap`` or ``move`` message's ``state``, with
    the message's ``seat`` and ``clock`` and the game's ``players`` and ``rules``).

    ``to_move`` and ``stage`` (``"hand"``, ``"face_up"``, ``"face_down"``) are None during
    the swap; ``hand``, ``pile`` (bottom first), ``burned`` (in the order they burned) and
    every ``face_up`` are lists of rank strings; ``top`` is the rank the next play must
    follow, None when anything may be played; ``stock`` and ``moves`` are counts,
    ``direction`` 1 or -1, ``seats`` one :class:`SeatState` per seat. ``message`` is the
    whole message as it came."""

    def __init__(self, message: dict[str, Any], game: dict[str, Any] | None = None) -> None:
        s = message["state"]
        self.message = message
        self.seat: int = message["seat"]
        self.clock: dict[str, Any] | None = message.get("clock")
        self.players: int | None = (game or {}).get("players")
        self.rules: dict[str, Any] = (game or {}).get("rules") or {}
        self.to_move: int | None = s["to_move"]
        self.stage: str | None = s["stage"]
        self.hand: list[str] = s["hand"]
        self.pile: list[str] = s["pile"]
        self.top: str | None = s["top"]
        self.stock: int = s["stock"]
        self.burned: list[str] = s["burned"]
        self.direction: int = s["direction"]
        self.moves: int = s["moves"]

    @cached_property
    def seats(self) -> list[SeatState]:
        """One :class:`SeatState` per seat (made on first use)."""
        return [SeatState(x) for x in self.message["state"]["seats"]]

    @property
    def face_up(self) -> list[str]:
        """This seat's own face-up cards."""
        return self.seats[self.seat].face_up

    @property
    def face_down(self) -> int:
        """How many face-down cards this seat has left."""
        return self.seats[self.seat].face_down

    def special(self, rank: str) -> bool:
        """Whether ``rank`` has a role in these rules (reset, burn, invisible, magic, low,
        under, skip, reverse): not an ordinary card."""
        return any(rank in (self.rules.get(k) or ()) for k in RANK_SETS)


class Bot:
    """A bot: override :meth:`move` (and :meth:`swap` to choose the face-up cards). ``name``,
    ``version``, ``author`` go into ``hello``; ``deterministic`` promises that each decision
    depends only on the message it answers (shedsim's loop check may then end a game whose
    position repeats)."""

    name = "python bot"
    version: str | None = None
    author: str | None = None
    deterministic = False

    def new_game(self, game: dict[str, Any]) -> None:
        """A ``game`` message: a game starts (``game``, ``seat``, ``players``, ``rules``,
        ``seed``)."""

    def swap(self, state: State) -> list[str]:
        """The ranks to lie face up, chosen among ``state.hand + state.face_up`` (as dealt),
        as many as ``state.face_up`` holds. Default: keep the cards as dealt."""
        return list(state.face_up)

    def move(self, state: State, legal: list[str]) -> str:
        """One entry of ``legal`` (scenario notation, e.g. ``play 7x2``, ``flip 1``, ``gamble``,
        ``pickup``)."""
        raise NotImplementedError("a Bot defines move(state, legal)")

    def result(self, result: dict[str, Any]) -> None:
        """A ``result`` message: the game ended (``places`` per seat, ``end``)."""

    def hello(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "hello", "name": self.name, "protocol": PROTOCOL}
        for k in ("version", "author"):
            if getattr(self, k):
                out[k] = getattr(self, k)
        if self.deterministic:
            out["deterministic"] = True
        return out


def answer(bot: Bot, message: dict[str, Any], game: dict[str, Any] | None) -> dict[str, Any] | None:
    """The answer of ``bot`` to one message (None for a message that takes none); ``game``
    is the current game's ``game`` message."""
    t = message.get("type")
    if t == "move":
        return {"type": "move", "move": bot.move(State(message, game), message["legal"])}
    if t == "swap":
        return {"type": "swap", "face_up": list(bot.swap(State(message, game)))}
    if t == "game":
        bot.new_game(message)
    elif t == "result":
        bot.result(message)
    elif t == "hello":
        return bot.hello()
    return None


_DECODE = json.JSONDecoder().decode
_ENCODE = json.JSONEncoder(separators=(",", ":")).encode  # one encoder for every answer


def run(bot: Bot, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Speak the protocol for ``bot`` until ``bye`` or the end of input; returns 0, or 2
    after a line from the host that is not a JSON object (UTF-8), said on stderr with the
    line's number and start (no traceback: the bot's own code is not at fault). One JSON
    object a line in (UTF-8), one a line out (compact), flushed after each answer."""
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    write, flush = out.write, out.flush
    game: dict[str, Any] | None = None
    for number, line in enumerate(inp, 1):
        if not line.strip():
            continue
        try:
            message = _DECODE(line.decode("utf-8"))
            if not isinstance(message, dict):
                raise ValueError("not an object")
        except ValueError as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            start = line[:80].decode("utf-8", "replace").rstrip()
            sys.stderr.write(
                f"bot: line {number} from the host is not a JSON object ({e}): {start!r}; "
                "the protocol sends one JSON object a line (docs/reference/bots.md)\n"
            )
            sys.stderr.flush()
            return 2
        t = message.get("type")
        if t == "bye":
            break
        if t == "game":
            game = message
        reply = answer(bot, message, game)
        if reply is not None:
            write(_ENCODE(reply).encode() + b"\n")
            flush()
    return 0
