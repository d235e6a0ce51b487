"""A tournament's charts (``shedsim tournament``; also the swap study's policy charts): one
function per chart, each titled and labelled with units, each taking the table the
tournament wrote (:mod:`shedsim.analysis.tournament`), an output path and a subtitle (rules,
players, games), and returning the path; :data:`CHARTS` lists them once, for the
tournament's ``write_outputs`` and the report's order.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shedsim.output.charts.figure import Chart
import shedsim.output.charts.figure as F

SHARED_AFTER_FORFEIT = "shared after a forfeit"
"""The column of a tournament's place shares (runs with bots) for the seats still in when a
bot forfeited their game with two or more of them in: they share the places between the seats
out and the forfeiter, and are not still in when a game was stopped."""


def rates(summary, path: Path, subtitle: str = "") -> Path:
    """Win rate and loss rate per strategy (ranking order) with 95% intervals (per-deal
    clusters)."""
    plt = F.pyplot()
    labels = list(summary["strategy"])
    x = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(min(F.WIDEST, max(6.0, 1.2 * len(labels) + 2)), 4.5))
    for off, col, name, colour in (
        (-0.15, "win", "win rate (first out)", "tab:green"),
        (0.15, "loss", "loss rate (last place)", "tab:red"),
    ):
        rate = summary[f"{col}_rate"].to_numpy(float) * 100
        lo = summary[f"{col}_lo"].to_numpy(float) * 100
        hi = summary[f"{col}_hi"].to_numpy(float) * 100
        ax.errorbar(
            x + off, rate, yerr=F.bars(rate, lo, hi), fmt="o", capsize=4, color=colour, label=name
        )
    ax.set_xticks(x, labels, rotation=20 if len(labels) > 5 else 0)
    ax.set_xlabel("strategy (ranked by rating)")
    ax.set_ylabel("share of games (%)")
    ax.set_title("Win and loss rates with 95% intervals" + (f"\n{subtitle}" if subtitle else ""))
    ax.grid(axis="y", alpha=0.3)
    ax.legend()
    return F.save_figure(fig, path)


END_WORDS = {"stalled": "stalled", "loop": "a proven loop", "cap": "the move cap"}
"""How a stopped game ended, in the charts' words (run.json's ``ends`` keys)."""


def stopped_words(ends: dict[str, int] | None) -> str:
    """The ways some game of ``ends`` (run.json's ``ends``: games per way of ending) was
    stopped, in words: ``"stalled or a proven loop"``; ``"stalled, a proven loop or the move
    cap"`` when ``ends`` is None (not recorded)."""
    ways = [w for k, w in END_WORDS.items() if ends is None or ends.get(k, 0) > 0] or list(
        END_WORDS.values()
    )
    if (
        ends is not None and ends.get("forfeit", 0) > 0
    ):  # a run with bots (docs/reference/bots.md#faults)
        ways.append("a bot's forfeit")
    return ways[0] if len(ways) == 1 else ", ".join(ways[:-1]) + " or " + ways[-1]


def place_distribution(
    place_shares, path: Path, subtitle: str = "", ends: dict[str, int] | None = None
) -> Path:
    """Stacked bars: the share of each strategy's games finished in each place, sharing the
    places left after a bot's forfeit (column :data:`SHARED_AFTER_FORFEIT`, runs with bots),
    and still in when the game was stopped unfinished (column ``unfinished``). The legend
    names only what the data holds: a place no strategy took, or no seat still in, has no
    entry, and the stopped games are named by how they ended (``ends``: run.json's
    ``ends``, games per way of ending: stalled, proven loop, move cap)."""
    plt = F.pyplot()
    labels = list(place_shares.index)
    cols = list(place_shares.columns)
    fig, ax = plt.subplots(figsize=(min(F.WIDEST, max(6.0, 1.2 * len(labels) + 3)), 4.5))
    cmap = plt.get_cmap("RdYlGn_r", max(2, len(cols) - 1))
    bottom = np.zeros(len(labels))
    for k, c in enumerate(cols):
        v = place_shares[c].to_numpy(float) * 100
        if not np.nansum(v) > 0:
            continue  # nothing of this in the data: no bar, no legend entry
        stopped = c == "unfinished"
        shared = c == SHARED_AFTER_FORFEIT
        colour = "0.6" if stopped else "0.8" if shared else cmap(k)
        name = (
            f"still in when stopped:\n{stopped_words(ends)}"
            if stopped
            else "places shared\nafter a forfeit"
            if shared
            else f"place {c}"
        )
        ax.bar(labels, v, bottom=bottom, color=colour, label=name, edgecolor="white", linewidth=0.5)
        bottom += np.nan_to_num(v)
    ax.set_xlabel("strategy (ranked by rating)")
    ax.set_ylabel("share of the strategy's games (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Finishing place distribution" + (f"\n{subtitle}" if subtitle else ""))
    ax.legend(bbox_to_anchor=(1.02, 1), loc="upper left", fontsize="small")
    return F.save_figure(fig, path)


def head_to_head(matrix, path: Path, subtitle: str = "") -> Path:
    """Heatmap: row strategy's share of comparisons finished ahead of the column strategy
    (when both sat at the same table), in percent; blank where they never met."""
    plt = F.pyplot()
    labels = list(matrix.index)
    m = matrix.to_numpy(float) * 100
    size = min(F.WIDEST - 1, max(4.5, 0.9 * len(labels) + 2.5))
    fig, ax = plt.subplots(figsize=(size + 1, size))
    im = ax.imshow(np.ma.masked_invalid(m), cmap="RdBu", vmin=0, vmax=100)
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("strategy (row)")
    if len(labels) <= 12:
        for i in range(len(labels)):
            for j in range(len(labels)):
                if not np.isnan(m[i, j]):
                    ax.text(
                        j,
                        i,
                        f"{m[i, j]:.1f}",
                        ha="center",
                        va="center",
                        fontsize=9,
                        color="white" if abs(m[i, j] - 50) > 30 else "black",
                    )
    fig.colorbar(im, ax=ax, label="row finished ahead of column (% of comparisons)")
    ax.set_title("Head to head" + (f"\n{subtitle}" if subtitle else ""))
    return F.save_figure(fig, path)


def game_lengths(lengths, path: Path, subtitle: str = "") -> Path:
    """Histogram of game length in moves: finished games, with stalled games and proven
    loops (``stall:N``, the loop check) stacked on them in the same bins; the games stopped
    at the move cap are counted in the legend (``lengths``: a tournament's lengths.csv)."""
    plt = F.pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    bottom: dict[float, float] = {}
    for kind, colour, name in (
        ("finished", "tab:blue", "finished games"),
        ("stalled", "tab:orange", "stalled"),
        ("proven loop", "tab:purple", "proven loops"),
    ):
        d = lengths[lengths["kind"] == kind]
        if not len(d) or (kind != "finished" and int(d["games"].sum()) == 0):
            continue
        x = d["moves_from"].to_numpy(float)
        width = (d["moves_to"] - d["moves_from"] + 1).to_numpy(float)
        h = d["share"].to_numpy(float) * 100
        b = np.array([bottom.get(v, 0.0) for v in x])
        label = (
            name
            if kind == "finished"
            else (f"{name} ({int(d['games'].sum()):,} games, {float(d['share'].sum()) * 100:.2f}%)")
        )
        ax.bar(
            x,
            h,
            width=width,
            bottom=b,
            align="edge",
            color=colour,
            edgecolor="white",
            linewidth=0.3,
            label=label,
        )
        for v, top in zip(x, b + h):
            bottom[v] = top
    capped = lengths[lengths["kind"].str.startswith("unfinished")]
    if len(capped) and int(capped["games"].iloc[0]) > 0:
        # drawn as a legend entry, not a bar: the cap is far to the right of every finished game
        r = capped.iloc[0]
        ax.bar(
            [np.nan],
            [np.nan],
            color="tab:red",
            label=f"not shown: unfinished at the move cap of {int(r['moves_from']):,} moves "
            f"({int(r['games']):,} games, {float(r['share']) * 100:.2f}%)",
        )
    ax.set_xlabel("game length (moves)")
    ax.set_ylabel("share of games (%)")
    ax.set_title("Game length" + (f"\n{subtitle}" if subtitle else ""))
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    return F.save_figure(fig, path)


def seats(seat_table, path: Path, subtitle: str = "") -> Path:
    """Loss rate by seat counted from the starting player (seat 0 starts), with 95%
    intervals (one deal = one cluster: ``seats.csv``), on an axis from 0. The dashed line is the
    fair share: every seat losing
    equally often, i.e. the seats' mean loss rate, which is 1 / players of the games with a
    loser. A game stopped unfinished has no loser under ``stalemate:share``, so 1 / players
    of all games is then out of reach and is not drawn; the legend says so only when the
    seats' loss rates add up to less than every game (some game had no loser)."""
    plt = F.pyplot()
    d = seat_table[seat_table["kind"] == "from_starter"]
    x = d["seat"].to_numpy(int)
    rate = d["loss_rate"].to_numpy(float) * 100
    lo = d["loss_lo"].to_numpy(float) * 100
    hi = d["loss_hi"].to_numpy(float) * 100
    n = max(1, len(x))
    fig, ax = plt.subplots(figsize=(6.5, 4.8))
    ax.errorbar(
        x,
        rate,
        yerr=F.bars(rate, lo, hi),
        fmt="o",
        capsize=4,
        color="tab:red",
        label="loss rate of the seat",
    )
    if len(rate) and np.isfinite(rate).any():
        fair = float(np.nanmean(rate))
        with_loser = float(np.nansum(rate))  # % of games that had a loser
        why = (
            f"1/{n} of the {with_loser:.2f}% of games with a loser; unfinished games have no loser"
            if with_loser < 99.995
            else f"1/{n}: every seat losing equally often"
        )
        ax.axhline(fair, ls="--", color="0.4", label=f"fair share {fair:.2f}% ({why})")
        top = float(np.nanmax(np.concatenate([hi[np.isfinite(hi)], rate[np.isfinite(rate)]])))
        ax.set_ylim(0, max(1.0, top * 1.3))
    ax.set_xticks(x, [("starter" if s == 0 else f"+{s}") for s in x])
    ax.set_xlabel("seat, counted in turn order from the starting player")
    ax.set_ylabel("loss rate (% of all games, axis from 0)")
    ax.set_title(
        "Loss rate by seat with 95% intervals (per-deal clusters)"
        + (f"\n{subtitle}" if subtitle else "")
    )
    ax.grid(axis="y", alpha=0.3)
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize="small"
    )  # below: never over the points
    return F.save_figure(fig, path)


# ---------------------------------------------------------------------- the tournament's charts
def subtitle_of(spec, res) -> str:
    """The charts' subtitle: rules, players and games (``spec``: a
    :class:`shedsim.analysis.tournament.TournamentSpec`, ``res`` its results)."""
    return f"{spec.rules.name}, {spec.players} players, {res.info['games']:,} games"


def _rates(spec, res, path: Path) -> Path:
    return rates(res.summary, path, subtitle=subtitle_of(spec, res))


def _places(spec, res, path: Path) -> Path:
    return place_distribution(
        res.place_shares, path, subtitle=subtitle_of(spec, res), ends=res.info["ends"]
    )


def _head_to_head(spec, res, path: Path) -> Path:
    return head_to_head(res.h2h_matrix, path, subtitle=subtitle_of(spec, res))


def _seats(spec, res, path: Path) -> Path:
    return seats(res.seats, path, subtitle=subtitle_of(spec, res))


def _lengths(spec, res, path: Path) -> Path:
    return game_lengths(res.lengths, path, subtitle=subtitle_of(spec, res))


CHARTS = (
    Chart("rates.png", _rates),
    Chart("places.png", _places),
    Chart("head_to_head.png", _head_to_head, "head_to_head.csv"),
    Chart("seats.png", _seats, "seats.csv"),
    Chart("lengths.png", _lengths, "lengths.csv"),
)
"""The tournament's charts, in the report's order; each is drawn as ``draw(spec, results,
path)``."""
LEAD_TABLES = ("summary.csv", "matches.csv")
"""The tables the report shows before the charts (then each chart with the table it draws)."""
