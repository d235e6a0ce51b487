"""How a game a bot forfeits is scored (docs/reference/bots.md#faults): the forfeiter last,
the seats still in sharing the places between, and the game played to its end, not
unfinished: summary.csv's wins, win_rate, losses, mean_place, unfinished and still_in_at_cap
agree with each other, with run.json and with the console line, and the matches, the
gauntlet and the SPRT read the same places. The bot (tests/bots.py's ``babble``) answers
every move with a line that is not JSON, so it forfeits every game at its first move."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from typer.testing import CliRunner

import bots
from shedsim.analysis import gauntlet_run as G
from shedsim.analysis import sprt as S
from shedsim.cli import app


def _tournament(tmp_path, players: int, strategies: str, *extra):
    out = tmp_path / "run"
    args = ["tournament", "--players", players, "--strategies", strategies, "--seed", 3]
    args += [f"--bot=babble={bots.command(tmp_path, 'babble')}", "--workers", 1, "--no-plots"]
    r = CliRunner().invoke(app, [str(a) for a in (*args, *extra, "--out", out)])
    assert r.exit_code == 0, r.output
    s = pd.read_csv(out / "summary.csv").set_index("strategy")
    return r.output, s, json.loads((out / "run.json").read_text()), out


def test_at_two_players_the_other_seat_wins_every_forfeited_game(tmp_path):
    said, s, info, out = _tournament(tmp_path, 2, "greedy", "--games", 8, "--rounds", 2)
    g, b = s.loc["greedy"], s.loc["babble"]
    assert g["games"] == b["games"] == 8
    assert g["wins"] == 8 and g["win_rate"] == 1.0 and g["losses"] == 0 and g["mean_place"] == 1.0
    assert b["wins"] == 0 and b["losses"] == 8 and b["mean_place"] == 2.0 and b["forfeits"] == 8
    assert (s["unfinished"] == 0).all() and (s["still_in_at_cap"] == 0).all()
    assert g["rating"] > b["rating"]  # finishing orders the rating reads, not a blank
    assert info["ends"] == {"finished": 0, "stalled": 0, "loop": 0, "cap": 0, "forfeit": 8}
    assert info["unfinished_games"] == 0 and not any("unfinished" in h for h in info["headline"])
    assert "8 games (0 unfinished: 0 stalled, 0 proven loops, 0 at the move cap" in said
    assert "; 8 forfeited by a bot)" in said
    h2h = pd.read_csv(out / "head_to_head.csv").iloc[0]
    assert (h2h["a"], h2h["a_ahead"], h2h["b_ahead"], h2h["ties"]) == ("greedy", 8, 0, 0)
    m = pd.read_csv(out / "matches.csv").set_index("strategy")
    assert m.loc["greedy", "match_wins"] == m.loc["greedy", "matches"] == 4
    assert m.loc["babble", "match_losses"] == 4


def test_seats_still_in_after_a_forfeit_share_the_places_between_and_are_not_still_in_at_cap(
    tmp_path,
):
    # 3 seats: nobody is out before the bot's first move, so the two others share places 1 and 2
    said, s, info, out = _tournament(tmp_path, 3, "greedy,random", "--games", 6)
    for name in ("greedy", "random"):
        r = s.loc[name]
        assert r["games"] == 6 and r["wins"] == 0 and r["losses"] == 0
        assert r["mean_place"] == 1.5 and r["unfinished"] == 0 and r["still_in_at_cap"] == 0
    b = s.loc["babble"]
    assert b["losses"] == b["forfeits"] == 6 and b["mean_place"] == 3.0
    assert info["ends"]["forfeit"] == 6 and info["unfinished_games"] == 0
    h2h = pd.read_csv(out / "head_to_head.csv").set_index(["a", "b"])
    assert h2h.loc[("greedy", "random"), "ties"] == 6 or h2h.loc[("random", "greedy"), "ties"] == 6
    assert "0 unfinished" in said and "6 forfeited by a bot" in said


def test_the_gauntlet_and_the_sprt_score_a_forfeit_as_a_finished_game(tmp_path):
    bot = "bot:" + bots.command(tmp_path, "babble")
    row = G.run_gauntlet("greedy", [("babble", bot)], "shithead", 2, 8).rows[0]
    assert row.games == row.opponent_forfeits == 8 and row.unfinished == 0 and row.score == 1.0
    res = S.run_sprt("greedy", bot, players=2, seed=1, max_games=8, min_games=8, batch=8)
    assert res.games == 8 and res.unfinished == 0 and np.isclose(res.score, 1.0)


def test_resuming_a_bot_run_whose_chunks_counted_forfeits_as_unfinished_is_refused(tmp_path):
    said, s, info, out = _tournament(tmp_path, 2, "greedy", "--games", 8)
    chunk = sorted((out / "chunks").glob("*.npz"))[-1]
    with np.load(chunk) as z:
        arrays = {k: z[k] for k in z.files if k != "still_in"}  # as an earlier shedsim wrote it
    np.savez(chunk, **arrays)
    before = (out / "summary.csv").read_text()
    r = CliRunner().invoke(app, ["tournament", "--resume", str(out)])
    assert r.exit_code == 2, r.output
    assert chunk.name in r.output and "earlier shedsim" in r.output
    assert (out / "summary.csv").read_text() == before


def test_the_place_shares_tell_places_shared_after_a_forfeit_from_seats_still_in(tmp_path):
    """At three seats the two seats still in when the bot forfeits share their places: in
    the place shares (places.png) that is its own column, never 'unfinished'."""
    from shedsim.analysis.tournament.results import SHARED_AFTER_FORFEIT
    from shedsim.api import tournament

    bot = "babble=bot:" + bots.command(tmp_path, "babble")
    r = tournament(["greedy", "random", bot], players=3, games=6, seed=3, workers=1)
    p = r.place_shares
    assert list(p.columns) == ["1", "2", "3", SHARED_AFTER_FORFEIT, "unfinished"]
    for name in ("greedy", "random"):
        assert p.loc[name, SHARED_AFTER_FORFEIT] == 1.0 and p.loc[name, "unfinished"] == 0.0
    assert p.loc["babble", "3"] == 1.0
    assert np.allclose(p.sum(axis=1), 1.0)
