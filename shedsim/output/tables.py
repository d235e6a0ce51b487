"""CSV tables as a reader sees them on the report page: numbers formatted as the console
prints them, intervals joined to their estimate, and only the columns a reader needs.

The CSV files stay as written (every digit, every column); :func:`view` only decides what the
page shows:

* an estimate and its interval bounds become one cell, ``43.06% [42.58, 43.55]`` (columns
  ``X`` / ``X_lo`` / ``X_hi``, ``X_rate`` / ``X_lo`` / ``X_hi``, ``mean_X`` / ``X_lo`` /
  ``X_hi``, ``X[name]`` / ``X_lo[name]`` / ``X_hi[name]``, or a bare ``lo`` / ``hi`` after
  the estimate);
* every cell in its column's declared kind (:data:`COLUMNS`, :mod:`shedsim.output.kinds`):
  counts with thousands separators, rates as percentages, differences of rates in
  percentage points, p-values in two significant digits (``< 1e-300`` for one that
  underflowed to 0), Elo ratings signed, compare-rules' effects in their row's ``unit``,
  ``True``/``False`` as yes/no; a column shedsim does not write is shown as text or a plain
  number, never guessed to be a rate from its name;
* columns a reader does not need on the page are left out (:data:`HIDDEN` for known tables,
  :data:`INTERNAL` everywhere: standard errors beside an interval, design effects, test
  statistics, packed keys), and the view names them so the page can link the full CSV.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from shedsim.output import kinds as K

__all__ = [
    "View",
    "view",
    "kinds_of",
    "column_kind",
    "format_p",
    "COLUMNS",
    "TABLE_COLUMNS",
    "TABLE_REST",
    "HIDDEN",
    "INTERNAL",
]

INTERNAL = re.compile(
    r"^(packed|se|.*_se|.*_deff|statistic|rank_statistic|rank_test|test|std_effect)$"
)
"""Columns never shown on the page (they stay in the CSV)."""

HIDDEN: dict[str, set[str]] = {
    "summary.csv": {
        "wins",
        "losses",
        "still_in_at_cap",
        "stalled",
        "loops",
        "capped",
        "burns_per_game",
    },
    "policies.csv": {
        "wins",
        "losses",
        "still_in_at_cap",
        "stalled",
        "loops",
        "capped",
        "burns_per_game",
    },
    "head_to_head.csv": {"deals", "a_ahead", "b_ahead", "ties"},
    "policies_head_to_head.csv": {"deals", "a_ahead", "b_ahead", "ties"},
    "effects.csv": {"baseline", "unit", "paired", "relative", "p_rank"},
    "variants.csv": {
        "loss_rate",
        "rules",
        "toggles",
        "baseline",
        "paired",
        "deals",
        "mean_rounds",
        "median_rounds",
        "p95_rounds",
        "p95_moves",
        "pickups_per_game",
        "burns_per_game",
        "starter_loss_p_value",
        "stalled",
        "loops",
        "capped",
    },
    "face_up_values.csv": {"low", "high", "losses"},
    "seats.csv": {"wins", "losses"},
    "regret.csv": {"policy_loss", "best_loss", "worst_place"},
}
"""Per known CSV name: estimates (by their value column) left off the page."""

COLUMNS: dict[str, K.Kind] = {
    # names and labels
    **dict.fromkeys(
        (
            "strategy",
            "spec",
            "a",
            "b",
            "variant",
            "rules",
            "baseline",
            "toggles",
            "design",
            "state",
            "tip",
            "verdict",
            "advice",
            "param",
            "test",
            "rank_test",
            "unit",
        ),
        K.TEXT,
    ),
    **dict.fromkeys(("metric", "kind"), K.NAME),
    **dict.fromkeys(("face_up", "policy_choice", "best_choice", "worst_choice"), K.CARDS),
    **dict.fromkeys(("paired", "significant", "policy_is_best"), K.BOOL),
    # counts, and numbers that name something
    **dict.fromkeys(
        (
            "games",
            "wins",
            "losses",
            "deals",
            "loser_games",
            "comparisons",
            "a_ahead",
            "b_ahead",
            "ties",
            "unfinished",
            "still_in_at_cap",
            "stalled",
            "loops",
            "capped",
            "matches",
            "rounds",
            "match_wins",
            "match_losses",
            "shared_first",
            "units",
            "unit_games",
            "visible",
            "dealt_up",
            "chosen_up",
            "seat_games",
            "choices",
            "players",
            "forfeits",
            "forfeits_timeout",
            "forfeits_invalid",
            "forfeits_illegal",
            "forfeits_crash",
        ),
        K.COUNT,
    ),
    **dict.fromkeys(("rank", "seat", "deal", "trial", "packed", "low", "high"), K.INDEX),
    # shares of games (or cards) and their differences
    **dict.fromkeys(
        (
            "win_rate",
            "loss_rate",
            "match_win_rate",
            "match_loss_rate",
            "share",
            "cumulative_share",
            "dealt_share",
            "chosen_share",
            "keep_up_rate",
            "unfinished_rate",
            "starter_loss_rate",
            "share_a_ahead",
            "loss_follow",
            "loss_ignore",
            "policy_loss",
            "best_loss",
        ),
        K.RATE,
    ),
    **dict.fromkeys(("skill_edge", "loss_effect"), K.PP),
    **dict.fromkeys(
        (
            "p_value",
            "p_holm",
            "p_rank",
            "loss_p",
            "loss_p_holm",
            "place_p",
            "place_p_holm",
            "starter_loss_p_value",
        ),
        K.P,
    ),
    **dict.fromkeys(("rating", "rating_se"), K.ELO),
    # places, moves and other measured numbers
    **dict.fromkeys(
        (
            "mean_place",
            "mean_match_place",
            "mean_total_places",
            "place_follow",
            "place_ignore",
            "policy_place",
            "best_place",
            "worst_place",
            "regret",
            "regret_se",
        ),
        K.PLACES,
    ),
    "place_effect": K.PLACES_DIFF,
    **dict.fromkeys(
        (
            "moves_from",
            "moves_to",
            "mean_moves",
            "median_moves",
            "p95_moves",
            "mean_rounds",
            "median_rounds",
            "p95_rounds",
        ),
        K.MOVES,
    ),
    **dict.fromkeys(
        ("pickups_per_game", "burns_per_game", "se", "median_deff", "p95_deff", "rank_statistic"),
        K.NUMBER,
    ),
    **dict.fromkeys(("statistic", "std_effect"), K.NUMBER_DIFF),
    **dict.fromkeys(("score", "width", "sd"), K.SCORE),
    **dict.fromkeys(("llr", "lower", "upper"), K.LLR),
    "seconds": K.SECONDS,
    "relative": K.RELATIVE,
    **dict.fromkeys(("follow", "ignore"), K.PARAMETER),
    **dict.fromkeys(("baseline_value", "variant_value", "effect"), K.BY_UNIT),
    # compare-rules' rank and median tests, the starter's fairness, swaps' best and worst sets,
    # tips' objective
    **dict.fromkeys(("p_rank_holm", "p_median", "p_median_holm", "starter_loss_p_holm"), K.P),
    **dict.fromkeys(
        (
            "significant_rank",
            "significant_median",
            "significant_any",
            "in_best_set",
            "in_worst_set",
        ),
        K.BOOL,
    ),
    **dict.fromkeys(("rank_direction", "median_shift"), K.DIRECTION),
    **dict.fromkeys(("median_baseline", "median_variant"), K.MOVES),
    "starter_fair_rate": K.RATE,
    "starter_loss_share": K.RATE,
    "loss_se": K.RATE,
    "place_se": K.PLACES,
    "starter_verdict": K.TEXT,
    "objective": K.NAME,
    "threshold": K.NUMBER,
}
"""The kind of every column of every CSV shedsim writes, declared once per column name (a
column ``X[label]``, one per strategy, is declared as ``X``); the bounds of an interval
(``X_lo``/``X_hi``, ``lo``/``hi``) take their estimate's kind. :data:`TABLE_COLUMNS` holds
the few names that mean something else in one table."""

TABLE_COLUMNS: dict[str, dict[str, K.Kind]] = {
    "by_rank.csv": {"rank": K.CARDS},  # a card rank (2 .. A), not a place in a ranking
    "regret.csv": {"visible": K.CARDS},  # the cards the seat saw, not their number
}
"""Per CSV file name: the columns whose kind differs there from :data:`COLUMNS`."""

TABLE_REST: dict[str, K.Kind] = {"trials.csv": K.PARAMETER}
"""Per CSV file name: the kind of every column not declared otherwise (tune's trials.csv has
one column per tuned parameter of the strategy)."""

NAMES = {
    "p_value": "p",
    "p_holm": "p (Holm)",
    "share_a_ahead": "a ahead of b",
    "mean_place": "mean place",
    "keep_up_rate": "kept face up",
    "rating": "rating (Elo)",
    "still_in_at_cap": "still in when stopped",
    "shared_first": "shared first place",
    "loss_p": "loss p",
    "loss_p_holm": "loss p (Holm)",
    "place_p": "place p",
    "place_p_holm": "place p (Holm)",
    "starter_loss_p_value": "starter loss p",
}
"""Column headers on the page where the column's name does not read well with spaces."""


def column_kind(table: str, column: str) -> K.Kind | None:
    """The declared kind of ``column`` (``X[label]`` counts as ``X``) in the CSV named
    ``table`` (its file name), or None for a column shedsim does not write."""
    stem = _split(column)[0]
    own = TABLE_COLUMNS.get(table, {})
    if stem in own:
        return own[stem]
    return COLUMNS.get(stem, TABLE_REST.get(table))


@dataclass(frozen=True)
class View:
    """What the page shows of a table: ``header`` (display names), ``rows`` (formatted cells,
    one list per shown row, ``len(header)`` each), ``numeric`` (per shown column: align right)
    and ``hidden`` (CSV columns not shown, in file order)."""

    header: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    hidden: list[str]


format_p = K.format_p


def _float(s: str) -> float | None:
    s = s.strip()
    if not s:
        return None
    try:
        return float(s)
    except ValueError:
        return None


def _split(name: str) -> tuple[str, str]:
    """``loss_lo[random]`` -> (``loss_lo``, ``[random]``)."""
    m = re.fullmatch(r"(.*?)(\[.*\])", name)
    return (m.group(1), m.group(2)) if m else (name, "")


def _groups(header: list[str]) -> dict[int, tuple[int, int]]:
    """Estimate column index -> (lo index, hi index) for every interval found."""
    idx = {c: i for i, c in enumerate(header)}
    out: dict[int, tuple[int, int]] = {}
    used: set[int] = set()
    for i, c in enumerate(header):
        stem, tail = _split(c)
        if stem == "lo" or stem.endswith("_lo"):
            base = stem[:-3] if stem != "lo" else ""
            hi = idx.get((base + "_hi" if base else "hi") + tail)
            if hi is None:
                continue
            value = None
            if base:
                for cand in (base, base + "_rate", "mean_" + base, base + "_share"):
                    if cand + tail in idx and idx[cand + tail] not in used:
                        value = idx[cand + tail]
                        break
                if value is None:  # share_a_ahead / share_lo
                    value = next(
                        (
                            j
                            for j in range(i - 1, -1, -1)
                            if _split(header[j])[0].startswith(base + "_")
                            and _split(header[j])[1] == tail
                            and j not in used
                        ),
                        None,
                    )
            else:
                value = i - 1 if i > 0 and (i - 1) not in used else None
            if value is not None:
                out[value] = (i, hi)
                used.update((value, i, hi))
    return out


def _display_name(c: str) -> str:
    stem, tail = _split(c)
    text = NAMES.get(stem, stem.replace("_", " "))
    return text + (" " + tail if tail else "")


def _guess(cells: list[str]) -> K.Kind:
    """The kind of a column shedsim does not declare (a CSV of another program): yes/no,
    text, whole numbers (with separators) or a plain number; never a rate or a p-value from
    its name."""
    vals = [c.strip() for c in cells if c.strip()]
    if vals and all(v in ("True", "False") for v in vals):
        return K.BOOL
    if not vals or not all(_float(v) is not None for v in vals):
        return K.TEXT
    if all(re.fullmatch(r"[+-]?\d+", v) for v in vals):
        return K.COUNT
    return K.NUMBER


def kinds_of(name: str, header: list[str], rows: list[list[str]]) -> list[K.Kind]:
    """Per column of the CSV ``name`` with ``header``: its declared kind
    (:func:`column_kind`), a bound's estimate's kind for the bounds of an interval, else a
    guess from the cells (:func:`_guess`)."""
    out: list[K.Kind | None] = [column_kind(name, c) for c in header]
    for value, (lo, hi) in _groups(header).items():
        out[lo] = out[hi] = out[value]
    return [k if k is not None else _guess([r[i] for r in rows]) for i, k in enumerate(out)]


def view(name: str, header: list[str], rows: list[list[str]]) -> View:
    """The page's view of the CSV ``name`` (its file name) with ``header`` and ``rows`` (cell
    text as written): see the module docstring. Every cell is formatted from its column's
    kind (:func:`kinds_of`). Never raises on odd cells: a cell that does not read as its
    kind is shown as written."""
    groups = _groups(header)
    bound = {j for lo_hi in groups.values() for j in lo_hi}
    hide_names = HIDDEN.get(name, set())
    unit_col = header.index("unit") if "unit" in header else None
    n = len(header)
    cols = [i for i in range(n) if i not in bound]
    shown, hidden = [], []
    for i in cols:
        c = header[i]
        if (
            INTERNAL.match(_split(c)[0])
            or c in hide_names
            or (_split(c)[1] and _split(c)[0] in hide_names)
            or (rows and all(not r[i].strip() for r in rows))
        ):
            hidden.append(i)
        else:
            shown.append(i)
    # spec equal to strategy in every row says nothing
    if "spec" in header and "strategy" in header:
        si, ti = header.index("spec"), header.index("strategy")
        if si in shown and all(r[si] == r[ti] for r in rows):
            shown.remove(si)
            hidden.append(si)
    hidden_names = [header[i] for i in sorted(hidden)] + [
        header[j] for i in sorted(hidden) if i in groups for j in groups[i]
    ]
    kinds = kinds_of(name, header, rows)
    # one number of decimals per column (from its largest value), so that a column reads evenly
    col_dec: dict[int, int] = {}
    for i in shown:
        vals = [abs(v) for v in (_float(r[i]) for r in rows) if v is not None and math.isfinite(v)]
        if vals and kinds[i].column_decimals:
            col_dec[i] = K.decimals_for(max(vals))
    out_rows = []
    for r in rows:
        cells = []
        for i in shown:
            kind = kinds[i]
            if kind is K.BY_UNIT:
                unit = r[unit_col].strip() if unit_col is not None else ""
                kind = K.for_unit(unit, header[i] == "effect")
            cells.append(_cell(r, i, kind, groups.get(i), col_dec.get(i)))
        out_rows.append(cells)
    numeric = [kinds[i].numeric for i in shown]
    return View([_display_name(header[i]) for i in shown], out_rows, numeric, hidden_names)


def _cell(
    r: list[str], i: int, kind: K.Kind, group: tuple[int, int] | None, decimals: int | None
) -> str:
    """Cell ``i`` of row ``r`` as the page shows it: text kinds as written (a name with
    spaces for underscores, yes/no for a boolean), a number in its kind's format with its
    interval bounds (columns ``group``) in brackets."""
    text = r[i].strip()
    if not kind.numeric:
        if kind is K.NAME:
            return r[i].replace("_", " ")
        if kind is K.BOOL:
            return {"True": "yes", "False": "no"}.get(text, text)
        return r[i]
    x = _float(text)
    if x is None:
        return r[i]
    lo, hi = (_float(r[j]) for j in group) if group is not None else (None, None)
    if kind is K.MOVES:  # whole moves (medians, quantiles, bins) without decimals
        decimals = (
            0 if all(v is None or (math.isfinite(v) and v == int(v)) for v in (x, lo, hi)) else 1
        )
    elif kind.column_decimals and decimals is None:
        decimals = K.decimals_for(abs(x))
    value = kind.fmt(x, decimals)
    if lo is None or hi is None:
        return value
    return f"{value} [{kind.fmt_bound(lo, decimals)}, {kind.fmt_bound(hi, decimals)}]"
