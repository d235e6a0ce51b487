"""Hostile compiled plugins: a strategy that writes into the rules or its parameters, or
crashes the process, stops the run with the strategy named.

The kernel hands strategies copies of the rules and parameters and compares them after
each game; the reference engine checks after every decision, so the message names the
strategy whose decision wrote, not the one that next tripped over the changed rules.
A plugin that crashes the process (numba checks no bounds) is played in a forked child
(shedsim.base.isolate) by every command, and named: strategy, seat, move, run seed,
game, deal and the ``shedsim trace`` command that replays the game.

The plugins are ``tests/hostile_plugins.py``'s, in the one directory every test shares
(the ``hostile_plugins`` fixture), so they are compiled into one kernel once.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.cli import app
from shedsim.rules.engine import StrategyError, play_game
from shedsim.rules.ruleset import preset
from shedsim.runs.simulate import RunSpec, SimulationError, play_chunk
from suite import LONG, some


@pytest.fixture(scope="module")
def plugin_dir(hostile_plugins):
    return hostile_plugins


def _spec(d, name, games=10, players=2, seed=42):
    return RunSpec(
        preset("shithead"),
        players,
        (name, "greedy"),
        (name, "greedy"),
        seed=seed,
        games=games,
        strategy_paths=(str(d),),
    )


@pytest.mark.parametrize(
    "name,what",
    [
        ("rulebender", "the rules array"),
        ("swapbender", "the rules array"),
        ("paramcounter", "its parameters array"),
    ],
)
def test_a_plugin_that_writes_into_the_game_stops_the_run_named(plugin_dir, name, what):
    with pytest.raises(SimulationError) as err:
        play_chunk(_spec(plugin_dir, name), 0, 10)
    msg = str(err.value)
    assert f"strategy {name!r} wrote into {what}" in msg, msg
    assert "'greedy'" not in msg.split("\n")[0]  # the innocent seat is not blamed
    assert "seed 42" in msg and "replay it move by move: " in msg
    # the replay command names the same strategy
    cmd = msg.splitlines()[-1].split("replay it move by move: ", 1)[1]
    r = CliRunner().invoke(app, shlex.split(cmd)[1:])
    assert r.exit_code == 1 and f"strategy {name!r} wrote into {what}" in r.output, r.output


@pytest.mark.parametrize("name", ["obswriter", "stealth"])
def test_a_plugin_that_writes_into_the_observation_stops_the_run_named(plugin_dir, name):
    """The observation is the kernel's own state: a plugin's move is checked against a copy
    of it (every entry; stealth balances its write in another entry, which a weighted sum
    did not see), and a write stops the run naming the plugin, its seat, the move and the
    position; the reference engine checks too, so the trace command reproduces it (before,
    trace played the game through, exit 0)."""
    with pytest.raises(SimulationError) as err:
        play_chunk(_spec(plugin_dir, name), 0, 10)
    msg = str(err.value)
    assert f"strategy {name!r} wrote into the observation array at move " in msg, msg
    assert re.search(r"entry \d+ \(O_\w+", msg) and "the position:" in msg and "seed 42" in msg, msg
    cmd = msg.splitlines()[-1].split("replay it move by move: ", 1)[1]
    r = CliRunner().invoke(app, shlex.split(cmd)[1:])
    assert r.exit_code == 1 and f"strategy {name!r} wrote into the observation array" in r.output, (
        r.output
    )


def test_engine_blames_the_writer_not_the_next_player(plugin_dir):
    """Before the check, the reference engine named greedy: it was the one whose move was
    illegal under the true rules after rulebender had made every rank playable."""
    from shedsim.plugins import discover

    known = discover([str(plugin_dir)])
    for seats in (("rulebender", "greedy"), ("greedy", "rulebender")):
        players = [known[n].player(n) for n in seats]
        with pytest.raises(
            StrategyError, match="strategy 'rulebender' wrote into the rules array at move "
        ):
            play_game(preset("shithead"), players, 5, 6, 0)


def test_tournament_with_a_rule_changing_plugin_exits_1_naming_it(plugin_dir, tmp_path):
    r = CliRunner().invoke(
        app,
        [
            "tournament",
            "--strategies",
            "greedy,rulebender,random",
            "--players",
            "3",
            "--games",
            "60",
            "--seed",
            "1",
            "--workers",
            "1",
            "--quiet",
            "--no-plots",
            "--strategy-path",
            str(plugin_dir),
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert r.exit_code == 1, r.output
    assert "strategy 'rulebender' wrote into the rules array" in r.output
    assert not (tmp_path / "o" / "summary.csv").exists()


def test_honest_plugins_are_untouched(plugin_dir):
    """The copies change nothing for strategies that only read: same records as before."""
    spec = RunSpec(
        preset("shithead"),
        3,
        ("greedy", "random", "heuristic"),
        ("greedy", "random", "heuristic"),
        seed=3,
        games=60,
        strategy_paths=(str(plugin_dir),),
    )
    a = play_chunk(spec, 0, 60).records
    b = play_chunk(
        RunSpec(
            preset("shithead"),
            3,
            ("greedy", "random", "heuristic"),
            ("greedy", "random", "heuristic"),
            seed=3,
            games=60,
        ),
        0,
        60,
    ).records
    for k in ("places", "moves", "face_up"):
        assert (a[k] == b[k]).all()


def test_a_plugin_from_outside_plays_in_a_forked_child_with_the_same_results(
    plugin_dir, monkeypatch
):
    """Every kernel call that holds a plugin from outside strategies/ runs in a forked
    child; its records are the ones the same call gives in this process."""
    from shedsim.base import isolate

    spec = RunSpec(
        preset("shithead"),
        3,
        ("greedy", "honest", "heuristic"),
        ("greedy", "honest", "heuristic"),
        seed=3,
        games=60,
        strategy_paths=(str(plugin_dir),),
    )
    forks = []
    run_forked = isolate.run_forked
    monkeypatch.setattr(
        isolate, "run_forked", lambda loop, *a: forks.append(1) or run_forked(loop, *a)
    )
    a = play_chunk(spec, 0, 60).records
    assert forks == [1]
    monkeypatch.setattr(isolate, "can_fork", lambda: False)
    b = play_chunk(spec, 0, 60).records
    assert forks == [1]
    for k in a:
        assert (a[k] == b[k]).all(), k


SEGFAULT_RUNS = {
    "tournament-1-worker": [
        "tournament",
        "--strategies",
        "segfaulter,greedy",
        "--players",
        "2",
        "--games",
        "40",
        "--chunk-size",
        "20",
        "--seed",
        "5",
        "--workers",
        "1",
        "--no-plots",
        "--out",
        "{out}",
    ],
    "tournament-2-workers": [
        "tournament",
        "--strategies",
        "greedy,segfaulter",
        "--players",
        "2",
        "--games",
        "40",
        "--chunk-size",
        "10",
        "--seed",
        "5",
        "--workers",
        "2",
        "--no-plots",
        "--out",
        "{out}",
    ],
    "sprt": [
        "sprt",
        "--a",
        "segfaulter",
        "--b",
        "greedy",
        "--seed",
        "5",
        "--max-games",
        "40",
        "--min-games",
        "0",
        "--batch",
        "20",
    ],
    "sprt-unpaired": [
        "sprt",
        "--a",
        "segfaulter",
        "--b",
        "greedy",
        "--seed",
        "5",
        "--max-games",
        "40",
        "--min-games",
        "0",
        "--batch",
        "20",
        "--unpaired",
    ],
    "sprt-3-players": [
        "sprt",
        "--a",
        "greedy",
        "--b",
        "segfaulter",
        "--players",
        "3",
        "--seed",
        "5",
        "--max-games",
        "60",
        "--min-games",
        "0",
        "--batch",
        "30",
    ],
    "sprt-compare-pairing": [
        "sprt",
        "--a",
        "greedy",
        "--b",
        "segfaulter",
        "--seed",
        "5",
        "--compare-pairing",
        "--games",
        "20",
    ],
    "swaps": [
        "swaps",
        "--strategy",
        "segfaulter",
        "--players",
        "2",
        "--games",
        "20",
        "--deals",
        "0",
        "--seed",
        "5",
        "--workers",
        "1",
        "--no-plots",
        "--out",
        "{out}",
    ],
    "tips": [
        "tips",
        "--rules",
        "shithead",
        "--players",
        "2",
        "--tip",
        "block",
        "--opponents",
        "segfaulter",
        "--games",
        "20",
        "--seed",
        "5",
        "--out",
        "{out}",
    ],
    "tune": [
        "tune",
        "--strategy",
        "heuristic",
        "--field",
        "segfaulter",
        "--budget",
        "1",
        "--games",
        "20",
        "--confirm-games",
        "0",
        "--seed",
        "5",
        "--out",
        "{out}",
    ],
    "bench": [
        "bench",
        "--strategy",
        "segfaulter",
        "--games",
        "20",
        "--seed",
        "5",
        "--workers",
        "1",
    ],
    "gauntlet": [
        "gauntlet",
        "--candidate",
        "segfaulter",
        "--opponents",
        "greedy",
        "--games",
        "40",
        "--batch",
        "20",
        "--seed",
        "5",
    ],
}


CRASH_LONG = ("sprt-unpaired", "sprt-3-players", "tips")
"""The crash cases left to ``make test-long`` (tips meets the loop check in ``make test``; the
other sprt designs share the paired test's run machinery)."""


@pytest.mark.parametrize(
    "run", some(list(SEGFAULT_RUNS), [r for r in SEGFAULT_RUNS if r not in CRASH_LONG])
)
def test_every_command_names_a_plugin_that_crashes_the_process(plugin_dir, tmp_path, run):
    """A segmentation fault in a compiled plugin from a --strategy-path: every command that
    plays it exits 1 naming the strategy, its seat, the move, the run seed, the game and
    deal, with the trace command that replays the game (before, most died with a bare
    'Segmentation fault', exit 139)."""
    args = [a.replace("{out}", str(tmp_path / "o")) for a in SEGFAULT_RUNS[run]]
    quiet = [] if run == "bench" else ["--quiet"]
    r = CliRunner().invoke(app, args + quiet + ["--strategy-path", str(plugin_dir)])
    out = r.output
    assert r.exit_code == 1, out
    assert "the process playing the games crashed (signal SIGSEGV" in out, out
    assert re.search(
        r"during strategy 'segfaulter' at seat [012], choosing move \d+; the position:\n", out
    ), out
    assert (
        re.search(r"run seed 5, game \d+ \(deal \d+, dealer seat \d\)", out)
        and "pile (bottom->top)" in out
    ), out
    cmd = next(ln for ln in out.splitlines() if ln.startswith("replay it move by move: "))
    assert "shedsim trace " in cmd and "--seed 5" in cmd and "segfaulter" in cmd, cmd
    if run.startswith("sprt") and "--out" not in args:  # the batches live in a temporary directory
        assert "no --out: the 0 finished chunks are not kept" in out and "kept in /" not in out, out
    if run.startswith("sprt") and run != "sprt-compare-pairing":
        # the command replays the game (unpaired, 3 players: trace --schedule), and names the crash
        # too
        t = CliRunner().invoke(app, shlex.split(cmd.split(": ", 1)[1])[1:])
        assert t.exit_code == 1 and "the game crashed the process (signal SIGSEGV" in t.output, (
            t.output
        )
        assert re.search(r"'segfaulter' at seat \d, choosing move \d+", t.output), t.output
    if run == "sprt":
        assert "'segfaulter' at seat 0, choosing move 4" in t.output, t.output
        # the moves before the crash are told (before: only the heading and the error)
        assert re.search(r"^   3\. seat \d \((segfaulter|greedy)\) ", t.output, re.M), t.output
        assert (
            "the game stops here: a strategy failed" in t.output and "3 moves made" in t.output
        ), t.output


def test_play_names_a_bot_that_crashes_the_process(plugin_dir):
    """`shedsim play` asks a plugin bot for each decision in a forked child: its crash ends
    the game with exit 1 naming the bot, seat and move (it died with exit 139 before)."""
    r = CliRunner().invoke(
        app,
        [
            "play",
            "--players",
            "2",
            "--opponents",
            "segfaulter",
            "--seed",
            "3",
            "--strategy-path",
            str(plugin_dir),
        ],
        input="1\n" * 40,
    )
    assert r.exit_code == 1, r.output
    assert re.search(
        r"strategy 'segfaulter' at seat 1, choosing move \d+: it crashed the process running it "
        r"\(signal SIGSEGV",
        r.output,
    ), r.output
    assert "[seed 3, game 0]" in r.output


def test_play_names_a_bot_that_raises_once(plugin_dir):
    """A plugin bot that raises inside compiled code (in its forked child): the message
    gives the exception once, as raised (before: "RuntimeError: ValueError: ...")."""
    r = CliRunner().invoke(
        app,
        [
            "play",
            "--players",
            "2",
            "--opponents",
            "raiser",
            "--seed",
            "3",
            "--strategy-path",
            str(plugin_dir),
        ],
        input="1\n" * 40,
    )
    assert r.exit_code == 1, r.output
    assert re.search(
        r"strategy 'raiser' raised at move \d+: ValueError: raiser gives up", r.output
    ), r.output
    assert "RuntimeError" not in r.output, r.output


@LONG  # the crashing policy's own playout kernel is compiled first
def test_hint_names_a_policy_that_crashes_the_process(plugin_dir):
    """`shedsim hint` plays a plugin policy's playouts in a forked child: exit 1 naming it."""
    pos = Path(__file__).parents[1] / "docs" / "examples" / "hint_fourth_seven.toml"
    r = CliRunner().invoke(
        app,
        [
            "hint",
            str(pos),
            "--policy",
            "segfaulter",
            "--budget",
            "10",
            "--batch",
            "10",
            "--strategy-path",
            str(plugin_dir),
        ],
    )
    assert r.exit_code == 1, r.output
    assert (
        "policy 'segfaulter' crashed the process playing the playouts (signal SIGSEGV" in r.output
    ), r.output


@pytest.mark.parametrize(
    "policy,what",
    [  # each policy compiles its own playout kernel: make test plays nonmove's
        pytest.param("rulebender", "wrote into the rules array (entry ", marks=LONG),
        pytest.param("paramcounter", "wrote into its parameters array (parameter 0)", marks=LONG),
        # (as obswriter, but balanced: the stronger case)
        pytest.param("stealth", "wrote into the observation array", marks=LONG),
        ("nonmove", "returned the code -5, which is no move"),
        ("nonmove:depth=4", "returned the code 999999, which is no move"),
        # (before: nothing said, exit 0)
        pytest.param("rngwriter:depth=4", "wrote into the game's strategy stream", marks=LONG),
    ],
)
def test_hint_names_a_policy_that_breaks_the_game(plugin_dir, policy, what):
    """A playout policy decides on copies of the rules and its parameters, compared after
    every sample (before, a policy that wrote into the rules silently changed the hint's
    answer, exit 0); a code that is no move is named as such (before: a MoveSyntaxError
    traceback, or exit 2 as if the options were wrong). Exit 1, the policy, the sample and
    the seed named."""
    pos = Path(__file__).parents[1] / "docs" / "examples" / "hint_fourth_seven.toml"
    r = CliRunner().invoke(
        app,
        [
            "hint",
            str(pos),
            "--policy",
            policy,
            "--budget",
            "10",
            "--batch",
            "10",
            "--seed",
            "4",
            "--strategy-path",
            str(plugin_dir),
        ],
    )
    assert r.exit_code == 1, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert f"policy {policy!r} {what}" in r.output, r.output
    assert re.search(r"in sample \d+ of the moves of seat 0 \(--seed 4\)", r.output), r.output


def test_play_hint_with_a_policy_that_returns_no_move(plugin_dir):
    """`shedsim play --hint-policy` with a policy returning a code that is no move: the hint
    is refused naming the policy and the game goes on (before: a MoveSyntaxError
    traceback); the line that continues the game keeps --hint-policy."""
    r = CliRunner().invoke(
        app,
        [
            "play",
            "--players",
            "2",
            "--opponents",
            "greedy",
            "--seed",
            "3",
            "--hint-policy",
            "nonmove:depth=4",
            "--strategy-path",
            str(plugin_dir),
        ],
        input="1\n1\nhint\n1\n",
    )
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "policy 'nonmove:depth=4' returned the code 999999, which is no move" in r.output, (
        r.output
    )
    assert "no hint this time, the game goes on" in r.output, r.output
    assert r.exit_code == 1 and "end of input before the game ended" in r.output, r.output
    assert "--hint-policy nonmove:depth=4" in r.output and "--moves '1;play " in r.output, r.output


def test_bench_names_a_search_that_crashes_the_process(plugin_dir):
    """bench times a search plugin's move_stats outside the game loop: from outside
    strategies/ it runs in a forked child, so a crash there is named, exit 1 (it died with
    exit 139 before)."""
    r = CliRunner().invoke(
        app,
        [
            "bench",
            "--strategy",
            "searchfaulter",
            "--games",
            "20",
            "--seed",
            "5",
            "--strategy-path",
            str(plugin_dir),
        ],
    )
    assert r.exit_code == 1, r.output
    assert (
        "strategy 'searchfaulter' crashed the process timing its search (signal SIGSEGV" in r.output
        and "in move_stats, on position 0 of 200" in r.output
    ), r.output


def test_a_plugin_that_numba_cannot_type_is_broken_and_blocks_nothing(plugin_dir, tmp_path):
    """swapraiser's swap types as none: the file is listed as broken with the reason, a run
    that names it exits 2 saying so, and the other plugins of the directory play on (every
    other test of this file plays them)."""
    r = CliRunner().invoke(app, ["strategies", "--strategy-path", str(plugin_dir)])
    assert r.exit_code == 0, r.output
    flat = " ".join(r.output.split())
    assert "swapraiser.py': swap returns none, not an integer" in flat, r.output
    r = CliRunner().invoke(
        app,
        [
            "tournament",
            "--strategies",
            "swapraiser,greedy",
            "--games",
            "20",
            "--quiet",
            "--no-plots",
            "--out",
            str(tmp_path / "o"),
            "--strategy-path",
            str(plugin_dir),
        ],
    )
    assert r.exit_code == 2 and "strategy 'swapraiser' is broken" in r.output, r.output
    assert "Traceback" not in r.output and "TypingError" not in r.output, r.output
    r = CliRunner().invoke(
        app,
        [
            "play",
            "--players",
            "2",
            "--opponents",
            "swapraiser",
            "--seed",
            "3",
            "--strategy-path",
            str(plugin_dir),
        ],
        input="1\n",
    )
    assert r.exit_code == 2 and "strategy 'swapraiser' is broken: " in r.output, (
        r.output
    )  # (was: unknown)


def test_play_stops_a_bot_stuck_in_a_loop(plugin_dir):
    """A compiled plugin bot decides in a forked child with the decision time limit of
    plain-Python bots (SHEDSIM_DECISION_TIMEOUT): one stuck in a loop ends the game naming
    it (before, play hung with no output)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, SHEDSIM_DECISION_TIMEOUT="2")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "shedsim",
            "play",
            "--players",
            "2",
            "--opponents",
            "looper",
            "--seed",
            "3",
            "--strategy-path",
            str(plugin_dir),
        ],
        input="1\n" * 30,
        text=True,
        capture_output=True,
        env=env,
        timeout=240,
    )
    assert p.returncode == 1, p.stdout[-2000:] + p.stderr[-2000:]
    assert re.search(
        r"strategy 'looper' at seat 1, choosing move \d+.*: it made no decision within 2 s",
        p.stderr,
    ), p.stderr[-2000:]


@LONG  # a kernel of its own is compiled first (the crashing plugin alone)
def test_compile_names_a_plugin_that_crashes_with_the_trace_command(plugin_dir, tmp_path):
    """`shedsim compile` plays a test game of every compiled strategy on the reference
    engine, a plugin's decisions in forked children: a crash is named as a crash (before:
    "raised ... ProcessCrash") with the trace command that replays that very game."""
    from shedsim.base import atomic

    d = (
        plugin_dir.parent / "compile_plugins"
    )  # a fixed place: numba's cache of the plugin serves later runs
    d.mkdir(exist_ok=True)
    text = (plugin_dir / "segfaulter.py").read_text()
    if not (d / "segfaulter.py").exists() or (d / "segfaulter.py").read_text() != text:
        atomic.write_text(d / "segfaulter.py", text)
    r = CliRunner().invoke(app, ["compile", "--strategy-path", str(d)])
    assert r.exit_code == 1, r.output
    assert "strategy 'segfaulter' at seat 0, choosing move 4 (deal key " in r.output, r.output
    assert (
        "it crashed the process running it (signal SIGSEGV" in r.output
        and "ProcessCrash" not in r.output
    )
    cmd = next(ln for ln in r.output.splitlines() if ln.startswith("replay it move by move: "))
    t = CliRunner().invoke(app, shlex.split(cmd.split(": ", 1)[1])[1:])
    assert t.exit_code == 1 and "'segfaulter' at seat 0, choosing move 4" in t.output, t.output


def test_ctrl_c_stops_a_stuck_plugin_with_one_worker(plugin_dir, tmp_path):
    """With --workers 1 a plugin from --strategy-path plays in a forked child: one stuck in
    an endless loop is stopped by Ctrl-C (exit 130, finished chunks kept), as the stall
    notice says. SIGINT is sent once the notice shows that no game is finishing."""
    import os
    import signal
    import subprocess
    import sys
    import time

    err = tmp_path / "stderr"
    env = dict(os.environ, SHEDSIM_STALL_NOTICE_S="1")
    cmd = [
        sys.executable,
        "-m",
        "shedsim",
        "tournament",
        "--strategies",
        "looper,greedy",
        "--games",
        "20",
        "--workers",
        "1",
        "--seed",
        "5",
        "--no-plots",
        "--out",
        str(tmp_path / "o"),
        "--strategy-path",
        str(plugin_dir),
    ]
    with open(err, "w") as f:
        p = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=f,
            env=env,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            deadline = time.monotonic() + 400  # the first run compiles the plugin's kernel
            while time.monotonic() < deadline and "no game has finished" not in err.read_text():
                assert p.poll() is None, err.read_text()
                time.sleep(0.2)
            p.send_signal(signal.SIGINT)
            p.wait(timeout=60)  # stuck for good in the old process model: killed below, and fails
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    text = err.read_text()
    assert p.returncode == 130, text[-2000:]
    assert "Press Ctrl-C to stop: with --workers 1 a plugin" in " ".join(text.split()), text[-2000:]
    assert "interrupted" in text and "--resume" in text, text[-2000:]


def test_a_dead_worker_is_named_by_replaying_its_chunks(plugin_dir, monkeypatch):
    """The fallback for a worker that dies anyway (runs.crash.name_crash): the chunks in
    flight are replayed in children until one dies, and its game is named. Here the kernel
    does not fork (as for a built-in strategy), so the crash kills the replaying child."""
    from shedsim.base import isolate
    from shedsim.runs.crash import name_crash

    monkeypatch.setattr(isolate, "can_fork", lambda: False)
    spec = RunSpec(
        preset("shithead"),
        2,
        ("greedy", "segfaulter"),
        ("greedy", "segfaulter"),
        seed=5,
        games=20,
        chunk_size=10,
        strategy_paths=(str(plugin_dir),),
    )
    message, game = name_crash([(None, 0), (spec, 1)])
    assert game == 10, message
    assert "crashed (signal SIGSEGV" in message and "strategy 'segfaulter' at seat " in message, (
        message
    )
    assert "run seed 5, game 10 (deal 5" in message and "--game 10" in message, message


def _records(d, a, b, rules=None, games=200, seed=9):
    return play_chunk(_pair(d, a, b, rules, games, seed), 0, games).records


def _pair(d, a, b, rules=None, games=200, seed=9):
    """Seats ``a`` and ``b`` with the plugins of directory ``d`` (None: the built-in
    strategies only, whose kernel ``shedsim compile`` has compiled)."""
    return RunSpec(
        rules or preset("shithead"),
        2,
        (a, b),
        (a, b),
        seed=seed,
        games=games,
        strategy_paths=(str(d),) if d else (),
    )


def test_a_plugin_draws_from_its_own_stream_and_steers_nobody(plugin_dir):
    """A plugin from outside strategies/ gets its seat's own random stream: rngwriter, which
    writes into its rng at every move, leaves the random opponent the very games it plays
    against greedy (before, rng was the stream the opponent drew from: the same deals gave
    other games, and other places)."""
    a, b = _records(plugin_dir, "rngwriter", "random"), _records(None, "greedy", "random")
    for k in ("places", "moves", "face_up", "end"):
        assert (a[k] == b[k]).all(), k


def test_a_deterministic_plugin_that_writes_its_stream_ends_games_as_greedy_does(plugin_dir):
    """The loop check compares the position (and the shared strategy stream) of games whose
    seats still in are all DETERMINISTIC. rngwriter says it is, plays greedy's moves and
    counts in its rng: it ends the same games at the same move as greedy, proven loops
    included, on the kernel and on the reference engine (before, the counter was in the
    stream the loop check compares: no loop was ever proven, and those games ran to the cap)."""
    from shedsim.analysis.replay import replay_game
    from shedsim.rules.ruleset import build

    rules = build("shithead", ["stall:0", "max_moves:600"])
    a = _records(plugin_dir, "rngwriter", "aggressive", rules, games=120, seed=11)
    b = _records(None, "greedy", "aggressive", rules, games=120, seed=11)
    for k in ("places", "moves", "end"):
        assert (a[k] == b[k]).all(), k
    from shedsim import layout as L

    loops = np.flatnonzero(a["end"] == L.END_LOOP)
    assert len(loops), np.bincount(a["end"])
    g = int(loops[0])  # the same game on the reference engine, as trace plays it
    res = replay_game(
        _pair(plugin_dir, "rngwriter", "aggressive", rules, 120, 11), g, narrate=False
    ).result
    assert res.end == "loop" and res.moves == int(a["moves"][g]), (
        res.end,
        res.moves,
        int(a["moves"][g]),
    )


@pytest.mark.parametrize(
    "name,what",
    [("rngwriter:depth=4", "the game's strategy stream"), ("rngwriter:depth=5", "the deal stream")],
)
def test_a_plugin_that_writes_past_its_own_stream_stops_the_run_named(plugin_dir, name, what):
    """rng[0] is all a plugin owns: the game's strategy stream and the deal stream lie after
    it and are compared after each of its decisions, so a write past it stops the run
    naming the plugin, as a write into the rules does; the trace command reproduces it
    (before, the write went unseen, exit 0)."""
    with pytest.raises(SimulationError) as err:
        play_chunk(_spec(plugin_dir, name), 0, 10)
    msg = str(err.value)
    assert f"strategy {name!r} wrote into {what}" in msg and "past its own stream rng[0]" in msg, (
        msg
    )
    assert "'greedy'" not in msg.split("\n")[0] and "seed 42" in msg, msg
    cmd = msg.splitlines()[-1].split("replay it move by move: ", 1)[1]
    r = CliRunner().invoke(app, shlex.split(cmd)[1:])
    assert r.exit_code == 1 and f"strategy {name!r} wrote into {what}" in r.output, r.output


def test_play_names_a_bot_that_writes_past_its_own_stream(plugin_dir):
    """`shedsim play` lends its bots their own streams as the engine does (a bot's decision
    runs in a forked child: the stream after its own goes there too, and comes back)."""
    r = CliRunner().invoke(
        app,
        [
            "play",
            "--players",
            "2",
            "--opponents",
            "rngwriter:depth=4",
            "--seed",
            "3",
            "--strategy-path",
            str(plugin_dir),
        ],
        input="1\n" * 40,
    )
    assert r.exit_code == 1, r.output
    assert "strategy 'rngwriter:depth=4' wrote into the game's strategy stream" in r.output, (
        r.output
    )


LOOP_LONG = ("sprt", "tune")
"""The loop cases left to ``make test-long`` (their commands meet the crash check in
``make test``)."""
LOOP_RUNS = {
    run: [a.replace("segfaulter", "looper") for a in SEGFAULT_RUNS[run]]
    for run in ("tournament-1-worker", "sprt", "swaps", "tips", "tune", "bench")
}
LOOP_RUNS["trace"] = ["trace", "--strategies", "looper,greedy", "--seed", "5", "--game", "0"]


@pytest.mark.parametrize("run", some(list(LOOP_RUNS), [r for r in LOOP_RUNS if r not in LOOP_LONG]))
def test_every_command_stops_a_plugin_stuck_in_a_loop(plugin_dir, tmp_path, monkeypatch, run):
    """A plugin decision that never ends: every command that plays it (here in one process,
    the kernel's games in a forked child that keeps a beat word per plugin decision) stops
    it after SHEDSIM_DECISION_TIMEOUT seconds and names it as `play` does: strategy, seat,
    move, exit 1 (before, all but play hung until killed)."""
    monkeypatch.setenv("SHEDSIM_DECISION_TIMEOUT", "1")
    args = [a.replace("{out}", str(tmp_path / "o")) for a in LOOP_RUNS[run]]
    quiet = [] if run in ("bench", "trace") else ["--quiet"]
    r = CliRunner().invoke(app, args + quiet + ["--strategy-path", str(plugin_dir)])
    assert r.exit_code == 1, r.output
    assert re.search(
        r"strategy 'looper' at seat \d, choosing move \d+ .*it made no decision within 1 s "
        r"\(SHEDSIM_DECISION_TIMEOUT",
        r.output,
    ), r.output


def test_hint_stops_a_policy_stuck_in_a_loop(plugin_dir, monkeypatch):
    """hint's playouts of a plugin policy run in a forked child, each decision timed by the
    playouts' beat word: one that never ends stops the hint after SHEDSIM_DECISION_TIMEOUT,
    exit 1, naming the policy (before, hint hung). (nonmove at depth 5 loops as looper does:
    the hint tests share nonmove's playouts, one compile.)"""
    monkeypatch.setenv("SHEDSIM_DECISION_TIMEOUT", "1")
    pos = Path(__file__).parents[1] / "docs" / "examples" / "hint_fourth_seven.toml"
    r = CliRunner().invoke(
        app,
        [
            "hint",
            str(pos),
            "--policy",
            "nonmove:depth=5",
            "--budget",
            "10",
            "--batch",
            "10",
            "--strategy-path",
            str(plugin_dir),
        ],
    )
    assert r.exit_code == 1, r.output
    assert (
        "policy 'nonmove:depth=5' in samples 1-10 of the moves of seat 0 (--seed 0): it made no "
        "decision within 1 s" in " ".join(r.output.split())
    ), r.output


@pytest.mark.parametrize("background", [False, True], ids=["foreground", "background-job"])
def test_ctrl_c_stops_hint_with_a_policy_stuck_in_a_loop(plugin_dir, tmp_path, background):
    """Ctrl-C while a plugin policy's playouts are stuck: the child goes with the hint, which
    says it was interrupted, exit 130. SIGINT is sent once the playouts' child exists: to the
    process; or, as a shell starts a background job (``shedsim hint ... &``: SIGINT ignored),
    to its whole process group."""
    import os
    import signal
    import subprocess
    import sys
    import time

    pos = Path(__file__).parents[1] / "docs" / "examples" / "hint_fourth_seven.toml"
    env = dict(os.environ, SHEDSIM_DECISION_TIMEOUT="0")  # no limit: only Ctrl-C stops it
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "shedsim",
            "hint",
            str(pos),
            "--policy",
            "nonmove:depth=5",
            "--budget",
            "10",
            "--batch",
            "10",
            "--strategy-path",
            str(plugin_dir),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        start_new_session=background,
        preexec_fn=lambda: signal.signal(
            signal.SIGINT, signal.SIG_IGN if background else signal.SIG_DFL
        ),
    )
    children = Path(f"/proc/{p.pid}/task/{p.pid}/children")
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not children.read_text().split():
            assert p.poll() is None, p.communicate()
            time.sleep(0.1)
        kid = children.read_text().split()[0]
        time.sleep(1)
        if background:
            os.killpg(p.pid, signal.SIGINT)
        else:
            p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130 and "interrupted: no hint computed" in err, err[-2000:]
    assert not Path(f"/proc/{kid}").exists()  # the playouts' child is gone too


def test_workers_read_the_decision_limit_the_caller_has_now(monkeypatch):
    """A reused worker process keeps the environment it was started with: each call carries
    the caller's SHEDSIM_DECISION_TIMEOUT (before, an sprt in a process whose workers were
    started earlier stopped a stuck plugin after the old limit)."""
    import os
    from shedsim.runs.simulate import run_calls

    seen = []
    for value in ("7", "3"):
        monkeypatch.setenv("SHEDSIM_DECISION_TIMEOUT", value)
        run_calls(
            [(os.getenv, ("SHEDSIM_DECISION_TIMEOUT",))] * 2,
            workers=2,
            on_result=lambda k, r: seen.append(r),
        )
    assert seen == ["7", "7", "3", "3"]


SPOOF = """
from numba import njit
from shedsim import layout as L
from shedsim.kernel.policies import greedy_move, strongest_face_up
__name__ = "strategies.greedy"  # the module name of shedsim's own greedy
NAME = "spoofer"
DESCRIPTION = "a plugin that gives itself a built-in strategy's module name"
DETERMINISTIC = True
PARAMS = {}
@njit
def swap(visible, seat, players, rules, params, rng):
    return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
@njit
def move(obs, rules, params, rng):
    return greedy_move(obs, rules)
"""


def test_trust_is_by_the_file_origin_not_by_a_name_the_plugin_gives(tmp_path):
    """Only shedsim's own strategies (files of the installed ``strategies/`` package) skip
    the kernel's checks; a plugin that sets its module name to ``strategies.greedy``
    (before, trust was read from the module's name) is still checked, guarded and drawn
    from its own stream, and the generated kernel loads its file, not shedsim's greedy.
    No kernel is compiled: the generated source says what each strategy is checked for."""
    from shedsim.kernel.build import kernel_source
    from shedsim.plugins import discover

    (tmp_path / "greedy.py").write_text(SPOOF)  # greedy's file name too
    known = discover([str(tmp_path)])
    spoof, greedy = known["spoofer"], known["greedy"]
    assert spoof.module.__name__ == "strategies.greedy"  # what it claims
    assert spoof.outside and not greedy.outside
    src = kernel_source([greedy, spoof])
    assert "def is_checked(sid):\n    if sid == 0:  # greedy\n        return False\n" in src
    assert "    if sid == 1:  # spoofer\n        return True\n" in src
    # its one-strategy copy of the fast loop checks it too, greedy's does not
    assert "def is_checked_one0(sid):  # greedy\n    return False\n" in src
    assert "def is_checked_one1(sid):  # spoofer\n    return True\n" in src
    assert f"_s1 = load_module({str(spoof.path)!r}" in src
    guarded = "def _move1(obs, rules, params, rng, streams, priv):\n    obs_saved(obs, priv)"
    assert "OUTSIDE = True" in src and guarded in src


def test_an_untrusted_plugin_is_checked_and_trusted_games_are_unchanged(plugin_dir):
    """The legality check and the comparison of the copies are left out for shedsim's own
    strategies only: a plugin's illegal move still stops the run named, and greedy's moves
    through the checked path (the same decisions from a plugin file, ``honest``) give the
    same records, byte for byte, as greedy's own unchecked games on the same seeds."""
    with pytest.raises(SimulationError, match="strategy 'cheater'.*illegal move"):
        play_chunk(_spec(plugin_dir, "cheater"), 0, 10)
    with pytest.raises(SimulationError, match="strategy 'paramcounter' wrote into its param"):
        play_chunk(_spec(plugin_dir, "paramcounter"), 0, 10)
    for players in (2, 4):
        checked = play_chunk(_spec(plugin_dir, "honest", 200, players, 7), 0, 200).records
        trusted = play_chunk(
            RunSpec(
                preset("shithead"),
                players,
                ("greedy", "greedy"),
                ("greedy", "greedy"),
                seed=7,
                games=200,
            ),
            0,
            200,
        ).records
        assert checked.keys() == trusted.keys()
        for k in checked:
            assert checked[k].tobytes() == trusted[k].tobytes(), (players, k)
