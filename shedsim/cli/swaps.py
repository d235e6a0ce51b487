"""``shedsim swaps``: the typer command (registered in :mod:`shedsim.cli`): options ->
:func:`shedsim.api.swaps` -> the policies printed; the study itself is
:mod:`shedsim.analysis.swaps`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

import shedsim.cli.options as O
from shedsim.cli.common import choice_help

_P_RUN = O.P_RUN
PlayersOpt = O.players_option("Seats per table", 3)
OutOpt = O.out_option("reports/swaps")


def swaps(
    rules: O.OptionalRulesOpt = None,
    house: O.HouseOpt = None,
    players: PlayersOpt = None,
    strategy: Annotated[
        Optional[str],
        typer.Option(
            "--strategy",
            "-S",
            rich_help_panel=_P_RUN,
            help=(
                "The play policy S (NAME or NAME:param=v): every seat plays it; its swap is "
                "the one studied in (a) and (d) (default: the reference opponent, "
            )
            + choice_help("reference")
            + ").",
        ),
    ] = None,
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games",
            "-g",
            min=1,
            rich_help_panel=_P_RUN,
            help=(
                "Games for (a)+(b) and again for (c) (rounded up to whole tournament blocks in "
                "(c)) (default: 100000)."
            ),
        ),
    ] = None,
    swap_policy: Annotated[
        Optional[list[str]],
        typer.Option(
            "--swap-policy",
            rich_help_panel=_P_RUN,
            help=(
                "Another strategy whose swap joins the policy comparison (c), repeatable "
                "(LABEL=NAME to name it)."
            ),
        ),
    ] = None,
    deals: Annotated[
        Optional[int],
        typer.Option(
            "--deals",
            min=0,
            rich_help_panel=_P_RUN,
            help="Sample deals for the regret study (d); 0 skips it (default: 200).",
        ),
    ] = None,
    rollouts: Annotated[
        Optional[int],
        typer.Option(
            "--rollouts",
            min=2,
            rich_help_panel=_P_RUN,
            help="Games per face-up choice per deal in (d) (default: 200).",
        ),
    ] = None,
    seat: Annotated[
        Optional[int],
        typer.Option(
            "--seat",
            min=0,
            rich_help_panel=_P_RUN,
            help="The seat whose choices (d) evaluates (default: 0).",
        ),
    ] = None,
    min_games: Annotated[
        Optional[int],
        typer.Option(
            "--min-games",
            min=1,
            rich_help_panel=_P_RUN,
            help="Seat-games a face-up multiset needs to enter the value table (b) (default: 200).",
        ),
    ] = None,
    seed: O.SeedOpt = None,
    strategy_path: O.StrategyPathOpt = None,
    out: OutOpt = None,
    resume: O.ResumeOpt = None,
    force: O.ForceOpt = False,
    workers: O.WorkersOpt = None,
    backend: O.BackendOpt = "loky",
    scheduler: O.SchedulerOpt = None,
    no_plots: O.NoPlotsOpt = False,
    quiet: O.QuietOpt = False,
    stop_after: O.StopAfterOpt = None,
) -> None:
    """Study the swap phase: which cards belong face up.

    (a) what --strategy puts face up against what it was dealt, by rank; (b) a face-up value table: loss rate and mean place by face-up rank multiset, every seat playing --strategy but keeping its face-up cards as dealt; (c) swap policies head to head with the play policy held fixed (no swap, then each face-up rule the built-in strategies declare: <<swaps>>; and each --swap-policy), paired deals; (d) for --deals sample deals, every distinct face-up choice of one seat scored by --rollouts re-deals of what it cannot see, how often the strategy's choice is the best, and its mean regret in places.

    Writes by_rank.csv, face_up_values.csv, policies.csv, policies_head_to_head.csv, regret.csv, their PNG charts and run.json into --out.

    Example: shedsim swaps --rules shithead --players 3 --strategy greedy --games 200000

    Ctrl-C (or SIGTERM) keeps every finished chunk (the reports need the whole study, so none is written); --resume DIR continues, also after a killed run, to the same files as an uninterrupted run.

    Exit codes: 0 done; 1 a strategy failed; 2 bad options, or a --out directory in use or holding other files (nothing is written); 3 a file could not be written; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).
    """  # noqa: E501
    import time

    from shedsim import api

    t0 = time.perf_counter()
    r = O.call(
        api.swaps,
        rules=rules,
        house=house,
        players=players,
        strategy=strategy,
        games=games,
        swap_policy=swap_policy,
        deals=deals,
        rollouts=rollouts,
        seat=seat,
        min_games=min_games,
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
            stop_after,
            default_out="reports/swaps",
        ),
    )
    if not quiet:
        import json

        from rich.table import Table

        from shedsim.output.console import out_console

        tab = Table(title="Swap policies (play policy fixed)")
        for c in ("policy", "loss rate [95%]", "mean place", "rating (Elo)"):
            tab.add_column(c)
        for _, row in r.policies.iterrows():
            tab.add_row(
                str(row["strategy"]),
                f"{row['loss_rate']:.1%} [{row['loss_lo']:.1%}, {row['loss_hi']:.1%}]",
                f"{row['mean_place']:.3f}",
                f"{row['rating']:+.0f}",
            )
        console = out_console()
        console.print(tab)
        for h in r.headline:
            console.print(f"- {h}")
        out_console(stderr=True).print(
            f"wrote {len(r.files) + 1} files to {json.dumps(str(r.out))} in "
            f"{time.perf_counter() - t0:.1f} s"
        )
