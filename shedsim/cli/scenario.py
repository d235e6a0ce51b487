"""`shedsim scenario run|show`: scenario files (docs/reference/scenarios.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from shedsim.cli.common import (
    CommandGroup,
    HouseOpt,  # noqa: F401
    RulesFileOpt,  # noqa: F401
    RulesOpt,  # noqa: F401
    StrategyPathOpt,  # noqa: F401
    fail,
    load_players,  # noqa: F401
    load_rules,  # noqa: F401
)

scenario_app = typer.Typer(
    help="Run and show scenario files (positions + moves + expectations).",
    no_args_is_help=True,
    cls=CommandGroup,
)


@scenario_app.command("run")
def scenario_run(
    files: Annotated[list[Path], typer.Argument(help="Scenario TOML files.")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print failures only.")] = False,
) -> None:
    """Play each scenario's moves and check its expectations.

    Exit 0 when every expectation holds, 1 when one fails (printing expected and actual),
    2 when a file cannot be read or played (the field is named).
    """
    from shedsim.rules.scenario import ScenarioError, run_scenario

    failed = 0
    invalid = 0
    for f in files:
        try:
            failures = run_scenario(f)
        except ScenarioError as e:
            typer.echo(f"error: {e}", err=True)
            invalid += 1
            continue
        if failures:
            failed += 1
            typer.echo(f"FAIL {f}")
            for x in failures:
                typer.echo(f"  {x.key}: expected {x.expected}, actual {x.actual}")
        elif not quiet:
            typer.echo(f"ok   {f}")
    total = len(files)
    typer.echo(
        f"{total - failed - invalid} passed, {failed} failed"
        + (f", {invalid} invalid" if invalid else "")
    )
    if invalid:
        raise typer.Exit(2)
    if failed:
        raise typer.Exit(1)


@scenario_app.command("show")
def scenario_show(file: Annotated[Path, typer.Argument(help="A scenario TOML file.")]) -> None:
    """Print a scenario's position, its legal moves, and the position after its moves."""
    from shedsim.rules.scenario import ScenarioError, show_scenario

    try:
        typer.echo(show_scenario(file))
    except ScenarioError as e:
        fail(str(e))
