"""One-file game records: ``trace --record FILE`` writes one game of a run, ``trace FILE``
tells it again as the run's replay told it, ``play --from FILE [--move N]`` goes on from
its position, and a damaged record is refused naming the line.

Real games (duel, two deterministic strategies), fixed seeds; nothing asserts on a time.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shedsim.cli import app

runner = CliRunner()
GAME = [
    "--rules",
    "duel",
    "--players",
    "2",
    "--strategies",
    "greedy,heuristic",
    "--game",
    "3",
    "--seed",
    "4",
]


def invoke(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


def _record(tmp_path: Path, *extra: str) -> tuple[Path, list[str]]:
    f = tmp_path / "game.jsonl"
    r = invoke("trace", *GAME, *extra, "--record", str(f))
    assert r.exit_code == 0, r.output
    return f, r.output.splitlines()


def test_a_record_tells_the_game_the_run_played(tmp_path):
    f, told = _record(tmp_path)
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    head, moves, result = lines[0], lines[1:-1], lines[-1]["result"]
    assert head["record"] == "shedsim-game" and head["seed"] == 4 and head["game"] == 3
    assert [s["strategy"] for s in head["seats"]] == ["heuristic", "greedy"]  # game 3: rotation 1
    assert (
        [m["move"] for m in moves]
        == list(range(1, len(moves) + 1))
        == list(range(1, result["moves"] + 1))
    )
    r = invoke("trace", str(f))
    assert r.exit_code == 0, r.output
    again = r.output.splitlines()
    # the deal, the swaps and every move told word for word as the run's replay told them
    first = told.index(next(x for x in told if x.startswith("deal: ")))
    last = told.index(next(x for x in told if x.startswith("places: ")))
    assert again[1 : last - first + 2] == told[first : last + 1]


def test_a_record_of_a_game_on_a_given_deal(tmp_path):
    """A run on a deal-set file: the replay and the record deal the file's cards."""
    deals = tmp_path / "d.txt"
    assert (
        invoke(
            "deals",
            "export",
            "--rules",
            "duel",
            "--players",
            "2",
            "--count",
            "4",
            "--seed",
            "9",
            "--out",
            str(deals),
        ).exit_code
        == 0
    )
    run = tmp_path / "run"
    r = invoke(
        "tournament",
        "--rules",
        "duel",
        "--players",
        "2",
        "--strategies",
        "greedy,heuristic",
        "--deals",
        str(deals),
        "--seed",
        "1",
        "--save-games",
        "--quiet",
        "--no-plots",
        "--workers",
        "1",
        "--out",
        str(run),
    )
    assert r.exit_code == 0, r.output
    f = tmp_path / "g.jsonl"
    r = invoke("trace", "--from", str(run), "--game", "5", "--record", str(f))
    assert r.exit_code == 0, r.output
    head = json.loads(f.read_text().splitlines()[0])
    assert (
        head["deal"] == deals.read_text().splitlines()[3 + 5 // 2]
    )  # header, two comments, then deal 2
    import pandas as pd

    games = pd.concat(
        pd.read_parquet(p) for p in sorted((run / "games").glob("*.parquet"))
    ).set_index("game")
    result = json.loads(f.read_text().splitlines()[-1])["result"]
    assert result["places"] == [
        int(games.loc[5, "place_0"]),
        int(games.loc[5, "place_1"]),
    ]  # as the kernel played it
    assert result["moves"] == int(games.loc[5, "moves"])


def test_play_from_a_record_goes_on_from_its_position(tmp_path):
    """Both strategies are deterministic: playing the recorded moves of seat 1 after move 10
    gives the recorded game's end."""
    f, _ = _record(tmp_path)
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    mine = [m["play"] for m in lines[1:-1] if m["move"] > 10 and m["seat"] == 1]
    r = invoke("play", "--from", str(f), "--move", "10", "--seat", "1", "--moves", ";".join(mine))
    assert r.exit_code == 0, r.output
    assert "after move 10" in r.output
    places = lines[-1]["result"]["places"]
    winner = places.index(1)
    assert (
        f"1. {'you (seat 1)' if winner == 1 else 'seat 0 (heuristic)'}" in r.output.splitlines()[-1]
    )
    r = invoke("play", "--from", str(f), "--move", "100000")
    assert r.exit_code == 2 and "--move" in r.output


@pytest.mark.parametrize(
    "edit, line, what",
    [
        (lambda ls: [ls[0].replace('"version": 1', '"version": 7')] + ls[1:], 1, "version 7"),
        (lambda ls: ls[:3] + ["{not json"] + ls[3:], 4, "not JSON"),
        (
            lambda ls: ls[:2] + ['{"move": ' + "[" * 5000 + "]" * 5000 + "}"] + ls[2:],
            3,
            "not JSON (arrays or objects nested too deeply to read)",
        ),
        (
            lambda ls: ls[:1] + [json.dumps({**json.loads(ls[1]), "play": "flip 3"})] + ls[2:],
            2,
            "not legal",
        ),
        (lambda ls: ls[:2] + ls[3:], 3, "move number 3; expected 2"),
        (
            lambda ls: [ls[0].replace('"deal": "down=', '"deal": "down=Z,')] + ls[1:],
            1,
            "unknown card 'Z'",
        ),
    ],
)
def test_a_damaged_record_is_refused_naming_the_line(tmp_path, edit, line, what):
    f, _ = _record(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(edit(f.read_text().splitlines())) + "\n")
    for cmd in (["trace", str(bad)], ["play", "--from", str(bad)]):
        r = invoke(*cmd)
        assert r.exit_code == 2, r.output
        assert f"line {line}" in r.output and what in r.output and "Traceback" not in r.output
