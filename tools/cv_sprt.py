"""What ``shedsim sprt --control-variate`` buys, and whether it stays calibrated. A measurement.

Three parts, each printed as one JSON object with ``--json``:

* ``sprt``: for each pair ``X:Y`` of ``--pairs``, the SPRT (the command's defaults: elo0 0,
  elo1 5, alpha = beta = 0.05) run with seeds 0..N-1 (N from ``--seeds``) with and without the
  control variate: the decisions, the mean games to the decision and the mean seconds of a
  run (one process, the kernel loaded before the first; ``--batch`` as the command chooses
  it, at most :data:`shedsim.analysis.matchup.LUCK_BATCH` games with the control variate).
* ``aa``: random against random (equal strength: the true score is 1/2) in ``--aa-runs``
  experiments of ``--aa-pairs`` pairs each, the corrected score's 95% t interval as the test
  computes it (:class:`shedsim.stats.control.FittedControlVariate`): how often it leaves out
  1/2 (a false positive of a two-sided 5% test), beside the raw score's.
* ``coverage``: heuristic against greedy in ``--cover-runs`` experiments of ``--cover-pairs``
  pairs: how often the corrected interval holds the true score, taken as the raw mean of
  ``--truth-pairs`` other pairs (its own standard error is recorded).

::

    .venv/bin/python tools/cv_sprt.py --pairs heuristic:greedy,expert:heuristic --seeds 20,10
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from shedsim.analysis import sprt as S
from shedsim.analysis.matchup import (
    LUCK_BATCH,
    default_batch,
    open_match,
    play_units,
    play_units_luck,
)
from shedsim.kernel.luck import MAX_STOCK, REPS
from shedsim.stats import t_interval
from shedsim.stats.control import FittedControlVariate


def sprt_runs(a: str, b: str, seeds: int) -> dict[str, dict]:
    """The SPRT of ``a`` against ``b`` for seeds 0..seeds-1, raw and corrected."""
    S.run_sprt(a, b, max_games=200, min_games=0)  # load the kernel before the timings
    out = {}
    for cv in (False, True):
        games, secs, decisions = [], [], []
        for seed in range(seeds):
            t = time.perf_counter()
            batch = default_batch((a, b), 2000)  # as the command chooses it
            r = S.run_sprt(
                a, b, seed=seed, control_variate=cv, batch=min(batch, LUCK_BATCH) if cv else batch
            )
            secs.append(time.perf_counter() - t)
            games.append(r.games)
            decisions.append(r.decision)
        out["corrected" if cv else "raw"] = {
            "runs": seeds,
            "mean_games": float(np.mean(games)),
            "mean_seconds": float(np.mean(secs)),
            "h1": decisions.count("H1"),
            "h0": decisions.count("H0"),
            "none": decisions.count("none"),
        }
    raw, cor = out["raw"], out["corrected"]
    out["games_ratio"] = raw["mean_games"] / cor["mean_games"]
    out["seconds_ratio"] = raw["mean_seconds"] / cor["mean_seconds"]
    return out


def intervals(a: str, b: str, runs: int, pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The raw and the corrected 95% t intervals of ``runs`` experiments of ``pairs`` pairs
    (float64[runs, 2] each; experiment k plays units ``k * pairs ..``, its own deals)."""
    match = open_match(a, b, "shithead", 2, seed)
    raw, cor = np.empty((runs, 2)), np.empty((runs, 2))
    for k in range(runs):
        codes, _, luck = play_units_luck(match, k * pairs, (k + 1) * pairs, True, REPS, MAX_STOCK)
        s = codes / 4.0
        raw[k] = t_interval(len(s), s.sum(), (s * s).sum())[1:]
        f = FittedControlVariate()
        f.feed(s, luck)
        cor[k] = t_interval(*f.moments())[1:]
    return raw, cor


def outside(iv: np.ndarray, x: float) -> float:
    """The share of the intervals ``iv`` (float64[n, 2]) that leave out ``x``."""
    return float(((iv[:, 0] > x) | (iv[:, 1] < x)).mean())


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tools/cv_sprt.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", default="heuristic:greedy", help="X:Y,... for the SPRT runs")
    p.add_argument("--seeds", default="10", help="seeds per pair (one, or one per pair)")
    p.add_argument("--aa-runs", type=int, default=400)
    p.add_argument("--aa-pairs", type=int, default=100)
    p.add_argument("--cover-runs", type=int, default=400)
    p.add_argument("--cover-pairs", type=int, default=100)
    p.add_argument("--truth-pairs", type=int, default=200_000)
    p.add_argument("--json", action="store_true", help="the figures as one JSON line")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    seeds = seeds * len(pairs) if len(seeds) == 1 else seeds
    figs: dict = {"reps": REPS, "max_stock": MAX_STOCK, "sprt": {}}
    for (a, b), n in zip(pairs, seeds):
        figs["sprt"][f"{a}_{b}"] = sprt_runs(a, b, n)
    raw, cor = intervals("random", "random", args.aa_runs, args.aa_pairs, 11)
    figs["aa"] = {
        "runs": args.aa_runs,
        "pairs": args.aa_pairs,
        "false_positive_raw": outside(raw, 0.5),
        "false_positive_corrected": outside(cor, 0.5),
    }
    match = open_match("heuristic", "greedy", "shithead", 2, 12)
    codes, _ = play_units(match, 0, args.truth_pairs, True)
    truth = float(codes.mean() / 4.0)
    truth_se = float((codes / 4.0).std(ddof=1) / np.sqrt(len(codes)))
    raw, cor = intervals("heuristic", "greedy", args.cover_runs, args.cover_pairs, 13)
    figs["coverage"] = {
        "runs": args.cover_runs,
        "pairs": args.cover_pairs,
        "truth": truth,
        "truth_se": truth_se,
        "truth_pairs": args.truth_pairs,
        "raw": 1.0 - outside(raw, truth),
        "corrected": 1.0 - outside(cor, truth),
        "mean_width_raw": float((raw[:, 1] - raw[:, 0]).mean()),
        "mean_width_corrected": float((cor[:, 1] - cor[:, 0]).mean()),
    }
    if args.json:
        print(json.dumps(figs))
        return
    print(json.dumps(figs, indent=1))


if __name__ == "__main__":
    main()
