"""`shedsim bench`: the kernel's speed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

import shedsim.cli.options as O
from shedsim.cli.common import HouseOpt, RulesFileOpt, RulesOpt, StrategyPathOpt, choice_help


def bench(
    ctx: typer.Context,
    rules: RulesOpt = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Seats at the table.")] = 2,
    strategy: Annotated[
        Optional[str],
        typer.Option(
            "--strategy",
            help=(
                "Strategy played by every seat (NAME or NAME:param=v; default: the reference "
                "opponent, "
            )
            + choice_help("reference")
            + ").",
        ),
    ] = None,
    games: Annotated[int, typer.Option("--games", "-g", help="Games to play.", min=1)] = 1_000_000,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            "-w",
            help=(
                "Workers (loky's threads or processes, or the local dask cluster's processes); "
                "at most the CPUs and what the memory holds."
            ),
            min=1,
        ),
    ] = 1,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            help=(
                "loky (this machine: threads of this process where every strategy is one of "
                "shedsim's own, else worker processes), dask (a local dask cluster of --workers "
                "processes, or the cluster at --scheduler) or ray (pip install ray)."
            ),
        ),
    ] = "loky",
    scheduler: Annotated[
        Optional[str],
        typer.Option(
            "--scheduler",
            help="Address of a running cluster for --backend dask (tcp://HOST:8786) or ray.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed.", min=0)] = 0,
    chunk_size: Annotated[
        int,
        typer.Option(
            "--chunk-size", help="Games per chunk of work (at most what the memory holds).", min=1
        ),
    ] = 50_000,
    reference: Annotated[
        bool,
        typer.Option(
            "--reference",
            help=(
                "Also time the reference engine on the first --reference-games games and print "
                "the ratio."
            ),
        ),
    ] = False,
    reference_games: Annotated[
        int,
        typer.Option(
            "--reference-games", help="Games timed on the reference engine with --reference.", min=1
        ),
    ] = 500,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of a table.")
    ] = False,
    strategy_path: StrategyPathOpt = None,
    table_mode: Annotated[
        bool,
        typer.Option(
            "--table",
            help=(
                "Print one table instead: games/s, ns per move and decisions/s per worker at 2 "
                "and 4 players, 1 and 2 workers (median of 3 runs of --games games each; what "
                "make bench prints)."
            ),
        ),
    ] = False,
    bot: O.BotOpt = None,
    bot_games: Annotated[
        int,
        typer.Option(
            "--bot-games",
            help="With --bot: games with the bot at every seat, in one process.",
            min=1,
        ),
    ] = 200,
    time_per_move: O.TimePerMoveOpt = 1000,
    calib: Annotated[
        Optional[Path],
        typer.Option(
            "--calib",
            help=(
                "With --table: the calibration kernel's directory (holding sh_nb_fast.py; "
                "default $SHEDSIM_CALIB or ../shared/calib when present), timed in the same "
                "run for a ratio column."
            ),
        ),
    ] = None,
) -> None:
    """Measure the compiled kernel: games/s, ns per move, moves per game, kernel load time.

    Every strategy gets its decisions per second per worker in play (decisions_per_s_per_worker
    in --json and --table): its moves and its swaps (one per seat and game), over the seconds
    of play times the workers, so the engine's own work is in the time.

    A search strategy (one whose module defines move_stats(), such as mc and ismcts) also gets its
    decisions per second and the moves per second of its whole search (determinisations,
    tree and playouts), timed on positions from greedy self-play, and, when the module
    defines playout_stats(), the moves per second of its playout loop alone; both beside
    the kernel's own moves per second with the reference opponent (<<reference>>).

    With --bot LABEL=COMMAND: the bot's decisions per second through the pipe instead, over --bot-games games with the bot at every seat (one process per seat) on one worker, beside the seconds the reference engine alone takes for the same deals with --strategy at every seat (the engine's share).

    Timing starts after the kernel is loaded in every worker, so games/s measures play
    alone; the load (or first compile) time is printed separately. With --backend dask
    or ray the cluster is started (or connected to) before timing; "workers" reports its
    worker slots.

    Examples: shedsim bench;  shedsim bench --strategy heuristic --players 4 --games 5000;  shedsim bench --table (make bench: 2 and 4 players, 1 and 2 workers);  shedsim bench --bot mine='node mybot.js'
    """  # noqa: E501 (a text kept as written)
    import json

    from shedsim.runs import bench_run as B

    O.refuse_bot_time(ctx, bot)
    paths = [str(p) for p in strategy_path or []]
    if bot:
        from shedsim.cli.common import bot_entries, load_rules

        rs = load_rules(rules, house, rules_file)
        bots = bot_entries(bot, strategy_path)
        return _bench_bot(rs, players, bots, strategy, bot_games, seed, time_per_move, as_json)
    plan = O.call(
        B.plan_bench,
        rules=rules,
        house=house,
        rules_file=rules_file,
        players=players,
        strategy=strategy,
        games=games,
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        seed=seed,
        chunk_size=chunk_size,
        reference_games=reference_games if reference else None,
        strategy_paths=paths,
        table_mode=table_mode,
    )
    from shedsim.output.console import out_console

    if table_mode:
        progress = None if as_json else (lambda m: typer.echo(f"timing {m} ...", err=True))
        found = O.call(B.bench_rows, plan=plan, calib=calib, progress=progress)
        if as_json:
            typer.echo(json.dumps(found))
            return
        from shedsim.runs.benchmark import render_table

        cdir = found["calibration"]
        out_console().print(
            render_table(
                found["rows"],
                f"bench: {plan.rules.name}, {plan.strategy}, {games:,} games per "
                "run, median of 3" + (f"; calibration kernel: {cdir}" if cdir else ""),
            )
        )
        return
    if plan.note:
        typer.echo(f"note: {plan.note}", err=True)
    out = O.call(B.run_bench, plan=plan, reference_games=reference_games if reference else None)
    if as_json:
        typer.echo(json.dumps(out))
        return
    out_console().print(B.render_bench(out, plan.base))


def _bench_bot(
    rs,
    players: int,
    bots: list[tuple[str, str]],
    strategy: str | None,
    games: int,
    seed: int,
    move_ms: int,
    as_json: bool,
) -> None:
    """``bench --bot``: each bot's decisions per second through the pipe
    (:mod:`shedsim.runs.bot_bench`).
    """
    import json

    from shedsim.runs.bot_bench import bot_rate
    from shedsim.bot.process import BotStartError
    from shedsim.cli.common import fail
    from shedsim.bot.protocol import BotSpecError
    from shedsim.plugins import PluginError, choice, discover, parse_spec
    from shedsim.runs.simulate import SimulationError

    opponent = strategy or choice("reference")[0]
    try:  # the engine-alone timing plays the opponent on the reference engine
        name, overrides = parse_spec(opponent)
        if discover([]).require(name).traits.cheating:
            discover([])[name].player()
    except PluginError as e:
        fail(f"--strategy: {e}")
    rows = []
    for label, spec in bots:
        try:
            rows.append(bot_rate(rs, players, label, spec, games, seed, opponent, move_ms))
        except (BotSpecError, BotStartError) as e:
            fail(str(e))
        except SimulationError as e:
            fail(str(e), 1)
    if as_json:
        typer.echo(json.dumps({"rules": rs.name, "players": players, "rows": rows}))
        return
    for r in rows:
        typer.echo(
            f"{r['label']}: {r['decisions_per_s']:,.0f} decisions/s through the pipe "
            f"({r['decisions']:,} "
            f"decisions in {r['games']:,} games, the bot at every seat, {r['wall_s']:.2f} s; "
            f"{r['games_per_s']:,.1f} games/s); the reference engine alone ({r['opponent']} at "
            "every "
            f"seat): {r['engine_s']:.2f} s "
            f"(the pipe and the bot: {100 * r['pipe_share']:.0f}% of the time); start and hello "
            f"{r['start_s']:.2f} s; forfeits {r['forfeits']}"
        )
