"""Charts of the swap-phase study (:mod:`shedsim.analysis.swaps`), written as PNGs with the
conventions of :mod:`shedsim.output.plots` (Agg backend, titled, axes with units, atomic writes).
Each function takes a DataFrame of the study, an output path and a subtitle; returns the path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shedsim.rules.cards import RANKS, rank_name
from shedsim.output.plots import _save, bars, plt


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
    return _save(fig, path)


def value_heatmap(rows, min_games: int, path: Path, subtitle: str = "") -> Path:
    """(b) Loss rate by the lowest (row) and highest (column) rank of the face-up row,
    pooled over the middle cards; cells with fewer than ``min_games`` seat-games blank."""
    n = len(RANKS)
    losses = np.zeros((n, n))
    games = np.zeros((n, n))
    for low, high, k, lo in zip(rows["low"], rows["high"], rows["seat_games"], rows["losses"]):
        games[low - 2, high - 2] += k
        losses[low - 2, high - 2] += lo
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(games >= min_games, losses / games * 100, np.nan)
    names = [rank_name(r) for r in RANKS]
    fig, ax = plt.subplots(figsize=(9.5, 8))
    finite = rate[np.isfinite(rate)]
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 100.0)
    im = ax.imshow(np.ma.masked_invalid(rate), cmap="RdYlGn_r", vmin=vmin, vmax=vmax, origin="upper")
    ax.set_xticks(range(n), names)
    ax.set_yticks(range(n), names)
    ax.set_xlabel("highest face-up rank")
    ax.set_ylabel("lowest face-up rank")
    for i in range(n):
        for j in range(n):
            if np.isfinite(rate[i, j]):
                ax.text(j, i, f"{rate[i, j]:.0f}", ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax, label="loss rate (% of seat-games)")
    ax.set_title("Loss rate by face-up row (lowest x highest card)" + (f"\n{subtitle}" if subtitle else ""))
    return _save(fig, path)


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
    return _save(fig, path)


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
    return _save(fig, path)
