"""What pairing buys (``shedsim sprt --compare-pairing``): the same two strategies played on
paired deals (each deal under every rotation of the seats) and on unpaired ones (a fresh
deal per game), the score's 95% interval widths compared (:func:`pairing_gain`), and the
batches of that comparison as the resumable run plays them (:func:`pairing_plan`,
:func:`pairing_counts`, :func:`pairing_estimates`). Units and scores:
:mod:`shedsim.analysis.sprt`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable

import numpy as np

from shedsim.analysis.matchup import SPRTError, interval, Match, unit_codes, open_match, rules_name
from shedsim.rules.ruleset import RuleSet


@dataclass(frozen=True)
class Estimate:
    """X's mean score over ``units`` units of ``unit_games`` games, its 95% t interval and
    the interval's width; ``sd`` is the standard deviation of a unit score."""

    design: str
    games: int
    units: int
    unit_games: int
    score: float
    lo: float
    hi: float
    sd: float

    @property
    def width(self) -> float:
        return self.hi - self.lo


@dataclass(frozen=True)
class PairingGain:
    """:func:`pairing_gain`: the same number of games played ``paired`` (each deal under every
    rotation; t interval over deals) and ``unpaired`` (a fresh deal per game; t interval over
    games). ``ratio`` = unpaired width / paired width (> 1: pairing helps);
    ``variance_ratio`` = ratio^2, how many times more unpaired games the same precision needs."""

    a: str
    b: str
    rules: str
    players: int
    seed: int
    paired: Estimate
    unpaired: Estimate

    @property
    def ratio(self) -> float:
        return self.unpaired.width / self.paired.width if self.paired.width > 0 else math.inf

    @property
    def variance_ratio(self) -> float:
        return self.ratio**2

    @property
    def p_value(self) -> float:
        """Two-sided F test that both designs estimate the score equally precisely: the
        variances of the two mean scores, ``sd^2 / units`` each, whose ratio is
        F(units_unpaired - 1, units_paired - 1) distributed under that hypothesis for
        normal unit scores (``scipy.stats.f``); NaN when a variance is 0."""
        from scipy.stats import f

        vu = self.unpaired.sd**2 / self.unpaired.units
        vp = self.paired.sd**2 / self.paired.units
        if not (vu > 0 and vp > 0):
            return math.nan
        ratio, du, dp = vu / vp, self.unpaired.units - 1, self.paired.units - 1
        return float(min(1.0, 2 * min(f.sf(ratio, du, dp), f.cdf(ratio, du, dp))))

    def verdict(self) -> str:
        """``pairing helps`` / ``pairing hurts here`` (the F test of :attr:`p_value` below
        0.05, the paired mean score's variance smaller / larger) or ``no clear difference``."""
        p = self.p_value
        if not p < 0.05:
            return f"no clear difference between the designs (F test p {p:.2g})"
        helps = self.unpaired.sd**2 / self.unpaired.units > self.paired.sd**2 / self.paired.units
        return f"pairing {'helps' if helps else 'hurts here'} (F test p {p:.2g})"

    def table(self):
        """Both designs as a DataFrame (design, games, units, unit_games, score, lo, hi, width,
        sd)."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "design": e.design,
                    "games": e.games,
                    "units": e.units,
                    "unit_games": e.unit_games,
                    "score": e.score,
                    "lo": e.lo,
                    "hi": e.hi,
                    "width": e.width,
                    "sd": e.sd,
                }
                for e in (self.paired, self.unpaired)
            ]
        )


def pairing_gain(
    a: str,
    b: str,
    rules: RuleSet | str = "shithead",
    players: int = 2,
    games: int = 20_000,
    seed: int = 0,
    batch: int = 20_000,
    strategy_paths: tuple[str, ...] = (),
    on_batch: Callable[[int], None] | None = None,
) -> PairingGain:
    """Measure what paired deals buy: play ``games`` games (rounded down to whole deals of
    ``players`` games) paired, and as many unpaired, with the schedule of :func:`schedule`
    and the same seed, and return both score estimates with their 95% Student t intervals
    (:func:`shedsim.stats.t_interval`; paired: over per-deal scores, unpaired: over per-game
    scores, whose ties at 1/2 rule out a plain Wilson interval). ``on_batch(games_done)``
    is called after each batch (progress; both runs together count ``2 * games``).

    Raises :class:`SPRTError` (``--games``, ``--a``, ``--b``, ``--players``...),
    :class:`shedsim.rules.RulesError`, :class:`shedsim.runs.simulate.SimulationError`.
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 2 * players:
        raise SPRTError(
            f"--games: at least {2 * players} games (two deals under every rotation), got {games!r}"
        )
    match = open_match(a, b, rules, players, seed, strategy_paths)
    counts = {
        True: np.zeros(pairing_categories(players, True), np.int64),
        False: np.zeros(pairing_categories(players, False), np.int64),
    }
    done = 0
    for paired, g0, g1 in pairing_plan(players, games, batch):
        counts[paired] += pairing_counts(match, g0, g1, paired)
        done += g1 - g0
        if on_batch is not None:
            on_batch(done)
    return pairing_estimates(
        a, b, rules_name(match.spec.rules), players, seed, counts[True], counts[False]
    )


def pairing_categories(players: int, paired: bool) -> int:
    """Score categories of a unit: ``2 (P - 1) * games per unit + 1``."""
    return 2 * (players - 1) * (players if paired else 1) + 1


def pairing_plan(players: int, games: int, batch: int = 20_000) -> list[tuple[bool, int, int]]:
    """The batches of :func:`pairing_gain`: ``(paired, first game, last game + 1)``, the
    paired design first; ``games`` rounded down to whole deals, batches of ``batch`` games
    rounded down to whole deals (at least one)."""
    total = int(games) // players * players
    step = max(players, int(batch) // players * players)
    return [
        (paired, g0, min(total, g0 + step))
        for paired in (True, False)
        for g0 in range(0, total, step)
    ]


def pairing_counts(match: Match, g0: int, g1: int, paired: bool) -> np.ndarray:
    """Games ``g0..g1-1`` of one design: units per score category (int64[K],
    :func:`pairing_categories`). Raises :class:`shedsim.runs.simulate.SimulationError`."""
    unit_games = match.spec.players if paired else 1
    h, _ = match.play(g0, g1, paired)
    return np.bincount(
        unit_codes(h, unit_games), minlength=pairing_categories(match.spec.players, paired)
    )


def pairing_estimates(
    a: str,
    b: str,
    rules: str,
    players: int,
    seed: int,
    paired_counts: np.ndarray,
    unpaired_counts: np.ndarray,
) -> PairingGain:
    """Both designs' estimates (:class:`Estimate`) from their category counts (int64[K])."""
    ests = []
    for paired, counts in ((True, paired_counts), (False, unpaired_counts)):
        unit_games = players if paired else 1
        n_cat = len(counts)
        m, lo, hi = interval(counts)
        vals = np.arange(n_cat) / (n_cat - 1)
        n = counts.sum()
        sd = math.sqrt(max(0.0, float(counts @ (vals - m) ** 2) / (n - 1)))
        ests.append(
            Estimate(
                "paired" if paired else "unpaired",
                int(n) * unit_games,
                int(n),
                unit_games,
                m,
                lo,
                hi,
                sd,
            )
        )
    return PairingGain(a, b, rules, players, int(seed), ests[0], ests[1])
