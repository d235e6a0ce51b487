"""Rates, shares and means whose observations come in correlated clusters.

A deal played under every rotation of its table gives each seat several games with the
same cards: those games are correlated, different deals are independent. Every function
here takes per-cluster sufficient statistics (sums over clusters b of a score ``S_b``, a
size ``M_b`` and their squares and cross products, :func:`cluster_sums`) and gives the
ratio estimate ``R = sum S_b / sum M_b`` with its linearised cluster-robust variance:

* W. G. Cochran, *Sampling Techniques*, 3rd ed., Wiley 1977: the ratio estimator's
  variance by Taylor linearisation (sec. 6.9), clusters of unequal size (sec. 9.2) and
  stratified sampling's within-stratum variance (eq. 5.6);
* L. Kish, *Survey Sampling*, Wiley 1965: the design effect ``deff`` (the variance over
  the binomial variance) and the effective sample size ``m / deff``;
* E. L. Korn and B. I. Graubard, "Confidence intervals for proportions with small expected
  number of positive counts estimated from survey data", Survey Methodology 24, 1998: an
  interval for a proportion at the effective sample size (here Wilson's, through
  ``statsmodels.stats.proportion.proportion_confint``).

The same variance is the cluster-robust ("sandwich") variance of an intercept-only least
squares fit with the small-sample factor ``n / (n - 1)`` (statsmodels' ``cov_type="cluster"``,
which ``tests/test_stats.py`` checks it against).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RatioTest:
    """Result of :func:`cluster_ratio`: estimate, standard error, interval, p-value, clusters."""

    share: np.ndarray
    se: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    p: np.ndarray
    clusters: np.ndarray


def cluster_ratio(clusters, s, m, ss, mm, sm, null: float = 0.5, alpha: float = 0.05) -> RatioTest:
    """A share ``R = sum S_b / sum M_b`` over independent clusters b, with a cluster-robust
    interval and a two-sided test of ``R = null`` (arrays, one entry per comparison).

    Each cluster b contributes a score ``S_b`` out of ``M_b`` (here: a deal played under
    every rotation of its table; the rotations share cards, so they are not independent,
    but different deals are). Sufficient statistics: ``clusters`` = number of clusters,
    ``s = sum S_b``, ``m = sum M_b``, ``ss = sum S_b^2``, ``mm = sum M_b^2``,
    ``sm = sum S_b M_b``.

    Linearised (ratio-estimator) variance, Cochran, *Sampling Techniques* (1977) eq. 6.9
    and section 9.2 (clusters of unequal size)::

        var(R) = n / (n - 1) * sum_b (S_b - R M_b)^2 / (sum_b M_b)^2
               = n / (n - 1) * (ss - 2 R sm + R^2 mm) / m^2

    Interval ``R +- t_{1-alpha/2, n-1} se``; p-value ``2 P(T_{n-1} > |R - null| / se)``
    (``scipy.stats.t.sf``). When ``se`` is 0 (every cluster gave the same share) the
    p-value is 1 if ``R == null`` and 0 otherwise.
    """
    from scipy.stats import t as student_t

    n, r, var = ratio_variance(clusters, s, m, ss, mm, sm)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(var)
        df = np.maximum(n - 1, 1)
        q = student_t.ppf(1 - alpha / 2, df)
        lo = np.clip(r - q * se, 0.0, 1.0)
        hi = np.clip(r + q * se, 0.0, 1.0)
        z = np.abs(r - null) / se
        p = np.where(se > 0, 2 * student_t.sf(z, df), np.where(r == null, 1.0, 0.0))
    p = np.where(np.isnan(r) | (n < 2), np.nan, np.minimum(p, 1.0))
    return RatioTest(r, se, lo, hi, p, n)


def cluster_sums(s_b, m_b, axis: int = 0) -> dict[str, np.ndarray]:
    """The sufficient statistics of :func:`cluster_ratio`, :func:`cluster_rate` and
    :func:`cluster_mean` from per-cluster scores ``s_b`` and sizes ``m_b`` (arrays of the
    same shape, clusters along ``axis``): ``clusters`` (clusters with ``m_b > 0``), ``s``,
    ``m``, ``ss``, ``mm``, ``sm`` (int64 when the inputs are integers, else float64).
    Sums of such dicts over disjoint sets of clusters give the dict of their union."""
    s_b = np.asarray(s_b)
    m_b = np.asarray(m_b)
    return {
        "clusters": (m_b > 0).sum(axis=axis),
        "s": s_b.sum(axis=axis),
        "m": m_b.sum(axis=axis),
        "ss": (s_b * s_b).sum(axis=axis),
        "mm": (m_b * m_b).sum(axis=axis),
        "sm": (s_b * m_b).sum(axis=axis),
    }


def ratio_variance(n, s, m, ss, mm, sm, strata: bool = False):
    """Ratio estimate ``R = s / m`` and its linearised cluster-robust variance (see
    :func:`cluster_ratio`); NaN variance for fewer than 2 clusters.

    ``strata``: the inputs carry a last axis of strata (fixed groups of clusters, each
    sampled on its own: the tournament's table combinations, played equally often by
    design). The variance is then the within-stratum one, Cochran (1977) eq. 5.6 on the
    linearised values ``u_b = S_b - R M_b``::

        var(R) = sum_h n_h / (n_h - 1) * (sum_h' u_b^2 - (sum_h' u_b)^2 / n_h) / m^2

    which leaves out the differences between strata that the design fixes (a strategy's
    loss rate differs a lot between the tables it plays at; counting that as noise makes
    intervals too wide). When some stratum in use has fewer than 2 clusters it falls back
    to the unstratified variance. Returns totals over the strata.
    """
    n = np.asarray(n, dtype=np.float64)
    s, m, ss, mm, sm = (np.asarray(x, dtype=np.float64) for x in (s, m, ss, mm, sm))
    if strata:
        nh, sh, mh, ssh, mmh, smh = n, s, m, ss, mm, sm
        n, s, m, ss, mm, sm = (x.sum(axis=-1) for x in (nh, sh, mh, ssh, mmh, smh))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(m > 0, s / m, np.nan)
        resid = np.maximum(ss - 2 * r * sm + r * r * mm, 0.0)
        # exact zero when every cluster has the same share (floating sums may leave a speck)
        resid = np.where(resid <= 1e-12 * np.maximum(ss, 1.0), 0.0, resid)
        var = np.where(n > 1, n / (n - 1) * resid / (m * m), np.nan)
        if strata:
            rr = r[..., None]
            su = sh - rr * mh
            suu = np.maximum(ssh - 2 * rr * smh + rr * rr * mmh, 0.0)
            within = np.where(
                nh > 0, np.maximum(suu - su * su / np.where(nh > 0, nh, 1.0), 0.0), 0.0
            )
            within = np.where(within <= 1e-12 * np.maximum(ssh, 1.0), 0.0, within)
            ok = np.all((nh >= 2) | (nh == 0), axis=-1) & (n > (nh > 0).sum(axis=-1))
            var_s = (np.where(nh >= 2, nh / np.where(nh >= 2, nh - 1, 1.0) * within, 0.0)).sum(
                axis=-1
            ) / (m * m)
            var = np.where(ok, var_s, var)
    return n, r, var


@dataclass(frozen=True)
class ClusterRate:
    """Result of :func:`cluster_rate` (arrays): the rate, its cluster-robust standard
    error, the 95% interval, the design effect and the number of clusters."""

    rate: np.ndarray
    se: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    deff: np.ndarray
    clusters: np.ndarray


def cluster_rate(
    clusters, s, m, ss, mm, sm, alpha: float = 0.05, strata: bool = False
) -> ClusterRate:
    """A rate ``R = sum S_b / sum M_b`` (successes over trials) whose trials come in
    correlated clusters (the rotations of one deal share its cards), with a Wilson
    interval at the design-effect-adjusted sample size (arrays; sufficient statistics as
    in :func:`cluster_ratio`, see :func:`cluster_sums`).

    The variance of R is the linearised cluster-robust one of :func:`cluster_ratio`
    (Cochran 1977, sec. 6.9). The design effect ``deff = var / (R (1 - R) / m)`` (Kish,
    *Survey Sampling*, 1965) gives the effective number of trials ``m / deff``, and the
    interval is the Wilson interval of ``R`` over that many trials (``statsmodels``'s
    ``proportion_confint(method="wilson")`` on the effective counts; Korn and Graubard,
    Survey Methodology 24, 1998, do the same with the Clopper-Pearson interval). It keeps
    Wilson's behaviour near 0 and 1 and gets the width of the clustered variance.

    ``strata``: the inputs have a last axis of strata; the variance is the within-stratum
    one (see :func:`ratio_variance`) and the results are for the totals.

    Special cases: fewer than 2 clusters: NaN interval; ``R`` of 0 or 1 (no variance to
    measure): the plain Wilson interval over ``m`` trials (deff 1); a variance of exactly
    0 with ``0 < R < 1`` (every cluster had the same share: the value is exact, e.g. an
    entry against an identical deterministic copy of itself): an interval of zero width.
    """
    from statsmodels.stats.proportion import proportion_confint

    n, r, var = ratio_variance(clusters, s, m, ss, mm, sm, strata)
    m = np.asarray(m, dtype=np.float64)
    if strata:
        m = m.sum(axis=-1)
    lo = np.full(r.shape, np.nan)
    hi = np.full(r.shape, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        binom = r * (1 - r) / m
        deff = np.where((binom > 0) & (n > 1), var / binom, np.where(n > 1, 1.0, np.nan))
        n_eff = np.where(deff > 0, m / deff, np.inf)
    ok = (n > 1) & np.isfinite(n_eff) & (m > 0)
    if np.any(ok):
        lo_ok, hi_ok = proportion_confint(
            r[ok] * n_eff[ok], n_eff[ok], alpha=alpha, method="wilson"
        )
        lo[ok] = np.clip(lo_ok, 0.0, 1.0)
        hi[ok] = np.clip(hi_ok, 0.0, 1.0)
    exact = (n > 1) & (m > 0) & ~np.isfinite(n_eff)
    lo[exact] = r[exact]
    hi[exact] = r[exact]
    return ClusterRate(r, np.sqrt(var), lo, hi, deff, n)


def cluster_mean(
    clusters,
    s,
    m,
    ss,
    mm,
    sm,
    bounds: tuple[float, float] = (-np.inf, np.inf),
    alpha: float = 0.05,
    strata: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A mean ``R = sum S_b / sum M_b`` of ``sum M_b`` observations (a mean place: S_b the
    summed places of M_b seat-games) in correlated clusters, with the linearised
    cluster-robust variance of :func:`cluster_ratio` and the Student t interval
    ``R +- t_{1-alpha/2, n-1} se`` (n clusters, ``scipy.stats.t``), clipped to ``bounds``.
    Returns ``(mean, lo, hi, se)`` (arrays); a standard error of exactly 0 (every cluster
    had the same mean) gives an interval of zero width; NaN for fewer than 2 clusters.
    ``strata``: as in :func:`cluster_rate` (t quantile with clusters - strata df)."""
    from scipy.stats import t as student_t

    n, r, var = ratio_variance(clusters, s, m, ss, mm, sm, strata)
    if strata:
        used = (np.asarray(clusters) > 0).sum(axis=-1)
        n = np.where(n > used, n - used + 1, n)  # df = n - 1 below: clusters - strata
    se = np.sqrt(var)
    with np.errstate(invalid="ignore"):
        q = student_t.ppf(1 - alpha / 2, np.maximum(n - 1, 1))
        lo = np.clip(r - q * se, *bounds)
        hi = np.clip(r + q * se, *bounds)
    return r, lo, hi, se
