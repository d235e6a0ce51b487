"""shedsim gauntlet: one candidate against each opponent on paired deals; a row is the
head-to-head match sprt plays on the same seed, a bot's forfeits are counted, and bad
options exit 2 naming them."""

from __future__ import annotations

import numpy as np
from typer.testing import CliRunner

import bots
from shedsim.analysis import gauntlet_run as G
from shedsim.analysis import sprt as S
from shedsim.cli import app


def test_the_first_row_is_the_match_sprt_plays_and_the_total_pools_the_units():
    res = G.run_gauntlet(
        "greedy", [("random", "random"), ("aggressive", "aggressive")], "shithead", 2, 60, seed=4
    )
    ref = S.run_sprt("greedy", "random", players=2, seed=4, max_games=60, min_games=60, batch=60)
    first = res.rows[0]
    assert first.games == ref.games == 60 and np.isclose(first.score, ref.score)
    assert np.isclose(first.lo, ref.lo) and np.isclose(first.hi, ref.hi)
    assert res.total.games == 120
    assert min(r.score for r in res.rows) <= res.total.score <= max(r.score for r in res.rows)


def test_a_bot_candidate_that_breaks_the_rules_forfeits_every_game_counted(tmp_path):
    res = G.run_gauntlet(
        "bot:" + bots.command(tmp_path, "illegal"), [("greedy", "greedy")], "shithead", 2, 8
    )
    row = res.rows[0]
    assert row.forfeits == row.games == 8 and row.opponent_forfeits == 0 and row.score == 0.0


def test_gauntlet_command_prints_a_row_per_opponent_and_refuses_bad_options(tmp_path):
    out = tmp_path / "g.csv"
    r = CliRunner().invoke(
        app,
        [
            "gauntlet",
            "--candidate",
            "greedy",
            "--opponents",
            "random,aggressive",
            "--games",
            20,
            "--sprt",
            "0,10",
            "--csv",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "random" in r.output and "aggressive" in r.output and "total" in r.output
    assert out.read_text().splitlines()[0].startswith("opponent,games,score")
    for args, said in (
        (["--sprt", "ten"], "--sprt"),
        (["--games", "1"], "--games"),
        (["--csv", str(out)], "--csv"),
        (["--opponents", "nosuch"], "--opponents: unknown strategy 'nosuch'"),
        (["--sprt", "10,0"], "--sprt: ELO0 must be below ELO1"),
        (["--sprt", "0,5000"], "--sprt: an Elo difference"),
    ):
        base = {"--opponents": "random", "--games": "20"}
        argv = ["gauntlet", "--candidate", "greedy"]
        given = dict(zip(args[::2], args[1::2]))
        for k, v in {**base, **given}.items():
            argv += [k, str(v)]
        r = CliRunner().invoke(app, argv)
        assert r.exit_code == 2 and said in r.output, (args, r.output)


def test_a_bot_slower_than_its_time_per_move_forfeits_in_the_gauntlet(tmp_path, monkeypatch):
    monkeypatch.setenv("LATE_S", "0.3")
    res = G.run_gauntlet(
        "bot:" + bots.command(tmp_path, "late"),
        [("greedy", "greedy")],
        "shithead",
        2,
        4,
        bot_time=(100, None),
    )
    assert res.rows[0].forfeits == 4
    r = CliRunner().invoke(
        app,
        [
            "gauntlet",
            "--candidate",
            "x",
            "--bot",
            f"x={bots.command(tmp_path, 'first')}",
            "--opponents",
            "greedy",
            "--games",
            4,
            "--time-per-move",
            0,
        ],
    )
    assert r.exit_code == 2 and "--time-per-move" in r.output


SPRT_RUN = [
    "gauntlet",
    "--candidate",
    "greedy",
    "--opponents",
    "random,heuristic",
    "--games",
    "400",
    "--batch",
    "100",
    "--sprt",
    "0,30",
    "--quiet",
]
"""random is decided in its first batch, heuristic later: the batches of a decided opponent are not
needed."""


def test_with_sprt_the_table_is_the_same_for_any_workers_backend_and_after_resume(tmp_path):
    """The stored batches of each opponent are fed to its test in plan order, so one worker,
    two, a dask cluster and a run stopped after one batch then resumed write the same
    gauntlet.csv bytes; the games counted stop at each opponent's decision."""
    runner = CliRunner()
    one = tmp_path / "one"
    r = runner.invoke(app, [*SPRT_RUN, "--workers", "1", "--out", str(one)])
    assert r.exit_code == 0, r.output
    table = (one / "gauntlet.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in table] == ["opponent", "random", "heuristic", "total"]
    rows = {line.split(",")[0]: line.split(",") for line in table[1:]}
    assert rows["random"][-2] == "H1" and int(rows["random"][1]) < 400  # stopped at its decision
    for extra in (["--workers", "2"], ["--workers", "2", "--backend", "dask"]):
        d = tmp_path / "-".join(extra)
        r = runner.invoke(app, [*SPRT_RUN, *extra, "--out", str(d)])
        assert r.exit_code == 0, (extra, r.output)
        assert (d / "gauntlet.csv").read_bytes() == (one / "gauntlet.csv").read_bytes(), extra
    stopped = tmp_path / "stopped"
    assert (
        runner.invoke(
            app, [*SPRT_RUN, "--workers", "1", "--out", str(stopped), "--stop-after", "1"]
        ).exit_code
        == 130
    )
    assert not (stopped / "gauntlet.csv").exists()
    r = runner.invoke(app, ["gauntlet", "--resume", str(stopped), "--quiet", "--games", "400"])
    assert r.exit_code == 0, r.output
    assert (stopped / "gauntlet.csv").read_bytes() == (one / "gauntlet.csv").read_bytes()
    r = runner.invoke(app, ["gauntlet", "--resume", str(stopped), "--quiet", "--games", "800"])
    assert r.exit_code == 2 and "--games (800 vs stored 400)" in r.output, r.output


def test_the_api_gives_the_table_the_command_writes(tmp_path):
    import json

    import shedsim
    from shedsim.output.csvs import write_csv

    d = tmp_path / "cli"
    assert CliRunner().invoke(app, [*SPRT_RUN, "--out", str(d)]).exit_code == 0
    r = shedsim.gauntlet("greedy", "random,heuristic", games=400, batch=100, sprt=(0, 30))
    assert r.out is None and r.complete
    write_csv(r.table, tmp_path / "api.csv")
    assert (tmp_path / "api.csv").read_bytes() == (d / "gauntlet.csv").read_bytes()
    assert r.headline == json.loads((d / "run.json").read_text())["headline"]
