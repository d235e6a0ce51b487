"""CSV tables as a reader sees them on the report page: numbers formatted as the console
prints them, intervals joined to their estimate, and only the columns a reader needs.

The CSV files stay as written (every digit, every column); :func:`view` only decides what the
page shows:

* an estimate and its interval bounds become one cell, ``43.06% [42.58, 43.55]`` (columns
  ``X`` / ``X_lo`` / ``X_hi``, ``X_rate`` / ``X_lo`` / ``X_hi``, ``mean_X`` / ``X_lo`` /
  ``X_hi``, ``X[name]`` / ``X_lo[name]`` / ``X_hi[name]``, or a bare ``lo`` / ``hi`` after
  the estimate);
* rates and shares (columns named ``*rate*``, ``*share*``, ``score``, skill gaps and
  edges, and effects whose ``unit`` is ``share``) as percentages, or percentage points for
  an effect; p-values in two significant digits (``< 1e-300`` for one that underflowed to
  0); whole numbers with thousands separators; ``True``/``False`` as yes/no;
* columns a reader does not need on the page are left out (:data:`HIDDEN` for known tables,
  :data:`INTERNAL` everywhere: standard errors beside an interval, design effects, test
  statistics, packed keys), and the view names them so the page can link the full CSV.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["View", "view", "format_p", "HIDDEN", "INTERNAL"]

INTERNAL = re.compile(r"^(packed|se|.*_se|.*_deff|statistic|rank_statistic|rank_test|test|std_effect)$")
"""Columns never shown on the page (they stay in the CSV)."""

HIDDEN: dict[str, set[str]] = {
    "summary.csv": {"wins", "losses", "still_in_at_cap", "stalled", "loops", "capped", "burns_per_game"},
    "policies.csv": {"wins", "losses", "still_in_at_cap", "stalled", "loops", "capped", "burns_per_game"},
    "head_to_head.csv": {"deals", "a_ahead", "b_ahead", "ties"},
    "policies_head_to_head.csv": {"deals", "a_ahead", "b_ahead", "ties"},
    "effects.csv": {"baseline", "unit", "paired", "relative", "p_rank"},
    "variants.csv": {"loss_rate", "rules", "toggles", "baseline", "paired", "deals", "mean_rounds", "median_rounds",
                     "p95_rounds", "p95_moves", "pickups_per_game", "burns_per_game", "starter_loss_p_value", "stalled", "loops", "capped"},
    "face_up_values.csv": {"low", "high", "losses"},
    "seats.csv": {"wins", "losses"},
    "regret.csv": {"policy_loss", "best_loss", "worst_place"},
}
"""Per known CSV name: estimates (by their value column) left off the page."""

PCT_NAME = re.compile(r"(rate|share|^score$|skill_gap|skill_edge)")
P_NAME = re.compile(r"^(p|p_value|p_holm|p_rank|p_median|p_.*_holm|.*_p_value|.*_p|.*_p_holm)$")


@dataclass(frozen=True)
class View:
    """What the page shows of a table: ``header`` (display names), ``rows`` (formatted cells,
    one list per shown row, ``len(header)`` each), ``numeric`` (per shown column: align right)
    and ``hidden`` (CSV columns not shown, in file order)."""

    header: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    hidden: list[str]


def format_p(p: float) -> str:
    """A p-value in two significant digits (``0.067``, ``2.9e-20``), ``< 1e-300`` for one
    that underflowed to 0, ``-`` for none (NaN)."""
    if p != p:
        return "-"
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def _float(s: str) -> float | None:
    s = s.strip()
    if not s:
        return None
    try:
        return float(s)
    except ValueError:
        return None


def _is_int(s: str) -> bool:
    return bool(re.fullmatch(r"[+-]?\d+", s.strip()))


def _plain(x: float, decimals: int | None = None) -> str:
    """A number as the console prints it: whole numbers with separators, otherwise about
    four significant digits (three decimals below 10, one from 100)."""
    if not math.isfinite(x):
        return "-" if x != x else ("inf" if x > 0 else "-inf")
    if decimals is None:
        a = abs(x)
        decimals = 3 if a < 10 else 2 if a < 100 else 1 if a < 10000 else 0
        if 0 < a < 0.001:
            return f"{x:.2g}"
    return f"{x:,.{decimals}f}"


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
                    value = next((j for j in range(i - 1, -1, -1) if _split(header[j])[0].startswith(base + "_")
                                  and _split(header[j])[1] == tail and j not in used), None)
            else:
                value = i - 1 if i > 0 and (i - 1) not in used else None
            if value is not None:
                out[value] = (i, hi)
                used.update((value, i, hi))
    return out


def _display_name(c: str) -> str:
    stem, tail = _split(c)
    names = {"p_value": "p", "p_holm": "p (Holm)", "share_a_ahead": "a ahead of b", "mean_place": "mean place",
             "keep_up_rate": "kept face up"}
    text = names.get(stem, stem.replace("_", " "))
    return text + (" " + tail if tail else "")


def view(name: str, header: list[str], rows: list[list[str]]) -> View:
    """The page's view of the CSV ``name`` (its file name) with ``header`` and ``rows`` (cell
    text as written): see the module docstring. Never raises on odd cells: a cell that is not
    a number is shown as written."""
    groups = _groups(header)
    bound = {j for lo_hi in groups.values() for j in lo_hi}
    hide_names = HIDDEN.get(name, set())
    unit_col = header.index("unit") if "unit" in header and "effect" in header else None
    n = len(header)
    cols = [i for i in range(n) if i not in bound]
    shown, hidden = [], []
    for i in cols:
        c = header[i]
        if (INTERNAL.match(_split(c)[0]) or c in hide_names or (_split(c)[1] and _split(c)[0] in hide_names)
                or (rows and all(not r[i].strip() for r in rows))):
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
        header[j] for i in sorted(hidden) if i in groups for j in groups[i]]
    kinds = {i: _kind(header[i], [r[i] for r in rows]) for i in shown}
    effect_cols = {header.index(c) for c in ("effect", "baseline_value", "variant_value") if c in header}
    # one number of decimals per column (from its largest value), so that a column reads evenly
    col_dec: dict[int, int] = {}
    for i in shown:
        vals = [abs(v) for v in (_float(r[i]) for r in rows) if v is not None and math.isfinite(v)]
        if vals and unit_col is None:
            col_dec[i] = _decimals(max(vals))
    out_rows = []
    for r in rows:
        unit = r[unit_col].strip() if unit_col is not None else None
        cells = []
        for i in shown:
            kind = kinds[i]
            if unit is not None and i in effect_cols:
                kind = ("pp" if header[i] == "effect" else "pct") if unit == "share" else (
                    "signed" if header[i] == "effect" else "num")
            cells.append(_cell(r, i, kind, groups.get(i), unit, metric=header[i] == "metric",
                               rating=header[i] == "rating", decimals=col_dec.get(i)))
        out_rows.append(cells)
    numeric = [kinds[i] != "text" for i in shown]
    return View([_display_name(header[i]) for i in shown], out_rows, numeric, hidden_names)


def _kind(col: str, cells: list[str]) -> str:
    vals = [c.strip() for c in cells if c.strip()]
    if vals and all(v in ("True", "False") for v in vals):
        return "bool"
    if not vals or not all(_float(v) is not None for v in vals):
        return "text"
    stem = _split(col)[0]
    if P_NAME.match(stem):
        return "p"
    if PCT_NAME.search(stem) and not stem.startswith("rating"):
        return "pp" if stem.startswith(("skill_gap", "skill_edge")) else "pct"
    if all(_is_int(v) for v in vals):
        return "int"
    if stem == "rating":
        return "signed"
    return "num"


def _fmt(x: float, kind: str, decimals: int | None) -> str:
    if x != x:
        return "-"
    if kind == "pct":
        return f"{100 * x:.2f}%"
    if kind == "pp":
        return f"{100 * x:+.2f} pp"
    if kind == "signed":
        return ("+" if x >= 0 else "") + _plain(x, 1 if decimals is None else decimals)
    return _plain(x, decimals)


def _bound(x: float, kind: str, decimals: int | None) -> str:
    if x != x:
        return "-"
    if kind == "pct":
        return f"{100 * x:.2f}"
    if kind == "pp":
        return f"{100 * x:+.2f}"
    if kind == "signed":
        return ("+" if x >= 0 else "") + _plain(x, 1 if decimals is None else decimals)
    return _plain(x, decimals)


def _decimals(a: float) -> int:
    """Decimals for a number of magnitude ``a``: about four significant digits."""
    return 3 if a < 10 else 2 if a < 100 else 1 if a < 10000 else 0


def _cell(r: list[str], i: int, kind: str, group: tuple[int, int] | None, unit: str | None,
          metric: bool = False, rating: bool = False, decimals: int | None = None) -> str:
    text = r[i].strip()
    if kind == "text":
        return r[i].replace("_", " ") if metric else r[i]
    if kind == "bool":
        return {"True": "yes", "False": "no"}.get(text, text)
    x = _float(text)
    if x is None:
        return r[i]
    if kind == "p":
        return format_p(x)
    if kind == "int" and group is None:
        return f"{int(text):,}"
    if kind in ("num", "signed", "int"):
        if decimals is None:
            decimals = _decimals(abs(x))
        if unit == "moves" or rating:
            decimals = 1
        if kind == "int":
            kind = "num"
            decimals = 0
    lo, hi = (_float(r[j]) for j in group) if group is not None else (None, None)
    if kind == "num" and all(v is None or (math.isfinite(v) and v == int(v)) for v in (x, lo, hi)):
        decimals = 0  # medians and quantiles of whole moves
    value = _fmt(x, kind, decimals)
    if lo is None or hi is None:
        return value
    return f"{value} [{_bound(lo, kind, decimals)}, {_bound(hi, kind, decimals)}]"
