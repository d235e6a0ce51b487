"""Subset selection: which of k noisy estimates cannot be told apart from the best.

S. S. Gupta, "On some multiple decision (selection and ranking) rules", Technometrics 7,
1965, with normal-approximation comparisons and a Bonferroni correction
(``scipy.stats.norm.isf``).
"""

from __future__ import annotations

import numpy as np


def not_worse_than_best(cost, se, alpha: float = 0.05, dependent: bool = False) -> np.ndarray:
    """Which of k estimates (``cost``, lower is better, with standard errors ``se``;
    float arrays of shape [k]) are not significantly worse than any other: ``bool[k]``.

    Gupta's subset selection (Gupta 1965) with normal-approximation comparisons and a
    Bonferroni correction over the k - 1 comparisons each entry faces: entry i is left out
    when some j has ``(cost_i - cost_j) / sqrt(se_i^2 + se_j^2) > z_{1 - alpha / (k - 1)}``
    (``scipy.stats.norm.isf``). For independent estimates the subset holds the truly best
    entry with probability at least ``1 - alpha``, so it corrects for picking the best out
    of many noisy ones: the single lowest estimate is only the best of the subset.
    ``dependent``: the estimates may be correlated in any way (entries that share games:
    when one loses the others do not, so their loss rates are negatively correlated and
    the independent formula understates the difference's error); the difference's
    standard error is then bounded by ``se_i + se_j`` (Cauchy-Schwarz), which keeps the
    guarantee. Entries with a NaN estimate or standard error are left out (False); a
    difference with a standard error of 0 counts as exact."""
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
