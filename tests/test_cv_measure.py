"""tools/cv_measure.py, the control-variate measurement: its replay of traced games reaches
the recorded places, and both corrections (the learned value's, the rollouts') have mean zero
on independent games (fixed seeds)."""

from __future__ import annotations

import math

import pytest
from tool_module import tool_module


@pytest.fixture(scope="module")
def cv():
    with tool_module("cv_measure.py") as mod:
        yield mod


def test_replay_reaches_the_recorded_places_and_corrects_every_draw(cv):
    # play() raises SystemExit where a traced game's replay misses its recorded places
    r = cv.play("heuristic", "greedy", 300, seed=11, batch=600, trace_len=1000)
    assert len(r["score"]) == 600 and (r["moves"] <= 1000).all()
    assert (r["draws"] == 34).all()  # 52 cards, 18 dealt: the whole stock is drawn
    # at 2 players a pair's two corrections are X's, of opposite seats: finite, not all zero
    assert (r["corr"] != 0).any() and all(map(math.isfinite, r["corr"]))


def test_correction_has_mean_zero_on_independent_games(cv):
    r = cv.play("greedy", "greedy", 4000, seed=12, batch=4000, trace_len=1000, paired=False)
    for corr in (r["corr"], r["rollout"]):
        f = cv.compare(r["score"], corr)
        assert abs(f["c_mean"]) < 4 * f["c_se"]
        assert abs(f["mean_cv"] - f["mean"]) < 4 * f["c_se"]
    # greedy's own rollouts value greedy's games well: most of the variance goes
    assert cv.compare(r["score"], r["rollout"])["ratio"] > 2


def test_refuses_rules_or_strategies_where_it_would_not_hold(cv, monkeypatch):
    monkeypatch.setattr(cv, "applies", lambda ra: False)
    with pytest.raises(SystemExit, match="does not apply"):
        cv.play("greedy", "greedy", 2, seed=0, batch=4, trace_len=10)
