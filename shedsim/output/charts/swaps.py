"""The swap study's charts (``shedsim swaps``, :mod:`shedsim.analysis.swaps`), written with the
conventions of :mod:`shedsim.output.charts.figure` (Agg backend, titled, axes with units,
atomic writes). Each function takes a table of the study, an output path and a subtitle,
and returns the path; :data:`CHARTS` lists every chart of the study once (the policies'
charts are the tournament's, :mod:`shedsim.output.charts.tournament`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shedsim.output.charts.figure import Chart
import shedsim.output.charts.figure as F
from shedsim.output.charts.tournament import head_to_head, rates
from shedsim.rules.cards import RANKS, rank_name


def by_rank(df, path: Path, subtitle: str = "") -> Path:
    """(a) Share of face-up cards of each rank, as dealt and after the swap, and the rate
    at which a visible card of the rank is put face up (95% interval, one game = one cluster)."""
    plt = F.pyplot()
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
    ax2.errorbar(x, rate, yerr=F.bars(rate, lo, hi), fmt="o", capsize=3, color="tab:blue")
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
    return F.save_figure(fig, path)


def value_heatmap(rows, min_games: int, path: Path, subtitle: str = "") -> Path:
    """(b) Loss rate of every face-up row of three cards: one panel per middle card, the
    lowest card down the rows and the highest across the columns, so each cell is one
    multiset (lowest <= middle <= highest); one colour scale for all panels; cells with fewer
    than ``min_games`` seat-games blank. ``rows``: the study's face-up table (``face_up``
    as rank names, ``seat_games``, ``losses``). Rows of another size than three (other
    rule sets) are drawn pooled over the cards between the lowest and the highest."""
    plt = F.pyplot()
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
        ax.set_title(
            "Loss rate by face-up row (lowest x highest card, pooled over the others)"
            + (f"\n{subtitle}" if subtitle else "")
        )
        return F.save_figure(fig, path)
    return _triples(rate, names, vmin, vmax, min_games, path, subtitle)


HEATMAP_COLUMNS = 5
"""Panels per row of the three-card heat map (13 panels: 5, 5 and 3)."""


def _triples(
    rate, names: list[str], vmin: float, vmax: float, min_games: int, path: Path, subtitle: str
) -> Path:
    """The three-card heat map of :func:`value_heatmap`: ``rate`` float[13, 13, 13] (middle,
    lowest, highest card; NaN blank). Every cell is the same size (one card by one card) in
    every panel, so a panel is as wide as its possible highest cards and as tall as its
    possible lowest ones; each row of panels is as tall as its tallest. The figure is 14
    inches wide, which the report shows unscaled at 80 dots per inch, with 9-point labels."""
    plt = F.pyplot()
    from matplotlib.gridspec import GridSpec

    n = len(names)
    ncols = HEATMAP_COLUMNS
    nrows = -(-n // ncols)
    heights = [max(m + 1 for m in range(r * ncols, min(n, (r + 1) * ncols))) for r in range(nrows)]
    cell = 0.19  # inches per card
    pad = 0.75  # inches above and below each row of panels: its title and its labels
    width = 14.0
    height = sum(heights) * cell + nrows * pad + 1.5
    fig = plt.figure(figsize=(width, height))
    grid = GridSpec(
        nrows,
        ncols,
        figure=fig,
        height_ratios=[h * cell + pad for h in heights],
        left=0.05,
        right=0.99,
        top=1 - 1.0 / height,
        bottom=0.35 / height,
        wspace=0.25,
        hspace=0.0,
    )
    im = None
    for m in range(n):
        r, c = divmod(m, ncols)
        sub = grid[r, c].subgridspec(
            2,
            1,
            height_ratios=[(m + 1) * cell, heights[r] * cell - (m + 1) * cell + pad],
            hspace=0.0,
        )
        ax = fig.add_subplot(sub[0])
        # only the possible cells: lowest <= middle <= highest
        im = ax.imshow(
            np.ma.masked_invalid(rate[m][: m + 1, m:]),
            cmap="RdYlGn_r",
            vmin=vmin,
            vmax=vmax,
            aspect="equal",
            extent=(-0.5, n - m - 0.5, m + 0.5, -0.5),
        )
        ax.set_anchor("NW")
        ax.set_xticks(range(n - m), names[m:], fontsize=9)
        ax.set_yticks(range(m + 1), names[: m + 1], fontsize=9)
        ax.tick_params(length=2, pad=1)
        ax.set_title(f"middle card {names[m]}", fontsize=10)
        if c == 0:
            ax.set_ylabel("lowest card", fontsize=9)
        ax.set_xlabel("highest card", fontsize=9, labelpad=1)
    cax = fig.add_axes((0.66, 0.35 / height + 0.12, 0.3, 0.025))
    fig.colorbar(im, cax=cax, orientation="horizontal").set_label(
        "loss rate (% of seat-games)", fontsize=10
    )
    cax.tick_params(labelsize=9)
    fig.suptitle(
        "Loss rate by face-up row of three cards: one panel per middle card "
        f"(blank: under {min_games:,} seat-games)" + (f"\n{subtitle}" if subtitle else ""),
        fontsize=11,
    )
    try:
        F.atomic_png(fig, path)
    finally:
        plt.close(fig)
    return path


def value_extremes(table, path: Path, subtitle: str = "", k: int = 12) -> Path:
    """(b) The ``k`` best and ``k`` worst face-up multisets by loss rate, 95% intervals (per-game
    clusters)."""
    plt = F.pyplot()
    t = (
        table
        if len(table) <= 2 * k
        else table.iloc[list(range(k)) + list(range(len(table) - k, len(table)))]
    )
    y = np.arange(len(t))[::-1]
    rate = t["loss_rate"].to_numpy(float) * 100
    lo = t["loss_lo"].to_numpy(float) * 100
    hi = t["loss_hi"].to_numpy(float) * 100
    fig, ax = plt.subplots(figsize=(7.5, max(4.0, 0.28 * len(t) + 1.5)))
    colours = [
        "tab:green" if i < min(k, len(t) // 2 + len(t) % 2) else "tab:red" for i in range(len(t))
    ]
    ax.errorbar(rate, y, xerr=F.bars(rate, lo, hi), fmt="none", ecolor="0.5", capsize=2)
    ax.scatter(rate, y, c=colours, zorder=3)
    ax.set_yticks(y, t["face_up"])
    ax.set_xlabel("loss rate (% of seat-games) with 95% interval")
    ax.set_ylabel("face-up cards")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(
        f"Best and worst face-up rows (of {len(table)} seen often enough)"
        + (f"\n{subtitle}" if subtitle else "")
    )
    return F.save_figure(fig, path)


def regret(df, path: Path, subtitle: str = "") -> Path:
    """(d) Histogram of the regret (places) of the strategy's face-up choice per deal."""
    plt = F.pyplot()
    r = df["regret"].to_numpy(float)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    bins = np.linspace(0, max(0.05, float(r.max()) if len(r) else 1.0), 26)
    ax.hist(r, bins=bins, color="tab:purple", edgecolor="white")
    ax.axvline(float(r.mean()), color="k", ls="--", label=f"mean {r.mean():.3f} places")
    share = float(df["policy_is_best"].mean()) * 100
    ax.set_xlabel("regret: mean place of the choice made minus the best choice's (places)")
    ax.set_ylabel("deals")
    ax.set_title(
        f"Regret of the face-up choice (best in {share:.0f}% of deals)"
        + (f"\n{subtitle}" if subtitle else "")
    )
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return F.save_figure(fig, path)


# ---------------------------------------------------------------------- the study's charts
def subtitle_of(spec) -> str:
    """The charts' first line: rules, players and the play policy (``spec``: a
    :class:`shedsim.analysis.swaps.StudySpec`)."""
    return f"{spec.rules.name}, {spec.players} players, play policy {spec.strategy}"


def _by_rank(spec, res, path: Path) -> Path:
    return by_rank(res.by_rank, path, subtitle_of(spec))


def _heatmap(spec, res, path: Path) -> Path:
    return value_heatmap(
        res.values_all, spec.min_games, path, f"{subtitle_of(spec)}, {spec.games:,} games, no swap"
    )


def _extremes(spec, res, path: Path) -> Path | None:
    if not len(res.values):
        return None
    return value_extremes(res.values, path, f"{subtitle_of(spec)}, {spec.games:,} games, no swap")


def _policies_subtitle(spec, res) -> str:
    return f"swap policies: {subtitle_of(spec)}, {int(res.policies.info['games']):,} games"


def _policies(spec, res, path: Path) -> Path:
    return rates(res.policies.summary, path, subtitle=_policies_subtitle(spec, res))


def _policies_h2h(spec, res, path: Path) -> Path:
    return head_to_head(res.policies.h2h_matrix, path, subtitle=_policies_subtitle(spec, res))


def _regret(spec, res, path: Path) -> Path | None:
    if res.regret is None or not len(res.regret):
        return None
    return regret(
        res.regret,
        path,
        f"{subtitle_of(spec)}, {spec.deals} deals x {spec.rollouts} rollouts per choice",
    )


CHARTS = (
    Chart("by_rank.png", _by_rank, "by_rank.csv"),
    Chart("face_up_heatmap.png", _heatmap),
    Chart("face_up_extremes.png", _extremes, "face_up_values.csv"),
    Chart("policies.png", _policies, "policies.csv"),
    Chart("policies_head_to_head.png", _policies_h2h, "policies_head_to_head.csv"),
    Chart("regret.png", _regret, "regret.csv"),
)
"""The study's charts; each is drawn as ``draw(spec, results, path)`` (None: nothing to draw,
no face-up row seen often enough or no regret study)."""
