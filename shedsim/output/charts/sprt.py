"""The charts of ``shedsim sprt`` (:mod:`shedsim.analysis.sprt`): the LLR path of a sequential
test (``res``: a :class:`shedsim.analysis.sprt.SPRTResult`) and the pairing comparison
(``gain``: a :class:`shedsim.analysis.sprt.PairingGain`); :data:`CHARTS` lists them once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shedsim.output.charts.figure import Chart
import shedsim.output.charts.figure as F


def plot_llr(res, path: Path) -> Path:
    """``llr.png``: the LLR after every unit against games played, with Wald's bounds and the
    decision (matplotlib, Agg; written atomically by
    :func:`shedsim.output.charts.figure.save_figure`).

    Before ``min_games`` (shaded) the regularised variance can be tiny and the LLR huge; the
    vertical axis is scaled to the bounds and the LLR from ``min_games`` on."""
    plt = F.pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ax.plot(
        np.r_[0, res.path_games], np.r_[0.0, res.path_llr], color="tab:blue", lw=1.2, label="LLR"
    )
    live = res.path_llr[res.path_games >= res.min_games]
    top = max(1.5 * res.upper, float(live.max()) if len(live) else 0.0)
    bottom = min(1.5 * res.lower, float(live.min()) if len(live) else 0.0)
    pad = 0.05 * (top - bottom)
    ax.set_ylim(bottom - pad, top + pad)
    if res.min_games > 0:
        ax.axvspan(
            0,
            res.min_games,
            color="0.9",
            zorder=0,
            label=f"no decision before {res.min_games:,} games (--min-games)",
        )
    if len(res.path_games):
        ax.plot([res.path_games[-1]], [res.path_llr[-1]], "o", color="tab:blue", ms=5)
    ax.axhline(res.upper, color="tab:green", ls="--", label=f"accept H1 ({res.upper:+.2f})")
    ax.axhline(res.lower, color="tab:red", ls="--", label=f"accept H0 ({res.lower:+.2f})")
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set_xlabel("games played")
    ax.set_ylabel("log-likelihood ratio (H1 vs H0)")
    design = "paired deals" if res.paired else "unpaired deals"
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted", "none": "no decision"}[res.decision]
    ax.set_title(
        f"SPRT {res.a} vs {res.b}: {verdict} after {res.games:,} games\n"
        f"{res.rules}, {res.players} players, {design}, elo0 {res.elo0:g}, elo1 {res.elo1:g}, "
        f"alpha {res.alpha:g}, beta {res.beta:g}",
        fontsize=10,
    )
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return F.save_figure(fig, path)


def plot_pairing(gain, path: Path) -> Path:
    """``pairing.png``: X's score with its 95% interval, paired against unpaired."""
    plt = F.pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for i, e in enumerate((gain.paired, gain.unpaired)):
        ax.errorbar(
            [i],
            [e.score],
            yerr=F.bars([e.score], [e.lo], [e.hi]),
            fmt="o",
            capsize=6,
            color="tab:blue" if i == 0 else "tab:orange",
            label=f"{e.design}: width {e.width:.4f}",
        )
    ax.set_xticks([0, 1], ["paired deals", "unpaired deals"])
    ax.set_xlim(-0.6, 1.6)
    ax.set_xlabel("design (same number of games)")
    ax.set_ylabel(f"score of {gain.a} against {gain.b}")
    ax.set_title(
        f"95% interval of the score: paired vs unpaired (ratio {gain.ratio:.2f})\n"
        f"{gain.rules}, {gain.players} players, {gain.paired.games:,} games each",
        fontsize=10,
    )
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    return F.save_figure(fig, path)


CHARTS = (Chart("llr.png", plot_llr, "sprt.csv"), Chart("pairing.png", plot_pairing, "pairing.csv"))
"""The test's chart (``draw(result, path)``) and the pairing comparison's (``draw(gain, path)``):
a run writes one of them."""
