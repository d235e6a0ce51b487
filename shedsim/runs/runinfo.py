"""run.json: the fields every command's ``run.json`` shares (:func:`core_info`), one
session's entry (:func:`session_entry`), the versions a result depends on, and the atomic
write (:func:`write_run_json`). Used by :class:`shedsim.runs.execute.Session` and by the
commands that keep no run store (tips, tune)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from shedsim.base import atomic


def versions() -> dict[str, str]:
    """Versions of shedsim, Python and the libraries a result depends on."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "platform": platform.platform()}
    for pkg in (
        "shedsim",
        "numpy",
        "numba",
        "pandas",
        "scipy",
        "statsmodels",
        "choix",
        "joblib",
        "matplotlib",
        "pyarrow",
        "rich",
        "typer",
    ):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def peak_rss_mb() -> float | None:
    """Peak resident memory of this (main) process in MiB (``resource.getrusage``)."""
    try:
        import resource
        import sys

        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return round(kb / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)
    except (ImportError, OSError):
        return None


def json_default(o):
    """JSON for numpy scalars and arrays (``json.dumps(default=...)``)."""
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o).__name__)


def write_run_json(out: Path | str, info: dict[str, Any], files: list[str]) -> None:
    """``run.json``: ``info`` plus ``outputs`` (``files`` and run.json), written atomically."""
    info = dict(info)
    info["outputs"] = sorted(set(files) | {"run.json"})
    atomic.write_text(
        Path(out) / "run.json",
        json.dumps(info, indent=2, sort_keys=True, default=json_default) + "\n",
    )


def command_line() -> str | None:
    """``shedsim ARGS`` as typed (None when not run as the ``shedsim`` program)."""
    import sys

    return (
        "shedsim " + " ".join(sys.argv[1:])
        if sys.argv and sys.argv[0].endswith("shedsim")
        else None
    )


def session_entry(
    games_played: int | None,
    play_s: float,
    workers: int = 1,
    backend: str = "loky",
    interrupted: bool = False,
    started: float | None = None,
    games_per_s: float | None = None,
) -> dict[str, Any]:
    """One session of a run as run.json's ``sessions`` lists it: games played, play seconds,
    games/s, workers, backend, whether it was interrupted and its start time (``started``:
    ``time.time()`` at the start; default now). ``games_per_s``: the rate of play only
    (:meth:`shedsim.runs.execute.Outcome.games_per_s`, which leaves out starting the workers
    and compiling the kernel); None: ``games_played / play_s``. ``games_played`` None: not
    counted (games/s None). ``wall_s`` and the peak memory are added when run.json is
    written (:func:`finish_info`)."""
    started = time.time() if started is None else started
    if games_per_s is None and play_s > 0 and games_played is not None:
        games_per_s = games_played / play_s
    return {
        "games_played": None if games_played is None else int(games_played),
        "play_s": round(play_s, 3),
        "games_per_s": None if games_per_s is None else round(games_per_s, 1),
        "workers": workers,
        "backend": backend,
        "interrupted": interrupted,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
    }


def core_info(
    command: str | None,
    spec: dict[str, Any],
    seed: Any,
    sessions: list[dict[str, Any]],
    complete: bool = True,
    interrupted_by: str | None = None,
    /,
    **extra: Any,
) -> dict[str, Any]:
    """run.json's core fields, the same for every command: ``command`` (default: the
    command line typed), ``spec``, ``seed``, ``versions``, ``complete``,
    ``interrupted_by``, ``sessions`` (:func:`session_entry`), ``play_s`` and ``games_per_s``
    over all sessions; then ``extra`` (which may replace any of them, e.g. a fuller ``spec``).
    ``wall_s`` and the peak memory are filled in by :func:`finish_info` just before run.json
    is written."""
    play_total = sum(s.get("play_s") or 0 for s in sessions)
    played_total = sum(s.get("games_played") or 0 for s in sessions)
    # the rate over all sessions: each session's games over its seconds of play only
    # (games / its games_per_s), so no session's start-up counts as play
    rated = [(s.get("games_played") or 0, s.get("games_per_s")) for s in sessions]
    play_only = sum(g / r if isinstance(r, (int, float)) and r > 0 else 0.0 for g, r in rated)
    info = {
        "command": command_line() if command is None else command,
        "spec": spec,
        "seed": seed,
        "versions": versions(),
        "complete": complete,
        "interrupted_by": interrupted_by,
        "sessions": sessions,
        "play_s": round(play_total, 3),
        "games_per_s": round(played_total / play_only, 1) if play_only > 0 else None,
    }
    info.update(extra)
    return info


def finish_info(info: dict[str, Any], wall_s: float) -> dict[str, Any]:
    """Add this session's wall time (s) and the main process's peak memory (MiB) to the
    last of ``info["sessions"]``, and ``wall_s`` summed over the sessions (in place)."""
    sessions = info.get("sessions") or []
    if sessions:
        sessions[-1]["wall_s"] = round(wall_s, 3)
        sessions[-1]["peak_rss_mb_main"] = peak_rss_mb()
        info["wall_s"] = round(sum(s.get("wall_s") or 0 for s in sessions), 3)
    else:
        info["wall_s"] = round(wall_s, 3)
        info["peak_rss_mb_main"] = peak_rss_mb()
    return info
