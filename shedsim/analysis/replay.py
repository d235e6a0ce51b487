"""Replaying one game of a run on the reference engine, told move by move (``shedsim trace``).

A game is named the same way everywhere: by its **game index** in a run's schedule
(:func:`shedsim.runs.simulate.schedule_games`). Game g of a tournament of P seats is
rotation g % P of deal g // P (every rotation of a deal gets the same cards); a run of one
strategy in every seat (``bench``) plays deal g in game g. The deal and the strategies'
coin flips come from ``(run seed, game index, deal index, stream)``
(:func:`shedsim.seeding.game_keys`), so the reference engine replays any game of a run
exactly: same cards, same seats, same strategy stream, and (the compiled kernel agreeing
with the engine move for move: tests/test_differential.py) the same moves and places.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shedsim.rules.cards import pack
from shedsim.rules.engine import GameResult, StrategyError, play_game
from shedsim.rules.narrate import narrate_game
from shedsim.rules.ruleset import RuleSet
from shedsim.runs.simulate import RunSpec, schedule_games
from shedsim.runs.recorder import Recorded
from shedsim.seeding import game_keys


class ReplayError(ValueError):
    """A game that cannot be replayed: an unknown run directory, a game index outside the
    run, a run whose seating cannot be rebuilt; the message names the option."""


def tournament_run_spec(
    rules: RuleSet,
    players: int,
    strategies: str,
    seed: int,
    game: int,
    seat_orders: str = "all",
    stream: int = 0,
    strategy_paths: tuple[str, ...] = (),
    schedule: str = "tournament",
) -> RunSpec:
    """The run whose game ``game`` ``shedsim trace`` plays: one strategy (``--strategies
    greedy``) sits in every seat, deal g in game g (``bench``'s schedule); two or more
    are a tournament of those entries, numbered exactly as ``shedsim tournament
    --strategies ... --seat-orders ...`` numbers its games (tables, rotations, paired
    deals). ``strategies`` is read as the tournament's ``--strategies`` (labels allowed).
    ``schedule`` ``"head-to-head"`` or ``"head-to-head-unpaired"`` numbers the games as
    ``shedsim sprt`` (and ``tips``) does: two strategies, X (the first) in one seat and
    Y in the others (:func:`shedsim.runs.simulate.head_to_head`).
    Raises :class:`ReplayError` naming the option."""
    from shedsim.analysis.tournament import (
        MAX_ARRANGED_TABLES,
        SEAT_ORDERS,
        ArrangedRunSpec,
        TournamentError,
        arranged_count,
        parse_entries,
    )

    try:
        items = parse_entries(strategies)
    except TournamentError as e:
        raise ReplayError(str(e)) from None
    if seat_orders not in SEAT_ORDERS:
        raise ReplayError(f"--seat-orders: one of {', '.join(SEAT_ORDERS)}; got {seat_orders!r}")
    labels = tuple(lab for lab, _ in items)
    entries = tuple(spec for _, spec in items)
    games = game + 1
    from shedsim.runs.simulate import HEAD_TO_HEAD

    if schedule != "tournament":
        if schedule not in HEAD_TO_HEAD:
            raise ReplayError(
                f"--schedule: one of tournament, {', '.join(HEAD_TO_HEAD)}; got {schedule!r}"
            )
        if len(items) != 2:
            raise ReplayError(
                f"--schedule {schedule}: two strategies (X, then Y, as sprt's --a and --b); got "
                f"{len(items)}"
            )
        return RunSpec(
            rules,
            players,
            entries,
            labels,
            seed=seed,
            games=games,
            schedule=schedule,
            strategy_paths=strategy_paths,
            stream=stream,
        )
    if len(items) == 1:
        return RunSpec(
            rules,
            players,
            entries,
            labels,
            seed=seed,
            games=games,
            schedule="same",
            strategy_paths=strategy_paths,
            stream=stream,
        )
    arranged = seat_orders == "all" and arranged_count(len(items), players) <= MAX_ARRANGED_TABLES
    cls = ArrangedRunSpec if arranged else RunSpec
    return cls(
        rules,
        players,
        entries,
        labels,
        seed=seed,
        games=games,
        schedule="tournament",
        strategy_paths=strategy_paths,
        stream=stream,
    )


def run_dir_spec(run_dir: Path, strategy_paths: tuple[str, ...] | None = None) -> RunSpec:
    """The :class:`RunSpec` of a tournament run directory (its ``spec.json``), checked as
    ``--resume`` checks it: the rules and every strategy's source unchanged. Raises
    :class:`ReplayError` naming ``--from``."""
    from shedsim.analysis.tournament import Store, TournamentError, spec_from_store
    from shedsim.runs.store import spec_command, with_article

    store = Store(Path(run_dir))
    try:
        other = spec_command(store.read_spec("--from"))
    except TournamentError as e:
        raise ReplayError(str(e)) from None
    if other not in (None, "tournament"):
        how = (
            "replaying a swap study's games is not supported (swap policies are lent between seats)"
            if other == "swaps"
            else (
                "to replay one of its games give trace that run's options (--rules, "
                "--strategies, --seed"
            )
            + (
                ", --stream: the variant's number"
                if other == "compare-rules"
                else ", --schedule head-to-head"
            )
            + "), as a failed game's message prints them"
        )
        raise ReplayError(
            f"--from: {str(run_dir)!r} holds {with_article(other)} run, and "
            f"trace --from reads tournament runs only; shedsim {other} --resume {str(run_dir)} "
            f"continues it; {how}"
        )
    try:
        spec = spec_from_store(store, strategy_paths)
    except TournamentError as e:
        msg = str(e)
        raise ReplayError(
            "--from: " + (msg[len("--resume: ") :] if msg.startswith("--resume: ") else msg)
        ) from None
    if spec.swap_from is not None:
        raise ReplayError(
            f"--from: {str(run_dir)!r} is a swap study (swap policies lent between seats); "
            f"replaying its games is not supported"
        )
    return spec.run_spec()


@dataclass
class Replay:
    """One replayed game: its place in the run (``game``, ``deal``, ``dealer``), the seats'
    labels and entry numbers, the keys of its two random streams, the engine's
    :class:`~shedsim.rules.engine.GameResult` and the game told move by move (``lines``)."""

    game: int
    deal: int
    dealer: int
    labels: list[str]
    seating: list[int]
    deal_key: int
    strategy_key: int
    result: GameResult
    lines: list[str]


class _Recorded(Recorded):
    """The flight recorder of :func:`replay_game_guarded`
    (:class:`shedsim.runs.recorder.Recorded`: if a call kills the process, the last record
    names the strategy, the seat, the move and the position) that also keeps the moves
    chosen, in ``chosen``."""

    def __init__(self, player, seat: int, record, chosen: list, beat=None, asked=None) -> None:
        super().__init__(player, seat, record, beat)
        self.chosen = chosen
        self.asked = asked if asked is not None else []
        self.swapped: int | None = None

    def swap(self, visible, seat, players, rules_array, rng):
        self.asked.append(self.seat)
        self.swapped = super().swap(visible, seat, players, rules_array, rng)
        return self.swapped

    def move(self, state, obs, rules_array, rng, legal):
        self.asked.append(self.seat)
        move = super().move(state, obs, rules_array, rng, legal)
        self.chosen.append(move)
        return move


class _Swapped:
    """A bot's seat told again up to a failure: the face-up cards it chose, without asking
    the bot again (:func:`_told_until_failure`)."""

    outside = False
    params = None

    def __init__(self, name: str, face_up: int) -> None:
        self.name, self.face_up, self.deterministic = name, face_up, True

    def swap(self, visible, seat, players, rules_array, rng) -> int:
        return self.face_up


def _start_bots(spec: RunSpec, seating: list[int], dealt, game: int, strategy_key: int):
    """The bots of a game (seats whose entries are ``bot:COMMAND``), started again from
    the run's recorded commands in the current directory (as ``--resume`` starts them),
    greeted and told the game: ``(players by seat, table)``, or ``({}, None)`` without a bot.
    Raises :class:`ReplayError` naming a bot that does not start."""
    from shedsim.bot.process import BotStartError
    from shedsim.bot.protocol import is_bot
    from shedsim.bot.table import Clock, play_seats

    bot = [is_bot(spec.entries[e]) for e in seating]
    seats = {i: (spec.labels[e], spec.entries[e]) for i, e in enumerate(seating) if bot[i]}
    if not seats:
        return {}, None
    clock = Clock(spec.bot_move_ms, spec.bot_game_ms)
    try:
        return play_seats(seats, spec.rules, spec.players, dealt, game, strategy_key, clock)
    except BotStartError as e:
        raise ReplayError(f"--from: {e}") from None


class GameFailed(StrategyError):
    """A strategy failed in a replayed game (:class:`shedsim.rules.engine.StrategyError`);
    ``lines`` tells the game up to the failure (empty when the swap failed)."""

    def __init__(
        self, message: str, lines: list[str], seat: int | None = None, moves: int = 0
    ) -> None:
        super().__init__(message)
        self.lines = lines
        self.seat, self.moves = seat, moves  # the seat that failed, the moves made before


def _told_until_failure(
    spec: RunSpec,
    players,
    deal_key: int,
    strategy_key: int,
    dealer: int,
    chosen: list,
    labels: list[str],
    deck=None,
) -> list[str]:
    """The game told up to the move a strategy failed on: the deal and swaps again (they
    succeeded: the same calls on the same streams), then the moves chosen before the
    failing one."""
    from shedsim.rules.engine import IllegalMoveError, MoveSyntaxError, new_game

    try:
        state, _ = new_game(spec.rules, players, deal_key, strategy_key, dealer, deck=deck)
    except StrategyError:
        return []
    face_up = [pack(s.face_up) for s in state.seats]
    codes = [m.code for m in chosen if m.kind != "invalid"]
    for moves in (codes, codes[:-1]):
        try:
            lines, _ = narrate_game(
                spec.rules, deal_key, dealer, face_up, state.start_seat, moves, labels, deck=deck
            )
            return lines
        except (IllegalMoveError, MoveSyntaxError):
            continue
    return []


def game_heading(spec: RunSpec, game: int) -> str:
    """One line naming game ``game`` of ``spec``: rules, seats, seed, deal, dealer and who
    sits where. Raises :class:`ReplayError` for a game outside the run."""
    if game < 0 or game >= spec.games:
        raise ReplayError(
            f"--game: the run has {spec.games:,} games, numbered 0 to {spec.games - 1}; got {game}"
        )
    sched = schedule_games(spec, game, game + 1)
    rs = spec.rules
    return (
        f"rules {rs.name}{' + ' + ', '.join(rs.house) if rs.house else ''}; {spec.players} "
        "players; seed "
        f"{spec.seed} game {game} (deal {int(sched['deal'][0])}, dealer seat "
        f"{int(sched['dealer'][0])})"
        + (f", strategy stream {spec.stream}" if spec.stream else "")
        + "; seats: "
        + ", ".join(f"{i} {spec.labels[e]}" for i, e in enumerate(sched["seating"][0]))
    )


def replay_game(
    spec: RunSpec, game: int, narrate: bool = True, record=None, isolated: bool = False, beat=None
) -> Replay:
    """Play game ``game`` of ``spec`` on the reference engine (same deal, seats and coin
    flips as the run) and, with ``narrate``, tell it move by move
    (:func:`shedsim.rules.narrate.narrate_game`). ``record(text)``, when given, is called
    before every strategy decision with the strategy, seat, move and position. With
    ``isolated``, each decision of a compiled plugin from outside ``strategies/`` runs in
    a forked child (:attr:`shedsim.plugins.EnginePlayer.isolated`: a crash raises a
    :class:`~shedsim.rules.engine.StrategyError` naming it instead of killing this process).
    ``beat`` (a beat word, :func:`shedsim.base.isolate.beat_word`) is odd while a plugin
    decides (:class:`shedsim.runs.recorder.Recorded`), for the parent of the forked child
    playing the game (:func:`replay_game_guarded`).

    Raises :class:`ReplayError` for a game index outside the run or a plugin that cannot be
    loaded, :class:`shedsim.rules.engine.StrategyError` when a strategy fails.
    """
    from shedsim.bot.protocol import is_bot
    from shedsim.plugins import PluginError, discover, parse_spec
    from shedsim.rules.engine import deal

    if game < 0 or game >= spec.games:
        raise ReplayError(
            f"--game: the run has {spec.games:,} games, numbered 0 to {spec.games - 1}; got {game}"
        )
    sched = schedule_games(spec, game, game + 1)
    dk, sk = game_keys(spec.seed, sched["index"], sched["deal"], spec.stream)
    seating = [int(e) for e in sched["seating"][0]]
    dealer = int(sched["dealer"][0])
    decks = spec.decks(sched)
    deck = None if decks is None else decks[0]
    try:
        known = discover(list(spec.strategy_paths))
        players: list = []
        for e in seating:
            if is_bot(spec.entries[e]):
                players.append(None)  # started below, once every strategy is loaded
                continue
            name, overrides = parse_spec(spec.entries[e])
            players.append(known.require(name).player(spec.labels[e], overrides))
            players[-1].isolated = isolated and known[name].outside and known[name].compiled
    except PluginError as e:
        raise ReplayError(f"--strategies: {e}") from None
    dealt = deal(spec.rules, spec.players, int(dk[0]), dealer, deck)[0] if None in players else None
    bots, table = _start_bots(spec, seating, dealt, int(sched["index"][0]), int(sk[0]))
    players = [bots.get(i, p) for i, p in enumerate(players)]
    chosen: list = []
    asked: list[int] = []
    seated = [_Recorded(p, i, record, chosen, beat, asked) for i, p in enumerate(players)]
    labels = [spec.labels[e] for e in seating]
    try:
        result = play_game(spec.rules, seated, int(dk[0]), int(sk[0]), dealer, deck=deck)
    except StrategyError as e:
        if table is not None:
            table.close()
            table = None
        told = []
        if narrate and all(p.swapped is not None for i, p in enumerate(seated) if i in bots):
            again = [
                _Swapped(p.name, p.swapped) if i in bots else p.player for i, p in enumerate(seated)
            ]
            told = _told_until_failure(
                spec, again, int(dk[0]), int(sk[0]), dealer, chosen, labels, deck
            )
        raise GameFailed(str(e), told, asked[-1] if asked else None, len(chosen)) from None
    finally:
        if table is not None:
            table.close()
    lines: list[str] = []
    if narrate:
        lines, final = narrate_game(
            spec.rules,
            int(dk[0]),
            dealer,
            result.face_up,
            result.start_seat,
            result.move_codes,
            labels,
            [p.deterministic for p in players],
            deck,
        )
        places = [final.place_of(i) for i in range(spec.players)]
        if places != result.places:  # the record replays to another end: a bug, never silent
            raise RuntimeError(
                f"game {game}: the told game ends with places {places}, the played one with "
                f"{result.places}"
            )
        if result.unfinished:
            lines.append(
                "unfinished ("
                + {"cap": "move cap", "stalled": "stalled", "loop": "proven loop"}.get(
                    result.end, result.end
                )
                + ")"
                + (
                    "; placed by cards held"
                    if spec.rules.stalemate == "most_cards"
                    else "; the seats still in share the places left"
                )
            )
        order = sorted((p, i) for i, p in enumerate(result.places) if p)
        still = [i for i, p in enumerate(result.places) if not p]
        lines.append(
            "places: "
            + ", ".join(
                [f"{p}. seat {i} ({labels[i]})" for p, i in order]
                + [f"seat {i} ({labels[i]}) shares the places left" for i in still]
            )
        )
    return Replay(
        game, int(sched["deal"][0]), dealer, labels, seating, int(dk[0]), int(sk[0]), result, lines
    )


def saved_record(run_dir: Path, game: int) -> dict[str, np.ndarray] | None:
    """Game ``game``'s row of a run saved with ``--save-games`` (``games/*.parquet``), as
    a dict of column -> value; None when the run saved no games file holding it."""
    import pyarrow.parquet as pq

    for f in sorted((Path(run_dir) / "games").glob("*.parquet")):
        t = pq.read_table(f)
        games = t.column("game").to_numpy()
        hit = np.nonzero(games == game)[0]
        if hit.size:
            row = t.slice(int(hit[0]), 1).to_pydict()
            return {k: v[0] for k, v in row.items()}
    return None


def bot_replay_check(
    run_dir: Path, spec: RunSpec, game: int, rep: Replay | None, failed: GameFailed | None = None
) -> str | None:
    """What to say of a replayed game with a bot seat (None for a game without one): whether
    it agrees with the run's saved record of it (``--save-games``: the places and the number
    of moves; a game the replay's bot forfeited agrees when the run's record has that seat
    last after as many moves), or that the run kept no record to check it against. A bot
    is started again for the replay: one that is not deterministic, or that plays by what it
    remembers of its earlier games in the run, may play otherwise."""
    from shedsim.bot.protocol import is_bot

    sched = schedule_games(spec, game, game + 1)
    bots = sorted({spec.labels[e] for e in sched["seating"][0] if is_bot(spec.entries[int(e)])})
    if not bots:
        return None
    why = (
        f"the bot{'s' if len(bots) > 1 else ''} {', '.join(bots)} started again for the replay "
        "(a bot that is not deterministic, or that plays by what it remembers of its earlier "
        "games in the run, may play otherwise)"
    )
    try:
        rec = saved_record(run_dir, game)
    except Exception as e:  # noqa: BLE001 - a damaged games file: say so, the replay stands
        return f"note: the run's record of game {game} cannot be read ({e}); {why}"
    if rec is None:
        return (
            f"note: the run saved no record of game {game} (--save-games keeps them), so this "
            f"replay cannot be checked against it; {why}"
        )
    n = spec.players
    places = [int(rec[f"place_{s}"]) for s in range(n)]
    moves = int(rec["moves"])
    if failed is not None and failed.seat is not None:
        same = places[failed.seat] == n and moves == failed.moves
        got = f"seat {failed.seat} forfeits after {failed.moves} moves"
    elif rep is not None:
        same = places == [int(p) for p in rep.result.places] and moves == rep.result.moves
        got = f"places {rep.result.places}, {rep.result.moves} moves"
    else:
        return f"note: the replay stopped before the game could be checked; {why}"
    if same:
        return f"the replay agrees with the run's record of game {game} ({got})"
    return (
        f"warning: the replay differs from the run's record of game {game} (the run: places "
        f"{places}, {moves} moves; the replay: {got}): it is not the game the run played; {why}"
    )


class StrategyCrash(RuntimeError):
    """A strategy killed the process that played the game (a compiled plugin that read or
    wrote outside an array: numba does not check bounds); the message names it, and
    ``lines`` tells the game up to the decision that crashed (empty if it cannot)."""

    def __init__(self, message: str, lines: list[str] | None = None) -> None:
        super().__init__(message)
        self.lines = lines or []


def replay_game_guarded(spec: RunSpec, game: int, narrate: bool = True) -> Replay:
    """:func:`replay_game` in a child process (``fork``), so that a compiled strategy that
    crashes (a segmentation fault) cannot take the caller with it. Before each decision
    the child writes the strategy, seat, move and position to a file; when the child dies
    the last record names the strategy at fault. Where ``fork`` is not available the game
    is played here.

    Raises what :func:`replay_game` raises, and :class:`StrategyCrash` (naming the
    strategy, seat, move, run seed, game, deal and position) when the child is killed.
    The game up to the crash (``StrategyCrash.lines``) is told by replaying it here with
    each plugin decision in a forked child of its own (``replay_game(..., isolated=True)``,
    slower: only after a crash). A plugin decision that runs past ``SHEDSIM_DECISION_TIMEOUT``
    seconds is stopped (the child killed, :func:`shedsim.base.isolate.watch`) and the game
    replayed that way, which names it as ``shedsim play`` does (:class:`GameFailed`).
    """
    import multiprocessing as mp
    import os
    import signal
    import tempfile

    from shedsim.base.isolate import ChildTimeout, beat_word, watch
    from shedsim.base.isolate import decision_timeout

    try:
        ctx = mp.get_context("fork")
    except ValueError:
        return replay_game(spec, game, narrate)
    with tempfile.TemporaryDirectory(prefix="shedsim-trace-") as d:
        log = os.path.join(d, "calls")
        recv, send = ctx.Pipe(duplex=False)

        beat = beat_word()

        def child() -> None:
            import faulthandler

            faulthandler.disable()  # the parent reports a crash itself, in words
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

            def record(text: str) -> None:
                os.write(fd, text.encode() + b"\x1e")

            try:
                send.send(("ok", replay_game(spec, game, narrate, record, beat=beat)))
            except GameFailed as e:
                send.send(("strategy", (str(e), e.lines, e.seat, e.moves)))
            except StrategyError as e:
                send.send(("strategy", (str(e), [])))
            except ReplayError as e:
                send.send(("replay", str(e)))
            except BaseException as e:  # noqa: BLE001 - reported in the parent
                send.send(("error", f"{type(e).__name__}: {e}"))
            finally:
                send.close()
                os._exit(0)

        proc = ctx.Process(target=child, daemon=True)
        proc.start()
        send.close()
        try:
            watch(
                lambda pause: recv.poll(pause) or not proc.is_alive(),
                lambda: (proc.kill(), proc.join()),
                beat=(beat, 0),
                beat_s=decision_timeout(),
            )
        except ChildTimeout as stuck:
            replay_game(
                spec, game, narrate, isolated=True
            )  # raises GameFailed, naming the decision
            try:  # (it played through that way: name the decision the child was stuck in)
                with open(log, "rb") as f:
                    where = [r for r in f.read().decode(errors="replace").split("\x1e") if r][-1]
            except (OSError, IndexError):
                where = "a strategy decision"
            who, _, position = where.partition("; the position:\n")
            raise GameFailed(
                f"{who}: {stuck}\nthe position:\n{position}\n[run seed {spec.seed}, game {game}]",
                [],
            ) from None
        finally:
            if proc.is_alive() and not recv.poll():  # Ctrl-C: the child goes too
                proc.kill()
                proc.join()
        try:
            kind, value = recv.recv()
        except EOFError:
            kind, value = None, None
        proc.join()
        if kind == "ok":
            return value
        if kind == "strategy":
            raise GameFailed(*value)
        if kind == "replay":
            raise ReplayError(value)
        if kind == "error":
            raise RuntimeError(value)
        code = proc.exitcode
        try:
            with open(log, "rb") as f:
                records = [r for r in f.read().decode(errors="replace").split("\x1e") if r]
        except OSError:
            records = []
        sched = schedule_games(spec, game, game + 1)
        how = (
            f"signal {signal.Signals(-code).name}"
            if code is not None and code < 0 and -code in signal.Signals._value2member_map_
            else f"exit code {code}"
        )
        where = records[-1] if records else "before any strategy decision"
        lines: list[str] = []
        if narrate:
            try:  # again, each plugin decision in a child of its own: the moves before the crash
                replay_game(spec, game, narrate, isolated=True)
            except GameFailed as e:
                lines = e.lines
            except (StrategyError, ReplayError):
                pass
        raise StrategyCrash(
            f"the game crashed the process ({how}"
            + (
                ": a compiled strategy read or wrote outside an array"
                if code == -signal.SIGSEGV
                else ""
            )
            + f") during {where}\n[run seed {spec.seed}, game {game} (deal "
            f"{int(sched['deal'][0])}, "
            f"dealer seat {int(sched['dealer'][0])})]",
            lines,
        )
