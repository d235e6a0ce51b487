"""The charts of ``shedsim compare-rules`` (:mod:`shedsim.analysis.compare`): the forest plot
of every effect and the game-length distributions, each taking the comparison's result (a
:class:`shedsim.analysis.compare.ComparisonResult`: its ``effects``, ``plan``, ``tallies``
and ``info``) and an output path; :data:`CHARTS` lists them once. The metrics' names and the
charts' subtitle are here too (the analysis's run.json and the console use them).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from shedsim.layout import END_CAP, END_FINISHED, END_LOOP, END_STALLED
from shedsim.output.charts.figure import Chart
import shedsim.output.charts.figure as F
from shedsim.output.kinds import rate_like

METRIC_NAMES = {
    "mean_moves": "mean game length",
    "unfinished_rate": "unfinished rate",
    "pickups_per_game": "pick-ups per game",
    "burns_per_game": "burns per game",
    "starter_loss_rate": "starting player's loss rate",
}
"""The compared metrics' names in words (effects.csv's ``metric`` keys)."""


def metric_title(metric: str) -> str:
    """Readable name of a metric key (``skill_edge[expert]`` -> ``skill edge of expert``; the
    reference it is measured against, :func:`shedsim.analysis.compare.reference_entry`, is
    not in the key)."""
    if metric.startswith("skill_edge["):
        return f"skill edge of {metric[11:-1]}"
    return METRIC_NAMES.get(metric, metric)


def subtitle(res) -> str:
    """One line: players, strategies, games per variant, seed."""
    i = res.info
    house = f", house toggles on every variant: {' '.join(i['house'])}" if i.get("house") else ""
    return (
        f"{i['players']} players, strategies {', '.join(i['labels'])}, {i.get('games', 0):,} "
        "games per "
        f"variant, seed {i.get('seed', 0)}{house}"
    )


OVERLAY_MAX = 8
"""Most variants drawn overlaid in one lengths chart (distinct tab10 colours); more get small
multiples."""


def plot_forest(res, path: Path) -> Path:
    """Forest plot: one panel per metric, one row per variant, the effect against the
    baseline with its 95% interval (rates and skill edges in percentage points). Colour says
    significance as the console and the headline count it (red: significant by any of its
    tests after Holm's correction, ``significant_any``, grey: not), the marker says the
    design (filled circle: paired deals, open square: unpaired); the legend keeps the two
    apart (colour swatches, black markers)."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    plt = F.pyplot()
    e = res.effects
    metrics = list(dict.fromkeys(e["metric"]))
    variants = [v.label for v in res.plan.variants[1:]]
    nv = len(variants)
    ncols = 1 if len(metrics) == 1 else 3 if nv > 6 and len(metrics) > 4 else 2
    nrows = math.ceil(len(metrics) / ncols)
    longest = max(len(v) for v in variants)
    height = nrows * (0.27 * nv + 1.3) + 1.4
    labels_in = 0.09 * longest + 0.8  # the variants' names on the left
    fig, axes = plt.subplots(
        nrows,
        ncols,
        sharey=True,
        squeeze=False,  # at most as wide as the report's page
        figsize=(min(4.2 * ncols, F.WIDEST - labels_in) + labels_in, height),
    )
    y = np.arange(nv)[::-1]
    for k, metric in enumerate(metrics):
        ax = axes[k // ncols][k % ncols]
        d = e[e["metric"] == metric].set_index("variant").reindex(variants)
        scale = 100.0 if rate_like(metric) else 1.0
        for yi, (_lab, r) in zip(y, d.iterrows()):
            if np.isnan(r["effect"]):
                continue
            col = "tab:red" if bool(r.get("significant_any", r["significant"])) else "0.45"
            eff, lo, hi = scale * r["effect"], scale * r["lo"], scale * r["hi"]
            ax.errorbar(
                [eff],
                [yi],
                xerr=F.bars([eff], [lo], [hi]),
                fmt="o" if r["paired"] else "s",
                color=col,
                mfc=col if r["paired"] else "white",
                capsize=3,
                ms=5,
            )
        ax.axvline(0, color="0.2", lw=0.8, ls="--")
        unit = (
            "percentage points"
            if rate_like(metric)
            else "moves"
            if metric == "mean_moves"
            else "per game"
        )
        ax.set_xlabel(f"difference vs {res.info['baseline']} ({unit})")
        ax.set_title(metric_title(metric), fontsize="medium")
        ax.grid(axis="x", alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
        ax.set_yticks(y, variants)
        ax.set_ylim(-0.7, nv - 0.3)
    for k in range(len(metrics), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    from matplotlib.patches import Patch

    drawn = e[e["effect"].notna() & e["variant"].isin(variants)]
    any_col = "significant_any" if "significant_any" in drawn else "significant"
    sig, paired = drawn[any_col].astype(bool), drawn["paired"].astype(bool)
    handles = [
        h
        for h, shown in (  # legend entries only for what the chart holds
            (
                Patch(color="tab:red", label="colour: significant by any of its tests (Holm 5%)"),
                sig.any(),
            ),
            (Patch(color="0.45", label="colour: not significant"), (~sig).any()),
            (
                Line2D(
                    [], [], color="black", marker="o", ls="", label="filled circle: paired deals"
                ),
                paired.any(),
            ),
            (
                Line2D(
                    [],
                    [],
                    color="black",
                    marker="s",
                    mfc="white",
                    ls="",
                    label="open square: unpaired deals",
                ),
                (~paired).any(),
            ),
        )
        if shown
    ]
    if handles:
        fig.legend(
            handles=handles, loc="lower center", ncol=len(handles), fontsize="small", frameon=False
        )
    fig.suptitle(
        f"Effect of each variant vs the baseline {res.info['baseline']}, 95% "
        f"intervals\n{subtitle(res)}"
    )
    return F.save_figure(
        fig, path, rect=(0, 0.4 / height, 1, 1 - 0.75 / height)
    )  # room for the two-line title


def plot_lengths(res, path: Path) -> Path:
    """Game-length distributions on a log scale of moves (the lengths are very skewed).

    Up to :data:`OVERLAY_MAX` variants: all overlaid, each in its own colour (``tab10``, no
    colour repeated): step histograms over log-spaced bins (share of the variant's games per
    bin) and ECDFs of the finished games. More variants: small multiples, one panel per
    variant with its ECDF (blue) over the baseline's (grey), so that each stays readable
    shrunk into the report. The move cap is the dotted line; each variant's share of
    unfinished games (stalled, proven loops, at the cap) is in its legend entry or panel
    title. Variants with no game draw nothing (an empty partial run)."""
    from matplotlib.ticker import FuncFormatter

    plt = F.pyplot()
    labels = [v.label for v in res.plan.variants]
    caps = sorted({v.rules.max_moves for v in res.plan.variants})
    fins = [t.lengths[t.ends == END_FINISHED].astype(np.int64) for t in res.tallies]
    lo = max(1, min((int(f.min()) for f in fins if f.size), default=1))
    hi = max(caps)
    edges = np.unique(np.round(np.geomspace(lo, hi + 1, 60)).astype(np.int64))

    def unfinished(t) -> tuple[str, str]:
        g = t.lengths.size
        unf = t.unfinished.sum() / g if g else 0.0
        short = f"unfinished {100 * unf:.2f}%"
        if (
            g and np.isin(t.ends, (END_STALLED, END_LOOP)).any()
        ):  # how they ended: only the ways some did
            ways = [
                f"{name} {100 * (t.ends == c).sum() / g:.2f}"
                for c, name in ((END_STALLED, "stalled"), (END_LOOP, "loops"), (END_CAP, "cap"))
                if (t.ends == c).any()
            ]
            return short, f"{short}: {', '.join(ways)}"
        return short, short

    def ecdf(ax, fin, g, **kw):
        if fin.size:
            vals, cnt = np.unique(fin, return_counts=True)
            ax.step(vals, np.cumsum(cnt) / g * 100, where="post", **kw)

    def log_axis(ax):
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
        ax.grid(alpha=0.3, which="both")
        for c in caps:
            ax.axvline(c, color="0.3", ls=":", lw=1.2)
        ax.set_xlim(lo * 0.9, hi * 1.15)

    if len(labels) > OVERLAY_MAX:
        n = len(labels) - 1
        ncols = 4 if n <= 16 else 5
        nrows = math.ceil(n / ncols)
        fig, axes = plt.subplots(
            nrows,
            ncols,
            sharex=True,
            sharey=True,
            squeeze=False,
            figsize=(F.WIDEST / 5 * ncols, 2.5 * nrows + 1.3),
        )
        base_t, base_fin = res.tallies[0], fins[0]
        for k in range(nrows * ncols):
            ax = axes[k // ncols][k % ncols]
            if k >= n:
                ax.set_visible(False)
                continue
            t, fin = res.tallies[k + 1], fins[k + 1]
            ecdf(
                ax,
                base_fin,
                base_t.lengths.size,
                color="0.55",
                lw=1.2,
                label=f"baseline {labels[0]}",
            )
            ecdf(ax, fin, t.lengths.size, color="tab:blue", lw=1.4, label="this variant")
            log_axis(ax)
            ax.set_ylim(0, 100)
            ax.set_title(f"{labels[k + 1]}\n{unfinished(t)[0]}", fontsize="small")
            ax.tick_params(labelsize=9)
            if k % ncols == 0:
                ax.set_ylabel("finished within (%)", fontsize="small")
            if k // ncols == nrows - 1 or k + ncols >= n:
                ax.set_xlabel("moves (log scale)", fontsize="small")
                ax.xaxis.set_tick_params(labelbottom=True)
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(
            handles,
            [f"baseline {labels[0]} ({unfinished(base_t)[0]})", "the panel's variant"],
            loc="lower center",
            ncol=2,
            fontsize="small",
            frameon=False,
        )
        height = 2.5 * nrows + 1.3
        fig.suptitle(
            f"Game length by rule variant: share of games finished within N moves (ECDF), "
            "each variant against the baseline; dotted: move cap "
            f"{', '.join(f'{c:,}' for c in caps)}"
            f"\n{subtitle(res)}",
            fontsize="medium",
        )
        return F.save_figure(fig, path, rect=(0, 0.35 / height, 1, 1 - 0.7 / height))

    cmap = plt.get_cmap("tab10")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5.4))
    for i, (lab, t, fin) in enumerate(zip(labels, res.tallies, fins)):
        col = cmap(i)
        g = t.lengths.size
        name = f"{lab} ({unfinished(t)[1]})"
        if fin.size:
            counts = np.histogram(fin, bins=edges)[0]
            ax1.stairs(counts / g * 100, edges, color=col, lw=1.4, label=name)
            ecdf(ax2, fin, g, color=col, lw=1.3, label=name)
    for ax in (ax1, ax2):
        log_axis(ax)
    ax1.text(
        caps[-1],
        ax1.get_ylim()[1] * 0.97,
        " move cap",
        rotation=90,
        va="top",
        ha="right",
        fontsize="small",
        color="0.3",
    )
    ax1.set_xlabel(f"game length (moves, log scale; a round is {res.info['players']} moves)")
    ax1.set_ylabel("share of the variant's games in the bin (%)")
    ax1.set_title("Distribution of finished games (log-spaced bins)", fontsize="medium")
    ax2.set_xlabel("game length (moves, log scale)")
    ax2.set_ylabel("games finished within that many moves (%)")
    ax2.set_title(
        "Cumulative distribution (ECDF); the rest were stopped unfinished", fontsize="medium"
    )
    ax2.set_ylim(0, 100)
    if any(f.size for f in fins):
        ax2.legend(
            fontsize="small",
            loc="upper left",
            title=f"move cap: {', '.join(f'{c:,}' for c in caps)} moves",
            title_fontsize="small",
        )
    fig.suptitle(f"Game length by rule variant\n{subtitle(res)}")
    return F.save_figure(fig, path)


CHARTS = (Chart("forest.png", plot_forest), Chart("lengths.png", plot_lengths, "lengths.csv"))
"""The comparison's charts; each is drawn as ``draw(result, path)``."""
