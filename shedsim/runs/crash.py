"""Naming the strategy that killed a worker process (issue 10, part 5).

numba does not check array bounds, so a compiled plugin that indexes outside an array can
kill the process that plays it (a segmentation fault). joblib then reports only that a
worker died. :func:`name_crash` finds the culprit after the fact, in two steps, each in
a forked child process so that the crash cannot take the caller with it:

1. replay the chunks that were in flight, one at a time, with the kernel's status words in
   memory shared with the parent (``status[0]`` is the game in progress): the child that
   dies leaves the index of the game that killed it;
2. play that game on the reference engine with a flight recorder: before each decision the
   child writes the strategy, seat, move and position to a file, so the last record names
   the strategy that crashed, where and when.

Same seed, same games: the chunk replays the run's own games, so the crash repeats.
"""

from __future__ import annotations

import mmap
import multiprocessing as mp
import os
import signal
import tempfile
from collections.abc import Sequence

import numpy as np

from shedsim.runs.simulate import RunSpec, play_chunk, replay_command, schedule_games
from shedsim.seeding import game_keys

MAX_SUSPECTS = 16
"""At most this many in-flight chunks are replayed to find the one that crashes."""


def is_dead_worker(err: BaseException) -> bool:
    """Whether ``err`` is joblib/loky's report that a worker process died (killed by a
    signal or exited: ``BrokenProcessPool`` and its ``TerminatedWorkerError``)."""
    from concurrent.futures import BrokenExecutor
    return isinstance(err, BrokenExecutor)


def _how(code: int | None) -> str:
    if code is not None and code < 0 and -code in signal.Signals._value2member_map_:
        name = signal.Signals(-code).name
        return f"signal {name}" + (": a compiled strategy read or wrote outside an array"
                                   if -code in (signal.SIGSEGV, signal.SIGBUS) else "")
    return f"exit code {code}"


def _fork():
    try:
        return mp.get_context("fork")
    except ValueError:  # no fork (Windows, or a platform that forbids it)
        return None


def crashing_game(spec: RunSpec, start: int, stop: int) -> tuple[int, int] | None:
    """Play games ``start..stop-1`` of ``spec`` in a forked child; when the child dies,
    ``(game index in the run, exit code)``; None when the chunk plays through (or raises:
    that is an ordinary failure, reported by the run itself) or fork is unavailable."""
    ctx = _fork()
    if ctx is None:
        return None
    buf = mmap.mmap(-1, 8 * 8)  # anonymous and shared: survives the child's death
    status = np.frombuffer(buf, dtype=np.int64)
    status[:] = -1

    def child() -> None:
        import faulthandler
        faulthandler.disable()  # the parent reports the crash in words
        try:
            play_chunk(spec, start, stop, ("moves",), status=status)
        except BaseException:  # noqa: BLE001 - not a crash; the run reports its own failures
            pass
        os._exit(0)

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    proc.join()
    code = proc.exitcode
    g = int(status[0])
    del status
    buf.close()
    if code == 0:
        return None
    return (start + g if g >= 0 else start), code


def flight_record(spec: RunSpec, game: int) -> tuple[str | None, int | None]:
    """Play game ``game`` of ``spec`` on the reference engine in a forked child that writes
    down each decision before making it. Returns (the last record: strategy, seat, move and
    position; the child's exit code), or (None, 0) when the game plays through."""
    from shedsim.plugins import discover, parse_spec
    from shedsim.rules.engine import play_game
    ctx = _fork()
    if ctx is None:
        return None, None
    sched = schedule_games(spec, game, game + 1)
    dk, sk = game_keys(spec.seed, sched["index"], sched["deal"], spec.stream)
    with tempfile.TemporaryDirectory(prefix="shedsim-crash-") as d:
        log = os.path.join(d, "calls")

        def child() -> None:
            import faulthandler
            faulthandler.disable()
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

            def record(text: str) -> None:
                os.write(fd, text.encode() + b"\x1e")
            try:
                known = discover(list(spec.strategy_paths))
                players = []
                for seat, e in enumerate(sched["seating"][0]):
                    name, overrides = parse_spec(spec.entries[e])
                    players.append(_Recorded(known[name].player(spec.labels[e], overrides), seat, record))
                play_game(spec.rules, players, int(dk[0]), int(sk[0]), int(sched["dealer"][0]))
            except BaseException:  # noqa: BLE001 - only a crash is looked for here
                pass
            os._exit(0)

        proc = ctx.Process(target=child, daemon=True)
        proc.start()
        proc.join()
        try:
            with open(log, "rb") as f:
                records = [r for r in f.read().decode(errors="replace").split("\x1e") if r]
        except OSError:
            records = []
    if proc.exitcode == 0:
        return None, 0
    return (records[-1] if records else "before any strategy decision"), proc.exitcode


class _Recorded:
    """A player that writes down each decision before making it (see :func:`flight_record`)."""

    def __init__(self, player, seat: int, record) -> None:
        self.player, self.seat, self.record, self.name = player, seat, record, player.name

    @property
    def deterministic(self) -> bool:
        return bool(getattr(self.player, "deterministic", False))

    @property
    def params(self):
        return getattr(self.player, "params", None)

    def swap(self, visible, seat, players, rules_array, rng):
        self.record(f"strategy {self.name!r} at seat {self.seat}, in the swap phase")
        return self.player.swap(visible, seat, players, rules_array, rng)

    def move(self, state, obs, rules_array, rng, legal):
        self.record(f"strategy {self.name!r} at seat {self.seat}, choosing move {state.moves + 1}; the "
                    f"position:\n{state.describe()}")
        return self.player.move(state, obs, rules_array, rng, legal)


def name_crash(tasks: Sequence[tuple[RunSpec, int]]) -> tuple[str, int | None] | None:
    """After a worker died: replay the in-flight chunks ``tasks`` (``(spec, chunk)``, in the
    order they were handed out) to find the game and strategy that crash. Returns (the
    message: strategy, seat, move, position, run seed, game, deal and the ``shedsim
    trace`` command that replays it; the game index), or None when no chunk crashes again
    (the worker died of something else, e.g. out of memory or killed from outside)."""
    for spec, chunk in list(tasks)[:MAX_SUSPECTS]:
        found = crashing_game(spec, *spec.chunk_bounds(chunk))
        if found is None:
            continue
        game, code = found
        sched = schedule_games(spec, game, game + 1)
        where, engine_code = flight_record(spec, game)
        head = (f"run seed {spec.seed}, game {game} (deal {int(sched['deal'][0])}, "
                f"dealer seat {int(sched['dealer'][0])})")
        if where is None:
            seats = ", ".join(f"seat {i} {spec.labels[e]!r}" for i, e in enumerate(sched["seating"][0]))
            where = f"a decision of one of the strategies at the table ({seats})"
        command = replay_command(spec, game)
        return (f"a worker process crashed ({_how(code)}) during {where}\n[{head}]"
                + (f"\nreplay it move by move: {command}" if command else ""), game)
    return None
