"""``shedsim tournament``: the typer command (registered in :mod:`shedsim.cli`): options ->
:func:`shedsim.api.tournament` -> the ranking printed.

Only typer and the standard library are imported here at module level, so ``shedsim
--help`` stays fast; numpy, numba, pandas, matplotlib and the statistics libraries are
imported inside the command.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

import shedsim.cli.options as O
from shedsim.cli.common import choice_help

_P_RUN = O.P_RUN
PlayersOpt = O.players_option("Seats per table", 4)
OutOpt = O.out_option("reports/latest")


def tournament(
    ctx: typer.Context,
    rules: O.OptionalRulesOpt = None,
    house: O.HouseOpt = None,
    rules_file: O.RulesFileOpt = None,
    players: PlayersOpt = None,
    strategies: Annotated[
        Optional[str],
        typer.Option(
            "--strategies",
            "-S",
            rich_help_panel=_P_RUN,
            help=(
                "Comma-separated entries: NAME, NAME:param=v, or LABEL=SPEC, or @ROLE for the "
                "built-in strategies a role selects by their traits (@default, @ladder, ...; "
                "`shedsim strategies` lists them); a strategy named twice gets NAME#2 (A/A "
                "test) (default: "
            )
            + choice_help("default")
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
                "Games to play, rounded up to whole blocks (every table x every rotation x "
                "rounds) (default: 200000)."
            ),
        ),
    ] = None,
    seed: O.SeedOpt = None,
    rounds: Annotated[
        Optional[int],
        typer.Option(
            "--rounds",
            min=1,
            max=10,
            rich_help_panel=_P_RUN,
            help=(
                "Rounds per match (1-10), scored by summed places as palace does; >1 adds "
                "matches.csv (default: 1)."
            ),
        ),
    ] = None,
    seat_orders: Annotated[
        Optional[str],
        typer.Option(
            "--seat-orders",
            rich_help_panel=_P_RUN,
            help=(
                "all: every table in every cyclic seating order (who plays after whom); "
                "sorted: one order per table (default: all)."
            ),
        ),
    ] = None,
    strategy_path: O.StrategyPathOpt = None,
    bot: O.BotOpt = None,
    time_per_move: O.TimePerMoveOpt = 1000,
    time_per_game: O.TimePerGameOpt = None,
    chunk_size: Annotated[
        Optional[int],
        typer.Option(
            "--chunk-size",
            min=1,
            rich_help_panel=_P_RUN,
            help=(
                "Games per chunk of work, rounded to whole blocks (default: about games/16, at "
                "most 20000)."
            ),
        ),
    ] = None,
    save_games: Annotated[
        bool,
        typer.Option(
            "--save-games",
            rich_help_panel=O.P_OUT,
            help=(
                "Also write every game's record as Parquet (DIR/games/NNNNN.parquet, one file "
                "per chunk)."
            ),
        ),
    ] = False,
    out: OutOpt = None,
    resume: O.ResumeOpt = None,
    force: O.ForceOpt = False,
    workers: O.WorkersOpt = None,
    backend: O.BackendOpt = "loky",
    scheduler: O.SchedulerOpt = None,
    no_plots: O.NoPlotsOpt = False,
    quiet: O.QuietOpt = False,
    stop_after: O.StopAfterOpt = None,
    deals: O.DealsOpt = None,
    control_variate: Annotated[
        Optional[bool],
        typer.Option(
            "--control-variate/--no-control-variate",
            rich_help_panel=_P_RUN,
            help=(
                "Also report each pair's head to head less each deal's luck (head_to_head.csv: "
                "share_cv and its interval): at every face-down card turned over and the last "
                "stock draws, the card's effect on the chance of winning, valued by greedy "
                "rollouts (AIVAT), is taken out; the mean is unchanged, the interval "
                "narrower where luck decides much. 2 players, shuffled deals, no bot. Default: "
                "on where it can be used, a search strategy is seated (a game's rollouts "
                "cost more than a cheap game: fewer games save time only where games are "
                "dear) and the games are enough to fit it for every pair; off otherwise."
            ),
        ),
    ] = None,
) -> None:
    """Play a fair tournament between strategies and write its statistics and charts.

    Every table of --players seats drawn from the entries, in every seating order, under every rotation, with paired deals (one shuffled deal replayed under each rotation).

    Writes summary.csv, head_to_head.csv, seats.csv, lengths.csv (and matches.csv with --rounds > 1), PNG charts and run.json into --out, and prints the ranking. Ctrl-C keeps every finished chunk and writes partial results; --resume DIR continues (also after a killed run).

    --out must be a new or empty directory or one holding an earlier tournament run (replaced); another command's run and a directory in use by another run is refused.

    Exit codes: 0 done; 1 a strategy or worker failed; 2 bad options or input, or a directory in use or holding other files (nothing is written); 3 a file could not be written (disk full: finished chunks are kept, --resume DIR continues); 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).

    With no options: shithead, 4 players, 200,000 games, into reports/latest/, with the default field: <<default>>.

    Examples: shedsim tournament;  shedsim tournament --strategies greedy,heuristic,random --players 3 --games 30000 --out reports/three;  shedsim tournament --rules nines --house low7 --rounds 2;  shedsim tournament --resume reports/latest
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim import api

    O.refuse_bot_time(ctx, bot, resume)
    from shedsim.analysis.tournament import default_strategies

    if bot and resume is not None:  # the stored run's entries hold its bots (spec.json)
        from shedsim.cli.common import fail

        fail("--resume: --bot cannot be given with --resume: the stored run's bots play on")
    strategies = O.bot_entry_specs(
        strategies,
        bot,
        default_strategies(O.paths_of(strategy_path) or ()) if bot else [],
        strategy_path,
    )
    r = O.call(
        api.tournament,
        strategies=strategies,
        players=players,
        games=games,
        seed=seed,
        rules=rules,
        house=house,
        rules_file=rules_file,
        rounds=rounds,
        seat_orders=seat_orders,
        strategy_path=O.paths_of(strategy_path),
        chunk_size=chunk_size,
        save_games=save_games,
        bot_time=(time_per_move, time_per_game),
        deals=deals,
        control_variate=control_variate,
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
            default_out="reports/latest",
        ),
    )
    if not quiet:
        _print_table(r.spec, r.run.res, complete=r.complete)
        o = r.run.outcome
        from shedsim.analysis.tournament import describe_ends

        from shedsim.runs.progress import rate_text

        rate = rate_text(o.games_per_s())
        typer.echo(
            f"{int(r.info['games_in_results']):,} games "
            f"({describe_ends(r.info['ends'], r.spec.rules)}); "
            f"played {o.played_now:,} now in {o.play_s:.1f} s ({rate}); wall {r.run.wall_s:.1f} s"
        )
        typer.echo(f"wrote {', '.join(r.files + ['run.json'])} to {str(r.out)}")
    O.finish(r)


def _print_table(spec, res, complete: bool) -> None:
    """The ranking table and, for a run of matches, the match standings, on the console."""
    from shedsim.output.console import out_console, ranking_table, standings_table

    console = out_console()
    console.print(ranking_table(spec, res, complete))
    if res.matches is not None:
        console.print(standings_table(spec.rounds, res.matches))
