"""The ``shedsim`` command line (typer).

Heavy imports (numba, pandas, matplotlib) happen inside the commands that need them, so
``shedsim --help`` answers at once. Bad input exits with code 2 and a message naming the
field; a failed scenario expectation exits 1.

One thin module per command (parse options, call one function in the layers below, print);
this package only builds the typer app and registers them.
"""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from shedsim.cli import bench as bench_cmd
from shedsim.cli import compare as compare_cmd
from shedsim.cli import hint as hint_cmd
from shedsim.cli import play as play_cmd
from shedsim.cli import report as report_cmd
from shedsim.cli import rules as rules_cmd
from shedsim.cli import scenario as scenario_cmd
from shedsim.cli import sprt as sprt_cmd
from shedsim.cli import strategies as strategies_cmd
from shedsim.cli import swaps as swaps_cmd
from shedsim.cli import tips as tips_cmd
from shedsim.cli import tournament as tournament_cmd
from shedsim.cli import trace as trace_cmd
from shedsim.cli import tune as tune_cmd

app = typer.Typer(
    help="shedsim: Monte Carlo strategy analysis for Shithead / Idiot / Palace / Karma.\n\n"
         "Rule sets: duel, nines, family, palace, shithead (see `shedsim rules list`), plus "
         "house toggles with --house. Strategies are plugins (see `shedsim strategies`).",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


def _version(value: bool) -> None:
    if value:
        from shedsim import __version__
        typer.echo(f"shedsim {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: Annotated[Optional[bool], typer.Option(
        "--version", help="Print the installed version (the package metadata) and exit.",
        callback=_version, is_eager=True)] = None) -> None:
    """shedsim: Monte Carlo strategy analysis for Shithead / Idiot / Palace / Karma."""


app.add_typer(rules_cmd.rules_app, name="rules")
app.add_typer(scenario_cmd.scenario_app, name="scenario")
app.command("trace")(trace_cmd.trace)
app.command("strategies")(strategies_cmd.strategies_cmd)
app.command("compile")(strategies_cmd.compile_cmd)
app.command("bench")(bench_cmd.bench)
app.command("tournament")(tournament_cmd.tournament)
app.command("compare-rules")(compare_cmd.compare_rules)
app.command("swaps")(swaps_cmd.swaps)
app.command("sprt")(sprt_cmd.sprt)
app.command("report")(report_cmd.report)
app.command("tune")(tune_cmd.tune)
app.command("tips")(tips_cmd.tips)
app.command("hint")(hint_cmd.hint)
app.command("play")(play_cmd.play)


def main() -> None:  # pragma: no cover
    """Console entry point: run the app, Python warnings shown as plain sentences."""
    from shedsim.runs.notices import plain_warnings
    plain_warnings()
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
