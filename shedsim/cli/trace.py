"""`shedsim trace`: one game move by move."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import HouseOpt, RulesFileOpt, RulesOpt, StrategyPathOpt, fail, load_players, load_rules  # noqa: F401


def trace(
    rules: RulesOpt = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Number of seats.")] = 2,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Run seed; the game is game 0 of this seed.", min=0)] = 0,
    game: Annotated[int, typer.Option("--game", help="Game index within the seed (the dealer is game % players).", min=0)] = 0,
    strategies: Annotated[str, typer.Option("--strategies", help="Comma-separated strategies, seated in turn.")] = "greedy,random",
    strategy_path: StrategyPathOpt = None,
) -> None:
    """Play one game on the reference engine and print it move by move."""
    import numpy as np

    from shedsim.rules.engine import StrategyError, play_game
    from shedsim.rules.ruleset import RulesError
    from shedsim.seeding import game_keys
    rs = load_rules(rules, house, rules_file)
    try:
        rs.check_players(players)
    except RulesError as e:
        fail(str(e))
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    if not names:
        fail("--strategies: name at least one strategy")
    seated = load_players([names[i % len(names)] for i in range(players)], strategy_path)
    dk, sk = game_keys(seed, np.array([game]))
    try:
        result = play_game(rs, seated, int(dk[0]), int(sk[0]), dealer=game % players, trace=True)
    except StrategyError as e:
        fail(str(e))
    typer.echo(f"rules {rs.name}{' + ' + ', '.join(rs.house) if rs.house else ''}; seed {seed} game {game}")
    for line in result.trace:
        typer.echo(line)
