"""The statistics package (:mod:`shedsim.stats`) against published values and against the
libraries that implement the same formulas: each test names its source.

Published values: Newcombe (1998) for Wilson's interval, the paired t test of Student's
sleep data as R's ``t.test`` documents it, the LLRs fastchess's tests publish for given
counts (``tests/sprt_test.cpp``), fishtest's bounds, Wald's (1945) operating characteristic
and average sample number. Library identities: statsmodels' cluster-robust and HC2 least
squares, scipy's Welch and Mann-Whitney tests, choix's I-LSR. Randomised inputs use fixed seeds.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

from shedsim import stats
from shedsim.stats import sprt as SP


# ------------------------------------------------------------------ intervals
@pytest.mark.parametrize(
    "k,n,lo,hi",
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_newcombes_table(k, n, lo, hi):
    """R. G. Newcombe, "Two-sided confidence intervals for the single proportion:
    comparison of seven methods", Statistics in Medicine 17, 1998, Table I, method 3
    (Wilson's score interval without continuity correction), to its 4 decimals."""
    got_lo, got_hi = stats.wilson([k], [n])
    assert round(float(got_lo[0]), 4) == lo and round(float(got_hi[0]), 4) == hi


def test_t_interval_and_the_paired_t_test_match_students_sleep_data():
    """The extra hours of sleep of 10 patients under two drugs (Cushny and Peebles, as in
    Student 1908; R's ``sleep`` data): R's ``t.test(extra ~ group, paired = TRUE)`` gives the
    mean difference 1.58, t = 4.0621, df = 9, p = 0.002833, 95% interval [0.7001142, 2.4598858]."""
    d = np.array([1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4])  # drug 2 - drug 1
    mean, lo, hi = stats.t_interval([len(d)], [d.sum()], [(d * d).sum()])
    assert mean[0] == pytest.approx(1.58) and lo[0] == pytest.approx(0.7001142, abs=5e-8)
    assert hi[0] == pytest.approx(2.4598858, abs=5e-8)
    # the paired t test as a stratified mean of the differences with one stratum
    e = stats.stratified_mean(d, np.zeros(len(d), np.int64))
    t, p = e.test()
    assert (
        e.df == 9
        and t == pytest.approx(4.0621, abs=5e-5)
        and p == pytest.approx(0.002833, abs=5e-7)
    )


def test_holm_on_a_worked_example():
    """Holm's step-down rule worked by hand: p = (0.01, 0.04, 0.03, 0.005) sorted are
    0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> 0.06 (kept
    monotone); a NaN stays out of the family."""
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    out = stats.holm([0.01, np.nan, 0.04])
    assert out[0] == pytest.approx(0.02) and np.isnan(out[1]) and out[2] == pytest.approx(0.04)


def test_holm_leaves_the_garbage_collector_as_it_found_it():
    """holm freezes the process's objects for statsmodels' gc.collect() and unfreezes them
    after, but only those it froze: a caller's frozen objects stay frozen."""
    import gc

    assert gc.get_freeze_count() == 0
    stats.holm([0.01, 0.04])
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert stats.holm([0.01, 0.04]) == pytest.approx([0.02, 0.04])
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_subset_selection_on_a_worked_example():
    """Gupta's rule with k = 3 compares each entry with z_{1 - 0.05/2} = 1.96 (the normal
    table): costs 0.20, 0.21, 0.30 with standard errors 0.01 give differences of 0.71 and
    7.07 standard errors from the best (0.5 and 5.0 with the dependent bound se_i + se_j)."""
    cost, se = [0.20, 0.21, 0.30], [0.01, 0.01, 0.01]
    assert stats.not_worse_than_best(cost, se).tolist() == [True, True, False]
    assert stats.not_worse_than_best(cost, se, dependent=True).tolist() == [True, True, False]
    assert stats.not_worse_than_best([0.20, 0.24], se[:2]).tolist() == [
        True,
        False,
    ]  # 2.83 > 1.96 (k - 1 = 1)
    assert stats.not_worse_than_best([0.20, 0.24], se[:2], dependent=True).tolist() == [
        True,
        False,
    ]  # 2.0 > 1.96
    assert stats.not_worse_than_best([0.2, np.nan], [0.01, 0.01]).tolist() == [True, False]


# ------------------------------------------------------------------ clusters
def test_cluster_ratio_is_statsmodels_cluster_robust_mean():
    """The linearised ratio variance n/(n-1) sum (S_b - R M_b)^2 / (sum M_b)^2 (Cochran 1977,
    sec. 6.9) is the cluster-robust standard error of an intercept-only least-squares fit
    with statsmodels' small-sample factor (cov_type="cluster": G/(G-1) (N-1)/(N-K), K = 1)."""
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    m = rng.integers(1, 9, size=120)
    p_b = rng.beta(2, 3, size=120)
    y = np.concatenate([rng.random(k) < p for k, p in zip(m, p_b)]).astype(float)
    groups = np.repeat(np.arange(120), m)
    s = np.bincount(groups, weights=y)
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    r = stats.cluster_ratio(**{k: [v] for k, v in stats.cluster_sums(s, m.astype(float)).items()})
    assert r.share[0] == pytest.approx(fit.params[0]) and r.se[0] == pytest.approx(
        fit.bse[0], rel=1e-10
    )
    rate = stats.cluster_rate(**{k: [v] for k, v in stats.cluster_sums(s, m.astype(float)).items()})
    assert rate.se[0] == pytest.approx(fit.bse[0], rel=1e-10)
    # the design effect (Kish 1965): the cluster-robust variance over the binomial one
    assert rate.deff[0] == pytest.approx(
        fit.bse[0] ** 2 / (y.mean() * (1 - y.mean()) / len(y)), rel=1e-10
    )


def test_stratified_mean_is_the_hc2_mean_of_a_regression_on_the_strata():
    """Cochran's stratified variance with proportional allocation (1977, eqs. 5.6-5.7),
    sum_h n_h/(n_h - 1) sum_h (z - mean_h)^2 / D^2, is the HC2 (MacKinnon and White 1985)
    standard error of the weighted mean of the stratum coefficients of a least-squares fit
    on stratum dummies, for cells of any size (statsmodels), with D - T degrees of freedom."""
    import statsmodels.api as sm

    rng = np.random.default_rng(4)
    strata = np.repeat(np.arange(5), [3, 7, 12, 4, 9])
    z = rng.normal(size=len(strata)) * (1 + strata) + 5 * strata
    e = stats.stratified_mean(z, strata)
    fit = sm.OLS(z, np.eye(5)[strata]).fit(cov_type="HC2")
    w = np.bincount(strata) / len(z)
    assert e.value == pytest.approx(float(w @ fit.params))
    assert e.se == pytest.approx(math.sqrt(w @ fit.cov_params() @ w), rel=1e-10)
    assert e.df == fit.df_resid == len(z) - 5


def test_welch_degrees_of_freedom_are_scipys():
    """Welch-Satterthwaite (Satterthwaite 1946, Welch 1947) from two unstratified means:
    the same t and p as ``scipy.stats.ttest_ind(equal_var=False)``."""
    from scipy.stats import t as student_t
    from scipy.stats import ttest_ind

    rng = np.random.default_rng(6)
    a, b = rng.normal(0, 1, 40), rng.normal(0.5, 3, 25)
    e0, e1 = (
        stats.stratified_mean(a, np.zeros(40, np.int64)),
        stats.stratified_mean(b, np.zeros(25, np.int64)),
    )
    se, df = stats.welch(e0, e1)
    ref = ttest_ind(b, a, equal_var=False)
    t = (e1.value - e0.value) / se
    assert t == pytest.approx(ref.statistic) and 2 * student_t.sf(abs(t), df) == pytest.approx(
        ref.pvalue
    )


def test_van_elteren_with_one_stratum_is_mann_whitney():
    """The stratified Wilcoxon-Mann-Whitney test (van Elteren 1960) with a single stratum is
    ``scipy.stats.mannwhitneyu`` (asymptotic, no continuity correction)."""
    from scipy.stats import mannwhitneyu

    rng = np.random.default_rng(7)
    x1, x0 = rng.normal(0.4, 1, 50), rng.normal(0, 1, 50)
    z, p = stats.stratified_mannwhitney(x1, x0, np.zeros(50, np.int64))
    ref = mannwhitneyu(x1, x0, alternative="two-sided", method="asymptotic", use_continuity=False)
    assert p == pytest.approx(ref.pvalue) and z > 0


# ------------------------------------------------------------------ SPRT
@pytest.mark.parametrize(
    "counts,elo0,elo1,llr",
    [
        ([21184, 40708, 21404], 0.5, 2.5, -1.57),  # logistic trinomial 1 (L, D, W)
        ([57030, 106593, 57433], 0.0, 2.0, -2.59),  # logistic trinomial 2
        (
            [223, 9863, 20279 + 1000, 10037, 246],
            0.5,
            2.5,
            -3.07,
        ),  # logistic pentanomial 1 (LL, LD, WL+DD, WD, WW)
        ([871, 26175, 55003 + 980, 26678, 821], 0.0, 2.0, -4.98),  # logistic pentanomial 2
    ],
)
def test_exact_llr_matches_fastchess_published_values(counts, elo0, elo1, llr):
    """fastchess's tests/sprt_test.cpp ("logistic" model: the maximum-likelihood GSPRT of
    M. Van den Bergh, fishtest's LLR_logistic) publish these LLRs to 2 decimals; the normal
    approximation (fishtest's LLR_alt2) agrees with them at that precision."""
    s0, s1 = SP.elo_to_score(elo0), SP.elo_to_score(elo1)
    assert float(SP.gsprt_llr_mle(counts, s0, s1)) == pytest.approx(llr, abs=0.005)
    assert float(SP.gsprt_llr(counts, s0, s1)) == pytest.approx(llr, abs=0.005)


def test_wald_bounds_are_fishtests():
    """alpha = beta = 0.05: fishtest shows the bounds as (-2.94, 2.94); Wald's B and A
    (1945) are ln(beta / (1 - alpha)) and ln((1 - beta) / alpha)."""
    lo, hi = SP.wald_bounds(0.05, 0.05)
    assert round(lo, 2) == -2.94 and round(hi, 2) == 2.94 and lo == pytest.approx(math.log(1 / 19))
    for a, b in ((0.0, 0.05), (0.05, 1.0), (0.6, 0.5), (math.nan, 0.05)):
        with pytest.raises(ValueError, match="alpha"):
            SP.wald_bounds(a, b)


@pytest.mark.parametrize("alpha,beta", [(0.05, 0.05), (0.05, 0.1), (0.01, 0.2)])
def test_brownian_exit_is_walds_operating_characteristic_and_sample_number(alpha, beta):
    """Wald (1945): an SPRT of a normal mean (known variance, shift delta) started at 0 with
    bounds a = ln(beta/(1 - alpha)), b = ln((1 - beta)/alpha) has, the overshoot ignored,
    P(accept H1) = alpha under H0 and 1 - beta under H1, and average sample numbers
    E_0 n = ((1 - alpha) a + alpha b) / E_0 z and E_1 n = (beta a + (1 - beta) b) / E_1 z, the
    log-likelihood ratio's increments z having mean -+delta^2/2 and variance delta^2."""
    a, b = SP.wald_bounds(alpha, beta)
    delta2 = 0.04
    p0, n0 = SP.brownian_exit(0.0, a, b, -delta2 / 2, delta2)
    p1, n1 = SP.brownian_exit(0.0, a, b, delta2 / 2, delta2)
    assert p0 == pytest.approx(alpha) and p1 == pytest.approx(1 - beta)
    assert n0 == pytest.approx(((1 - alpha) * a + alpha * b) / (-delta2 / 2))
    assert n1 == pytest.approx((beta * a + (1 - beta) * b) / (delta2 / 2))
    # without drift: the gambler's-ruin chance (x - a) / (b - a) and time (x - a)(b - x) / var
    assert SP.brownian_exit(0.0, a, b, 0.0, 2.0) == pytest.approx((-a / (b - a), -a * b / 2.0))


# ------------------------------------------------------------------ against the libraries and
# direct formulas
def test_wilson_and_holm_match_the_libraries():
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = stats.wilson([0, 7, 50], [20, 20, 50])
    for i, (k, n) in enumerate(((0, 20), (7, 20), (50, 50))):
        elo, ehi = proportion_confint(k, n, method="wilson")
        assert lo[i] == pytest.approx(elo) and hi[i] == pytest.approx(ehi)
    # the closed form (Wilson 1927) for 7 of 20
    z, p, n = stats.Z95, 7 / 20, 20
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert lo[1] == pytest.approx(centre - half) and hi[1] == pytest.approx(centre + half)
    p = [0.01, 0.04, 0.03, np.nan]
    out = stats.holm(p)
    assert np.allclose(out[:3], multipletests(p[:3], method="holm")[1]) and np.isnan(out[3])


def test_t_interval_matches_scipy():
    from scipy import stats as ss

    x = np.array([1.0, 2.0, 2.0, 3.5, 4.0, 1.5])
    mean, lo, hi = stats.t_interval([len(x)], [x.sum()], [(x * x).sum()])
    elo, ehi = ss.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=ss.sem(x))
    assert (
        mean[0] == pytest.approx(x.mean())
        and lo[0] == pytest.approx(elo)
        and hi[0] == pytest.approx(ehi)
    )


def test_cluster_ratio_against_direct_formula():
    rng = np.random.default_rng(3)
    m = rng.integers(4, 12, size=300).astype(float)
    s = rng.binomial(m.astype(int), 0.56).astype(float)
    r = stats.cluster_ratio(
        [len(m)], [s.sum()], [m.sum()], [(s * s).sum()], [(m * m).sum()], [(s * m).sum()]
    )
    share = s.sum() / m.sum()
    n = len(m)
    var = n / (n - 1) * ((s - share * m) ** 2).sum() / m.sum() ** 2
    assert r.share[0] == pytest.approx(share) and r.se[0] == pytest.approx(np.sqrt(var))
    from scipy import stats as ss

    assert r.p[0] == pytest.approx(2 * ss.t.sf(abs(share - 0.5) / np.sqrt(var), n - 1))
    # identical clusters: zero variance
    z = stats.cluster_ratio([10, 10], [40, 50], [80, 80], [160, 250], [640, 640], [320, 400])
    assert z.p[0] == 1.0 and z.p[1] == 0.0


def test_cluster_rate_and_mean_against_direct_formulas():
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(5)
    m = rng.integers(2, 9, size=400)
    p_b = rng.beta(2, 3, size=400)  # clusters differ: positively correlated trials
    s = rng.binomial(m, p_b)
    sums = stats.cluster_sums(s, m)
    r = stats.cluster_rate(**{k: [v] for k, v in sums.items()})
    share = s.sum() / m.sum()
    n = len(m)
    var = n / (n - 1) * ((s - share * m) ** 2).sum() / m.sum() ** 2
    assert r.rate[0] == pytest.approx(share) and r.se[0] == pytest.approx(np.sqrt(var))
    deff = var / (share * (1 - share) / m.sum())
    assert deff > 1.5 and r.deff[0] == pytest.approx(deff)
    elo, ehi = proportion_confint(share * m.sum() / deff, m.sum() / deff, method="wilson")
    assert r.lo[0] == pytest.approx(elo) and r.hi[0] == pytest.approx(ehi)
    # wider than the plain Wilson interval over trials, which ignores the clusters
    wlo, whi = stats.wilson([s.sum()], [m.sum()])
    assert r.hi[0] - r.lo[0] > 1.2 * (whi[0] - wlo[0])
    # the same share in every cluster: exact, zero width; a rate of 0: the plain Wilson interval
    z = stats.cluster_rate([10, 10], [10, 0], [20, 20], [10, 0], [40, 40], [20, 0])
    assert (
        z.lo[0] == z.hi[0] == 0.5
        and z.lo[1] == 0.0
        and z.hi[1] == pytest.approx(stats.wilson([0], [20])[1][0])
    )
    # a mean (places 1..4) with the t quantile over clusters, clipped to the bounds
    x = rng.integers(1, 5, size=(300, 4)).astype(float)
    sb, mb = x.sum(axis=1), np.full(300, 4.0)
    mean, lo, hi, se = stats.cluster_mean(
        **{k: [v] for k, v in stats.cluster_sums(sb, mb).items()}, bounds=(1.0, 4.0)
    )
    from scipy import stats as ss

    se_direct = (x.mean(axis=1)).std(ddof=1) / np.sqrt(
        300
    )  # equal clusters: the t interval of cluster means
    assert mean[0] == pytest.approx(x.mean()) and se[0] == pytest.approx(se_direct)
    assert hi[0] - mean[0] == pytest.approx(ss.t.ppf(0.975, 299) * se_direct)


def test_stratified_cluster_variance_leaves_out_fixed_differences_between_strata():
    """Two strata (tables) whose rates differ a lot, each played equally often: the
    within-stratum variance is the one of the design; the unstratified one counts the
    difference between the strata as noise."""
    rng = np.random.default_rng(8)
    h = np.repeat([0, 1], 200)
    m = np.full(400, 4)
    s = rng.binomial(4, np.where(h == 0, 0.1, 0.8))
    per = [stats.cluster_sums(s[h == k], m[h == k]) for k in (0, 1)]
    stacked = {k: np.array([[p[k] for p in per]]) for k in per[0]}
    strat = stats.cluster_rate(**stacked, strata=True)
    plain = stats.cluster_rate(**{k: v.sum(axis=-1) for k, v in stacked.items()})
    r = s.sum() / m.sum()
    u = s - r * m
    var = (
        sum(200 / 199 * ((u[h == k] - u[h == k].mean()) ** 2).sum() for k in (0, 1)) / m.sum() ** 2
    )
    assert strat.rate[0] == pytest.approx(r) and strat.se[0] == pytest.approx(np.sqrt(var))
    assert plain.se[0] > 2 * strat.se[0]
    mean, lo, hi, se = stats.cluster_mean(**stacked, strata=True)
    assert se[0] == pytest.approx(np.sqrt(var))


def test_plackett_luce_cluster_se_against_per_cluster_scores():
    """The sandwich's meat from event counts and within-cluster pairs equals the sum of
    g_b g_b^T over clusters computed cluster by cluster."""
    rng = np.random.default_rng(11)
    e = 3
    events = [((1, 1, 1), w) for w in range(3)] + [
        ((1, 1, 0), 0),
        ((1, 1, 0), 1),
        ((0, 1, 1), 1),
        ((0, 1, 1), 2),
        ((2, 0, 1), 0),
        ((2, 0, 1), 2),
    ]
    sets = np.array([ev[0] for ev in events])
    winners = np.array([ev[1] for ev in events])
    clusters = [rng.integers(0, len(events), size=rng.integers(1, 5)) for _ in range(200)]
    counts = np.bincount(np.concatenate(clusters), minlength=len(events))
    pairs = collections.Counter()
    for c in clusters:
        for i in range(len(c)):
            for j in range(i + 1, len(c)):
                pairs[(min(c[i], c[j]), max(c[i], c[j]))] += 1
    pa, pb = np.array([k[0] for k in pairs]), np.array([k[1] for k in pairs])
    pc = np.array(list(pairs.values()))
    theta = np.array([0.3, -0.1, -0.2])
    se = stats.plackett_luce_cluster_se(theta, sets, winners, counts, pa, pb, pc)
    w = np.exp(theta)
    q = sets * w / (sets @ w)[:, None]
    v = -q
    v[np.arange(len(events)), winners] += 1
    meat = sum(np.outer(v[c].sum(axis=0), v[c].sum(axis=0)) for c in clusters)
    info = sum(counts[j] * (np.diag(q[j]) - np.outer(q[j], q[j])) for j in range(len(events)))
    ip = np.linalg.pinv(info)
    assert se == pytest.approx(np.sqrt(np.diag(ip @ meat @ ip)))
    assert se.shape == (e,) and (se > 0).all()


def test_plackett_luce_matches_choix_on_expanded_data():
    import choix

    rng = np.random.default_rng(7)
    params = np.array([0.8, 0.1, -0.3, -0.6])
    counts = collections.Counter()
    top1 = []
    for _ in range(600):
        # sample a Plackett-Luce order
        left = [0, 1, 2, 3]
        order = []
        while len(left) > 1:
            w = np.exp(params[left])
            pick = left[rng.choice(len(left), p=w / w.sum())]
            top1.append((pick, [i for i in left if i != pick]))
            counts[(tuple(int(i in left) for i in range(4)), pick)] += 1
            left.remove(pick)
            order.append(pick)
    keys = sorted(counts)
    fit = stats.plackett_luce(
        [k[0] for k in keys], [k[1] for k in keys], [counts[k] for k in keys], tol=1e-13
    )
    ref = choix.ilsr_top1(4, top1, alpha=0.01, tol=1e-13)
    assert np.allclose(fit.theta, ref - ref.mean(), atol=1e-9)
    assert fit.converged and np.all(fit.se > 0) and np.argmax(fit.theta) == 0


def test_stratified_mean_matches_a_cell_means_regression():
    """The stratified standard error equals statsmodels OLS on table dummies (equal cells)."""
    import statsmodels.api as sm

    rng = np.random.default_rng(0)
    strata = np.arange(60) % 6
    z = rng.normal(size=60) * (1 + strata) + 10 * strata
    e = stats.stratified_mean(z, strata)
    fit = sm.OLS(z, np.eye(6)[strata]).fit()
    contrast = fit.t_test(np.full((1, 6), 1 / 6))
    assert e.value == pytest.approx(float(contrast.effect[0]))
    assert e.se == pytest.approx(float(contrast.sd[0, 0]))
    assert e.df == fit.df_resid == 54
    lo, hi = contrast.conf_int()[0]
    assert (e.lo, e.hi) == (pytest.approx(lo), pytest.approx(hi))
    # one deal per table: falls back to the unstratified standard error
    e1 = stats.stratified_mean(z[:6], strata[:6])
    assert e1.se == pytest.approx(z[:6].std(ddof=1) / np.sqrt(6)) and e1.df == 5


def test_quantile_interval_is_the_classic_order_statistic_interval_without_clustering():
    from scipy.stats import binom

    rng = np.random.default_rng(1)
    x = rng.integers(50, 500, size=(999, 1))  # one game per deal: no clustering
    est, lo, hi, deff = stats.quantile_interval(x, 0.5)
    s = np.sort(x.ravel())
    assert est == np.quantile(s, 0.5, method="inverted_cdf")
    assert deff == pytest.approx(1.0, abs=0.15) and deff >= 1.0
    if deff == 1.0:
        assert (
            lo == s[int(binom.ppf(0.025, 999, 0.5)) - 1]
            and hi == s[int(binom.ppf(0.975, 999, 0.5))]
        )
    assert lo <= est <= hi
    # perfectly correlated rotations (all N games of a deal equal): deff ~ N, a wider interval
    y = np.repeat(rng.integers(50, 500, size=(250, 1)), 4, axis=1)
    est2, lo2, hi2, deff2 = stats.quantile_interval(y, 0.5)
    _, lo1, hi1, _ = stats.quantile_interval(y.reshape(-1, 1), 0.5)
    assert deff2 > 3 and hi2 - lo2 > hi1 - lo1
