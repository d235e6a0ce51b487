"""Hostile conditions for ``shedsim tournament``: a run killed with SIGKILL, a damaged or
foreign run store given to ``--resume``, a read-only output directory, a full disk.

Bad input exits 2 with a message naming the file or option and changes nothing on disk;
a full disk exits 3 naming the file, leaves no half-written file (every file is written to
a temporary file in the same directory and ``os.replace``'d into place; the reports all
together or not at all) and keeps every finished chunk, so ``--resume`` completes the run
with the same bytes as an uninterrupted one.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.base import atomic
from shedsim.runs.execute import PAUSE_ENV
from shedsim.analysis import tournament as T
from shedsim.cli import app

ROOT = Path(__file__).resolve().parent.parent
CSVS = ("summary.csv", "head_to_head.csv", "seats.csv", "lengths.csv")
REPORTS = (
    *CSVS,
    "matches.csv",
    "rates.png",
    "places.png",
    "head_to_head.png",
    "lengths.png",
    "seats.png",
    "run.json",
)
ARGS = [
    "--strategies",
    "greedy,random,heuristic",
    "--players",
    "3",
    "--games",
    "2000",
    "--seed",
    "4",
    "--chunk-size",
    "300",
    "--workers",
    "1",
    "--quiet",
]

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, ["tournament", *args])


def snapshot(d: Path) -> dict[str, bytes]:
    """Every file below ``d`` (relative path -> bytes)."""
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def tables(d: Path) -> dict[str, bytes]:
    return {n: (d / n).read_bytes() for n in CSVS}


def temp_files(d: Path) -> list[str]:
    return [str(p) for p in d.rglob("*.tmp")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The uninterrupted run of ARGS (with charts)."""
    d = tmp_path_factory.mktemp("reference")
    r = cli(*ARGS, "--out", str(d))
    assert r.exit_code == 0, r.output
    return d


@pytest.fixture(scope="module")
def partial_store(tmp_path_factory) -> Path:
    """A store of the ARGS run with 3 of its 7 chunks done and no report (as a killed run leaves
    it)."""
    d = tmp_path_factory.mktemp("partial")
    r = cli(*ARGS, "--no-plots", "--out", str(d), "--stop-after", "3")
    assert r.exit_code == 130, r.output
    for name in REPORTS:
        (d / name).unlink(missing_ok=True)
    assert sorted(p.name for p in (d / "chunks").iterdir()) == [
        "00000.npz",
        "00001.npz",
        "00002.npz",
    ]
    assert json.loads((d / "spec.json").read_text())["n_chunks"] == 7
    return d


@pytest.fixture
def store(partial_store, tmp_path) -> Path:
    d = tmp_path / "run"
    shutil.copytree(partial_store, d)
    return d


# ------------------------------------------------------------------ SIGKILL, then --resume
def test_killed_run_resumes_to_identical_files(tmp_path):
    """SIGKILL a real run once its first chunk is stored, then ``--resume`` it (a real process
    again): the same tables as an uninterrupted run. The killed run waits
    ``SHEDSIM_TEST_CHUNK_PAUSE`` seconds after each chunk, so the kill always lands while most
    of its 20 chunks are still to play, however fast the machine; the chunks are small, so
    the test costs seconds, not minutes."""
    args = [
        "--rules",
        "shithead",
        "--players",
        "4",
        "--strategies",
        "greedy,random,heuristic,aggressive",
        "--games",
        "480",
        "--seed",
        "17",
        "--chunk-size",
        "24",
        "--workers",
        "1",
        "--quiet",
        "--no-plots",
    ]
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    p = subprocess.Popen(
        [sys.executable, "-m", "shedsim", "tournament", *args, "--out", str(killed)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, PAUSE_ENV: "0.25"},
    )
    try:
        deadline = time.monotonic() + 90
        while (
            time.monotonic() < deadline
            and p.poll() is None
            and not list((killed / "chunks").glob("*.npz"))
        ):
            time.sleep(0.02)
        assert p.poll() is None, p.stderr.read().decode()[-2000:]
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
        p.stderr.close()
    assert p.returncode == -signal.SIGKILL
    spec = json.loads((killed / "spec.json").read_text())  # written (atomically) before any chunk
    kept = sorted((killed / "chunks").glob("*.npz"))
    assert 1 <= len(kept) < spec["n_chunks"] == 20
    assert not (killed / "summary.csv").exists() and not (killed / "run.json").exists()
    # as if the kill had landed in the middle of writing a chunk
    (killed / "chunks" / ".00019.npz.abc123.tmp").write_bytes(b"PK\x03\x04 half a chunk")

    env = {k: v for k, v in os.environ.items() if k != PAUSE_ENV}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "shedsim",
            "tournament",
            "--resume",
            str(killed),
            "--quiet",
            "--no-plots",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    # the uninterrupted run (in this process: it is the reference, not what is tested)
    r = cli(*args, "--out", str(whole))
    assert r.exit_code == 0, r.output
    assert tables(killed) == tables(whole)
    assert temp_files(killed) == []
    info = json.loads((killed / "run.json").read_text())
    assert info["complete"] and info["chunks_done"] == 20
    assert info["sessions"][0]["games_played"] == 480 - 24 * len(kept)


def test_chunk_files_and_spec_are_written_atomically(tmp_path, monkeypatch):
    """spec.json first, then each chunk, each through a temp file + fsync + os.replace."""
    events = []
    real_replace, real_fsync = os.replace, os.fsync
    monkeypatch.setattr(
        atomic.os, "fsync", lambda fd: (events.append(("fsync", fd)), real_fsync(fd))[1]
    )
    monkeypatch.setattr(
        atomic.os,
        "replace",
        lambda a, b: (events.append(("replace", Path(a).name, Path(b).name)), real_replace(a, b))[
            1
        ],
    )
    r = cli(*ARGS, "--no-plots", "--out", str(tmp_path), "--stop-after", "2")
    assert r.exit_code == 130, r.output
    replaced = [e for e in events if e[0] == "replace"]
    assert [e[2] for e in replaced[:3]] == ["spec.json", "00000.npz", "00001.npz"]
    for _, tmp, final in replaced:
        assert tmp.startswith(f".{final}.") and tmp.endswith(".tmp")
    # the store's files: each replace right after the fsync of its temporary file
    store = [
        k
        for k, e in enumerate(events)
        if e[0] == "replace" and e[2] in ("spec.json", "00000.npz", "00001.npz")
    ]
    assert len(store) == 3 and all(events[k - 1][0] == "fsync" for k in store)
    # the (partial) reports: all written and fsync'ed first, then replaced together
    reports = [k for k, e in enumerate(events) if e[0] == "replace" and e[2] in (*CSVS, "run.json")]
    assert len(reports) == 5 and reports == list(range(reports[0], reports[0] + 5))
    assert sum(e[0] == "fsync" for e in events[store[-1] + 1 : reports[0]]) >= 5


# ------------------------------------------------------------------ a damaged or foreign store
def _truncate(p: Path) -> None:
    b = p.read_bytes()
    p.write_bytes(b[: len(b) // 2])


def _other_npz(p: Path) -> None:
    with open(p, "wb") as f:
        np.savez(f, x=np.arange(3))


def _renumbered(p: Path) -> None:
    p.write_bytes((p.parent / "00000.npz").read_bytes())


def _wrong_shape(p: Path) -> None:
    with np.load(p) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["wins"] = np.zeros(7, np.int64)
    with open(p, "wb") as f:
        np.savez(f, **arrays)


@pytest.mark.parametrize(
    "damage,needle",
    [
        (_truncate, "is damaged (it is not a NumPy .npz archive)"),
        (lambda p: p.write_bytes(b""), "is damaged (it is cut short)"),
        (lambda p: p.write_bytes(b"junk\n"), "is damaged (it is not a NumPy .npz archive)"),
        (_other_npz, "is damaged or not a shedsim chunk (missing"),
        (_renumbered, "holds chunk 0, not 1"),
        (_wrong_shape, "is damaged (wins: int64[7], expected int64[3])"),
    ],
)
def test_resume_refuses_a_damaged_chunk_file(store, damage, needle):
    damage(store / "chunks" / "00001.npz")
    before = snapshot(store)
    r = cli("--resume", str(store), "--quiet")
    assert r.exit_code == 2, r.output
    assert "--resume: chunk file" in r.output and "00001.npz" in r.output and needle in r.output
    assert "delete it to play that chunk again" in r.output
    assert "allow_pickle" not in r.output  # numpy's advice to load it unsafely is not passed on
    assert snapshot(store) == before  # nothing written, nothing removed


def test_resume_refuses_a_chunk_of_another_run(store, tmp_path):
    other = tmp_path / "other"
    assert (
        cli(
            *[a if a != "4" else "5" for a in ARGS],
            "--no-plots",
            "--out",
            str(other),
            "--stop-after",
            "1",
        ).exit_code
        == 130
    )
    # the other run's spec.json over this run's chunks
    shutil.copy(other / "spec.json", store / "spec.json")
    before = snapshot(store)
    r = cli("--resume", str(store), "--quiet")
    assert r.exit_code == 2, r.output
    assert "belongs to another run" in r.output and "00000.npz" in r.output
    assert snapshot(store) == before


def _spec(store: Path) -> dict:
    return json.loads((store / "spec.json").read_text())


@pytest.mark.parametrize(
    "content,needle",
    [
        (None, "holds no spec.json (not a tournament directory)"),
        (
            b'{"name": "my-webapp", "version": "2.1.0", "private": true}\n',
            "is not a shedsim tournament spec",
        ),
        (b"[1, 2, 3]", "is not a shedsim tournament spec"),
        (b'{"format": 1, "key": "abc", ', "is not valid JSON"),
        (
            b'{"format": 1, "key": ' + b"[" * 5000 + b"]" * 5000 + b"}",
            "is not valid JSON",
        ),  # RecursionError in json
        (b"\x89PNG\r\n\x1a\n\x00\x00garbage", "is not valid JSON"),
        (lambda d: {**d, "format": 99}, "has format 99, this shedsim writes format 2"),
        (lambda d: {k: v for k, v in d.items() if k != "players"}, "missing or invalid: players"),
        (lambda d: {**d, "labels": "greedy"}, "missing or invalid: labels"),
        (lambda d: {**d, "players": 9}, "players"),
        (
            lambda d: {**d, "entries": ["greedy", "nosuch", "heuristic"]},
            "unknown strategy 'nosuch'",
        ),
        (lambda d: {**d, "seed": 5}, "does not match what it rebuilds to"),
        (lambda d: {**d, "games_requested": -3}, "--games"),
    ],
)
def test_resume_refuses_a_foreign_directory(store, content, needle):
    p = store / "spec.json"
    if content is None:
        p.unlink()
    elif callable(content):
        p.write_text(json.dumps(content(_spec(store))))
    else:
        p.write_bytes(content)
    before = snapshot(store)
    r = cli("--resume", str(store), "--quiet")
    assert r.exit_code == 2, r.output
    assert "--resume" in r.output and needle in r.output
    assert "Traceback" not in r.output
    assert snapshot(store) == before


def test_json_nested_too_deeply_is_no_run_and_no_crash(tmp_path):
    """json gives up on deep nesting with RecursionError, which is not a ValueError: a
    directory holding such a run.json or spec.json is no shedsim run (--out refuses it,
    exit 2), never a traceback."""
    from shedsim.runs.store import RunStore

    deep = "[" * 5000 + "]" * 5000
    (tmp_path / "run.json").write_text('{"command": "shedsim tournament", "x": ' + deep + "}")
    (tmp_path / "spec.json").write_text('{"format": 2, "key": ' + deep + "}")
    assert not RunStore.holds_run(tmp_path)
    r = cli("--out", str(tmp_path), "--quiet")
    assert (
        r.exit_code == 2 and "holds no shedsim run" in r.output and "Traceback" not in r.output
    ), r.output


@pytest.mark.parametrize(
    "text",
    [
        '{"command": "shedsim tournament", "sessions": ' + "[" * 5000 + "]" * 5000 + "}",
        '[{"command": "shedsim tournament"}]',
    ],
    ids=["nested too deeply", "a list"],
)
def test_resume_over_a_run_json_nested_too_deeply(store, reference, text):
    """The earlier sessions read from run.json on --resume: one nested too deeply for json
    (RecursionError), or one that is not a JSON object, counts as none, the run completes
    and run.json is written anew."""
    (store / "run.json").write_text(text)
    r = cli("--resume", str(store), "--quiet")
    assert r.exit_code == 0, r.output
    assert tables(store) == tables(reference)
    assert len(json.loads((store / "run.json").read_text())["sessions"]) == 1


def test_resume_refuses_what_is_not_a_directory(tmp_path):
    missing = tmp_path / "no" / "such"
    r = cli("--resume", str(missing), "--quiet")
    assert r.exit_code == 2 and "is not a directory" in r.output
    assert not (tmp_path / "no").exists()  # not created
    f = tmp_path / "file"
    f.write_text("x")
    r = cli("--resume", str(f), "--quiet")
    assert r.exit_code == 2 and "is not a directory" in r.output
    assert f.read_text() == "x"


# ------------------------------------------------------------------ a read-only output directory
def test_check_writable_refuses_a_read_only_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: not mode & os.W_OK)
    with pytest.raises(T.TournamentError, match="cannot write to .* the directory is read-only"):
        T.Store.check_writable(tmp_path)
    with pytest.raises(T.TournamentError, match="^--resume: cannot write to .*read-only"):
        T.Store.check_writable(tmp_path, create=False, option="--resume")
    assert list(tmp_path.iterdir()) == []


def test_read_only_out_is_refused(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    real = os.access
    monkeypatch.setattr(
        os,
        "access",
        lambda path, mode, **kw: (
            False if Path(path) == out and mode & os.W_OK else real(path, mode, **kw)
        ),
    )
    r = cli(*ARGS, "--out", str(out))
    assert r.exit_code == 2, r.output
    assert f"--out: cannot write to {str(out)!r}: the directory is read-only" in r.output
    assert list(out.iterdir()) == []


def test_read_only_resume_directory_is_refused(store, monkeypatch):
    real = os.access
    monkeypatch.setattr(
        os,
        "access",
        lambda path, mode, **kw: (
            False if Path(path) == store and mode & os.W_OK else real(path, mode, **kw)
        ),
    )
    before = snapshot(store)
    r = cli("--resume", str(store), "--quiet")
    assert r.exit_code == 2, r.output
    assert f"--resume: cannot write to {str(store)!r}: the directory is read-only" in r.output
    assert snapshot(store) == before


@pytest.mark.parametrize("where", ["below a file", "/proc", "under /proc"])
def test_unwritable_out_is_refused_even_as_root(tmp_path, where):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = {
        "below a file": blocker / "out",
        "/proc": Path("/proc"),
        "under /proc": Path("/proc") / f"shedsim-test-{os.getpid()}" / "out",
    }[where]
    if where != "below a file" and not Path("/proc").is_dir():
        pytest.skip("no /proc")
    r = cli(*ARGS, "--out", str(out))
    assert r.exit_code == 2, r.output
    assert f"--out: cannot write to {str(out)!r}" in r.output
    assert blocker.read_text() == "x"
    if where == "under /proc":
        assert not out.parent.exists()


# ------------------------------------------------------------------ a full disk
def _disk_full_at(monkeypatch, name: str) -> list[Path]:
    """Make writing the file called ``name`` fail half-way with ENOSPC; returns the paths hit."""
    hit = []
    real = atomic._write

    def write(f, data, path):
        if Path(path).name == name:
            hit.append(Path(path))
            f.write(data[: len(data) // 2])
            f.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(f, data, path)

    monkeypatch.setattr(atomic, "_write", write)
    return hit


@pytest.mark.parametrize(
    "name,plots", [("lengths.csv", False), ("head_to_head.png", True), ("run.json", False)]
)
def test_disk_full_while_writing_reports(reference, tmp_path, monkeypatch, name, plots):
    out = tmp_path / "run"
    hit = _disk_full_at(monkeypatch, name)
    r = cli(*ARGS, *([] if plots else ["--no-plots"]), "--out", str(out))
    assert r.exit_code == 3, r.output
    assert hit == [out / name]
    assert f"cannot write {str(out / name)}: No space left on device" in r.output
    assert "free some space" in r.output and f"--resume {str(out)}" in r.output
    # no report at all (all or nothing), no temporary file, every chunk kept
    assert [n for n in REPORTS if (out / n).exists()] == []
    assert temp_files(out) == []
    assert (
        len(list((out / "chunks").glob("*.npz")))
        == json.loads((out / "spec.json").read_text())["n_chunks"]
    )
    monkeypatch.undo()
    r = cli("--resume", str(out), "--quiet", *([] if plots else ["--no-plots"]))
    assert r.exit_code == 0, r.output
    assert tables(out) == tables(reference)
    assert json.loads((out / "run.json").read_text())["sessions"][-1]["games_played"] == 0


def test_disk_full_while_replacing_reports_keeps_the_old_ones(store, monkeypatch):
    """A resumed run whose reports cannot be written leaves the earlier reports untouched."""
    assert (
        cli("--resume", str(store), "--no-plots", "--quiet", "--stop-after", "1").exit_code == 130
    )
    old = {n: (store / n).read_bytes() for n in (*CSVS, "run.json")}
    _disk_full_at(monkeypatch, "seats.csv")
    r = cli("--resume", str(store), "--no-plots", "--quiet")
    assert r.exit_code == 3, r.output
    assert (
        "seats.csv: No space left on device" in r.output
        and "no report was written or changed" in r.output
    )
    assert {n: (store / n).read_bytes() for n in old} == old
    assert temp_files(store) == []
    assert len(list((store / "chunks").glob("*.npz"))) == 7


def test_disk_full_while_storing_a_chunk(reference, tmp_path, monkeypatch):
    out = tmp_path / "run"
    _disk_full_at(monkeypatch, "00002.npz")
    r = cli(*ARGS, "--no-plots", "--out", str(out))
    assert r.exit_code == 3, r.output
    assert f"cannot write {str(out / 'chunks' / '00002.npz')}: No space left on device" in r.output
    assert "2 of 7 finished chunks are kept" in r.output and f"--resume {str(out)}" in r.output
    assert sorted(p.name for p in (out / "chunks").iterdir()) == ["00000.npz", "00001.npz"]
    assert temp_files(out) == [] and not (out / "summary.csv").exists()
    monkeypatch.undo()
    r = cli("--resume", str(out), "--no-plots", "--quiet")
    assert r.exit_code == 0, r.output
    assert tables(out) == tables(reference)
