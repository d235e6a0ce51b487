"""What this machine can hold: CPUs and memory, checked before a command starts work.

Every command that starts worker processes asks :func:`plan_workers` how many it may
start (``--workers``, or by default one per CPU): never more than the CPUs this process
may use (:func:`usable_cpus`) nor more than the free memory holds, each worker counted
at :data:`WORKER_BYTES` plus the records of the largest chunk it plays. Every command
that holds many games' records at once (a kernel call of ``tips``, ``tune``, ``hint``)
asks :func:`memory_problem` first, so a mistyped ``--games 1000000000000`` is refused
with the option named instead of filling the memory.

A command-line integer that must fit the kernel's 64-bit arrays (a game index) is
bounded by :data:`INT64_MAX`.
"""

from __future__ import annotations

import os

INT64_MAX = (1 << 63) - 1
"""The largest value a numpy ``int64`` holds: the bound of every integer the kernel reads."""

WORKER_BYTES = 256 << 20
"""Memory counted for one worker process before its chunk (bytes): Python, numpy, numba
and the compiled kernel with every built-in strategy, as loky or dask runs it."""
# The peak resident set of loky and dask workers playing tournaments (psutil, sampled
# every 0.25 s), less the records of their chunk, rounded up to leave a margin.

MEMORY_SHARE = 0.8
"""The share of the available memory a command plans to use (the rest is left to the
main process's own arrays and to the other programs on the machine)."""


def game_bytes(players: int) -> int:
    """Bytes one game takes, at the peak of a kernel call, in the process that plays it:
    its schedule row (index, deal, dealer, seating), its two keys, its record (places,
    pick-ups, burns, the dealt and face-up cards, ...) and the per-game results an
    analysis derives from it. An upper bound of ``tracemalloc``'s peak per game of
    :func:`shedsim.runs.simulate.play_chunk`, of the head-to-head matches of sprt, tips
    and tune and of the swap study's rollouts (measured at 2 to 5 players; the bound
    grows faster per seat than any of them)."""
    return 96 + 64 * int(players)


def usable_cpus() -> int:
    """The CPUs this process may use: the affinity mask, a container's CPU quota and
    ``LOKY_MAX_CPU_COUNT``, whichever is smallest (:func:`joblib.cpu_count`); at least 1."""
    try:
        from joblib import cpu_count

        return max(1, int(cpu_count()))
    except Exception:  # noqa: BLE001 - joblib missing or unable to read the quota
        n = (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else (os.cpu_count() or 1)
        )
        return max(1, n)


def available_bytes() -> int:
    """Memory that can be given to new allocations without swapping, in bytes
    (:func:`psutil.virtual_memory`'s ``available``; without psutil, the free pages)."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - psutil missing: the free pages
        try:
            return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            return 1 << 62  # unknown: do not refuse


def size_text(n: float) -> str:
    """A byte count as people read it: 512 B, 3.2 MiB, 7.3 TiB."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:,.1f} PiB"  # pragma: no cover


def memory_problem(
    option: str,
    count: int,
    unit: str,
    bytes_each: float,
    what: str = "at once",
    advice: str = "give fewer",
) -> str | None:
    """Why ``count`` ``unit`` (e.g. games) of ``bytes_each`` bytes each cannot be held
    ``what`` (e.g. "at once"), as a sentence naming ``option`` and ending in ``advice``;
    None when they fit in :data:`MEMORY_SHARE` of :func:`available_bytes`."""
    need = float(count) * float(bytes_each)
    avail = available_bytes()
    room = MEMORY_SHARE * avail
    if need <= room:
        return None
    most = int(room // bytes_each) if bytes_each > 0 else 0
    return (
        f"{option}: {count:,} {unit} need about {size_text(need)} of memory {what}; this "
        "machine has "
        f"{size_text(avail)} available, enough for about {most:,} {unit}: {advice}"
    )


class LimitError(ValueError):
    """A request this machine cannot hold; the message names the option and what fits."""


def plan_workers(
    requested: int | None,
    scheduler: str | None = None,
    chunk_games: int = 0,
    players: int = 2,
    option: str = "--workers",
    chunk_option: str = "--chunk-size",
) -> tuple[int, str | None]:
    """How many worker processes to start and, when that is fewer than ``requested``
    (None: one per CPU), the one-line note that says why. A cluster at ``scheduler``
    decides its own workers: ``requested`` (default 1 per local CPU) is passed on as is.

    Locally (loky, or a local dask or ray cluster) the workers are at most
    :func:`usable_cpus` (more would not play faster: every worker is busy on its own CPU)
    and at most what :data:`MEMORY_SHARE` of the available memory holds, a worker taking
    :data:`WORKER_BYTES` plus ``chunk_games`` games' records (:func:`game_bytes`). Never
    fewer than 1. Results never depend on the number of workers.

    Raises :class:`LimitError` naming ``option`` for a count below 1, and naming
    ``chunk_option`` when the memory cannot hold the records of one chunk."""
    if requested is not None and (isinstance(requested, bool) or int(requested) < 1):
        raise LimitError(f"{option}: at least 1, got {requested!r}")
    cpus = usable_cpus()
    if scheduler is not None:
        return (cpus if requested is None else int(requested)), None
    chunk = max(0, int(chunk_games))
    problem = memory_problem(
        chunk_option, chunk, "games", game_bytes(players), "in one chunk", "give a smaller chunk"
    )
    if problem:
        raise LimitError(problem)
    per = WORKER_BYTES + chunk * game_bytes(players)
    avail = available_bytes()
    fit = max(1, int(MEMORY_SHARE * avail // per))
    want = cpus if requested is None else int(requested)
    n = max(1, min(want, cpus, fit))
    if n >= want:
        return n, None
    given = "" if requested is None else f"{option} {want:,}: "
    if n == fit and fit < cpus:
        return n, (
            f"{given}the {size_text(avail)} of free memory holds {fit} worker(s) of about "
            f"{size_text(per)}; "
            f"playing with {n} (the results are the same)"
        )
    return n, (
        f"{given}this machine has {cpus} CPU(s) for this run; playing with {n} worker(s) (more "
        "would not "
        f"be faster; the results are the same)"
    )


def cap_workers(workers: int, scheduler: str | None = None) -> int:
    """The worker count a backend may start for ``workers`` (:func:`plan_workers` without
    a chunk), with a warning when it is fewer: the last guard of
    :func:`shedsim.runs.simulate.backend_config`, for callers that did not plan."""
    n, note = plan_workers(max(1, int(workers)), scheduler)
    if note:
        import warnings

        warnings.warn(note, RuntimeWarning, stacklevel=3)
    return n
