"""What a number is, and how the report writes it: the kinds of value of shedsim's tables and
run specifications (a count, a rate, a difference of rates in percentage points, a p-value,
an Elo rating, a mean place, moves, seconds, ...).

Each column of each CSV shedsim writes has one declared kind
(:data:`shedsim.output.tables.COLUMNS`); the report formats every cell from it, never from a
guess on the column's name (``shared_first`` is a count, whatever its name suggests).
Each kind formats a value and an interval bound (an estimate and its 95% interval read
``43.06% [42.58, 43.55]``), says whether it is a number (right-aligned) and which values it
can hold (:attr:`Kind.holds`: a rate is a share in [0, 1], a count a whole number >= 0), so
a test can prove every declaration against the data.

Formats follow the console's: rates as percentages with two decimals, differences of rates
in percentage points (pp), p-values in two significant digits (``< 1e-300`` for one that
underflowed to 0), counts with thousands separators, Elo ratings signed with one decimal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable

__all__ = [
    "Kind",
    "format_p",
    "plain",
    "decimals_for",
    "duration",
    "KINDS",
    "TEXT",
    "NAME",
    "CARDS",
    "BOOL",
    "COUNT",
    "INDEX",
    "RATE",
    "PP",
    "P",
    "PROBABILITY",
    "ELO",
    "PLACES",
    "PLACES_DIFF",
    "MOVES",
    "MOVES_DIFF",
    "NUMBER",
    "NUMBER_DIFF",
    "SCORE",
    "LLR",
    "SECONDS",
    "RELATIVE",
    "PARAMETER",
    "DIRECTION",
    "BY_UNIT",
]


def rate_like(metric: str) -> bool:
    """Whether a compared metric (compare-rules' ``effects.csv``) is a rate, a share or a
    skill edge, shown in percent and its effects in percentage points (``unfinished_rate``,
    ``starter_loss_share``, ``skill_edge[greedy]``); the others are moves or counts."""
    return metric.endswith(("_rate", "_share")) or metric.startswith("skill_edge[")


def format_p(p: float, alpha: float = 0.05) -> str:
    """A p-value in two significant digits (``0.067``, ``2.9e-20``), ``< 1e-300`` for one
    that underflowed to 0, ``-`` for none (NaN). Where two digits would put the printed
    value on the other side of ``alpha`` than p itself (0.0496 as ``0.05``), up to four
    digits are used (``0.0496``), then ``< 0.05``: the printed value never contradicts the
    verdict ``p < alpha``."""
    if p != p:
        return "-"
    if p == 0:
        return "< 1e-300"
    for digits in (2, 3, 4):
        text = f"{p:.{digits}g}"
        if (float(text) < alpha) == (p < alpha):
            return text
    return f"< {alpha:g}" if p < alpha else f"{p:.4g}"


def decimals_for(a: float) -> int:
    """Decimals for a number of magnitude ``a``: about four significant digits (three
    decimals below 10, two below 100, one below 10,000, none above)."""
    return 3 if a < 10 else 2 if a < 100 else 1 if a < 10000 else 0


def plain(x: float, decimals: int | None = None) -> str:
    """A number as the console prints it: with thousands separators and ``decimals``
    decimals (default :func:`decimals_for` its magnitude; two significant digits below
    0.001); ``-`` for NaN, ``inf``/``-inf``."""
    if not math.isfinite(x):
        return "-" if x != x else ("inf" if x > 0 else "-inf")
    if decimals is None:
        a = abs(x)
        if 0 < a < 0.001:
            return f"{x:.2g}"
        decimals = decimals_for(a)
    return f"{x:,.{decimals}f}"


def _signed(x: float, decimals: int | None = None) -> str:
    text = plain(x, decimals)
    return text if text.startswith("-") or not math.isfinite(x) else "+" + text


def duration(seconds: float) -> str:
    """A duration in words a reader takes in at once: ``0.4 s``, ``50 s``, ``1 min 6 s``,
    ``2 h 5 min``."""
    if not math.isfinite(seconds):
        return "-"
    if seconds < 10:
        return f"{seconds:.1f} s"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


def _whole(x: float) -> bool:
    return math.isfinite(x) and x == int(x)


def _in01(x: float) -> bool:
    return 0 <= x <= 1


@dataclass(frozen=True)
class Kind:
    """One kind of value: ``name`` (in words), ``numeric`` (a number: right-aligned, parsed
    with ``float``), ``value(x, decimals)`` and ``bound(x, decimals)`` (the text of an
    estimate and of an interval bound; ``decimals`` is the column's, from its largest value,
    used by the kinds whose decimals follow the magnitude), ``holds(x)`` (whether ``x`` can
    be a value of this kind) and ``column_decimals`` (whether a column of this kind writes
    every row with the decimals of its largest value)."""

    name: str
    numeric: bool
    value: Callable[[float, int | None], str] = lambda x, d: plain(x, d)
    bound: Callable[[float, int | None], str] | None = None
    holds: Callable[[float], bool] = lambda x: True
    column_decimals: bool = False

    def fmt(self, x: float, decimals: int | None = None) -> str:
        """The text of the estimate ``x`` (``-`` for NaN)."""
        return "-" if x != x else self.value(x, decimals)

    def fmt_bound(self, x: float, decimals: int | None = None) -> str:
        """The text of an interval bound ``x`` (``-`` for NaN)."""
        if x != x:
            return "-"
        return (self.bound or self.value)(x, decimals)


def _moves(x: float, d: int | None) -> str:
    return plain(x, d if d is not None else 0 if _whole(x) else 1)


TEXT = Kind("text", False)
"""Text shown as written (strategy labels, rule-set names, specs, verdicts, advice)."""
NAME = Kind("name", False)
"""A metric's or an end's identifier, shown with spaces for underscores (``mean_moves`` ->
``mean moves``)."""
CARDS = Kind("cards", False)
"""Card ranks as written (``K 5 5``, ``10``)."""
BOOL = Kind("yes/no", False)
"""``True``/``False``, shown as yes/no."""
COUNT = Kind(
    "count",
    True,
    lambda x, d: f"{int(x):,}" if _whole(x) else plain(x),
    holds=lambda x: _whole(x) and x >= 0,
)
"""A number of things (games, deals, wins, seat-games, cards): a whole number with
thousands separators."""
INDEX = Kind("index", True, lambda x, d: f"{int(x)}" if _whole(x) else plain(x), holds=_whole)
"""An ordinal or a number that names something (a rank in the ranking, a seat, a deal, a
trial): a whole number without separators."""
RATE = Kind(
    "rate", True, lambda x, d: f"{100 * x:.2f}%", lambda x, d: f"{100 * x:.2f}", holds=_in01
)
"""A share of games or cards in [0, 1] (win rate, loss rate, share of comparisons): a
percentage with two decimals; its interval in percent without the sign."""
PP = Kind(
    "percentage points",
    True,
    lambda x, d: f"{100 * x:+.2f} pp",
    lambda x, d: f"{100 * x:+.2f}",
    holds=lambda x: -1 <= x <= 1,
)
"""A difference of two rates (a skill edge, an effect on a rate): signed percentage points."""
P = Kind("p-value", True, lambda x, d: format_p(x), holds=_in01)
"""A p-value: two significant digits (:func:`format_p`)."""
PROBABILITY = Kind("probability", True, lambda x, d: f"{x:.4g}", holds=_in01)
"""A probability that is not a share of games (an error rate such as the SPRT's alpha): up to
four significant digits."""
ELO = Kind("Elo", True, lambda x, d: _signed(x, 1), holds=math.isfinite)
"""A rating or a rating difference in Elo points: signed, one decimal."""
PLACES = Kind("places", True, lambda x, d: f"{x:.3f}", holds=lambda x: x >= 0)
"""A mean finishing place (1 = first out) or a number of places: three decimals."""
PLACES_DIFF = Kind("places difference", True, lambda x, d: f"{x:+.3f}")
"""A difference of mean places: signed, three decimals."""
MOVES = Kind("moves", True, _moves, holds=lambda x: x >= 0)
"""A number of moves or rounds (a mean, a median, a quantile, a bin's first and last): one
decimal, none when whole (an estimate and its bounds together), with thousands separators."""
MOVES_DIFF = Kind("moves difference", True, lambda x, d: _signed(x, 1))
"""A difference of game lengths in moves: signed, one decimal."""
NUMBER = Kind("number", True, lambda x, d: plain(x, d), column_decimals=True)
"""A mean per game (pick-ups, burns) or another measured number: about four significant
digits, the same decimals down the column."""
NUMBER_DIFF = Kind("signed number", True, lambda x, d: _signed(x, d), column_decimals=True)
"""A difference of :data:`NUMBER` values: signed."""
SCORE = Kind("score", True, lambda x, d: f"{x:.4f}", holds=lambda x: x >= 0)
"""A game score (win 1, draw 1/2, loss 0) averaged over games, pairs or trials, its interval
and spread: four decimals, as the console prints it."""
LLR = Kind("log-likelihood ratio", True, lambda x, d: f"{x:+.3f}")
"""The SPRT's log-likelihood ratio and its bounds: signed, three decimals."""
SECONDS = Kind("seconds", True, lambda x, d: f"{x:,.2f}", holds=lambda x: x >= 0)
"""A duration in seconds: two decimals."""
RELATIVE = Kind("relative change", True, lambda x, d: f"{100 * x:+.1f}%")
"""A change relative to the baseline's value: a signed percentage."""
PARAMETER = Kind("parameter value", True, lambda x, d: f"{int(x)}" if _whole(x) else f"{x:g}")
"""A strategy parameter's value (tips' follow/ignore values, tune's trial parameters)."""
DIRECTION = Kind(
    "direction",
    True,
    lambda x, d: f"{int(round(x)):+d}" if round(x) else "0",
    holds=lambda x: x in (-1, 0, 1),
)
"""Which way a test points: the integer +1 (up: longer games, more pick-ups), -1 (down) or 0."""
BY_UNIT = Kind("in the row's unit", True)
"""compare-rules' effects: the value's kind is the row's ``unit`` (``share``: a rate, or
percentage points for the effect; ``moves``; else a number), :func:`for_unit`."""

KINDS = (
    TEXT,
    NAME,
    CARDS,
    BOOL,
    COUNT,
    INDEX,
    RATE,
    PP,
    P,
    PROBABILITY,
    ELO,
    PLACES,
    PLACES_DIFF,
    MOVES,
    MOVES_DIFF,
    NUMBER,
    NUMBER_DIFF,
    SCORE,
    LLR,
    SECONDS,
    RELATIVE,
    PARAMETER,
    DIRECTION,
    BY_UNIT,
)


def for_unit(unit: str, difference: bool) -> Kind:
    """The kind of a compare-rules value in ``unit`` (``share``, ``moves``, ``per game``):
    the effect itself when ``difference``, else a variant's or the baseline's value."""
    if unit == "share":
        return PP if difference else RATE
    if unit == "moves":
        return MOVES_DIFF if difference else MOVES
    return NUMBER_DIFF if difference else NUMBER
