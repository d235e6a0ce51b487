"""Loaded head-to-head matches kept per process, shared by the studies that play batch
after batch of one match on their workers (sprt, tips, tune).

A match (:func:`shedsim.analysis.sprt.open_match`) holds the compiled kernel and both
strategies; loading it costs far more than a batch, so a worker keeps the ones it has
loaded for the life of its process.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from shedsim.analysis import sprt as S
from shedsim.rules.ruleset import RuleSet

_MATCHES: dict[tuple, Any] = {}


def cached_match(
    a: str,
    b: str,
    rules: RuleSet,
    players: int,
    seed: int,
    strategy_paths: tuple[str, ...],
    owner: str = "",
    bot_time: tuple[int, int | None] = (1000, None),
    stream: int = 0,
    deals: tuple = (),
    deals_path: str = "",
) -> Any:
    """:func:`shedsim.analysis.sprt.open_match` of X = ``a`` against Y = ``b``, loaded once per
    process and kept (a worker plays batch after batch of one match). ``owner``: a caller that
    changes the match it gets (tune sets X's parameters before each call) names itself, so
    that it never shares one with another caller. ``bot_time``: a bot's milliseconds per move
    and per game; ``stream``: the strategies' random stream (a gauntlet's opponent ``i``
    plays on stream ``i``); ``deals``: a deal set's deals played instead of shuffled ones, from
    the file ``deals_path`` (see :attr:`shedsim.runs.simulate.RunSpec.deals`). Raises what
    ``open_match`` raises."""
    key = (
        owner,
        a,
        b,
        json.dumps(rules.to_dict(), sort_keys=True),
        players,
        seed,
        tuple(strategy_paths),
        tuple(bot_time),
        stream,
        deals,
        deals_path,
    )
    match = _MATCHES.get(key)
    if match is None:
        match = S.open_match(a, b, rules, players, seed, strategy_paths, tuple(bot_time))
        if stream or deals:
            match.spec = dataclasses.replace(
                match.spec, stream=stream, deals=deals, deals_path=deals_path
            )
        _MATCHES[key] = match
    return match
