"""``shedsim tips``: the typer command (registered in :mod:`shedsim.cli`): options ->
:func:`shedsim.api.tips` -> the findings printed. The measurement lives in
:mod:`shedsim.analysis.tips`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

import shedsim.cli.options as O
from shedsim.cli.common import choice_help

_P_RUN = O.P_RUN
OutOpt = O.out_option(
    "reports/tips", " (a file there that shedsim did not write is never replaced)"
)


def tips(
    rules: Annotated[
        Optional[list[str]],
        typer.Option(
            "--rules",
            "-r",
            rich_help_panel=_P_RUN,
            help="Rule set (preset or rules .toml file), repeatable; default: every preset.",
        ),
    ] = None,
    house: Annotated[
        Optional[list[str]],
        typer.Option(
            "--house",
            "-H",
            rich_help_panel=_P_RUN,
            help="House toggle for every rule set, repeatable.",
        ),
    ] = None,
    players: Annotated[
        Optional[list[int]],
        typer.Option(
            "--players",
            "-p",
            rich_help_panel=_P_RUN,
            help=(
                "Player count, repeatable; default: 2 and 4 (counts a rule set does not allow "
                "are skipped)."
            ),
        ),
    ] = None,
    tip: Annotated[
        Optional[list[str]],
        typer.Option(
            "--tip",
            "-t",
            rich_help_panel=_P_RUN,
            help="Only this tip, repeatable (default: every tip).",
        ),
    ] = None,
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games",
            "-g",
            rich_help_panel=_P_RUN,
            help="Games per variant (follow, ignore) and cell, whole deals (default: 40000).",
        ),
    ] = None,
    base: Annotated[
        Optional[str],
        typer.Option(
            "--base",
            rich_help_panel=_P_RUN,
            help=(
                "The tested player before a tip is switched: a spec of a strategy with every "
                "tip's parameter (default: "
            )
            + choice_help("tips-base")
            + ").",
        ),
    ] = None,
    opponents: Annotated[
        Optional[str],
        typer.Option(
            "--opponents",
            rich_help_panel=_P_RUN,
            help="Strategy of the other seats (default: the reference opponent, "
            + choice_help("reference")
            + ").",
        ),
    ] = None,
    seed: O.SeedOpt = None,
    strategy_path: O.StrategyPathOpt = None,
    bot: O.BotOpt = None,
    out: OutOpt = None,
    resume: Annotated[
        Optional[Path],
        typer.Option(
            "--resume",
            hidden=True,  # tips keeps no run store: refused, naming it (kept out of --help)
            rich_help_panel=O.P_OUT,
        ),
    ] = None,
    force: O.KeptBesideForceOpt = False,
    workers: O.WorkersOpt = None,
    backend: O.BackendOpt = "loky",
    scheduler: O.SchedulerOpt = None,
    no_plots: Annotated[
        bool, typer.Option("--no-plots", rich_help_panel=O.P_OUT, help="Skip the PNG chart.")
    ] = False,
    quiet: O.quiet_option("No progress bar (the findings are still printed).") = False,
) -> None:
    """Do the beginner tips work? Each tip followed against ignored, everything else equal.

    Every tip of the rule pages is a parameter of the heuristic strategy: save the 10s for a big pile, pick up a small pile rather than spend a special, strong cards face up, pairs together, watch the high cards, block a player about to go out, complete four of a kind, pass the problem on with a 9, take a small pile of specials. For each tip, in each rule set where it applies and at each player count, --base is played with the tip's parameter switched on and off, in one seat against --opponents, on the same paired deals (each deal under every rotation).

    Reports the effect (follow - ignore) on the loss rate and the mean place with 95% t intervals over deals and paired t tests, Holm-corrected over every row, and a verdict by what each rule set scores (the loss rate in duel, family and shithead, the mean place in nines and palace): helps, hurts, helps or hurts a little (significant, below 1 percentage point of loss rate or 0.02 places, its interval reaching beyond), no practical effect (the whole interval within that threshold) or no clear effect (more games would tell); then a summary per tip.

    Writes tips.csv, forest.png and run.json (read by shedsim report).

    The cells are played on --workers processes (each cell's deals shared between them); the results do not depend on the workers.

    Exit codes: 0 done; 1 a strategy failed; 2 bad options; 3 a file could not be written; 130 interrupted (Ctrl-C), 143 terminated (SIGTERM): nothing written.

    Examples: shedsim tips;  shedsim tips --rules shithead --players 4 --games 100000;  shedsim tips --tip pass_on_nine --rules nines
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim import api
    from shedsim.cli.common import bot_entries, bot_spec

    # --opponents LABEL of a --bot LABEL=COMMAND
    opponents = bot_spec(opponents, bot_entries(bot, strategy_path))
    r = O.call(
        api.tips,
        rules=rules,
        house=house,
        players=players,
        tip=tip,
        games=games,
        base=base,
        opponents=opponents,
        seed=seed,
        strategy_path=O.paths_of(strategy_path),
        options=O.run_options(
            out,
            resume,
            force,
            workers,
            backend,
            scheduler,
            quiet,
            no_plots,
            default_out="reports/tips",
        ),
    )
    typer.echo("\n".join(r.headline))
    if not quiet:
        typer.echo(f"wrote {', '.join(r.files + ['run.json'])} to {r.out}")
