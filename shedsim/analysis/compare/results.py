"""A comparison run and its results: :func:`compare` plays every variant (the run
machinery, one chunk at a time, reduced to tallies), :func:`analyse` turns the tallies into
the variants', effects' and lengths' tables (:class:`ComparisonResult`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from shedsim.analysis.compare.plan import (
    ALPHA,
    DEFAULT_GAMES,
    KEEP,
    TARGET_CHUNK,
    CompareError,
    Plan,
    Variant,
    check_entries,
    deal_alike,
    default_strategies,
    normal_entries,
    reference_entry,
)
from shedsim.analysis.compare.statistics import (
    METRICS,
    deal_values,
    edge_effect,
    LOSER_METRICS,
    MIN_LOSER_GAMES_PER_SEAT,
    effect_test,
    has_losers,
    median_test,
    not_tested,
    starter_verdict,
    table_strata,
    variant_stats,
)
from shedsim.analysis.compare.tally import Tally
from shedsim.analysis.compare.words import headline
from shedsim.layout import END_CAP, END_FINISHED, END_LOOP, END_NAMES, END_STALLED
from shedsim.rules.ruleset import RulesError
from shedsim.stats.stratified import Estimate


@dataclass
class ComparisonResult:
    """A finished comparison.

    ``variants`` (one row per variant), ``effects`` (variant x metric vs the baseline) and
    ``lengths`` (length histogram per variant) are the CSV tables; ``tallies`` the
    per-deal aggregates (one :class:`Tally` per variant); ``info`` the run's
    specification and summary (for run.json).
    """

    variants: Any
    effects: Any
    lengths: Any
    tallies: list[Tally]
    info: dict[str, Any]
    plan: Plan
    entries: list[tuple[str, str]]

    def headline(self, limit: int | None = None) -> list[str]:
        """The findings in words, one sentence per variant (see :func:`headline`); or a
        line saying there are none."""
        return headline(self, limit)


def round_games(games: int, players: int, n_entries: int) -> tuple[int, int]:
    """``(games rounded up to whole blocks, block)``: a block is every table of the
    schedule (:func:`shedsim.runs.simulate.tournament_tables`) under every rotation, so every
    table and rotation is played equally often."""
    from shedsim.runs.simulate import tournament_tables

    block = players * len(tournament_tables(n_entries, players))
    return math.ceil(games / block) * block, block


def chunk_size_for(games: int, block: int) -> int:
    """Games per chunk: about ``games / 16``, at most :data:`TARGET_CHUNK`, whole blocks.
    Depends only on ``games`` (results never depend on chunking anyway)."""
    target = min(TARGET_CHUNK, max(1, math.ceil(games / 16)))
    return max(block, math.ceil(target / block) * block)


def compare(
    variants: Plan | Sequence[Variant],
    players: int | None = None,
    entries: Sequence[str] | Sequence[tuple[str, str]] | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    workers: int = 1,
    strategy_paths: Sequence[str] = (),
    on_progress: Callable[[int], None] | None = None,
    chunk_size: int | None = None,
    backend: str = "loky",
) -> ComparisonResult:
    """Play every variant on the same schedule and deals and compare them.

    ``variants``: a :class:`Plan` (from :func:`plan_variants`) or variants (the first is
    the baseline; ``players`` then required). ``entries``: strategy specs or
    ``(label, spec)`` pairs (default: :func:`default_strategies`). ``games`` per variant
    is rounded up to whole blocks (every table of the schedule x every rotation). Variant i plays
    ``RunSpec(rules_i, players,
    entries, labels, seed, games, "tournament", stream=i)``; chunks are aggregated as they
    arrive (:func:`shedsim.runs.simulate.run_chunks` with ``on_result``), so the results are
    identical for any ``workers`` and ``chunk_size``. ``on_progress(k)`` is called with
    the games of each finished chunk.

    Raises :class:`CompareError` (bad input), :class:`shedsim.runs.simulate.SimulationError`
    (a strategy failed) and ``KeyboardInterrupt``.
    """
    from shedsim.runs.simulate import RunSpec, backend_config, run_chunks, schedule_games

    plan = variants if isinstance(variants, Plan) else Plan(tuple(variants), (), int(players or 0))
    if players is not None and players != plan.players:
        raise CompareError(f"--players: the plan is for {plan.players} players, got {players}")
    n = plan.players
    if len(plan.variants) < 2:
        raise CompareError("--rules: need at least two variants")
    if len({v.label for v in plan.variants}) != len(plan.variants):
        raise CompareError("--rules: variant labels must be distinct")
    for v in plan.variants:
        try:
            v.rules.check_players(n)
        except RulesError as e:
            raise CompareError(f"--players: {v.label}: {e}") from None
    if entries is None:
        from shedsim.plugins import PluginError

        try:
            entries = default_strategies().split(",")
        except PluginError as e:
            raise CompareError(f"--strategies: {e}") from None
    ent = normal_entries(entries)
    check_entries(ent, strategy_paths)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise CompareError(f"--games: must be at least 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise CompareError(f"--seed: must be a non-negative integer, got {seed!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise CompareError(f"--workers: must be at least 1, got {workers!r}")
    labels = tuple(lab for lab, _ in ent)
    specs = tuple(s for _, s in ent)
    total, block = round_games(games, n, len(ent))
    chunk = (
        chunk_size_for(total, block)
        if chunk_size is None
        else max(n, math.ceil(chunk_size / n) * n)
    )
    deals = total // n
    max_moves = max(v.rules.max_moves for v in plan.variants)
    tallies = [Tally.empty(deals, n, len(ent), max_moves) for _ in plan.variants]
    run_specs = [
        RunSpec(
            v.rules,
            n,
            specs,
            labels,
            seed=seed,
            games=total,
            schedule="tournament",
            strategy_paths=tuple(strategy_paths),
            chunk_size=chunk,
            stream=i,
        )
        for i, v in enumerate(plan.variants)
    ]
    import contextlib
    import time

    t0 = time.perf_counter()
    with (
        backend_config(backend, workers)
        if workers > 1 or backend != "loky"
        else contextlib.nullcontext()
    ):
        for tally, spec in zip(tallies, run_specs):

            def on_result(c: int, r, tally=tally, spec=spec) -> None:
                a, b = spec.chunk_bounds(c)
                seating = schedule_games(spec, a, b)["seating"]
                tally.add_chunk(a, b, r.records, seating)
                r.records.clear()  # run_chunks keeps the results: keep only the empty shell
                if on_progress:
                    on_progress(b - a)

            run_chunks(
                spec,
                list(range(spec.n_chunks())),
                workers=workers,
                backend=backend,
                on_result=on_result,
                keep=KEEP,
            )
    play_s = time.perf_counter() - t0
    res = analyse(plan, ent, tallies, strategy_paths)
    res.info.update(
        games_requested=games,
        games=total,
        block=block,
        chunk_size=chunk,
        seed=seed,
        play_s=round(play_s, 3),
        games_per_s=round(total * len(tallies) / play_s, 1) if play_s > 0 else None,
        strategy_paths=list(strategy_paths),
    )
    return res


def analyse(
    plan: Plan,
    entries: Sequence[tuple[str, str]],
    tallies: Sequence[Tally],
    strategy_paths: Sequence[str] = (),
) -> ComparisonResult:
    """Statistics and tables from the per-deal tallies (one per variant of ``plan``);
    ``strategy_paths`` find the entries' plugins (the skill-edge reference:
    :func:`reference_entry`)."""
    import pandas as pd

    from shedsim import stats

    ent = list(entries)
    labels = [lab for lab, _ in ent]
    ref = reference_entry(ent, strategy_paths)
    base = plan.variants[0]
    paired = [deal_alike(base.rules, v.rules) for v in plan.variants]
    vs = [variant_stats(v, t, labels, ref, p) for v, t, p in zip(plan.variants, tallies, paired)]
    vdf = pd.DataFrame([s.row for s in vs])
    vdf.insert(3, "baseline", [i == 0 for i in range(len(vs))])
    vdf["starter_loss_p_holm"] = stats.holm(vdf["starter_loss_p_value"].to_numpy(float))
    vdf["starter_verdict"] = [starter_verdict(r) for r in vdf.to_dict("records")]
    if any(np.isin(t.ends, (END_STALLED, END_LOOP)).any() for t in tallies):
        # how the unfinished games ended (only when some stalled or looped: otherwise all hit the
        # cap)
        at = vdf.columns.get_loc("unfinished_hi") + 1
        for k, (col, code) in enumerate(
            (("stalled", END_STALLED), ("loops", END_LOOP), ("capped", END_CAP))
        ):
            vdf.insert(at + k, col, [int((t.ends == code).sum()) for t in tallies])
    rows = []
    base_vals = deal_values(tallies[0])
    d, n = tallies[0].lengths.shape
    strata = table_strata(d, n, len(labels))
    few = f"fewer than {MIN_LOSER_GAMES_PER_SEAT} x {n} games with a loser"
    for i in range(1, len(plan.variants)):
        vals = deal_values(tallies[i])
        losers = has_losers(tallies[0]) and has_losers(tallies[i])
        for name, kind, unit in METRICS:
            if name in LOSER_METRICS and not losers:
                r = not_tested(few)
            else:
                r = effect_test(base_vals[name], vals[name], kind, paired[i], strata)
            if name == "mean_moves":
                r.update(median_test(tallies[0].lengths, tallies[i].lengths, paired[i], strata))
            rows.append(
                _effect_row(
                    plan.variants[i].label,
                    base.label,
                    name,
                    unit,
                    paired[i],
                    vs[0].row[name],
                    vs[i].row[name],
                    r,
                    vs[0].est[name],
                    vs[i].est[name],
                    d,
                )
            )
        for e, lab in enumerate(labels):
            if e == ref:
                continue
            key = f"skill_edge[{lab}]"
            r = (
                edge_effect(vs[0].edge_values[key], vs[i].edge_values[key], paired[i], strata)
                if losers
                else not_tested(few)
            )
            rows.append(
                _effect_row(
                    plan.variants[i].label,
                    base.label,
                    key,
                    "share",
                    paired[i],
                    vs[0].row[key],
                    vs[i].row[key],
                    r,
                    vs[0].est[key],
                    vs[i].est[key],
                    d,
                )
            )
    edf = pd.DataFrame(rows)
    for c, default in (
        ("rank_test", ""),
        ("rank_statistic", math.nan),
        ("p_rank", math.nan),
        ("rank_direction", math.nan),
        ("median_baseline", math.nan),
        ("median_variant", math.nan),
        ("median_shift", math.nan),
        ("p_median", math.nan),
    ):
        if c not in edf:
            edf[c] = default
    # the effects' Holm family: every effect's test, rank test and median test of the run
    # (the starter-vs-fair-share tests of variants.csv are a family of their own)
    k = len(edf)
    family = stats.holm(
        np.concatenate([edf[c].to_numpy(float) for c in ("p_value", "p_rank", "p_median")])
    )
    edf["p_holm"] = family[:k]
    edf["significant"] = edf["p_holm"] < ALPHA
    edf["p_rank_holm"] = family[k : 2 * k]
    edf["significant_rank"] = edf["p_rank_holm"] < ALPHA
    edf["p_median_holm"] = family[2 * k :]
    edf["significant_median"] = edf["p_median_holm"] < ALPHA
    edf["significant_any"] = (
        edf["significant"] | edf["significant_rank"] | edf["significant_median"]
    )
    cols = [
        "variant",
        "baseline",
        "metric",
        "unit",
        "paired",
        "baseline_value",
        "variant_value",
        "effect",
        "lo",
        "hi",
        "relative",
        "std_effect",
        "test",
        "statistic",
        "p_value",
        "p_holm",
        "significant",
        "rank_test",
        "rank_statistic",
        "p_rank",
        "rank_direction",
        "p_rank_holm",
        "significant_rank",
        "median_baseline",
        "median_variant",
        "median_shift",
        "p_median",
        "p_median_holm",
        "significant_median",
        "significant_any",
    ]
    for c, default in (("rank_test", ""), ("rank_statistic", math.nan), ("p_rank", math.nan)):
        if c not in edf:
            edf[c] = default
        edf[c] = edf[c].fillna(default) if c == "rank_test" else edf[c]
    edf = edf[cols]
    ldf = length_table(plan, tallies)
    info = {
        "players": plan.players,
        "baseline": base.label,
        "labels": labels,
        "entries": [s for _, s in ent],
        "reference_strategy": labels[ref],
        "variants": [
            {
                "label": v.label,
                "text": v.text,
                "toggles": list(v.toggles),
                "paired": p,
                "rules": v.rules.to_dict(),
            }
            for v, p in zip(plan.variants, paired)
        ],
        "skipped": [dict(s) for s in plan.skipped],
        "house": list(plan.house),
        "deals": d,
        "significant_effects": int(edf["significant_any"].sum()),  # by any of their tests
        "comparisons": int(len(edf)),
        "unfinished_games": {
            v.label: int(t.unfinished.sum()) for v, t in zip(plan.variants, tallies)
        },
        "ends": {
            v.label: {name: int((t.ends == k).sum()) for k, name in enumerate(END_NAMES)}
            for v, t in zip(plan.variants, tallies)
        },
        "max_moves": {v.label: v.rules.max_moves for v in plan.variants},
    }
    return ComparisonResult(vdf, edf, ldf, list(tallies), info, plan, ent)


def _effect_row(
    variant: str,
    baseline: str,
    metric: str,
    unit: str,
    paired: bool,
    b: float,
    v: float,
    r: dict[str, Any],
    e0: Estimate,
    e1: Estimate,
    deals: int,
) -> dict[str, Any]:
    pooled = math.sqrt(deals) * math.sqrt((e0.se**2 + e1.se**2) / 2) if deals > 0 else math.nan
    rel = r["effect"] / abs(b) if b else math.nan
    std = r["effect"] / pooled if pooled > 0 else math.nan
    return {
        "variant": variant,
        "baseline": baseline,
        "metric": metric,
        "unit": unit,
        "paired": paired,
        "baseline_value": b,
        "variant_value": v,
        "relative": rel,
        "std_effect": std,
        **r,
    }


def _nice_width(span: float, target_bins: int = 60) -> int:
    raw = max(1.0, span / target_bins)
    mag = 10 ** int(math.floor(math.log10(raw)))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return int(m * mag)
    return int(10 * mag)


def length_table(plan: Plan, tallies: Sequence[Tally]):
    """Game-length histogram per variant (long format): finished games in common bins of
    ``moves_from..moves_to`` (about 60 bins over the finished games of all variants),
    then, where there are any, ``stalled`` and ``proven loop`` games in the same bins
    (non-empty bins only), then one ``unfinished (move cap)`` row per variant; ``share``
    of the variant's games and ``cumulative_share``."""
    import pandas as pd

    fin = [t.lengths[t.ends == END_FINISHED] for t in tallies]
    allfin = [f for f in fin if f.size]
    rows = []
    if allfin:
        lo = int(min(int(f.min()) for f in allfin))
        hi = int(max(int(f.max()) for f in allfin))
        width = _nice_width(hi - lo + 1)
        first = (lo // width) * width
        nb = (hi - first) // width + 1
    for v, t, f in zip(plan.variants, tallies, fin):
        g = t.lengths.size
        cum = 0
        if allfin:
            counts = np.bincount((f.astype(np.int64) - first) // width, minlength=nb)
            for k in range(nb):
                cum += int(counts[k])
                rows.append(
                    (
                        v.label,
                        "finished",
                        first + k * width,
                        first + (k + 1) * width - 1,
                        int(counts[k]),
                        counts[k] / g,
                        cum / g,
                    )
                )
        for kind, code in (("stalled", END_STALLED), ("proven loop", END_LOOP)):
            stopped = t.lengths[t.ends == code].astype(np.int64)
            if not stopped.size:
                continue
            w = width if allfin else _nice_width(int(stopped.max()) - int(stopped.min()) + 1)
            f0 = first if allfin else (int(stopped.min()) // w) * w
            ks, counts = np.unique((stopped - f0) // w, return_counts=True)
            for k, c in zip(ks.tolist(), counts.tolist()):
                cum += c
                rows.append((v.label, kind, f0 + k * w, f0 + (k + 1) * w - 1, c, c / g, cum / g))
        unf = int((t.ends == END_CAP).sum())
        cum += unf
        rows.append(
            (
                v.label,
                "unfinished (move cap)",
                v.rules.max_moves,
                v.rules.max_moves,
                unf,
                unf / g,
                cum / g,
            )
        )
    return pd.DataFrame(
        rows,
        columns=["variant", "kind", "moves_from", "moves_to", "games", "share", "cumulative_share"],
    )
