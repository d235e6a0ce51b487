"""Means over deals when the design fixes strata, and the tests built on them.

The schedule plays every table of a tournament equally often: the table is a fixed,
balanced factor of the design, not sampling noise, so a mean over deals gets the
stratified-sampling standard error with the tables as strata (W. G. Cochran, *Sampling
Techniques*, 3rd ed., Wiley 1977, eqs. 5.6 and 5.7: proportional allocation), the ratio
estimator's linearisation (Cochran 1977, sec. 6.9), the Welch-Satterthwaite degrees of
freedom for the difference of two such means (F. E. Satterthwaite, "An approximate
distribution of estimates of variance components", Biometrics Bulletin 2, 1946;
B. L. Welch, "The generalization of 'Student's' problem when several different population
variances are involved", Biometrika 34, 1947), the stratified Wilcoxon-Mann-Whitney test
(P. van Elteren, "On the combination of independent two-sample tests of Wilcoxon", Bull.
Int. Statist. Inst. 37, 1960) and a quantile's order-statistic interval at the effective
sample size (W. J. Conover, *Practical Nonparametric Statistics*, 3rd ed., Wiley 1999,
sec. 3.2; R. S. Woodruff, "Confidence intervals for medians and other position measures",
JASA 47, 1952; L. Kish, *Survey Sampling*, 1965).

Library functions: ``scipy.stats.t``, ``scipy.stats.binom``, ``scipy.stats.mannwhitneyu``,
``scipy.stats.norm``. The stratified standard error equals the HC2 standard error of the
mean from a least-squares fit on the strata (statsmodels), which ``tests/test_stats.py`` checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ALPHA = 0.05
"""The default level: 95% intervals."""


@dataclass(frozen=True)
class Estimate:
    """A mean over deals with its standard error ``se``, degrees of freedom ``df`` and
    the ``1 - ALPHA`` t interval ``lo..hi``."""

    value: float
    se: float
    df: float
    lo: float
    hi: float

    def test(self, null: float = 0.0) -> tuple[float, float]:
        """Two-sided t test of ``value == null``: ``(t, p)`` with ``p = 2 P(T_df > |t|)``
        (``scipy.stats.t.sf``); NaN when ``se`` is 0 or undefined."""
        from scipy.stats import t as student_t

        if not self.se > 0:
            return math.nan, math.nan
        t = (self.value - null) / self.se
        return float(t), float(min(1.0, 2 * student_t.sf(abs(t), self.df)))


def stratified_mean(z: np.ndarray, strata: np.ndarray, alpha: float = ALPHA) -> Estimate:
    """Mean of per-deal values ``z`` (float64[D]) with its standard error under the
    schedule's design, where the table is a fixed factor (every table equally often) and
    the deals within a table are independent: the stratified-sampling variance with
    proportional allocation (Cochran, *Sampling Techniques*, 1977, eqs. 5.6 and 5.7),

        se^2 = sum_h n_h / (n_h - 1) * sum_{b in h} (z_b - mean_h z)^2 / D^2,  df = D - T

    (``strata`` int64[D]: the table of each deal; T tables, ``n_h`` deals at table h).
    Treating the balanced table mix as random would count the differences between tables
    as noise (conservative intervals, tests that almost never reject). Where some table
    has fewer than 2 deals it falls back to the unstratified ``s^2 / D`` with D - 1 df.
    Interval ``mean +- t_{1-alpha/2, df} se`` (``scipy.stats.t.ppf``); NaN for D < 2.
    """
    from scipy.stats import t as student_t

    z = np.asarray(z, dtype=np.float64)
    d = len(z)
    if d == 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, math.nan)
    m = float(z.mean())
    if d < 2:
        return Estimate(m, math.nan, math.nan, math.nan, math.nan)
    n_h = np.bincount(strata, minlength=int(strata.max()) + 1)
    used = n_h > 0
    if np.all(n_h[used] >= 2) and used.sum() < d:
        mean_h = np.bincount(strata, weights=z, minlength=len(n_h))[strata] / n_h[strata]
        ss_h = np.bincount(strata, weights=(z - mean_h) ** 2, minlength=len(n_h))
        var = float((n_h[used] / (n_h[used] - 1) * ss_h[used]).sum()) / (d * d)
        df = float(d - used.sum())
    else:
        var = float(z.var(ddof=1)) / d
        df = float(d - 1)
    se = math.sqrt(max(var, 0.0))
    q = float(student_t.ppf(1 - alpha / 2, df))
    return Estimate(m, se, df, m - q * se, m + q * se)


def ratio_values(losses: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Linearised per-deal values of the ratio ``R = sum L / sum M`` (float64[D]):
    ``z_b = R + (L_b - R M_b) / mean(M)``, whose mean is R and whose variance gives the
    ratio estimator's (Taylor linearisation, Cochran 1977 sec. 6.9). NaN when sum M = 0."""
    tot = float(seats.sum())
    if tot <= 0:
        return np.full(len(losses), np.nan)
    r = float(losses.sum()) / tot
    return r + (losses - r * seats) / (tot / len(losses))


def quantile_interval(
    lengths: np.ndarray, q: float, strata: np.ndarray | None = None, alpha: float = ALPHA
) -> tuple[float, float, float, float]:
    """The ``q`` quantile of game length with a cluster-adjusted order-statistic interval.

    ``lengths``: [D, N] per-deal game lengths. Estimate: the inverse-ECDF quantile
    (``numpy.quantile(method="inverted_cdf")``: order statistic ``x_(ceil(q n))``, n = D N).
    Interval: order statistics ``x_(l), x_(u)`` with ``l = binom.ppf(alpha/2, m, q)``,
    ``u = binom.ppf(1 - alpha/2, m, q) + 1`` (``scipy.stats.binom``; Conover, *Practical
    Nonparametric Statistics*, 1999, sec. 3.2), computed for the effective size
    ``m = floor(n / deff)`` and rescaled to ranks of n. ``deff`` = the variance of the share
    of games at or below the estimate over deals (:func:`stratified_mean` of the per-deal
    shares) / its binomial variance (Woodruff, JASA 47, 1952; Kish, *Survey Sampling*,
    1965), at least 1. Returns ``(estimate, lo, hi, deff)``; NaN for no games.
    """
    from scipy.stats import binom

    x = np.sort(lengths.ravel())
    n = x.size
    if n == 0:
        return (math.nan,) * 4
    d, k = lengths.shape
    est = x[max(1, math.ceil(q * n)) - 1]
    share_b = (lengths <= est).sum(axis=1) / k
    p_hat = float(share_b.mean())
    var_iid = p_hat * (1 - p_hat) / n
    e = stratified_mean(share_b, np.zeros(d, np.int64) if strata is None else strata)
    deff = (e.se**2) / var_iid if var_iid > 0 and e.se == e.se else 1.0
    deff = max(1.0, deff)
    m = max(1, int(n / deff))
    lo_r = float(binom.ppf(alpha / 2, m, q))
    hi_r = float(binom.ppf(1 - alpha / 2, m, q)) + 1
    lo_i = min(n, max(1, math.floor(lo_r * n / m)))
    hi_i = min(n, max(1, math.ceil(hi_r * n / m)))
    return float(est), float(x[lo_i - 1]), float(x[hi_i - 1]), float(deff)


def welch(e0: Estimate, e1: Estimate) -> tuple[float, float]:
    """Standard error and Welch-Satterthwaite degrees of freedom of ``e1 - e0`` for
    independent estimates (Satterthwaite, Biometrics Bulletin 2, 1946)."""
    v0, v1 = e0.se**2, e1.se**2
    se = math.sqrt(v0 + v1)
    den = (v0 * v0 / e0.df if v0 > 0 else 0.0) + (v1 * v1 / e1.df if v1 > 0 else 0.0)
    return se, ((v0 + v1) ** 2 / den if den > 0 else math.nan)


def stratified_mannwhitney(
    x1: np.ndarray, x0: np.ndarray, strata: np.ndarray
) -> tuple[float, float]:
    """Two-sided stratified Wilcoxon-Mann-Whitney test of x1 against x0 (float64[D] each,
    deal b of both at table ``strata[b]``): ``scipy.stats.mannwhitneyu`` (asymptotic,
    tie-corrected, no continuity correction) within each table, its z-score
    ``sign(U - n m / 2) * norm.isf(p / 2)``, combined as ``Z = sum z_h / sqrt(T)``
    (Stouffer), which for tables of equal size is van Elteren's stratified test (van
    Elteren, Bull. Int. Statist. Inst. 37, 1960). Comparing within tables keeps the fixed,
    balanced table mix out of the noise (a pooled test would be conservative). Tables
    whose values are all tied are left out. Returns ``(Z, p)``; NaN if none is left."""
    from scipy.stats import mannwhitneyu, norm

    zs = []
    for h in np.unique(strata):
        a, b = x1[strata == h], x0[strata == h]
        if len(a) == 0 or len(b) == 0 or np.all(np.concatenate([a, b]) == a[0]):
            continue
        r = mannwhitneyu(a, b, alternative="two-sided", method="asymptotic", use_continuity=False)
        if not np.isfinite(r.pvalue):
            continue
        zs.append(float(np.sign(r.statistic - len(a) * len(b) / 2) * norm.isf(r.pvalue / 2)))
    if not zs:
        return math.nan, math.nan
    z = sum(zs) / math.sqrt(len(zs))
    return z, float(2 * norm.sf(abs(z)))
