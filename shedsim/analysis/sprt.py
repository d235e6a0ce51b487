"""Head-to-head strength tests of two strategies on paired deals: a sequential
probability ratio test (:func:`run_sprt`) and a measurement of what pairing buys
(:func:`pairing_gain`). The formulas (the Elo model, Wald's bounds, both log-likelihood
ratios, Wald's approximations of the stopping point) are :mod:`shedsim.stats.sprt`, re-exported
here; this module plays the games, runs the sequential loop and checks the options that name flags.

**Games and units.** Strategy X (``a``) plays strategy Y (``b``). At P players X takes one
seat and Y the other P - 1 (at 2 players: one each). A *deal* is played under all P
rotations, so X sits in every seat once with the same cards (game ``g`` is deal
``g // P``, rotation ``g % P``; X sits in seat ``(-rotation) % P``; the dealer is seat
``deal % P``). At 2 players and entries (X, Y) this is exactly the ``"tournament"``
schedule of :func:`shedsim.runs.simulate.schedule_games`. One deal's P games form one *unit*
(a game pair at 2 players). With ``paired=False`` every game gets its own deal (deal
index = game index; seating and dealer as above), and one game is one unit.

**Score.** In one game X scores, against each Y seat, 1 if X finished ahead of it, 0 if
behind and 1/2 if neither finished (seats still in at the move cap share the remaining
places, :func:`shedsim.rules.scoring.effective_places2`); X's game score is the mean over
the Y seats, a multiple of ``1 / (2 (P - 1))``. A unit's score is the mean of its games'
scores: at 2 players paired, one of {0, 1/4, 1/2, 3/4, 1} (the *pentanomial* model of
fishtest), unpaired one of {0, 1/2, 1} (the *trinomial* model). Under "X and Y are equally
strong" the expected score is 1/2 by symmetry.

**The test** is a GSPRT (generalised sequential probability ratio test; M. Van den Bergh,
"A practical introduction to the GSPRT", hardy.uhasselt.be/Toga/GSPRT_approximation.pdf).
The Elo model is the *logistic* one: X being ``e`` Elo stronger means an expected unit
score ``s(e) = 1 / (1 + 10^(-e/400))`` (fishtest's ``LLRcalc.L_``; not fishtest's
"normalised Elo"). H0 is ``s = s(elo0)``, H1 is ``s = s(elo1)``; nothing else about the
score distribution is assumed. The log-likelihood ratio after N units, with ``mu`` and
``var`` the mean and variance of the observed unit scores, is by default (``llr="normal"``,
``--llr normal``) the **normal approximation**, fishtest's ``LLRcalc.LLR_alt2`` times N::

    LLR = N / (2 var) * ((mu - s0)^2 - (mu - s1)^2) = N (s1 - s0) (2 mu - s0 - s1) / (2 var)

With ``llr="mle"`` (``--llr mle``) it is the **exact generalised likelihood ratio** of the
pentanomial (paired, 2 players) or trinomial (unpaired) model, fishtest's
``LLRcalc.LLR_logistic``: the log-likelihood of the most likely score distribution on the
same categories with mean s1, minus that with mean s0 (:func:`gsprt_llr_mle`). The two agree
near the hypotheses with many units and differ far from them.

Wald's bounds: accept H0 (X is not stronger by ``elo1``; the truth is near ``elo0``) when
``LLR <= ln(beta / (1 - alpha))``, accept H1 (X is stronger by ``elo1``) when
``LLR >= ln((1 - beta) / alpha)``. The LLR is computed after every unit and the test stops
at the first unit that crosses a bound, so the games used are exact. There is **no
overshoot correction** (fishtest corrects the bounds for the LLR jumping past them between
checks; here the check is after every unit, so the overshoot is at most one unit's jump,
and the error rates are Wald's approximate ones).

*Variance 0* (for instance two identical deterministic strategies: every pair scores 1/2):
as fishtest's ``LLRcalc.regularize``, every score category with no observation gets a
pseudo-count of ``1e-3`` before ``mu``, ``var`` and ``N`` are computed. Under the normal
approximation the variance is then small but positive and the LLR moves quickly towards the
closer hypothesis; the exact ratio moves slowly (a degenerate run: :func:`degenerate_note`).

The reported score interval is the Student t interval over unit scores
(:func:`shedsim.stats.t_interval`; the units, not the games, are independent), and
the Elo interval its image under the logistic model. Like every estimate taken at the
stopping time of a sequential test, they are slightly biased towards the decision (no
correction is applied).
"""

from __future__ import annotations


import copy
import math
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy as np

from shedsim.output.charts.sprt import plot_llr, plot_pairing  # noqa: F401 - re-exported
from shedsim.analysis.matchup import (  # noqa: F401 - re-exported (the matches every head-to-head test plays)
    Match,
    SPRTError,
    as_rules,
    degenerate_note,
    half_points,
    interval,
    luck_refusal,
    open_match,
    play_units,
    play_units_luck,
    rules_name,
    schedule,
    unit_codes,
)
from shedsim.analysis.pairing import (  # noqa: F401 - re-exported (sprt --compare-pairing)
    Estimate,
    PairingGain,
    pairing_categories,
    pairing_counts,
    pairing_estimates,
    pairing_gain,
    pairing_plan,
)
from shedsim.rules.ruleset import RuleSet
from shedsim.stats import sprt as stats_sprt
from shedsim.stats.control import FittedControlVariate
from shedsim.stats.sprt import (  # noqa: F401 - re-exported
    REGULARIZE,
    brownian_exit,
    elo_to_score,
    gsprt_llr,
    gsprt_llr_mle,
    score_to_elo,
)

DEFINITIONS = {
    "game score": "X's score in one game: 1 if X finished ahead of Y, 0 if behind, 0.5 if "
    "neither finished "
    "(at P > 2 players: the mean over the P - 1 Y seats)",
    "unit": "paired: one deal played under every rotation (a game pair at 2 players); unpaired: "
    "one game "
    "on its own deal",
    "score": (
        "mean unit score of X (a) against Y (b); 0.5 = equal strength; interval = Student t "
        "over units"
    ),
    "elo": "logistic Elo difference X - Y implied by the score, -400 log10(1/score - 1); "
    "interval = image "
    "of the score interval",
    "llr": "generalised log-likelihood ratio of H1 (expected unit score s(elo1)) against H0 "
    "(s(elo0)), "
    "s(e) = 1 / (1 + 10^(-e/400)) (logistic Elo); llr_method normal: the normal approximation "
    "N (s1 - s0)(2 mu - s0 - s1) / (2 var) on unit scores (fishtest LLR_alt2); mle: the exact "
    "ratio of "
    "the maximum-likelihood score distributions with means s1 and s0 (fishtest LLR_logistic); zero "
    "categories regularised with 1e-3 pseudo-counts; no overshoot correction",
    "llr_method": "normal (default) or mle, see llr",
    "control_variate": "true: the test ran on each unit's score less beta times its luck at "
    "the chance events (face-down cards turned over, the last stock draws; valued by greedy "
    "rollouts), beta fitted on the units before; score, its interval and the path are the "
    "corrected ones, counts the raw",
    "lower": "Wald's lower bound ln(beta / (1 - alpha)): at or below it H0 is accepted",
    "upper": "Wald's upper bound ln((1 - beta) / alpha): at or above it H1 is accepted",
    "games": "games played up to this point (units x games per unit)",
    "width": "width of the 95% interval of the score (hi - lo)",
    "variance_ratio": "(unpaired width / paired width)^2: how many times more unpaired games "
    "give the "
    "same precision as paired ones",
}


# ------------------------------------------------------------------ options
def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds (:func:`shedsim.stats.sprt.wald_bounds`) for the
    ``--alpha`` and ``--beta`` options. Raises :class:`SPRTError` naming the option unless
    ``0 < alpha, beta`` and ``alpha + beta < 1``."""
    for name, v in (("--alpha", alpha), ("--beta", beta)):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and 0 < v < 1):
            raise SPRTError(f"{name}: an error rate strictly between 0 and 1, got {v!r}")
    if alpha + beta >= 1:
        raise SPRTError(
            f"--alpha + --beta must be below 1 (got {alpha} + {beta}): the test could not separate "
            f"the hypotheses"
        )
    return stats_sprt.wald_bounds(alpha, beta)


LLR_METHODS = ("normal", "mle")
"""``--llr``: ``normal`` = :func:`gsprt_llr` (fishtest ``LLR_alt2``, the default), ``mle`` =
:func:`gsprt_llr_mle` (fishtest ``LLR_logistic``)."""


# ------------------------------------------------------------------ the SPRT
@dataclass
class SPRTResult:
    """The outcome of :func:`run_sprt`.

    ``decision``: ``"H1"`` (the data favour ``elo1`` over ``elo0``: a difference of ``elo0``
    or less is ruled out, wrongly with chance at most about ``alpha``), ``"H0"`` (they
    favour ``elo0``: a difference of ``elo1`` or more is ruled out, wrongly with chance at
    most about ``beta``), or ``"none"`` (``max_games`` reached first).
    ``games`` = ``units * unit_games`` played and used; ``llr`` the final LLR; ``lower``,
    ``upper`` Wald's bounds; ``path_games`` (int64[units]) and ``path_llr``, ``path_score``
    (float64[units]) the running games, LLR and mean score after every unit; ``counts``
    (int64[K]) the units per score category ``k / (K - 1)``; ``score``, ``lo``, ``hi`` the
    mean unit score of X and its 95% Student t interval over units; ``elo``, ``elo_lo``,
    ``elo_hi`` the same on the logistic Elo scale; ``s0``, ``s1`` the scores of the bounds;
    ``llr_method`` ``"normal"`` or ``"mle"`` (see the module docstring); ``control_variate``:
    the test ran on the corrected unit scores (:mod:`shedsim.kernel.luck`), and ``score``,
    its interval and ``path_score`` are theirs (``counts`` stays the raw scores').
    """

    a: str
    b: str
    rules: str
    players: int
    paired: bool
    seed: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    min_games: int
    decision: str
    games: int
    units: int
    unit_games: int
    llr: float
    lower: float
    upper: float
    s0: float
    s1: float
    score: float
    lo: float
    hi: float
    elo: float
    elo_lo: float
    elo_hi: float
    unfinished: int
    counts: np.ndarray = field(repr=False)
    path_games: np.ndarray = field(repr=False)
    path_llr: np.ndarray = field(repr=False)
    path_score: np.ndarray = field(repr=False)
    llr_method: str = "normal"
    control_variate: bool = False

    @property
    def unit_name(self) -> str:
        return (
            "pairs" if self.paired and self.players == 2 else ("deals" if self.paired else "games")
        )

    def decision_text(self) -> str:
        """One line: what the test decided, as much as it shows. Accepting H1 rules out a
        difference of ``elo0`` or less (wrong with chance at most about ``alpha``), not one
        below ``elo1``; accepting H0 rules out ``elo1`` or more (wrong with chance at most
        about ``beta``), not one above ``elo0``: between the two either decision can come."""
        a, b, e0, e1 = self.a, self.b, self.elo0, self.elo1
        if self.decision == "H1":
            if e0 == 0:
                claim = f"{a} is stronger than {b}"
            elif e0 > 0:
                claim = f"{a} is stronger than {b} by more than {e0:g} Elo"
            else:
                claim = f"{a} is not weaker than {b} by {-e0:g} Elo or more"
            return (
                f"H1 accepted: {claim} (the test rules out a difference of {e0:g} Elo or less, "
                "with chance at "
                f"most about {self.alpha:g} of a wrong H1; it was set to detect {e1:g})"
            )
        if self.decision == "H0":
            return (
                f"H0 accepted: {a} is not stronger than {b} by {e1:g} Elo or more (the test "
                "rules that out, with "
                f"chance at most about {self.beta:g} of a wrong H0; a difference between "
                f"{e0:g} and {e1:g} "
                f"is not ruled out)"
            )
        return (
            f"no decision within --max-games {self.max_games:,}: the LLR stayed between the bounds"
        )

    def path_table(self, max_rows: int = 1000):
        """The LLR path as a DataFrame (games, units, score, llr, lower, upper), thinned to at
        most about ``max_rows`` rows (every k-th unit, always the first and the last)."""
        import pandas as pd

        n = len(self.path_llr)
        step = max(1, math.ceil(n / max_rows))
        pick = np.unique(np.r_[np.arange(0, n, step), n - 1]) if n else np.zeros(0, np.int64)
        return pd.DataFrame(
            {
                "games": self.path_games[pick],
                "units": pick + 1,
                "score": self.path_score[pick],
                "llr": self.path_llr[pick],
                "lower": self.lower,
                "upper": self.upper,
            }
        )

    def to_json(self) -> dict[str, Any]:
        """The scalar fields and counts (JSON-ready)."""
        out = {
            k: getattr(self, k)
            for k in (
                "a",
                "b",
                "rules",
                "players",
                "paired",
                "seed",
                "elo0",
                "elo1",
                "alpha",
                "beta",
                "max_games",
                "min_games",
                "decision",
                "games",
                "units",
                "unit_games",
                "llr",
                "lower",
                "upper",
                "s0",
                "s1",
                "score",
                "lo",
                "hi",
                "elo",
                "elo_lo",
                "elo_hi",
                "unfinished",
                "llr_method",
                "control_variate",
            )
        }
        out["counts"] = [int(c) for c in self.counts]
        out["unit"] = self.unit_name
        return {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in out.items()
        }


@dataclass(frozen=True)
class Progress:
    """What :func:`run_sprt` reports after each batch: games so far, running score and LLR."""

    games: int
    max_games: int
    score: float
    llr: float
    lower: float
    upper: float


def check_options(
    players: int,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    max_games: int,
    min_games: int = 100,
    batch: int = 2000,
    paired: bool = True,
) -> tuple[float, float]:
    """Check the SPRT's numeric options before anything is played; returns Wald's
    (lower, upper) bounds. Raises :class:`SPRTError` naming the option."""
    for name, v in (("--elo0", elo0), ("--elo1", elo1)):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and abs(v) <= 2000):
            raise SPRTError(f"{name}: an Elo difference between -2000 and 2000, got {v!r}")
    if not elo0 < elo1:
        raise SPRTError(f"--elo0 must be below --elo1 (got {elo0:g} and {elo1:g})")
    lower, upper = wald_bounds(alpha, beta)
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise SPRTError(f"--batch: a positive number of games, got {batch!r}")
    unit_games = players if paired else 1
    if (
        isinstance(max_games, bool)
        or not isinstance(max_games, (int, np.integer))
        or max_games < max(2, unit_games)
    ):
        raise SPRTError(f"--max-games: at least {max(2, unit_games)} games, got {max_games!r}")
    if (
        isinstance(min_games, bool)
        or not isinstance(min_games, (int, np.integer))
        or not 0 <= min_games <= max_games
    ):
        raise SPRTError(f"--min-games: between 0 and --max-games ({max_games}), got {min_games!r}")
    return lower, upper


def run_sprt(
    a: str,
    b: str,
    rules: RuleSet | str = "shithead",
    players: int = 2,
    elo0: float = 0.0,
    elo1: float = 5.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    seed: int = 0,
    max_games: int = 200_000,
    paired: bool = True,
    batch: int = 2000,
    min_games: int = 100,
    strategy_paths: tuple[str, ...] = (),
    on_batch: Callable[[Progress], None] | None = None,
    llr: str = "normal",
    control_variate: bool = False,
) -> SPRTResult:
    """Play X = ``a`` against Y = ``b`` until the GSPRT of H0 "X - Y = ``elo0`` Elo" against H1
    "X - Y = ``elo1`` Elo" decides, or ``max_games`` games (rounded down to whole units) are
    played. See the module docstring for the schedule, the scores and the test.

    ``paired``: each deal is played under every rotation (pentanomial model at 2 players);
    otherwise every game has its own deal (trinomial model). ``batch``: games per kernel
    call (rounded up to whole units); the result does not depend on it, nor on anything
    but the arguments. ``min_games``: no decision before this many games (rounded up to
    whole units): the normal approximation needs a few dozen units to estimate the
    variance (after 2 pairs that both scored 1 the regularised variance is about 1e-3 and
    the LLR already passes +2.94: random against random, whose pairs score 1 with chance
    0.22, would accept H1 in about one run in 20 from that alone).
    ``on_batch(Progress)`` is called after each batch. ``llr``: ``"normal"`` (the normal
    approximation, :func:`gsprt_llr`) or ``"mle"`` (the exact ratio, :func:`gsprt_llr_mle`).
    ``control_variate``: test the unit scores less X's luck at the chance events
    (:func:`shedsim.analysis.matchup.play_units_luck`; 2 players, ``llr="normal"``).

    Raises :class:`SPRTError` for a bad option (named), :class:`shedsim.rules.RulesError`
    for bad rules, :class:`shedsim.runs.simulate.SimulationError` when a strategy fails.
    """
    seq = Sequential(
        players, elo0, elo1, alpha, beta, max_games, paired, min_games, llr, batch, control_variate
    )
    match = open_match(a, b, rules, players, seed, strategy_paths)
    check_luck(match, control_variate, paired)
    for u0, u1 in seq.batches():
        seq.feed(*play_test_units(match, u0, u1, paired, control_variate))
        if on_batch is not None:
            on_batch(seq.progress())
        if seq.finished:
            break
    return seq.result(a, b, rules_name(match.spec.rules), seed)


def check_luck(match: Match, control_variate: bool, paired: bool, deals: bool = False) -> None:
    """Raise :class:`SPRTError` naming ``--control-variate`` where it is asked for and cannot
    be used on ``match`` (:func:`shedsim.analysis.matchup.luck_refusal`)."""
    if control_variate:
        why = luck_refusal(match, paired, deals)
        if why is not None:
            raise SPRTError(f"--control-variate: {why}")


def play_test_units(
    match: Match, u0: int, u1: int, paired: bool, control_variate: bool
) -> tuple[np.ndarray, ...]:
    """What :meth:`Sequential.feed` takes for units ``u0..u1-1``: their codes and unfinished
    games (:func:`play_units`), and with the control variate X's luck per unit
    (:func:`shedsim.analysis.matchup.play_units_luck`, :data:`shedsim.kernel.luck.REPS`
    rollouts per value, stock draws from :data:`shedsim.kernel.luck.MAX_STOCK` cards)."""
    if not control_variate:
        return play_units(match, u0, u1, paired)
    from shedsim.kernel.luck import MAX_STOCK, REPS

    return play_units_luck(match, u0, u1, paired, REPS, MAX_STOCK)


def regularised_moments(mom: np.ndarray, n_cat: int, eps: float = REGULARIZE) -> np.ndarray:
    """Running moments of continuous unit scores (float64[..., 3]: units, sum, sum of
    squares) with a pseudo-count ``eps`` of units at each of the ``n_cat`` score categories
    ``k / (n_cat - 1)`` added, as the counts' regularisation gives each empty category one
    (:data:`REGULARIZE`): a few identical scores then have a small positive variance, and
    the LLR stays finite."""
    a = np.arange(n_cat, dtype=np.float64) / (n_cat - 1)
    return np.asarray(mom, np.float64) + eps * np.array([n_cat, a.sum(), (a * a).sum()])


def _mean_var(mom: np.ndarray) -> tuple[float, float]:
    """Mean and variance (divided by N, at least the smallest positive float) from moments
    ``(N, sum, sum of squares)``."""
    mu = float(mom[1] / mom[0])
    return mu, max(float(mom[2] / mom[0] - mu * mu), np.finfo(np.float64).tiny)


def corrected_llr(mom: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """The normal-approximation LLR (as :func:`gsprt_llr`) of continuous unit scores from
    their running moments ``mom`` (float64[R, 3]: units N, sum, sum of squares, regularised:
    :func:`regularised_moments`): ``N (s1 - s0) (2 mu - s0 - s1) / (2 var)``, ``var`` at
    least the smallest positive float. Returns float64[R]."""
    n = mom[:, 0]
    mu = mom[:, 1] / n
    var = np.maximum(mom[:, 2] / n - mu * mu, np.finfo(np.float64).tiny)
    return n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)


class Sequential:
    """The GSPRT's sequential loop over units fed in order, batch by batch (what
    :func:`run_sprt` and the resumable ``shedsim sprt`` run share: the same batches give
    the same floating-point path, whatever played them and whenever).

    Arguments as :func:`run_sprt` (checked by :func:`check_options`; raises
    :class:`SPRTError`). :meth:`batches` gives the units of each batch; :meth:`feed` takes
    one batch's unit codes and unfinished counts (:func:`play_units`) and stops at the first
    unit that crosses a bound (from ``min_games`` on); :attr:`finished` once decided or at
    ``max_games``; :meth:`result` builds the :class:`SPRTResult`."""

    def __init__(
        self,
        players: int,
        elo0: float,
        elo1: float,
        alpha: float,
        beta: float,
        max_games: int,
        paired: bool = True,
        min_games: int = 100,
        llr: str = "normal",
        batch: int = 2000,
        control_variate: bool = False,
    ) -> None:
        self.lower, self.upper = check_options(
            players, elo0, elo1, alpha, beta, max_games, min_games, batch, paired
        )
        if llr not in LLR_METHODS:
            raise SPRTError(f"--llr: one of {', '.join(LLR_METHODS)}, got {llr!r}")
        if control_variate and llr != "normal":
            raise SPRTError(
                "--control-variate: needs --llr normal (the corrected unit scores are not "
                "categories, which --llr mle counts)"
            )
        self.control_variate = bool(control_variate)
        self.fitted = FittedControlVariate()  # the corrected scores so far
        self.llr_fn = gsprt_llr if llr == "normal" else gsprt_llr_mle
        self.players, self.paired, self.llr_method = players, paired, llr
        self.elo0, self.elo1, self.alpha, self.beta = (
            float(elo0),
            float(elo1),
            float(alpha),
            float(beta),
        )
        self.max_games, self.min_games = int(max_games), int(min_games)
        self.s0, self.s1 = float(elo_to_score(elo0)), float(elo_to_score(elo1))
        self.unit_games = players if paired else 1
        self.n_cat = 2 * (players - 1) * self.unit_games + 1
        self.max_units = int(max_games) // self.unit_games
        self.per_batch = max(1, -(-int(batch) // self.unit_games))
        self.min_units = -(-int(min_games) // self.unit_games)
        self.counts = np.zeros(self.n_cat, np.int64)
        self.llr_parts: list[np.ndarray] = []
        self.score_parts: list[np.ndarray] = []
        self.a_vals = np.arange(self.n_cat, dtype=np.float64) / (self.n_cat - 1)
        self.units = 0
        self.unfinished = 0
        self.decision = "none"

    def batches(self) -> list[tuple[int, int]]:
        """``(first unit, last unit + 1)`` of every batch up to ``max_games`` (whole units)."""
        return [
            (u, min(u + self.per_batch, self.max_units))
            for u in range(0, self.max_units, self.per_batch)
        ]

    @property
    def finished(self) -> bool:
        return self.decision != "none" or self.units >= self.max_units

    def feed(
        self, codes: np.ndarray, unfinished: np.ndarray, luck: np.ndarray | None = None
    ) -> bool:
        """Take the next batch's unit codes (int[n]) and unfinished games per unit (int[n]),
        with the control variate also X's luck per unit (float64[n],
        :func:`shedsim.analysis.matchup.play_units_luck`): the test then runs on the
        corrected unit scores ``code / (K - 1) - beta luck``, ``beta`` fitted on the units
        before each (:class:`shedsim.stats.control.FittedControlVariate`), by the normal
        approximation on their mean and variance. The units after a decision are ignored.
        Returns :attr:`finished`."""
        if self.finished:
            return True
        if self.control_variate != (luck is not None):
            raise SPRTError("internal: the control variate's luck must come with it, only")
        n = len(codes)
        onehot = np.zeros((n, self.n_cat), np.int64)
        onehot[np.arange(n), np.asarray(codes, np.int64)] = 1
        cum = self.counts + np.cumsum(onehot, axis=0)
        if luck is None:
            llr_now = self.llr_fn(cum, self.s0, self.s1)
            score_now = (cum * self.a_vals).sum(axis=1) / cum.sum(axis=1)
        else:
            raw = self.a_vals[np.asarray(codes, np.int64)]
            before = copy.deepcopy(self.fitted)
            mom = self.fitted.feed(raw, luck)
            llr_now = corrected_llr(regularised_moments(mom, self.n_cat), self.s0, self.s1)
            score_now = mom[:, 1] / mom[:, 0]
        u = self.units
        live = np.arange(u + 1, u + n + 1) >= self.min_units
        cross = np.flatnonzero(live & ((llr_now >= self.upper) | (llr_now <= self.lower)))
        if len(cross):
            j = int(cross[0])
            self.decision = "H1" if llr_now[j] >= self.upper else "H0"
            llr_now = llr_now[: j + 1]
            n = j + 1
            cum = cum[: j + 1]
            score_now = score_now[: j + 1]
            if luck is not None:  # the units used only
                self.fitted = before
                self.fitted.feed(raw[:n], np.asarray(luck)[:n])
        self.counts = cum[-1]
        self.unfinished += int(np.asarray(unfinished)[:n].sum())  # the games used only
        self.llr_parts.append(llr_now)
        self.score_parts.append(score_now)
        self.units = u + n
        return self.finished

    def expected_units(self) -> int | None:
        """The expected number of units at the decision, from the units fed so far (None
        before the first): the units so far plus the expected time for the LLR, from its
        value now, to leave (lower, upper) (:func:`brownian_exit`), at least ``min_games``
        and at most ``max_games`` (in units). The LLR is treated as a Brownian motion with
        the drift and variance per unit of the normal approximation at the observed unit
        scores (mean ``mu`` and variance ``var`` of the regularised counts, as
        :func:`gsprt_llr`): drift ``(s1 - s0)(2 mu - s0 - s1) / (2 var)``, variance
        ``(s1 - s0)^2 / var``."""
        if self.finished:
            return self.units
        if self.units == 0:
            return None
        if self.control_variate:
            mu, var = _mean_var(regularised_moments(self.fitted.moments(), self.n_cat))
        else:
            c = np.where(self.counts == 0, REGULARIZE, self.counts.astype(np.float64))
            n = c.sum()
            mu = float((c * self.a_vals).sum() / n)
            var = max(
                float((c * self.a_vals * self.a_vals).sum() / n - mu * mu),
                np.finfo(np.float64).tiny,
            )
        d = self.s1 - self.s0
        x = min(
            max(float(self.llr_parts[-1][-1]), self.lower), self.upper
        )  # (before min_games it may lie outside)
        _, left = brownian_exit(
            x, self.lower, self.upper, d * (2.0 * mu - self.s0 - self.s1) / (2.0 * var), d * d / var
        )
        total = max(float(self.units) + left, float(self.min_units))
        return int(min(self.max_units, math.ceil(total)))

    def progress(self) -> Progress:
        """Games so far, the running score and LLR."""
        return Progress(
            self.units * self.unit_games,
            self.max_units * self.unit_games,
            float(self.score_parts[-1][-1]),
            float(self.llr_parts[-1][-1]),
            self.lower,
            self.upper,
        )

    def result(self, a: str, b: str, rules: str, seed: int) -> SPRTResult:
        """The test's outcome after the units fed so far (at least one)."""
        u = self.units
        path_llr = np.concatenate(self.llr_parts)
        path_score = np.concatenate(self.score_parts)
        if self.control_variate:
            from shedsim.stats import t_interval

            score, lo, hi = (float(v) for v in t_interval(*self.fitted.moments()))
        else:
            score, lo, hi = interval(self.counts)
        return SPRTResult(
            a=a,
            b=b,
            rules=rules,
            players=self.players,
            paired=self.paired,
            seed=int(seed),
            elo0=self.elo0,
            elo1=self.elo1,
            alpha=self.alpha,
            beta=self.beta,
            max_games=self.max_games,
            min_games=self.min_games,
            decision=self.decision,
            games=u * self.unit_games,
            units=u,
            unit_games=self.unit_games,
            llr=float(path_llr[-1]),
            lower=self.lower,
            upper=self.upper,
            s0=self.s0,
            s1=self.s1,
            score=score,
            lo=lo,
            hi=hi,
            elo=float(score_to_elo(score)),
            elo_lo=float(score_to_elo(lo)),
            elo_hi=float(score_to_elo(hi)),
            unfinished=self.unfinished,
            counts=self.counts,
            path_games=(np.arange(1, u + 1, dtype=np.int64) * self.unit_games),
            path_llr=path_llr,
            path_score=path_score,
            llr_method=self.llr_method,
            control_variate=self.control_variate,
        )
