"""``shedsim sprt``: the typer command (registered in :mod:`shedsim.cli`). Work in progress."""

from __future__ import annotations

import typer


def sprt() -> None:
    """Not built yet."""
    raise typer.Exit(2)
