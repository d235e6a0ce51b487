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
