"""Coverage of the tournament's 95% intervals: many small tournaments
against one large one.

Each small run is a block of consecutive games of one long schedule (its own deals); the
"truth" is the same quantity from a separate, much larger run (another seed). An interval
covers when it contains the truth. The rotations of a deal give the same cards to a seat,
so seat-games are clustered; intervals that treat them as independent (plain Wilson over
games, kept here as ``old``) cover only about 87-90%; the per-deal cluster-robust ones
(:func:`shedsim.stats.cluster_rate`) must cover 93-97%.

The quick version runs in the normal suite. ``make stats-check`` runs the fuller one
(``@pytest.mark.slow``; more runs, also per-strategy rates, mean places and ratings) and
prints every figure. Seeds are fixed: the figures are the same on every machine.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from shedsim import stats
from shedsim.analysis import tournament as T
from shedsim.rules.ruleset import preset
from shedsim.runs.simulate import play_chunk

BATCH = 24_000


def _tallies(players: int, strategies: str, runs: int, games: int, seed: int):
    """``runs`` tallies of ``games`` games each (rounded to whole blocks), consecutive games
    of one schedule, and the spec of one run."""
    entries = T.parse_entries(strategies)
    one = T.plan(preset("shithead"), players, entries, games, seed=seed)
    g = one.games
    big = T.plan(preset("shithead"), players, entries, runs * g, seed=seed, chunk_size=g)
    per = max(1, BATCH // g)
    out = []
    for r0 in range(0, runs, per):
        r1 = min(runs, r0 + per)
        rec = play_chunk(big.run_spec(), r0 * g, r1 * g, keep=T.RECORD_KEEP).records
        for r in range(r0, r1):
            sl = slice((r - r0) * g, (r - r0 + 1) * g)
            out.append(
                T.aggregate_chunk(big, r * g, (r + 1) * g, {k: v[sl] for k, v in rec.items()})
            )
    return out, one


def _truth(players: int, strategies: str, games: int, seed: int):
    """The tally of one large run (all in one tally, played in batches)."""
    spec = T.plan(preset("shithead"), players, T.parse_entries(strategies), games, seed=seed)
    step = max(spec.block, BATCH // spec.block * spec.block)
    total = T.empty_tally(spec)
    for a in range(0, spec.games, step):
        b = min(spec.games, a + step)
        rec = play_chunk(spec.run_spec(), a, b, keep=T.RECORD_KEEP).records
        total = T.merge(total, T.aggregate_chunk(spec, a, b, rec))
    return total, spec


def seat_coverage(
    players: int, strategies: str, runs: int, games: int, truth_games: int, seed: int = 100
) -> dict[str, float]:
    """Share of the seats.csv win- and loss-rate intervals (both kinds, every seat) of
    ``runs`` small runs that contain the large run's rate: ``new`` (the intervals written)
    and ``old`` (plain Wilson over seat-games, the intervals written before these)."""
    truth_t, _ = _truth(players, strategies, truth_games, seed + 1)
    truth = T.seat_table(truth_t, players)
    hits = {"new": [], "old": []}
    for t in _tallies(players, strategies, runs, games, seed)[0]:
        s = T.seat_table(t, players)
        for col in ("win", "loss"):
            true = truth[f"{col}_rate"].to_numpy()
            hits["new"].append((s[f"{col}_lo"] <= true) & (true <= s[f"{col}_hi"]))
            lo, hi = stats.wilson(s["wins" if col == "win" else "losses"], s["games"])
            hits["old"].append((lo <= true) & (true <= hi))
    return {k: float(np.mean(np.concatenate(v))) for k, v in hits.items()}


@pytest.mark.parametrize(
    "players,strategies,runs,games",
    [(2, "greedy,expert:search=0", 300, 200), (4, "greedy,expert:search=0,aggressive", 150, 480)],
)
def test_seat_intervals_cover(players, strategies, runs, games):
    cov = seat_coverage(players, strategies, runs, games, truth_games=60_000)
    print(f"{players} players, {strategies}: coverage new {cov['new']:.3f}, old {cov['old']:.3f}")
    assert 0.93 <= cov["new"] <= 0.975, cov
    assert cov["old"] < 0.925, cov  # the plain Wilson intervals are too narrow: the check can tell


def full_coverage(
    players: int, strategies: str, runs: int, games: int, truth_games: int, seed: int = 200
) -> dict[str, float]:
    """Coverage of every interval of a tournament (seat rates and mean place, per-strategy
    win and loss rates, mean place and rating) over ``runs`` small runs analysed by
    :func:`shedsim.analysis.tournament.analyse`, against one large run."""
    truth_t, tspec = _truth(players, strategies, truth_games, seed + 1)
    truth = T.analyse(tspec, truth_t)
    tseats = truth.seats
    tsum = truth.summary.set_index("strategy")
    hits: dict[str, list] = {}

    def add(name, ok):
        hits.setdefault(name, []).append(np.asarray(ok, bool))

    tallies, spec = _tallies(players, strategies, runs, games, seed)
    for t in tallies:
        res = T.analyse(spec, t)
        s = res.seats
        for col in ("win", "loss"):
            true = tseats[f"{col}_rate"].to_numpy()
            add(f"seat {col} rate", (s[f"{col}_lo"] <= true) & (true <= s[f"{col}_hi"]))
        true = tseats["mean_place"].to_numpy()
        add("seat mean place", (s["place_lo"] <= true) & (true <= s["place_hi"]))
        m = res.summary.set_index("strategy").loc[tsum.index]
        for col, lo, hi in (
            ("win_rate", "win_lo", "win_hi"),
            ("loss_rate", "loss_lo", "loss_hi"),
            ("mean_place", "place_lo", "place_hi"),
            ("rating", "rating_lo", "rating_hi"),
        ):
            true = tsum[col].to_numpy()
            add(
                f"strategy {col.replace('_', ' ')}",
                (m[lo].to_numpy() <= true) & (true <= m[hi].to_numpy()),
            )
    return {k: float(np.mean(np.concatenate(v))) for k, v in hits.items()}


@pytest.mark.slow
@pytest.mark.parametrize(
    "players,strategies,games",
    [
        (2, "greedy,expert:search=0", 200),
        (2, "greedy,random", 200),
        (4, "greedy,expert:search=0,aggressive", 480),
        (4, "greedy,aggressive,random", 480),
    ],
)
def test_full_coverage(players, strategies, games):
    runs = int(os.environ.get("SHEDSIM_COVERAGE_RUNS", "1000"))
    seat = seat_coverage(players, strategies, runs, games, truth_games=200_000, seed=300)
    cov = full_coverage(players, strategies, max(1, runs // 2), games, truth_games=200_000)
    print(f"\n{players} players, {strategies}, {games} games per run:")
    print(
        f"  seat rates ({runs} runs): cluster-robust {seat['new']:.3f}, plain Wilson "
        f"{seat['old']:.3f}"
    )
    for k, v in cov.items():
        print(f"  {k} ({max(1, runs // 2)} runs): {v:.3f}")
    assert 0.93 <= seat["new"] <= 0.97, seat
    for k, v in cov.items():
        assert 0.93 <= v <= 0.975, (k, v)
