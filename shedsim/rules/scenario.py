"""Scenario files: a position of any rule set, moves to apply, expectations to check.

The format is described in docs/reference/scenarios.md: top-level keys ``rules``,
``house``, ``to_move``, ``pile`` (bottom first), ``stock`` (top first), ``burned`` (a
count), ``burned_cards`` (the burned cards themselves, seen by every seat; ``burned`` is
then their count), ``dealer``, ``direction``, ``moves``, ``deterministic`` (the moves are taken as
deterministic players': a repeated position ends the game as a proven loop); one ``[[seats]]`` table
per seat (``hand``,
``face_up``, ``face_down`` in slot order, ``out``, ``known``: the hand cards every other
seat has seen, a part of ``hand``); an ``[expect]`` table. Its ``starts``
is about the position before the moves, taken as just dealt and swapped: the seats the
start rule may pick (:func:`shedsim.rules.engine.start_candidates`; one, or several when
it is settled at random). The moves run
on the reference engine (:mod:`shedsim.rules.engine`), exactly as ``shedsim scenario run``
does.

Exit codes (the CLI's): a scenario that cannot be read or played (unknown preset,
toggle, card, move or key; a seat count outside the rule set's range; more copies of a
rank than the decks hold; an illegal move) raises :class:`ScenarioError`, naming the
field, and the CLI exits 2. A scenario whose expectations fail returns failures
(expected and actual) and the CLI exits 1.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shedsim.rules.cards import CardError, format_cards, parse_cards, rank_name
from shedsim.rules.engine import (
    GameState,
    IllegalMoveError,
    Move,
    MoveSyntaxError,
    Seat,
    apply_move,
    legal_moves,
    start_candidates,
)
from shedsim.rules.files import FileProblem, read_toml
from shedsim.rules.ruleset import RuleSet, RulesError, build
from shedsim.rules.settings import shown

TOP_KEYS = {
    "rules",
    "house",
    "to_move",
    "pile",
    "stock",
    "burned",
    "burned_cards",
    "dealer",
    "direction",
    "moves",
    "seats",
    "expect",
    "description",
    "deterministic",
}
SEAT_KEYS = {"hand", "face_up", "face_down", "out", "known"}
EXPECT_KEYS = {
    "pile",
    "burned",
    "to_move",
    "legal",
    "places",
    "finished",
    "unfinished",
    "stock",
    "direction",
    "end",
    "quiet",
    "starts",
}
END_VALUES = ("playing", "finished", "stalled", "loop", "cap")
"""``expect.end``: how the game ended (``playing``: not over yet)."""
SEAT_EXPECT_FIELDS = {"hand", "face_up", "face_down", "out"}


class ScenarioError(ValueError):
    """A scenario file that cannot be read or played; ``field`` names what is wrong."""

    def __init__(self, path: str, field: str, message: str) -> None:
        super().__init__(f"{path}: {field}: {message}")
        self.path, self.field = path, field


@dataclass
class Failure:
    """One expectation that did not hold."""

    key: str
    expected: Any
    actual: Any

    def __str__(self) -> str:
        return f"{self.key}: expected {shown(self.expected)}, actual {shown(self.actual)}"


@dataclass
class Scenario:
    """A parsed, validated scenario: the starting position, the moves and expectations."""

    path: str
    rules: RuleSet
    state: GameState
    moves: list[Move]
    expect: dict[str, Any] = field(default_factory=dict)
    description: str = ""


def _cards(path: str, where: str, value: Any) -> list[int]:
    if not isinstance(value, list):
        raise ScenarioError(path, where, f"must be a list of cards, got {shown(value)}")
    try:
        return parse_cards(
            [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
        )
    except CardError as e:
        raise ScenarioError(path, where, str(e)) from None


def _int(path: str, where: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ScenarioError(
            path, where, f"must be an integer from {lo} to {hi}, got {shown(value)}"
        )
    return value


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file. Raises :class:`ScenarioError` naming the field."""
    p = Path(path)
    try:
        data = read_toml(p)
    except FileProblem as e:
        raise ScenarioError(str(p), "file", str(e)) from None
    return parse_scenario(data, p)


def parse_scenario(data: dict[str, Any], path: str | Path = "<position>") -> Scenario:
    """Validate a scenario's table (a file's keys, as :func:`load_scenario` reads them);
    ``path`` names it in messages, and a rules file it names is found beside it. Raises
    :class:`ScenarioError` naming the field."""
    p = Path(path)
    sp = str(path)
    for k in data:
        if k not in TOP_KEYS:
            raise ScenarioError(sp, k, f"unknown key; known keys: {', '.join(sorted(TOP_KEYS))}")
    rules_name = data.get("rules", None)
    if rules_name is None:
        raise ScenarioError(
            sp, "rules", 'missing: name a preset or a rules TOML file (rules = "shithead")'
        )
    if not isinstance(rules_name, str):
        raise ScenarioError(
            sp, "rules", f"must name a preset or a rules TOML file, got {shown(rules_name)}"
        )
    house = data.get("house", [])
    if not isinstance(house, list) or not all(isinstance(h, str) for h in house):
        raise ScenarioError(sp, "house", f"must be a list of toggle strings, got {shown(house)}")
    try:
        if rules_name.endswith(".toml"):
            rules = build(rules_file=(p.parent / rules_name), house=house)
        else:
            rules = build(rules_name, house=house)
    except RulesError as e:
        field_name = (
            "rules"
            if e.field in ("rules", "rules-file", "preset")
            else (f"house ({e.field})" if e.field in house else f"rules.{e.field}")
        )
        said = str(e)  # "rules: ..." when its field is the file's: said once
        if e.field == field_name:
            said = said.removeprefix(f"{e.field}: ")
        raise ScenarioError(sp, field_name, said) from None

    seats_data = data.get("seats")
    if not isinstance(seats_data, list) or not all(isinstance(s, dict) for s in seats_data):
        raise ScenarioError(sp, "seats", "needs one [[seats]] table per seat")
    try:
        rules.check_players(len(seats_data))
    except RulesError as e:
        said = str(e).removeprefix(f"{e.field}: ")
        n = len(seats_data)
        raise ScenarioError(sp, "seats", f"{n} seat{'' if n == 1 else 's'}, but {said}") from None
    seats = []
    out_seats = []
    for i, sd in enumerate(seats_data):
        for k in sd:
            if k not in SEAT_KEYS:
                raise ScenarioError(
                    sp,
                    f"seats.{i}.{k}",
                    f"unknown key; known: {', '.join(sorted(SEAT_KEYS))}"
                    + (
                        f" ({k} is a key of the whole file: TOML reads every key after a "
                        "[[seats]] line as that seat's, so write it above the first [[seats]])"
                        if k in TOP_KEYS
                        else ""
                    ),
                )
        seat = Seat(
            hand=sorted(_cards(sp, f"seats.{i}.hand", sd.get("hand", []))),
            face_up=sorted(_cards(sp, f"seats.{i}.face_up", sd.get("face_up", []))),
            face_down=_cards(sp, f"seats.{i}.face_down", sd.get("face_down", [])),
        )
        out = sd.get("out", False)
        if not isinstance(out, bool):
            raise ScenarioError(sp, f"seats.{i}.out", f"must be true or false, got {shown(out)}")
        known = _cards(sp, f"seats.{i}.known", sd.get("known", []))
        missing = Counter(known) - Counter(seat.hand)
        if missing:
            raise ScenarioError(
                sp,
                f"seats.{i}.known",
                f"[{format_cards(sorted(missing.elements()))}] not in seats.{i}.hand: the known "
                "cards are hand cards the other seats have seen",
            )
        seat.known = Counter(known)
        if len(seat.face_down) > 6:
            raise ScenarioError(sp, f"seats.{i}.face_down", "at most 6 face-down slots")
        if out:
            if seat.holds_cards():
                raise ScenarioError(sp, f"seats.{i}", "a seat that is out holds no cards")
            seat.out = True
            out_seats.append(i)
        seats.append(seat)
    pile = _cards(sp, "pile", data.get("pile", []))
    stock = _cards(sp, "stock", data.get("stock", []))
    burned_cards = _cards(sp, "burned_cards", data.get("burned_cards", []))
    if "burned" in data:
        burned = _int(sp, "burned", data["burned"], 0, rules.deck_size)
        if "burned_cards" in data and burned != len(burned_cards):
            raise ScenarioError(
                sp,
                "burned, burned_cards",
                f"burned = {shown(burned)} but burned_cards lists {len(burned_cards)} cards: "
                "burned counts the burned cards, so give one of the two or make them agree",
            )
    else:
        burned = len(burned_cards)
    n = len(seats)
    to_move = _int(sp, "to_move", data.get("to_move", 0), 0, n - 1)
    dealer = _int(sp, "dealer", data.get("dealer", (to_move - 1) % n), 0, n - 1)
    direction = data.get("direction", 1)
    if direction not in (1, -1) or isinstance(direction, bool):
        raise ScenarioError(sp, "direction", f"must be 1 or -1, got {shown(direction)}")
    # conservation: no rank more often than the decks hold
    every = Counter(pile + stock + burned_cards)
    for s in seats:
        every.update(s.hand + s.face_up + s.face_down)
    limit = 4 * rules.decks
    for r, c in sorted(every.items()):
        if c > limit:
            raise ScenarioError(
                sp,
                "cards",
                f"{c} cards of rank {rank_name(r)} but {rules.decks} deck(s) hold {limit}",
            )
    in_play = sum(every.values()) - len(burned_cards)
    if in_play + burned > rules.deck_size:
        raise ScenarioError(
            sp,
            "burned",
            f"{in_play} cards in play + {burned} burned > {rules.deck_size} in the deck",
        )
    for i, seat in enumerate(seats):
        if not seat.out and not seat.holds_cards():
            raise ScenarioError(
                sp,
                f"seats.{i}",
                "holds no cards (no hand, face-up or face-down card): a seat without cards "
                "has gone out; mark it out = true",
            )
        if stock and not seat.out and not seat.hand:
            raise ScenarioError(
                sp,
                f"seats.{i}.hand",
                "empty while the stock has cards: "
                "impossible, hands are refilled before anything else happens",
            )
    if seats[to_move].out:
        raise ScenarioError(sp, "to_move", f"seat {to_move} is out")
    if len(out_seats) >= n - 1:
        raise ScenarioError(sp, "seats", "at least two seats must still be in")
    deterministic = data.get("deterministic", False)
    if not isinstance(deterministic, bool):
        raise ScenarioError(
            sp, "deterministic", f"must be true or false, got {shown(deterministic)}"
        )
    state = GameState(
        rules=rules,
        seats=seats,
        pile=pile,
        stock=stock,
        burned=burned,
        burned_cards=Counter(burned_cards),
        burned_order=list(burned_cards),
        dealer=dealer,
        to_move=to_move,
        direction=direction,
        places=list(out_seats),
        deterministic=[deterministic] * n,
    )
    moves_data = data.get("moves", [])
    if not isinstance(moves_data, list):
        raise ScenarioError(sp, "moves", f"must be a list of move strings, got {shown(moves_data)}")
    moves = []
    for i, m in enumerate(moves_data):
        try:
            moves.append(Move.parse(m))
        except MoveSyntaxError as e:
            raise ScenarioError(sp, f"moves[{i}]", str(e)) from None
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise ScenarioError(sp, "expect", "must be a table")
    for k in expect:
        if k in EXPECT_KEYS:
            continue
        parts = k.split(".")
        if (
            len(parts) == 3
            and parts[0] == "seats"
            and parts[1].isdigit()
            and int(parts[1]) < n
            and parts[2] in SEAT_EXPECT_FIELDS
        ):
            continue
        raise ScenarioError(
            sp,
            f"expect.{k}",
            f"unknown expectation; known: "
            f"{', '.join(sorted(EXPECT_KEYS))}, seats.N.hand/face_up/face_down/out",
        )
    if "end" in expect and expect["end"] not in END_VALUES:
        raise ScenarioError(
            sp, "expect.end", f"one of {', '.join(END_VALUES)}; got {shown(expect['end'])}"
        )
    if "starts" in expect and (
        not isinstance(expect["starts"], list)
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in expect["starts"])
    ):
        raise ScenarioError(
            sp, "expect.starts", f"must be a list of seats, got {shown(expect['starts'])}"
        )
    if "quiet" in expect and (
        isinstance(expect["quiet"], bool) or not isinstance(expect["quiet"], int)
    ):
        raise ScenarioError(sp, "expect.quiet", f"must be an integer, got {shown(expect['quiet'])}")
    desc = data.get("description", "")
    if not isinstance(desc, str):
        raise ScenarioError(sp, "description", f"must be a string, got {shown(desc)}")
    return Scenario(sp, rules, state, moves, expect, desc)


def play_moves(sc: Scenario) -> tuple[GameState, list[str]]:
    """Apply the scenario's moves to a copy of its position; returns (state, trace lines).

    Raises :class:`ScenarioError` (field ``moves[i]``) for a move that is not legal there.
    """
    state = sc.state.copy()
    lines = []
    for i, m in enumerate(sc.moves):
        if state.finished or state.unfinished:
            raise ScenarioError(
                sc.path,
                f"moves[{i}]",
                f"{m}: the game is already over" + (f" ({state.end})" if state.unfinished else ""),
            )
        try:
            lines.append(apply_move(state, m))
        except IllegalMoveError as e:
            raise ScenarioError(sc.path, f"moves[{i}]", f"illegal: {e}") from None
    return state, lines


def _names(cards: list[int]) -> list[str]:
    return [rank_name(c) for c in cards]


def _expected_cards(sc: Scenario, key: str, value: Any) -> list[int]:
    return _cards(sc.path, f"expect.{key}", value)


def check(sc: Scenario, state: GameState) -> list[Failure]:
    """Compare the state after the moves with the scenario's expectations."""
    failures: list[Failure] = []
    e = sc.expect

    def fail(key, expected, actual):
        failures.append(Failure(key, expected, actual))

    if "pile" in e:
        exp = _expected_cards(sc, "pile", e["pile"])
        if exp != state.pile:
            fail("pile", _names(exp), _names(state.pile))
    if "stock" in e:
        exp = _expected_cards(sc, "stock", e["stock"])
        if exp != state.stock:
            fail("stock", _names(exp), _names(state.stock))
    if "burned" in e and e["burned"] != state.burned:
        fail("burned", e["burned"], state.burned)
    if (
        "to_move" in e
        and not (state.finished or state.unfinished)
        and e["to_move"] != state.to_move
    ):
        fail("to_move", e["to_move"], state.to_move)
    elif "to_move" in e and (state.finished or state.unfinished):
        fail("to_move", e["to_move"], "nobody (game over)")
    if "direction" in e and e["direction"] != state.direction:
        fail("direction", e["direction"], state.direction)
    if "legal" in e:
        if not isinstance(e["legal"], list):
            raise ScenarioError(sc.path, "expect.legal", "must be a list of move strings")
        try:
            exp_moves = sorted(str(Move.parse(m)) for m in e["legal"])
        except MoveSyntaxError as err:
            raise ScenarioError(sc.path, "expect.legal", str(err)) from None
        act = sorted(str(m) for m in legal_moves(state))
        if exp_moves != act:
            fail("legal", exp_moves, act)
    if "places" in e and list(e["places"]) != state.places:
        fail("places", list(e["places"]), state.places)
    if "finished" in e and bool(e["finished"]) != state.finished:
        fail("finished", e["finished"], state.finished)
    if "unfinished" in e and bool(e["unfinished"]) != state.unfinished:
        fail("unfinished", e["unfinished"], state.unfinished)
    if "end" in e and e["end"] != (state.end or "playing"):
        fail("end", e["end"], state.end or "playing")
    if "quiet" in e and e["quiet"] != state.quiet:
        fail("quiet", e["quiet"], state.quiet)
    if "starts" in e and sorted(e["starts"]) != start_candidates(sc.state):
        fail("starts", sorted(e["starts"]), start_candidates(sc.state))
    for key, value in e.items():
        parts = key.split(".")
        if parts[0] != "seats":
            continue
        seat = state.seats[int(parts[1])]
        what = parts[2]
        if what == "out":
            if bool(value) != seat.out:
                fail(key, value, seat.out)
            continue
        exp = _expected_cards(sc, key, value)
        act = getattr(seat, what)
        same = exp == act if what == "face_down" else Counter(exp) == Counter(act)
        if not same:
            fail(key, _names(exp if what == "face_down" else sorted(exp)), _names(act))
    return failures


def run_scenario(path: str | Path) -> list[Failure]:
    """Load, play and check one scenario file; returns the failed expectations (empty =
    pass). Raises :class:`ScenarioError` for a file that cannot be read or played."""
    sc = load_scenario(path)
    state, _ = play_moves(sc)
    return check(sc, state)


def _tracked_lines(state: GameState) -> list[str]:
    """What the seats have seen beyond the table, when any: the burned cards of known rank
    and each seat's known hand cards (``burned_cards``, ``known``)."""
    lines = []
    if state.burned_cards:
        seen = sorted(state.burned_cards.elements())
        rest = state.burned - len(seen)
        lines.append(
            f"burned cards seen: {format_cards(seen)}"
            + (f" (and {rest} of unknown rank)" if rest else "")
        )
    for i, seat in enumerate(state.seats):
        if seat.known:
            lines.append(f"seat {i} known: {format_cards(sorted(seat.known.elements()))}")
    return lines


def show_scenario(path: str | Path) -> str:
    """A readable picture of the scenario's position, its legal moves, and the moves applied."""
    sc = load_scenario(path)
    lines = [f"scenario {sc.path}"]
    if sc.description:
        lines.append(sc.description)
    lines.append(sc.state.describe())
    lines.extend(_tracked_lines(sc.state))
    lines.append("legal moves: " + ", ".join(str(m) for m in legal_moves(sc.state)))
    if sc.moves:
        state, trace = play_moves(sc)
        lines.append("moves:")
        lines.extend(f"  {t}" for t in trace)
        lines.append("after the moves:")
        lines.append(state.describe())
        lines.extend(_tracked_lines(state))
        lines.append("legal moves: " + (", ".join(str(m) for m in legal_moves(state)) or "none"))
    return "\n".join(lines)


__all__ = [
    "Scenario",
    "ScenarioError",
    "Failure",
    "load_scenario",
    "run_scenario",
    "show_scenario",
    "play_moves",
    "check",
    "format_cards",
]
