"""Naming the strategy that killed a worker process.

numba does not check array bounds, so a compiled strategy that indexes outside an array
can kill the process that plays it (a segmentation fault). A plugin from outside
``strategies/`` cannot: the kernel plays every call that holds one in a forked child and
names the crash itself (:mod:`shedsim.base.isolate`,
:func:`shedsim.runs.simulate.describe_failure`),
in whatever command, with any number of workers. This module is the fallback for a worker
that died anyway (a built-in strategy, or a worker killed from outside, e.g. for memory):
joblib then reports only that a worker died, and :func:`name_crash` looks for the culprit
after the fact, in two steps, each in a forked child process so that the crash cannot
take the caller with it:

1. replay the chunks that were in flight, one at a time, with the kernel's status words in
   memory shared with the parent (``status[0]`` is the game in progress): the child that
   dies leaves the index of the game that killed it;
2. play that game on the reference engine with a flight recorder
   (:func:`shedsim.runs.recorder.record_game`): the last record names the strategy, seat,
   move and position.

Same seed, same games: the chunk replays the run's own games, so the crash repeats.
"""

from __future__ import annotations

import mmap
import multiprocessing as mp
import os
from collections.abc import Sequence

import numpy as np

from shedsim.runs.recorder import crash_message, record_game
from shedsim.runs.simulate import RunSpec, play_chunk, replay_command, schedule_games
from shedsim.seeding import game_keys

MAX_SUSPECTS = 16
"""At most this many in-flight chunks are replayed to find the one that crashes."""


def is_dead_worker(err: BaseException) -> bool:
    """Whether ``err`` is joblib/loky's report that a worker process died (killed by a
    signal or exited: ``BrokenProcessPool`` and its ``TerminatedWorkerError``)."""
    from concurrent.futures import BrokenExecutor

    return isinstance(err, BrokenExecutor)


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


def flight_record(spec: RunSpec, game: int) -> tuple[str | None, int]:
    """Play game ``game`` of ``spec`` on the reference engine in a forked child that writes
    down each decision before making it (:func:`shedsim.runs.recorder.record_game`).
    Returns (the last record: strategy, seat, move and position; the child's exit status),
    or (None, 0) when the game plays through."""
    from shedsim.plugins import discover, parse_spec

    sched = schedule_games(spec, game, game + 1)
    dk, sk = game_keys(spec.seed, sched["index"], sched["deal"], spec.stream)
    known = discover(list(spec.strategy_paths))
    players = []
    for e in sched["seating"][0]:
        name, overrides = parse_spec(spec.entries[e])
        players.append(known[name].player(spec.labels[e], overrides))
    decks = spec.decks(sched)
    return record_game(
        spec.rules,
        players,
        int(dk[0]),
        int(sk[0]),
        int(sched["dealer"][0]),
        None if decks is None else decks[0],
    )


def name_crash(tasks: Sequence[tuple[RunSpec, int]]) -> tuple[str, int | None] | None:
    """After a worker died: replay the in-flight chunks ``tasks`` (``(spec, chunk)``, in the
    order they were handed out) to find the game and strategy that crash. Returns (the
    message: strategy, seat, move, position, run seed, game, deal and the ``shedsim
    trace`` command that replays it; the game index), or None when no chunk crashes again
    (the worker died of something else, e.g. out of memory or killed from outside)."""
    for spec, chunk in [t for t in tasks if t[0] is not None][:MAX_SUSPECTS]:
        found = crashing_game(spec, *spec.chunk_bounds(chunk))
        if found is None:
            continue
        game, code = found
        sched = schedule_games(spec, game, game + 1)
        where, _ = flight_record(spec, game)
        head = (
            f"run seed {spec.seed}, game {game} (deal {int(sched['deal'][0])}, "
            f"dealer seat {int(sched['dealer'][0])})"
        )
        seats = [spec.labels[e] for e in sched["seating"][0]]
        return crash_message(code, where, head, seats, replay_command(spec, game)), game
    return None
