"""Progress of a run: the play rate (:class:`PlayRate`: play only, from the first round of
chunks on), the rich progress bar with its stall notice (:func:`progress_bar`), how to stop
a run that may be stuck (:func:`stop_hint`) and the one-line estimate of a long run's rest
(:func:`estimator`). Used by :class:`shedsim.runs.execute.Session`."""

from __future__ import annotations

import os
import time
from typing import Any
from collections.abc import Callable


def duration_text(seconds: float) -> str:
    """``seconds`` as people say it: 4 min, 2.5 h, 3.1 days."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.1f} days"


def rate_text(games_per_s: float | None) -> str:
    """A run's play rate for its closing line: games per second once the workers play
    (:class:`PlayRate`: their start and the kernel's load or compile are left out, so the rate
    is more than the games over the whole play time), or ``-`` when nothing was played."""
    if not games_per_s:
        return "-"
    return f"{games_per_s:,.0f} games/s once playing, the workers' start and kernel load left out"


class PlayRate:
    """Games per second of play only, for ``workers`` chunks played at a time.

    The clock starts when the first round of chunks is stored (the ``workers``-th chunk of
    the session), and those chunks' games are not counted: until then the time also went
    to starting the workers and loading (or compiling) the kernel, which a rate over the
    whole session would count as play. The rate is known once a further round is stored
    (``workers`` more chunks): the workers start together, so their chunks come in rounds,
    and a rate over part of a round (the chunk that was played beside the first, stored a
    moment after it) would count a chunk's games in a moment. ``clock``: seconds
    (``time.perf_counter``)."""

    def __init__(self, clock: Callable[[], float] | None = None, workers: int = 1) -> None:
        self.clock = clock or (lambda: time.perf_counter())
        self.workers = max(1, int(workers))
        self.t_first: float | None = None
        self.stored = 0
        self.games = 0

    def add(self, n: int) -> None:
        """A chunk of ``n`` games was stored now."""
        self.stored += 1
        if self.stored == self.workers:
            self.t_first = self.clock()
        elif self.stored > self.workers:
            self.games += n

    def seconds(self) -> float:
        """Seconds since the first round of chunks was stored (0 before)."""
        return 0.0 if self.t_first is None else self.clock() - self.t_first

    def rate(self) -> float | None:
        """Games per second since the first round, or None before a second round is stored."""
        t = self.seconds()
        return self.games / t if self.stored >= 2 * self.workers and t > 0 else None


STALL_NOTICE_S = 90.0
"""Seconds without a finished chunk after which the progress bar says the run may be stuck
(``SHEDSIM_STALL_NOTICE_S`` overrides it)."""


def stall_notice_s() -> float:
    """:data:`STALL_NOTICE_S`, or ``SHEDSIM_STALL_NOTICE_S`` when it is set to a positive number."""
    try:
        v = float(os.environ.get("SHEDSIM_STALL_NOTICE_S", ""))
    except ValueError:
        return STALL_NOTICE_S
    return v if v > 0 else STALL_NOTICE_S


BAR_ROOM = 80
"""Terminal columns left to the progress line's text: the bar takes the rest (between 10 and
40 columns); a terminal narrower than this and 20 shows the line without the elapsed time and
a sequential test's bound."""

KEEPS_CHUNKS = "Press Ctrl-C to stop: every finished chunk is kept, and --resume continues the run."
"""How to stop a command that keeps its finished chunks (the default of :func:`stall_message`)."""


def stop_hint(workers: int, backend: str = "loky", keeps: bool = True) -> str:
    """How to stop a run whose strategies may be stuck (the stall notice's last sentence).
    Ctrl-C, where the strategies play in worker processes, or where ``fork`` exists: a
    plugin from outside ``strategies/`` (the only kind that can be stuck) then plays in a
    forked child (:mod:`shedsim.kernel.isolate`) that Ctrl-C stops at once, also with one
    local worker. Without ``fork`` one local worker plays in this process, where Ctrl-C
    cannot interrupt compiled code, so Ctrl-\\ (SIGQUIT) or ``kill PID``. Either way the
    finished chunks stay in the run store (``keeps``; False: a temporary store, nothing is
    kept, and the hint says so)."""
    from shedsim.base.isolate import can_fork

    kept = (
        " When stopped, every finished chunk is kept, and --resume continues the run."
        if keeps
        else " Without --out nothing is kept when stopped."
    )
    if workers <= 1 and backend == "loky":
        if can_fork():
            return (
                "Press Ctrl-C to stop: with --workers 1 a plugin from --strategy-path plays "
                "in a child "
                "process, which Ctrl-C stops at once (shedsim's own strategies stop at the "
                "end of their "
                f"chunk).{kept}"
            )
        return (
            "With --workers 1 the strategies play in this process, where Ctrl-C cannot "
            "interrupt compiled "
            f"code: stop it with Ctrl-\\ (SIGQUIT) or kill {os.getpid()}.{kept}"
        )
    return f"Press Ctrl-C to stop.{kept}"


def stall_message(
    seconds: float, strategies: list[str] | None, stop_hint: str = KEEPS_CHUNKS
) -> str:
    """What the progress bar prints when no chunk has finished for ``seconds``."""
    who = f" Strategies in play: {', '.join(strategies)}." if strategies else ""
    return (
        f"[yellow]note:[/] no game has finished for {seconds:,.0f} s. A strategy may be stuck "
        "in an endless "
        "loop (the kernel cannot stop a compiled plugin from inside), or the chunks are just "
        f"slow.{who} {stop_hint}"
    )


def progress_bar(
    console,
    strategies: list[str] | None = None,
    stall_after: float | None = None,
    stop_hint: str = KEEPS_CHUNKS,
):
    """A rich progress bar: games done (of a sequential test: of its expected length, with
    its plan as the bound, task fields ``most``), games/s and ETA from the task's
    :class:`PlayRate` (field ``rate``: play only, from the first round of chunks on;
    chunks arrive in bursts, so rich's windowed speed estimate would jump about).

    While it is shown, a watcher thread prints :func:`stall_message` (naming ``strategies``)
    and ``stop_hint`` (how to stop) once whenever no task has advanced for ``stall_after``
    seconds (default :func:`stall_notice_s`), and again after each further stall once
    progress resumed."""
    from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.table import Column
    from rich.text import Text

    def rate(task) -> float | None:
        r = task.fields.get("rate")
        return r.rate() if isinstance(r, PlayRate) else None

    class Games(ProgressColumn):
        """``done/total``; a sequential test's: ``done/~expected (max PLAN)`` (``narrow``:
        without its bound)."""

        def __init__(self, narrow: bool, **kwargs) -> None:
            super().__init__(**kwargs)
            self.narrow = narrow

        def render(self, task) -> Text:
            most = task.fields.get("most")
            bound = "" if self.narrow or not most else f" (max {most:,})"
            if task.total is None:
                return Text(f"{int(task.completed):,}/?{bound}", style="progress.download")
            if most and most != task.total:
                return Text(
                    f"{int(task.completed):,}/~{int(task.total):,}{bound}",
                    style="progress.download",
                )
            return Text(f"{int(task.completed):,}/{int(task.total):,}", style="progress.download")

    class GamesPerSecond(ProgressColumn):
        def render(self, task) -> Text:
            r = rate(task)
            return Text("- games/s" if r is None else f"{r:,.0f} games/s", style="cyan")

    class Eta(ProgressColumn):
        def render(self, task) -> Text:
            r = rate(task)
            if task.finished:
                return Text("ETA 0:00:00", style="green")
            if r is None or task.total is None:
                return Text("ETA -:--:--", style="green")
            left = int((task.total - task.completed) / r)
            return Text(f"ETA {left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}", style="green")

    limit = stall_notice_s() if stall_after is None else stall_after

    class Watched(Progress):
        def __enter__(self):
            import threading

            self._stop_watch = threading.Event()
            self._watch = threading.Thread(
                target=self._watcher, name="shedsim-stall-notice", daemon=True
            )
            out = super().__enter__()
            self._watch.start()
            return out

        def __exit__(self, *exc):
            self._stop_watch.set()
            self._watch.join(timeout=5)
            return super().__exit__(*exc)

        def _watcher(self) -> None:
            import time

            last, since, told = None, time.monotonic(), False
            while not self._stop_watch.wait(min(1.0, limit / 4)):
                done = sum(t.completed for t in self.tasks)
                if self.tasks and all(t.finished for t in self.tasks):
                    return
                if done != last:
                    last, since, told = done, time.monotonic(), False
                elif not told and time.monotonic() - since >= limit:
                    self.console.print(
                        stall_message(time.monotonic() - since, strategies, stop_hint),
                        highlight=False,
                    )
                    told = True

    # one line at any width: the figures are never wrapped, the bar takes what width they
    # leave (up to rich's 40), and a narrow terminal drops the elapsed time and the bound
    whole = Column(no_wrap=True)
    narrow = console.width < BAR_ROOM + 20
    return Watched(
        TextColumn("[bold]{task.description}", table_column=Column(no_wrap=True)),
        BarColumn(bar_width=max(10, min(40, console.width - BAR_ROOM))),
        Games(narrow, table_column=whole),
        GamesPerSecond(table_column=whole),
        *(
            ()
            if narrow
            else (TextColumn("elapsed", table_column=whole), TimeElapsedColumn(table_column=whole))
        ),
        Eta(table_column=whole),
        console=console,
    )


def is_sequential(job: Any) -> bool:
    """Whether ``job`` is a sequential test that stops once it has decided
    (:attr:`shedsim.runs.execute.Job.sequential_test`)."""
    return bool(getattr(job, "sequential_test", False))


def estimator(
    job: Any,
    console: Any,
    after_s: float = 5.0,
    say_over_s: float = 180.0,
    before: int = 0,
    rate: PlayRate | None = None,
    clock: Callable[[], float] | None = None,
) -> Callable[[int], None]:
    """A progress callback (games of each stored chunk) that, once the run has played for
    ``after_s`` seconds since the first round of chunks of this session was stored (and
    a further round is stored), estimates the time the rest will take and says it once on
    ``console`` when it is over ``say_over_s`` seconds (a long run is announced, a short one
    is not). Printed with --quiet too: it is one line.

    The rate is play's only (:class:`PlayRate`: starting the workers and loading or
    compiling the kernel are not counted). The rest is what this session has still to
    play (``before``: games stored by earlier sessions); for a sequential test, up to
    its expected length (:meth:`shedsim.runs.execute.Job.expected_games`), the plan's size
    being its bound. ``rate`` (shared with the progress bar) or its ``clock`` (seconds) may
    be given."""
    rate = PlayRate(clock) if rate is None else rate
    state = {"done": before, "said": False}

    def on_games(n: int) -> None:
        rate.add(n)
        state["done"] += n
        r = rate.rate()
        if state["said"] or r is None or rate.seconds() < after_s:
            return
        state["said"] = True
        sequential = is_sequential(job)
        expected = job.expected_games() if sequential else None
        left = max(0, (job.games if expected is None else expected) - state["done"])
        rest = left / r
        if rest <= say_over_s or console is None:
            return
        if sequential:
            console.print(
                f"estimate: about {duration_text(rest)} more for about {left:,} games (the "
                f"test's expected length from its LLR so far; at most "
                f"{job.games - state['done']:,} more) at {r:,.0f} games/s; Ctrl-C keeps the "
                f"finished chunks"
            )
            return
        console.print(
            f"estimate: about {duration_text(rest)} more for {left:,} games ({r:,.0f} games/s "
            f"so far); Ctrl-C keeps the finished chunks"
        )

    return on_games


def bar_task(
    bar: Any, job: Any, before: int, rate: PlayRate, progress: Callable[[int], None]
) -> Callable[[int], None]:
    """Add ``job``'s task to the progress ``bar`` (``before`` games already stored) and
    return the callback that advances it by the games of each stored chunk (after
    ``progress``, which times the chunk for the bar's rate too). A sequential test's total
    is its expected length (the plan's size its bound, field ``most``)."""
    plan = job.games
    sequential = is_sequential(job)
    task = bar.add_task(
        "games",
        total=job.expected_games() if sequential else plan,
        completed=before,
        rate=rate,
        most=plan,
    )
    shown = {"games": before}

    def advance(n: int) -> None:
        progress(n)
        shown["games"] += n
        if not sequential:
            bar.update(task, completed=shown["games"])
            return
        expected = job.expected_games()
        bar.update(
            task,
            completed=shown["games"],
            total=None if expected is None else max(expected, shown["games"]),
        )

    return advance
