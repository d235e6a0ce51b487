"""``shedsim sprt --control-variate``: the fitted coefficient (:mod:`shedsim.stats.control`:
fitted on the earlier units only, independent of the batches), the test on the corrected
pair scores (fewer games to the same decision where the rollouts value the players well,
the same result resumed or in other batches), and the refusals where the correction would
not hold. Seeds fixed; nothing asserts on a time."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.analysis import sprt as S
from shedsim.cli import app
from shedsim.stats.control import MIN_UNITS, FittedControlVariate
from tool_module import tool_module


def test_the_coefficient_is_fitted_on_the_earlier_units_only():
    rng = np.random.default_rng(1)
    c = rng.normal(size=300)
    s = 0.6 * c + rng.normal(scale=0.5, size=300)
    f = FittedControlVariate()
    mom = f.feed(s, c)
    # by hand: y_u = s_u - beta_u c_u, beta_u the regression slope over units < u, clipped
    y = np.empty(300)
    for u in range(300):
        b = 0.0
        if u >= MIN_UNITS:
            b = float(np.clip(np.cov(s[:u], c[:u], ddof=0)[0, 1] / c[:u].var(), 0, 1))
        y[u] = s[u] - b * c[u]
    assert np.allclose(mom[:, 1], np.cumsum(y)) and np.allclose(mom[:, 2], np.cumsum(y * y))
    assert 0.5 < f.beta() < 0.7
    assert y[MIN_UNITS:].var() < 0.5 * s[MIN_UNITS:].var()  # most of c's share is gone


def test_units_fed_in_any_batches_give_the_same_moments_to_the_last_bit():
    rng = np.random.default_rng(2)
    s, c = rng.random(500), rng.normal(size=500)
    whole = FittedControlVariate().feed(s, c)
    f = FittedControlVariate()
    parts = np.concatenate([f.feed(s[a:b], c[a:b]) for a, b in ((0, 7), (7, 260), (260, 500))])
    assert (whole == parts).all()


def test_the_coefficient_stays_in_0_1():
    f = FittedControlVariate()
    c = np.arange(40.0) - 20
    f.feed(-3 * c, c)  # a negative slope: clipped to 0
    assert f.beta() == 0.0
    g = FittedControlVariate()
    g.feed(5 * c, c)
    assert g.beta() == 1.0


def test_the_corrected_test_decides_on_fewer_games():
    raw = [S.run_sprt("heuristic", "greedy", seed=s, batch=400) for s in range(3)]
    cv = [
        S.run_sprt("heuristic", "greedy", seed=s, batch=400, control_variate=True) for s in range(3)
    ]
    assert all(r.decision == "H1" for r in raw + cv)
    assert sum(r.games for r in cv) < sum(r.games for r in raw)
    assert all(r.control_variate for r in cv) and not any(r.control_variate for r in raw)


def test_the_corrected_test_does_not_depend_on_the_batch():
    a = S.run_sprt("expert", "heuristic", seed=3, batch=100, control_variate=True, max_games=2000)
    b = S.run_sprt("expert", "heuristic", seed=3, batch=700, control_variate=True, max_games=2000)
    assert a.games == b.games and (a.path_llr == b.path_llr).all()
    assert a.score == b.score and a.lo == b.lo


@pytest.mark.parametrize(
    "args,why",
    [
        (["--players", "3"], "2 players"),
        (["--llr", "mle"], "--llr normal"),
        (["--compare-pairing"], "for the SPRT"),
    ],
)
def test_refused_where_the_correction_does_not_hold(args, why):
    r = CliRunner().invoke(
        app, ["sprt", "--a", "greedy", "--b", "random", "--control-variate", *args]
    )
    assert r.exit_code == 2 and "--control-variate" in r.output and why in r.output


def test_refused_for_a_strategy_that_sees_the_hidden_cards():
    r = CliRunner().invoke(
        app, ["sprt", "--a", "ismcts_cheat", "--b", "greedy", "--control-variate"]
    )
    assert r.exit_code == 2 and "sees the hidden cards" in r.output


@pytest.fixture(scope="module")
def cv_sprt():
    with tool_module("cv_sprt.py") as mod:
        yield mod


def test_aa_intervals_rarely_leave_out_one_half(cv_sprt):
    # the quick version of the calibration below: 40 A/A experiments of 50 pairs
    raw, cor = cv_sprt.intervals("random", "random", 40, 50, 21)
    assert cv_sprt.outside(cor, 0.5) <= 0.1 and cv_sprt.outside(raw, 0.5) <= 0.1
    assert (cor[:, 1] - cor[:, 0] > 0).all()


@pytest.mark.slow
def test_aa_false_positives_and_coverage_with_the_control_variate(cv_sprt):
    """``make stats-check``: 400 A/A experiments (random against random, 100 pairs each): the
    corrected 95% interval leaves out 1/2 in 2-8% of them; 400 experiments of heuristic
    against greedy (100 pairs): it holds the score of 100,000 other pairs in 93-97%."""
    _, cor = cv_sprt.intervals("random", "random", 400, 100, 31)
    assert 0.02 <= cv_sprt.outside(cor, 0.5) <= 0.08
    match = S.open_match("heuristic", "greedy", "shithead", 2, 32)
    codes, _ = S.play_units(match, 0, 100_000, True)
    _, cor = cv_sprt.intervals("heuristic", "greedy", 400, 100, 33)
    assert 0.93 <= 1 - cv_sprt.outside(cor, codes.mean() / 4) <= 0.97


def test_on_by_default_where_a_search_strategy_is_seated():
    from shedsim import api

    quick = dict(max_games=64, min_games=0, batch=32)
    on = api.sprt("mc:rollouts=2", "greedy", **quick)
    assert on.result.control_variate
    off = api.sprt("mc:rollouts=2", "greedy", control_variate=False, **quick)
    assert not off.result.control_variate
    assert not api.sprt("heuristic", "greedy", **quick).result.control_variate
    # where it cannot be used, the default is off rather than refused
    assert not api.sprt("mc:rollouts=2", "greedy", players=3, **quick).result.control_variate
    assert not api.sprt("ismcts_cheat:iterations=4", "greedy", **quick).result.control_variate
