"""The bot protocol, version 1, as data: the messages shedsim sends and the checks of a
bot's answers (docs/reference/bots.md). No processes here (:mod:`shedsim.bot.process`)
and no game loop (:mod:`shedsim.bot.table`): everything is a plain function of a
position of the reference engine (:class:`shedsim.rules.engine.GameState`).

A bot entry is written ``bot:COMMAND`` wherever a strategy spec goes (a run's entries,
spec.json), so it travels with the run to every worker; ``--bot LABEL=COMMAND`` makes one.

Messages are JSON objects, one per line (UTF-8, ``\\n``-terminated, compact). Ranks are
the strings ``"2"``..``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``; moves are written in
scenario notation (``play 7x2``, ``play 7x2+1``, ``flip 1``, ``gamble``, ``pickup``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import orjson

from shedsim import layout as L
from shedsim.base import jsontext
from shedsim.rules.cards import RANK_NAMES, RANKS

PROTOCOL = 1
"""The protocol version shedsim speaks (``hello``'s ``protocol``)."""
BOT_PREFIX = "bot:"
"""How a bot entry's spec starts: ``bot:COMMAND``."""
HELLO_S = 5.0
"""Seconds a bot has to answer ``hello``."""
BYE_S = 2.0
"""Seconds a bot has to exit after ``bye`` before it is killed."""
DEFAULT_MOVE_MS = 1000
"""``--time-per-move``'s default (milliseconds for each answer, the swap's included)."""
FAULTS = ("timeout", "invalid", "illegal", "crash")
"""The kinds of fault that forfeit a game, in the order outputs list them; a fault's code
in the per-game ``forfeit`` record is its index here plus one (0: no fault)."""
ENDS = L.END_NAMES + ("forfeit",)
"""``result``'s ``end``: how the game ended (the records' ``end`` codes, in order)."""
END_FORFEIT = len(L.END_NAMES)
"""The records' ``end`` code of a forfeited game (after ``layout.END_NAMES``)."""
STAGES = {L.STAGE_HAND: "hand", L.STAGE_FACE_UP: "face_up", L.STAGE_FACE_DOWN: "face_down"}
"""The ``state``'s ``stage`` names, by ``layout.STAGE_*``."""
RANK_SETS = ("reset", "burn", "invisible", "magic", "low", "under", "skip", "reverse")
"""The rules' settings that are sets of ranks (a rank in none of them is ordinary)."""

_NAME = {r: RANK_NAMES[r] for r in RANKS}
_RANK = {v: k for k, v in _NAME.items()}


class BotSpecError(ValueError):
    """A ``--bot`` value that cannot be used; the message names the option."""


# ------------------------------------------------------------------ entries
def is_bot(spec: str) -> bool:
    """Whether an entry's spec is a bot (``bot:COMMAND``)."""
    return isinstance(spec, str) and spec.startswith(BOT_PREFIX)


def command_of(spec: str) -> str:
    """The command line of a bot entry ``bot:COMMAND``."""
    return spec[len(BOT_PREFIX) :]


def split_command(command: str) -> list[str]:
    """The program and arguments of ``command``, split as a POSIX shell splits words
    (:func:`shlex.split`; no expansion, no shell). Raises :class:`BotSpecError`."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError as e:
        raise BotSpecError(f"--bot: cannot split {command!r} into words: {e}") from None
    if not words:
        raise BotSpecError("--bot: the command is empty")
    return words


def parse_bot_option(text: str) -> tuple[str, str]:
    """Read one ``--bot LABEL=COMMAND``: ``(label, "bot:COMMAND")``. The label takes the
    characters a strategy label may hold (letters, digits, ``_ . # + -``). Raises
    :class:`BotSpecError` naming the option."""
    import re

    label, eq, command = text.partition("=")
    label, command = label.strip(), command.strip()
    if not eq or not label:
        raise BotSpecError(f"--bot {text!r}: write LABEL=COMMAND, e.g. --bot mybot='node bot.js'")
    if not re.fullmatch(r"[A-Za-z0-9_.#+-]+", label):
        raise BotSpecError(
            f"--bot {text!r}: the label {label!r} may hold only letters, digits and _ . # + -"
        )
    split_command(command)
    return label, BOT_PREFIX + command


def parse_bot_options(values: list[str] | None) -> list[tuple[str, str]]:
    """Every ``--bot`` given, read by :func:`parse_bot_option`; a label given twice is
    refused (:class:`BotSpecError`)."""
    out: list[tuple[str, str]] = []
    for v in values or []:
        label, spec = parse_bot_option(v)
        if any(label == o for o, _ in out):
            raise BotSpecError(f"--bot: the label {label!r} is given twice")
        out.append((label, spec))
    return out


# ------------------------------------------------------------------ what shedsim says
_LINE = orjson.OPT_APPEND_NEWLINE
_ENCODER = json.JSONEncoder(separators=(",", ":"))  # for a message with non-ASCII text


def dumps(message: dict[str, Any]) -> bytes:
    """One message as a line: compact JSON (non-ASCII characters escaped, so the line is
    ASCII and so UTF-8), ``\\n``-terminated: the bytes of
    ``json.dumps(message, separators=(",", ":"))``, written by one call of
    :func:`orjson.dumps` (the same bytes for the protocol's values: text, integers, None,
    halves), or by :mod:`json` when the message holds non-ASCII text (a rules file's name).
    Raises :class:`TypeError` for a value JSON cannot hold."""
    out = orjson.dumps(message, option=_LINE)
    if out.isascii():
        return out
    return (_ENCODER.encode(message) + "\n").encode("ascii")


def names(cards) -> list[str]:
    """Ranks (ints 2..14) as the protocol's strings, in the order given. Raises
    :class:`KeyError` for an int that is not a rank."""
    return list(map(_NAME.__getitem__, cards))


def rules_object(rules, players: int) -> dict[str, Any]:
    """``game``'s ``rules``: ``preset`` (the preset the rule set is built on, when its name
    tells it), ``house`` (the toggles applied) and every setting by its rules-file key
    (:data:`shedsim.rules.settings.SETTINGS`): rank sets as lists of rank strings,
    ``players`` as ``[min, max]``, ``stall`` as the limit in force at ``players`` seats
    (0 = off), choices as their names."""
    from shedsim.rules.settings import PRESETS, SETTINGS

    base = rules.name.rstrip("*")
    out: dict[str, Any] = {"preset": base if base in PRESETS else None, "house": list(rules.house)}
    for s in SETTINGS:
        if s.kind == "players":
            out[s.key] = [rules.min_players, rules.max_players]
        elif s.key == "stall":
            out[s.key] = rules.stall_moves(players)
        else:
            v = getattr(rules, s.key)
            out[s.key] = names(sorted(v)) if s.kind == "ranks" else v
    return out


def hello_message(version: str) -> dict[str, Any]:
    return {"type": "hello", "protocol": PROTOCOL, "shedsim": version}


def game_message(
    game: int, seat: int, players: int, rules: dict[str, Any], seed: int
) -> dict[str, Any]:
    """``game``: a new game starts; ``seed`` (0 to 2**53 - 1: exact in every JSON reader)
    is the seat's own random key for this game, for a bot that wants reproducible draws."""
    return {
        "type": "game",
        "game": game,
        "seat": seat,
        "players": players,
        "rules": rules,
        "seed": seed,
    }


def seats_view(state) -> list[dict[str, Any]]:
    """``state``'s ``seats``: what every seat may see of each seat (``known``: the ranks of
    its hand every seat saw it take, low to high, each as many times as it holds it)."""
    out = []
    places = state.places
    name = _NAME.__getitem__
    for i, s in enumerate(state.seats):
        known = s.known
        out.append(
            {
                "hand": len(s.hand),
                "known": list(map(name, sorted(known.elements()))) if known else [],
                "face_up": list(map(name, s.face_up)),
                "face_down": len(s.face_down),
                "place": places.index(i) + 1 if i in places else None,
            }
        )
    return out


def open_top(state) -> str | None:
    """``state``'s ``top``: the rank the next play must follow (the effective top), or None
    when anything may be played (an empty pile, a reset on top, invisible cards only)."""
    top = state.effective_top()
    return None if top == 0 or top in state.rules.reset else _NAME[top]


def state_view(state, seat: int, swap: bool = False) -> dict[str, Any]:
    """The ``state`` of a message to ``seat`` (docs/reference/bots.md#state) in the position
    ``state`` (a :class:`shedsim.rules.engine.GameState`). ``swap``: the swap phase
    (``to_move`` and ``stage`` are None; ``state`` is then the position as dealt, before
    any seat swapped)."""
    name = _NAME.__getitem__
    return {
        "to_move": None if swap else state.to_move,
        "stage": None if swap else STAGES.get(state.stage(seat)),
        "hand": list(map(name, state.seats[seat].hand)),
        "pile": list(map(name, state.pile)),
        "top": open_top(state),
        "stock": len(state.stock),
        "burned": list(map(name, state.burned_order)),
        "direction": state.direction,
        "moves": state.moves,
        "seats": seats_view(state),
    }


def protocol_order(legal: list) -> list[int]:
    """The indices of the legal moves (:func:`shedsim.rules.engine.legal_moves`, whose order
    is plays by rank then count, flips by slot, pick-up, gamble; the engine's own order
    stays as it is) in the protocol's order: plays by rank then count, then flips, then
    ``gamble``, then ``pickup``."""
    order = list(range(len(legal)))
    if len(legal) >= 2 and legal[-1].kind == "gamble" and legal[-2].kind == "pickup":
        order[-2], order[-1] = order[-1], order[-2]
    return order


_TEXTS: dict[Any, str] = {}
"""Each move's scenario notation, by move (there are a few hundred moves)."""


def legal_texts(legal: list, order: list[int] | None = None) -> list[str]:
    """``move``'s ``legal``: the legal moves in scenario notation, in :func:`protocol_order`
    (or ``order``, when it is given)."""
    texts = _TEXTS
    out = []
    for k in protocol_order(legal) if order is None else order:
        m = legal[k]
        t = texts.get(m)
        if t is None:
            t = texts[m] = str(m)
        out.append(t)
    return out


def swap_message(dealt, seat: int, clock: dict[str, Any] | None) -> dict[str, Any]:
    """``swap`` to ``seat`` in the position as dealt ``dealt``: its dealt ``hand`` and
    ``face_up`` and the ``state`` (:func:`state_view` in the swap phase)."""
    me = dealt.seats[seat]
    return {
        "type": "swap",
        "seat": seat,
        "hand": names(me.hand),
        "face_up": names(me.face_up),
        "state": state_view(dealt, seat, swap=True),
        "clock": clock,
    }


def move_message(
    state, seat: int, legal: list, clock: dict[str, Any] | None
) -> tuple[dict[str, Any], list[int], list[str]]:
    """``move`` to ``seat`` in ``state`` with the engine's legal moves ``legal``
    (:func:`shedsim.rules.engine.legal_moves`). Returns the message, :func:`protocol_order`
    and the ``legal`` texts in that order (an answer's index in the texts is the move
    ``legal[order[i]]``)."""
    order = protocol_order(legal)
    texts = legal_texts(legal, order)
    return (
        {
            "type": "move",
            "seat": seat,
            "legal": texts,
            "state": state_view(state, seat),
            "clock": clock,
        },
        order,
        texts,
    )


def clock_object(move_ms: int, left_ms: int | None) -> dict[str, Any]:
    return {"move_ms": move_ms, "left_ms": left_ms}


def result_places(state, forfeit_seat: int | None, players: int) -> list[float | int | None]:
    """``result``'s ``places``, per seat: the place of each seat that went out; after a
    forfeit, the forfeiting seat is last and the seats still in share the places between
    (each their mean: a whole number for one seat, e.g. 2.5 for two); a game stopped
    otherwise leaves its seats still in at None (``stalemate:share``) or places them
    (``stalemate:most_cards``)."""
    places: list[float | int | None] = [state.place_of(i) or None for i in range(players)]
    if forfeit_seat is not None:
        places[forfeit_seat] = players
        still = [i for i in range(players) if places[i] is None]
        if still:
            first = players - len(still)  # places first..players-1 are shared
            mean = (first + players - 1) / 2
            for i in still:
                places[i] = int(mean) if mean == int(mean) else mean
    return places


# ------------------------------------------------------------------ what a bot answers
class Fault(Exception):
    """A bot's answer (or silence) that forfeits its game: ``kind`` one of :data:`FAULTS`,
    the message in words. ``kill``: the process cannot be asked again (default: after a
    ``timeout`` or a ``crash``; an ``invalid`` line too long to read to its end, too);
    after another fault it plays on, one answer read for each request."""

    def __init__(self, kind: str, message: str, kill: bool | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.kill = kind in ("timeout", "crash") if kill is None else kill


_BLANK = b" \t\r\f\v"
_BOM = b"\xef\xbb\xbf"


def is_chatter(line: bytes) -> bool:
    """Whether a line a bot wrote is chatter, never an answer: its first character other
    than white space (and a byte order mark) is not ``{`` (a blank line, plain text, a JSON
    array...). shedsim reads a bot's lines in the order written and skips its chatter
    wherever it comes; every other line is the answer to the oldest request not yet
    answered (docs/reference/bots.md#chatter). Content alone decides, never when a line came."""
    s = line.lstrip(_BLANK)
    if s.startswith(_BOM):
        s = s[len(_BOM) :].lstrip(_BLANK)
    return not s.startswith(b"{")


_LONG_NUMBER = re.compile(rb"\d{19}")
"""Digits enough for an integer past 64 bits, which :func:`orjson.loads` reads as a float."""


ANSWERS = ("hello", "swap", "move")
"""The types of the messages a bot answers with; a JSON object of no other type answers
anything (:func:`read_answer`)."""


def read_answer(line: bytes, expected: str) -> dict[str, Any] | None:
    """The JSON object of a bot's answer line of type ``expected``, read as
    :func:`json.loads` reads it (:func:`orjson.loads` first, for speed, where the two
    agree: a line ``orjson`` refuses, or one with a 19-digit number, is read by ``json``,
    which also takes NaN, a byte order mark, lone surrogates and integers of any size,
    through :func:`shedsim.base.jsontext.loads`). Raises :class:`Fault`: ``invalid`` for a
    line that is not a JSON object (nesting too deep to read included), ``illegal`` for an
    answer of another of the :data:`ANSWERS` types. None for an object with no ``type`` or
    a type that answers nothing (a note such as ``{"note": ...}``): a line the bot wrote
    unasked, which the caller sets aside as chatter."""
    try:
        obj = orjson.loads(line)
        if _LONG_NUMBER.search(line):
            raise ValueError
    except ValueError:
        try:
            obj = jsontext.loads(line)
        except jsontext.JSONProblem as e:
            raise Fault("invalid", f"not a JSON object ({e.reason})") from None
    if not isinstance(obj, dict):
        raise Fault("invalid", f"not a JSON object (a JSON {type(obj).__name__})")
    if not isinstance(obj.get("type"), str) or obj["type"] not in ANSWERS:
        return None
    if obj.get("type") != expected:
        raise Fault("illegal", f"type {obj.get('type')!r}, not {expected!r}")
    return obj


def check_hello(obj: dict[str, Any]) -> str | None:
    """Why a ``hello`` answer cannot be accepted (None when it can): ``protocol`` must be
    the integer 1, ``name`` a non-empty string and ``deterministic`` (optional) true or
    false."""
    proto = obj.get("protocol")
    if isinstance(proto, str):
        return f"protocol must be the integer {PROTOCOL}, got the string {json.dumps(proto)}"
    if proto != PROTOCOL or isinstance(proto, bool):
        got = "no protocol" if "protocol" not in obj else f"protocol {json.dumps(proto)}"
        return f"{got}: shedsim speaks protocol {PROTOCOL} (the integer {PROTOCOL})"
    if not isinstance(obj.get("name"), str) or not obj["name"].strip():
        return "no name (a non-empty string)"
    if not isinstance(obj.get("deterministic", False), bool):
        return f"deterministic must be true or false, got {obj['deterministic']!r}"
    return None


def check_swap(obj: dict[str, Any], visible: list[int], n_up: int) -> list[int]:
    """The face-up ranks of a ``swap`` answer: ``n_up`` of the seat's dealt cards
    ``visible`` (hand and face-up, ints). Raises :class:`Fault` (``illegal``)."""
    up = obj.get("face_up")
    if not isinstance(up, list) or not all(isinstance(r, str) and r in _RANK for r in up):
        raise Fault("illegal", f"face_up must be a list of rank strings, got {up!r}")
    ranks = [_RANK[r] for r in up]
    if len(ranks) != n_up:
        raise Fault("illegal", f"face_up holds {len(ranks)} cards; {n_up} lie face up")
    if Counter(ranks) - Counter(visible):
        raise Fault(
            "illegal", f"face_up {up} is not among its dealt cards {names(sorted(visible))}"
        )
    return sorted(ranks)


def check_move(obj: dict[str, Any], legal: list[str]) -> int:
    """The index in ``legal`` (the protocol's texts) of a ``move`` answer's move, written
    character for character. Raises :class:`Fault` (``illegal``)."""
    m = obj.get("move")
    if not isinstance(m, str):
        raise Fault("illegal", f"no move (a string from legal), got {m!r}")
    try:
        return legal.index(m)
    except ValueError:
        raise Fault("illegal", f"move {m!r} is not in legal {legal}") from None
