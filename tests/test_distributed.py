"""Cluster backends: ``--backend loky|dask|ray`` and ``--scheduler ADDRESS`` on the commands
that simulate (``shedsim tournament``, ``shedsim bench``).

* dask, connecting to an existing cluster: a ``LocalCluster`` of 2 worker processes started
  here, passed with ``--scheduler``, gives byte-identical tables to the loky run of the
  same seed; every worker loaded the compiled kernel; workers running other code are
  refused; the cluster is closed at the end.
* dask without ``--scheduler``: shedsim starts its own local cluster, and closes it.
* ray (not installed here, or hidden): a clean error naming ``pip install ray``, exit 2,
  nothing written. A ``--scheduler`` without a cluster backend, an unknown backend and an
  unreachable scheduler: exit 2 with the reason.

Small runs (2,000 games); the two dask clusters take a few seconds each to start.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shedsim.runs import backends, simulate
from shedsim.cli import app

pytest.importorskip("dask.distributed")

CSVS = ("summary.csv", "head_to_head.csv", "seats.csv", "lengths.csv")
ARGS = [
    "--strategies",
    "greedy,random,heuristic",
    "--players",
    "3",
    "--games",
    "2000",
    "--seed",
    "13",
    "--chunk-size",
    "300",
    "--quiet",
    "--no-plots",
]
BENCH = [
    "bench",
    "--rules",
    "palace",
    "--players",
    "3",
    "--strategy",
    "heuristic",
    "--games",
    "3000",
    "--chunk-size",
    "500",
    "--seed",
    "2",
    "--json",
]

runner = CliRunner()


def _tables(d: Path) -> dict[str, bytes]:
    return {n: (d / n).read_bytes() for n in CSVS}


def _children() -> set[int]:
    import psutil

    return {p.pid for p in psutil.Process().children(recursive=True)}


def _bench(*args: str) -> dict:
    r = runner.invoke(app, [*BENCH, *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.output.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def loky_run(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("loky")
    r = runner.invoke(app, ["tournament", *ARGS, "--workers", "1", "--out", str(d)])
    assert r.exit_code == 0, r.output
    return d


def test_dask_cluster_at_scheduler_gives_identical_tables(loky_run, tmp_path):
    from dask.distributed import Client, LocalCluster

    out = tmp_path / "dask"
    cluster = LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    )
    try:
        address = cluster.scheduler_address
        r = runner.invoke(
            app,
            ["tournament", *ARGS, "--backend", "dask", "--scheduler", address, "--out", str(out)],
        )
        assert r.exit_code == 0, r.output
        assert _tables(out) == _tables(loky_run)
        info = json.loads((out / "run.json").read_text())
        assert info["complete"] and info["backend"] == "dask" and info["workers"] == 2
        assert info["n_chunks"] > 2
        # each worker process loaded the compiled kernel (from numba's cache)
        with Client(address) as client:
            loaded = client.run(lambda: any(m.startswith("shedsim_kernel_") for m in sys.modules))
            assert len(loaded) == 2 and all(loaded.values()), loaded
        # bench on the same cluster: the same games as loky
        assert _bench("--backend", "dask", "--scheduler", address)["workers"] == 2
        dask_b = _bench("--backend", "dask", "--scheduler", address)
        loky_b = _bench("--workers", "1")
        assert (dask_b["moves_per_game"], dask_b["unfinished"]) == (
            loky_b["moves_per_game"],
            loky_b["unfinished"],
        )
        assert dask_b["backend"] == "dask"
        # workers that run other code than this machine are refused before any game
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(
                simulate, "code_fingerprint", lambda spec: "shedsim 0.0.1, code 0123456789abcdef"
            )
            other = tmp_path / "other"
            r = runner.invoke(
                app,
                [
                    "tournament",
                    *ARGS,
                    "--backend",
                    "dask",
                    "--scheduler",
                    address,
                    "--out",
                    str(other),
                ],
            )
            assert r.exit_code == 2, r.output
            assert "2 of 2 workers run other code than this machine" in r.output
            assert "shedsim compile" in r.output and not (other / "spec.json").exists()
    finally:
        cluster.close()
    assert cluster.status.name == "closed"


def test_dask_without_scheduler_starts_and_closes_a_local_cluster(loky_run, tmp_path):
    before = _children()
    r = runner.invoke(
        app, ["tournament", *ARGS, "--backend", "dask", "--workers", "2", "--out", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    assert _tables(tmp_path) == _tables(loky_run)
    # the local cluster's worker processes are gone
    assert _children() <= before


def test_backend_config_nests_and_reports_slots():
    with simulate.backend_config("loky", 2) as slots:
        assert slots == 2
        with simulate.backend_config("loky", 2) as inner:
            assert inner == 2
    assert backends.ACTIVE == []


@pytest.mark.parametrize("command", [["tournament", *ARGS], ["bench", "--games", "100"]])
def test_ray_missing_is_a_clean_error(monkeypatch, tmp_path, command):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed (import raises ImportError)
    out = tmp_path / "out"
    extra = ["--out", str(out)] if command[0] == "tournament" else []
    r = runner.invoke(app, [*command, "--backend", "ray", *extra])
    assert r.exit_code == 2, r.output
    assert "--backend ray needs ray" in r.output and "pip install ray" in r.output
    assert "Traceback" not in r.output
    assert not out.exists()


@pytest.mark.parametrize("command", [["tournament", *ARGS], ["bench", "--games", "100"]])
@pytest.mark.parametrize(
    "opts,needle",
    [
        (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler needs a cluster backend"),
        (["--backend", "spark"], "--backend: one of loky, dask, ray"),
    ],
)
def test_bad_backend_options_are_refused(tmp_path, command, opts, needle):
    out = tmp_path / "out"
    extra = ["--out", str(out)] if command[0] == "tournament" else []
    r = runner.invoke(app, [*command, *opts, *extra])
    assert r.exit_code == 2, r.output
    assert needle in r.output
    assert not out.exists()


def test_unreachable_scheduler_is_refused(tmp_path):
    import dask

    out = tmp_path / "out"
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        r = runner.invoke(
            app,
            [
                "tournament",
                *ARGS,
                "--backend",
                "dask",
                "--scheduler",
                "tcp://127.0.0.1:9",
                "--out",
                str(out),
            ],
        )
    assert r.exit_code == 2, r.output
    assert "cannot connect to the dask scheduler at 'tcp://127.0.0.1:9'" in r.output
    assert not (out / "chunks").exists() and not (out / "spec.json").exists()
