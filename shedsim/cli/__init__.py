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
from shedsim.cli import gauntlet as gauntlet_cmd
from shedsim.cli import ratings as ratings_cmd
from shedsim.cli import common as C
from shedsim.cli.common import CommandGroup
from shedsim.cli import compare as compare_cmd
from shedsim.cli import deals as deals_cmd
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
from shedsim.cli import train as train_cmd
from shedsim.cli import tune as tune_cmd

COMMANDS = (
    (
        "Rules and strategies",
        (("rules", rules_cmd.rules_app), ("strategies", strategies_cmd.strategies_cmd)),
    ),
    (
        "Studies",
        (
            ("tournament", tournament_cmd.tournament),
            ("compare-rules", compare_cmd.compare_rules),
            ("swaps", swaps_cmd.swaps),
            ("sprt", sprt_cmd.sprt),
            ("gauntlet", gauntlet_cmd.gauntlet),
            ("tips", tips_cmd.tips),
            ("tune", tune_cmd.tune),
        ),
    ),
    (
        "Positions and games",
        (
            ("hint", hint_cmd.hint),
            ("play", play_cmd.play),
            ("trace", trace_cmd.trace),
            ("deals", deals_cmd.deals_app),
        ),
    ),
    ("Reports", (("report", report_cmd.report), ("ratings", ratings_cmd.ratings_app))),
    (
        "Tools",
        (
            ("bench", bench_cmd.bench),
            ("compile", strategies_cmd.compile_cmd),
            ("train", train_cmd.train),
            ("scenario", scenario_cmd.scenario_app),
        ),
    ),
)
"""The commands in the order of a user's tasks, one help panel a step: what there is (rule
sets, strategies), the studies, a position or a game, the report of the studies, the tools."""
ORDER = tuple(name for _, commands in COMMANDS for name, _ in commands)
"""Every command's name, in the order ``shedsim --help`` lists them."""


class _Shedsim(CommandGroup):
    """The ``shedsim`` group: commands listed in :data:`ORDER` (typer would list groups last)."""

    def list_commands(self, ctx) -> list[str]:
        rank = {name: i for i, name in enumerate(ORDER)}
        return sorted(super().list_commands(ctx), key=lambda name: rank.get(name, len(rank)))


app = typer.Typer(
    help="shedsim: Monte Carlo strategy analysis for Shithead / Idiot / Palace / Karma.\n\n"
    "Rule sets: duel, nines, family, palace, shithead (see `shedsim rules list`), plus "
    "house toggles with --house. Strategies are plugins (see `shedsim strategies`).",
    epilog="Each command's --help teaches it. The manual (tutorials, how-to guides, every "
    "command, output file and rule) is the docs site: its pages are docs/*.md in the "
    "repository, and `make docs` builds them into site/.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_Shedsim,
)


def _version(value: bool) -> None:
    if value:
        from shedsim.version import __version__

        typer.echo(f"shedsim {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        Optional[bool],
        typer.Option(
            "--version",
            help="Print the installed version (the package metadata) and exit.",
            callback=_version,
            is_eager=True,
        ),
    ] = None,
) -> None:
    """shedsim: Monte Carlo strategy analysis for Shithead / Idiot / Palace / Karma."""


for _panel, _commands in COMMANDS:
    for _name, _what in _commands:
        if isinstance(_what, typer.Typer):
            app.add_typer(_what, name=_name, rich_help_panel=_panel)
        else:
            app.command(_name, rich_help_panel=_panel)(_what)
for _info in app.registered_commands:  # help that names the defaults the plugins' traits select
    if _info.cls in (None, C.TyperCommand):
        _info.cls = C.ChoiceHelp


def listen_to_ctrl_c() -> None:
    """Make SIGINT raise ``KeyboardInterrupt`` even when this process was started with it
    ignored (``SIG_IGN``): a shell runs a background job (``shedsim hint ... &``) that way, and
    Python then leaves SIGINT ignored, so a ``kill -INT`` to the process or its group did
    nothing to a command that does not install its own handler (hint, play, trace, bench
    waiting on a plugin's forked child). Every command then stops on SIGINT as the run
    commands do (exit 130). SIGTERM is left alone. Raises nothing; off the main thread it
    does nothing."""
    import signal

    try:
        if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread
        pass


def main() -> None:  # pragma: no cover
    """Console entry point: run the app, Python warnings shown as plain sentences. Ctrl-C
    while the command line is still being read (before any command starts) exits 130 with
    one line, not a traceback; once a command runs, typer turns it into exit 130 and the
    command's :class:`shedsim.runs.execute.Session` says what was kept."""
    listen_to_ctrl_c()
    try:
        from shedsim.base.notices import plain_warnings

        plain_warnings()
        app()
    except KeyboardInterrupt:
        print("interrupted: nothing was played or written", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
