"""What a tuning run found (``shedsim tune``, :mod:`shedsim.analysis.tune`): the best
parameters confirmed on fresh games (:func:`confirm`), the trials as a table
(:func:`trials_table`), the parameters' importances (:func:`importances`) and the best
strategy as a TOML file (:func:`best_toml`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from shedsim.analysis.tune import (
    CONFIRM_SEED_OFFSET,
    Evaluator,
    TuneSpec,
    completed,
    format_spec,
    head_to_head_scores,
)


def _t(x: np.ndarray) -> tuple[float, float, float]:
    from shedsim.stats import t_interval

    m, lo, hi = t_interval(len(x), float(x.sum()), float((x * x).sum()))
    return float(m), float(lo), float(hi)


def _elo(s: float) -> float:
    if not 0 < s < 1:
        return math.copysign(math.inf, s - 0.5)
    return -400.0 * math.log10(1.0 / s - 1.0)


@dataclass
class Confirmation:
    """The best parameters played again on fresh deals (see :mod:`shedsim.analysis.tune`)."""

    seed: int
    games: int
    h2h_score: float
    h2h_lo: float
    h2h_hi: float
    field_best: float
    field_start: float
    gain: float
    gain_lo: float
    gain_hi: float

    @property
    def h2h_elo(self) -> tuple[float, float, float]:
        return _elo(self.h2h_score), _elo(self.h2h_lo), _elo(self.h2h_hi)


def confirm(spec: TuneSpec, best: dict[str, int], games: int, pool=None) -> Confirmation:
    """Play ``best`` (tuned values) against the starting parameters head to head and, with
    them, against the field on ``games`` games of fresh deals per match (seed
    ``spec.seed + CONFIRM_SEED_OFFSET``), on ``pool``'s workers (default: this process; the
    figures do not depend on them). Raises :class:`shedsim.runs.simulate.SimulationError`."""
    from shedsim.analysis.matches import cached_match
    from shedsim.runs.pool import InProcess, split_range

    pool = InProcess() if pool is None else pool
    seed = spec.seed + CONFIRM_SEED_OFFSET
    p = spec.players
    full = {**spec.start, **best}
    candidate = format_spec(spec.name, full)
    cached_match(
        candidate, spec.start_spec, spec.rules, p, seed, spec.strategy_paths
    )  # checked before any game
    n = max(2, games // p) * p
    h2h = pool.map(
        [
            (
                head_to_head_scores,
                (candidate, spec.start_spec, spec.rules, p, seed, spec.strategy_paths, a, b),
            )
            for a, b in split_range(0, n, pool.slots, p)
        ]
    )
    s, lo, hi = _t(np.concatenate(h2h))
    ev = Evaluator(spec, seed, pool)
    a = ev.per_deal(best, n)
    b = ev.per_deal({}, n)
    g, glo, ghi = _t(a - b)
    return Confirmation(seed, n, s, lo, hi, float(a.mean()), float(b.mean()), g, glo, ghi)


def trials_table(study, spec: TuneSpec):
    """One row per trial: number, state, score (NaN unless complete), seconds, spec, each
    parameter."""
    import pandas as pd

    rows = []
    for t in study.trials:
        values = {p.name: t.params.get(p.name) for p in spec.space}
        full = {**spec.start, **{k: v for k, v in values.items() if v is not None}}
        secs = (
            (t.datetime_complete - t.datetime_start).total_seconds()
            if t.datetime_complete and t.datetime_start
            else float("nan")
        )
        rows.append(
            {
                "trial": t.number,
                "state": t.state.name.lower(),
                "score": float(t.value) if t.value is not None else float("nan"),
                "seconds": secs,
                **values,
                "spec": format_spec(spec.name, full),
            }
        )
    return pd.DataFrame(rows)


def importances(study) -> dict[str, float]:
    """Parameter importances of the completed trials
    (:func:`optuna.importance.get_param_importances`,
    its default evaluator), by name, largest first; empty when fewer than two completed
    trials or no parameter varied."""
    import warnings

    import optuna

    if len(completed(study)) < 2:
        return {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "importances will be equal" on tiny studies
            return {k: float(v) for k, v in optuna.importance.get_param_importances(study).items()}
    except (RuntimeError, ValueError):
        return {}


def best_toml(
    spec: TuneSpec,
    best: dict[str, int],
    best_trial: int,
    best_score: float,
    start_score: float,
    n_trials: int,
    conf: Confirmation | None,
) -> str:
    """``best.toml``: the strategy, its spec with the best parameters, every parameter,
    the in-sample scores and the confirmation on fresh deals."""
    full = {**spec.start, **best}
    lines = [
        "# shedsim tune: the best parameters found (read with tomllib; `spec` works in every "
        "command)",
        f'strategy = "{spec.name}"',
        f'spec = "{format_spec(spec.name, full)}"',
        f'start = "{spec.start_spec}"',
        f"field = {json.dumps(list(spec.field))}",
        f'rules = "{spec.rules_name}"',
        f"players = {spec.players}",
        "",
        "[params]",
    ]
    lines += [f"{k} = {int(v)}" for k, v in full.items()]
    lines += [
        "",
        "[search]",
        f"trials = {n_trials}",
        f"best_trial = {best_trial}",
        f"games_per_trial = {spec.games}",
        f"seed = {spec.seed}",
        f"best_score = {best_score:.6f}",
        f"start_score = {start_score:.6f}",
    ]
    if conf is not None:
        lines += [
            "",
            "[confirm]",
            f"seed = {conf.seed}",
            f"games = {conf.games}",
            f"head_to_head_score = {conf.h2h_score:.6f}",
            f"head_to_head_lo = {conf.h2h_lo:.6f}",
            f"head_to_head_hi = {conf.h2h_hi:.6f}",
            f"field_best = {conf.field_best:.6f}",
            f"field_start = {conf.field_start:.6f}",
            f"gain = {conf.gain:.6f}",
            f"gain_lo = {conf.gain_lo:.6f}",
            f"gain_hi = {conf.gain_hi:.6f}",
        ]
    return "\n".join(lines) + "\n"
