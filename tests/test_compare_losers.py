"""compare-rules where games end without a loser, and the numbers its findings quote: the
measures that need games with a loser, fairness against a moving fair share, rate intervals
within their range, one count of significant comparisons and p-values that agree with their
verdicts."""

from __future__ import annotations

import re

import numpy as np

from shedsim.analysis import compare as C
from shedsim.output.kinds import format_p
from shedsim.output.spec import _comparisons

ENTRIES = [("random", "random"), ("greedy", "greedy")]


def _tally(rng, deals, n, decided, p_start, p_random=0.7):
    """A made-up tally of ``deals`` deals of ``n`` games, ``decided[b]`` of deal b's games
    with a loser (the others unfinished); the starter loses each decided game with
    probability ``p_start``, random with ``p_random``."""
    t = C.Tally.empty(deals, n, 2, 5000)
    t.lengths[:] = np.round(rng.gamma(2.0, 70.0, size=(deals, n))).astype(np.int64) + 20
    for b in range(deals):
        t.unfinished[b, decided[b] :] = True
    t.starter_lost[:] = rng.binomial(decided, p_start)
    lost = rng.binomial(decided, p_random)
    t.losses[:, 0], t.losses[:, 1] = lost, decided - lost
    t.done[:] = True
    return t


def _no_losers():
    """shithead with 3 unfinished games of 264; a variant in which no game has a loser; one
    with 5 games with a loser (fewer than 5 x 2)."""
    rng = np.random.default_rng(1)
    n, deals = 2, 132
    plan = C.plan_variants(["shithead", "shithead+stall:0", "shithead+stall:250"], players=n)
    base = np.full(deals, n)
    base[:3] = 1
    few = np.zeros(deals, np.int64)
    few[:5] = 1
    tallies = [
        _tally(rng, deals, n, base, 0.4),
        _tally(rng, deals, n, np.zeros(deals, np.int64), 0.4),
        _tally(rng, deals, n, few, 0.4),
    ]
    return C.analyse(plan, ENTRIES, tallies)


def test_without_games_with_a_loser_the_starter_and_the_skill_edges_are_not_measured():
    res = _no_losers()
    v = res.variants.set_index("variant")
    assert list(v["loser_games"]) == [261, 0, 5]
    assert list(v["starter_verdict"])[1:] == ["no games with a loser", "too few games with a loser"]
    for col in ("starter_loss_rate", "starter_loss_share", "skill_edge[greedy]"):
        assert v[col].iloc[1:].isna().all() and v[col].iloc[0] > 0, col
    # the undefined tests are left out of the starter's family: the baseline's stands alone
    assert v["starter_loss_p_holm"].iloc[0] == v["starter_loss_p_value"].iloc[0]
    e = res.effects.set_index(["variant", "metric"])
    for lab in ("shithead+stall:0", "shithead+stall:250"):
        for metric in ("starter_loss_rate", "starter_loss_share", "skill_edge[greedy]"):
            r = e.loc[(lab, metric)]
            assert r["test"].startswith("not tested: fewer than 5 x 2 games with a loser")
            assert np.isnan(r["effect"]) and np.isnan(r["p_holm"]) and not r["significant_any"]
    h = res.headline()
    for line in h[1:]:
        assert not re.search(r"fairer|less fair|more luck|more skill", line), line


def test_a_baseline_without_games_with_a_loser_is_said_so():
    rng = np.random.default_rng(2)
    plan = C.plan_variants(["shithead+stall:0", "shithead"], players=2)
    tallies = [
        _tally(rng, 60, 2, np.zeros(60, np.int64), 0.4),
        _tally(rng, 60, 2, np.full(60, 2), 0.4),
    ]
    h = C.analyse(plan, ENTRIES, tallies).headline()
    assert h[0].startswith(
        "Under shithead+stall:0 the start's fairness is not measured: no games with a loser"
    )
    assert "nan" not in h[0]


def test_every_rate_effect_interval_lies_within_its_range():
    """The stall:0 variant's unfinished rate is 100% against the baseline's 1.1%: its t
    interval ran past +100 percentage points."""
    e = _no_losers().effects
    rates = e[e["metric"].str.endswith(("_rate", "_share"))].dropna(subset=["effect"])
    assert ((rates["lo"] >= -1) & (rates["hi"] <= 1)).all()
    unf = e.set_index(["variant", "metric"]).loc[("shithead+stall:0", "unfinished_rate")]
    assert unf["hi"] == 1.0 and unf["lo"] < unf["effect"] < 1.0


def test_fairer_is_judged_by_the_share_of_the_games_with_a_loser():
    """Half the variant's games end without a loser. The starter's loss rate moves toward
    its (halved) fair share, 17% against 25% where it was 40% against 50%, yet among the
    games with a loser it loses 34% where it lost 40%, fair being 50%: less fair."""
    rng = np.random.default_rng(3)
    n, deals = 2, 6000
    plan = C.plan_variants(["shithead", "shithead+pickup:always"], players=n)
    tallies = [
        _tally(rng, deals, n, np.full(deals, 2), 0.40),
        _tally(rng, deals, n, np.full(deals, 1), 0.34),
    ]
    res = C.analyse(plan, ENTRIES, tallies)
    v = res.variants.set_index("variant")
    gap = (v["starter_loss_rate"] - v["starter_fair_rate"]).abs()
    assert gap.iloc[1] < gap.iloc[0]  # the raw rate alone would read "fairer"
    assert v["starter_loss_share"].iloc[1] < v["starter_loss_share"].iloc[0] < 0.5
    line = res.headline()[1]
    assert "less fair: the starter's advantage grows" in line, line
    assert "fairer" not in line.replace("less fair", "")
    assert "of the games with a loser against a fair share of 50.00%" in line


def test_one_count_of_significant_comparisons():
    """The console and headline count a comparison significant by any of its tests; the
    report's specification and run.json count the same. The variant's typical game is
    longer with the same mean: significant by its median test alone."""
    rng = np.random.default_rng(4)
    n, deals = 2, 3000
    plan = C.plan_variants(["shithead", "shithead+skip8"], players=n)
    tallies = [_tally(rng, deals, n, np.full(deals, 2), 0.4) for _ in range(2)]
    base = tallies[0].lengths.astype(np.float64)
    longer = base.copy()
    short = base <= np.quantile(base, 0.8)
    longer[short] *= 1.2
    longer[~short] -= (longer[short] - base[short]).sum() / (~short).sum()
    tallies[1].lengths[:] = np.round(longer)
    res = C.analyse(plan, ENTRIES, tallies)
    e = res.effects
    any_sig = e["significant"] | e["significant_rank"] | e["significant_median"]
    assert (e["significant_any"] == any_sig).all() and any_sig.sum() > e["significant"].sum()
    assert res.info["significant_effects"] == int(any_sig.sum())
    assert res.headline()[-1].startswith(f"{int(any_sig.sum())} of {len(e)} comparisons")
    assert _comparisons(res.info) == (
        f"{len(e)}, {int(any_sig.sum())} significant by any of their tests (Holm-corrected, 5%)"
    )


def test_printed_p_values_agree_with_their_verdict():
    assert format_p(0.0496) == "0.0496" and float(format_p(0.0496)) < 0.05
    assert format_p(0.0504) == "0.05"  # not below 0.05: not significant, as printed
    assert format_p(0.04999999) == "< 0.05"
    assert format_p(0.067) == "0.067" and format_p(2.94e-20) == "2.9e-20"
    assert format_p(0.0) == "< 1e-300" and format_p(float("nan")) == "-"
    assert C.format_p(0.0496) == "0.0496"


def test_a_share_s_effect_reads_in_percentage_points_like_a_rate_s():
    from shedsim.analysis.compare.words import format_effect
    from shedsim.output.kinds import rate_like

    assert format_effect("starter_loss_share", -0.0128, -0.017, -0.009) == (
        "-1.28 pp [-1.70, -0.90]"
    )
    assert rate_like("unfinished_rate") and rate_like("skill_edge[greedy]")
    assert not rate_like("pickups_per_game") and not rate_like("mean_moves")
