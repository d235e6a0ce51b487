"""The reference bots play exactly as the built-in ``greedy`` strategy: the JavaScript
example (examples/bots/greedy.js, written from docs/reference/bots.md) and the Python client
example (``python -m shedsim.bot.example``) give the same records as ``greedy`` seated in
their place on the same seed, in a tournament, an SPRT and a gauntlet."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from shedsim.analysis import sprt as S
from shedsim.analysis import tournament as T
from shedsim.rules.ruleset import build

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
CLIENTS = {
    "js": None
    if NODE is None
    else shlex.join([NODE, str(ROOT / "examples" / "bots" / "greedy.js")]),
    "python": shlex.join([sys.executable, "-m", "shedsim.bot.example"]),
}


def _command(which: str) -> str:
    if CLIENTS[which] is None:
        pytest.skip("node is not installed")
    return CLIENTS[which]


def _records(root, spec):
    store = T.Store(root)
    out = T.run(spec, store, workers=1)
    assert out.complete
    return store.load_total(spec, out.done)


@pytest.mark.parametrize("which", ["js", "python"])
@pytest.mark.parametrize("preset,players", [("shithead", 3), ("palace", 2)])
def test_the_example_bot_plays_as_greedy_in_a_tournament(tmp_path, which, preset, players):
    rules = build(preset)
    entries = [("random", "random"), ("aggressive", "aggressive")]
    bot = T.plan(
        rules, players, [*entries, ("g", "bot:" + _command(which))], 12, seed=11, chunk_size=6
    )
    ref = T.plan(rules, players, [*entries, ("g", "greedy")], 12, seed=11, chunk_size=6)
    a, b = _records(tmp_path / "bot", bot), _records(tmp_path / "ref", ref)
    res_a, res_b = T.analyse(bot, a), T.analyse(ref, b)
    same = [c for c in res_b.summary if c != "spec"]  # the spec column says bot:COMMAND or greedy
    assert res_a.summary[same].equals(res_b.summary[same])
    assert (res_a.summary.loc[res_a.summary["strategy"] == "g", "games"] > 0).all()


@pytest.mark.parametrize("which", ["js", "python"])
def test_the_example_bot_plays_as_greedy_in_an_sprt(which):
    kw = dict(players=2, seed=5, max_games=40, min_games=40, batch=20)
    bot = S.run_sprt("bot:" + _command(which), "random", **kw)
    ref = S.run_sprt("greedy", "random", **kw)
    assert bot.games == ref.games == 40
    assert np.array_equal(bot.counts, ref.counts) and bot.llr == ref.llr and bot.score == ref.score


def test_bench_measures_a_bots_decisions_per_second_through_the_pipe():
    import json

    from typer.testing import CliRunner

    from shedsim.cli import app

    first = shlex.join([sys.executable, str(ROOT / "examples" / "bots" / "first.py")])
    r = CliRunner().invoke(app, ["bench", "--bot", f"first={first}", "--bot-games", "4", "--json"])
    assert r.exit_code == 0, r.output
    row = json.loads(r.output.strip().splitlines()[-1])["rows"][0]
    # every move of the 4 games is one of the bot's decisions (it holds every seat), the swaps too
    assert row["games"] == 4 and row["forfeits"] == 0 and row["decisions"] > 4 * 2
    assert row["decisions_per_s"] > 0 and 0 <= row["pipe_share"] <= 1
    r = CliRunner().invoke(app, ["bench", "--bot", "first"])
    assert r.exit_code == 2 and "LABEL=COMMAND" in r.output


@pytest.mark.parametrize("which", ["js", "python"])
def test_the_example_bot_plays_as_greedy_in_a_gauntlet(which):
    """The bot as the gauntlet's candidate: its table against each opponent (games, score,
    Elo, forfeits) and the total equal greedy's on the same seed."""
    import shedsim

    kw = dict(players=2, games=24, seed=3, batch=12)
    bot = shedsim.gauntlet("bot:" + _command(which), "random,aggressive", **kw).table
    ref = shedsim.gauntlet("greedy", "random,aggressive", **kw).table
    assert list(bot["opponent"]) == ["random", "aggressive", "total"]
    assert bot.equals(ref), (bot, ref)
    assert (bot["games"] > 0).all()


@pytest.mark.parametrize("line", [b"not json\n", b"[1, 2]\n", b'{"type": "hello"\n', b"\xff\xfe\n"])
def test_the_python_client_says_what_is_wrong_with_a_bad_line_and_exits_2(line):
    """A line from the host that is not a JSON object ends the client with exit code 2 and
    one line on stderr naming the line, never a traceback."""
    import subprocess

    hello = b'{"type": "hello", "protocol": 1}\n'
    p = subprocess.run(
        [sys.executable, "-m", "shedsim.bot.example"],
        input=hello + line,
        capture_output=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert p.returncode == 2, p.stderr
    err = p.stderr.decode()
    assert "line 2 from the host is not a JSON object" in err and "Traceback" not in err
    assert p.stdout.count(b"\n") == 1  # the hello was answered before
