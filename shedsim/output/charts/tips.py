"""The chart of ``shedsim tips`` (:mod:`shedsim.analysis.tips`): every tip's effect with its
interval (``table``: tips.csv as a DataFrame); :data:`CHARTS` lists it once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shedsim.output.charts.figure import Chart
import shedsim.output.charts.figure as F


def plot_forest(
    table, path: Path, subtitle: str = "", practical: dict[str, float] | None = None
) -> Path:
    """``forest.png``: every row's effect on the loss rate (percentage points) and on the
    mean place, with its 95% interval; filled markers are Holm-significant; the grey band
    is the practical threshold, ``practical`` (the objective -> the smallest effect that counts:
    :data:`shedsim.analysis.tips.PRACTICAL`; no band when None)."""
    plt = F.pyplot()
    n = max(1, len(table))
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.32 * n + 2.6), sharey=True)
    labels = [f"{r.tip} · {r.rules} · {r.players}p" for r in table.itertuples()]
    y = np.arange(len(table))[::-1]
    for ax, col, scale, unit in (
        (axes[0], "loss", 100.0, "loss rate, percentage points"),
        (axes[1], "place", 1.0, "mean place (places)"),
    ):
        v = table[f"{col}_effect"].to_numpy() * scale
        lo = table[f"{col}_lo"].to_numpy() * scale
        hi = table[f"{col}_hi"].to_numpy() * scale
        sig = table[f"{col}_p_holm"].to_numpy() < 0.05
        ax.errorbar(v, y, xerr=F.bars(v, lo, hi), fmt="none", ecolor="0.5", lw=1)
        # legend entries only for what the chart holds
        ax.scatter(
            v[sig],
            y[sig],
            color="#c44e52",
            zorder=3,
            s=22,
            label="Holm p < 0.05" if sig.any() else None,
        )
        ax.scatter(
            v[~sig],
            y[~sig],
            facecolor="white",
            edgecolor="0.3",
            zorder=3,
            s=22,
            label="not significant" if (~sig).any() else None,
        )
        ax.axvline(0, color="0.2", lw=0.8)
        if practical is not None:
            band = practical[col] * scale
            ax.axvspan(
                -band,
                band,
                color="0.88",
                zorder=0,
                lw=0,
                label=f"no practical effect (within +-{band:g})",
            )
        ax.set_xlabel(f"follow - ignore: {unit}\n(below 0: following the tip helps)")
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(labels, fontsize=9)
    axes[1].legend(loc="lower right", fontsize=9)
    fig.suptitle(
        "Do the beginner tips work? Effect of following each tip, 95% intervals"
        + (f"\n{subtitle}" if subtitle else ""),
        fontsize=11,
    )
    height = fig.get_size_inches()[1]
    return F.save_figure(fig, path, rect=(0, 0, 1, 1 - 0.75 / height))


def _forest(table, subtitle: str, practical: dict[str, float], path: Path) -> Path:
    return plot_forest(table, path, subtitle, practical)


CHARTS = (Chart("forest.png", _forest, "tips.csv"),)
"""The tips' chart, drawn as ``draw(table, subtitle, practical, path)``."""
LEAD_TABLES = ()
"""No table before the chart on the report page (the chart, then tips.csv)."""
