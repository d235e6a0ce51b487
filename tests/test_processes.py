"""Processes a run starts die with it: SIGKILL the main process of a
run and every worker and helper it started is gone within seconds (loky workers, their
resource trackers, and the forked chunk player that runs --strategy-path plugins)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from shedsim.runs.simulate import THREADS_ENV

ROOT = Path(__file__).resolve().parent.parent


def _kill_and_watch(args: list[str], want: int, tmp_path: Path) -> list[str]:
    """Start ``shedsim ARGS`` (its workers processes, not threads), wait until it has ``want``
    child processes, SIGKILL it, and return the children still running 20 s later (empty:
    all gone)."""
    p = subprocess.Popen(
        [sys.executable, "-m", "shedsim", *args, "--out", str(tmp_path / "run")],
        cwd=ROOT,
        env={**os.environ, THREADS_ENV: "0"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    kids: list[psutil.Process] = []
    try:
        me = psutil.Process(p.pid)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and p.poll() is None:
            kids = me.children(recursive=True)
            if len(kids) >= want:
                break
            time.sleep(0.1)
        assert p.poll() is None and len(kids) >= want, (len(kids), p.stderr.read().decode()[-2000:])
        time.sleep(1.0)  # let the workers get into their chunks
        kids = me.children(recursive=True)
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        deadline = time.monotonic() + 20
        alive = kids
        while time.monotonic() < deadline:
            alive = [k for k in kids if k.is_running() and k.status() != psutil.STATUS_ZOMBIE]
            if not alive:
                break
            time.sleep(0.2)
        return [" ".join(k.cmdline())[:100] for k in alive]
    finally:
        if p.poll() is None:
            p.kill()
        for k in kids:
            try:
                k.kill()
            except psutil.Error:
                pass
        p.stderr.close()


def test_sigkill_leaves_no_loky_worker_running(tmp_path):
    # before: two workers and two resource trackers ran on for more than five minutes
    left = _kill_and_watch(
        [
            "tournament",
            "--strategies",
            "greedy,random",
            "--players",
            "2",
            "--games",
            "50000000",
            "--chunk-size",
            "200000",
            "--workers",
            "2",
            "--quiet",
            "--no-plots",
        ],
        4,
        tmp_path,
    )
    assert left == []


def test_sigkill_leaves_no_dask_worker_running(tmp_path):
    left = _kill_and_watch(
        [
            "tournament",
            "--strategies",
            "greedy,random",
            "--players",
            "2",
            "--games",
            "50000000",
            "--chunk-size",
            "200000",
            "--workers",
            "2",
            "--backend",
            "dask",
            "--quiet",
            "--no-plots",
        ],
        3,
        tmp_path,
    )
    assert left == []


def test_sigkill_leaves_no_forked_chunk_player_running(tmp_path, hostile_plugins):
    d = hostile_plugins  # "honest": greedy's moves from outside strategies/, so in a forked child
    left = _kill_and_watch(
        [
            "tournament",
            "--strategies",
            "honest,random",
            "--players",
            "2",
            "--games",
            "50000000",
            "--chunk-size",
            "2000000",
            "--workers",
            "1",
            "--quiet",
            "--no-plots",
            "--strategy-path",
            str(d),
        ],
        1,
        tmp_path,
    )
    assert left == []


# ------------------------------------------------------------------ warnings in words
def test_python_warnings_reach_the_user_as_one_sentence():
    """A library's warning (here numpy's empty mean, and loky's leaked-folder notice as
    joblib words it) is shown as one 'note:' sentence, once, without file, line or source."""
    code = (
        "import warnings, numpy as np\n"
        "from shedsim.base.notices import plain_warnings\n"
        "plain_warnings()\n"
        "np.mean(np.array([]))\n"
        "np.mean(np.array([]))\n"
        "warnings.warn('resource_tracker: There appear to be 3 leaked folder objects to clean "
        "up at "
        "shutdown', UserWarning)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines == [
        "note: a statistic was asked of no games, so it is left empty. (from numpy)",
        "note: a statistic divided by zero (no games of that kind), so it is left empty. (from "
        "numpy)",
        "note: a worker pool was stopped before it could remove its temporary folders; they are "
        "removed at the next start or can be deleted from the temporary directory.",
    ], r.stderr


def test_the_command_line_shows_warnings_plainly():
    code = (
        "import sys, warnings\n"
        "import shedsim.cli as c\n"
        "c.app = lambda: warnings.warn('something odd happened', RuntimeWarning)\n"
        "c.main()\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert r.stderr.strip() == "note: Something odd happened.", r.stderr
