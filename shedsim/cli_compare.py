"""``shedsim compare-rules``: the typer command (registered in :mod:`shedsim.cli`). Work in progress."""

from __future__ import annotations

import typer


def compare_rules() -> None:
    """Not built yet."""
    raise typer.Exit(2)
