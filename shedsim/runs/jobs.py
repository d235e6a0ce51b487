"""What a command plays, as the run machinery sees it (:class:`Job`: its chunks, how each is
reduced to small arrays, when a sequential test has enough), and playing the chunks a run
store lacks into it (:func:`play`: each chunk stored as it arrives, a signal keeping every
finished one; :class:`Outcome`). The session around a run (the directory, signals, progress,
reports) is :mod:`shedsim.runs.execute`', which re-exports every name here.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable

import numpy as np

from shedsim.runs.simulate import ChunkResult, RunSpec, SimulationError
from shedsim.runs.store import RunStore, array_problem


PAUSE_ENV = "SHEDSIM_TEST_CHUNK_PAUSE"
"""Testing only: seconds to wait after storing each chunk (so a test can signal or kill a
run reliably between two chunks). Unset: no pause."""


class ChunkShapeError(RuntimeError):
    """A chunk's arrays (:meth:`Job.reduce`) differ from the command's :meth:`Job.template`
    and ``ragged`` names: a defect in the command, found before the chunk is stored, so
    no run store holds a chunk its own ``--resume`` would call damaged."""


class Job:
    """What a command plays, as the machinery sees it. Subclasses set ``command`` (the
    command's name, e.g. ``"tournament"``), ``key`` (hash of what decides the results),
    ``spec_json`` (spec.json's content, with ``format`` and ``key``), ``tasks`` (chunk k ->
    ``(RunSpec, chunk number of that spec)``), ``keep`` (the kernel record fields needed)
    and implement :meth:`reduce` and :meth:`template`."""

    command: str = ""
    key: str = ""
    spec_json: dict[str, Any] = {}
    tasks: list[tuple[RunSpec, int]] = []
    keep: tuple[str, ...] | None = None
    strategies: list[str] | None = None
    """The strategies in play as the user wrote them (named by the progress bar's stall notice)."""
    ragged: tuple[str, ...] = ()
    """Names of 1-D arrays whose length varies between chunks (see :meth:`RunStore.check_chunk`)."""

    @property
    def n_chunks(self) -> int:
        return len(self.tasks)

    @property
    def games(self) -> int:
        """Games in the whole run."""
        return sum(self.chunk_games(k) for k in range(self.n_chunks))

    def chunk_games(self, k: int) -> int:
        s, c = self.tasks[k]
        a, b = s.chunk_bounds(c)
        return b - a

    def call(self, k: int) -> tuple[Callable[..., Any], tuple]:
        """Chunk ``k``'s work as ``(function, args)``, run in a worker process; what it
        returns goes to :meth:`reduce`. Default: :func:`shedsim.runs.simulate.play_chunk` of
        ``tasks[k]`` (a :class:`shedsim.runs.simulate.ChunkResult`). Override for work that
        is not a plain chunk of games (e.g. rollouts of sample deals); the function must be
        picklable (module level) and depend only on its arguments."""
        from shedsim.runs.simulate import play_chunk

        s, c = self.tasks[k]
        return play_chunk, (s, *s.chunk_bounds(c), self.keep)

    def reduce(self, k: int, result: Any, store: RunStore) -> dict[str, np.ndarray]:
        """Chunk ``k``'s result (per-game records by default) -> the arrays to store (in
        the main process). May write companion files through ``store`` (they must be
        written before the chunk file, which marks the chunk done)."""
        raise NotImplementedError

    sequential_test: bool = False
    """A sequential test that stops once it has decided (:meth:`enough`), whose length is
    known only as it plays (:meth:`expected_games`)."""

    def enough(self, done: list[int]) -> bool:
        """Whether the run may stop with the chunks ``done`` (sorted): a sequential test
        that has decided. Checked after every stored chunk (chunks are stored in plan
        order); True ends the run as complete. Default: never (every chunk is played)."""
        return False

    def expected_games(self) -> int | None:
        """A sequential test's expected games in all at its decision, from what it has seen
        so far (:meth:`games` is then only its bound); None when that is not known yet.
        Default (every chunk is played): :meth:`games`."""
        return self.games

    def template(self, k: int) -> dict[str, np.ndarray]:
        """Zeroed arrays with the dtype and shape chunk ``k``'s stored arrays must have."""
        raise NotImplementedError

    def warm_spec(self) -> RunSpec:
        """The run spec a cluster's workers load (and check their code with) before play
        (:func:`shedsim.runs.simulate.warm_workers`). Default: the first task's; a job whose
        tasks are not chunks of a spec (sprt, gauntlet) gives its match's."""
        return self.tasks[0][0]

    def extra_dirs(self, store: RunStore) -> list[Path]:
        """Folders besides ``chunks/`` the run writes per chunk (created, cleaned of temp files)."""
        return []

    def chunk_also_done(self, store: RunStore, k: int, strict: bool) -> bool:
        """A command's extra condition for chunk ``k`` to count as done (e.g. its games
        file exists); with ``strict``, raise ``store.Error`` for a damaged companion."""
        return True

    def clear_extra(self, store: RunStore) -> list[tuple[Path, str]]:
        """``(folder, glob)`` of companion files to remove when a new run replaces an old one."""
        return []

    def replay_hint(self, store: RunStore, game: int) -> str | None:
        """A command that replays the failed game ``game`` from this run's directory (added
        to a strategy failure's message), or None."""
        return None


@dataclass
class Outcome:
    """What :func:`play` did: chunks done in all (this and earlier sessions), games played
    now, play time (s), whether it stopped early, whether every chunk is done, and the
    signal that stopped it (``"SIGINT"``, ``"SIGTERM"``, ``"stop-after"`` or None)."""

    done: list[int]
    played_now: int
    play_s: float
    interrupted: bool
    complete: bool
    stopped_by: str | None = None
    rate_games: int = 0
    """Games played after the first round of chunks (:class:`shedsim.runs.progress.PlayRate`)."""
    rate_s: float = 0.0
    """Seconds of play after the first round of chunks; 0 when no second round was played."""

    def games_per_s(self) -> float | None:
        """Games per second of play only (:class:`shedsim.runs.progress.PlayRate`: starting the
        workers and loading or compiling the kernel are not counted); where no second round
        of chunks was played, over the whole play time; None when nothing was played."""
        if self.rate_s > 0 and self.rate_games > 0:
            return self.rate_games / self.rate_s
        return self.played_now / self.play_s if self.play_s > 0 and self.played_now else None


class _Enough(Exception):
    """Raised inside :func:`play` when :meth:`Job.enough` says the run may stop."""


def done_chunks(job: Job, store: RunStore, strict: bool = False) -> list[int]:
    """The chunks of ``job`` stored in ``store``; ``strict`` checks every chunk file
    whole (raises ``store.Error`` naming a damaged or foreign one)."""
    return store.stored_chunks(
        job.key,
        job.n_chunks,
        strict=strict,
        check=lambda k: store.check_chunk(job.key, k, job.template(k), job.ragged),
        also=lambda k, s: job.chunk_also_done(store, k, s),
    )


def start_fresh(job: Job, store: RunStore) -> None:
    """Remove the chunk files of an earlier run in ``store`` and write spec.json (with its
    checksum) before any chunk of this run is written."""
    from shedsim.bot import log as bot_log

    store.clear_chunks(job.clear_extra(store))
    bot_log.clear(store.root)
    store.prepare(job.extra_dirs(store))
    store.write_spec(job.spec_json)


def play(
    job: Job,
    store: RunStore,
    workers: int = 1,
    backend: str = "loky",
    resume: bool = False,
    stop_after: int | None = None,
    on_progress: Callable[[int], None] | None = None,
    scheduler: str | None = None,
    stopped: Callable[[], str | None] | None = None,
) -> Outcome:
    """Play the chunks ``store`` lacks, storing each chunk's arrays as it arrives.

    Without ``resume`` the store is started afresh (:func:`start_fresh`). ``stop_after``
    plays at most that many chunks and stops as if interrupted (tests of resume). A
    ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM under :class:`Session`) also stops: every
    finished chunk is kept and the outcome says ``interrupted``; ``stopped()`` names the
    signal. Raises :class:`shedsim.runs.simulate.SimulationError` (a strategy failed),
    :class:`shedsim.runs.atomic.WriteError` (a chunk could not be stored: the earlier ones
    are kept), :class:`ChunkShapeError` (a chunk's arrays are not what the command's
    ``--resume`` check expects: it is not stored) and, with ``resume``, ``store.Error`` for a
    damaged or foreign chunk file.
    """
    from shedsim.runs.simulate import run_calls

    if resume:
        done = set(done_chunks(job, store, strict=True))
        store.prepare(job.extra_dirs(store))
    else:
        start_fresh(job, store)
        done = set()
    todo = [] if job.enough(sorted(done)) else [k for k in range(job.n_chunks) if k not in done]
    limited = stop_after is not None and stop_after < len(todo)
    if limited:
        todo = todo[: max(0, stop_after)]
    played = 0
    try:
        pause = float(os.environ.get(PAUSE_ENV, "0") or 0)
    except ValueError:
        pause = 0.0

    def on_result(j: int, r: Any) -> None:
        nonlocal played
        k = todo[j]
        arrays = job.reduce(k, r, store)
        wrong = array_problem(arrays, job.template(k), job.ragged)
        if wrong:  # a chunk --resume would refuse is never stored
            raise ChunkShapeError(
                f"chunk {k} of this {job.command} run does not have the arrays its --resume "
                f"check expects ({wrong}); the run stops before storing it"
            )
        if (
            getattr(r, "bots", None) is not None
        ):  # bot seats: their forfeits, faults and log, before the chunk
            from shedsim.bot import log as bot_log

            bot_log.save_chunk(store.root, job.key, k, r.bots)
        store.save_chunk(job.key, k, arrays)
        if isinstance(r, ChunkResult):
            r.records.clear()
            r.seating = None
        done.add(k)
        n = job.chunk_games(k)
        played += n
        decided = job.enough(
            sorted(done)
        )  # before the progress, which shows a test's expected length
        if on_progress:
            on_progress(n)
        if pause > 0:
            time.sleep(pause)
        if decided:
            raise _Enough

    t0 = time.perf_counter()
    interrupted, by = limited, ("stop-after" if limited else None)
    try:
        if todo:
            try:
                run_calls(
                    [job.call(k) for k in todo],
                    workers=workers,
                    backend=backend,
                    on_result=on_result,
                    scheduler=scheduler,
                )
            except Exception as e:
                from shedsim.runs.crash import is_dead_worker, name_crash

                if not is_dead_worker(e):
                    raise
                # a worker died (a compiled strategy crashed it?): replay what was in flight
                found = name_crash(
                    [job.tasks[k] for k in todo if k not in done and k < len(job.tasks)]
                )
                if found is None:
                    raise
                raise SimulationError(*found) from None
    except _Enough:
        interrupted, by = False, None
    except KeyboardInterrupt:
        interrupted, by = True, (stopped() if stopped else None) or "SIGINT"
        played -= sum(job.chunk_games(k) for k in done)
        done = set(
            done_chunks(job, store)
        )  # the signal may have landed just after a chunk was stored
        played += sum(job.chunk_games(k) for k in done)
    play_s = time.perf_counter() - t0
    complete = len(done) == job.n_chunks or job.enough(sorted(done))
    return Outcome(
        sorted(done),
        played,
        play_s,
        interrupted and not complete,
        complete,
        by if interrupted and not complete else None,
    )
