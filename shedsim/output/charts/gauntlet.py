"""The chart of ``shedsim gauntlet`` (:mod:`shedsim.analysis.gauntlet`; ``res``: a
:class:`shedsim.analysis.gauntlet.Result`): the candidate's score against each opponent."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import shedsim.output.charts.figure as F


def plot_scores(res, path: Path) -> Path:
    """``gauntlet.png``: the candidate's mean score against each opponent and over all of
    them, with 95% t intervals (a forest plot; 0.5 = even), and each row's games (matplotlib,
    Agg; written atomically by :func:`shedsim.output.charts.figure.save_figure`)."""
    plt = F.pyplot()
    rows = [*res.rows, res.total]
    y = np.arange(len(rows))[::-1]
    fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.45 * len(rows)))
    score = np.array([r.score for r in rows])
    lo, hi = np.array([r.lo for r in rows]), np.array([r.hi for r in rows])
    colours = ["tab:blue"] * len(res.rows) + ["black"]
    for yi, s, a, b, c in zip(y, score, lo, hi, colours):
        ax.errorbar([s], [yi], xerr=F.bars([s], [a], [b]), fmt="o", color=c, capsize=3, ms=5)
    ax.axvline(0.5, color="0.6", lw=0.8, ls="--")
    ax.set_yticks(
        y,
        [
            f"{r.opponent} ({r.games:,} games)" + (f", {r.decision}" if r.decision else "")
            for r in rows
        ],
    )
    ax.set_xlim(min(0.0, float(lo.min())), max(1.0, float(hi.max())))
    ax.set_xlabel(
        f"score of {res.candidate} (share of the other seats finished ahead of, ties half; 95% "
        "interval)"
    )
    ax.set_title(
        f"Gauntlet: {res.candidate}, {res.rules}, {res.players} players, seed {res.seed}",
        fontsize=10,
    )
    ax.grid(axis="x", alpha=0.3)
    return F.save_figure(fig, path)
