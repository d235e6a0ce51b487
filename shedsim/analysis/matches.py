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


def cached_match(a: str, b: str, rules: RuleSet, players: int, seed: int, strategy_paths: tuple[str, ...],
                 owner: str = "", deals: tuple = ()) -> Any:
    """:func:`shedsim.analysis.sprt.open_match` of X = ``a`` against Y = ``b``, loaded once per
    process and kept (a worker plays batch after batch of one match). ``owner``: a caller that
    changes the match it gets (tune sets X's parameters before each call) names itself, so
    that it never shares one with another caller; ``deals``: a deal set's deals (see
    :attr:`shedsim.runs.simulate.RunSpec.deals`). Raises what ``open_match`` raises."""
    key = (owner, a, b, json.dumps(rules.to_dict(), sort_keys=True), players, seed, tuple(strategy_paths), deals)
    match = _MATCHES.get(key)
    if match is None:
        match = _MATCHES[key] = S.open_match(a, b, rules, players, seed, strategy_paths)
        if deals:  # a deal set's deals instead of shuffled ones (RunSpec.deals)
            match.spec = dataclasses.replace(match.spec, deals=deals)  # (no path: no trace command)
    return match
