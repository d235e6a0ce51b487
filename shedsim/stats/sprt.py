"""The sequential probability ratio test's formulas: the logistic Elo model, Wald's
bounds, the generalised log-likelihood ratio of score counts, and Wald's approximations of
where and when the test stops.

* A. Wald, "Sequential tests of statistical hypotheses", Annals of Mathematical Statistics
  16, 1945, and *Sequential Analysis*, Wiley 1947: the bounds ``ln(beta / (1 - alpha))`` and
  ``ln((1 - beta) / alpha)``, the operating characteristic and the average sample number,
  the overshoot ignored (ch. 3); the diffusion form: D. Siegmund, *Sequential Analysis*,
  Springer 1985, sec. 3.1.
* The GSPRT (generalised SPRT) on score categories: M. Van den Bergh, "A practical
  introduction to the GSPRT" and "Comments on Normalized Elo" (the maximum-likelihood
  distribution with a given mean, proposition 1.1), as fishtest implements them in
  ``server/fishtest/stats/LLRcalc.py`` (``L_``, ``regularize``, ``LLR_alt2``,
  ``LLR_logistic``) and fastchess in ``SPRT::getLLR_logistic``; ``tests/test_stats.py``
  checks the LLRs fastchess's tests publish for given counts.

The options that choose these (``--elo0``, ``--alpha``, ``--llr``, ...) are checked where the
command is, :mod:`shedsim.analysis.sprt`; the functions here raise ``ValueError``.
"""

from __future__ import annotations

import math

import numpy as np

REGULARIZE = 1e-3
"""Pseudo-count given to every unobserved score category (fishtest ``LLRcalc.regularize``)."""


def elo_to_score(elo) -> np.ndarray | float:
    """Expected score of a player ``elo`` logistic Elo points stronger:
    ``1 / (1 + 10^(-elo/400))`` (fishtest ``LLRcalc.L_``). Scalars or arrays (float64)."""
    e = np.asarray(elo, dtype=np.float64)
    out = 1.0 / (1.0 + np.power(10.0, -e / 400.0))
    return float(out) if out.ndim == 0 else out


def score_to_elo(score) -> np.ndarray | float:
    """Inverse of :func:`elo_to_score`: ``-400 log10(1/score - 1)``; score 0 gives -inf, 1 gives
    +inf, NaN stays NaN. Scalars or arrays (float64)."""
    s = np.asarray(score, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(s <= 0, -np.inf, np.where(s >= 1, np.inf, -400.0 * np.log10(1.0 / s - 1.0)))
    out = np.where(np.isnan(s), np.nan, out)
    return float(out) if out.ndim == 0 else out


def elo_text(x: float) -> str:
    """An Elo difference as every output shows it: ``+12.3``, ``+inf``, ``-inf``, never
    ``-0.0`` (a value that rounds to zero reads ``+0.0``, whatever its sign)."""
    if not math.isfinite(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x + 0.0:+.1f}".replace("-0.0", "+0.0")  # no "-0.0" from a rounding sign


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds ``(ln(beta/(1-alpha)), ln((1-beta)/alpha))`` for
    error rates ``alpha`` (false H1) and ``beta`` (false H0) (Wald 1945, sec. 3.2: the
    bounds B and A with the overshoot ignored; fishtest shows ``(-2.94, 2.94)`` for 0.05
    and 0.05). Raises ``ValueError`` unless ``0 < alpha, beta < 1`` and ``alpha + beta < 1``."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(
            f"wald_bounds: needs 0 < alpha, beta < 1 and alpha + beta < 1, got {alpha!r}, {beta!r}"
        )
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _regularised(counts, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The score-category counts as float64 ``[..., K]`` with each zero replaced by ``eps``
    (fishtest ``LLRcalc.regularize``), the categories' scores ``a = k / (K - 1)`` float64[K]
    and the units per row ``N`` float64 ``[...]``. Raises ``ValueError`` for K < 2."""
    c = np.asarray(counts, dtype=np.float64)
    k = c.shape[-1]
    if k < 2:
        raise ValueError("counts need at least two score categories")
    a = np.arange(k, dtype=np.float64) / (k - 1)
    c = np.where(c == 0, eps, c)
    # row by row sums, not a matrix product: BLAS may sum in another order for another
    # number of rows, and the path must not depend on the batch size
    return c, a, c.sum(axis=-1)


def gsprt_llr(counts, s0: float, s1: float, eps: float = REGULARIZE) -> np.ndarray:
    """The GSPRT log-likelihood ratio (normal approximation) from score-category counts.

    ``counts``: int or float array ``[..., K]``; category k holds the units that scored
    ``k / (K - 1)`` (K = 5: the pentanomial LL, LD+DL, LW+DD+WL, DW+WD, WW; K = 3: L, D, W).
    Each zero count becomes ``eps`` (fishtest ``LLRcalc.regularize``); with the regularised
    counts ``c``: ``N = sum c``, ``mu = sum c a / N``, ``var = sum c (a - mu)^2 / N`` and
    ``LLR = N (s1 - s0) (2 mu - s0 - s1) / (2 var)`` (fishtest ``LLRcalc.LLR_alt2`` times N,
    Van den Bergh's "GSPRT approximation"). Returns float64 ``[...]``.
    """
    c, a, n = _regularised(counts, eps)
    mu = (c * a).sum(axis=-1) / n
    var = (c * (a * a)).sum(axis=-1) / n - mu * mu
    var = np.maximum(var, np.finfo(np.float64).tiny)
    return n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)


def _tilt_log(p: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``sum_i p_i log(1 + x d_i)`` at the root x of ``sum_i p_i d_i / (1 + x d_i) = 0`` (row by
    row; ``p`` float64[R, K] positive rows summing to 1, ``d`` float64[K] with both signs).
    That sum is the log-likelihood lost by the best distribution on the same scores whose
    mean is s (``d = a - s``): the maximum-likelihood distribution is ``p_i / (1 + x d_i)``.
    The function of x is decreasing between the poles ``-1/max(d)`` and ``-1/min(d)``: found
    by bisection (vectorised, 200 halvings: to the last bit)."""
    lo = np.full(p.shape[:-1], -1.0 / d.max())
    hi = np.full(p.shape[:-1], -1.0 / d.min())
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        f = (p * d / (1.0 + mid[..., None] * d)).sum(axis=-1)
        lo = np.where(f > 0, mid, lo)
        hi = np.where(f > 0, hi, mid)
    x = 0.5 * (lo + hi)
    return (p * np.log1p(x[..., None] * d)).sum(axis=-1)


def gsprt_llr_mle(counts, s0: float, s1: float, eps: float = REGULARIZE) -> np.ndarray:
    """The exact generalised log-likelihood ratio of the GSPRT (fishtest's
    ``LLRcalc.LLR_logistic`` with the maximum-likelihood ``MLE_expected``), from score-category
    counts as in :func:`gsprt_llr` (zero counts regularised to ``eps``).

    With the empirical distribution ``p`` of the unit scores ``a`` (N units), the profile
    log-likelihood of "the expected score is s" is attained by ``p_i / (1 + x (a_i - s))``
    (a Lagrange multiplier x; Owen's empirical likelihood), so
    ``LLR = N * (sum p log(1 + x0 (a - s0)) - sum p log(1 + x1 (a - s1)))``. Near the
    hypotheses and with many units it agrees with the normal approximation; far from them
    it does not: 50 pairs that all scored exactly 1/2 give about -0.72 here against
    -103.55 from :func:`gsprt_llr` (the approximation divides by the regularised, almost
    zero variance). Returns float64 ``[...]``.
    """
    c, a, n = _regularised(counts, eps)
    p = c / n[..., None]
    return n * (_tilt_log(p, a - s0) - _tilt_log(p, a - s1))


def brownian_exit(x: float, a: float, b: float, drift: float, var: float) -> tuple[float, float]:
    """Where and when a Brownian motion with ``drift`` and variance ``var`` per unit of time,
    started at ``x`` in ``[a, b]``, first leaves ``(a, b)``: the probability that it leaves at
    ``b`` and the expected time (units), ``p = (1 - exp(-t (x - a))) / (1 - exp(-t (b - a)))``
    with ``t = 2 drift / var``, and ``(p (b - a) - (x - a)) / drift``; without drift ``p =
    (x - a) / (b - a)`` and ``(x - a)(b - x) / var``. Applied to a log-likelihood ratio
    between Wald's bounds it is Wald's approximation of the SPRT's operating characteristic
    and average sample number, the overshoot ignored (A. Wald, *Sequential Analysis*, 1947,
    ch. 3; the diffusion form: D. Siegmund, *Sequential Analysis*, 1985, sec. 3.1). Raises
    ``ValueError`` unless ``a <= x <= b``, ``a < b`` and ``var > 0``."""
    if not (a <= x <= b and a < b and var > 0):
        raise ValueError(
            f"brownian_exit: needs a <= x <= b, a < b and var > 0, got {x}, {a}, {b}, {var}"
        )
    t = 2.0 * drift / var
    if abs(t * (b - a)) < 1e-9:
        return (x - a) / (b - a), (x - a) * (b - x) / var
    if t > 0:
        p = math.expm1(-t * (x - a)) / math.expm1(-t * (b - a))
    else:  # the same, written without overflow
        p = math.exp(t * (b - x)) * math.expm1(t * (x - a)) / math.expm1(t * (b - a))
    return p, max(0.0, (p * (b - a) - (x - a)) / drift)
