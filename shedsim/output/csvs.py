"""The CSV files shedsim writes: every float in a fixed format, so that the same results
give the same bytes (the golden checksums, ``tests/test_golden.py``, rest on it), written
atomically (:func:`shedsim.base.atomic.write_text`).

Formats: rates, shares and places 6 decimals (:data:`FLOAT_FORMATS` names the others:
ratings 3, per-game counts 4, length shares 8), p-values 4 significant digits in
e-notation (:data:`PVALUE_COLUMNS`, every column :func:`is_pvalue_column` names, or the
columns a table names), compare-rules' directions as integers, NaN as an empty cell,
and never ``-0.000``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from shedsim.base import atomic

FLOAT_FORMATS = {
    "rank_direction": 0,
    "median_shift": 0,  # compare-rules' directions: the integers -1, 0, +1
    "win_rate": 6,
    "win_lo": 6,
    "win_hi": 6,
    "loss_rate": 6,
    "loss_lo": 6,
    "loss_hi": 6,
    "mean_place": 6,
    "place_lo": 6,
    "place_hi": 6,
    "rating": 3,
    "rating_se": 3,
    "rating_lo": 3,
    "rating_hi": 3,
    "pickups_per_game": 4,
    "burns_per_game": 4,
    "share_a_ahead": 6,
    "share_lo": 6,
    "share_hi": 6,
    "se": 6,
    "share": 8,
    "cumulative_share": 8,
    "match_win_rate": 6,
    "match_win_lo": 6,
    "match_win_hi": 6,
    "match_loss_rate": 6,
    "match_loss_lo": 6,
    "match_loss_hi": 6,
    "mean_match_place": 6,
    "match_place_lo": 6,
    "match_place_hi": 6,
    "mean_total_places": 6,
}
"""Decimals of a float column (any other float column: 6)."""
PVALUE_COLUMNS = ("p_value", "p_holm")
"""The columns written as p-values when a table names no others."""
_PVALUE_NAME = re.compile(r"(^|_)p(_value|_median|_rank)?(_holm)?(_cv)?$")


def is_pvalue_column(col: str) -> bool:
    """Whether the column ``col`` holds p-values, by its name: ``p_value``, ``p_holm``, ``p_rank``,
    ``p_median`` (each also ``..._holm``), or ``NAME_p`` / ``NAME_p_value`` / ``NAME_p_holm``
    (``loss_p``, ``starter_loss_p_value``), each also ``..._cv`` (the test less the luck:
    ``p_value_cv``); not a probability such as ``p_lose``."""
    return col in PVALUE_COLUMNS or bool(_PVALUE_NAME.search(str(col)))


def format_frame(df, pvalue_columns: Iterable[str] = PVALUE_COLUMNS):
    """A copy of the DataFrame ``df`` with every float column as fixed-format text
    (deterministic CSV bytes): p-values (``pvalue_columns``) 4 significant digits in
    e-notation, as is every column :func:`is_pvalue_column` names (in every command's CSV, so
    a small p is never written as 0); the others as :data:`FLOAT_FORMATS` says (6 decimals
    by default); NaN empty."""
    p_cols = set(pvalue_columns)
    out = df.copy()
    for col in out.columns:
        if col in p_cols or (is_pvalue_column(col) and out[col].dtype.kind in "fiu"):
            out[col] = [("" if np.isnan(v) else f"{v:.4e}") for v in out[col].astype(float)]
        elif out[col].dtype.kind == "f":
            d = FLOAT_FORMATS.get(col, 6)
            out[col] = [("" if np.isnan(v) else f"{v:.{d}f}") for v in out[col]]
            # "-0.000" and "0.000" must not differ by the sign of a rounding
            out[col] = [s[1:] if s.startswith("-") and float(s) == 0 else s for s in out[col]]
    return out


def write_csv(df, path: Path, pvalue_columns: Iterable[str] = PVALUE_COLUMNS) -> None:
    """Write ``df`` to ``path`` as CSV (:func:`format_frame`, no index, ``\\n`` line ends),
    atomically. Raises :class:`shedsim.base.atomic.WriteError` naming the file."""
    atomic.write_text(
        path, format_frame(df, pvalue_columns).to_csv(index=False, lineterminator="\n")
    )
