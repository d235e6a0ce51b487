"""The comparison's statistics on per-deal values: the tables as strata, every
metric's estimate with its interval, and each variant's test against the baseline (paired
and unpaired, rank tests, the median test, skill edges); the formulas' sources are in the
package's docstring (:mod:`shedsim.analysis.compare`) and in :mod:`shedsim.stats`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shedsim.analysis.compare.plan import ALPHA, Variant
from shedsim.analysis.compare.tally import Tally, seat_games
from shedsim.stats.stratified import (
    Estimate,
    quantile_interval,
    ratio_values,
    stratified_mannwhitney,
    stratified_mean,
    welch,
)


def table_strata(deals: int, players: int, n_entries: int) -> np.ndarray:
    """``int64[deals]``: the table of each deal (deal b plays table ``b % n_tables`` of
    :func:`shedsim.runs.simulate.tournament_tables`). The tables are the strata of the design."""
    from shedsim.runs.simulate import tournament_tables

    return np.arange(deals, dtype=np.int64) % len(tournament_tables(n_entries, players))


def _rate(
    per_deal: np.ndarray, games_per_deal: int, strata: np.ndarray
) -> tuple[Estimate, float, float]:
    """A rate from per-deal rates: :func:`stratified_mean`, and its interval widened to
    contain the Wilson interval over games (:func:`shedsim.stats.wilson`) so that a rate of
    0 or 1 still gets a width; clipped to [0, 1]. Returns (estimate, lo, hi)."""
    from shedsim import stats

    e = stratified_mean(per_deal, strata)
    games = len(per_deal) * games_per_deal
    wlo, whi = stats.wilson(round(float(per_deal.sum()) * games_per_deal), games)
    lo = float(np.clip(np.fmin(e.lo, wlo), 0, 1))
    hi = float(np.clip(np.fmax(e.hi, whi), 0, 1))
    return e, lo, hi


METRICS: tuple[tuple[str, str, str], ...] = (
    ("mean_moves", "length", "moves"),
    ("unfinished_rate", "rate", "share"),
    ("pickups_per_game", "count", "per game"),
    ("burns_per_game", "count", "per game"),
    ("starter_loss_rate", "rate", "share"),
    ("starter_loss_share", "rate", "share"),
)
"""Per-deal metrics compared between variants: (name, kind, unit). Rounds are moves / N,
so their comparison would repeat the moves'; skill edges are added per strategy."""

MIN_LOSER_GAMES_PER_SEAT = 5
"""The starter's loss rate and share, and the skill edges, are measured over the games with
a loser; a variant with fewer than ``MIN_LOSER_GAMES_PER_SEAT x N`` such games (N = players,
so fewer than 5 expected losses per seat, the usual floor for a normal approximation of a
count) has none of them: NaN in variants.csv, verdict ``no games with a loser`` or ``too few
games with a loser``, its effects not tested and left out of the Holm families."""

LOSER_METRICS = ("starter_loss_rate", "starter_loss_share")
"""The compared metrics (besides the skill edges) that need games with a loser."""


def loser_games(t: Tally) -> int:
    """Games of the tally with a loser (each has exactly one last place)."""
    return int(t.losses.sum(dtype=np.int64))


def has_losers(t: Tally) -> bool:
    """Whether the tally has enough games with a loser for the starter's loss rate and the
    skill edges (:data:`MIN_LOSER_GAMES_PER_SEAT`)."""
    return loser_games(t) >= MIN_LOSER_GAMES_PER_SEAT * t.lengths.shape[1]


def deal_values(t: Tally) -> dict[str, np.ndarray]:
    """Per-deal values (float64[D]) of the compared metrics, keyed as in :data:`METRICS`:
    means, and for ``starter_loss_share`` (the starter's losses / the games with a loser)
    the ratio estimator's linearised values (:func:`ratio_values`), whose mean is the share;
    the :data:`LOSER_METRICS` are NaN without enough games with a loser (:func:`has_losers`)."""
    n = t.lengths.shape[1]
    lost = t.starter_lost.astype(np.float64)
    out = {
        "mean_moves": t.lengths.sum(axis=1, dtype=np.int64) / n,
        "unfinished_rate": t.unfinished.sum(axis=1) / n,
        "pickups_per_game": t.pickups / n,
        "burns_per_game": t.burns / n,
        "starter_loss_rate": lost / n,
        "starter_loss_share": ratio_values(lost, t.losses.sum(axis=1).astype(np.float64)),
    }
    if not has_losers(t):
        for k in LOSER_METRICS:
            out[k] = np.full(len(lost), np.nan)
    return out


@dataclass
class VariantStats:
    """One variant's metrics: ``row`` (the variants.csv row), ``est`` (the
    :class:`Estimate` of each compared metric) and ``edge_values`` (linearised per-deal
    values of each skill edge, float64[D], see :func:`ratio_values`)."""

    row: dict[str, Any]
    est: dict[str, Estimate]
    edge_values: dict[str, np.ndarray] = field(default_factory=dict)


def variant_stats(
    v: Variant, t: Tally, labels: Sequence[str], ref: int, paired: bool
) -> VariantStats:
    """The variants.csv row of one variant (see :data:`DEFINITIONS`)."""
    from shedsim import stats

    d, n = t.lengths.shape
    strata = table_strata(d, n, len(labels))
    row: dict[str, Any] = {
        "variant": v.label,
        "rules": v.rules.name,
        "toggles": " ".join(v.toggles),
        "paired": paired,
        "games": d * n,
        "deals": d,
    }
    est: dict[str, Estimate] = {}
    vals = deal_values(t)
    mm = est["mean_moves"] = stratified_mean(vals["mean_moves"], strata)
    row.update(mean_moves=mm.value, mean_moves_lo=mm.lo, mean_moves_hi=mm.hi)
    qs = {}
    for name, q in (("median", 0.5), ("p95", 0.95)):
        e, lo, hi, deff = quantile_interval(t.lengths, q, strata)
        qs[name] = (e, lo, hi)
        row.update(
            {
                f"{name}_moves": e,
                f"{name}_moves_lo": lo,
                f"{name}_moves_hi": hi,
                f"{name}_deff": deff,
            }
        )
    row.update(mean_rounds=mm.value / n, mean_rounds_lo=mm.lo / n, mean_rounds_hi=mm.hi / n)
    for name, (e, lo, hi) in qs.items():
        row.update(
            {f"{name}_rounds": e / n, f"{name}_rounds_lo": lo / n, f"{name}_rounds_hi": hi / n}
        )
    u, lo, hi = _rate(vals["unfinished_rate"], n, strata)
    est["unfinished_rate"] = u
    row.update(unfinished_rate=u.value, unfinished_lo=lo, unfinished_hi=hi)
    for key in ("pickups_per_game", "burns_per_game"):
        m = est[key] = stratified_mean(vals[key], strata)
        row.update({key: m.value, f"{key}_lo": m.lo, f"{key}_hi": m.hi})
    decided = loser_games(t)
    fair = t.losses.sum(axis=1, dtype=np.int64) / (
        n * n
    )  # per deal: games with a loser / N, per game
    if has_losers(t):
        s, lo, hi = _rate(vals["starter_loss_rate"], n, strata)
        gap = stratified_mean(vals["starter_loss_rate"] - fair, strata)
        p_fair = gap.test(0.0)[1] if gap.se > 0 else (1.0 if gap.value == 0 else 0.0)
        sh = stratified_mean(vals["starter_loss_share"], strata)
        wlo, whi = stats.wilson(int(t.starter_lost.sum()), decided)
        sh_lo = float(np.clip(np.fmin(sh.lo, wlo), 0, 1))
        sh_hi = float(np.clip(np.fmax(sh.hi, whi), 0, 1))
    else:
        nan = math.nan
        s = sh = Estimate(nan, nan, nan, nan, nan)
        lo = hi = p_fair = sh_lo = sh_hi = nan
    est["starter_loss_rate"], est["starter_loss_share"] = s, sh
    row.update(
        starter_loss_rate=s.value,
        starter_loss_lo=lo,
        starter_loss_hi=hi,
        starter_loss_share=sh.value,
        starter_loss_share_lo=sh_lo,
        starter_loss_share_hi=sh_hi,
        starter_loss_p_value=p_fair,
        starter_fair_rate=float(fair.mean()),
        loser_games=decided,
    )
    seats = seat_games(n, len(labels), d).astype(np.float64)
    losses = t.losses.astype(np.float64)
    z = {e: ratio_values(losses[:, e], seats[:, e]) for e in range(len(labels))}
    for e, lab in enumerate(labels):
        r = stratified_mean(z[e], strata)
        row.update(
            {
                f"loss_rate[{lab}]": r.value,
                f"loss_lo[{lab}]": max(0.0, r.lo),
                f"loss_hi[{lab}]": min(1.0, r.hi),
            }
        )
    edge_z: dict[str, np.ndarray] = {}
    for e, lab in enumerate(labels):
        if e == ref:
            continue
        key = f"skill_edge[{lab}]"
        edge_z[key] = z[ref] - z[e]  # the reference's loss rate minus S's: positive = S does better
        if not has_losers(t):
            edge_z[key] = np.full(d, np.nan)
        g = est[key] = stratified_mean(edge_z[key], strata)
        row.update(
            {
                key: g.value,  # a difference of two shares: within [-1, 1]
                f"skill_edge_lo[{lab}]": float(np.clip(g.lo, -1, 1)),
                f"skill_edge_hi[{lab}]": float(np.clip(g.hi, -1, 1)),
            }
        )
    return VariantStats(row, est, edge_z)


def effect_test(
    x0: np.ndarray, x1: np.ndarray, kind: str, paired: bool, strata: np.ndarray | None = None
) -> dict[str, Any]:
    """Effect ``mean(x1) - mean(x0)`` of per-deal values (float64[D] each; deal b of both
    at table ``strata[b]``) with a 95% interval, the test of that effect, and for lengths
    and counts also a rank test of the distributions (``kind``: ``"length"``, ``"count"``
    or ``"rate"``):

    * paired: interval and t test from :func:`stratified_mean` of the differences
      d = x1 - x0 (within-table variance); rank test ``scipy.stats.wilcoxon(d)`` (Wilcoxon
      signed-rank, zero differences dropped).
    * unpaired: interval and Welch t test from the two :func:`stratified_mean` standard
      errors (Welch-Satterthwaite df); rank test :func:`stratified_mannwhitney` (Mann-
      Whitney U within each table, combined: van Elteren).

    For rates (differences of two shares) the interval is clipped to [-1, 1]: the clipped
    part holds only impossible values, so coverage is unchanged.

    The t test decides ``p_value`` (so a significant effect's interval excludes 0 before
    the Holm correction); the rank test's ``p_rank`` says whether the typical deal shifts,
    which for skewed game lengths can differ from the mean (reported, not corrected).
    ``rank_direction``: which way the rank test points, +1 (the variant's deals are
    typically higher), -1 (lower) or 0: the sign of ``W+ - n (n + 1) / 4`` over the n
    non-zero differences (paired; ``W+`` = ``scipy.stats.wilcoxon(d, alternative="greater")``'s
    statistic, the sum of the ranks of the positive differences), of the combined z
    (unpaired); NaN when there is no rank test.
    Returns dict(effect, lo, hi, test, statistic, p_value, rank_test, rank_statistic,
    p_rank, rank_direction); p NaN (``not tested``) when the values do not vary.
    """
    from scipy import stats as ss

    x0 = np.asarray(x0, np.float64)
    x1 = np.asarray(x1, np.float64)
    strata = np.zeros(len(x0), np.int64) if strata is None else strata
    effect = float(x1.mean() - x0.mean())
    stat = p = rstat = rp = rdir = math.nan
    rtest = ""
    if paired:
        dlt = x1 - x0
        e = stratified_mean(dlt, strata)
        lo, hi = e.lo, e.hi
        if not e.se > 0:
            lo = hi = effect
            test = "paired (no variation: not tested)"
        else:
            test = "paired t (per-deal differences, within-table variance)"
            stat, p = e.test()
            if kind != "rate":
                rtest = "Wilcoxon signed-rank (per-deal differences)"
                w = ss.wilcoxon(dlt)
                rstat, rp = float(w.statistic), float(w.pvalue)
                nz = int(np.count_nonzero(dlt))
                w_plus = float(ss.wilcoxon(dlt, alternative="greater").statistic)
                rdir = float(np.sign(w_plus - nz * (nz + 1) / 4))
    else:
        e0, e1 = stratified_mean(x0, strata), stratified_mean(x1, strata)
        se, df = welch(e0, e1)
        if not se > 0:
            lo = hi = effect
            test = "unpaired (no variation: not tested)"
        else:
            q = float(ss.t.ppf(1 - ALPHA / 2, df))
            lo, hi = effect - q * se, effect + q * se
            test = "Welch t (per-deal values, within-table variances)"
            stat = effect / se
            p = float(min(1.0, 2 * ss.t.sf(abs(stat), df)))
            if kind != "rate":
                rtest = "stratified Mann-Whitney U (per-deal means, within tables; z)"
                rstat, rp = stratified_mannwhitney(x1, x0, strata)
                rdir = float(np.sign(rstat)) if rstat == rstat else math.nan
    if kind == "rate":  # a difference of two shares: the interval's impossible part is cut off
        lo, hi = float(np.clip(lo, -1, 1)), float(np.clip(hi, -1, 1))
    return {
        "effect": effect,
        "lo": float(lo),
        "hi": float(hi),
        "test": test,
        "statistic": float(stat),
        "p_value": float(p),
        "rank_test": rtest,
        "rank_statistic": float(rstat),
        "p_rank": float(rp),
        "rank_direction": float(rdir),
    }


def median_test(
    lengths0: np.ndarray, lengths1: np.ndarray, paired: bool, strata: np.ndarray | None = None
) -> dict[str, Any]:
    """Does the typical game get longer or shorter? A median test of game length that
    counts a deal as one cluster: the share of each deal's games at or below the
    baseline's median ``m0`` (``lengths0``/``lengths1`` int[D, N], per deal and rotation),
    compared between the variants as a rate by :func:`effect_test` (paired t on the
    per-deal differences, or Welch t; Mood's median test, Mood 1950, on clustered data).
    Fewer of the variant's games at or below ``m0`` means a longer typical game.

    Returns dict(median_baseline, median_variant (inverse-ECDF medians, as in
    variants.csv), median_shift (+1: the typical game is longer, -1: shorter, 0: the
    same share), p_median); p NaN when the shares do not vary."""
    m0 = float(np.quantile(lengths0.ravel(), 0.5, method="inverted_cdf"))
    m1 = float(np.quantile(lengths1.ravel(), 0.5, method="inverted_cdf"))
    s0 = (lengths0 <= m0).mean(axis=1)
    s1 = (lengths1 <= m0).mean(axis=1)
    r = effect_test(s0, s1, "rate", paired, strata)
    return {
        "median_baseline": m0,
        "median_variant": m1,
        "median_shift": float(-np.sign(r["effect"])),
        "p_median": r["p_value"],
    }


def edge_effect(
    z0: np.ndarray, z1: np.ndarray, paired: bool, strata: np.ndarray | None = None
) -> dict[str, Any]:
    """Difference of two skill edges from their linearised per-deal values ``z0``, ``z1``
    (float64[D], :func:`ratio_values` differences): normal (z) interval and test
    (``scipy.stats.norm``). Unpaired: ``se = sqrt(se0^2 + se1^2)`` from the two edges'
    :func:`stratified_mean` standard errors; paired: the :func:`stratified_mean` standard
    error of ``z1 - z0`` (keeps the covariance of the shared deals). A skill edge is a
    difference of two shares, so the interval is clipped to [-2, 2]."""
    from scipy.stats import norm

    from shedsim.stats import Z95

    strata = np.zeros(len(z0), np.int64) if strata is None else strata
    effect = float(z1.mean() - z0.mean())
    if paired:
        se = stratified_mean(z1 - z0, strata).se
    else:
        se = math.hypot(stratified_mean(z0, strata).se, stratified_mean(z1, strata).se)
    if not se > 0:
        return {
            "effect": effect,
            "lo": effect,
            "hi": effect,
            "test": "z (no variation: not tested)",
            "statistic": math.nan,
            "p_value": math.nan,
        }
    z = effect / se
    test = "z (difference of edges, " + (
        "paired per-deal linearisation)" if paired else "two standard errors)"
    )
    return {
        "effect": effect,
        "lo": float(np.clip(effect - Z95 * se, -2, 2)),
        "hi": float(np.clip(effect + Z95 * se, -2, 2)),
        "test": test,
        "statistic": z,
        "p_value": float(2 * norm.sf(abs(z))),
    }


def not_tested(reason: str) -> dict[str, Any]:
    """An effect that is not tested (``reason``): every number NaN."""
    nan = math.nan
    return {
        "effect": nan,
        "lo": nan,
        "hi": nan,
        "test": f"not tested: {reason}",
        "statistic": nan,
        "p_value": nan,
    }


def starter_verdict(row: dict[str, Any]) -> str:
    """The starting player's position in one variants.csv row: ``favoured`` (loses less
    often than its fair share, ``starter_fair_rate``, Holm p < 0.05 over the variants),
    ``disfavoured`` (more often), ``fair within noise``, or without enough games with a
    loser (:data:`MIN_LOSER_GAMES_PER_SEAT`; ``starter_loss_rate`` NaN) ``no games with a
    loser`` or ``too few games with a loser``."""
    if row.get("starter_loss_rate", math.nan) != row.get("starter_loss_rate", math.nan):
        return (
            "no games with a loser" if not row.get("loser_games") else "too few games with a loser"
        )
    p = row.get("starter_loss_p_holm", math.nan)
    if not p < ALPHA:
        return "fair within noise"
    return "favoured" if row["starter_loss_rate"] < row["starter_fair_rate"] else "disfavoured"
