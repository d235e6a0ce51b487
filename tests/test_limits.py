"""What the machine cannot hold is refused or capped before any work starts.

* ``--workers``: never more worker processes than the CPUs or the free memory hold, on
  every command that takes it and in the backends themselves, said in one note line;
  an interrupted run leaves no semaphore or shared-memory file behind.
* Numbers that would overflow the kernel's 64-bit integers or allocate more than the
  memory holds (``--games``, ``--budget``, ``--rollouts``, ``--deals``, ``--game``,
  strategy parameters, ...) exit 2 naming the option, with no traceback and no file.

The CPUs and the memory are monkeypatched where a test needs a small machine (no test
starts more processes than a 2-core machine runs, nor allocates what it checks against).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shedsim.cli import app
from shedsim.runs import limits
from shedsim.runs.simulate import THREADS_ENV

ROOT = Path(__file__).resolve().parent.parent
HINT_POS = ROOT / "docs" / "examples" / "hint_fourth_seven.toml"
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], env=ENV)


def refused(r, *needles: str) -> str:
    """exit 2, ``error:`` naming every needle, no traceback; the message."""
    out = r.output
    assert r.exit_code == 2, (r.exit_code, out[-3000:], r.exception)
    assert "error" in out.lower() and "Traceback" not in out, out[-3000:]
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    for n in needles:
        assert n in out, (n, out[-3000:])
    return out


@pytest.fixture
def one_cpu(monkeypatch):
    """A machine with one CPU for this process (and plenty of memory)."""
    monkeypatch.setattr(limits, "usable_cpus", lambda: 1)
    monkeypatch.setattr(limits, "available_bytes", lambda: 64 << 30)


# ------------------------------------------------------------------ --workers
def test_plan_workers_caps_at_the_cpus_and_at_the_memory(monkeypatch):
    monkeypatch.setattr(limits, "usable_cpus", lambda: 2)
    monkeypatch.setattr(limits, "available_bytes", lambda: 64 << 30)
    assert limits.plan_workers(2) == (2, None)
    assert limits.plan_workers(None) == (2, None)
    n, note = limits.plan_workers(1000)
    assert (
        n == 2
        and note.startswith("--workers 1,000: this machine has 2 CPU(s)")
        and "\n" not in note
    )
    # a cluster decides its own workers
    assert limits.plan_workers(1000, scheduler="tcp://somewhere:8786") == (1000, None)
    # 64 CPUs but 1 GiB free: 80% of it holds 3 workers of 256 MiB (and a chunk of 1,000 games)
    monkeypatch.setattr(limits, "usable_cpus", lambda: 64)
    monkeypatch.setattr(limits, "available_bytes", lambda: 1 << 30)
    per = limits.WORKER_BYTES + 1000 * limits.game_bytes(4)
    n, note = limits.plan_workers(None, chunk_games=1000, players=4)
    assert n == int(0.8 * (1 << 30) // per) == 3 and "free memory holds 3 worker(s)" in note
    with pytest.raises(limits.LimitError, match="--chunk-size: 10,000,000 games need about"):
        limits.plan_workers(1, chunk_games=10_000_000, players=4)
    with pytest.raises(limits.LimitError, match="--workers: at least 1"):
        limits.plan_workers(0)


def test_the_backends_never_start_more_local_workers_than_the_cpus(one_cpu):
    """The last guard, for callers that did not plan (analysis.compare.compare, run_calls)."""
    from shedsim.runs.simulate import backend_config

    with pytest.warns(RuntimeWarning, match="this machine has 1 CPU"):
        with backend_config("loky", 1000) as slots:
            assert slots == 1


WORKER_RUNS = {
    "tournament": [
        "tournament",
        "--strategies",
        "greedy,random",
        "--players",
        "2",
        "--games",
        "200",
        "--quiet",
        "--no-plots",
        "--out",
        "{out}",
    ],
    "compare-rules": [
        "compare-rules",
        "-r",
        "duel",
        "-r",
        "duel+low7",
        "--players",
        "2",
        "--strategies",
        "greedy,random",
        "--games",
        "100",
        "--quiet",
        "--no-plots",
        "--out",
        "{out}",
    ],
    "swaps": [
        "swaps",
        "--players",
        "2",
        "--games",
        "100",
        "--deals",
        "1",
        "--rollouts",
        "2",
        "--quiet",
        "--no-plots",
        "--out",
        "{out}",
    ],
    "gauntlet": [
        "gauntlet",
        "--candidate",
        "greedy",
        "--opponents",
        "random",
        "--games",
        "100",
        "--quiet",
        "--no-plots",
        "--out",
        "{out}",
    ],
}


@pytest.mark.parametrize("command", sorted(WORKER_RUNS))
def test_more_workers_than_cpus_are_capped_with_a_note(command, one_cpu, tmp_path):
    """Before, --workers 3 on this one-CPU machine started 3 worker processes (run.json
    said 3; --workers 1000 on 2 cores started ~950 and ran the machine out of memory)."""
    out = tmp_path / "o"
    r = invoke(*[a.replace("{out}", str(out)) for a in WORKER_RUNS[command]], "--workers", "3")
    assert r.exit_code == 0, r.output
    notes = [ln for ln in r.output.splitlines() if "--workers 3:" in ln]
    assert (
        len(notes) == 1
        and "this machine has 1 CPU(s)" in notes[0]
        and "playing with 1 worker" in notes[0]
    ), r.output
    assert json.loads((out / "run.json").read_text())["workers"] == 1


def test_bench_caps_its_workers_too(one_cpu):
    r = invoke("bench", "--games", "200", "--workers", "3", "--json")
    assert r.exit_code == 0, r.output
    assert "note: --workers 3: this machine has 1 CPU(s)" in r.output
    assert json.loads(r.output.strip().splitlines()[-1])["workers"] == 1


def test_a_huge_workers_count_is_capped_not_a_traceback(one_cpu, tmp_path):
    """Before: exit 1, "the run failed: OverflowError: Python int too large to convert to C int"."""
    r = invoke(
        "tournament",
        "--strategies",
        "greedy,random",
        "--players",
        "2",
        "--games",
        "200",
        "--quiet",
        "--no-plots",
        "--workers",
        str(10**12),
        "--out",
        tmp_path / "o",
    )
    assert r.exit_code == 0, r.output
    assert "note: --workers 1,000,000,000,000: this machine has 1 CPU(s)" in r.output
    assert json.loads((tmp_path / "o" / "run.json").read_text())["workers"] == 1


def test_a_chunk_the_memory_cannot_hold_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(limits, "available_bytes", lambda: 64 << 20)
    out = tmp_path / "o"
    msg = refused(
        invoke(
            "tournament",
            "--strategies",
            "greedy,random",
            "--players",
            "2",
            "--games",
            "400000",
            "--chunk-size",
            "400000",
            "--workers",
            "1",
            "--quiet",
            "--no-plots",
            "--out",
            out,
        ),
        "--chunk-size: 400,000 games need about",
        "in one chunk",
    )
    assert "give a smaller chunk" in msg
    assert not (out / "spec.json").exists() and not list(out.glob("chunks/*"))


def _shm_of(pids: set[int]) -> list[str]:
    """Semaphores and joblib's shared-memory folders in /dev/shm made by one of ``pids``
    (named ``sem.loky-PID-...``, ``sem.mp-...`` and ``joblib_memmapping_folder_PID_...``)."""
    return sorted(
        n for n in os.listdir("/dev/shm") if any(f"-{p}-" in n or f"_{p}_" in n for p in pids)
    )


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="needs /dev/shm (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_leaves_no_semaphore_behind(sig, tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) or SIGTERM while two
    loky workers play (processes, not threads: SHEDSIM_WORKER_THREADS=0): every semaphore
    and shared-memory folder the run made is gone."""
    import psutil

    if limits.usable_cpus() < 2:
        pytest.skip("two workers need two CPUs")
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "shedsim",
            "tournament",
            "--strategies",
            "greedy,random",
            "--players",
            "2",
            "--games",
            "20000000",
            "--chunk-size",
            "20000",
            "--workers",
            "2",
            "--quiet",
            "--no-plots",
            "--out",
            str(tmp_path / "o"),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, THREADS_ENV: "0"},  # greedy's chunks would play on threads
    )
    pids, made = {p.pid}, []
    try:
        me = psutil.Process(p.pid)
        deadline = time.monotonic() + 120
        while (
            time.monotonic() < deadline and p.poll() is None
        ):  # until both workers run and hold semaphores
            kids = me.children(recursive=True)
            pids |= {k.pid for k in kids}
            made = _shm_of(pids)
            if made and sum("popen_loky" in " ".join(k.cmdline()) for k in kids) >= 2:
                break
            time.sleep(0.1)
        assert p.poll() is None, p.stderr.read().decode()[-2000:]
        time.sleep(1.0)
        pids |= {k.pid for k in me.children(recursive=True)}
        made = _shm_of(pids)
        os.killpg(p.pid, sig)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        err = p.stderr.read().decode()
        p.stderr.close()
    assert p.returncode == (130 if sig == signal.SIGINT else 143), err[-2000:]
    assert made, "the run made no semaphore: nothing was tested"
    deadline = time.monotonic() + 20
    while _shm_of(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _shm_of(pids) == []


def test_make_test_never_starts_more_pytest_workers_than_cpus():
    import shutil

    if shutil.which("make") is None:
        pytest.skip("no make")
    r = subprocess.run(
        ["make", "-n", "test", "WORKERS=1000"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    line = next(ln for ln in r.stdout.splitlines() if "pytest" in ln and " -n " in ln)
    n = int(re.search(r" -n (\d+) ", line).group(1))
    assert 1 <= n <= (os.cpu_count() or 1), line


# ------------------------------------------------------------------ numbers the machine cannot hold
BIG = str(10**21)  # beyond int64
HUGE = str(10**12)  # fits int64, but not in memory


@pytest.mark.parametrize(
    "args, option",
    [
        (
            ["tournament", "--strategies", f"heuristic:search={BIG},greedy", "--games", "100"],
            "--strategies",
        ),
        (
            [
                "compare-rules",
                "-r",
                "duel",
                "-r",
                "palace",
                "-p",
                "2",
                "--strategies",
                f"heuristic:search={BIG},greedy",
            ],
            "--strategies",
        ),
        (["swaps", "--strategy", f"heuristic:search={BIG}"], "--strategy"),
        (["sprt", "--a", f"heuristic:search={BIG}", "--b", "greedy"], "--a"),
        (
            ["gauntlet", "--candidate", f"heuristic:search={BIG}", "--opponents", "greedy"],
            "--candidate",
        ),
        (
            ["gauntlet", "--candidate", "greedy", "--opponents", f"random,heuristic:search={BIG}"],
            "--opponents",
        ),
        (["tips", "--base", f"heuristic:search={BIG}"], "--base"),
        (["tune", "--strategy", f"heuristic:search={BIG}"], "--strategy"),
        (["bench", "--strategy", f"heuristic:search={BIG}"], "--strategy"),
        (["hint", str(HINT_POS), "--policy", f"heuristic:search={BIG}"], "--policy"),
        (["trace", "--strategies", f"heuristic:search={BIG}"], "--strategies"),
        (["play", "--opponents", f"heuristic:search={BIG}"], "--opponents"),
    ],
)
def test_a_strategy_parameter_beyond_64_bits_is_refused(args, option, tmp_path):
    """Before: an OverflowError traceback from numpy (exit 1). The value is refused against
    the parameter's own range (a parameter without one: the kernel's 64-bit range)."""
    out = tmp_path / "o"
    extra = (
        ["--out", str(out)]
        if args[0] in ("tournament", "compare-rules", "swaps", "tips", "tune")
        else []
    )
    refused(invoke(*args, *extra), option, f"parameter search={BIG} is outside its range 0..1000")
    assert not out.exists()


@pytest.mark.parametrize(
    "args, needle",
    [
        (
            ["tips", "--rules", "duel", "--players", "2", "--games", HUGE],
            "--games: 1,000,000,000,000 games need about",
        ),
        (["tips", "--rules", "duel", "--players", "2", "--games", BIG], "--games: "),
        (["tune", "--games", HUGE], "--games: 1,000,000,000,000 games need about"),
        (["tune", "--confirm-games", BIG], "--confirm-games: "),
        (["tune", "--seed", str(2**32)], "--seed"),
        (["tune", "--param", f"track=0:{BIG}"], "LO and HI must lie between"),
        (["bench", "--games", HUGE], "--games: 1,000,000,000,000 games would take"),
        (["bench", "--games", BIG], "--games: "),
        (["bench", "--table", "--games", HUGE], "--games: 1,000,000,000,000 games would take"),
        (
            ["hint", str(HINT_POS), "--policy", "greedy", "--budget", HUGE],
            "--budget: 1,000,000,000,000 samples per move",
        ),
        (["hint", str(HINT_POS), "--policy", "greedy", "--cap", BIG], "--cap"),
        (
            ["play", "--hint-budget", HUGE],
            "--hint-budget: 1,000,000,000,000 samples per move need about",
        ),
        (["play", "--game", str(2**63)], "--game"),
        (["trace", "--game", str(2**63)], "--game"),
        (["swaps", "--deals", HUGE], "--deals: 1,000,000,000,000 sample deals would take"),
        (["swaps", "--rollouts", HUGE], "--rollouts: 1,000,000,000,000 rollouts need about"),
    ],
)
def test_what_the_memory_cannot_hold_is_refused_naming_the_option(args, needle, tmp_path):
    """Before: MemoryError or ValueError tracebacks (tips, tune, hint, swaps --rollouts),
    OverflowError (trace/play --game, hint --cap, tune --seed and --param), a run that
    never ended (bench --games, swaps --deals)."""
    out = tmp_path / "o"
    extra = ["--out", str(out)] if args[0] in ("swaps", "tips", "tune") else []
    msg = refused(invoke(*args, *extra), needle)
    if "need about" in needle:
        assert "this machine has" in msg and "available" in msg
    assert not out.exists()


def test_bench_reference_games_beyond_memory(monkeypatch):
    monkeypatch.setattr(limits, "available_bytes", lambda: 1 << 20)
    refused(
        invoke("bench", "--games", "100000", "--reference", "--reference-games", "100000"),
        "--reference-games: 100,000 games need about",
    )


def test_a_decision_limit_no_timer_holds_means_no_limit(monkeypatch, plain_python_plugins):
    """SHEDSIM_DECISION_TIMEOUT=inf: before, every plain-Python decision failed with
    'OverflowError: timestamp out of range for platform time_t', blamed on the strategy."""
    from shedsim.plugins import decision_timeout

    for value, want in (("inf", 0.0), ("1e30", 0.0), ("nan", 10.0), ("30", 30.0)):
        monkeypatch.setenv("SHEDSIM_DECISION_TIMEOUT", value)
        assert decision_timeout() == want
    monkeypatch.setenv("SHEDSIM_DECISION_TIMEOUT", "inf")
    r = invoke("trace", "--strategies", "pyplayer", "--strategy-path", plain_python_plugins)
    assert r.exit_code == 0 and r.output.strip().splitlines()[-1].startswith("places: "), r.output
