"""Games with bot seats, on the reference engine (:mod:`shedsim.rules.engine`).

A chunk of a run whose schedule seats a bot (an entry ``bot:COMMAND``,
:mod:`shedsim.bot.protocol`) plays those games here, in the worker that plays the chunk,
with the chunk's own deal keys, strategy keys, dealers and seatings; the other seats are
the run's strategies on the engine (which agrees with the kernel move for move,
``tests/test_differential.py``). :func:`play_games` returns the same per-game records
the kernel returns (:meth:`shedsim.kernel.build.Kernel.play`), so every analysis reads
them unchanged, plus ``forfeit`` (int8[n, P]: per seat the code of the fault that forfeited
the game, :data:`shedsim.bot.protocol.FAULTS` index + 1; 0 none).

A forfeited game (docs/reference/bots.md#faults) is recorded as a game played to its end,
not an unfinished one (``unfinished`` false, ``end`` :data:`shedsim.bot.protocol.END_FORFEIT`):
the forfeiting seat in last place, the seats that went out with their places, one seat still
in at the one place left between them (at two players: first), two or more still in at
place 0 (they share the places between; :func:`shedsim.analysis.tournament.effective_places2`
gives each their mean).

Processes: one per seat a bot holds at a table (the same bot at two seats: two), kept from
game to game for the whole chunk and ended with ``bye`` after its last game, so what a bot
remembers between games depends on the chunk alone, never on how many workers a run has.
After an ``invalid`` or ``illegal`` answer a process plays on (it is told the game's
``result`` as every other bot is); one killed after a fault that leaves it unable to answer
(``timeout``, ``crash``, a line too long to read), or that exited between games, is started
again (with ``hello``) before its next game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shedsim import layout as L
from shedsim.bot import protocol as P
from shedsim.bot.process import BotProcess, StderrSink
from shedsim.rules.cards import pack


@dataclass
class Clock:
    """The time a bot has: ``move_ms`` for each answer (``--time-per-move``), and with
    ``game_ms`` (``--time-per-game``) a budget for all its answers in one game, the swap
    included."""

    move_ms: int = P.DEFAULT_MOVE_MS
    game_ms: int | None = None


@dataclass
class FaultRecord:
    """The first fault of one kind by one entry in a chunk: the game (its index in the
    run), the seat, what shedsim sent, what came back (None: nothing) and the message."""

    entry: int
    label: str
    kind: str
    game: int
    seat: int
    sent: str
    got: str | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ChunkBots:
    """What the bots of one chunk left besides the records: the first fault per entry and
    kind, each process's standard error and the lines it wrote unasked, and the ``hello``
    each entry answered (``name``, ``version``, ``author``, ``deterministic``)."""

    faults: list[FaultRecord] = field(default_factory=list)
    stderr: dict[str, str] = field(default_factory=dict)
    unasked: dict[str, list[str]] = field(default_factory=dict)
    hello: dict[str, dict[str, Any]] = field(default_factory=dict)
    decisions: int = 0
    """Answers read (hello, swap and move) in the chunk."""
    forfeits: dict[str, dict[str, int]] = field(default_factory=dict)
    """Games forfeited per entry (label) and kind."""

    def to_json(self) -> dict[str, Any]:
        return {
            "faults": [f.to_json() for f in self.faults],
            "stderr": self.stderr,
            "unasked": self.unasked,
            "hello": self.hello,
            "decisions": self.decisions,
            "forfeits": self.forfeits,
        }


class _Forfeit(Exception):
    def __init__(self, seat: int, fault: P.Fault) -> None:
        super().__init__(str(fault))
        self.seat, self.fault = seat, fault


class BotSeat:
    """A bot at one seat of one game: the engine's ``Player`` for the swap; :func:`play_game`
    asks its moves (:meth:`move`)."""

    outside = False

    def __init__(self, table: Table, entry: int, proc: BotProcess, seat: int) -> None:
        self.table, self.entry, self.proc, self.seat = table, entry, proc, seat
        self.name = proc.label
        self.deterministic = bool((proc.hello or {}).get("deterministic", False))
        self.left_ms: int | None = table.clock.game_ms
        self.params = None

    def _timeout_s(self) -> tuple[int, float]:
        ms = (
            self.table.clock.move_ms
            if self.left_ms is None
            else min(self.table.clock.move_ms, max(0, self.left_ms))
        )
        return ms, ms / 1000.0

    def _ask(self, message: dict[str, Any], expected: str, timeout: float) -> dict[str, Any]:
        t0 = time.monotonic()
        try:
            return self.proc.ask(message, expected, timeout)
        finally:
            if self.left_ms is not None:
                self.left_ms -= int((time.monotonic() - t0) * 1000)
            self.table.report.decisions += 1

    def clock(self) -> tuple[dict[str, Any], float]:
        """The message's ``clock`` and the seconds the answer may take."""
        ms, timeout = self._timeout_s()
        return P.clock_object(ms, self.left_ms), timeout

    def swap(self, visible: int, seat: int, players: int, rules_array, rng) -> int:
        dealt = self.table.game.dealt
        clock, timeout = self.clock()
        msg = P.swap_message(dealt, seat, clock)
        me = dealt.seats[seat]
        try:
            obj = self._ask(msg, "swap", timeout)
            up = P.check_swap(obj, me.hand + me.face_up, len(me.face_up))
        except P.Fault as f:
            raise _Forfeit(seat, f) from None
        return pack(up)

    def move(self, state, legal) -> Any:
        clock, timeout = self.clock()
        msg, order, texts = P.move_message(state, self.seat, legal, clock)
        try:
            i = P.check_move(self._ask(msg, "move", timeout), texts)
        except P.Fault as f:
            raise _Forfeit(self.seat, f) from None
        return legal[order[i]]


class _Game:
    """The game being played: its index in the run and the position as dealt (what every
    seat's swap is told, whichever seat swaps first)."""

    def __init__(self, dealt, index: int) -> None:
        self.dealt = dealt
        self.index = index


class Table:
    """The bot processes of one chunk, by (entry, which of its seats at the table): started
    on first use, started again after a fault or an exit, ended by :meth:`close`."""

    def __init__(
        self, labels: tuple[str, ...], entries: tuple[str, ...], clock: Clock, cwd: str = ""
    ) -> None:
        self.labels, self.entries, self.clock, self.cwd = labels, entries, clock, cwd
        self.sink = StderrSink()
        self.procs: dict[tuple[int, int], BotProcess] = {}
        self.report = ChunkBots()
        self.game: _Game | None = None
        self._first: set[tuple[int, str]] = set()

    def process(self, entry: int, j: int) -> BotProcess:
        key = (entry, j)
        if key not in self.procs:
            who = (
                self.labels[entry]
                if j == 0
                else f"{self.labels[entry]} (its seat {j + 1} at a table)"
            )
            self.procs[key] = BotProcess(
                self.labels[entry], P.command_of(self.entries[entry]), who, self.sink, self.cwd
            )
        return self.procs[key]

    def ready(self, proc: BotProcess, entry: int) -> None:
        """Start ``proc`` (greeted) unless it is running. Raises :class:`Fault`."""
        if proc.alive():
            return
        from shedsim.version import __version__

        hello = proc.start(__version__)
        self.report.decisions += 1
        self.report.hello.setdefault(
            self.labels[entry],
            {k: hello.get(k) for k in ("name", "version", "author", "deterministic")},
        )

    def fault(self, entry: int, seat: int, proc: BotProcess, f: P.Fault) -> None:
        """Note a fault (the first of its kind for the entry is kept) and kill the process
        when it cannot be asked again (:attr:`shedsim.bot.protocol.Fault.kill`)."""
        key = (entry, f.kind)
        if key not in self._first:
            self._first.add(key)
            sent = proc.last_sent
            got = proc.last_line
            self.report.faults.append(
                FaultRecord(
                    entry,
                    self.labels[entry],
                    f.kind,
                    self.game.index if self.game else -1,
                    seat,
                    P.dumps(sent).decode().rstrip("\n") if sent is not None else "",
                    None if got is None else got.decode("utf-8", "backslashreplace"),
                    str(f),
                )
            )
        if f.kill:
            proc.stop()

    def close(self) -> ChunkBots:
        """End every process (``bye``, then a kill after :data:`shedsim.bot.protocol.BYE_S`)
        and return what the chunk's bots left."""
        live = [p for p in self.procs.values() if p.proc is not None]
        for proc in live:
            proc.collect()  # the chatter already written, for the log
        for proc in live:  # every process is told at once, then each has what is left of BYE_S
            proc.say_bye()
        deadline = time.monotonic() + P.BYE_S
        for proc in live:
            proc.stop(max(0.01, deadline - time.monotonic()))
        for proc in self.procs.values():
            if proc.unasked:
                lines = self.report.unasked.setdefault(proc.who, [])
                lines.extend(x.decode("utf-8", "backslashreplace") for x in proc.unasked[:20])
                if proc.unasked_n > 20:
                    lines.append(f"[{proc.unasked_n - 20:,} more lines]")
        self.report.stderr = self.sink.text()
        return self.report


def play_game(
    table: Table,
    rules,
    ra: np.ndarray,
    seating: np.ndarray,
    strategies: dict[int, Any],
    deal_key: int,
    strategy_key: int,
    dealer: int,
    index: int,
    deck: np.ndarray | None = None,
) -> tuple[dict[str, Any], int, int]:
    """Play game ``index`` of the run with bots at the seats whose entries are bots
    (``strategies``: entry -> engine player, for the others; ``deck``: a given deal,
    :func:`shedsim.rules.engine.deal`). Returns the game's record
    (the kernel's fields, one value each), the forfeiting seat (-1: none) and the fault's
    code (0: none). Raises :class:`shedsim.rules.engine.StrategyError` when a strategy
    (not a bot) fails."""
    from shedsim.rules.engine import (
        StrategyError,
        apply_move,
        deal,
        decide,
        legal_moves,
        new_game,
        visible_dealt,
    )
    from shedsim.seeding import seat_key

    n = len(seating)
    players: list[Any] = []
    bots: dict[int, BotSeat] = {}
    count: dict[int, int] = {}
    dealt, _ = deal(rules, n, deal_key, dealer, deck)
    table.game = _Game(dealt, index)
    rules_obj = table.rules_obj
    forfeit: _Forfeit | None = None
    for s in range(n):
        e = int(seating[s])
        if e in strategies:
            players.append(strategies[e])
            continue
        j = count.get(e, 0)
        count[e] = j + 1
        proc = table.process(e, j)
        try:
            table.ready(
                proc, e
            )  # (re)started when it is not running: a fault, or an exit between games
            seat = BotSeat(table, e, proc, s)
            proc.send(
                P.game_message(index, s, n, rules_obj, seat_key(strategy_key, s) >> 11),
                table.clock.move_ms / 1000.0,
            )
        except P.Fault as f:
            seat = BotSeat(table, e, proc, s)
            if forfeit is None:
                forfeit = _Forfeit(s, f)
        bots[s] = seat
        players.append(seat)
    state = None
    chosen = [
        pack(s.face_up) for s in dealt.seats
    ]  # the face-up cards as dealt, until every seat swapped
    if forfeit is None:
        try:
            state, _ = new_game(rules, players, deal_key, strategy_key, dealer, ra, deck)
            chosen = [pack(s.face_up) for s in state.seats]
        except StrategyError as e:
            if not isinstance(e.__cause__, _Forfeit):
                raise
            forfeit = e.__cause__
    if state is not None and forfeit is None:
        while not (state.finished or state.unfinished):
            legal = legal_moves(state)
            seat = state.to_move
            b = bots.get(seat)
            if b is None:
                move = decide(state, players[seat], ra, legal, deal_key)
            else:
                try:
                    move = b.move(state, legal)
                except _Forfeit as f:
                    forfeit = f
                    break
            apply_move(state, move, legal)
    fseat = -1 if forfeit is None else forfeit.seat
    code = 0
    if forfeit is not None:
        e = int(seating[fseat])
        code = P.FAULTS.index(forfeit.fault.kind) + 1
        table.fault(e, fseat, bots[fseat].proc, forfeit.fault)
        per = table.report.forfeits.setdefault(table.labels[e], {})
        per[forfeit.fault.kind] = per.get(forfeit.fault.kind, 0) + 1
    rec = _record(state, dealt, n, fseat, dealer, visible_dealt(dealt), chosen)
    shown = state if state is not None else dealt
    result = {
        "type": "result",
        "game": index,
        "places": P.result_places(shown, None if fseat < 0 else fseat, n),
        "end": P.ENDS[rec["end"]],
    }
    for b in bots.values():  # the forfeiting seat too, while its process plays on
        if not b.proc.alive():
            continue
        try:
            b.proc.send(result, table.clock.move_ms / 1000.0)
        except P.Fault as f:  # after the game: no forfeit, but the process is started again
            b.proc.stop()
            del f
    table.game = None
    return rec, fseat, code


def _record(
    state, dealt, n: int, fseat: int, dealer: int, visible: list[int], chosen: list[int]
) -> dict[str, Any]:
    """One game's record in the kernel's fields (:data:`shedsim.kernel.build.RECORD_FIELDS`):
    ``visible`` the packed cards dealt to each seat's hand and face-up row, ``chosen`` the
    packed face-up rows after the swap (as dealt when the game was forfeited in it); a game
    forfeited in the swap starts, in its record, at the seat after the dealer."""
    shown = state if state is not None else dealt
    places = [shown.place_of(i) for i in range(n)]
    if fseat >= 0:
        places[fseat] = n
        still = [i for i in range(n) if places[i] == 0]
        if len(still) == 1:  # the one place left between the seats out and the forfeiter
            places[still[0]] = n - 1
    end = P.END_FORFEIT if fseat >= 0 else L.END_NAMES.index(state.end or "finished")
    return {
        "places": places,
        "start": (dealer + 1) % n if state is None else state.start_seat,
        "moves": shown.moves,
        "pickups": [s.pickups for s in shown.seats],
        "burns": [s.burns for s in shown.seats],
        "unfinished": fseat < 0 and bool(state.unfinished),
        "end": end,
        "dealt": visible,
        "face_up": chosen,
    }


def play_games(
    spec, sched: dict[str, np.ndarray], dk: np.ndarray, sk: np.ndarray, rows: np.ndarray, known
) -> tuple[dict[str, np.ndarray], ChunkBots]:
    """Play the games ``rows`` (indices into the chunk's schedule ``sched``, with its deal
    and strategy keys ``dk``/``sk``) of the run ``spec`` (a
    :class:`shedsim.runs.simulate.RunSpec` with bot entries) on the reference engine.
    Returns their records (the kernel's fields, in the kernel's dtypes, plus ``forfeit``
    int8[len(rows), P]) and what the bots left (:class:`ChunkBots`). ``known``: the
    discovered plugins (:func:`shedsim.plugins.discover`). Raises
    :class:`shedsim.rules.engine.StrategyError` when a strategy (not a bot) fails."""
    from shedsim.plugins import parse_spec

    n = spec.players
    m = len(rows)
    ra = spec.rules.compile(n)
    strategies: dict[int, Any] = {}
    for e, entry in enumerate(spec.entries):
        if not P.is_bot(entry):
            name, overrides = parse_spec(entry)
            strategies[e] = known[name].player(spec.labels[e], overrides)
    out = {
        "places": np.zeros((m, n), np.int8),
        "start": np.zeros(m, np.int8),
        "moves": np.zeros(m, np.int32),
        "pickups": np.zeros((m, n), np.int16),
        "burns": np.zeros((m, n), np.int16),
        "unfinished": np.zeros(m, np.bool_),
        "end": np.zeros(m, np.int8),
        "dealt": np.zeros((m, n), np.int64),
        "face_up": np.zeros((m, n), np.int64),
        "forfeit": np.zeros((m, n), np.int8),
    }
    table = Table(
        spec.labels, spec.entries, Clock(spec.bot_move_ms, spec.bot_game_ms), spec.bot_cwd
    )
    table.rules_obj = P.rules_object(spec.rules, n)
    decks = spec.decks(sched)
    try:
        for i, g in enumerate(rows):
            rec, fseat, code = play_game(
                table,
                spec.rules,
                ra,
                sched["seating"][g],
                strategies,
                int(dk[g]),
                int(sk[g]),
                int(sched["dealer"][g]),
                int(sched["index"][g]),
                None if decks is None else decks[g],
            )
            for k, v in rec.items():
                out[k][i] = v
            if fseat >= 0:
                out["forfeit"][i, fseat] = code
    finally:
        report = table.close()
    return out, report


class _PlayBot(BotSeat):
    """A bot at one seat of ``shedsim play``: the engine's ``Player`` (swap and move), its
    faults raised as :class:`shedsim.rules.engine.StrategyError` (``play`` then ends the
    game with the command that goes on with it)."""

    def _failed(self, f: _Forfeit, when: str) -> None:
        from shedsim.rules.engine import StrategyError

        self.table.fault(self.entry, self.seat, self.proc, f.fault)
        raise StrategyError(
            f"bot {self.name!r} at seat {self.seat}, {when}: {f.fault.kind}: {f.fault} "
            f"(docs/reference/bots.md#faults)"
        ) from None

    def swap(self, visible: int, seat: int, players: int, rules_array, rng) -> int:
        try:
            return super().swap(visible, seat, players, rules_array, rng)
        except _Forfeit as f:
            self._failed(f, "in the swap phase")
            raise  # pragma: no cover - _failed raises

    def move(self, state, obs, rules_array, rng, legal) -> Any:  # the engine's Player.move
        try:
            return BotSeat.move(self, state, legal)
        except _Forfeit as f:
            self._failed(f, f"choosing move {state.moves + 1}")
            raise  # pragma: no cover - _failed raises


def play_seats(
    bots: dict[int, tuple[str, str]],
    rules,
    players: int,
    dealt,
    index: int,
    strategy_key: int,
    clock: Clock | None = None,
) -> tuple[dict[int, Any], Table]:
    """The bots of one ``shedsim play`` game: ``bots`` maps a seat to its entry ``(label,
    "bot:COMMAND")``; each is started, greeted and told the game (``dealt``: the position
    as dealt; ``index``: the game's number; ``strategy_key``: the game's strategy key, for
    each seat's ``seed``). Returns the engine players by seat and their :class:`Table`
    (:meth:`Table.close` ends them). Raises :class:`shedsim.bot.process.BotStartError`
    naming a bot that does not start or greet, or whose ``game`` cannot be written."""
    import os

    from shedsim.version import __version__
    from shedsim.bot.process import BotStartError
    from shedsim.seeding import seat_key

    entries = list(dict.fromkeys(bots.values()))
    table = Table(
        tuple(lab for lab, _ in entries),
        tuple(sp for _, sp in entries),
        clock or Clock(),
        os.getcwd(),
    )
    table.rules_obj = P.rules_object(rules, players)
    table.game = _Game(dealt, index)
    out: dict[int, Any] = {}
    count: dict[int, int] = {}
    for seat, entry in sorted(bots.items()):
        e = entries.index(entry)
        j = count.get(e, 0)
        count[e] = j + 1
        proc = table.process(e, j)
        try:
            hello = proc.start(__version__)
            proc.send(
                P.game_message(
                    index, seat, players, table.rules_obj, seat_key(strategy_key, seat) >> 11
                ),
                table.clock.move_ms / 1000.0,
            )
        except P.Fault as f:
            table.close()
            raise BotStartError(
                f"bot {entry[0]!r} ({entry[1][len(P.BOT_PREFIX) :]}) did not start: {f}"
            ) from None
        table.report.hello.setdefault(entry[0], hello)
        out[seat] = _PlayBot(table, e, proc, seat)
    return out, table
