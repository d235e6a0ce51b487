"""Statistics for tournaments: intervals, tests, multiple-comparison correction, ratings.

Every function here works on *aggregated counts* (integers summed over chunks), never on
per-game records, so a tournament's memory does not grow with its number of games and
its results do not depend on how the games were split into chunks. All functions are
deterministic: the same counts give the same floats, bit for bit.

Libraries used (no hand-rolled replacements):

* Wilson score interval: :func:`statsmodels.stats.proportion.proportion_confint`
  with ``method="wilson"`` (Wilson, JASA 22, 1927).
* Student t quantiles and tail areas: :mod:`scipy.stats`.
* Holm's step-down correction: :func:`statsmodels.stats.multitest.multipletests`
  with ``method="holm"`` (Holm, Scand. J. Statist. 6, 1979).
* Plackett-Luce fit: the stationary distribution of the Luce Spectral Ranking Markov
  chain from :mod:`choix` (``choix.utils.statdist``; Maystre and Grossglauser, "Fast and
  accurate inference of Plackett-Luce models", NIPS 2015), iterated to the maximum
  likelihood estimate (I-LSR), with the chain built from counted events rather than a
  list of single observations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
"""The 97.5% quantile of the standard normal distribution."""

ELO_PER_THETA = 400.0 / math.log(10.0)
"""Elo points per unit of Plackett-Luce log-strength: with ratings ``R = ELO_PER_THETA *
theta``, the model's chance that A finishes ahead of B when only they remain is
``1 / (1 + 10 ** ((R_B - R_A) / 400))``, the Elo formula."""


def wilson(successes, trials, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for binomial proportions ``successes / trials`` (arrays).

    Wilson (1927): the set of p whose score test does not reject at level ``alpha``,
    ``(k + z^2/2 +- z sqrt(k(n-k)/n + z^2/4)) / (n + z^2)``. Computed by
    ``statsmodels.stats.proportion.proportion_confint(..., method="wilson")``. Trials of 0
    give NaN bounds.
    """
    from statsmodels.stats.proportion import proportion_confint
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    lo = np.full(k.shape, np.nan)
    hi = np.full(k.shape, np.nan)
    ok = n > 0
    if np.any(ok):
        lo_ok, hi_ok = proportion_confint(k[ok], n[ok], alpha=alpha, method="wilson")
        lo[ok] = np.clip(lo_ok, 0.0, 1.0)
        hi[ok] = np.clip(hi_ok, 0.0, 1.0)
    return lo, hi


def t_interval(n, total, total_sq, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and Student t interval from sufficient statistics (arrays).

    ``n`` observations with sum ``total`` and sum of squares ``total_sq``: mean
    ``m = total / n``, sample variance ``s^2 = (total_sq - n m^2) / (n - 1)``, interval
    ``m +- t_{1-alpha/2, n-1} s / sqrt(n)`` (quantile from ``scipy.stats.t.ppf``).
    Returns ``(mean, lo, hi)``; NaN where ``n < 2`` (mean NaN where ``n == 0``).
    """
    from scipy.stats import t as student_t
    n = np.asarray(n, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    total_sq = np.asarray(total_sq, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total / n, np.nan)
        var = np.where(n > 1, np.maximum(total_sq - n * mean * mean, 0.0) / (n - 1), np.nan)
        half = student_t.ppf(1 - alpha / 2, np.maximum(n - 1, 1)) * np.sqrt(var / n)
    return mean, mean - half, mean + half


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
    n, r, var = _ratio_var(clusters, s, m, ss, mm, sm)
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
    return {"clusters": (m_b > 0).sum(axis=axis), "s": s_b.sum(axis=axis), "m": m_b.sum(axis=axis),
            "ss": (s_b * s_b).sum(axis=axis), "mm": (m_b * m_b).sum(axis=axis), "sm": (s_b * m_b).sum(axis=axis)}


def _ratio_var(n, s, m, ss, mm, sm, strata: bool = False):
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
            within = np.where(nh > 0, np.maximum(suu - su * su / np.where(nh > 0, nh, 1.0), 0.0), 0.0)
            within = np.where(within <= 1e-12 * np.maximum(ssh, 1.0), 0.0, within)
            ok = np.all((nh >= 2) | (nh == 0), axis=-1) & (n > (nh > 0).sum(axis=-1))
            var_s = (np.where(nh >= 2, nh / np.where(nh >= 2, nh - 1, 1.0) * within, 0.0)).sum(axis=-1) / (m * m)
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


def cluster_rate(clusters, s, m, ss, mm, sm, alpha: float = 0.05, strata: bool = False) -> ClusterRate:
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
    one (see :func:`_ratio_var`) and the results are for the totals.

    Special cases: fewer than 2 clusters: NaN interval; ``R`` of 0 or 1 (no variance to
    measure): the plain Wilson interval over ``m`` trials (deff 1); a variance of exactly
    0 with ``0 < R < 1`` (every cluster had the same share: the value is exact, e.g. an
    entry against an identical deterministic copy of itself): an interval of zero width.
    """
    from statsmodels.stats.proportion import proportion_confint
    n, r, var = _ratio_var(clusters, s, m, ss, mm, sm, strata)
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
        lo_ok, hi_ok = proportion_confint(r[ok] * n_eff[ok], n_eff[ok], alpha=alpha, method="wilson")
        lo[ok] = np.clip(lo_ok, 0.0, 1.0)
        hi[ok] = np.clip(hi_ok, 0.0, 1.0)
    exact = (n > 1) & (m > 0) & ~np.isfinite(n_eff)
    lo[exact] = r[exact]
    hi[exact] = r[exact]
    return ClusterRate(r, np.sqrt(var), lo, hi, deff, n)


def cluster_mean(clusters, s, m, ss, mm, sm, bounds: tuple[float, float] = (-np.inf, np.inf),
                 alpha: float = 0.05, strata: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A mean ``R = sum S_b / sum M_b`` of ``sum M_b`` observations (a mean place: S_b the
    summed places of M_b seat-games) in correlated clusters, with the linearised
    cluster-robust variance of :func:`cluster_ratio` and the Student t interval
    ``R +- t_{1-alpha/2, n-1} se`` (n clusters, ``scipy.stats.t``), clipped to ``bounds``.
    Returns ``(mean, lo, hi, se)`` (arrays); a standard error of exactly 0 (every cluster
    had the same mean) gives an interval of zero width; NaN for fewer than 2 clusters.
    ``strata``: as in :func:`cluster_rate` (t quantile with clusters - strata df)."""
    from scipy.stats import t as student_t
    n, r, var = _ratio_var(clusters, s, m, ss, mm, sm, strata)
    if strata:
        used = (np.asarray(clusters) > 0).sum(axis=-1)
        n = np.where(n > used, n - used + 1, n)  # df = n - 1 below: clusters - strata
    se = np.sqrt(var)
    with np.errstate(invalid="ignore"):
        q = student_t.ppf(1 - alpha / 2, np.maximum(n - 1, 1))
        lo = np.clip(r - q * se, *bounds)
        hi = np.clip(r + q * se, *bounds)
    return r, lo, hi, se


def not_worse_than_best(cost, se, alpha: float = 0.05, dependent: bool = False) -> np.ndarray:
    """Which of k estimates (``cost``, lower is better, with standard errors ``se``;
    float arrays) are not significantly worse than any other: ``bool[k]``.

    Gupta's subset selection (Gupta, Technometrics 7, 1965) with normal-approximation
    comparisons and a Bonferroni correction over the k - 1 comparisons each entry faces:
    entry i is left out when some j has ``(cost_i - cost_j) / sqrt(se_i^2 + se_j^2) >
    z_{1 - alpha / (k - 1)}`` (``scipy.stats.norm.isf``). For independent estimates the
    subset holds the truly best entry with probability at least ``1 - alpha``, so it
    corrects for picking the best out of many noisy ones: the single lowest estimate is
    only the best of the subset. ``dependent``: the estimates may be correlated in any
    way (entries that share games: when one loses the others do not, so their loss rates
    are negatively correlated and the independent formula understates the difference's
    error); the difference's standard error is then bounded by ``se_i + se_j``
    (Cauchy-Schwarz), which keeps the guarantee. Entries with a NaN estimate or standard
    error are left out (False); a difference with a standard error of 0 counts as exact."""
    from scipy.stats import norm
    c = np.asarray(cost, dtype=np.float64)
    e = np.asarray(se, dtype=np.float64)
    ok = ~(np.isnan(c) | np.isnan(e))
    out = np.zeros(c.shape, np.bool_)
    k = int(ok.sum())
    if k == 0:
        return out
    if k == 1:
        out[ok] = True
        return out
    ci, ei = c[ok], e[ok]
    diff = ci[:, None] - ci[None, :]
    sd = ei[:, None] + ei[None, :] if dependent else np.sqrt(ei[:, None] ** 2 + ei[None, :] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, diff / np.where(sd > 0, sd, 1.0), np.where(diff > 0, np.inf, 0.0))
    crit = float(norm.isf(alpha / (k - 1)))
    out[ok] = ~(z > crit).any(axis=1)
    return out


def holm(pvalues) -> np.ndarray:
    """Holm-corrected p-values (``statsmodels.stats.multitest.multipletests(method="holm")``);
    NaN entries are left out of the family and stay NaN."""
    from statsmodels.stats.multitest import multipletests
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if np.any(ok):
        out[ok] = multipletests(p[ok], alpha=0.05, method="holm")[1]
    return out


@dataclass(frozen=True)
class PLFit:
    """A Plackett-Luce fit: log-strengths ``theta`` (mean 0), their standard errors, and
    the same on the Elo scale (``ELO_PER_THETA * theta``)."""

    theta: np.ndarray
    se: np.ndarray
    iterations: int
    converged: bool

    @property
    def elo(self) -> np.ndarray:
        return ELO_PER_THETA * self.theta

    @property
    def elo_se(self) -> np.ndarray:
        return ELO_PER_THETA * self.se


def plackett_luce(choice_sets, winners, counts, alpha: float = 0.01, tol: float = 1e-10,
                  max_iter: int = 10_000) -> PLFit:
    """Maximum-likelihood Plackett-Luce strengths from counted top-1 choices.

    A finishing order ``a > b > c > d`` is, under Plackett (1975) and Luce (1959), the
    sequence of choices "a out first from {a,b,c,d}", "b from {b,c,d}", "c from {c,d}";
    an unfinished game contributes only the choices that happened before the move cap.
    ``choice_sets[k]`` (int[K, E]) is the multiset of items present at choice k (an item
    may sit at a table twice), ``winners[k]`` the item chosen, ``counts[k]`` how often
    that (set, winner) event occurred. The probability of the event is
    ``w_winner / sum_i choice_sets[k, i] * w_i`` with ``w = exp(theta)``.

    Estimation: iterative Luce Spectral Ranking (Maystre and Grossglauser 2015): the
    Markov chain with rate ``sum_k counts[k] * choice_sets[k, i] / W_k`` from i to
    ``winners[k]`` (``W_k`` the set's total strength at the current estimate) has the
    strengths as its stationary distribution (``choix.utils.statdist``); iterating to a
    fixed point gives the ML estimate (the same fixed point as ``choix.ilsr_top1`` on the
    expanded list of observations, which the tests check). ``alpha`` is choix's
    regularisation (a small rate added between every pair, so that an item that never
    wins still gets a finite strength).

    Standard errors: from the Fisher information of the choice model,
    ``I = sum_k counts[k] (diag(q_k) - q_k q_k^T)`` with ``q_k = choice_sets[k] * w / W_k``,
    inverted with ``numpy.linalg.pinv`` (the strengths are identified up to a constant;
    the pseudo-inverse gives the covariance of the mean-zero parametrisation).
    """
    from choix.utils import exp_transform, log_transform, statdist
    sets = np.asarray(choice_sets, dtype=np.float64)
    win = np.asarray(winners, dtype=np.int64)
    c = np.asarray(counts, dtype=np.float64)
    n_items = sets.shape[1]
    onehot = np.zeros((len(win), n_items))
    onehot[np.arange(len(win)), win] = 1.0
    theta = np.zeros(n_items)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        w = exp_transform(theta)  # choix's scale: weights sum to the number of items
        val = c / (sets @ w)
        chain = alpha * np.ones((n_items, n_items)) + (sets * val[:, None]).T @ onehot
        chain -= np.diag(chain.sum(axis=1))
        new = log_transform(statdist(chain))
        new -= new.mean()
        delta = float(np.abs(new - theta).sum())
        theta = new
        if delta < tol:
            converged = True
            break
    w = np.exp(theta)
    q = sets * w / (sets @ w)[:, None]
    info = np.diag((c[:, None] * q).sum(axis=0)) - (q * c[:, None]).T @ q
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return PLFit(theta, se, it, converged)


def plackett_luce_cluster_se(theta, choice_sets, winners, counts, pair_a, pair_b, pair_counts) -> np.ndarray:
    """Cluster-robust (sandwich) standard errors of Plackett-Luce log-strengths ``theta``
    (float64[E], from :func:`plackett_luce`) when the choice events come in correlated
    clusters (the events of one deal's rotations share its cards).

    Events: ``choice_sets`` (int[J, E]), ``winners`` (int[J]) and ``counts`` (int[J]) as in
    :func:`plackett_luce`, one row per distinct event; ``pair_a``, ``pair_b`` (int[P],
    row indices into the events) and ``pair_counts`` (int[P]): how often events a and b
    occurred in the same cluster (each unordered pair of two event occurrences of one
    cluster counted once). With an event's score ``v_j = e_winner - q_j`` (the gradient of
    its log-likelihood, ``q_j = choice_sets[j] * w / W_j``) a cluster's score is
    ``g_b = sum of its events' v_j``, and

        B = sum_b g_b g_b^T = sum_j counts_j v_j v_j^T + sum_pairs c_ab (v_a v_b^T + v_b v_a^T)

    The covariance is the sandwich ``I^+ B I^+`` (Huber 1967; White 1982; the cluster
    form, Liang and Zeger, Biometrika 73, 1986) with the Fisher information ``I`` of
    :func:`plackett_luce`, in the mean-zero parametrisation: ``I^+`` is the inverse on the
    directions orthogonal to the all-ones vector (``numpy.linalg.inv`` of ``I + 11^T/E``,
    projected), along which neither the likelihood nor B changes. When every
    cluster's score is 0 (an entry against an identical deterministic copy: every deal
    gives both the same finishes) the standard errors are exactly 0.
    """
    theta = np.asarray(theta, dtype=np.float64)
    sets = np.asarray(choice_sets, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    win = np.asarray(winners, dtype=np.int64)
    w = np.exp(theta)
    q = sets * w / (sets @ w)[:, None]
    v = -q
    v[np.arange(len(win)), win] += 1.0
    info = np.diag((c[:, None] * q).sum(axis=0)) - (q * c[:, None]).T @ q
    meat = v.T @ (c[:, None] * v)
    pa = np.asarray(pair_a, dtype=np.int64)
    pb = np.asarray(pair_b, dtype=np.int64)
    if len(pa):
        cross = v[pa].T @ (np.asarray(pair_counts, dtype=np.float64)[:, None] * v[pb])
        meat = meat + cross + cross.T
    # the strengths are identified up to a constant: work in the mean-zero directions (the
    # scores and the information have no component along the all-ones vector; adding it
    # to the information makes the inverse exact instead of trusting pinv's cut-off)
    e = len(theta)
    proj = np.eye(e) - 1.0 / e
    meat = proj @ meat @ proj
    if np.abs(meat).max() <= 1e-9 * max(1.0, float(c.sum())):
        meat = np.zeros_like(meat)  # every cluster's score is 0 up to rounding: exact
    ip = proj @ np.linalg.inv(proj @ info @ proj + np.full((e, e), 1.0 / e)) @ proj
    cov = ip @ meat @ ip
    return np.sqrt(np.maximum(np.diag(cov), 0.0))

