"""``shedsim play``: whole scripted games through the command, bad input that changes
nothing, the end of input and quit that lose nothing (the printed command goes on with
the game), hint and why, and what the person may see."""

from __future__ import annotations

import re
import shlex

import pytest
from typer.testing import CliRunner

from shedsim.analysis.play import Game, InputError, PlayError, swap_choices
from shedsim.cli import app
from shedsim.rules.engine import legal_moves
from shedsim.rules.ruleset import preset

runner = CliRunner()
ENV = {"COLUMNS": "220", "NO_COLOR": "1", "TERM": "dumb"}
BASE = [
    "play",
    "--players",
    "3",
    "--opponents",
    "heuristic,random",
    "--seed",
    "4",
    "--hint-budget",
    "40",
]


def invoke(args, text):
    return runner.invoke(app, [str(a) for a in args], input=text, env=ENV)


def result_of(output: str) -> str:
    lines = [ln for ln in output.splitlines() if ln.startswith("result:")]
    assert len(lines) == 1, output
    return lines[0]


def test_a_whole_scripted_game_ends_with_every_place():
    r = invoke(BASE, "2\n" + "1\n" * 600)
    assert r.exit_code == 0, r.output
    res = result_of(r.output)
    assert r.output.strip().splitlines()[-1] == res
    places = re.findall(r"(\d)\. (you \(seat 0\)|seat (\d) \(\w+\))", res)
    shared = re.findall(r"shares the places left", res)
    assert len(places) + len(shared) == 3
    if not shared:
        assert sorted(int(p[0]) for p in places) == [1, 2, 3]
    # moves are numbered 1, 2, 3, ... whoever made them
    numbers = [int(m) for m in re.findall(r"^\s*(\d+)\. seat \d ", r.output, re.M)]
    assert numbers == list(range(1, len(numbers) + 1)) and numbers
    # the same inputs give the same game
    assert invoke(BASE, "2\n" + "1\n" * 600).output == r.output


def test_bad_input_changes_nothing():
    clean = invoke(BASE, "2\n" + "1\n" * 600)
    noisy_lines = ["", "banana", "0", "99", "play Ax4", "flip 1", "gamble", "2"]
    noise = "\n".join(["", "nonsense", "17"]) + "\n"
    script = noise + "2\n" + "".join("\n".join(noisy_lines[:-1]) + "\n1\n" for _ in range(600))
    noisy = invoke(BASE, script)
    assert noisy.exit_code == 0, noisy.output
    assert result_of(noisy.output) == result_of(clean.output)
    msgs = [ln for ln in noisy.output.splitlines() if ln.startswith("  ! ")]
    assert any("no swap choice 17" in m for m in msgs)
    assert any("'banana' is neither a move nor a command" in m for m in msgs)
    assert any("play Ax4 is not legal here" in m and "your moves: 1. " in m for m in msgs)
    assert any("no move 99" in m for m in msgs)
    assert "Traceback" not in noisy.output


def test_end_of_input_and_quit_lose_nothing():
    full = invoke(BASE, "3\n" + "1\n" * 600)
    cut = invoke(BASE, "3\n1\n1\n1\n")
    assert cut.exit_code == 1
    err = cut.stderr
    assert "end of input before the game ended" in err
    cmd = err.strip().splitlines()[-1].strip()
    assert cmd.startswith("shedsim play ") and "--moves '3;" in cmd
    went_on = invoke(shlex.split(cmd)[1:], "1\n" * 600)
    assert went_on.exit_code == 0, went_on.output
    assert result_of(went_on.output) == result_of(full.output)
    q = invoke(BASE, "3\n1\nquit\n")
    assert q.exit_code == 0 and "quit at move" in q.output and "--moves '3;" in q.output
    assert "result:" not in q.output


def test_a_bad_moves_entry_stops_naming_it_and_keeps_the_entries_before():
    """A --moves entry that is not a choice here is a script's mistake: exit 2 naming the
    entry, and the printed command goes on with the entries before it."""
    r = invoke([*BASE, "--moves", "3;1;hint;banana;1"], "")
    assert r.exit_code == 2, r.output
    err = r.stderr
    assert "--moves: entry 4 ('banana')" in err and "neither a move nor a command" in err
    cmd = err.strip().splitlines()[-1].strip()
    assert len(shlex.split(cmd)[shlex.split(cmd).index("--moves") + 1].split(";")) == 2
    full = invoke(BASE, "3\n1\n" + "1\n" * 600)
    went_on = invoke(shlex.split(cmd)[1:], "1\n" * 600)
    assert went_on.exit_code == 0, went_on.output
    assert result_of(went_on.output) == result_of(full.output)
    swap = invoke([*BASE, "--moves", "99"], "")
    assert swap.exit_code == 2 and "--moves: entry 1 ('99'): no swap choice 99" in swap.stderr


def test_more_opponents_than_seats_is_refused_and_the_default_fits_two_players():
    r = invoke(["play", "--players", "2", "--opponents", "greedy,random,heuristic"], "")
    assert r.exit_code == 2
    assert "--opponents: 3 strategies for the 1 other seat(s) at 2 players" in r.stderr
    q = invoke(["play", "--players", "2", "--hint-budget", "40"], "1\nquit\n")
    assert q.exit_code == 0, q.output
    cmd = q.output.strip().splitlines()[-1].strip()
    again = invoke([*shlex.split(cmd)[1:], "--hint-budget", "40"], "quit\n")
    assert again.exit_code == 0, again.output


def test_the_person_sees_only_their_own_cards():
    r = invoke(BASE, "1\n" + "1\n" * 600)
    out = r.output
    # bots' draws are counted, never named; the person's own draws are named
    assert not re.search(r"seat [12] \(\w+\) \[\w[\w-]*\] [^|]*draws \d \(", out), out
    assert re.search(r"seat 0 \(you\) \[hand\] [^|]*draws \d \(", out)
    assert not re.search(r"seat [12] \(\w+\): hand (?!\d+ cards?[;( ])", out)
    # the swap lines show the bots' hand sizes, not their cards
    assert "seat 1 (heuristic): hand 3 cards; face-up" in out


def test_hint_and_why():
    r = invoke(BASE, "1\nwhy\nhint\n1\nwhy\nquit\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "hint: playouts by heuristic" in out and "expected place (95%)" in out
    assert re.search(r"^\s+1\. play \w+x\d+\s+\d\.\d\d \(", out, re.M)
    assert "why: seat " in out and "'s rule: " in out


def test_swap_hint_names_the_policys_choice():
    r = invoke(BASE, "hint\nquit\n")
    assert re.search(r"hint: heuristic would choose \d+: face-up ", r.output), r.output


def test_game_object_refuses_bad_options():
    rs = preset("shithead")
    with pytest.raises(PlayError, match="players"):
        Game(rs, 9, ["greedy"])
    with pytest.raises(PlayError, match="--opponents"):
        Game(rs, 3, ["nosuch"])
    with pytest.raises(PlayError, match="--seat"):
        Game(rs, 3, ["greedy"], seat=3)
    r = invoke(["play", "--opponents", "nosuch"], "")
    assert r.exit_code == 2 and "nosuch" in r.stderr


def test_swap_by_cards_and_moves_by_notation():
    g = Game(preset("shithead"), 2, ["greedy"], seed=1)
    me = g.state.seats[0]
    assert g.choices[0] == sorted(me.face_up)
    assert len(g.choices) == len(set(map(tuple, g.choices)))
    row = g.choices[-1]
    with pytest.raises(InputError, match="cannot put"):
        g.handle("A A A A")
    g.handle(" ".join(str(c) if c <= 10 else "JQKA"[c - 11] for c in row))
    assert sorted(g.state.seats[0].face_up) == row
    legal = legal_moves(g.state)
    before = g.state.moves
    g.handle(str(legal[-1]))
    assert g.state.moves > before


def test_swap_choices_keep_first():
    assert swap_choices([3, 3, 5, 5], [5, 5], 2) == [[5, 5], [3, 3], [3, 5]]


def test_a_game_where_you_go_out_is_finished_by_the_bots():
    """Play every game of a few seeds to the end (first legal move each time) straight on
    the Game object: the result line always gives every seat a place or a share."""
    for seed in range(3):
        g = Game(preset("palace"), 4, ["greedy", "random", "heuristic"], seed=seed)
        g.handle("1")
        steps = 0
        while not g.over:
            g.handle("1")
            steps += 1
            assert steps < 2000
        line = g.result_line()
        assert all(f"seat {i}" in line for i in range(4))


def test_a_stopped_game_says_why_and_shares_the_places():
    r = invoke(
        [
            "play",
            "--players",
            "3",
            "--opponents",
            "greedy",
            "--seed",
            "1",
            "--house",
            "max_moves:10",
        ],
        "1\n" * 50,
    )
    assert r.exit_code == 0, r.output
    res = result_of(r.output)
    assert "shares the places left" in res and "game stopped: move cap 10 reached" in res


def test_hint_and_why_rank_by_what_the_rules_score():
    """shithead scores only losing: hint ranks by P(lose) and says so, and why judges the
    bot's move by it; --hint-objective place ranks by expected place and stays on the
    go-on line; an unknown objective is refused naming the option."""
    args = [
        "play",
        "--players",
        "2",
        "--opponents",
        "heuristic",
        "--seed",
        "4",
        "--hint-budget",
        "40",
    ]
    r = invoke(args, "1\nhint\n1\nwhy\nquit\n")
    assert r.exit_code == 0, r.output
    assert (
        "ranked by P(lose), i.e. not losing (shithead's scoring: count of games not lost)"
        in r.output
    )
    why = [
        ln
        for ln in r.output.splitlines()
        if "playouts from what" in ln or "the only legal move" in ln
    ]
    assert why and all(
        "ranked by P(lose)" in ln and "its move has P(lose) " in ln
        for ln in why
        if "playouts from what" in ln
    )
    r = invoke(args + ["--hint-objective", "place"], "1\nhint\nquit\n")
    assert r.exit_code == 0 and "ranked by expected place (--hint-objective place)" in r.output
    assert "--hint-objective place" in r.output.strip().splitlines()[-1]
    with pytest.raises(PlayError, match="--hint-objective: one of lose, place, first"):
        Game(preset("shithead"), 3, ["greedy"], hint_objective="win")
    r = invoke(args + ["--hint-objective", "win"], "")
    assert r.exit_code == 2 and "--hint-objective" in r.stderr


def test_play_prints_the_go_on_line_when_a_bot_fails(tmp_path):
    """A bot that fails ends the game, as before, but now prints the command that goes on
    with it as quit and the end of input do (before: the error alone). A plain-Python
    plugin (nothing to compile) that returns no move is the broken bot."""
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "pynomove.py").write_text(
        'NAME = "pynomove"\nDESCRIPTION = "returns no move"\nDETERMINISTIC = True\n'
        "def choose_swap(visible, seat, players, rules, rng):\n    return sorted(visible)[-3:]\n"
        "def choose_move(obs, legal, rng):\n    return None\n"
    )
    args = [
        "play",
        "--players",
        "2",
        "--opponents",
        "pynomove",
        "--seed",
        "3",
        "--strategy-path",
        str(d),
    ]
    r = runner.invoke(app, args, input="1\n1\n1\n1\n", env=ENV)
    assert r.exit_code == 1, r.output
    err = r.stderr
    assert "strategy 'pynomove' raised at move 2" in err and "Traceback" not in r.output, err
    assert "the game stops after 1 move(s); nothing is lost" in err, err
    cmd = err.strip().splitlines()[-1].strip()
    assert (
        cmd.startswith("shedsim play ") and "--moves '1;play " in cmd and "--strategy-path" in cmd
    ), cmd
    again = runner.invoke(
        app, shlex.split(cmd)[1:], input="", env=ENV
    )  # the same game, to the same point
    assert again.exit_code == 1 and "strategy 'pynomove' raised at move 2" in again.stderr, (
        again.output
    )


def test_search_ranks_your_moves_by_the_strongest_players_search():
    r = invoke(BASE, "1\nsearch\nquit\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "search: champion's search from what you see" in out and "visits" in out
    assert re.search(r"^\s+1\. play \w+x\d+\s+\d\.\d\d\s+\d+\.\d%", out, re.M)
    assert "ranked by champion's search" in out


def test_search_is_not_a_move_of_the_game_and_waits_for_the_swap():
    from shedsim.cli.play import _changed

    assert not _changed("search") and not _changed("hint") and _changed("1")
    r = invoke(BASE, "search\n1\nquit\n")
    assert r.exit_code == 0, r.output
    assert "in the swap phase type hint for the face-up choice" in r.output


def test_an_unknown_hint_policy_is_refused_before_the_game():
    r = invoke([*BASE, "--hint-policy", "nosuch"], "1\nquit\n")
    assert r.exit_code == 2 and "--hint-policy: unknown strategy 'nosuch'" in r.output
