"""What ``shedsim tournament --control-variate`` buys, and whether it stays calibrated.

Three parts, printed as one JSON object with ``--json``:

* ``widths``: one 2-player tournament of ``--field`` (``--games`` games, seed 0) with the
  control variate: for each pair of its head to head, the raw and the corrected 95% intervals'
  widths at the same games, their ratio (the games the raw share would need for the corrected
  width is about the square of it), the fitted coefficient, and the seconds of the run beside
  those of the same tournament without it.
* ``aa``: ``--aa-runs`` tournaments of random against random (equal strength: the true share
  is 1/2), ``--aa-games`` games each (seeds 0..N-1): how often the head to head's p-value is
  below 0.05, raw and corrected (the false positives of a two-sided 5% test).
* ``coverage``: ``--cover-runs`` tournaments of heuristic against greedy, ``--cover-games``
  games each (seeds 1000..): how often the corrected interval holds the true share, taken as
  the raw share of one ``--truth-games`` tournament (seed 999; its standard error recorded).

::

    .venv/bin/python tools/cv_tournament.py --games 20000 --aa-runs 100
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from shedsim import api


def head_to_head(strategies: str, games: int, seed: int, cv: bool):
    """The head-to-head table of a 2-player tournament and the seconds it took."""
    t = time.perf_counter()
    r = api.tournament(strategies, players=2, games=games, seed=seed, control_variate=cv)
    return r.head_to_head, time.perf_counter() - t


def widths(field: str, games: int) -> dict:
    api.tournament("greedy,random", players=2, games=8, control_variate=True)  # load the kernel
    h, secs = head_to_head(field, games, 0, True)
    _, raw_secs = head_to_head(field, games, 0, False)
    pairs = {}
    for row in h.itertuples():
        raw = row.share_hi - row.share_lo
        cor = row.share_cv_hi - row.share_cv_lo
        pairs[f"{row.a}_{row.b}"] = {
            "deals": int(row.deals),
            "share": float(row.share_a_ahead),
            "share_cv": float(row.share_cv),
            "width_raw": float(raw),
            "width_corrected": float(cor),
            "width_ratio": float(raw / cor),
            "beta": float(row.beta_cv),
        }
    return {"field": field, "games": games, "seconds": secs, "seconds_raw": raw_secs,
            "pairs": pairs}  # fmt: skip


def repeated(strategies: str, runs: int, games: int, seed0: int) -> list:
    """The head to head's single row of ``runs`` tournaments of two entries with the control
    variate (seeds ``seed0..``), played in this process without a run store."""
    return [aa_row(strategies, games, seed0 + k) for k in range(runs)]


def aa_row(strategies: str, games: int, seed: int):
    """The head to head's row of one 2-entry tournament with the control variate, played in
    this process without a run store (:func:`shedsim.analysis.tournament.play_total`)."""
    from shedsim.analysis import tournament as T
    from shedsim.rules.ruleset import preset

    entries = T.parse_entries(strategies)
    spec = T.plan(preset("shithead"), 2, entries, games, seed=seed, control_variate=True)
    return T.analyse(spec, T.play_total(spec)).head_to_head.iloc[0]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tools/cv_tournament.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--field", default="heuristic,expert,greedy,random")
    p.add_argument("--games", type=int, default=40_000)
    p.add_argument("--aa-runs", type=int, default=400)
    p.add_argument("--aa-games", type=int, default=400)
    p.add_argument("--cover-runs", type=int, default=400)
    p.add_argument("--cover-games", type=int, default=400)
    p.add_argument("--truth-games", type=int, default=400_000)
    p.add_argument("--json", action="store_true", help="the figures as one JSON line")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    figs: dict = {"widths": widths(args.field, args.games)}
    aa = repeated("a=random,b=random", args.aa_runs, args.aa_games, 0)
    figs["aa"] = {
        "runs": args.aa_runs,
        "games": args.aa_games,
        "false_positive_raw": float(np.mean([r.p_value < 0.05 for r in aa])),
        "false_positive_corrected": float(np.mean([r.p_value_cv < 0.05 for r in aa])),
    }
    truth_row = head_to_head("heuristic,greedy", args.truth_games, 999, False)[0].iloc[0]
    truth = float(truth_row.share_a_ahead)
    cover = repeated("heuristic,greedy", args.cover_runs, args.cover_games, 1000)
    figs["coverage"] = {
        "runs": args.cover_runs,
        "games": args.cover_games,
        "truth": truth,
        "truth_se": float(truth_row.se),
        "truth_games": args.truth_games,
        "raw": float(np.mean([r.share_lo <= truth <= r.share_hi for r in cover])),
        "corrected": float(np.mean([r.share_cv_lo <= truth <= r.share_cv_hi for r in cover])),
        "mean_width_raw": float(np.mean([r.share_hi - r.share_lo for r in cover])),
        "mean_width_corrected": float(np.mean([r.share_cv_hi - r.share_cv_lo for r in cover])),
    }
    print(json.dumps(figs) if args.json else json.dumps(figs, indent=1))


if __name__ == "__main__":
    main()
