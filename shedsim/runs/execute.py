"""Executing a run: the one place every command that plays games goes through.

Flow::

    command's spec (a Job)                       what to play, its key and spec.json
      -> plan: job.tasks                         chunk k = (RunSpec, chunk of it); one seed per
                                                 game from the run seed (shedsim.seeding), so
                                                 results never depend on chunking or workers
      -> workers: simulate.run_calls             job.call(k), by default play_chunk of tasks[k];
                                                 loky locally, dask/ray on a cluster
      -> job.reduce(k, result)                   a chunk's counters (small int arrays)
      -> store: RunStore.save_chunk              DIR/chunks/NNNNN.npz, atomic, key + number
      -> job aggregates the stored chunks        (after play: sum / fill, any order)
      -> the command's analysis and reports      written by Session.write_reports, with
                                                 run.json's core fields from run_info

:class:`Session` gives every command the same ``--out`` safety and lock
(:mod:`shedsim.runs.store`), ``--resume``, Ctrl-C and SIGTERM handling (finished chunks
kept, partial reports written, exit 130 or 143), the progress bar, cluster start-up,
and run.json's core fields (command, spec, versions, seed, sessions, wall time, games/s,
peak memory, complete or partial). Command modules only parse options, call it, print.

Adopting it (see :class:`shedsim.analysis.tournament.TournamentJob` and
:class:`shedsim.analysis.compare_run.CompareJob`): subclass :class:`Job` (key, spec_json,
tasks, reduce, template; ``call`` for work that is not a plain chunk of games, such as
rollouts; ``enough`` for a sequential test that stops once it has decided), give the
command a :class:`shedsim.runs.store.RunStore` subclass naming its error class, then in
the CLI: ``Session.open`` -> ``Session.run`` -> aggregate the stored chunks ->
``Session.run_info`` + ``Session.write_reports`` -> ``Session.exit_code``.
"""

from __future__ import annotations

import contextlib
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterator

import numpy as np

from shedsim.base import atomic, jsontext
from shedsim.runs.progress import (
    KEEPS_CHUNKS,  # noqa: F401
    STALL_NOTICE_S,  # noqa: F401
    PlayRate,
    bar_task,
    estimator,  # noqa: F401
    progress_bar,
    stall_message,  # noqa: F401
    stall_notice_s,  # noqa: F401
    stop_hint,
)
from shedsim.runs.runinfo import (
    command_line,  # noqa: F401
    core_info,
    finish_info,
    json_default,  # noqa: F401
    peak_rss_mb,  # noqa: F401
    session_entry,
    versions,  # noqa: F401
    write_run_json,
)
from shedsim.runs.simulate import BackendError, SimulationError
from shedsim.runs.jobs import (  # noqa: F401 - re-exported: the job and its play
    PAUSE_ENV,
    ChunkShapeError,
    Job,
    Outcome,
    done_chunks,
    play,
    start_fresh,
)
from shedsim.runs.store import RunStore, StoreError

EXIT_INTERRUPTED = 130
"""Exit code after Ctrl-C (SIGINT) or ``--stop-after``: 128 + SIGINT."""
EXIT_TERMINATED = 143
"""Exit code after SIGTERM: 128 + SIGTERM."""


class RunError(RuntimeError):
    """A run that could not go on: ``message`` for the user, ``code`` the exit status
    (1 a strategy or worker failed; 2 bad input or a busy/foreign directory; 3 a file could
    not be written)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


# ------------------------------------------------------------------ the session
@dataclass
class Session:
    """One command's run in one directory, from the lock to run.json.

    Use as a context manager::

        with Session("tournament", store, resume=False, outputs=OUTPUTS) as s:
            s.open(job)                      # (fresh run) check --out, lock
            outcome = s.run(job, workers=...)
            total = ...                      # the command aggregates the stored chunks
            files = s.write_reports(lambda: write_outputs(...), info)
        sys.exit(s.exit_code(outcome))

    Entering installs handlers for SIGINT and SIGTERM: while games are played either
    raises ``KeyboardInterrupt`` (play stops, finished chunks are kept); once play is over
    (:meth:`finishing`) it is only noted (the results and reports are finished first).
    Leaving restores the handlers and releases the lock. Every failure is raised as
    :class:`RunError` with its
    exit code and a message that says what was kept and how to continue.
    """

    command: str
    store: RunStore | None
    """The run's directory; None for a command that writes nothing (only the signals apply)."""
    resume: bool = False
    outputs: tuple[str, ...] = ()
    force: bool = False
    quiet: bool = False
    console: Any = None
    resume_hint: str = ""
    """What to type to continue (e.g. ``shedsim tournament --resume DIR``)."""
    scratch: bool = False
    """The store is a temporary directory, deleted when the command ends (``sprt``
    without ``--out``): failure messages then say nothing is kept, not where."""
    plots: bool = True
    """Whether the reports include the charts (``--no-plots``: False). Stored in a fresh
    run's spec.json; on ``--resume`` a run started with ``--no-plots`` stays without charts."""
    soft: bool = False
    """A first SIGINT/SIGTERM is only noted (``got_signal``: the command stops at its next
    safe point, e.g. tune after the trial in progress); a second raises ``KeyboardInterrupt``."""
    got_signal: str | None = None
    """The signal received (``"SIGINT"``, ``"SIGTERM"``), if any."""
    wall_s: float = 0.0
    t_start: float = field(default_factory=time.perf_counter)
    _defer: bool = False
    _old: dict[int, Any] = field(default_factory=dict)
    _lock: Any = None

    # -------------------------------------------------------------- signals
    def _handler(self, signum, frame) -> None:  # noqa: ARG002
        again = self.got_signal is not None
        self.got_signal = signal.Signals(signum).name
        if not self._defer and (again or not self.soft):
            raise KeyboardInterrupt

    def __enter__(self) -> Session:
        for s in (signal.SIGINT, signal.SIGTERM):
            try:
                self._old[s] = signal.signal(s, self._handler)
            except ValueError:  # not the main thread: leave the handlers alone
                pass
        return self

    def __exit__(self, *exc) -> None:
        for s, h in self._old.items():
            signal.signal(s, h)
        self._old.clear()
        if self._lock is not None:
            self._lock.__exit__(None, None, None)
            self._lock = None

    def finishing(self) -> None:
        """The play is over: from now on SIGINT and SIGTERM are only noted (:attr:`got_signal`),
        so the command finishes its results and reports (a complete run still exits 0)
        instead of stopping half-way with a ``KeyboardInterrupt``. :meth:`run` calls it when
        play ends; a command that plays without :meth:`run` (tips, tune) calls it itself."""
        self._defer = True

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """Inside, SIGINT and SIGTERM are noted, not raised (reports are finished first)."""
        old, self._defer = self._defer, True
        try:
            yield
        finally:
            self._defer = old

    # -------------------------------------------------------------- the directory
    def open(self) -> None:
        """Make the directory ready and take its lock. A fresh run: refuse an unsafe
        ``--out`` (:meth:`RunStore.check_out`), prove it writable; ``--resume``: the
        directory must exist and hold a spec.json (whose ``plots`` False turns
        :attr:`plots` off). Raises :class:`RunError` (exit 2)."""
        opt = "--resume" if self.resume else "--out"
        try:
            if self.resume:
                if self.store.read_spec(opt).get("plots") is False:
                    self.plots = False
                self.store.check_writable(self.store.root, create=False, option=opt)
            else:
                self.store.check_out(
                    self.store.root,
                    (*self.outputs, "bots.log"),
                    force=self.force,
                    option=opt,
                    command=self.command,
                )
                self.store.check_writable(self.store.root, option=opt)
            lock = self.store.lock(opt)
            lock.__enter__()
            self._lock = lock
        except (StoreError, self.store.Error) as e:
            raise RunError(str(e), 2) from None

    def say(self, *a, **k) -> None:
        if not self.quiet and self.console is not None:
            self.console.print(*a, **k)

    # -------------------------------------------------------------- playing
    def run(
        self,
        job: Job,
        workers: int | None = 1,
        backend: str = "loky",
        scheduler: str | None = None,
        stop_after: int | None = None,
    ) -> tuple[Outcome, int]:
        """Play the missing chunks of ``job`` with a progress bar (unless quiet) on at most
        ``workers`` workers (None: one per CPU; fewer when the machine cannot hold them,
        :meth:`plan_workers`); on a cluster backend start it once and load the kernel in
        every worker first. Returns the outcome and the worker slots used. Raises
        :class:`RunError`: a backend that cannot be used (2), a chunk the memory cannot
        hold (2), a strategy or worker failure (1), a chunk that cannot be written (3), a
        damaged or foreign chunk on resume (2)."""
        store = self.store
        where = str(store.root)
        hint = self.resume_hint or f"shedsim {job.command} --resume {where}"

        def kept() -> str:
            if self.scratch:
                return f"no --out: the {len(done_chunks(job, store))} finished chunks are not kept"
            return (
                f"{len(done_chunks(job, store))} of {job.n_chunks} finished chunks are kept in "
                f"{where}"
            )

        if self.scratch:
            hint = (
                f"the same command with --out DIR, whose finished chunks shedsim {job.command} "
                "--resume DIR continues"
            )

        self.check_room(job)
        job.spec_json = {
            **job.spec_json,
            "plots": bool(self.plots),
        }  # a fresh spec.json keeps it for --resume
        workers = self.plan_workers(job, workers, scheduler)
        stored = done_chunks(job, store) if self.resume else []
        before = sum(job.chunk_games(k) for k in stored)
        rate = PlayRate()
        progress = self.estimator(job, before=before, rate=rate)
        cluster = contextlib.ExitStack()
        try:
            if backend != "loky":
                from shedsim.runs import simulate

                workers = cluster.enter_context(
                    simulate.backend_config(backend, workers, scheduler)
                )
                self.say(
                    f"{backend}: "
                    + (f"connected to {scheduler}" if scheduler else "started a local cluster")
                    + f", {workers} worker slot(s)"
                )
                simulate.warm_workers(job.warm_spec(), workers, backend, scheduler)
            rate.workers = max(
                1, min(workers, job.n_chunks - len(stored))
            )  # chunks played at a time
            stopped = lambda: self.got_signal  # noqa: E731
            if not self.quiet and self.console is not None:
                with progress_bar(
                    self.console,
                    job.strategies,
                    stop_hint=stop_hint(workers, backend, not self.scratch),
                ) as bar:
                    advance = bar_task(bar, job, before, rate, progress)
                    outcome = play(
                        job,
                        store,
                        workers,
                        backend,
                        self.resume,
                        stop_after,
                        advance,
                        scheduler,
                        stopped,
                    )
            else:
                outcome = play(
                    job,
                    store,
                    workers,
                    backend,
                    self.resume,
                    stop_after,
                    progress,
                    scheduler,
                    stopped,
                )
        except BackendError as e:
            raise RunError(str(e), 2) from None
        except SimulationError as e:
            again = None if getattr(e, "game", None) is None else job.replay_hint(store, e.game)
            again = f"\nreplay the game from this run: {again}" if again else ""
            raise RunError(f"{e}{again}\n({kept()})", 1) from None
        except atomic.WriteError as e:  # disk full while storing a chunk
            raise RunError(
                f"{e}\n({kept()}; free some space, then continue with: {hint})", 3
            ) from None
        except (StoreError, store.Error) as e:
            raise RunError(str(e), 2) from None
        except KeyboardInterrupt:  # outside the play loop (e.g. while starting workers)
            outcome = Outcome(
                done_chunks(job, store),
                0,
                time.perf_counter() - self.t_start,
                True,
                False,
                self.got_signal or "SIGINT",
            )
        except Exception as e:  # noqa: BLE001 - a worker died or could not load the kernel
            raise RunError(
                f"the run failed: {type(e).__name__}: {e}\n({kept()}; continue with: {hint})", 1
            ) from None
        finally:
            self.finishing()  # a signal from now on lets the reports be written
            if rate.rate() is not None and "outcome" in locals():
                outcome.rate_games, outcome.rate_s = rate.games, rate.seconds()
            try:
                cluster.close()
            except Exception:  # noqa: BLE001 - the run's results are already stored
                pass
        return outcome, workers

    def plan_workers(self, job: Job, workers: int | None, scheduler: str | None = None) -> int:
        """The workers to start for ``job`` (:func:`shedsim.runs.limits.plan_workers`: at most
        the CPUs and what the memory holds with the job's largest chunk); when that is fewer
        than ``workers`` (None: one per CPU) one note says so, also with --quiet. Raises
        :class:`RunError` (exit 2) when the memory cannot hold one chunk."""
        from shedsim.runs.limits import LimitError, plan_workers

        chunk = max((job.chunk_games(k) for k in range(job.n_chunks)), default=0)
        first = (
            job.tasks[0][0] if job.tasks else None
        )  # a RunSpec, or None for work that is not games of one
        players = int(getattr(first, "players", None) or getattr(job, "players", None) or 6)
        try:
            n, note = plan_workers(workers, scheduler, chunk, players)
        except LimitError as e:
            raise RunError(str(e), 2) from None
        if note and self.console is not None:
            self.console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
        return n

    def check_room(self, job: Job) -> None:
        """Refuse (``RunError``, exit 2) before anything is played when the file system
        cannot hold the chunk files still to write: their size is estimated from the
        command's zeroed chunk arrays (:meth:`Job.template`) written as one chunk file is
        (:func:`shedsim.runs.store.room_problem`). Files a command writes beside its chunks
        (``--save-games``) are not counted."""
        import io

        try:
            buf = io.BytesIO()
            np.savez(buf, **job.template(0), _key=np.array(job.key), _chunk=np.int64(0))
            chunk_bytes = len(buf.getvalue()) + 1024  # ragged arrays (pl_keys) grow: a margin
        except Exception:  # noqa: BLE001 - a job without a template: nothing to estimate
            return
        left = job.n_chunks - (len(done_chunks(job, self.store)) if self.resume else 0)
        from shedsim.runs.store import room_problem

        problem = room_problem(self.store.root, left, chunk_bytes)
        if problem:
            raise RunError(f"{'--resume' if self.resume else '--out'}: {problem}", 2)

    def estimator(
        self,
        job: Job,
        after_s: float = 5.0,
        say_over_s: float = 180.0,
        before: int = 0,
        rate: PlayRate | None = None,
        clock: Callable[[], float] | None = None,
    ) -> Callable[[int], None]:
        """:func:`shedsim.runs.progress.estimator` on this session's console."""
        return estimator(job, self.console, after_s, say_over_s, before, rate, clock)

    # -------------------------------------------------------------- run.json
    def run_info(
        self,
        job: Job,
        outcome: Outcome,
        workers: int,
        backend: str,
        command: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """run.json's core fields: ``command`` (default: the command line typed), ``spec``,
        ``seed``, ``versions``, ``complete``, ``interrupted_by``, ``chunks_done``,
        ``n_chunks``, ``workers``, ``backend``, ``sessions`` (this one appended to those of
        the earlier run.json when resuming: games played, play and wall seconds, games/s,
        peak memory of the main process in MiB, start time), ``play_s``, ``games_per_s``
        and ``wall_s`` over all sessions; then ``extra``. ``wall_s`` and the memory are
        filled in by :meth:`write_reports`, just before run.json is written."""
        prev: dict[str, Any] = {}
        if self.resume:
            try:
                prev = jsontext.load_file(self.store.root / "run.json")
            except (OSError, jsontext.JSONProblem):
                prev = {}
            if not isinstance(prev, dict):
                prev = {}
        session = session_entry(
            outcome.played_now,
            outcome.play_s,
            workers,
            backend,
            outcome.interrupted,
            time.time() - (time.perf_counter() - self.t_start),
            games_per_s=outcome.games_per_s(),
        )
        sessions = (
            [s for s in prev.get("sessions", []) if isinstance(s, dict)] + [session]
            if isinstance(prev.get("sessions", []), list)
            else [session]
        )
        return core_info(
            command,
            job.spec_json,
            job.spec_json.get("seed"),
            sessions,
            outcome.complete,
            outcome.stopped_by,
            **{
                "chunks_done": len(outcome.done),
                "n_chunks": job.n_chunks,
                "workers": workers,
                "backend": backend,
                **extra,
            },
        )

    def info(
        self,
        command: str,
        spec: dict[str, Any],
        seed: Any,
        games_played: int | None = None,
        play_s: float = 0.0,
        complete: bool = True,
        **extra: Any,
    ) -> dict[str, Any]:
        """run.json's core fields (:func:`core_info`) for a command that keeps no run
        store (tune, tips): one session of ``games_played`` games in ``play_s`` seconds."""
        session = session_entry(
            games_played,
            play_s,
            interrupted=not complete,
            started=time.time() - (time.perf_counter() - self.t_start),
        )
        return core_info(
            command, spec, seed, [session], complete, None if complete else self.got_signal, **extra
        )

    def write_files(
        self, out: Path | str, write: Callable[[], list[str]], info: dict[str, Any]
    ) -> list[str]:
        """For a command without a run store: write its reports and run.json into ``out``
        all or none, with signals deferred (as :meth:`write_reports`). Raises
        :class:`RunError` (3) naming the file that could not be written."""
        with self.deferred():
            try:
                with atomic.batch():
                    files = write()
                    self.wall_s = time.perf_counter() - self.t_start
                    write_run_json(out, finish_info(info, self.wall_s), files)
            except OSError as e:
                raise RunError(f"{e} (no file was written)", 3) from None
        return files

    def signal_code(self) -> int:
        """The exit code for the signal received: 143 after SIGTERM, else 130."""
        return EXIT_TERMINATED if self.got_signal == "SIGTERM" else EXIT_INTERRUPTED

    def write_reports(
        self, job: Job, outcome: Outcome, write: Callable[[], list[str]], info: dict[str, Any]
    ) -> list[str]:
        """Write the reports all or none (:func:`shedsim.runs.atomic.batch`) with signals
        deferred: ``write()`` writes the command's files and returns their names; then
        run.json (``info`` with this session's wall time and peak memory, and ``wall_s``
        summed over the sessions); then the earlier reports not written again are removed
        (:meth:`remove_stale`). Raises :class:`RunError` (3) when a file cannot be
        written: no report changes, the chunks are kept."""
        with self.deferred():
            try:
                with atomic.batch():
                    files = write()
                    if (
                        self.store.root / "bots.log"
                    ).is_file():  # written after each chunk of a run with bots
                        from shedsim.bot import log as bot_log

                        files = [*files, "bots.log"]
                        info = {
                            "bots": bot_log.summary(self.store.root, job.key, None, outcome.done),
                            **info,
                        }
                    wall = time.perf_counter() - self.t_start
                    write_run_json(self.store.root, finish_info(info, wall), files)
            except OSError as e:  # atomic.WriteError names the file
                where = str(self.store.root)
                raise RunError(
                    f"{e}\n(no report was written or changed; the {len(outcome.done)} of "
                    f"{job.n_chunks} "
                    f"finished chunks are kept in {where}; free some space, then write the "
                    "results with: "
                    f"{self.resume_hint or f'shedsim {job.command} --resume {where}'})",
                    3,
                ) from None
            self.remove_stale(files)
        self.wall_s = wall
        return files

    def remove_stale(self, files: list[str]) -> None:
        """Remove the reports of an earlier session that this one did not write again (the
        charts after ``--no-plots``, ``matches.csv`` of another run): files named in
        :attr:`outputs` only, so the directory never mixes two sessions' reports and no
        file shedsim does not write is touched."""
        for name in set(self.outputs) - set(files) - {"run.json"}:
            p = self.store.root / name
            if p.is_file():
                with contextlib.suppress(
                    OSError
                ):  # the new reports are written; an old file is left
                    p.unlink()

    def exit_code(self, outcome: Outcome) -> int:
        """0 when the run was not stopped early (a signal while the reports of a complete
        run were written changes nothing); 143 after SIGTERM; 130 after Ctrl-C or
        ``--stop-after``."""
        if not outcome.interrupted:
            return 0
        return EXIT_TERMINATED if outcome.stopped_by == "SIGTERM" else EXIT_INTERRUPTED

    def stop_message(
        self, job: Job, outcome: Outcome, games_done: int, in_results: str | None = None
    ) -> str:
        """The line printed when the run stopped early: what was kept (the chunks and their
        games, ``job.chunk_games`` of each finished chunk), what the partial results hold
        (``in_results``, e.g. ``of the 4,500 games per variant ...``; None: ``games_done`` games,
        said
        only where they are not the games kept) and how to continue."""
        where = str(self.store.root)
        how = "terminated (SIGTERM)" if outcome.stopped_by == "SIGTERM" else "interrupted"
        kept = sum(job.chunk_games(k) for k in outcome.done)
        if in_results is None and games_done != kept:
            in_results = f"of {games_done:,} games"
        return (
            f"{how}: {len(outcome.done)} of {job.n_chunks} chunks ({kept:,} of {job.games:,} "
            "games) "
            "finished and kept; partial results written to "
            f"{where}{f' ({in_results})' if in_results else ''}; "
            f"continue with: "
            f"{self.resume_hint or f'shedsim {job.command} --resume {where}'}"
        )
