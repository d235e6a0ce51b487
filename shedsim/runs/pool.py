"""The workers of a study that keeps no run store (``tips``, ``tune``) and the cut of its
deals into pieces for them.

A study's calls are played on one pool (loky) or cluster (dask, ray) entered once for the
whole study (:class:`Pool`), or one after the other in this process (:class:`InProcess`);
both have ``slots`` (calls played at a time) and ``map`` (results in call order). Results
that are per-deal arrays cut by :func:`split_range` and put back in order do not depend
on the number of workers.
"""

from __future__ import annotations

import contextlib
from typing import Any
from collections.abc import Callable


class InProcess:
    """The calls of a study played one after the other in this process (the pool of one
    local worker, :class:`shedsim.runs.pool.Pool`'s interface)."""

    slots = 1

    def map(self, calls):
        return [fn(*args) for fn, args in calls]


class Pool:
    """The workers of a storeless study: one pool (loky) or cluster (dask, ray) for the
    whole study, entered once (:func:`shedsim.runs.simulate.backend_config`); :meth:`map`
    runs calls on it in order. ``slots``: the calls played at a time."""

    def __init__(self, workers: int, backend: str = "loky", scheduler: str | None = None) -> None:
        self.workers, self.backend, self.scheduler = workers, backend, scheduler
        self.slots = workers
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Pool:
        if self.workers > 1 or self.backend != "loky":
            from shedsim.runs.simulate import backend_config

            self.slots = self._stack.enter_context(
                backend_config(self.backend, self.workers, self.scheduler)
            )
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def map(self, calls: list[tuple[Callable[..., Any], tuple]]) -> list[Any]:
        """``[fn(*args) for fn, args in calls]``, played on the workers (in this process
        with one local worker). Raises what a call raises."""
        from shedsim.runs.simulate import run_calls

        out: list[Any] = [None] * len(calls)
        run_calls(
            calls, self.slots, self.backend, lambda k, r: out.__setitem__(k, r), self.scheduler
        )
        return out


def split_range(start: int, stop: int, parts: int, step: int = 1) -> list[tuple[int, int]]:
    """``[start, stop)`` cut into at most ``parts`` consecutive pieces of whole ``step``s
    (the deals of a study: a piece never splits one), the first pieces one step longer
    when they do not divide evenly. Results that are per-deal arrays put back in order do
    not depend on the cut."""
    units = max(0, (stop - start) // step)
    parts = max(1, min(parts, units)) if units else 1
    size, extra = divmod(units, parts)
    out, a = [], start
    for i in range(parts):
        b = a + (size + (i < extra)) * step
        out.append((a, b))
        a = b
    return out


__all__ = ["InProcess", "Pool", "split_range"]
