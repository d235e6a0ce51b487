"""One-file game records (docs/reference/game-records.md): one game in a JSON Lines file,
to attach to a bug report, tell again (``shedsim trace FILE``) or play on from
(``shedsim play --from FILE``).

Line 1 is the header object: ``"record": "shedsim-game"``, ``"version"`` (:data:`VERSION`),
the rules (``"rules"``: the name, ``"house"``: the toggles, ``"settings"``: every setting as
:meth:`shedsim.rules.RuleSet.to_dict` gives it), ``"players"``, where the game came from
(``"seed"``, ``"game"``, ``"deal_index"``, ``"stream"``), ``"dealer"``, the random streams'
keys (``"deal_key"``, ``"strategy_key"``), ``"deal"`` (the deal as a line of a deal-set file,
:mod:`shedsim.rules.deals`), ``"seats"`` (per seat its ``"label"`` and ``"strategy"``
spec), ``"face_up"`` (each seat's face-up cards after the swap) and ``"start"`` (the first
seat to move). Then one object per move in order: ``"move"`` (1, 2, ...), ``"seat"``,
``"play"`` (the move in scenario notation: ``play 7x2``, ``pickup``, ``flip 1``,
``gamble``). The last line is ``{"result": {"places": [...], "end": ..., "moves": N}}``.

Errors: :class:`RecordError` names the file, the line and what is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shedsim.base import jsontext
from shedsim.rules.cards import parse_cards, rank_name, unpack

RECORD = "shedsim-game"
VERSION = 1


class RecordError(ValueError):
    """A game record that cannot be used; the message names the file and line."""


@dataclass
class GameRecord:
    """A game record read back: the header object, the moves (``Move``) and the result."""

    header: dict[str, Any]
    moves: list
    result: dict[str, Any] | None
    rules: Any
    deck: list[int]

    @property
    def labels(self) -> list[str]:
        return [s["label"] for s in self.header["seats"]]

    @property
    def face_up(self) -> list[int]:
        """Each seat's face-up cards after the swap, packed."""
        from shedsim.rules.cards import pack

        return [pack(parse_cards(t.split(",")) if t else []) for t in self.header["face_up"]]


def _state_after_swap(rules, players: int, deal_key: int, dealer: int, deck, face_up, start: int):
    """The position after the swap: dealt from ``deck``, each seat's chosen ``face_up``
    (packed), ``start`` to move (as :func:`shedsim.rules.narrate.narrate_game` rebuilds it)."""
    from collections import Counter

    from shedsim.rules.engine import deal

    state, _ = deal(rules, players, deal_key, dealer, deck)
    for i, s in enumerate(state.seats):
        chosen = unpack(int(face_up[i]))
        rest = Counter(s.hand + s.face_up) - Counter(chosen)
        s.face_up, s.hand = sorted(chosen), sorted(rest.elements())
    state.start_seat = state.to_move = start
    return state


def record_lines(spec, rep, players_specs: list[str]) -> list[dict[str, Any]]:
    """The record of game ``rep`` (a :class:`shedsim.analysis.replay.Replay`) of run ``spec``
    (a :class:`shedsim.runs.simulate.RunSpec`); ``players_specs``: each seat's strategy spec."""
    from shedsim.rules.deals import format_deal, from_state
    from shedsim.rules.engine import apply_move, deal
    from shedsim.rules.state import Move
    from shedsim.runs.simulate import schedule_games

    sched = schedule_games(spec, rep.game, rep.game + 1)
    decks = spec.decks(sched)
    deck = None if decks is None else [int(c) for c in decks[0]]
    rules, n = spec.rules, spec.players
    dealt, _ = deal(rules, n, rep.deal_key, rep.dealer, deck)
    r = rep.result
    head = {
        "record": RECORD,
        "version": VERSION,
        "rules": rules.name,
        "house": list(rules.house),
        "settings": rules.to_dict(),
        "players": n,
        "seed": spec.seed,
        "game": rep.game,
        "deal_index": rep.deal,
        "stream": spec.stream,
        "dealer": rep.dealer,
        "deal_key": rep.deal_key,
        "strategy_key": rep.strategy_key,
        "deal": format_deal(from_state(dealt)),
        "seats": [
            {"seat": i, "label": lab, "strategy": s}
            for i, (lab, s) in enumerate(zip(rep.labels, players_specs))
        ],
        "face_up": [",".join(rank_name(c) for c in unpack(int(u))) for u in r.face_up],
        "start": r.start_seat,
    }
    state = _state_after_swap(
        rules, n, rep.deal_key, rep.dealer, deck or _deck(dealt), r.face_up, r.start_seat
    )
    out: list[dict[str, Any]] = [head]
    for k, code in enumerate(r.move_codes, start=1):
        mv = Move.from_code(int(code))
        out.append({"move": k, "seat": state.to_move, "play": str(mv)})
        apply_move(state, mv)
    out.append({"result": {"places": list(r.places), "end": r.end, "moves": r.moves}})
    return out


def _deck(state) -> list[int]:
    """The deck order that deals ``state`` again from its dealer's left."""
    from shedsim.rules.deals import deck_order, from_state

    return [int(c) for c in deck_order(from_state(state), state.dealer)]


def write(path: str | Path, lines: list[dict[str, Any]]) -> None:
    """Write a record atomically (JSON Lines, one object a line)."""
    from shedsim.base.atomic import write_text

    write_text(Path(path), "".join(json.dumps(o, separators=(", ", ": ")) + "\n" for o in lines))


_HEADER_FIELDS = {
    "rules": str,
    "house": list,
    "settings": dict,
    "players": int,
    "seed": int,
    "game": int,
    "dealer": int,
    "deal_key": int,
    "strategy_key": int,
    "deal": str,
    "seats": list,
    "face_up": list,
    "start": int,
}


def read(path: str | Path, rules=None) -> GameRecord:
    """Read and check a record. ``rules`` (a :class:`shedsim.rules.RuleSet`, from
    ``--rules-file``) stands in for the record's when they are not a preset plus toggles;
    they must have the same settings. Raises :class:`RecordError` naming the file and line."""
    from shedsim.rules.deals import DealsError, deck_order, parse_line
    from shedsim.rules.engine import IllegalMoveError, apply_move, legal_moves
    from shedsim.rules.state import Move, MoveSyntaxError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"{path}: cannot be read ({e})") from None
    objs = []
    for no, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            o = jsontext.loads(raw)
        except jsontext.JSONProblem as e:
            raise RecordError(f"{path} line {no}: not JSON ({e.reason})") from None
        if not isinstance(o, dict):
            raise RecordError(f"{path} line {no}: expected a JSON object")
        objs.append((no, o))
    if not objs:
        raise RecordError(f"{path}: empty (a game record starts with its header line)")
    no, head = objs[0]
    where = f"{path} line {no}"
    if head.get("record") != RECORD:
        raise RecordError(f'{where}: not a shedsim game record ("record": {RECORD!r} expected)')
    if head.get("version") != VERSION:
        raise RecordError(
            f"{where}: version {head.get('version')!r}; this shedsim reads version {VERSION}"
        )
    bad = [k for k, t in _HEADER_FIELDS.items() if not isinstance(head.get(k), t)]
    if bad:
        raise RecordError(f"{where}: missing or invalid: {', '.join(bad)}")
    rs = _rules(head, rules, where)
    n = head["players"]
    try:
        rs.check_players(n)
        deal = parse_line(head["deal"], f'{where}, "deal"', rs, n)
    except DealsError as e:
        raise RecordError(str(e)) from None
    except ValueError as e:
        raise RecordError(f"{where}: players: {e}") from None
    if len(head["seats"]) != n or len(head["face_up"]) != n:
        raise RecordError(f'{where}: "seats" and "face_up" need one entry per seat ({n})')
    rec = GameRecord(head, [], None, rs, [int(c) for c in deck_order(deal, head["dealer"])])
    try:
        state = _state_after_swap(
            rs, n, head["deal_key"], head["dealer"], rec.deck, rec.face_up, head["start"]
        )
    except Exception as e:  # noqa: BLE001 - a hand-edited face-up row that the deal does not hold
        raise RecordError(f'{where}: "face_up" does not fit the deal ({e})') from None
    for no, o in objs[1:]:
        w = f"{path} line {no}"
        if "result" in o:
            rec.result = o["result"]
            continue
        if rec.result is not None:
            raise RecordError(f"{w}: a move after the result")
        if o.get("move") != len(rec.moves) + 1:
            raise RecordError(f"{w}: move number {o.get('move')!r}; expected {len(rec.moves) + 1}")
        try:
            mv = Move.parse(str(o.get("play")))
            if mv not in legal_moves(state):
                raise IllegalMoveError(f"{mv} is not legal for seat {state.to_move} here")
            if o.get("seat", state.to_move) != state.to_move:
                raise IllegalMoveError(
                    f"seat {o.get('seat')} is not to move (seat {state.to_move} is)"
                )
            apply_move(state, mv)
        except (MoveSyntaxError, IllegalMoveError) as e:
            raise RecordError(f"{w}: {e}") from None
        rec.moves.append(mv)
    return rec


def _rules(head: dict[str, Any], given, where: str):
    from shedsim.rules.ruleset import RulesError, build

    rs = given
    if rs is None:
        try:
            rs = build(head["rules"], head["house"])
        except RulesError:
            raise RecordError(
                f"{where}: rules {head['rules']!r} are not a preset; give the rules file they came "
                f"from with --rules-file"
            ) from None
    if rs.to_dict() != head["settings"]:
        differ = sorted(k for k, v in rs.to_dict().items() if head["settings"].get(k) != v)
        raise RecordError(
            f"{where}: the rules differ from the record's settings ({', '.join(differ)})"
            + (
                ""
                if given is not None
                else "; give the rules file they came from with --rules-file"
            )
        )
    return rs


def tell(rec: GameRecord) -> list[str]:
    """The game of ``rec`` move by move (:func:`shedsim.rules.narrate.narrate_game`), with a
    heading and the places."""
    from shedsim.rules.narrate import narrate_game

    h = rec.header
    lines, final = narrate_game(
        rec.rules,
        h["deal_key"],
        h["dealer"],
        rec.face_up,
        h["start"],
        [m.code for m in rec.moves],
        rec.labels,
        deck=rec.deck,
    )
    rs = rec.rules
    head = (
        f"rules {rs.name}{' + ' + ', '.join(rs.house) if rs.house else ''}; {h['players']} "
        "players; seed "
        f"{h['seed']} game {h['game']}; seats: "
        + ", ".join(f"{i} {lab}" for i, lab in enumerate(rec.labels))
    )
    if final.finished or final.unfinished:
        order = sorted((final.place_of(i), i) for i in range(h["players"]) if final.place_of(i))
        lines.append("places: " + ", ".join(f"{p}. seat {i} ({rec.labels[i]})" for p, i in order))
    else:
        lines.append(f"the record stops after move {len(rec.moves)}; seat {final.to_move} to move")
    return [head] + lines


def position(rec: GameRecord, move: int | None = None):
    """The position after ``move`` moves of ``rec`` (all of them by default). Raises
    :class:`RecordError` for a move number outside the record."""
    from shedsim.rules.engine import apply_move

    h = rec.header
    upto = len(rec.moves) if move is None else move
    if not 0 <= upto <= len(rec.moves):
        raise RecordError(f"--move: the record has moves 0 to {len(rec.moves)}; got {move}")
    state = _state_after_swap(
        rec.rules, h["players"], h["deal_key"], h["dealer"], rec.deck, rec.face_up, h["start"]
    )
    for mv in rec.moves[:upto]:
        apply_move(state, mv)
    return state


def continue_game(rec: GameRecord, move: int | None, seat: int, **game_options):
    """A :class:`shedsim.analysis.play.Game` at the position after ``move`` moves of ``rec``
    (all by default), the person in ``seat`` and each other seat played by the strategy the
    record names there (``game_options``: the hint options and ``strategy_paths`` of
    ``Game``). Returns the game and the lines that open it: the table, then the bots' moves
    up to the person's turn. Raises :class:`shedsim.analysis.play.PlayError` for a bad seat
    or strategy, a bot seat (``bot:COMMAND``: a bot process is told its game from the
    deal), and :class:`RecordError` for a move number outside the record."""
    from shedsim.analysis.play import Game, PlayError
    from shedsim.bot.protocol import is_bot

    h = rec.header
    n = h["players"]
    specs = [str(s["strategy"]) for s in h["seats"]]
    if not 0 <= seat < n:
        raise PlayError(f"--seat: 0 to {n - 1} at {n} players; got {seat}")
    bots = [specs[i] for i in range(n) if i != seat and is_bot(specs[i])]
    if bots:
        raise PlayError(
            f"--from: seat strategy {bots[0]!r} is a bot process, which cannot join a game in "
            "progress"
        )
    state = position(rec, move)
    g = Game(
        rec.rules,
        n,
        [specs[i] for i in range(n) if i != seat],
        seed=h["seed"],
        game=h["game"],
        seat=seat,
        **game_options,
    )
    g.state, g.swapped, g.deal_key, g.dealer = state, True, h["deal_key"], h["dealer"]
    head = (
        f"{rec.rules.name}; {n} players; the game of the record, after move {state.moves}; you "
        f"are seat {seat}; " + ", ".join(f"seat {i} {g.names[i]}" for i in range(n) if i != seat)
    )
    lines = [head] + g.table_lines()
    moved = g.bots()
    return g, lines + moved + (g.table_lines() if moved and not g.over else [])
