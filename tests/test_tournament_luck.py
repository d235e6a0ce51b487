"""The tournament's control variate (``--control-variate``): the head to head less each deal's
luck, its coefficient cross-fitted between two halves of the deals."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.analysis import tournament as T
from shedsim.cli import app
from shedsim.rules.ruleset import preset
from shedsim.stats import cluster_ratio
from shedsim.stats.control import MIN_UNITS, cross_fitted
from tool_module import tool_module


def _halves(rng, k, slope):
    """Sums of ``k`` clusters per half, ``S = 2 + slope[h] * c + noise``, ``M = 4``."""
    out = {x: np.zeros(2) for x in ("n", "s", "m", "c", "ss", "mm", "sm", "cc", "sc", "mc")}
    for h in range(2):
        c = rng.normal(size=k)
        s = 2 + slope[h] * c + rng.normal(scale=0.1, size=k)
        m = np.full(k, 4.0)
        for key, v in (("n", np.ones(k)), ("s", s), ("m", m), ("c", c), ("ss", s * s),
                       ("mm", m * m), ("sm", s * m), ("cc", c * c), ("sc", s * c),
                       ("mc", m * c)):  # fmt: skip
            out[key][h] = v.sum()
    return [out[x] for x in ("n", "s", "m", "c", "ss", "mm", "sm", "cc", "sc", "mc")]


def test_each_half_is_corrected_with_the_other_halfs_coefficient():
    rng = np.random.default_rng(3)
    sums = _halves(rng, 400, slope=(0.2, 0.9))
    *_, beta = cross_fitted(*sums)
    # half 0 (slope 0.2) is corrected with half 1's fit (about 0.9), and the other way round
    assert beta[0] == pytest.approx(0.9, abs=0.05)
    assert beta[1] == pytest.approx(0.2, abs=0.05)


def test_no_luck_leaves_the_raw_sums_and_a_small_half_is_not_fitted():
    rng = np.random.default_rng(4)
    n, s, m, c, ss, mm, sm, cc, sc, mc = _halves(rng, 300, slope=(0.5, 0.5))
    zero = np.zeros(2)
    got = cross_fitted(n, s, m, zero, ss, mm, sm, zero, zero, zero)
    assert np.allclose(got[:6], [n.sum(), s.sum(), m.sum(), ss.sum(), mm.sum(), sm.sum()])
    few = _halves(rng, MIN_UNITS - 1, slope=(0.5, 0.5))
    assert (cross_fitted(*few)[-1] == 0).all()


def test_the_corrected_interval_is_narrower_where_luck_explains_the_score():
    rng = np.random.default_rng(5)
    n, s, m, c, ss, mm, sm, cc, sc, mc = _halves(rng, 500, slope=(0.8, 0.8))
    raw = cluster_ratio(n.sum(), s.sum(), m.sum(), ss.sum(), mm.sum(), sm.sum())
    cv = cluster_ratio(*cross_fitted(n, s, m, c, ss, mm, sm, cc, sc, mc)[:6])
    assert cv.se < raw.se / 3


def _plan(**kw):
    base = dict(rules=preset("shithead"), players=2, games=40)
    base.update(kw)
    strategies = base.pop("strategies", [("greedy", "greedy"), ("random", "random")])
    return T.plan(base.pop("rules"), base.pop("players"), strategies, base.pop("games"), **base)


def test_refused_where_the_correction_does_not_hold(tmp_path):
    with pytest.raises(T.TournamentError, match="--control-variate: it needs 2 players, not 3"):
        _plan(control_variate=True, players=3)
    f = tmp_path / "d.txt"
    r = CliRunner().invoke(app, ["deals", "export", "--out", str(f), "--players", "2",
                                 "--count", "4"])  # fmt: skip
    assert r.exit_code == 0, r.output
    with pytest.raises(T.TournamentError, match="--control-variate: .*not a deal set"):
        _plan(control_variate=True, deals=str(f))


def test_off_keeps_the_key_of_a_run_from_before_the_option():
    off = _plan()
    assert "control_variate" not in off.identity()
    assert _plan(control_variate=True).key() != off.key()


def _run(tmp_path, name, *extra):
    d = tmp_path / name
    args = ["tournament", "--players", "2", "--strategies", "greedy,random,aggressive,expert",
            "--games", "480", "--chunk-size", "96", "--seed", "7", "--control-variate",
            "--out", str(d), "--quiet", "--no-plots", *extra]  # fmt: skip
    return CliRunner().invoke(app, args), d


@pytest.fixture(scope="module")
def cv_run(tmp_path_factory):
    r, d = _run(tmp_path_factory.mktemp("cv"), "full")
    assert r.exit_code == 0, r.output
    return d


def test_the_head_to_head_gains_the_corrected_share(cv_run):
    import pandas as pd

    h = pd.read_csv(cv_run / "head_to_head.csv")
    assert len(h) == 6
    for col in ("share_cv", "share_cv_lo", "share_cv_hi", "se_cv", "p_value_cv", "beta_cv"):
        assert h[col].notna().all(), col
    assert ((h.share_cv_lo <= h.share_cv) & (h.share_cv <= h.share_cv_hi)).all()
    assert ((h.beta_cv >= 0) & (h.beta_cv <= 1)).all()
    # written as p-values (e-notation), so a small one is never a row of zeros
    text = pd.read_csv(cv_run / "head_to_head.csv", dtype=str)
    assert text.p_value_cv.str.fullmatch(r"\d\.\d{4}e[+-]\d+").all(), list(text.p_value_cv)


def test_the_sums_are_the_raw_head_to_heads_less_luck(cv_run):
    """The control variate's per-half sums add up to the raw per-deal sums of every pair."""
    store = T.Store(cv_run)
    spec = T.spec_from_store(store)
    t = store.load_total(spec, list(range(spec.n_chunks)))
    for raw, cv in (("blk_n", "cv_n"), ("blk_s", "cv_s"), ("blk_m", "cv_m"), ("blk_ss", "cv_ss")):
        assert (t[cv].sum(axis=0) == t[raw]).all(), raw
    assert t["cv_cc"].sum() > 0  # luck was measured
    lo, hi = np.triu_indices(len(spec.entries), 1)
    assert (t["cv_n"][:, lo, hi] > 0).all()  # every pair has deals in both halves


def test_resumed_it_gives_the_same_bytes(cv_run, tmp_path):
    r, d = _run(tmp_path, "stopped", "--stop-after", "2")
    assert r.exit_code != 0
    r = CliRunner().invoke(app, ["tournament", "--resume", str(d), "--quiet", "--no-plots"])
    assert r.exit_code == 0, r.output
    assert (d / "head_to_head.csv").read_bytes() == (cv_run / "head_to_head.csv").read_bytes()


# ------------------------------------------------------------------ calibration (make stats-check)
@pytest.fixture(scope="module")
def tool():
    with tool_module("cv_tournament.py") as mod:
        yield mod


def test_an_aa_row_is_the_tournaments_head_to_head(tool, tmp_path):
    import pandas as pd

    row = tool.aa_row("a=random,b=random", 48, 3)
    r = CliRunner().invoke(app, ["tournament", "--players", "2", "--strategies",
                                 "a=random,b=random", "--games", "48", "--seed", "3",
                                 "--control-variate", "--quiet", "--no-plots",
                                 "--out", str(tmp_path / "r")])  # fmt: skip
    assert r.exit_code == 0, r.output
    h = pd.read_csv(tmp_path / "r" / "head_to_head.csv").iloc[0]
    assert row.share_cv == pytest.approx(h.share_cv, abs=1e-4)
    assert row.se_cv == pytest.approx(h.se_cv, abs=1e-4)


@pytest.mark.slow
def test_aa_false_positives_and_coverage_with_the_control_variate(tool):
    """400 A/A tournaments (random against random, 200 deals each): the corrected test's
    false positives stay within 2-8%; 400 tournaments of heuristic against greedy: the
    corrected interval holds the true share (one run of 200,000 games) in 93-97% of them."""
    aa = tool.repeated("a=random,b=random", 400, 400, 0)
    fp = np.mean([r.p_value_cv < 0.05 for r in aa])
    print(f"A/A false positives with the control variate: {fp:.2%}")
    assert 0.02 <= fp <= 0.08
    truth = tool.head_to_head("heuristic,greedy", 200_000, 999, False)[0].iloc[0].share_a_ahead
    cover = tool.repeated("heuristic,greedy", 400, 400, 1000)
    hit = np.mean([r.share_cv_lo <= truth <= r.share_cv_hi for r in cover])
    print(f"coverage of the corrected interval: {hit:.2%} (true share {truth:.4f})")
    assert 0.93 <= hit <= 0.97


@pytest.mark.parametrize(
    "players, strategies, on",
    [
        (2, "mc:rollouts=2,greedy", True),
        (2, "heuristic,greedy", False),
        (3, "mc:rollouts=2,greedy", False),
    ],
)
def test_on_by_default_where_a_search_strategy_is_seated(players, strategies, on):
    from shedsim.analysis.tournament_run import TournamentStudy, entries_of

    study = TournamentStudy(strategies, players)
    assert study._control_variate(players, entries_of(strategies)) is on
    assert (
        TournamentStudy(strategies, players, control_variate=False)._control_variate(
            players, entries_of(strategies)
        )
        is False
    )


def test_a_run_too_short_to_fit_the_coefficient_says_so():
    short = T.luck_fit_shortfall(_plan(games=68, control_variate=True))
    assert short is not None and "--games 80 or more" in short
    assert T.luck_fit_shortfall(_plan(games=80, control_variate=True)) is None
    # and where it says so, the share is indeed uncorrected; from there on it is corrected
    for games, fitted in ((68, False), (80, True)):
        spec = _plan(games=games, control_variate=True, strategies=[("h", "heuristic"),
                                                                     ("g", "greedy")])  # fmt: skip
        row = T.analyse(spec, T.play_total(spec)).head_to_head.iloc[0]
        assert bool(row.beta_cv > 0) == fitted


def test_the_default_stays_off_where_the_games_are_too_few_to_fit_it():
    from shedsim.analysis.tournament_run import TournamentStudy

    for games, on in ((68, False), (80, True)):
        job = TournamentStudy("mc:rollouts=2,greedy", 2, games).plan(None)
        assert job.spec.control_variate is on
    # asked for, it is kept (and the run says why some pairs stay raw)
    assert (
        TournamentStudy("mc:rollouts=2,greedy", 2, 68, control_variate=True)
        .plan(None)
        .spec.control_variate
    )
