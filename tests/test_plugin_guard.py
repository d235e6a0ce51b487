"""Hostile compiled plugins: a strategy that writes into the rules or its parameters, or
crashes the process, stops the run with the strategy named (issue 10, part 5).

The kernel hands strategies copies of the rules and parameters and compares them after
each game; the reference engine checks after every decision, so the message names the
strategy whose decision wrote, not the one that next tripped over the changed rules.
A plugin that crashes the process (numba checks no bounds) is played in a forked child
(shedsim.kernel.isolate) by every command, and named: strategy, seat, move, run seed,
game, deal and the ``shedsim trace`` command that replays the game.

All plugins live in one directory so that the tests share one compiled kernel, and they
run in the kernel's standard game loop (``INLINE = False``, as heuristic: one loop to
compile for the whole file). The directory has a fixed place in the kernel cache, so that
numba's cache of that kernel serves later runs of this file too.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shedsim.cli import app
from shedsim.rules.engine import StrategyError, play_game
from shedsim.rules.ruleset import preset
from shedsim.runs.simulate import RunSpec, SimulationError, play_chunk

HEAD = """
    from numba import njit
    from shedsim import layout as L
    from shedsim.kernel.policies import greedy_move, strongest_face_up
    NAME = "{name}"
    DESCRIPTION = "hostile test plugin"
    DETERMINISTIC = True
    INLINE = False
    PARAMS = {{"depth": 3}}
"""
PLUGINS = {
    # from its fourth move on, every rank is playable on every top (for everybody)
    "rulebender": """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            for t in range(15):
                rules[L.R_PLAYABLE + t] = 0x7FFF
        return greedy_move(obs, rules)
    """,
    # no rank burns any more, from the swap phase on
    "swapbender": """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        rules[L.R_BURN_MASK] = 0
        return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
    @njit(cache=True)
    def move(obs, rules, params, rng):
        return greedy_move(obs, rules)
    """,
    # counts its decisions in its own parameters (results would depend on the chunk size)
    "paramcounter": """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
    @njit(cache=True)
    def move(obs, rules, params, rng):
        params[0] += 1
        return greedy_move(obs, rules)
    """,
    # from its fourth move on, tells the kernel it has no face-down cards left (the
    # observation is the kernel's own state)
    "obswriter": """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            obs[L.O_FACE_DOWN_N + obs[L.O_SEAT]] = 0
        return greedy_move(obs, rules)
    """,
    # greedy's decisions, played from outside strategies/ (so in a forked child)
    "honest": """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
    @njit(cache=True)
    def move(obs, rules, params, rng):
        return greedy_move(obs, rules)
    """,
    # reads far outside an array from its fourth move on: a segmentation fault
    "segfaulter": """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            return rules[1 << 40]
        return greedy_move(obs, rules)
    """,
}


@pytest.fixture(scope="module")
def plugin_dir():
    """The plugins' directory, under the kernel cache: a file is (atomically) rewritten only
    when its text changed, so the generated kernel and numba's caches stay valid."""
    from shedsim.kernel.build import cache_dir
    from shedsim.runs import atomic
    d = cache_dir() / "tests" / "hostile_plugins"
    d.mkdir(parents=True, exist_ok=True)
    for name, body in PLUGINS.items():
        text = textwrap.dedent(HEAD.format(name=name)) + textwrap.dedent(body)
        f = d / f"{name}.py"
        if not f.exists() or f.read_text() != text:
            atomic.write_text(f, text)
    return d


def _spec(d, name, games=10, players=2, seed=42):
    return RunSpec(preset("shithead"), players, (name, "greedy"), (name, "greedy"), seed=seed, games=games,
                   strategy_paths=(str(d),))


@pytest.mark.parametrize("name,what", [("rulebender", "the rules array"), ("swapbender", "the rules array"),
                                       ("paramcounter", "its parameters array")])
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


def test_a_plugin_that_writes_into_the_observation_stops_the_run_named(plugin_dir):
    """The observation is the kernel's own state: a plugin's move is checked with a hash of
    it before and after, and a write stops the run naming the plugin and its seat."""
    with pytest.raises(SimulationError) as err:
        play_chunk(_spec(plugin_dir, "obswriter"), 0, 10)
    msg = str(err.value)
    assert "strategy 'obswriter'" in msg and "wrote into the observation array" in msg, msg
    assert "seed 42" in msg


def test_engine_blames_the_writer_not_the_next_player(plugin_dir):
    """Before the check, the reference engine named greedy: it was the one whose move was
    illegal under the true rules after rulebender had made every rank playable."""
    from shedsim.plugins import discover
    known = discover([str(plugin_dir)])
    for seats in (("rulebender", "greedy"), ("greedy", "rulebender")):
        players = [known[n].player(n) for n in seats]
        with pytest.raises(StrategyError, match="strategy 'rulebender' wrote into the rules array at move "):
            play_game(preset("shithead"), players, 5, 6, 0)


def test_tournament_with_a_rule_changing_plugin_exits_1_naming_it(plugin_dir, tmp_path):
    r = CliRunner().invoke(app, ["tournament", "--strategies", "greedy,rulebender,random", "--players", "3",
                                 "--games", "60", "--seed", "1", "--workers", "1", "--quiet", "--no-plots",
                                 "--strategy-path", str(plugin_dir), "--out", str(tmp_path / "o")])
    assert r.exit_code == 1, r.output
    assert "strategy 'rulebender' wrote into the rules array" in r.output
    assert not (tmp_path / "o" / "summary.csv").exists()


def test_honest_plugins_are_untouched(plugin_dir):
    """The copies change nothing for strategies that only read: same records as before."""
    spec = RunSpec(preset("shithead"), 3, ("greedy", "random", "heuristic"), ("greedy", "random", "heuristic"),
                   seed=3, games=60, strategy_paths=(str(plugin_dir),))
    a = play_chunk(spec, 0, 60).records
    b = play_chunk(RunSpec(preset("shithead"), 3, ("greedy", "random", "heuristic"), ("greedy", "random", "heuristic"),
                           seed=3, games=60), 0, 60).records
    for k in ("places", "moves", "face_up"):
        assert (a[k] == b[k]).all()


def test_a_plugin_from_outside_plays_in_a_forked_child_with_the_same_results(plugin_dir, monkeypatch):
    """Every kernel call that holds a plugin from outside strategies/ runs in a forked
    child; its records are the ones the same call gives in this process."""
    from shedsim.kernel import isolate
    spec = RunSpec(preset("shithead"), 3, ("greedy", "honest", "heuristic"), ("greedy", "honest", "heuristic"),
                   seed=3, games=60, strategy_paths=(str(plugin_dir),))
    forks = []
    run_forked = isolate.run_forked
    monkeypatch.setattr(isolate, "run_forked", lambda loop: forks.append(1) or run_forked(loop))
    a = play_chunk(spec, 0, 60).records
    assert forks == [1]
    monkeypatch.setattr(isolate, "can_fork", lambda: False)
    b = play_chunk(spec, 0, 60).records
    assert forks == [1]
    for k in a:
        assert (a[k] == b[k]).all(), k


SEGFAULT_RUNS = {
    "tournament-1-worker": ["tournament", "--strategies", "segfaulter,greedy", "--players", "2", "--games", "40",
                            "--chunk-size", "20", "--seed", "5", "--workers", "1", "--no-plots", "--out", "{out}"],
    "tournament-2-workers": ["tournament", "--strategies", "greedy,segfaulter", "--players", "2", "--games", "40",
                             "--chunk-size", "10", "--seed", "5", "--workers", "2", "--no-plots", "--out", "{out}"],
    "sprt": ["sprt", "--a", "segfaulter", "--b", "greedy", "--seed", "5", "--max-games", "40", "--min-games", "0", "--batch", "20"],
    "sprt-compare-pairing": ["sprt", "--a", "greedy", "--b", "segfaulter", "--seed", "5", "--compare-pairing",
                             "--games", "20"],
    "swaps": ["swaps", "--strategy", "segfaulter", "--players", "2", "--games", "20", "--deals", "0", "--seed", "5",
              "--workers", "1", "--no-plots", "--out", "{out}"],
    "tips": ["tips", "--rules", "shithead", "--players", "2", "--tip", "block", "--opponents", "segfaulter",
             "--games", "20", "--seed", "5", "--out", "{out}"],
    "tune": ["tune", "--strategy", "heuristic", "--field", "segfaulter", "--budget", "1", "--games", "20",
             "--confirm-games", "0", "--seed", "5", "--out", "{out}"],
    "bench": ["bench", "--strategy", "segfaulter", "--games", "20", "--seed", "5", "--workers", "1"],
}


@pytest.mark.parametrize("run", list(SEGFAULT_RUNS))
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
    assert re.search(r"during strategy 'segfaulter' at seat [01], choosing move \d+; the position:\n", out), out
    assert re.search(r"run seed 5, game \d+ \(deal \d+, dealer seat \d\)", out) and "pile (bottom->top)" in out, out
    cmd = next(ln for ln in out.splitlines() if ln.startswith("replay it move by move: "))
    assert "shedsim trace " in cmd and "--seed 5" in cmd and "segfaulter" in cmd, cmd
    if run == "sprt":  # the command replays the game, and the crash is named there too
        t = CliRunner().invoke(app, shlex.split(cmd.split(": ", 1)[1])[1:])
        assert t.exit_code == 1 and "'segfaulter' at seat 0, choosing move 4" in t.output, t.output


def test_play_names_a_bot_that_crashes_the_process(plugin_dir):
    """`shedsim play` asks a plugin bot for each decision in a forked child: its crash ends
    the game with exit 1 naming the bot, seat and move (it died with exit 139 before)."""
    r = CliRunner().invoke(app, ["play", "--players", "2", "--opponents", "segfaulter", "--seed", "3",
                                 "--strategy-path", str(plugin_dir)], input="1\n" * 40)
    assert r.exit_code == 1, r.output
    assert re.search(r"strategy 'segfaulter' at seat 1, choosing move \d+: it crashed the process running it "
                     r"\(signal SIGSEGV", r.output), r.output
    assert "[seed 3, game 0]" in r.output


def test_hint_names_a_policy_that_crashes_the_process(plugin_dir):
    """`shedsim hint` plays a plugin policy's playouts in a forked child: exit 1 naming it."""
    pos = Path(__file__).parents[1] / "docs" / "examples" / "hint_fourth_seven.toml"
    r = CliRunner().invoke(app, ["hint", str(pos), "--policy", "segfaulter", "--budget", "10", "--batch", "10",
                                 "--strategy-path", str(plugin_dir)])
    assert r.exit_code == 1, r.output
    assert "policy 'segfaulter' crashed the process playing the playouts (signal SIGSEGV" in r.output, r.output


def test_a_dead_worker_is_named_by_replaying_its_chunks(plugin_dir, monkeypatch):
    """The fallback for a worker that dies anyway (runs.crash.name_crash): the chunks in
    flight are replayed in children until one dies, and its game is named. Here the kernel
    does not fork (as for a built-in strategy), so the crash kills the replaying child."""
    from shedsim.kernel import isolate
    from shedsim.runs.crash import name_crash
    monkeypatch.setattr(isolate, "can_fork", lambda: False)
    spec = RunSpec(preset("shithead"), 2, ("greedy", "segfaulter"), ("greedy", "segfaulter"), seed=5, games=20,
                   chunk_size=10, strategy_paths=(str(plugin_dir),))
    message, game = name_crash([(None, 0), (spec, 1)])
    assert game == 10, message
    assert "crashed (signal SIGSEGV" in message and "strategy 'segfaulter' at seat " in message, message
    assert "run seed 5, game 10 (deal 5" in message and "--game 10" in message, message
