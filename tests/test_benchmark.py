"""The benchmark module (shedsim.runs.benchmark), ``bench --table`` and the search rates of mc.

Figures are never asserted (they depend on the machine); what is checked is what the
table holds, that the ratio column comes and goes with the calibration kernel, and that
mc's counted work is consistent with itself.
"""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.runs import benchmark as B
from shedsim import layout as L
from shedsim.cli import app
from shedsim.kernel.probe import sample_positions
from shedsim.plugins import discover
from shedsim.rules.ruleset import preset

# A stand-in for ../shared/calib/sh_nb_fast.py: same entry points, plain numpy (its
# figures mean nothing; only the plumbing is tested).
FAKE_CALIB = textwrap.dedent("""
    import numpy as np
    def simulate(n, players, seed, nchunks=16):
        return (np.zeros(n, np.int8), np.full(n, 10 * players, np.int16))
    simulate_par = simulate
""")


def test_find_calibration(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(B.CALIB_ENV, raising=False)
    assert B.find_calibration() is None
    with pytest.raises(B.CalibrationError, match="no sh_nb_fast.py"):
        B.find_calibration(tmp_path / "nowhere")
    d = tmp_path / "calib"
    d.mkdir()
    (d / B.CALIB_FILE).write_text(FAKE_CALIB)
    assert B.find_calibration(d) == d
    monkeypatch.setenv(B.CALIB_ENV, str(d))
    assert B.find_calibration() == d


def test_table_has_a_ratio_column_only_with_the_calibration_kernel(tmp_path):
    rules = preset("shithead")
    plain = B.bench_table(rules, games=300, players=(2,), workers=(1,), repeats=1)
    assert len(plain) == 1 and "ratio" not in plain[0]
    assert (
        plain[0]["players"] == 2 and plain[0]["games_per_s"] > 0 and plain[0]["moves_per_game"] > 10
    )
    (tmp_path / B.CALIB_FILE).write_text(FAKE_CALIB)
    rows = B.bench_table(rules, games=300, players=(2, 3), workers=(1,), repeats=1, calib=tmp_path)
    assert [r["players"] for r in rows] == [2, 3]
    for r in rows:
        assert r["ratio"] > 0 and r["calib_games_per_s"] > 0
        assert r["calib_ns_per_move"] == pytest.approx(
            1e9 / r["calib_games_per_s"] / (10 * r["players"])
        )
    text = B.render_table(rows, "t")
    assert [c.header for c in text.columns][-1] == "ratio"


def test_sample_positions_are_decisions_with_a_choice():
    ra = preset("shithead").compile(3)
    obs = sample_positions(ra, 50, 3, np.uint64(5))
    assert obs.shape == (50, L.O_SIZE)
    assert (obs[:, L.O_PLAYERS] == 3).all()
    assert np.array_equal(
        sample_positions(ra, 50, 3, np.uint64(5)), obs
    )  # same key, same positions


def test_mc_search_counts_its_rollouts():
    known = discover([])
    ra = preset("shithead").compile(2)
    params = known["mc"].params_array({"rollouts": 3, "cap": 50})
    rates = B.search_rates(known["mc"], ra, params, positions=5)
    assert rates["search_positions"] == 5
    assert rates["decisions_per_s"] > 0 and rates["search_moves_per_s"] > 0
    # every decision sampled has >= 2 moves (or one flip class), 3 rollouts per candidate, <= 50
    # moves each
    assert 1 <= rates["rollouts_per_decision"] and rates["search_moves_per_rollout"] <= 50
    assert B.search_rates(known["greedy"], ra, params) is None  # no move_stats(): nothing to time
    assert rates["playout_loop_moves_per_s"] > 0  # mc defines playout_stats: its loop timed alone


@pytest.mark.long  # compiles the playout loops of mc and ismcts
def test_playout_stats_plays_the_same_determinisations_with_and_without_playouts():
    """playout_loop_rate times the loop as (determinise + play) - (determinise alone): both
    passes must draw the same deals, so the strategy stream ends in the same state, and
    only the playing pass counts moves (each playout at most ``cap`` moves)."""
    from shedsim.kernel.probe import sample_positions

    known = discover([])
    ra = preset("shithead").compile(3)
    obs = sample_positions(ra, 4, 3, np.uint64(11))
    for name, cap in (("mc", {"rollouts": 2, "cap": 30}), ("ismcts", {"iterations": 5, "cap": 30})):
        params = known[name].params_array(cap)
        loop = known[name].module.playout_stats
        ends = []
        for play in (False, True):
            rng = np.array([7], np.uint64)
            stats = np.zeros(2, np.int64)
            for o in obs:
                loop(o, ra, params, rng, 5, play, stats)
            ends.append((int(rng[0]), stats.copy()))
        assert ends[0][0] == ends[1][0], name
        assert ends[0][1].tolist() == [0, 0], name
        assert ends[1][1][1] == 20 and 0 < ends[1][1][0] <= 20 * 30, name


def test_cli_table_json(tmp_path, monkeypatch):
    monkeypatch.delenv(B.CALIB_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["bench", "--table", "--games", "200", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output.strip().splitlines()[-1])
    assert out["calibration"] is None
    assert [(x["players"], x["workers"]) for x in out["rows"]] == [(2, 1), (2, 2), (4, 1), (4, 2)]
    assert all("ratio" not in x for x in out["rows"])
    # every strategy's decisions per second per worker: its moves and one swap per seat
    for x in out["rows"]:
        per_move = x["games_per_s"] / x["workers"] * (x["moves_per_game"] + x["players"])
        assert x["decisions_per_s_per_worker"] == pytest.approx(per_move, rel=0.2), x
    bad = CliRunner().invoke(
        app, ["bench", "--table", "--games", "200", "--calib", str(tmp_path / "none")]
    )
    assert bad.exit_code == 2 and "sh_nb_fast.py" in bad.output


@pytest.mark.parametrize("strategy", ["greedy", "random"])
def test_bench_json_gives_every_strategy_its_decisions_per_second(strategy):
    """Not only a search strategy (move_stats) gets decisions per second: every strategy
    gets its rate in play, moves and swaps over the seconds of play per worker."""
    r = CliRunner().invoke(
        app, ["bench", "--games", "3000", "--players", "3", "--strategy", strategy, "--json"]
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.output.strip().splitlines()[-1])
    decisions = out["games"] * (out["moves_per_game"] + 3)
    assert out["decisions_per_s_per_worker"] == pytest.approx(
        decisions / (out["wall_s"] * out["workers"]), rel=1e-2
    )
    assert "search_moves_per_s" not in out  # neither searches
    table = CliRunner().invoke(app, ["bench", "--games", "3000", "--strategy", strategy])
    assert table.exit_code == 0 and "decisions/s per worker" in table.output, table.output
    assert "decisions/s per worker" in CliRunner().invoke(app, ["bench", "--help"]).output
