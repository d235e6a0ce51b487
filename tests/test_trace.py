"""``shedsim trace``: games numbered as the runs number them, replayed exactly from a run
directory (``--from``), told so a person can follow them (stages, burns and why, draws,
pile), and the replay command that error messages print."""

from __future__ import annotations

import re
import shlex

import pytest
from typer.testing import CliRunner

from shedsim.analysis.replay import (
    ReplayError,
    replay_game,
    run_dir_spec,
    saved_record,
    tournament_run_spec,
)
from shedsim.cli import app
from shedsim.rules.ruleset import build, preset
from shedsim.runs.simulate import RunSpec, play_chunk, replay_command

runner = CliRunner()
ENV = {"COLUMNS": "220", "NO_COLOR": "1", "TERM": "dumb"}


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], env=ENV)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A finished 3-seat tournament of three strategies (random among them: coin flips
    matter), saved game by game."""
    out = tmp_path_factory.mktemp("run")
    r = invoke(
        "tournament",
        "--strategies",
        "greedy,random,heuristic",
        "--players",
        3,
        "--games",
        36,
        "--seed",
        11,
        "--rules",
        "palace",
        "--house",
        "skip8",
        "--workers",
        1,
        "--out",
        out,
        "--save-games",
        "--quiet",
        "--no-plots",
    )
    assert r.exit_code == 0, r.output
    return out


@pytest.mark.parametrize("game", [0, 5, 13, 29, 35])
def test_replayed_game_equals_the_runs_saved_record(run_dir, game):
    spec = run_dir_spec(run_dir)
    rep = replay_game(spec, game)
    rec = saved_record(run_dir, game)
    assert rec is not None
    n = spec.players
    assert rep.deal == rec["deal"] and rep.dealer == rec["dealer"]
    assert rep.seating == [rec[f"entry_{s}"] for s in range(n)]
    assert rep.result.places == [rec[f"place_{s}"] for s in range(n)]
    assert rep.result.moves == rec["moves"] and rep.result.start_seat == rec["start"]
    assert rep.result.pickups == [rec[f"pickups_{s}"] for s in range(n)]
    assert rep.result.burns == [rec[f"burns_{s}"] for s in range(n)]
    assert rep.result.face_up == [rec[f"face_up_{s}"] for s in range(n)]
    assert rep.result.dealt_visible == [rec[f"dealt_{s}"] for s in range(n)]


def test_trace_from_prints_the_game_and_matches_the_plain_options(run_dir):
    r = invoke("trace", "--from", run_dir, "--game", 13)
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert "game 13 (deal 4, dealer seat 1)" in lines[0]
    rec = saved_record(run_dir, 13)
    places = {s: rec[f"place_{s}"] for s in range(3)}
    last = lines[-1]
    for s, p in places.items():
        if p:
            assert f"{p}. seat {s} " in last, (last, places)
    # the same game from the tournament's own options: one numbering everywhere
    same = invoke(
        "trace",
        "--strategies",
        "greedy,random,heuristic",
        "--players",
        3,
        "--seed",
        11,
        "--rules",
        "palace",
        "--house",
        "skip8",
        "--game",
        13,
    )
    assert same.exit_code == 0, same.output
    assert same.output.splitlines()[1:] == r.output.splitlines()[1:]


def test_trace_from_refuses_bad_input(run_dir, tmp_path):
    r = invoke("trace", "--from", run_dir, "--game", 36)
    assert r.exit_code == 2 and "--game" in r.output + str(r.stderr) and "0 to 35" in r.stderr
    r = invoke("trace", "--from", tmp_path / "nowhere", "--game", 0)
    assert r.exit_code == 2 and "--from" in r.stderr
    (tmp_path / "spec.json").write_text("{not json")
    r = invoke("trace", "--from", tmp_path, "--game", 0)
    assert r.exit_code == 2 and "--from" in r.stderr and "not valid JSON" in r.stderr


def test_trace_tells_stages_burns_draws_and_the_pile():
    r = invoke("trace", "--strategies", "greedy,random", "--players", 3, "--seed", 5)
    assert r.exit_code == 0, r.output
    out = r.output
    assert "swap seat 0 (greedy): dealt hand" in out
    assert re.search(r"\[hand\] plays .* from the hand; draws 1 \(\w+\)  \| pile ", out)
    assert "[face-down] flips card" in out
    assert re.search(
        r"the pile burns \(\d+ cards?: (10 is a burn card|four \w+s in a row on top)\); moves "
        r"again",
        out,
    )
    # skips say who misses a turn
    r = invoke("trace", "--rules", "palace", "--house", "skip8", "--players", 3, "--seed", 2)
    assert re.search(r"8 skips 1 turn: seat \d misses a turn", r.output), r.output


def test_trace_burn_reason_matches_the_rules():
    """Every burn line names a burn rank or a run of the rule set's length of one rank."""
    rs = preset("shithead")
    for g in range(6):
        spec = tournament_run_spec(rs, 2, "greedy,heuristic", 3, g)
        rep = replay_game(spec, g)
        for line in rep.lines:
            m = re.search(r"the pile burns \((\d+) cards?: ([^)]*)\)", line)
            if not m:
                continue
            why = m.group(2)
            assert why == "10 is a burn card" or why.startswith("four "), line


def test_replay_command_reproduces_the_game_of_a_run_spec():
    rs = build("family", ["lowest_starts"])
    spec = RunSpec(
        rs, 3, ("greedy", "random"), ("g", "random"), seed=4, games=30, schedule="tournament"
    )
    res = play_chunk(spec, 0, 30)
    cmd = replay_command(spec, 17)
    assert cmd.startswith("shedsim trace --rules family --house lowest_starts --players 3 ")
    assert (
        "--strategies g=greedy,random" in cmd
        and "--seat-orders sorted" in cmd
        and "--game 17" in cmd
    )
    r = invoke(*shlex.split(cmd)[1:])
    assert r.exit_code == 0, r.output
    places = res.records["places"][17]
    last = r.output.strip().splitlines()[-1]
    for s, p in enumerate(places):
        if p:
            assert f"{p}. seat {s} " in last
    # a compare-rules variant plays on its own strategy stream
    spec2 = RunSpec(rs, 3, ("greedy", "random"), ("greedy", "random"), seed=4, games=30, stream=2)
    assert "--stream 2" in replay_command(spec2, 3)
    rep = replay_game(tournament_run_spec(rs, 3, "greedy,random", 4, 3, "sorted", 2), 3)
    assert rep.result.places == play_chunk(spec2, 3, 4).records["places"][0].tolist()


def test_bench_numbering_one_strategy_in_every_seat():
    rs = preset("shithead")
    spec = RunSpec(rs, 4, ("heuristic",), ("heuristic",), seed=9, games=8, schedule="same")
    rec = play_chunk(spec, 0, 8).records
    cmd = replay_command(spec, 6)
    assert "--strategies heuristic " in cmd + " " and "--seat-orders" not in cmd
    rep = replay_game(tournament_run_spec(rs, 4, "heuristic", 9, 6), 6)
    assert rep.deal == 6 and rep.dealer == 6 % 4
    assert rep.result.places == rec["places"][6].tolist()
    assert rep.result.moves == rec["moves"][6]


def test_replay_refuses_a_game_outside_the_run():
    spec = tournament_run_spec(preset("shithead"), 2, "greedy,random", 0, 3)
    with pytest.raises(ReplayError, match="--game"):
        replay_game(spec, 4)


CRASHER = """
from numba import njit
from shedsim import layout as L
from shedsim.kernel.policies import greedy_move, strongest_face_up
NAME = "crasher"
DESCRIPTION = "reads far outside an array from its fourth move on"
DETERMINISTIC = True
@njit(cache=True)
def swap(visible, seat, players, rules, params, rng):
    return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
@njit(cache=True)
def move(obs, rules, params, rng):
    if obs[L.O_MOVES] >= 3:
        return rules[1 << 40]
    return greedy_move(obs, rules)
"""


def test_trace_names_a_strategy_that_crashes_the_process(tmp_path):
    """A compiled plugin that reads outside an array kills the process that plays it; trace
    plays the game in a child and names the strategy, seat, move and position (no bare
    segfault)."""
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "crasher.py").write_text(CRASHER)
    r = invoke(
        "trace",
        "--strategies",
        "crasher,greedy",
        "--players",
        2,
        "--seed",
        3,
        "--game",
        1,
        "--strategy-path",
        d,
    )
    assert r.exit_code == 1, r.output
    err = r.stderr
    assert "crashed the process (signal SIGSEGV" in err, err
    assert "strategy 'crasher' at seat " in err and "choosing move " in err
    assert "run seed 3, game 1 (deal 0" in err and "pile (bottom->top)" in err


# ------------------------------------------------------------------ moves told in words
from pathlib import Path  # noqa: E402

from shedsim.rules.engine import Move, apply_move  # noqa: E402
from shedsim.rules.narrate import tell_move  # noqa: E402
from shedsim.rules.scenario import load_scenario  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _told(path: Path, move: str, viewer=None) -> str:
    state = load_scenario(path).state
    before = state.copy()
    mv = Move.parse(move)
    apply_move(state, mv)
    return tell_move(before, mv, state, viewer=viewer)


@pytest.mark.parametrize(
    "path,move,needles",
    [
        (
            ROOT / "docs/examples/hint_fourth_seven.toml",
            "play 7x1",
            [
                "seat 0 [hand] plays 7 from the hand",
                "the pile burns (6 cards: four 7s in a row on top); moves again",
                "| pile empty",
            ],
        ),
        (
            ROOT / "docs/examples/hint_fourth_seven.toml",
            "play Qx1",
            ["plays Q from the hand", "| pile ... 7 7 7 Q (6 cards)"],
        ),
        (
            ROOT / "tests/scenarios/ruling_12_skip8_counts_only_seats_in.toml",
            "play 8x1",
            ["8 skips 1 turn: seat 2 misses a turn"],
        ),
        (
            ROOT / "tests/scenarios/ruling_12_skip8_reverse8_direction_first.toml",
            "play 8x1",
            ["8 reverses the direction", "8 skips 1 turn: seat 4 misses a turn"],
        ),
    ],
)
def test_moves_are_told_with_their_reasons(path, move, needles):
    text = _told(path, move)
    for n in needles:
        assert n in text, (n, text)


def test_a_seat_sees_its_own_draws_only(tmp_path):
    p = tmp_path / "draw.toml"
    p.write_text(
        'rules = "shithead"\nto_move = 0\npile = ["4"]\nstock = ["9", "J", "K"]\n'
        '[[seats]]\nhand = ["5", "6", "7"]\nface_up = ["K"]\nface_down = ["3"]\n'
        '[[seats]]\nhand = ["8", "8", "8"]\nface_up = ["Q"]\nface_down = ["5"]\n'
    )
    assert "draws 1 (9)" in _told(p, "play 5x1") and "draws 1 (9)" in _told(p, "play 5x1", viewer=0)
    told = _told(p, "play 5x1", viewer=1)
    assert "draws 1" in told and "(9)" not in told
