"""``shedsim compile``: every game loop and strategy compiled now, the two loops at once.

A kernel holds a fast game loop (strategies inlined) and a standard one (strategies that
allocate arrays, ``INLINE = False``); numba compiles each on its first call and caches it
on disk, so the next process loads it in well under a second. :class:`StandardLoop` plays
one game of the standard loop in a forked process while this process compiles the fast
loop, the reference engine's strategies and whatever else it is given, so that on a
machine with two CPUs or more the slowest of them sets the time, not their sum.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable

import numpy as np

from shedsim.runs.simulate import RunSpec, play_chunk


class CompileError(Exception):
    """A compiled strategy fails on the reference engine (the message names it and gives
    the command that replays the game)."""


def _play_one(spec: RunSpec) -> None:
    play_chunk(spec, 0, 1)


def _child(spec: RunSpec) -> None:
    try:
        _play_one(spec)
    except BaseException:  # noqa: BLE001 - the parent plays the game again and names the error
        os._exit(1)
    os._exit(0)


class StandardLoop:
    """One game of ``spec`` (a run on the standard loop; None: no strategy needs it)
    started at once in a forked process when this machine has a second CPU; a context
    manager that stops the process when the block raises."""

    def __init__(self, spec: RunSpec | None) -> None:
        self.spec, self._proc = spec, None
        if spec is not None and (os.cpu_count() or 1) > 1:
            self._proc = mp.get_context("fork").Process(target=_child, args=(spec,), daemon=True)
            self._proc.start()

    def __enter__(self) -> StandardLoop:
        return self

    def __exit__(self, kind, *_) -> None:
        if kind is not None and self._proc is not None and self._proc.is_alive():
            self._proc.kill()
            self._proc.join()

    def finish(self) -> None:
        """Wait for the forked compile. When it failed, or none was started, play the game
        here, so that a failing strategy raises here, as a one-process compile raises
        (:class:`shedsim.runs.simulate.SimulationError` naming it)."""
        if self._proc is not None:
            self._proc.join()
            if self._proc.exitcode == 0:
                return
        if self.spec is not None:
            _play_one(self.spec)


def compile_all(
    strategy_paths: tuple[str, ...] = (), meanwhile: Callable[[], None] | None = None
) -> list[str]:
    """Compile the kernel of the built-in strategies and those of ``strategy_paths`` (both
    game loops), and each compiled strategy's own functions (one game of each on the
    reference engine, game 0 of run seed 0 with it in both seats, as ``trace`` numbers
    it); call ``meanwhile`` (more to compile) while the standard loop compiles. The names
    of the compiled strategies.

    Raises :class:`shedsim.plugins.PluginError` (a plugin directory that cannot be read),
    :class:`CompileError` (a strategy fails on the reference engine) and what playing a
    game raises (:class:`shedsim.runs.simulate.SimulationError`).
    """
    from shedsim.kernel.build import inlinable
    from shedsim.plugins import discover
    from shedsim.rules.engine import StrategyError, play_game
    from shedsim.rules.ruleset import build
    from shedsim.runs.simulate import replay_command
    from shedsim.seeding import game_keys

    compiled = [s for s in discover(list(strategy_paths)).values() if s.compiled]
    rules = build("shithead", ["max_moves:50"])

    def one_game(name: str) -> RunSpec:
        return RunSpec(
            rules, 2, (name,), (name,), games=1, schedule="same", strategy_paths=strategy_paths
        )

    standard = [s.name for s in compiled if not inlinable(s)][
        :1
    ]  # the loop of strategies that allocate (mc)
    with StandardLoop(one_game(standard[0]) if standard else None) as loop:
        play_chunk(one_game(compiled[0].name), 0, 1)  # the fast game loop
        dk, sk = game_keys(0, np.array([0]))
        for s in compiled:  # the reference engine calls the strategies' own dispatchers
            players = [s.player(), s.player()]
            for p in players:  # a plugin that crashes is named (shedsim.base.isolate), not fatal
                p.isolated = s.outside
            try:
                play_game(rules, players, int(dk[0]), int(sk[0]), 0)
            except StrategyError as e:
                command = replay_command(one_game(s.name), 0)
                raise CompileError(
                    f"strategy {s.name!r} ({s.path}) fails on the reference engine: {e}"
                    + (f"\nreplay it move by move: {command}" if command else "")
                ) from None
        if meanwhile is not None:
            meanwhile()
        loop.finish()
    return [s.name for s in compiled]
