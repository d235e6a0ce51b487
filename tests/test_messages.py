"""Messages a person reads in the terminal: a plain-Python plugin that returns the
wrong kind of value is told what it had to return; a run whose chunks stop arriving says so,
names the strategies and how to stop."""

from __future__ import annotations

import io
import textwrap
import time

import pytest
from rich.console import Console

from shedsim import plugins
from shedsim.cli.common import progress_bar
from shedsim.rules import engine
from shedsim.rules.ruleset import preset


def _plugin(tmp_path, swap_body: str, move_body: str):
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "pywrong.py").write_text(
        textwrap.dedent(f"""
        NAME = "pywrong"
        DESCRIPTION = "returns the wrong kind of value"
        DETERMINISTIC = True
        def choose_swap(visible, seat, players, rules, rng):
            {swap_body}
        def choose_move(obs, legal, rng):
            {move_body}
    """)
    )
    known = plugins.discover([d])
    return [known["pywrong"].player(), known["greedy"].player()]


@pytest.mark.parametrize(
    "body", ["return None", "return 'A K Q'", "return [14.0, 13, 12]", "return [1, 99, 3]"]
)
def test_a_wrong_swap_return_says_what_choose_swap_must_return(tmp_path, body):
    players = _plugin(tmp_path, body, "return 0")
    with pytest.raises(engine.StrategyError) as err:
        engine.play_game(preset("shithead"), players, 1, 2)
    msg = str(err.value)
    assert "'pywrong'" in msg and "deal key 1" in msg
    assert "choose_swap must return a list of 3 card ranks" in msg and "it returned" in msg
    assert "not iterable" not in msg and "raised" not in msg


@pytest.mark.parametrize("body", ["return None", "return legal[0]", "return 1.0"])
def test_a_wrong_move_return_says_what_choose_move_must_return(tmp_path, body):
    players = _plugin(tmp_path, "return sorted(visible)[-3:]", body)
    with pytest.raises(engine.StrategyError) as err:
        engine.play_game(preset("shithead"), players, 1, 2)
    msg = str(err.value)
    assert "'pywrong'" in msg and "deal key 1" in msg
    assert "choose_move must return the index of the chosen move in its list of legal moves" in msg


def _bar(stall_after: float):
    buf = io.StringIO()
    return buf, progress_bar(
        Console(file=buf, width=200, force_terminal=False),
        ["greedy", "stuck=myplugin"],
        stall_after=stall_after,
    )


def test_a_run_without_progress_says_so_names_the_strategies_and_how_to_stop():
    buf, bar = _bar(0.2)
    with bar:
        bar.add_task("games", total=100)
        deadline = time.monotonic() + 10
        while "no game has finished" not in buf.getvalue() and time.monotonic() < deadline:
            time.sleep(0.1)
    out = " ".join(buf.getvalue().split())  # the console wraps long lines
    assert "no game has finished for" in out and "endless loop" in out
    assert "greedy, stuck=myplugin" in out and "Ctrl-C" in out and "finished chunk is kept" in out
    assert out.count("no game has finished") == 1  # said once per stall, not every second


def test_a_run_that_progresses_says_nothing():
    buf, bar = _bar(30)
    with bar:
        task = bar.add_task("games", total=10)
        for _ in range(10):
            bar.advance(task, 1)
    assert "no game has finished" not in buf.getvalue()


def test_the_stop_hint_is_honest_about_a_strategy_running_in_this_process(monkeypatch):
    import os

    from shedsim.base import isolate
    from shedsim.runs.execute import stop_hint

    # one local worker: a plugin plays in a forked child, which Ctrl-C stops (the behaviour
    # itself: tests/test_plugin_guard.py::test_ctrl_c_stops_a_stuck_plugin_with_one_worker)
    one = stop_hint(1)
    assert one.startswith(
        "Press Ctrl-C to stop: with --workers 1 a plugin from --strategy-path plays in a child"
    )
    assert "every finished chunk is kept" in one and "cannot interrupt" not in one
    monkeypatch.setattr(isolate, "can_fork", lambda: False)  # no fork: it plays in this process
    one = stop_hint(1)
    assert (
        "Ctrl-C cannot interrupt compiled code" in one
        and f"kill {os.getpid()}" in one
        and "Ctrl-\\" in one
    )
    assert "every finished chunk is kept" in one
    two = stop_hint(2)
    assert two.startswith("Press Ctrl-C to stop.") and "every finished chunk is kept" in two
