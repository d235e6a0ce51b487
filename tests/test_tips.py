"""``shedsim tips``: which tips apply where, the paired measurement, Holm correction, the
command's outputs and its section in ``shedsim report``. Small game counts, fixed seeds."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.analysis import tips as TP
from shedsim.cli import app
from shedsim.plugins import discover
from shedsim.rules.ruleset import preset


def test_every_tip_is_a_heuristic_parameter_with_two_values():
    h = discover()["heuristic"]
    assert len({t.key for t in TP.TIPS}) == len(TP.TIPS)
    for t in TP.TIPS:
        assert t.param in h.params and t.follow != t.ignore, t.key


def test_tips_apply_where_the_rules_allow_them():
    def keys(name):
        return {t.key for t in TP.TIPS if t.applies(preset(name))}

    assert "pass_on_nine" in keys("nines") and "pass_on_nine" not in keys("shithead")
    assert {"pick_up_small", "take_specials"} <= keys("palace")
    assert not {"pick_up_small", "take_specials"} & keys("shithead")
    assert "strong_face_up" in keys("duel")


def test_select_names_an_unknown_tip():
    assert TP.select([]) == list(TP.TIPS)
    with pytest.raises(TP.TipsError, match="--tip 'nosuch'"):
        TP.select(["nosuch"])


def test_run_measures_paired_effects_with_holm_correction():
    tips = TP.select(["pairs_together", "complete_four", "pass_on_nine"])
    table, skipped = TP.run_tips([preset("shithead")], [2, 9], tips, 3000, seed=4)
    assert list(table["tip"]) == ["pairs_together", "complete_four"]
    assert any("pass_on_nine does not apply" in s for s in skipped)
    assert any("9 players" in s for s in skipped)
    assert (table["games"] == 3000).all() and (table["deals"] == 1500).all()
    assert (table["loss_p_holm"] >= table["loss_p"]).all() and (
        table["place_p_holm"] >= table["place_p"]
    ).all()
    row = table.set_index("tip").loc["pairs_together"]
    # one card at a time loses far more often: the interval lies below 0
    assert row["loss_hi"] < 0 and row["verdict"] == "helps"
    assert np.isclose(row["loss_effect"], row["loss_follow"] - row["loss_ignore"])


def test_per_deal_scores_of_equal_players_are_equal():
    from shedsim.analysis.sprt import open_match

    a = TP.per_deal(open_match("heuristic:search=0", "greedy", preset("shithead"), 3, 2), 300)
    b = TP.per_deal(open_match("heuristic:search=0", "greedy", preset("shithead"), 3, 2), 300)
    assert all((x == y).all() for x, y in zip(a, b)) and len(a[0]) == 100
    assert ((a[0] >= 0) & (a[0] <= 1)).all() and ((a[1] >= 1) & (a[1] <= 3)).all()


def test_bad_options():
    with pytest.raises(TP.TipsError, match="--games"):
        TP.run_tips([preset("shithead")], [2], list(TP.TIPS), 2)
    with pytest.raises(TP.TipsError, match="no parameter"):
        TP.run_tips([preset("shithead")], [2], list(TP.TIPS), 100, base="greedy")


def test_cli_writes_tips_and_report_reads_them(tmp_path):
    out = tmp_path / "tips"
    r = CliRunner().invoke(
        app,
        [
            "tips",
            "--rules",
            "shithead",
            "--rules",
            "nines",
            "--players",
            "2",
            "--tip",
            "pairs_together",
            "--tip",
            "pass_on_nine",
            "--games",
            "400",
            "--out",
            str(out),
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    import pandas as pd

    t = pd.read_csv(out / "tips.csv")
    assert sorted(zip(t["tip"], t["rules"])) == [
        ("pairs_together", "nines"),
        ("pairs_together", "shithead"),
        ("pass_on_nine", "nines"),
    ]
    info = json.loads((out / "run.json").read_text())
    assert info["command"] == "shedsim tips" and (out / "forest.png").stat().st_size > 0
    heads = info["headline"]
    assert len(heads) == 2 + 3  # a summary line per tip, then a sentence per row
    assert (
        heads[0].startswith('"Play all copies of a rank together": ')
        and "of 2 rule set" in heads[0]
    )
    assert heads[2].startswith('"Play all copies of a rank together" (')
    assert set(t["objective"]) == {"loss", "place"}  # shithead scores losing, nines places
    r = CliRunner().invoke(app, ["report", str(out), "--out", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    assert "Beginner tips put to the test" in (tmp_path / "r.html").read_text()


@pytest.mark.parametrize(
    "args,msg",
    [
        (["--tip", "nosuch"], "unknown tip"),
        (["--rules", "shithead", "--tip", "take_specials"], "no tip applies"),
        (["--rules", "nosuch"], "--rules"),
        (["--opponents", "nosuch"], "unknown strategy"),
    ],
)
def test_cli_refuses_bad_options(tmp_path, args, msg):
    r = CliRunner().invoke(
        app,
        ["tips", *args, "--games", "40", "--players", "2", "--out", str(tmp_path / "x"), "--quiet"],
    )
    assert r.exit_code == 2 and msg in r.output, r.output


def _row(objective="loss", effect=0.0, lo=0.0, hi=0.0, p=1.0, **kw):
    from types import SimpleNamespace

    other = "place" if objective == "loss" else "loss"
    return SimpleNamespace(
        objective=objective,
        **{
            f"{objective}_effect": effect,
            f"{objective}_lo": lo,
            f"{objective}_hi": hi,
            f"{objective}_p_holm": p,
        },
        **{f"{other}_effect": 0.5, f"{other}_lo": 0.4, f"{other}_hi": 0.6, f"{other}_p_holm": 0.0},
        **kw,
    )


def test_the_verdict_has_a_practical_threshold_and_follows_the_objective():
    """Before, a significant change far below a point of loss rate read "hurts" like a
    large one, and the verdict judged by the loss rate in rule sets that score places."""
    assert TP.verdict(_row(effect=0.0007, lo=0.0002, hi=0.0012, p=0.01)) == "no practical effect"
    assert TP.verdict(_row(effect=0.12, lo=0.11, hi=0.13, p=1e-9)) == "hurts"
    assert TP.verdict(_row(effect=-0.02, lo=-0.03, hi=-0.01, p=1e-4)) == "helps"
    assert TP.verdict(_row(effect=0.001, lo=-0.004, hi=0.006, p=0.9)) == "no practical effect"
    assert TP.verdict(_row(effect=0.01, lo=-0.01, hi=0.03, p=0.9)) == "no clear effect"
    # a rule set scoring places: the mean place decides (the loss rate here would say "hurts")
    assert TP.verdict(_row("place", effect=-0.05, lo=-0.07, hi=-0.03, p=1e-5)) == "helps"
    assert (
        TP.verdict(_row("place", effect=0.01, lo=0.005, hi=0.015, p=1e-3)) == "no practical effect"
    )
    row = _row(
        effect=0.0007,
        lo=0.0002,
        hi=0.0012,
        p=0.01,
        tip="block",
        rules="shithead",
        players=4,
        advice=TP.TIPS[5].advice,
        loss_follow=0.2507,
        loss_ignore=0.25,
    )
    row.verdict = TP.verdict(row)
    text = TP.row_sentence(row)
    assert text.startswith(
        '"Block a player about to go out (2 cards or fewer): play what they are least likely '
        'to beat" (shithead, 4 players): no practical effect, the change is below 1 percentage '
        "point: the loss rate 25.1% following it, 25.0% ignoring it: +0.07 pp [+0.02, +0.12]"
    )


def test_a_small_significant_effect_whose_interval_passes_the_threshold_is_not_called_none():
    """-0.57 pp [-1.02, -0.11], significant: the interval reaches past the 1 pp threshold,
    so the row helps a little (possibly up to 1.02 pp), not "no practical effect"; the
    mirror image hurts a little; the summary names each row under its own verdict."""
    import pandas as pd

    kw = dict(rules="shithead", players=2, advice=TP.TIPS[5].advice, tip="block")
    helps = _row(effect=-0.0057, lo=-0.0102, hi=-0.0011, p=0.02, **kw)
    helps.loss_follow, helps.loss_ignore = 0.2443, 0.25
    helps.verdict = TP.verdict(helps)
    assert helps.verdict == "helps a little"
    text = TP.row_sentence(helps)
    assert "no practical effect" not in text
    assert (
        "players) helps a little: significant, by less than 1 percentage point, possibly up "
        "to 1.02 pp: the loss rate 24.4% following it, 25.0% ignoring it: "
        "-0.57 pp [-1.02, -0.11]" in text
    ), text
    hurts = _row("place", effect=0.012, lo=0.003, hi=0.021, p=0.01, **{**kw, "rules": "nines"})
    hurts.place_follow, hurts.place_ignore = 2.012, 2.0
    hurts.verdict = TP.verdict(hurts)
    assert hurts.verdict == "hurts a little"
    assert "hurts a little: significant, by less than 0.02 places, possibly up to 0.021 places" in (
        TP.row_sentence(hurts)
    )
    # the whole interval within the threshold: no practical effect, significant or not
    assert TP.verdict(_row(effect=-0.005, lo=-0.009, hi=-0.001, p=0.01)) == "no practical effect"
    rows = [
        {"tip": "block", "rules": "shithead", "players": 2, "verdict": "helps"},
        {"tip": "block", "rules": "shithead", "players": 4, "verdict": "hurts"},
        {"tip": "block", "rules": "nines", "players": 3, "verdict": "helps a little"},
        {"tip": "block", "rules": "duel", "players": 2, "verdict": "no practical effect"},
    ]
    table = pd.DataFrame([{**r, "advice": TP.TIPS[5].advice} for r in rows])
    line = TP.summary(table)[0]
    assert line.endswith(
        "helps in 1; hurts in 1; helps a little in 1; no practical effect in 1 of 4 rule set "
        "and player count(s) measured (helps: shithead 2p; hurts: shithead 4p; helps a little: "
        "nines 3p)"
    ), line
    assert "helps or hurts" not in line


def test_rows_carry_the_rule_sets_objective():
    table, _ = TP.run_tips(
        [preset("shithead"), preset("palace")], [2], TP.select(["pairs_together"]), 400, seed=1
    )
    assert dict(zip(table["rules"], table["objective"])) == {"shithead": "loss", "palace": "place"}
    assert dict(zip(table["rules"], table["threshold"])) == {"shithead": 0.01, "palace": 0.02}
    assert TP.summary(table)[0].startswith('"Play all copies of a rank together": ')


def test_a_signal_once_the_tips_are_played_lets_the_reports_be_written(
    tmp_path, sigint_when_called
):
    """SIGINT after the last cell, while the command builds run.json, is only noted: the
    reports are written and the command exits 0 (it used to stop with a KeyboardInterrupt)."""
    from shedsim.runs.execute import Session

    sigint_when_called(Session, "info")
    out = tmp_path / "tips"
    r = CliRunner().invoke(
        app,
        [
            "tips",
            "--rules",
            "shithead",
            "--players",
            "2",
            "--tip",
            "pairs_together",
            "--tip",
            "block",
            "--games",
            "40",
            "--out",
            str(out),
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    assert (out / "tips.csv").exists() and json.loads((out / "run.json").read_text())["complete"]


@pytest.mark.parametrize("at", ["first", "last"])
def test_a_signal_during_the_cells_stops_early_or_late_and_writes_nothing(
    at, tmp_path, monkeypatch
):
    """SIGINT after the first cell or after the last one (tips keeps no run store): exit 130,
    'nothing written', and the files of an earlier run in --out are left as they were."""
    import os
    import signal

    from shedsim.analysis import tips as TP

    real = TP.run_tips

    def run_tips(*args, **kw):
        def on_cell(done, total):
            if done == (1 if at == "first" else total):
                os.kill(os.getpid(), signal.SIGINT)

        return real(*args[:8], on_cell)

    out = tmp_path / "tips"
    earlier = CliRunner().invoke(
        app,
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
            "--out",
            str(out),
            "--quiet",
        ],
    )
    assert earlier.exit_code == 0, earlier.output
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    monkeypatch.setattr(TP, "run_tips", run_tips)
    r = CliRunner().invoke(
        app,
        [
            "tips",
            "--rules",
            "shithead",
            "--players",
            "2",
            "--tip",
            "pairs_together",
            "--tip",
            "block",
            "--games",
            "40",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 130, r.output
    assert "interrupted: nothing written" in r.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_every_csv_writes_small_p_values_in_e_notation(tmp_path):
    """The CSV writer every command uses (tips, tune, sprt, swaps, compare-rules, tournament)
    writes each p-value column (``loss_p``, ``place_p_holm``, ``starter_loss_p_value``,
    ``p_rank``...) in e-notation, so a p of 3.3e-07 is not written as 0.000000 (which a
    report then showed as "< 1e-300"); a probability such as ``p_lose`` keeps 6 decimals."""
    import pandas as pd

    from shedsim.output.csvs import write_csv
    from shedsim.output.kinds import format_p

    df = pd.DataFrame(
        {
            "loss_p": [3.3e-07],
            "loss_p_holm": [6.6e-07],
            "place_p": [0.25],
            "starter_loss_p_value": [1e-12],
            "p_rank": [2e-9],
            "p_median_holm": [4e-8],
            "p_lose": [0.125],
            "loss_rate": [0.3],
        }
    )
    write_csv(df, tmp_path / "t.csv")
    back = pd.read_csv(tmp_path / "t.csv")
    for col in (
        "loss_p",
        "loss_p_holm",
        "place_p",
        "starter_loss_p_value",
        "p_rank",
        "p_median_holm",
    ):
        assert back[col][0] == pytest.approx(df[col][0], rel=1e-3), col
    assert format_p(back["loss_p"][0]) == "3.3e-07"
    text = (tmp_path / "t.csv").read_text()
    assert ",0.125000," in text and text.rstrip().endswith("0.300000")


def test_too_few_games_are_refused_before_anything_is_made(tmp_path):
    out = tmp_path / "x"
    r = CliRunner().invoke(app, ["tips", "--games", "0", "-p", "2", "-p", "4", "--out", str(out)])
    assert r.exit_code == 2 and "--games: at least 8 (two deals under every rotation)" in r.output
    assert not out.exists()
