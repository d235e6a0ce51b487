"""``shedsim swaps``: the typer command (registered in :mod:`shedsim.cli`). Work in progress."""

from __future__ import annotations

import typer


def swaps() -> None:
    """Not built yet."""
    raise typer.Exit(2)
