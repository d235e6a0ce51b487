"""A control variate whose coefficient is fitted on the units before each one.

Each unit ``u`` (a game, or a pair of games) has a score ``s_u`` and a correction ``c_u`` of
known mean zero given everything before it (its luck at the chance events,
:mod:`shedsim.kernel.luck`). The corrected score is

    y_u = s_u - beta_u c_u,   beta_u = clip(cov(s, c) / var(c), 0, 1)

over the units before ``u`` (0 until :data:`MIN_UNITS` of them). ``cov / var`` is the
coefficient that minimises the variance of ``s - beta c`` (the regression estimator of
survey sampling; CUPED: A. Deng, Y. Xu, R. Kohavi and T. Walker, "Improving the sensitivity
of online controlled experiments by utilizing pre-experiment data", WSDM 2013, sec. 3.2).
Fitted on the same units it would bias the mean slightly; fitted on the earlier units only,
``beta_u`` is fixed before ``c_u`` is drawn, so ``E[beta_u c_u] = 0`` and every ``y_u``
keeps the mean of ``s_u``. The clip to [0, 1] keeps a noisy early fit from adding variance
(1 is AIVAT's coefficient, for a correction that is the whole luck).

The units are taken one at a time in order, so the result does not depend on how they are
grouped into batches.
"""

from __future__ import annotations

import numpy as np

MIN_UNITS = 20
"""Units seen before the coefficient is fitted (before that it is 0: the raw score)."""


class FittedControlVariate:
    """Running sums of the units fed so far (:meth:`feed`), in order: for the coefficient
    (``n``, sums of ``s``, ``c``, ``c^2`` and ``s c``) and for the corrected scores (sum and
    sum of squares of ``y``)."""

    def __init__(self) -> None:
        self.n = 0
        self.sums = [0.0] * 6  # s, c, cc, sc, y, yy

    def beta(self) -> float:
        """The coefficient for the next unit (from the units fed so far)."""
        if self.n < MIN_UNITS:
            return 0.0
        s, c, cc, sc = self.sums[:4]
        var = cc - c * c / self.n
        if var <= 0.0:
            return 0.0
        return min(1.0, max(0.0, (sc - s * c / self.n) / var))

    def moments(self) -> tuple[int, float, float]:
        """Units, sum and sum of squares of the corrected scores so far."""
        return self.n, self.sums[4], self.sums[5]

    def feed(self, s: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Take the next units' scores and corrections (float64[n] each); returns the running
        moments after each (float64[n, 3]: units, sum and sum of squares of ``y``)."""
        out = np.empty((len(s), 3))
        for i, (si, ci) in enumerate(zip(np.asarray(s, float), np.asarray(c, float))):
            y = si - self.beta() * ci
            self.n += 1
            t = self.sums
            t[0] += si
            t[1] += ci
            t[2] += ci * ci
            t[3] += si * ci
            t[4] += y
            t[5] += y * y
            out[i] = (self.n, t[4], t[5])
        return out


def cross_fitted(n, s, m, c, ss, mm, sm, cc, sc, mc):
    """The corrected cluster sums of a share ``sum S_b / sum M_b`` with the control variate
    ``c_b`` fitted across two halves of the clusters (cross-fitting): half h's clusters are
    corrected as ``S_b - beta c_b`` with the coefficient of the *other* half,
    ``beta = clip(cov(S - R M, c) / var(c), 0, 1)`` (``R`` that half's share; 0 for a half of
    fewer than :data:`MIN_UNITS` clusters or no variance in ``c``), so no cluster's
    correction depends on its own draw and the corrected share keeps its mean (the
    coefficient's regression estimator as in :class:`FittedControlVariate`; cross-fitting:
    V. Chernozhukov et al., "Double/debiased machine learning", Econometrics Journal 2018).

    Arguments: the halves' sums, arrays of shape ``(2, ...)`` (float64 or int64): clusters
    ``n``, ``s = sum S_b``, ``m = sum M_b``, ``c = sum c_b``, and the sums of ``S_b^2``,
    ``M_b^2``, ``S_b M_b``, ``c_b^2``, ``S_b c_b``, ``M_b c_b``. Returns ``(clusters, s, m,
    ss, mm, sm, beta)``: the corrected sums over both halves, in the arguments of
    :func:`shedsim.stats.cluster_ratio`, and ``beta`` (shape ``(2, ...)``: the coefficient
    each half was corrected with)."""
    n, s, m, c, ss, mm, sm, cc, sc, mc = (
        np.asarray(x, np.float64) for x in (n, s, m, c, ss, mm, sm, cc, sc, mc)
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(m > 0, s / m, 0.0)
        cov = (sc - r * mc) / n - (s - r * m) / n * (c / n)
        var = cc / n - (c / n) ** 2
        fit = np.where((n >= MIN_UNITS) & (var > 0), np.clip(cov / var, 0.0, 1.0), 0.0)
    fit = np.nan_to_num(fit)
    beta = fit[::-1]  # half 0 corrected with half 1's fit, and half 1 with half 0's
    return (
        n.sum(axis=0),
        (s - beta * c).sum(axis=0),
        m.sum(axis=0),
        (ss - 2 * beta * sc + beta * beta * cc).sum(axis=0),
        mm.sum(axis=0),
        (sm - beta * mc).sum(axis=0),
        beta,
    )
