"""The kernel's two game loops compiled at once (``shedsim compile``).

A kernel holds a fast game loop (strategies inlined) and a standard one (strategies that
allocate arrays, ``INLINE = False``); numba compiles each on its first call and caches it
on disk. :class:`StandardLoop` plays one game of the standard loop in a forked process
while this process compiles the fast loop, the reference engine's strategies and the hint
playouts, so that on a machine with two CPUs or more the slowest of them sets the time,
not their sum. The next process loads every one from numba's cache.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor

from shedsim.runs.simulate import RunSpec, play_chunk


def _play_one(spec: RunSpec) -> None:
    play_chunk(spec, 0, 1)


class StandardLoop:
    """One game of ``spec`` (a run on the standard loop; None: no strategy needs it)
    started at once in a forked process when this machine has a second CPU."""

    def __init__(self, spec: RunSpec | None) -> None:
        self.spec, self._pool, self._future = spec, None, None
        if spec is not None and (os.cpu_count() or 1) > 1:
            self._pool = ProcessPoolExecutor(1, mp_context=mp.get_context("fork"))
            self._future = self._pool.submit(_play_one, spec)

    def finish(self) -> None:
        """Wait for the forked compile. When it failed, or none was started, play the game
        here, so that a failing strategy raises here, as a one-process compile raises
        (:class:`shedsim.runs.simulate.SimulationError` naming it)."""
        if self._future is not None:
            try:
                self._future.result()
                return
            except Exception:  # noqa: BLE001 - replayed below, where its error is named
                pass
            finally:
                self._pool.shutdown()
        if self.spec is not None:
            _play_one(self.spec)
