"""The normal suite (``make test``) and the long one (``make test-long``).

A check repeated over every command, signal or edit is a matrix of cases. The normal suite
plays part of it: each command at least once across a file, in a different check each
time; the rest of the matrix is marked ``long`` (left out of ``make test``, played by
``make test-long``), so that ``make test`` stays short on two cores while every case still
has a target that plays it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

LONG = pytest.mark.long


def some(values: Sequence, keep: Sequence) -> list:
    """``values`` as pytest parameters: those in ``keep`` as they are, the others marked
    ``long``. Raises ValueError when ``keep`` names a value that is not in ``values``."""
    missing = [k for k in keep if k not in values]
    if missing:
        raise ValueError(f"keep names {missing}, which are not among {list(values)}")
    return [v if v in keep else pytest.param(v, marks=LONG) for v in values]


def diagonal(rows: Sequence, cols: Sequence, ids=str) -> list:
    """Every pair ``(row, col)`` as pytest parameters: the normal suite plays row ``i`` with
    column ``i mod len(cols)`` (each row once), the others are marked ``long``. ``ids``
    names a value in the test id."""
    out = []
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            marks = () if j == i % len(cols) else (LONG,)
            out.append(pytest.param(r, c, marks=marks, id=f"{ids(r)}-{ids(c)}"))
    return out
