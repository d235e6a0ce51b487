"""``--bot LABEL=COMMAND`` on the commands that take strategies: the bot is an entry like any
other; hostile bots forfeit their games, counted by kind in summary.csv, run.json and the
console table, and the run exits 0; a bot that never says hello is refused (exit 2) before
any file is written. The bots are tests/bots.py's, the runs a few games each."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

import bots
from shedsim.bot import protocol as P
from shedsim.cli import app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = shlex.join([sys.executable, "-m", "shedsim.bot.example"])


def _run(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_hostile_bots_in_a_tournament_forfeit_counted_by_kind_and_the_run_exits_0(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("LATE_S", "0.4")
    out = tmp_path / "run"
    kinds = {"late": "timeout", "garbage": "invalid", "illegal": "illegal", "dies": "crash"}
    args = [f"--bot={b}={bots.command(tmp_path, b)}" for b in kinds]
    r = _run(
        "tournament",
        "--players",
        2,
        "--strategies",
        "greedy",
        *args,
        "--games",
        20,
        "--workers",
        1,
        "--time-per-move",
        200,
        "--no-plots",
        "--out",
        out,
    )
    assert r.exit_code == 0, r.output
    s = pd.read_csv(out / "summary.csv").set_index("strategy")
    for bot, kind in kinds.items():
        assert s.loc[bot, "spec"] == "bot:" + bots.command(tmp_path, bot)
        assert s.loc[bot, f"forfeits_{kind}"] == s.loc[bot, "forfeits"] > 0
    assert s.loc["greedy", "forfeits"] == 0
    info = json.loads((out / "run.json").read_text())
    assert info["ends"]["forfeit"] == 20 == int(s["forfeits"].sum())
    assert {b: info["bots"]["forfeits"][b][k] for b, k in kinds.items()} == {
        b: int(s.loc[b, "forfeits"]) for b in kinds
    }
    assert (
        "bots.log" in info["outputs"]
        and "20 forfeited by a bot" in r.output
        and "forfeits" in r.output
    )
    log = (out / "bots.log").read_text()
    assert all(f"fault: {b} {k} in game" in log for b, k in kinds.items())


def test_a_bot_that_never_says_hello_is_refused_before_any_file(tmp_path, monkeypatch):
    monkeypatch.setattr(P, "HELLO_S", 0.5)
    out = tmp_path / "run"
    r = _run(
        "tournament",
        "--players",
        2,
        "--strategies",
        "greedy",
        "--bot",
        f"mute={bots.command(tmp_path, 'silent')}",
        "--games",
        4,
        "--out",
        out,
    )
    assert r.exit_code == 2 and "'mute'" in r.output and "no answer within 500 ms" in r.output
    assert not out.exists()
    for cmd in (
        ["sprt", "--a", "mute", "--b", "greedy"],
        [
            "compare-rules",
            "--rules",
            "shithead",
            "--rules",
            "shithead+low7",
            "--strategies",
            "greedy,mute",
        ],
    ):
        r = _run(*cmd, "--bot", f"mute={bots.command(tmp_path, 'silent')}")
        assert (
            r.exit_code == 2 and "silent.py" in r.output and "no answer within 500 ms" in r.output
        ), (
            cmd,
            r.output,
        )


def test_a_bad_bot_option_names_it():
    for bad, said in (
        ("mine", "LABEL=COMMAND"),
        ("a b=python x.py", "label"),
        ("x='unclosed", "cannot split"),
    ):
        r = _run("tournament", "--bot", bad, "--games", 4)
        assert r.exit_code == 2 and "--bot" in r.output and said in r.output, r.output
    r = _run("tournament", "--strategies", "x=greedy", "--bot", f"x={EXAMPLE}", "--games", 4)
    assert r.exit_code == 2 and "already the entry 'greedy'" in r.output


def test_a_bot_label_is_an_entry_in_sprt(tmp_path):
    r = _run(
        "sprt",
        "--bot",
        f"g={EXAMPLE}",
        "--a",
        "g",
        "--b",
        "random",
        "--max-games",
        20,
        "--min-games",
        20,
        "--batch",
        10,
        "--quiet",
        "--out",
        tmp_path / "s",
        "--no-plots",
    )
    assert r.exit_code == 0, r.output
    spec = json.loads((tmp_path / "s" / "run.json").read_text())
    assert json.dumps(spec).count("shedsim.bot.example") >= 1


def test_a_bot_label_is_an_opponent_in_tips_and_a_field_entry_in_tune(tmp_path):
    r = _run(
        "tips",
        "--bot",
        f"g={EXAMPLE}",
        "--opponents",
        "g",
        "--players",
        2,
        "--rules",
        "shithead",
        "--tip",
        "pairs_together",
        "--games",
        4,
        "--out",
        tmp_path / "tips",
        "--quiet",
    )
    assert r.exit_code == 0, r.output
    assert "shedsim.bot.example" in (tmp_path / "tips" / "run.json").read_text()
    r = _run(
        "tune",
        "--bot",
        f"g={EXAMPLE}",
        "--field",
        "g",
        "--players",
        2,
        "--games",
        4,
        "--budget",
        1,
        "--confirm-games",
        4,
        "--out",
        tmp_path / "tune",
        "--quiet",
    )
    assert r.exit_code == 0, r.output
    assert "shedsim.bot.example" in (tmp_path / "tune" / "run.json").read_text()


def test_play_against_a_bot_is_the_game_against_the_strategy_it_copies(tmp_path):
    inputs = "\n".join(["1"] * 300) + "\n"
    bot = CliRunner().invoke(
        app, ["play", "--players", "2", "--bot", f"g={EXAMPLE}", "--opponents", "g"], input=inputs
    )
    ref = CliRunner().invoke(app, ["play", "--players", "2", "--opponents", "greedy"], input=inputs)
    assert bot.exit_code == ref.exit_code == 0, bot.output
    assert (
        bot.output.replace("(g)", "(greedy)").replace("seat 1 g\n", "seat 1 greedy\n") == ref.output
    )
    assert "result:" in bot.output


def test_a_bot_that_fails_in_play_ends_the_game_with_the_command_that_goes_on(tmp_path):
    r = CliRunner().invoke(
        app,
        [
            "play",
            "--players",
            "2",
            "--bot",
            f"x={bots.command(tmp_path, 'illegal')}",
            "--opponents",
            "x",
        ],
        input="\n".join(["1"] * 300) + "\n",
    )
    assert r.exit_code == 1
    assert "error: bot 'x' at seat 1, choosing move" in r.output and ": illegal: " in r.output
    assert "--bot 'x=" in r.output and "--opponents x" in r.output


def test_a_tournament_with_a_bot_resumes_to_the_same_results(tmp_path):
    common = [
        "tournament",
        "--players",
        2,
        "--strategies",
        "greedy,random",
        "--bot",
        f"g={EXAMPLE}",
        "--games",
        24,
        "--chunk-size",
        6,
        "--workers",
        1,
        "--no-plots",
        "--quiet",
    ]
    assert _run(*common, "--out", tmp_path / "whole").exit_code == 0
    r = _run(*common, "--out", tmp_path / "part", "--stop-after", 1)
    assert r.exit_code != 0
    r = _run("tournament", "--resume", tmp_path / "part", "--bot", f"g={EXAMPLE}", "--quiet")
    assert r.exit_code == 2 and "--bot cannot be given with --resume" in r.output
    r = _run("tournament", "--resume", tmp_path / "part", "--quiet", "--no-plots")
    assert r.exit_code == 0, r.output
    a, b = (pd.read_csv(tmp_path / d / "summary.csv") for d in ("whole", "part"))
    assert a.equals(b)
    assert (tmp_path / "part" / "bots.log").read_text() == (
        tmp_path / "whole" / "bots.log"
    ).read_text()


def test_a_bot_beside_entries_with_parameters(tmp_path):
    """Entries with parameters (``NAME:param=v``, entered twice) keep their labels beside a bot."""
    r = _run("tournament", "--players", "2", "--strategies", "mine,mc:rollouts=2,mc:rollouts=2",
             "--bot", f"mine={EXAMPLE}", "--games", 6, "--out", tmp_path / "r", "--quiet",
             "--no-plots")  # fmt: skip
    assert r.exit_code == 0, r.output
    labels = set(pd.read_csv(tmp_path / "r" / "summary.csv")["strategy"])
    assert labels == {"mine", "mc:rollouts=2", "mc:rollouts=2#2"}


def test_a_bot_label_that_is_a_strategy_name_is_refused_in_every_command():
    low = f"greedy={EXAMPLE}"
    for cmd in (
        ["tournament", "-p", 2, "-S", "greedy,random", "--games", 4],
        ["tournament", "-p", 2, "-S", "greedy", "--games", 4],
        ["sprt", "--a", "greedy", "--b", "random"],
        ["bench"],
        ["play", "--opponents", "greedy"],
    ):
        r = _run(*cmd, "--bot", low)
        assert r.exit_code == 2 and "the label 'greedy' is the name of a strategy" in r.output, (
            cmd,
            r.output,
        )


def test_a_time_control_without_a_bot_is_refused(tmp_path):
    out = ["--out", tmp_path / "never"]
    for cmd, opt in (
        (["tournament", "-p", 2, "-S", "greedy,random", "--time-per-move", 50, *out], "move"),
        (["tournament", "-p", 2, "--time-per-game", 5000, *out], "game"),
        (["bench", "--time-per-move", 50], "move"),
        (["gauntlet", "--candidate", "greedy", "--time-per-move", 50, *out], "move"),
    ):
        r = _run(*cmd)
        assert r.exit_code == 2 and f"--time-per-{opt}: only with --bot" in r.output, r.output
        assert not (tmp_path / "never").exists()
