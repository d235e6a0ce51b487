"""Hostile compiled plugins: a strategy that writes into the rules or its parameters, or
crashes the process, stops the run with the strategy named (issue 10, part 5).

The kernel hands strategies copies of the rules and parameters and compares them after
each game; the reference engine checks after every decision, so the message names the
strategy whose decision wrote, not the one that next tripped over the changed rules.
All plugins live in one directory so that the tests share one compiled kernel.
"""

from __future__ import annotations

import shlex
import textwrap

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
def plugin_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile_plugins")
    for name, body in PLUGINS.items():
        (d / f"{name}.py").write_text(textwrap.dedent(HEAD.format(name=name)) + textwrap.dedent(body))
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


def test_a_plugin_that_crashes_a_worker_is_named(plugin_dir, tmp_path):
    """A segmentation fault in a loky worker: the run replays the chunks in flight in child
    processes and names the strategy, seat, move, seed, game and deal, with the trace
    command, instead of joblib's bare 'a worker process died'."""
    r = CliRunner().invoke(app, ["tournament", "--strategies", "greedy,segfaulter", "--players", "2",
                                 "--games", "40", "--chunk-size", "10", "--seed", "5", "--workers", "2",
                                 "--quiet", "--no-plots", "--strategy-path", str(plugin_dir),
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 1, r.output
    out = r.output
    assert "a worker process crashed (signal SIGSEGV" in out, out
    assert "strategy 'segfaulter' at seat " in out and "choosing move " in out, out
    assert "run seed 5, game 0 (deal 0" in out and "pile (bottom->top)" in out, out
    cmd = next(ln for ln in out.splitlines() if ln.startswith("replay it move by move: "))
    assert "shedsim trace " in cmd and "--game 0" in cmd and "--seed 5" in cmd


def test_a_crashing_plugin_is_named_with_one_worker_too(plugin_dir, tmp_path):
    """With --workers 1 a plugin from a --strategy-path plays in a child process, so its
    crash is named as well (the run does not die with a bare segfault)."""
    r = CliRunner().invoke(app, ["tournament", "--strategies", "segfaulter,greedy", "--players", "2",
                                 "--games", "40", "--chunk-size", "20", "--seed", "5", "--workers", "1",
                                 "--quiet", "--no-plots", "--strategy-path", str(plugin_dir),
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 1, r.output
    assert "a worker process crashed (signal SIGSEGV" in r.output, r.output
    assert "strategy 'segfaulter' at seat " in r.output and "run seed 5, game 0 (deal 0" in r.output
