"""`shedsim trace`: one game move by move."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import (
    HouseOpt,
    RulesFileOpt,
    RulesOpt,
    StrategyPathOpt,
    choice_help,
    fail,
    load_rules,
)
from shedsim.runs.limits import INT64_MAX


def trace(
    record_file: Annotated[
        Optional[Path],
        typer.Argument(
            metavar="[FILE]",
            help="A game record (`trace --record FILE`; docs/reference/game-records.md): tell "
            "that game "
            "instead of replaying one of a run.",
        ),
    ] = None,
    rules: RulesOpt = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Number of seats.")] = 2,
    seed: Annotated[
        int, typer.Option("--seed", "-s", help="Run seed (as the tournament's --seed).", min=0)
    ] = 0,
    game: Annotated[
        int,
        typer.Option(
            "--game",
            "-g",
            help="Game index, numbered as the run numbers its games: "
            "game g of a tournament of P seats is rotation g % P of deal g // P (the "
            "index error messages print).",
            min=0,
            max=INT64_MAX,
        ),
    ] = 0,
    strategies: Annotated[
        Optional[str],
        typer.Option(
            "--strategies",
            help="Comma-separated strategies (NAME, "
            "NAME:param=v, LABEL=NAME or @ROLE), read as the tournament "
            "reads them. One strategy sits in every seat (deal g in game "
            "g, as bench plays); two or more are a tournament: tables, "
            "rotations and paired deals as `shedsim tournament "
            "--strategies ...` plays them (default: @reference,@baseline: "
            + choice_help("reference")
            + ", then "
            + choice_help("baseline")
            + ").",
        ),
    ] = None,
    seat_orders: Annotated[
        str,
        typer.Option(
            "--seat-orders",
            help="As the tournament's --seat-orders: all (every cyclic seating order) or sorted.",
        ),
    ] = "all",
    stream: Annotated[
        int,
        typer.Option(
            "--stream",
            min=0,
            help="Strategy-stream number (compare-rules plays "
            "rule variant i on stream i); 0 for tournaments.",
        ),
    ] = 0,
    schedule: Annotated[
        str,
        typer.Option(
            "--schedule",
            help="How the run numbered its games: tournament (tournament, "
            "compare-rules, bench); head-to-head (sprt, tips: X, the first of two "
            "--strategies, in one seat and Y in the others, each deal under every "
            "rotation; at 2 players the same as tournament); head-to-head-unpaired "
            "(sprt --unpaired: a fresh deal for every game).",
        ),
    ] = "tournament",
    from_dir: Annotated[
        Optional[Path],
        typer.Option(
            "--from",
            help="A finished tournament's output directory: "
            "replay its game --game exactly (rules, strategies, seed "
            "and seating from its spec.json; a bot started again from the command the run "
            "recorded, and the replay checked against the run's --save-games record).",
        ),
    ] = None,
    strategy_path: StrategyPathOpt = None,
    deals: Annotated[
        Optional[Path],
        typer.Option(
            "--deals",
            help="The deal-set file the run played (its "
            "--deals), so that game --game is dealt from it.",
        ),
    ] = None,
    record: Annotated[
        Optional[Path],
        typer.Option(
            "--record",
            help="Also write the game as a one-file game record "
            "(JSON Lines: rules, seed, deal, seats, every move, the result), "
            "to attach to a bug report.",
        ),
    ] = None,
) -> None:
    """Play one game on the reference engine and tell it move by move.

    Shows the deal and the swap phase (what each seat put face up), the table after the swap, then every move: the seat, its stage (hand, face-up or face-down, in brackets), the cards played or turned, why the pile burned (a burn card, or four of a rank in a row), skips and reverses, cards drawn from the stock, who went out, and the pile's top cards and size after the move. Ends with every place.

    Games are numbered as the run that played them numbers them, so a game an error message names is replayed by the command it prints: `shedsim trace --from RUN_DIR --game N` for a tournament directory, or the same rules, players, strategies, seed and --game.

    Examples: shedsim trace --players 3 --strategies greedy,heuristic --game 4; shedsim trace --from reports/latest --game 24 --record game.jsonl; shedsim trace game.jsonl
    """  # noqa: E501
    from shedsim.cli.records import tell_record, write_record

    if record_file is not None:
        return tell_record(record_file, house, rules_file)
    from shedsim.analysis.replay import (
        GameFailed,
        ReplayError,
        StrategyCrash,
        bot_replay_check,
        game_heading,
        replay_game_guarded,
        run_dir_spec,
    )
    from shedsim.rules.engine import StrategyError

    paths = tuple(str(p) for p in strategy_path or [])
    try:
        if from_dir is not None:
            spec = run_dir_spec(from_dir, paths or None)
        else:
            spec = _options_spec(
                (rules, house, rules_file, players),
                (strategies, seed, game, seat_orders, stream, paths, schedule),
                deals,
            )
        heading = game_heading(spec, game)
        if from_dir is not None:
            heading = f"{from_dir}: {heading}"
        rep = replay_game_guarded(spec, game)
    except ReplayError as e:
        fail(str(e))
    except (GameFailed, StrategyCrash) as e:
        typer.echo(heading)
        for line in e.lines:
            typer.echo(line)
        if e.lines:
            typer.echo("the game stops here: a strategy failed (see the error)")
        if from_dir is not None and isinstance(e, GameFailed):
            _say_check(bot_replay_check(from_dir, spec, game, None, e))
        fail(str(e), 1)
    except StrategyError as e:
        typer.echo(heading)
        fail(str(e), 1)
    typer.echo(heading)
    for line in rep.lines:
        typer.echo(line)
    if from_dir is not None:
        _say_check(bot_replay_check(from_dir, spec, game, rep))
    if record is not None:
        write_record(record, spec, rep)


def _options_spec(table: tuple, play: tuple, deals: Path | None):
    """The run spec of the options (no --from): ``table`` = (rules, house, rules_file,
    players), ``play`` = (strategies, seed, game, seat_orders, stream, paths, schedule);
    exits 2 on a player count the rules do not allow."""
    from shedsim.analysis.replay import tournament_run_spec
    from shedsim.cli.records import with_deals
    from shedsim.rules.ruleset import RulesError

    rules, house, rules_file, players = table
    strategies, seed, game, seat_orders, stream, paths, schedule = play
    rs = load_rules(rules, house, rules_file)
    try:
        rs.check_players(players)
    except RulesError as e:
        fail(str(e))
    spec = tournament_run_spec(
        rs,
        players,
        "@reference,@baseline" if strategies is None else strategies,
        seed,
        game,
        seat_orders,
        stream,
        paths,
        schedule,
    )
    return with_deals(spec, deals)


def _say_check(said: str | None) -> None:
    """What the check of a bot's replay against the run said: a warning or note on
    standard error, agreement on standard output."""
    if said:
        typer.echo(said, err=said.startswith(("warning", "note")))
