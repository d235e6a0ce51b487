"""``shedsim trace --from RUN --game N`` on a game with a bot seat: the bot is started again
from the run's recorded command and the game replayed; with the run's saved records
(``--save-games``) the replay is checked against the run's game, and a bot that does not
play the same game again is named in a warning. Bots: shedsim.bot.example (plays as greedy
does, deterministic) and tests/bots.py's."""

from __future__ import annotations

import shlex
import sys

import pandas as pd
import pytest
from typer.testing import CliRunner

import bots
from shedsim.cli import app

EXAMPLE = shlex.join([sys.executable, "-m", "shedsim.bot.example"])


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _tournament(tmp_path, bot: str, *extra):
    out = tmp_path / "run"
    r = _run(
        "tournament", "--players", 2, "--strategies", "random", f"--bot=b={bot}",
        "--games", 8, "--seed", 5, "--workers", 1, "--no-plots", *extra, "--out", out,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture(scope="module")
def example_run(tmp_path_factory):
    return _tournament(tmp_path_factory.mktemp("example"), EXAMPLE, "--save-games")


@pytest.mark.parametrize("game", [0, 3, 6])
def test_trace_replays_a_deterministic_bot_game_as_the_run_recorded_it(example_run, game):
    r = _run("trace", "--from", example_run, "--game", game)
    assert r.exit_code == 0, r.output
    rec = pd.concat(pd.read_parquet(f) for f in (example_run / "games").glob("*.parquet"))
    row = rec.set_index("game").loc[game]
    places = [int(row["place_0"]), int(row["place_1"])]
    agrees = f"the replay agrees with the run's record of game {game}"
    assert f"{agrees} (places {places}, {int(row['moves'])} moves)" in r.output
    assert "warning" not in r.output
    winner = places.index(1)
    assert f"1. seat {winner} (" in r.output


def test_a_bot_game_of_a_run_without_saved_records_is_replayed_with_a_note(tmp_path):
    out = _tournament(tmp_path, EXAMPLE)
    r = _run("trace", "--from", out, "--game", 1)
    assert r.exit_code == 0, r.output
    assert "places: 1. seat" in r.output and "saved no record of game 1" in r.output


def test_a_bot_that_plays_otherwise_in_the_replay_is_named_in_a_warning(tmp_path):
    out = _tournament(tmp_path, bots.command(tmp_path, "moody"), "--save-games")
    first = _run("trace", "--from", out, "--game", 0)  # its process's first game: the same
    assert first.exit_code == 0 and "the replay agrees" in first.output, first.output
    later = _run("trace", "--from", out, "--game", 1)  # its second in the run, a first here
    assert later.exit_code == 0, later.output
    assert "warning: the replay differs from the run's record of game 1" in later.output
    assert "the bot b started again" in later.output


def test_a_bot_that_forfeits_forfeits_again_in_the_replay_named_and_exit_1(tmp_path):
    out = _tournament(tmp_path, bots.command(tmp_path, "babble"), "--save-games")
    r = _run("trace", "--from", out, "--game", 2)
    assert r.exit_code == 1, r.output
    assert "bot 'b' at seat" in r.output and "invalid" in r.output
    assert "the replay agrees with the run's record of game 2 (seat" in r.output


def test_a_bot_that_no_longer_starts_exits_2_naming_it(tmp_path):
    out = _tournament(tmp_path, bots.command(tmp_path, "first"))
    (tmp_path / "first.py").write_text("import sys; sys.exit(4)\n")
    r = _run("trace", "--from", out, "--game", 0)
    assert r.exit_code == 2, r.output
    assert r.output.startswith("error: --from: ") and "bot 'b'" in r.output
    assert "hello" in r.output and "Traceback" not in r.output
