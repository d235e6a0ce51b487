"""``shedsim compile``: every game loop and strategy compiled now, on every CPU.

A kernel holds several game loops (:attr:`shedsim.kernel.build.Kernel.loops`): the
standard one (strategies that allocate arrays, ``INLINE = False``), the fast one (every
inlinable strategy) and a copy of the fast one for each inlinable strategy alone. numba
compiles each on its first call and caches it on disk, so the next process loads it in well
under a second; a loop left uncompiled here would be compiled by the first run that needs
it, and by each of that run's worker processes at once. :func:`compile_all` plays one game
of each loop, and the extra warm-ups it is given, in forked processes, one per CPU, while
this process plays the reference engine's games.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial

import numpy as np

from shedsim.runs.simulate import RunSpec, loaded_kernel, play_chunk


class CompileError(Exception):
    """A compiled strategy fails on the reference engine (the message names it and gives
    the command that replays the game)."""


def _play_one(spec: RunSpec) -> None:
    play_chunk(spec, 0, 1)


def _succeeds(task: Callable[[], None]) -> bool:
    try:
        task()
    except BaseException:  # noqa: BLE001 - the parent runs the task again and names the error
        return False
    return True


def loop_games(strategy_paths: tuple[str, ...] = ()) -> dict[str, RunSpec]:
    """One game (2 seats, shithead, game 0 of run seed 0, capped at 50 moves) for each game
    loop of the kernel of the built-in strategies and those of ``strategy_paths``, by the
    loop's name (:attr:`shedsim.kernel.build.Kernel.loops`; the fast loop only where two
    strategies are inlinable). Raises :class:`shedsim.plugins.PluginError` (a plugin
    directory that cannot be read)."""
    from shedsim.kernel.build import inlinable
    from shedsim.plugins import discover
    from shedsim.rules.ruleset import build

    rules = build("shithead", ["max_moves:50"])
    compiled = [s for s in discover(list(strategy_paths)).values() if s.compiled]

    def game(names: tuple[str, ...], schedule: str) -> RunSpec:
        return RunSpec(
            rules, 2, names, names, games=1, schedule=schedule, strategy_paths=strategy_paths
        )

    fast = [s.name for s in compiled if inlinable(s)]
    slow = [s.name for s in compiled if not inlinable(s) and not s.traits.cheating]
    games = {}
    if slow:
        games["play_chunk"] = game((slow[0],), "same")
    if len(fast) > 1:
        games["play_chunk_fast"] = game((fast[0], fast[1]), "head-to-head")
    k = loaded_kernel(next(iter(games.values())) if games else game((fast[0],), "same"))[1]
    for name in fast:
        games[f"play_chunk_one{k.ids[name]}"] = game((name,), "same")
    return games


def _reference_games(strategy_paths: tuple[str, ...], compiled) -> None:
    """One game of each compiled strategy on the reference engine (its own dispatchers),
    game 0 of run seed 0 with it in both seats; raises :class:`CompileError` naming the
    strategy that fails."""
    from shedsim.rules.engine import StrategyError, play_game
    from shedsim.rules.ruleset import build
    from shedsim.runs.simulate import replay_command
    from shedsim.seeding import game_keys

    rules = build("shithead", ["max_moves:50"])
    dk, sk = game_keys(0, np.array([0]))
    for s in compiled:
        if s.traits.cheating:  # the reference engine cannot play it (Strategy.player)
            continue
        players = [s.player(), s.player()]
        for p in players:  # a plugin that crashes is named (shedsim.base.isolate), not fatal
            p.isolated = s.outside
        try:
            play_game(rules, players, int(dk[0]), int(sk[0]), 0)
        except StrategyError as e:
            one = RunSpec(
                rules, 2, (s.name,), (s.name,), games=1, schedule="same",
                strategy_paths=strategy_paths,
            )  # fmt: skip
            command = replay_command(one, 0)
            raise CompileError(
                f"strategy {s.name!r} ({s.path}) fails on the reference engine: {e}"
                + (f"\nreplay it move by move: {command}" if command else "")
            ) from None


def compile_all(
    strategy_paths: tuple[str, ...] = (), extras: Sequence[Callable[[], None]] = ()
) -> list[str]:
    """Compile every game loop of the kernel of the built-in strategies and those of
    ``strategy_paths`` (:func:`loop_games`), each compiled strategy's own functions (one
    game of each on the reference engine, as ``trace`` numbers it) and run ``extras``
    (picklable zero-argument callables: more to compile). The loops and extras run in
    forked processes, one per CPU (in this process on a machine with one CPU), after this
    process has compiled the first fast loop, whose functions the others share; the reference
    games follow here, loading what the loops compiled. The names
    of the compiled strategies.

    Raises :class:`shedsim.plugins.PluginError` (a plugin directory that cannot be read),
    :class:`CompileError` (a strategy fails on the reference engine) and what playing a
    game or an extra raises (:class:`shedsim.runs.simulate.SimulationError`): a task that
    fails in its process, or kills it, runs again here to raise its error.
    """
    from shedsim.plugins import discover

    compiled = [s for s in discover(list(strategy_paths)).values() if s.compiled]
    games = loop_games(strategy_paths)
    standard = games.pop("play_chunk", None)
    ones = [n for n in games if n.startswith("play_chunk_one")]
    first = games.pop(ones[0]) if ones else None
    tasks: list[Callable[[], None]] = [partial(_play_one, s) for s in games.values()] + list(extras)
    cpus = os.cpu_count() or 1
    if cpus == 1:
        for task in [partial(_play_one, s) for s in (standard, first) if s is not None] + tasks:
            task()
        _reference_games(strategy_paths, compiled)
        return [s.name for s in compiled]
    failed: list[Callable[[], None]] = []
    pool = ProcessPoolExecutor(cpus, mp_context=mp.get_context("fork"))
    try:
        # the standard loop (the longest compile) starts at once; the rest after this
        # process compiled the functions they share
        now = [partial(_play_one, standard)] if standard is not None else []
        started = [(t, pool.submit(_succeeds, t)) for t in now]
        if first is not None:
            _play_one(first)
        started += [(t, pool.submit(_succeeds, t)) for t in tasks]
        for task, future in started:
            try:
                ok = future.result()
            except BrokenProcessPool:
                ok = False
            if not ok:
                failed.append(task)
    except BaseException:  # an error or Ctrl-C here: the compiles still running stop too
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    for task in failed:  # raises the task's own error here
        task()
    # after the loops: the standard loop's process has compiled (and cached) the functions
    # of the strategies it calls, which the reference engine calls too
    _reference_games(strategy_paths, compiled)
    return [s.name for s in compiled]
