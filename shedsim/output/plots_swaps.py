"""Charts of the swap-phase study (:mod:`shedsim.analysis.swaps`), written as PNGs with the
conventions of :mod:`shedsim.output.plots` (Agg backend, titled, axes with units, atomic writes).
Each function takes a DataFrame of the study, an output path and a subtitle; returns the path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shedsim.rules.cards import RANKS, rank_name
from shedsim.output.plots import bars, plt
from shedsim.output.plots import save_figure


def by_rank(df, path: Path, subtitle: str = "") -> Path:
    """(a) Share of face-up cards of each rank, as dealt and after the swap, and the rate
    at which a visible card of the rank is put face up (95% interval, one game = one cluster)."""
    x = np.arange(len(df))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.3))
    ax1.bar(x - 0.2, df["dealt_share"] * 100, 0.4, label="as dealt", color="0.6")
    ax1.bar(x + 0.2, df["chosen_share"] * 100, 0.4, label="after the swap", color="tab:blue")
    ax1.set_xticks(x, df["rank"])
    ax1.set_xlabel("rank")
    ax1.set_ylabel("share of face-up cards (%)")
    ax1.set_title("What lies face up")
    ax1.legend()
    ax1.grid(axis="y", alpha=0.3)
    rate = df["keep_up_rate"].to_numpy(float) * 100
    lo = df["keep_up_lo"].to_numpy(float) * 100
    hi = df["keep_up_hi"].to_numpy(float) * 100
    ax2.errorbar(x, rate, yerr=bars(rate, lo, hi), fmt="o", capsize=3, color="tab:blue")
    base = float(df["dealt_up"].sum()) / max(1.0, float(df["visible"].sum())) * 100
    ax2.axhline(base, ls="--", color="0.5", label=f"as dealt ({base:.0f}%: table / visible cards)")
    ax2.set_xticks(x, df["rank"])
    ax2.set_ylim(-2, 102)
    ax2.set_xlabel("rank")
    ax2.set_ylabel("visible cards put face up (%)")
    ax2.set_title("How often a visible card of the rank goes face up")
    ax2.legend(fontsize="small")
    ax2.grid(axis="y", alpha=0.3)
    fig.suptitle("Swap choices by rank" + (f"\n{subtitle}" if subtitle else ""))
    return save_figure(fig, path)


def value_heatmap(rows, min_games: int, path: Path, subtitle: str = "") -> Path:
    """(b) Loss rate of every face-up row of three cards: one panel per middle card, the
    lowest card down the rows and the highest across the columns, so each cell is one
    multiset (lowest <= middle <= highest); one colour scale for all panels; cells with fewer
    than ``min_games`` seat-games blank. ``rows``: the study's face-up table (``face_up``
    as rank names, ``seat_games``, ``losses``). Rows of another size than three (other
    rule sets) are drawn pooled over the cards between the lowest and the highest."""
    from shedsim.rules.cards import parse_rank
    n = len(RANKS)
    cards = [sorted(parse_rank(c) for c in str(f).split()) for f in rows["face_up"]]
    three = bool(cards) and all(len(c) == 3 for c in cards)
    mids = RANKS if three else [None]
    losses = np.zeros((len(mids), n, n))
    games = np.zeros((len(mids), n, n))
    for c, k, lo in zip(cards, rows["seat_games"], rows["losses"]):
        m = mids.index(c[1]) if three else 0
        games[m, c[0] - 2, c[-1] - 2] += k
        losses[m, c[0] - 2, c[-1] - 2] += lo
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(games >= max(1, min_games), losses / games * 100, np.nan)
    names = [rank_name(r) for r in RANKS]
    finite = rate[np.isfinite(rate)]
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 100.0)
    if not three:
        fig, ax = plt.subplots(figsize=(9.5, 8))
        im = ax.imshow(np.ma.masked_invalid(rate[0]), cmap="RdYlGn_r", vmin=vmin, vmax=vmax)
        ax.set_xticks(range(n), names)
        ax.set_yticks(range(n), names)
        ax.set_xlabel("highest face-up rank")
        ax.set_ylabel("lowest face-up rank")
        fig.colorbar(im, ax=ax, label="loss rate (% of seat-games)")
        ax.set_title("Loss rate by face-up row (lowest x highest card, pooled over the others)"
                     + (f"\n{subtitle}" if subtitle else ""))
        return save_figure(fig, path)
    ncols = 5
    nrows = -(-len(mids) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.0 * ncols + 1.2, 3.0 * nrows + 1.2), squeeze=False)
    im = None
    for k in range(nrows * ncols):
        ax = axes[k // ncols][k % ncols]
        if k >= len(mids):
            ax.set_visible(False)
            continue
        m = mids[k] - 2
        # only the possible cells: lowest <= middle <= highest
        sub = rate[k][: m + 1, m:]
        im = ax.imshow(np.ma.masked_invalid(sub), cmap="RdYlGn_r", vmin=vmin, vmax=vmax, aspect="auto")
        ax.set_xticks(range(n - m), names[m:], fontsize=6)
        ax.set_yticks(range(m + 1), names[: m + 1], fontsize=6)
        ax.set_title(f"middle card {names[m]}", fontsize="small")
        if k % ncols == 0:
            ax.set_ylabel("lowest card", fontsize="small")
        if k // ncols == nrows - 1 or k + ncols >= len(mids):
            ax.set_xlabel("highest card", fontsize="small")
    fig.colorbar(im, ax=axes.ravel().tolist(), label="loss rate (% of seat-games)", shrink=0.6)
    fig.suptitle("Loss rate by face-up row of three cards: one panel per middle card "
                 f"(blank: under {min_games:,} seat-games)" + (f"\n{subtitle}" if subtitle else ""))
    try:
        atomic_png(fig, path)
    finally:
        plt.close(fig)
    return path


def atomic_png(fig, path: Path) -> None:
    """Write ``fig`` as every chart is written but without ``tight_layout`` (it does not
    handle a colour bar shared by several panels)."""
    from shedsim.output.plots import png_bytes
    from shedsim.runs import atomic
    atomic.write_bytes(path, png_bytes(fig))


def value_extremes(table, path: Path, subtitle: str = "", k: int = 12) -> Path:
    """(b) The ``k`` best and ``k`` worst face-up multisets by loss rate, 95% intervals (per-game clusters)."""
    t = table if len(table) <= 2 * k else table.iloc[list(range(k)) + list(range(len(table) - k, len(table)))]
    y = np.arange(len(t))[::-1]
    rate = t["loss_rate"].to_numpy(float) * 100
    lo = t["loss_lo"].to_numpy(float) * 100
    hi = t["loss_hi"].to_numpy(float) * 100
    fig, ax = plt.subplots(figsize=(7.5, max(4.0, 0.28 * len(t) + 1.5)))
    colours = ["tab:green" if i < min(k, len(t) // 2 + len(t) % 2) else "tab:red" for i in range(len(t))]
    ax.errorbar(rate, y, xerr=bars(rate, lo, hi), fmt="none", ecolor="0.5", capsize=2)
    ax.scatter(rate, y, c=colours, zorder=3)
    ax.set_yticks(y, t["face_up"])
    ax.set_xlabel("loss rate (% of seat-games) with 95% interval")
    ax.set_ylabel("face-up cards")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"Best and worst face-up rows (of {len(table)} seen often enough)"
                 + (f"\n{subtitle}" if subtitle else ""))
    return save_figure(fig, path)


def regret(df, path: Path, subtitle: str = "") -> Path:
    """(d) Histogram of the regret (places) of the strategy's face-up choice per deal."""
    r = df["regret"].to_numpy(float)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    bins = np.linspace(0, max(0.05, float(r.max()) if len(r) else 1.0), 26)
    ax.hist(r, bins=bins, color="tab:purple", edgecolor="white")
    ax.axvline(float(r.mean()), color="k", ls="--", label=f"mean {r.mean():.3f} places")
    share = float(df["policy_is_best"].mean()) * 100
    ax.set_xlabel("regret: mean place of the choice made minus the best choice's (places)")
    ax.set_ylabel("deals")
    ax.set_title(f"Regret of the face-up choice (best in {share:.0f}% of deals)" + (f"\n{subtitle}" if subtitle else ""))
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return save_figure(fig, path)
