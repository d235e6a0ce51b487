"""The run machinery (:mod:`shedsim.runs.execute`, :mod:`shedsim.runs.store`) as every
command that plays games gets it: resume after SIGINT, SIGTERM and SIGKILL with the same
CSV bytes as an uninterrupted run; a busy directory refused with the holder's pid while the
first run is unharmed; ``--out`` that never touches a user's file; an edited spec.json
refused on ``--resume``.

Real subprocesses get the signals. ``SHEDSIM_TEST_CHUNK_PAUSE`` makes a run wait after each
chunk it stores, so a test can act between two chunks without racing the run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shedsim.cli import app
from shedsim.runs.execute import PAUSE_ENV, Job, play
from shedsim.runs.store import RunStore, StoreError
from suite import diagonal, some

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

COMMANDS = {
    "tournament": [
        "tournament",
        "--strategies",
        "greedy,random,heuristic",
        "--players",
        "3",
        "--games",
        "600",
        "--seed",
        "4",
        "--chunk-size",
        "120",
        "--workers",
        "1",
        "--no-plots",
        "--quiet",
    ],
    "compare-rules": [
        "compare-rules",
        "-r",
        "shithead",
        "-r",
        "shithead+pickup:always",
        "-p",
        "3",
        "-S",
        "random,greedy",
        "-g",
        "240",
        "-s",
        "1",
        "-w",
        "1",
        "--no-plots",
        "--quiet",
    ],
    "swaps": [
        "swaps",
        "--games",
        "300",
        "--deals",
        "3",
        "--rollouts",
        "4",
        "--seed",
        "3",
        "--workers",
        "1",
        "--no-plots",
        "--quiet",
    ],
    "sprt": [
        "sprt",
        "--a",
        "greedy",
        "--b",
        "heuristic",
        "--seed",
        "1",
        "--batch",
        "100",
        "--max-games",
        "1200",
        "--no-plots",
        "--quiet",
    ],
    "gauntlet": [
        "gauntlet",
        "--candidate",
        "greedy",
        "--opponents",
        "random,heuristic",
        "--games",
        "600",
        "--batch",
        "100",
        "--seed",
        "2",
        "--workers",
        "1",
        "--no-plots",
        "--quiet",
    ],
}
"""Command -> small arguments that play several chunks (``--out DIR`` is added)."""
PAUSE = {"tournament": 0.4, "compare-rules": 0.12, "swaps": 0.12, "sprt": 1.0, "gauntlet": 0.3}
"""Seconds each command waits after each chunk it stores (5, 28, 20, 4 of 12 chunks: sprt decides in
the 4th; and
12 for the gauntlet's two opponents)."""
PARTIAL = {
    "tournament": True,
    "compare-rules": True,
    "swaps": False,
    "sprt": False,
    "gauntlet": False,
}
"""Whether an interrupted run writes partial reports (swaps' need the whole study, sprt's the test's
end, the
gauntlet's every opponent)."""
FIRST = {"tournament": 1, "compare-rules": 2, "swaps": 1, "sprt": 1, "gauntlet": 1}
"""Chunks before a command has partial results (compare-rules: the first chunk of both variants)."""


DONE: dict[str, int] = {}
"""Command -> chunks an uninterrupted run stores (sprt stops once it has decided), filled by
``clean``."""


def cli(*args: str):
    return runner.invoke(app, list(args))


def csvs(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.glob("*.csv"))}


def start(args: list[str], pause: float = 0.3) -> subprocess.Popen:
    env = {**os.environ, PAUSE_ENV: str(pause)}
    return subprocess.Popen(
        [sys.executable, "-m", "shedsim", *args],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def wait_for_chunk(p: subprocess.Popen, d: Path, n: int = 1) -> None:
    deadline = time.monotonic() + 120
    while (
        time.monotonic() < deadline
        and p.poll() is None
        and len(list((d / "chunks").glob("*.npz"))) < n
    ):
        time.sleep(0.02)
    assert p.poll() is None, p.communicate()[1][-2000:]


def signalled(args: list[str], d: Path, pause: float, chunks: int, sig: int) -> tuple[int, str]:
    """Run ``shedsim ARGS`` (into ``d``), send ``sig`` once ``chunks`` chunks are stored; its
    exit status and stderr."""
    p = start(args, pause)
    try:
        wait_for_chunk(p, d, chunks)
        p.send_signal(sig)
        _, stderr = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, stderr


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """The CSVs of an uninterrupted run of each command."""
    out = {}
    for name, args in COMMANDS.items():
        d = tmp_path_factory.mktemp(f"clean-{name}")
        r = cli(*args, "--out", str(d))
        assert r.exit_code == 0, r.output
        out[name] = csvs(d)
        assert out[name]
        DONE[name] = json.loads((d / "run.json").read_text())["chunks_done"]
    return out


# ------------------------------------------------------------------ resume after a signal
@pytest.mark.parametrize(
    "command,sig",
    diagonal(
        sorted(COMMANDS),
        [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
        ids=lambda v: getattr(v, "name", v),
    ),
)
def test_resume_after_a_signal_gives_the_same_csvs(command, sig, clean, tmp_path):
    d = tmp_path / "run"
    code, stderr = signalled(
        [*COMMANDS[command], "--out", str(d)], d, PAUSE[command], FIRST[command], sig
    )
    spec = json.loads((d / "spec.json").read_text())
    kept = len(list((d / "chunks").glob("*.npz")))
    if sig == signal.SIGKILL:
        assert code == -signal.SIGKILL
        assert not (d / "run.json").exists()
    else:
        assert code == 128 + sig, stderr[-2000:]
        assert ("terminated (SIGTERM)" if sig == signal.SIGTERM else "interrupted") in stderr
        assert f"--resume {d}" in stderr
        if PARTIAL[command]:
            assert "partial results written" in stderr
            info = json.loads((d / "run.json").read_text())
            assert (
                not info["complete"]
                and info["interrupted_by"] == sig.name
                and info["chunks_done"] == kept
            )
            assert csvs(d)  # partial results
        else:
            assert "none was written" in stderr and not csvs(d) and not (d / "run.json").exists()
    assert 1 <= kept < spec["n_chunks"]
    r = cli(command, "--resume", str(d), "--quiet", "--no-plots")
    assert r.exit_code == 0, r.output
    assert csvs(d) == clean[command]
    info = json.loads((d / "run.json").read_text())
    assert info["complete"] and info["chunks_done"] == DONE[command]
    assert DONE[command] == (4 if command == "sprt" else spec["n_chunks"])
    assert not (d / ".shedsim.pid").exists()


# ------------------------------------------------------------------ resume stopped late, resume
# finished
@pytest.mark.parametrize("command", some(sorted(COMMANDS), ["gauntlet", "swaps", "sprt"]))
def test_resume_stopped_late_and_resume_of_a_finished_run(command, clean, tmp_path):
    """A run stopped one chunk before its end (every kind of chunk a command stores is then
    in the store: swaps' swap-policy tournament and regret rows, compare-rules' last
    variant) resumes to the bytes of an uninterrupted run, and ``--resume`` of the finished
    run is accepted and changes no CSV."""
    d = tmp_path / "run"
    r = cli(*COMMANDS[command], "--out", str(d), "--stop-after", str(DONE[command] - 1))
    assert r.exit_code == 130, r.output
    assert len(list((d / "chunks").glob("*.npz"))) == DONE[command] - 1
    for _ in ("the last chunk", "nothing left to play"):
        r = cli(command, "--resume", str(d), "--quiet", "--no-plots")
        assert r.exit_code == 0, r.output
        assert csvs(d) == clean[command]
        info = json.loads((d / "run.json").read_text())
        assert info["complete"] and info["chunks_done"] == DONE[command]
    assert len(info["sessions"]) == (2 if PARTIAL[command] else 1) + 1


@pytest.mark.parametrize("command", some(sorted(COMMANDS), ["tournament"]))
def test_a_signal_once_play_is_over_lets_the_reports_be_written(
    command, clean, tmp_path, sigint_when_called
):
    """SIGINT after the last chunk, while the command computes its results (here: as it
    builds run.json), is only noted: the complete run writes its reports and exits 0
    (it used to stop half-way with a KeyboardInterrupt and no reports)."""
    from shedsim.runs.execute import Session

    sigint_when_called(Session, "run_info")
    d = tmp_path / "run"
    r = cli(*COMMANDS[command], "--out", str(d))
    assert r.exit_code == 0, r.output
    assert csvs(d) == clean[command] and json.loads((d / "run.json").read_text())["complete"]


def test_a_signal_after_the_last_chunk_stops_nothing(clean, tmp_path):
    """A real SIGINT that lands after the last chunk is stored (the run waits after each
    chunk) finds nothing left to stop: the complete reports, exit 0."""
    d = tmp_path / "run"
    code, stderr = signalled(
        [*COMMANDS["tournament"], "--out", str(d)], d, 0.8, DONE["tournament"], signal.SIGINT
    )
    assert code == 0, stderr[-2000:]
    assert csvs(d) == clean["tournament"] and json.loads((d / "run.json").read_text())["complete"]


def test_ctrl_c_while_the_command_line_is_read_is_one_line(monkeypatch, capsys):
    import shedsim.cli as C

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(C, "app", interrupted)
    with pytest.raises(SystemExit) as e:
        C.main()
    assert (
        e.value.code == 130
        and capsys.readouterr().err == "interrupted: nothing was played or written\n"
    )


def pngs(d: Path) -> list[str]:
    return sorted(p.name for p in d.glob("*.png"))


@pytest.mark.parametrize("command", some(sorted(COMMANDS), ["tournament", "sprt"]))
def test_no_plots_holds_on_every_path(command, tmp_path):
    """--no-plots on a fresh run holds when it is resumed and when the finished run is
    resumed again, with or without --no-plots then; a run started with charts and resumed
    with --no-plots keeps no chart of its partial reports, and one resumed without it
    draws them (run.json lists what is there)."""
    bare = tmp_path / "bare"
    assert cli(*COMMANDS[command], "--out", str(bare), "--stop-after", "1").exit_code == 130
    for extra in ((), (), ("--no-plots",)):  # the rest, the finished run, the finished run again
        r = cli(command, "--resume", str(bare), "--quiet", *extra)
        assert r.exit_code == 0, r.output
        assert pngs(bare) == [] and not [
            f for f in json.loads((bare / "run.json").read_text())["outputs"] if f.endswith(".png")
        ]
    drawn = tmp_path / "drawn"
    args = [a for a in COMMANDS[command] if a != "--no-plots"]
    assert cli(*args, "--out", str(drawn), "--stop-after", str(FIRST[command])).exit_code == 130
    assert bool(pngs(drawn)) == PARTIAL[command]  # partial reports have their charts
    r = cli(command, "--resume", str(drawn), "--quiet", "--no-plots")
    assert r.exit_code == 0, r.output
    assert pngs(drawn) == []
    r = cli(command, "--resume", str(drawn), "--quiet")
    assert r.exit_code == 0, r.output
    listed = [
        f for f in json.loads((drawn / "run.json").read_text())["outputs"] if f.endswith(".png")
    ]
    assert pngs(drawn) and pngs(drawn) == sorted(listed)


def test_compare_pairing_resumes_stopped_late_and_finished(tmp_path):
    whole = tmp_path / "whole"
    assert cli(*PAIRING, "--out", str(whole)).exit_code == 0
    d = tmp_path / "run"
    assert cli(*PAIRING, "--out", str(d), "--stop-after", "11").exit_code == 130
    for _ in range(2):
        r = cli("sprt", "--resume", str(d), "--quiet")
        assert r.exit_code == 0, r.output
        assert csvs(d) == csvs(whole)


# ------------------------------------------------------------------ a busy directory
@pytest.mark.parametrize("command", some(sorted(COMMANDS), ["compare-rules"]))
def test_a_second_run_into_a_busy_directory_is_refused(command, clean, tmp_path):
    d = tmp_path / "run"
    p = start([*COMMANDS[command], "--out", str(d)], PAUSE[command])
    try:
        wait_for_chunk(p, d)
        for args in (
            [*COMMANDS[command], "--out", str(d)],
            [command, "--resume", str(d), "--quiet"],
        ):
            r = cli(*args)
            assert r.exit_code == 2, r.output
            assert f"is in use by another shedsim run (pid {p.pid})" in r.output
        _, stderr = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, stderr[-2000:]
    assert csvs(d) == clean[command]


def test_the_lock_dies_with_its_process(tmp_path):
    """flock(2): a lock held by a process that is SIGKILLed is free at once; the stale pid
    file it left does not block."""
    store = RunStore(tmp_path / "run")
    code = (
        "import sys, time; from shedsim.runs.store import RunStore\n"
        f"with RunStore({str(store.root)!r}).lock():\n    print('locked', flush=True); "
        "time.sleep(60)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "locked"
        with pytest.raises(StoreError, match=f"in use by another shedsim run \\(pid {p.pid}\\)"):
            with store.lock():
                pass
        p.kill()
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
        p.stdout.close()
    assert (store.root / ".shedsim.pid").read_text().strip() == str(
        p.pid
    )  # left by the killed holder
    with store.lock():
        assert (store.root / ".shedsim.pid").read_text().strip() == str(os.getpid())
    assert not (store.root / ".shedsim.pid").exists()


# ------------------------------------------------------------------ --out never touches a user's
# file
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_out_into_a_directory_with_user_files_is_refused(command, tmp_path):
    (tmp_path / "summary.csv").write_text("my own numbers\n")
    (tmp_path / "notes.txt").write_text("keep me\n")
    r = cli(*COMMANDS[command], "--out", str(tmp_path))
    assert r.exit_code == 2, r.output
    assert "is not empty and holds no shedsim run" in r.output and "--force" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "summary.csv"]
    assert (tmp_path / "summary.csv").read_text() == "my own numbers\n"


@pytest.mark.parametrize("command", some(sorted(COMMANDS), ["swaps", "sprt"]))
def test_force_never_replaces_a_user_file(command, clean, tmp_path):
    outputs = {n for n in clean[command]} | {"run.json", "spec.json"}
    for name in sorted(outputs):
        d = tmp_path / name.replace(".", "_")
        d.mkdir()
        (d / name).write_text("mine\n")
        r = cli(*COMMANDS[command], "--out", str(d), "--force")
        assert r.exit_code == 2, r.output
        assert f"already holds {name}" in r.output and "--force never replaces" in r.output
        assert [p.name for p in d.iterdir()] == [name] and (d / name).read_text() == "mine\n"
    # beside files it does not write, --force runs and leaves them alone
    d = tmp_path / "beside"
    d.mkdir()
    (d / "notes.txt").write_text("keep me\n")
    r = cli(*COMMANDS[command], "--out", str(d), "--force")
    assert r.exit_code == 0, r.output
    assert (d / "notes.txt").read_text() == "keep me\n" and csvs(d) == clean[command]


@pytest.mark.parametrize("where", ["root", "home"])
def test_out_refuses_the_root_and_the_home_directory(where, monkeypatch, tmp_path):
    if where == "home":
        monkeypatch.setenv("HOME", str(tmp_path))
    target = "/" if where == "root" else str(tmp_path)
    r = cli(*COMMANDS["tournament"], "--out", target, "--force")
    assert r.exit_code == 2, r.output
    assert "refusing to write a run into" in r.output
    if where == "home":
        assert list(tmp_path.iterdir()) == []


def test_out_into_an_earlier_run_replaces_it(clean, tmp_path):
    d = tmp_path / "run"
    assert cli(*COMMANDS["tournament"], "--out", str(d), "--stop-after", "1").exit_code == 130
    r = cli(*COMMANDS["tournament"], "--out", str(d))
    assert r.exit_code == 0, r.output
    assert csvs(d) == clean["tournament"]


# ------------------------------------------------------------------ an edited spec.json
@pytest.mark.parametrize(
    "command,edit", diagonal(sorted(COMMANDS), ["n_chunks", "checksum", "drop"])
)
def test_an_edited_spec_is_refused_on_resume(command, edit, tmp_path):
    d = tmp_path / "run"
    assert cli(*COMMANDS[command], "--out", str(d), "--stop-after", "1").exit_code == 130
    p = d / "spec.json"
    spec = json.loads(p.read_text())
    if edit == "n_chunks":
        spec["n_chunks"] = spec["n_chunks"] + 1
    elif edit == "checksum":
        spec["checksum"] = "0" * 64
    else:
        del spec["checksum"]
    p.write_text(json.dumps(spec, indent=2))
    before = {q.name: q.read_bytes() for q in sorted(d.rglob("*")) if q.is_file()}
    r = cli(command, "--resume", str(d), "--quiet")
    assert r.exit_code == 2, r.output
    assert "--resume" in r.output and ("was edited" in r.output or "has no checksum" in r.output)
    assert {q.name: q.read_bytes() for q in sorted(d.rglob("*")) if q.is_file()} == before


# ------------------------------------------------------------------ sprt --compare-pairing
PAIRING = [
    "sprt",
    "--a",
    "random",
    "--b",
    "greedy",
    "--compare-pairing",
    "--games",
    "600",
    "--batch",
    "100",
    "--no-plots",
    "--quiet",
]
"""12 batches: 6 paired, then 6 unpaired."""


def test_compare_pairing_follows_the_directory_rules_and_resumes_after_sigkill(tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "run.json").write_text("{}\n")
    r = cli(*PAIRING, "--out", str(user))
    assert r.exit_code == 2 and "holds no shedsim run" in r.output, r.output
    r = cli(*PAIRING, "--out", str(user), "--force")
    assert r.exit_code == 2 and "already holds run.json" in r.output, r.output
    assert [p.name for p in user.iterdir()] == ["run.json"] and (
        user / "run.json"
    ).read_text() == "{}\n"

    whole = tmp_path / "whole"
    r = cli(*PAIRING, "--out", str(whole))
    assert r.exit_code == 0, r.output
    d = tmp_path / "run"
    p = start([*PAIRING, "--out", str(d)], 0.4)
    try:
        wait_for_chunk(p, d, 1)
        r = cli(*PAIRING, "--out", str(d))  # busy
        assert r.exit_code == 2 and f"in use by another shedsim run (pid {p.pid})" in r.output, (
            r.output
        )
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    kept = len(list((d / "chunks").glob("*.npz")))
    assert 1 <= kept < 12 and not (d / "run.json").exists()
    r = cli("sprt", "--resume", str(d), "--quiet")
    assert r.exit_code == 0, r.output
    assert csvs(d) == csvs(whole) and list(csvs(d)) == ["pairing.csv"]
    info = json.loads((d / "run.json").read_text())
    assert info["complete"] and info["chunks_done"] == 12 and len(info["sessions"]) == 1


def test_sprt_resume_refuses_options_and_a_run_of_another_command(tmp_path):
    d = tmp_path / "run"
    assert cli(*COMMANDS["sprt"], "--out", str(d), "--stop-after", "1").exit_code == 130
    r = cli("sprt", "--resume", str(d), "--elo1", "10")
    said = " ".join(r.output.split())
    assert (
        r.exit_code == 2
        and "--resume: these options differ from the stored run: --elo1 (10.0 vs stored 5.0)"
        in said
        and "Traceback" not in said
    ), said
    t = tmp_path / "t"
    assert cli(*COMMANDS["tournament"], "--out", str(t), "--stop-after", "1").exit_code == 130
    r = cli("sprt", "--resume", str(t), "--quiet")
    assert r.exit_code == 2 and "is not an sprt run" in r.output, r.output


def test_a_run_of_another_command_is_named_with_the_command_that_reads_it(tmp_path):
    """``--resume`` of another command's run directory, and ``trace --from`` one that is not a
    tournament, say which command's run it is and the command that continues it (not "has
    format 1, this shedsim writes format 2"); a directory holding only another command's
    reports says whose they are."""
    dirs = {}
    for command in COMMANDS:
        dirs[command] = tmp_path / command
        assert (
            cli(*COMMANDS[command], "--out", str(dirs[command]), "--stop-after", "1").exit_code
            == 130
        )
    for command in COMMANDS:
        for other, d in dirs.items():
            if other == command:
                continue
            r = cli(command, "--resume", str(d), "--quiet")
            said = " ".join(r.output.split())
            assert r.exit_code == 2, said
            article = "an" if other == "sprt" else "a"
            assert (
                f"it holds {article} {other} run" in said
                and f"continue it with: shedsim {other} --resume {d}" in said
            ), said
            assert "format" not in said
    for other in ("compare-rules", "swaps", "sprt", "gauntlet"):
        r = runner.invoke(app, ["trace", "--from", str(dirs[other])])
        said = " ".join(r.output.split())
        assert r.exit_code == 2 and "trace --from reads tournament runs only" in said, said
        assert (
            f"shedsim {other} --resume {dirs[other]} continues it" in said and "format" not in said
        )
    tips = tmp_path / "tips"
    tips.mkdir()
    (tips / "run.json").write_text(json.dumps({"command": "shedsim tips"}))
    r = cli("tournament", "--resume", str(tips), "--quiet")
    said = " ".join(r.output.split())
    assert (
        r.exit_code == 2 and "holds no spec.json" in said and "reports of shedsim tips" in said
    ), said
    # a tune stopped before its first reports holds its study alone (study.db)
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.db").write_bytes(b"SQLite format 3\x00")
    said = " ".join(cli("tournament", "--resume", str(study), "--quiet").output.split())
    assert (
        f"holds the study of shedsim tune, which continues with: shedsim tune --resume {study}"
        in (said)
    ), said


# ------------------------------------------------------------------ the machinery's hooks for other
# commands
def _triple(k: int):
    """A chunk's work that is not a chunk of games (module level: picklable)."""
    import numpy as np

    return np.arange(3, dtype=np.int64) * k


class ToyJob(Job):
    """Chunks whose work is :func:`_triple`; ``stop_at``: a sequential stop after that many."""

    command = "toy"

    def __init__(self, n: int, stop_at: int | None = None) -> None:
        self.key = "toy-key"
        self.spec_json = {"format": 1, "key": self.key}
        self.tasks = [(None, k) for k in range(n)]
        self.stop_at = stop_at

    def chunk_games(self, k):
        return 1

    def call(self, k):
        return _triple, (k,)

    def reduce(self, k, result, store):
        return {"v": result}

    def template(self, k):
        import numpy as np

        return {"v": np.zeros(3, np.int64)}

    def enough(self, done):
        return self.stop_at is not None and len(done) >= self.stop_at


def test_a_job_with_its_own_work_stops_and_resumes(tmp_path):
    store = RunStore(tmp_path / "toy")
    first = play(ToyJob(5), store, stop_after=2)
    assert first.done == [0, 1] and first.interrupted and not first.complete
    rest = play(ToyJob(5), store, resume=True)
    assert rest.done == [0, 1, 2, 3, 4] and rest.complete and rest.played_now == 3
    assert [store.load_chunk(k)["v"].tolist() for k in rest.done] == [
        [0, k, 2 * k] for k in range(5)
    ]
    with pytest.raises(StoreError, match="belongs to another run"):
        bad = ToyJob(5)
        bad.key = "other"
        play(bad, store, resume=True)


def test_a_chunk_its_resume_would_refuse_is_never_stored(tmp_path):
    """The check --resume makes of every chunk file (dtype and shape per the command's
    template, lengths free only for its ragged names) is made before a chunk is stored:
    a command whose chunks and template disagree fails at its first chunk instead of
    leaving a run store that cannot be resumed."""
    from shedsim.runs.execute import ChunkShapeError

    class Longer(ToyJob):
        def reduce(self, k, result, store):
            import numpy as np

            return {"v": np.zeros(4 + k, np.int64)}

    store = RunStore(tmp_path / "toy")
    with pytest.raises(ChunkShapeError, match=r"chunk 0 .*v: int64\[4\], expected int64\[3\]"):
        play(Longer(3), store)
    assert not list(store.chunks.glob("*.npz"))
    ragged = Longer(3)
    ragged.ragged = ("v",)
    assert play(ragged, store).complete


def test_a_sequential_job_stops_when_it_has_enough(tmp_path):
    store = RunStore(tmp_path / "seq")
    out = play(ToyJob(6, stop_at=2), store)
    assert out.done == [0, 1] and out.complete and not out.interrupted and out.stopped_by is None
    assert sorted(p.name for p in store.chunks.iterdir()) == ["00000.npz", "00001.npz"]
    again = play(ToyJob(6, stop_at=2), store, resume=True)  # nothing left to play
    assert again.done == [0, 1] and again.complete and again.played_now == 0


# ------------------------------------------------------------------ runs too big for the machine
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_run_too_big_to_plan_is_refused_at_once(command, tmp_path):
    """--games 1000000000000 is refused before the plan is built (exit 2), and
    nothing is written."""
    args = list(COMMANDS[command])
    key = "--max-games" if command == "sprt" else "--games" if "--games" in args else "-g"
    args[args.index(key) + 1] = "1000000000000"
    out = tmp_path / "huge"
    r = runner.invoke(app, [*args, "--out", str(out)])
    assert r.exit_code == 2, r.output
    said = " ".join(r.output.split())
    assert (
        "--max-games" if command == "sprt" else "--games"
    ) in said and "at most 200,000 chunks" in said
    assert not out.exists()


def test_a_run_the_disk_cannot_hold_is_refused_before_playing(monkeypatch, tmp_path):
    """The run store's size is estimated from one chunk file's size; a file system without
    room for it refuses the run (exit 2) with the estimate, and no chunk is played."""
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**9, 10**9 - 20_000, 20_000))
    out = tmp_path / "full"
    r = runner.invoke(app, [*COMMANDS["tournament"], "--out", str(out)])
    assert r.exit_code == 2, r.output
    said = " ".join(r.output.split())
    assert "would need about" in said and "20.0 kB is free" in said
    assert not list((out / "chunks").glob("*.npz"))


class Big(Job):
    tasks = [None] * 1000

    def chunk_games(self, k):
        return 10


def _estimates(job, monkeypatch, arrivals, before=0, workers=1, say_over_s=0.0):
    """What :meth:`Session.estimator` says (its lines) for ``job`` when its chunks are stored at
    the times ``arrivals`` (seconds after the start: the first ones come late, after the workers
    start and the kernel is loaded or compiled); ``time.perf_counter`` is replaced by a clock the
    test moves."""
    from rich.console import Console
    from shedsim.runs.execute import PlayRate, Session

    now = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: now[0])
    lines = []
    console = Console(file=None, width=200)
    console.print = lambda *a, **k: lines.append(" ".join(map(str, a)))
    say = Session("tournament", None, console=console).estimator(
        job, say_over_s=say_over_s, before=before, rate=PlayRate(workers=workers)
    )
    for t in arrivals:
        now[0] = t
        say(job.chunk_games(0))
    return lines


ONE_WORKER = [120.0 + i for i in range(11)]
"""The first chunk 120 s after the start, then one a second."""


def test_a_long_run_says_how_long_it_will_take(monkeypatch):
    """After the calibration time, one line estimates the rest of a long run from the games
    per second of play so far; a short run says nothing."""
    lines = _estimates(Big(), monkeypatch, ONE_WORKER)
    assert len(lines) == 1 and "estimate: about" in lines[0]
    assert _estimates(Big(), monkeypatch, ONE_WORKER, say_over_s=1e9) == []


def test_the_estimate_counts_play_only_and_what_is_left(monkeypatch):
    """The rate is measured from the first stored chunk on, so two minutes of start-up
    (workers, kernel) are not counted as play: 10 games/s, and 9,940 games left after 6
    chunks take about 17 min (not the 1.4 days that 10 games in 120 s would give). On
    resume, the games stored before are not left to play."""
    lines = _estimates(Big(), monkeypatch, ONE_WORKER)
    assert lines and "about 17 min more for 9,940 games (10 games/s so far)" in lines[0], lines
    lines = _estimates(Big(), monkeypatch, ONE_WORKER, before=6_000)
    assert lines and "about 7 min more for 3,940 games" in lines[0], lines


def test_the_estimate_waits_for_a_round_of_chunks_from_every_worker(monkeypatch):
    """Two workers start together: their first chunks are stored 6 s apart, then a pair every
    100 s (20 games/s). A rate from the first chunk on would count the second one's 1,000
    games in 6 s (167 games/s: 'about 1.7 h' for 13.8 h); from the first round on it is right."""

    class Bigger(Big):
        def chunk_games(self, k):
            return 1000

    arrivals = [120.0, 126.0, 220.0, 226.0, 320.0, 326.0]
    lines = _estimates(Bigger(), monkeypatch, arrivals, workers=2)
    assert (
        len(lines) == 1 and "about 13.8 h more for 996,000 games (20 games/s so far)" in lines[0]
    ), lines


def test_sprt_shows_its_expected_length_and_its_bound(tmp_path, monkeypatch):
    """sprt's progress bar counts up to the test's expected length (from its LLR so far),
    with --max-games as the bound: not to --max-games alone."""
    monkeypatch.setenv("COLUMNS", "200")  # the bar on one line
    args = [a for a in COMMANDS["sprt"] if a != "--quiet"]
    r = cli(*args, "--out", str(tmp_path / "run"))
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())
    assert "/~" in said and "(max 1,200)" in said, said


@pytest.mark.parametrize("command", ["tournament", "compare-rules"])
def test_the_closing_rate_and_run_json_count_play_only(command, monkeypatch, tmp_path):
    """Two minutes before the first chunk (the workers start, a new plugin compiles), then one
    chunk a second: the closing line and run.json give the rate of play only (a chunk's games
    per second), as the live bar does, not the games over the whole time with the compile, and
    says that the start is left out (the played games over the play time on that line differ)."""
    from shedsim.runs import simulate

    now = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: now[0])
    real = simulate.run_calls

    def slow_start(calls, workers=1, backend="loky", on_result=None, scheduler=None):
        now[0] += 120.0

        def tick(k, r):
            now[0] += 1.0
            on_result(k, r)

        real(calls, workers=workers, backend=backend, on_result=tick, scheduler=scheduler)

    monkeypatch.setattr(simulate, "run_calls", slow_start)
    out = tmp_path / "run"
    args = (
        ["tournament", "-S", "greedy,random", "-p", "2", "--games", "400", "--chunk-size", "100"]
        if command == "tournament"
        else ["compare-rules", "-r", "shithead", "-r", "shithead+low5", "-p", "2", "--games", "480"]
    )
    r = CliRunner().invoke(app, args + ["--seed", "1", "--workers", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    info = json.loads((out / "run.json").read_text())
    chunk = info["sessions"][0]["games_played"] // info["n_chunks"]
    assert info["games_per_s"] == info["sessions"][0]["games_per_s"] == chunk, info
    # and it says so: the games played over the seconds on the same line give another rate
    said = " ".join(r.output.split())
    assert f"({chunk:,} games/s once playing, the workers' start and kernel load left out)" in said


def test_an_interrupted_compare_says_the_games_it_kept_and_marks_its_tables_partial(tmp_path):
    """compare-rules stopped after 20 of its 32 chunks (two variants of 16 chunks, played
    in turn): the message counts the 20 chunks' games as kept, and the partial results the
    games per variant finished in every variant (10 chunks' worth), as do the tables'
    subtitle and the closing line, which say the results are partial."""
    out = tmp_path / "run"
    r = CliRunner().invoke(
        app,
        [
            "compare-rules",
            "-r",
            "shithead",
            "-r",
            "shithead+low5",
            "-p",
            "2",
            "--games",
            "480",
            "--seed",
            "1",
            "--workers",
            "1",
            "--no-plots",
            "--stop-after",
            "20",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 130, r.output
    info = json.loads((out / "run.json").read_text())
    chunk, n = info["chunk_size"], info["n_chunks"]
    assert n == 32 and info["chunks_done"] == 20 and not info["complete"]
    text = " ".join(r.output.split())
    assert f"20 of 32 chunks ({20 * chunk:,} of {n * chunk:,} games) finished and kept" in text, (
        text
    )
    assert f"of the {10 * chunk:,} games per variant finished in every variant" in text, text
    assert (
        f"{10 * chunk:,} games per variant, seed 1" in text and "[PARTIAL: run interrupted]" in text
    ), text
    assert f"{10 * chunk:,} games per variant x 2 variants [PARTIAL: run interrupted]" in text, text
    assert info["games"] == 10 * chunk


def test_a_run_directory_of_another_command_is_refused_by_every_command(tmp_path):
    """Every command that writes a run directory refuses (exit 2, naming the kind of run it
    holds, with or without --force) one holding another command's run: tips and tune into a
    tournament's (they replaced its run.json and left its CSVs and chunks), a fresh
    compare-rules or swaps into a tournament's, and a tournament into one holding tips'
    reports. Nothing there changes."""
    runs = {"tournament": tmp_path / "tournament", "tips": tmp_path / "tips"}
    assert (
        cli(
            *COMMANDS["tournament"], "--out", str(runs["tournament"]), "--stop-after", "1"
        ).exit_code
        == 130
    )
    r = cli(
        "tips",
        "--rules",
        "shithead",
        "--players",
        "2",
        "--tip",
        "block",
        "--games",
        "20",
        "--quiet",
        "--out",
        str(runs["tips"]),
    )
    assert r.exit_code == 0, r.output
    before = {
        k: {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()} for k, d in runs.items()
    }
    attempts = [
        (
            "tournament",
            [
                "tips",
                "--rules",
                "shithead",
                "--players",
                "2",
                "--tip",
                "block",
                "--games",
                "20",
                "--quiet",
            ],
        ),
        (
            "tournament",
            [
                "tune",
                "--budget",
                "1",
                "--games",
                "100",
                "--confirm-games",
                "100",
                "--param",
                "track=0:50",
                "--quiet",
            ],
        ),
        ("tournament", COMMANDS["compare-rules"] + ["--force"]),
        ("tournament", COMMANDS["swaps"]),
        ("tournament", COMMANDS["gauntlet"]),
        ("tips", COMMANDS["tournament"]),
        ("tips", COMMANDS["tournament"] + ["--force"]),
    ]
    for held, args in attempts:
        r = cli(*args, "--out", str(runs[held]))
        said = " ".join(r.output.split())
        assert r.exit_code == 2 and f"holds a {held} run" in said, (args[0], held, said)
        assert "Traceback" not in said
    after = {
        k: {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()} for k, d in runs.items()
    }
    assert after == before


def test_compare_rules_resume_names_the_variants_asked_for_and_stored(tmp_path):
    """Options beside --resume that would compare other variants are refused naming both
    lists, also where they plan nothing together with the stored ones (--each-toggle over
    a run of three rule sets), never with a message about options not typed."""
    d = tmp_path / "c"
    r = cli(
        "compare-rules", "-r", "shithead", "-r", "shithead+low7", "-r", "nines", "-p", "2",
        "--games", "400", "--workers", "1", "--quiet", "--no-plots", "--out", str(d),
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    stored = "shithead, shithead+low7, nines"
    r = cli("compare-rules", "--resume", str(d), "--each-toggle")
    assert r.exit_code == 2 and f"(the stored run compares {stored})" in r.output, r.output
    assert "exactly one --rules" not in r.output
    r = cli("compare-rules", "--resume", str(d), "-r", "shithead", "-r", "palace")
    assert r.exit_code == 2 and f"(shithead, palace vs stored {stored})" in r.output, r.output
