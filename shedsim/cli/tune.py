"""``shedsim tune``: the typer command (registered in :mod:`shedsim.cli`): options ->
:func:`shedsim.api.tune` -> the findings printed. The search, the confirmation and the
outputs live in :mod:`shedsim.analysis.tune` and :mod:`shedsim.analysis.tune_run`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

import shedsim.cli.options as O
from shedsim.cli.common import choice_help

SAMPLER_SEED_MAX = 2**32 - 1
"""The largest seed optuna's samplers accept (numpy's legacy ``RandomState``)."""
_P_RUN = O.P_RUN
_P_SEARCH = "The search"
PlayersOpt = O.players_option("Seats: the candidate takes one, the field entry the others", 2)
OutOpt = O.out_option(
    "reports/tune",
    "; holds the study (study.db) unless --storage is given; a file there that "
    "shedsim did not write is never replaced",
    earlier="an earlier tune run (with the same options its study goes on, adding trials; "
    "with others it is refused: choose another --out)",
)


def tune(
    strategy: Annotated[
        Optional[str],
        typer.Option(
            "--strategy",
            "-S",
            rich_help_panel=_P_RUN,
            help=(
                "The strategy and its starting parameters: NAME or NAME:param=v (parameters "
                "given here stay fixed; default: "
            )
            + choice_help("tunable")
            + ").",
        ),
    ] = None,
    field: Annotated[
        Optional[str],
        typer.Option(
            "--field",
            "-F",
            rich_help_panel=_P_RUN,
            help=(
                "Comma-separated opponents (NAME or NAME:param=v); default: the reference "
                "opponent, "
            )
            + choice_help("reference")
            + ", and the strategy with its starting parameters.",
        ),
    ] = None,
    rules: O.OptionalRulesOpt = None,
    house: O.HouseOpt = None,
    rules_file: O.RulesFileOpt = None,
    players: PlayersOpt = None,
    strategy_path: O.StrategyPathOpt = None,
    bot: O.BotOpt = None,
    budget: Annotated[
        Optional[int],
        typer.Option(
            "--budget",
            "-b",
            rich_help_panel=_P_SEARCH,
            help=(
                "Completed trials the study should hold (earlier runs and other processes "
                "count) (default: 50)."
            ),
        ),
    ] = None,
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games",
            "-g",
            rich_help_panel=_P_SEARCH,
            help=(
                "Games per trial and field entry (whole deals; the same deals in every trial) "
                "(default: 4000)."
            ),
        ),
    ] = None,
    seed: Annotated[
        Optional[int],
        typer.Option(
            "--seed",
            "-s",
            min=0,
            max=SAMPLER_SEED_MAX,
            rich_help_panel=_P_SEARCH,
            help=(
                "Run seed: the deals of every trial and the sampler's seed (optuna's samplers "
                "take 0 to 4294967295) (default: 0)."
            ),
        ),
    ] = None,
    param: Annotated[
        Optional[list[str]],
        typer.Option(
            "--param",
            rich_help_panel=_P_SEARCH,
            help=(
                "Tune this parameter in this range, NAME=LO:HI or NAME=LO:HI:log, repeatable, "
                "inside the parameter's declared range (`shedsim strategies`); only the "
                "parameters named are tuned (default: all in the plugin's PARAM_SPACE)."
            ),
        ),
    ] = None,
    sampler: Annotated[
        Optional[str],
        typer.Option(
            "--sampler",
            rich_help_panel=_P_SEARCH,
            help="tpe (optuna's Tree-structured Parzen Estimator, the default) or random.",
        ),
    ] = None,
    confirm_games: Annotated[
        Optional[int],
        typer.Option(
            "--confirm-games",
            min=0,
            rich_help_panel=_P_SEARCH,
            help=(
                "Games per match of the confirmation on fresh deals (0: skip it) (default: 20000)."
            ),
        ),
    ] = None,
    out: OutOpt = None,
    resume: Annotated[
        Optional[Path],
        typer.Option(
            "--resume",
            rich_help_panel=O.P_OUT,
            help=(
                "Continue the study kept in this directory with its stored options (plays only "
                "the trials its --budget still lacks); --budget and --confirm-games may be given "
                "anew, other options that decide the results only with their stored values."
            ),
        ),
    ] = None,
    force: O.KeptBesideForceOpt = False,
    storage: Annotated[
        Optional[str],
        typer.Option(
            "--storage",
            rich_help_panel=O.P_OUT,
            help="An optuna storage URL for the study (default: sqlite:///OUT/study.db).",
        ),
    ] = None,
    study_name: Annotated[
        Optional[str],
        typer.Option(
            "--study-name",
            rich_help_panel=O.P_OUT,
            help="Name of the study in the storage (default: shedsim-tune).",
        ),
    ] = None,
    workers: O.WorkersOpt = None,
    backend: O.BackendOpt = "loky",
    scheduler: O.SchedulerOpt = None,
    no_plots: Annotated[
        bool, typer.Option("--no-plots", rich_help_panel=O.P_OUT, help="Skip the PNG charts.")
    ] = False,
    quiet: O.quiet_option("No progress bar (the findings are still printed).") = False,
) -> None:
    """Tune a strategy's integer parameters against a field of opponents (optuna).

    Each trial plays the candidate parameters head to head against every field entry on paired deals (each deal under every rotation); its score is the share of other seats it finished ahead of, averaged over the field. Every trial plays the same deals (common random numbers), so trials differ by their parameters, not by their cards. optuna's TPE sampler proposes the next parameters; the first trial is the starting parameters.

    The study is stored (SQLite in --out by default): shedsim tune --resume OUT (add --storage URL for a study kept elsewhere) resumes it with its stored options after Ctrl-C or a kill (a trial a killed process left running is marked failed), and so does the same command run again; raise --budget to go on, or start the same command in several terminals, also at the same moment, to share the work. A stored study of other options is refused, and so is an option given beside --resume that differs from the stored one (--budget and --confirm-games may differ).

    At the end the best parameters are confirmed on fresh deals, against the starting parameters head to head and against the field, with 95% intervals: the in-sample best score overstates the gain (winner's curse).

    Writes best.toml (the parameters and the spec, NAME:param=v,..., accepted by every command), trials.csv, history.png, importance.png and run.json. Each trial's games are shared between --workers processes; the scores do not depend on the workers.

    Exit codes: 0 done; 1 a strategy failed; 2 bad options or a study of other options; 3 a file could not be written; 130 interrupted (Ctrl-C finishes the trial in progress, a second Ctrl-C stops at once; the completed trials are kept); 143 terminated (SIGTERM, likewise).

    Examples: shedsim tune --budget 12 --games 4000;  shedsim tune --strategy heuristic:search=0 --players 4 --budget 100;  shedsim tune --param track=0:50 --param block=0:4 --budget 30
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim import api

    if bot and field is not None:  # --field LABEL of a --bot LABEL=COMMAND: that bot
        from shedsim.cli.common import bot_entries, bot_spec

        bots = bot_entries(bot, strategy_path)
        field = ",".join(bot_spec(x.strip(), bots) for x in field.split(",") if x.strip())
    r = O.call(
        api.tune,
        strategy=strategy,
        field=field,
        rules=rules,
        house=house,
        rules_file=rules_file,
        players=players,
        budget=budget,
        games=games,
        seed=seed,
        param=param,
        sampler=sampler,
        confirm_games=confirm_games,
        storage=storage,
        study_name=study_name,
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
            default_out="reports/tune",
        ),
    )
    typer.echo("\n".join(r.headline))
    if not quiet:
        typer.echo(f"wrote {', '.join(r.files + ['run.json'])} to {r.out}")
