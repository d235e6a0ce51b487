"""Intervals for a proportion and for a mean: Wilson's score interval and Student's t.

Both work on counts or sufficient statistics (arrays), never on per-game records, and are
deterministic: the same inputs give the same floats, bit for bit.

* Wilson score interval: ``statsmodels.stats.proportion.proportion_confint`` with
  ``method="wilson"`` (E. B. Wilson, "Probable inference, the law of succession, and
  statistical inference", JASA 22, 1927; recommended over the Wald interval by A. Agresti
  and B. A. Coull, "Approximate is better than 'exact' for interval estimation of binomial
  proportions", The American Statistician 52, 1998).
* Student t quantiles: ``scipy.stats.t`` (Student, "The probable error of a mean",
  Biometrika 6, 1908).
"""

from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054
"""The 97.5% quantile of the standard normal distribution (``scipy.stats.norm.ppf(0.975)``)."""


def wilson(successes, trials, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for binomial proportions ``successes / trials`` (arrays of
    counts, any shape; returns two float64 arrays of that shape, shares in [0, 1]).

    Wilson (1927): the set of p whose score test does not reject at level ``alpha``,
    ``(k + z^2/2 +- z sqrt(k(n-k)/n + z^2/4)) / (n + z^2)``. Computed by
    ``statsmodels.stats.proportion.proportion_confint(..., method="wilson")``. Trials of 0
    give NaN bounds. Raises nothing for valid counts.
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


def t_interval(
    n, total, total_sq, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and Student t interval from sufficient statistics (arrays, float64 out).

    ``n`` observations with sum ``total`` and sum of squares ``total_sq``: mean
    ``m = total / n``, sample variance ``s^2 = (total_sq - n m^2) / (n - 1)``, interval
    ``m +- t_{1-alpha/2, n-1} s / sqrt(n)`` (quantile from ``scipy.stats.t.ppf``; Student
    1908). Returns ``(mean, lo, hi)``; NaN where ``n < 2`` (mean NaN where ``n == 0``).
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
