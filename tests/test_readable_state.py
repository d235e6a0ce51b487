"""A plain-Python strategy made of a :class:`shedsim.bot.Bot` (``readable(bot)``) decides on
the readable State, as a bot process does: the same bot class, in-process and over the
pipe, plays the same games.

Real games (duel), fixed seeds; nothing asserts on a time.
"""

from __future__ import annotations

import shlex
import sys

import pandas as pd
from typer.testing import CliRunner

from shedsim.analysis.replay import replay_game
from shedsim.cli import app
from shedsim.rules.ruleset import build
from shedsim.runs.simulate import RunSpec

PLUGIN = """from shedsim.bot.example import Greedy
from shedsim.bot.inprocess import readable

NAME = "pygreedy"
DESCRIPTION = "The example bot, in-process."
DETERMINISTIC = True
choose_swap, choose_move = readable(Greedy())
"""


def test_the_same_bot_class_in_process_and_over_the_pipe_plays_the_same_games(tmp_path):
    (tmp_path / "pygreedy.py").write_text(PLUGIN)
    out = tmp_path / "pipe"
    bot = shlex.join([sys.executable, "-m", "shedsim.bot.example"])
    r = CliRunner().invoke(
        app,
        [
            "tournament",
            "--rules",
            "duel",
            "--players",
            "2",
            "--strategies",
            "heuristic",
            "--bot",
            f"b={bot}",
            "--games",
            "12",
            "--seed",
            "3",
            "--save-games",
            "--quiet",
            "--no-plots",
            "--workers",
            "1",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    piped = pd.concat(
        pd.read_parquet(f) for f in sorted((out / "games").glob("*.parquet"))
    ).set_index("game")
    spec = RunSpec(
        build("duel"),
        2,
        ("heuristic", "pygreedy"),
        ("heuristic", "pygreedy"),
        seed=3,
        games=12,
        strategy_paths=(str(tmp_path),),
    )
    for g in range(12):
        rep = replay_game(spec, g, narrate=False)
        assert rep.result.places == [int(piped.loc[g, "place_0"]), int(piped.loc[g, "place_1"])], g
        assert rep.result.moves == int(piped.loc[g, "moves"]), g


def test_a_wrong_answer_of_an_in_process_bot_is_named(tmp_path):
    (tmp_path / "wrong.py").write_text(
        PLUGIN.replace('"pygreedy"', '"wrong"')
        .replace("readable(Greedy())", "readable(Wrong())")
        .replace(
            "NAME =",
            "class Wrong(Greedy):\n    def move(self, state, legal):\n        return 'gamble "
            "now'\n\n\nNAME =",
        )
    )
    r = CliRunner().invoke(
        app,
        [
            "trace",
            "--rules",
            "duel",
            "--players",
            "2",
            "--strategy-path",
            str(tmp_path),
            "--strategies",
            "wrong,greedy",
        ],
    )
    assert r.exit_code == 1, r.output
    assert "wrong" in r.output and "its bot's move" in r.output and "Traceback" not in r.output
