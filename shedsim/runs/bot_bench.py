"""How fast a bot plays through the pipe: decisions per second (``shedsim bench --bot``).

One chunk of ``games`` games with the bot at every seat (one process per seat, as in a
run; the schedule ``same`` that ``bench --strategy`` plays) is played in this process, as
a run's worker plays it (:func:`shedsim.runs.simulate.play_chunk`), so every move is a
decision through the pipe. The bot's start and ``hello`` are timed apart. The same deals
are then played on the reference engine alone by ``opponent`` at every seat (no pipe), so
the share of the time spent on the pipe and in the bot is known:
``pipe_share = 1 - engine_s / wall_s`` (an estimate: the two play different moves).
"""

from __future__ import annotations

import time
from typing import Any


def bot_rate(
    rules,
    players: int,
    label: str,
    spec: str,
    games: int = 200,
    seed: int = 0,
    opponent: str | None = None,
    move_ms: int = 1000,
) -> dict[str, Any]:
    """Time ``games`` games of the bot entry ``spec`` (``bot:COMMAND``, labelled ``label``)
    at every seat: ``decisions`` (answers read: swaps and moves), ``decisions_per_s``,
    ``games_per_s``, ``wall_s`` (seconds, the bot's start excluded), ``start_s`` (its start
    and ``hello``), ``engine_s`` (the same deals with ``opponent`` at every seat, on the
    reference engine; default: the reference opponent), ``pipe_share`` and ``forfeits``. Raises
    :class:`shedsim.bot.process.BotStartError` (a bot that does not start or greet) and
    :class:`shedsim.runs.simulate.SimulationError`."""
    import os

    from shedsim.bot.process import check_bots
    from shedsim.plugins import discover
    from shedsim.runs.simulate import RunSpec, play_chunk, schedule_games
    from shedsim.seeding import game_keys

    if opponent is None:  # the reference opponent (plugins' role "reference")
        from shedsim.plugins import choice

        opponent = choice("reference")[0]
    t0 = time.perf_counter()
    check_bots([(label, spec)], move_ms)
    start_s = time.perf_counter() - t0
    run = RunSpec(
        rules,
        players,
        (spec,),
        (label,),
        seed=seed,
        games=games,
        schedule="same",
        bot_move_ms=move_ms,
        bot_cwd=os.getcwd(),
    )
    t0 = time.perf_counter()
    r = play_chunk(run, 0, games)
    wall = time.perf_counter() - t0
    decisions = (
        r.bots.decisions - players
    )  # each seat's process answered hello once: not a decision
    plain = RunSpec(
        rules, players, (opponent,), (opponent,), seed=seed, games=games, schedule="same"
    )
    sched = schedule_games(plain, 0, games)
    dk, sk = game_keys(seed, sched["index"], sched["deal"], plain.stream)
    engine_s = _engine_seconds(plain, sched, dk, sk, discover([]), opponent)
    forfeits = int((r.records["forfeit"] > 0).sum())
    return {
        "label": label,
        "command": spec.removeprefix("bot:"),
        "players": players,
        "opponent": opponent,
        "games": games,
        "decisions": decisions,
        "wall_s": float(f"{wall:.6g}"),  # 6 significant digits: a fast run keeps its precision
        "start_s": round(start_s, 3),
        "decisions_per_s": round(decisions / wall, 1),
        "games_per_s": round(games / wall, 2),
        "engine_s": round(engine_s, 4),
        "pipe_share": round(max(0.0, 1 - engine_s / wall), 3),
        "forfeits": forfeits,
    }


def _engine_seconds(spec, sched, dk, sk, known, opponent: str) -> float:
    """Seconds the reference engine takes for the games of ``sched`` with ``opponent`` at
    every seat (the bot's seats included): the engine's share of a bot run's time."""
    from shedsim.plugins import parse_spec
    from shedsim.rules.engine import play_game

    name, overrides = parse_spec(opponent)
    player = known[name].player(opponent, overrides)
    n = spec.players
    t0 = time.perf_counter()
    for g in range(len(dk)):
        play_game(spec.rules, [player] * n, int(dk[g]), int(sk[g]), int(sched["dealer"][g]))
    return time.perf_counter() - t0
