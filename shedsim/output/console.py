"""The console every command prints on (:func:`out_console`), and tables printed there
(rich): a tournament's ranking and match standings, and the moves of ``shedsim hint``
ranked. The figures come from the results' own tables; this module only lays them out."""

from __future__ import annotations

import math
import os
import sys

from rich.console import Console
from rich.table import Table

from shedsim.output.spec import PARTIAL_MARK

WIDE = 200
"""The width of the output off a terminal (a pipe, a file, a captured run), where no
reader's width is known. rich's default there is 80 columns, which would wrap and cut the
wider tables (a comparison's edges, a ranking with its intervals, the bench table); this is
wider than any table shedsim prints at its usual sizes, and a wider one still folds its
cells (:func:`fold`) rather than cutting them. COLUMNS, when set, is the width asked for
and wins, as it does on a terminal."""


def fold(table: Table) -> Table:
    """``table`` with no cell cut short: every column wraps its cells at spaces and folds a
    longer word (a figure) onto the next line, where rich's default cuts it with an ellipsis
    once the width is too narrow for it. Headers wrap the same way. Returns ``table``."""
    for column in table.columns:
        column.overflow = "fold"
        column.no_wrap = False  # a column kept on one line is cut, or vanishes, when squeezed
        column.min_width = max(column.min_width or 0, 1)  # a character, not nothing
    return table


EXIT_PIPE = 141
"""The exit status when the program reading the output closed it: 128 + SIGPIPE, as a shell
reports a command stopped by a closed pipe (rich's and click's own handling exit 1, which
shedsim keeps for a strategy that failed)."""


def output_gone() -> None:
    """Nothing more goes to standard output, whose reader is gone: it is pointed at the null
    device, so that the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class _Out(Console):
    """A console that folds every table it prints (:func:`fold`). A table with more
    columns than the width holds, even at a character each, runs past it (the terminal
    wraps its lines) rather than losing its last columns."""

    def on_broken_pipe(self) -> None:
        """The reader of the output left (``shedsim ... | head``): stop quietly with
        :data:`EXIT_PIPE`."""
        output_gone()
        raise SystemExit(EXIT_PIPE)

    def print(self, *objects, **kwargs) -> None:
        if any(isinstance(o, Table) for o in objects):
            kwargs.setdefault("crop", False)
        super().print(*(fold(o) if isinstance(o, Table) else o for o in objects), **kwargs)


def out_console(stderr: bool = False, **kwargs) -> Console:
    """The console a command prints its tables and text on: standard output (``stderr``:
    standard error) at the terminal's own width, or COLUMNS when set; off a terminal at
    :data:`WIDE`. Every table it prints is folded (:func:`fold`). ``kwargs`` go to rich's
    ``Console`` (``highlight=False``; ``file`` and ``width`` for a test)."""
    console = _Out(stderr=stderr, **kwargs)
    asked = kwargs.get("width") is not None or os.environ.get("COLUMNS", "").isdigit()
    if not asked and not console.is_terminal:
        console.width = WIDE
    return console


def pct(v: float, lo: float, hi: float) -> str:
    """A rate and its 95% interval as percentages, ``-`` when there is no figure."""
    return "-" if math.isnan(v) else f"{100 * v:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]"


def _forfeit_cell(r) -> str:
    """A run with bots: the games an entry forfeited, and by which kinds of fault."""
    from shedsim.bot.protocol import FAULTS

    n = getattr(r, "forfeits", 0)
    kinds = [
        f"{k} {getattr(r, 'forfeits_' + k):,}" for k in FAULTS if getattr(r, "forfeits_" + k, 0)
    ]
    return f"{n:,}" + (f" ({', '.join(kinds)})" if kinds else "")


UNFINISHED = "unfinished seat-games"
"""The ranking's column of each strategy's seats in unfinished games (a game with two of its
seats counts twice)."""


def ranking_table(spec, res, complete: bool) -> Table:
    """The ranking of a tournament's entries (``res.summary``, one row per entry), titled
    with its rules, players and games; ``complete`` False marks it PARTIAL."""
    s = res.summary
    # a column with one figure on every row says nothing about the strategies: it is said
    # once (the seat-games in the title; the unfinished games in the line under the table)
    per_row = {"games": s["games"].nunique() > 1, UNFINISHED: s["unfinished"].nunique() > 1}
    title = (
        f"Ranking: {spec.rules.name}, {spec.players} players, {res.info['games']:,} games"
        + (
            ""
            if per_row["games"] or s.empty
            else f", {int(s['games'].iloc[0]):,} seat-games per strategy"
        )
        + ("" if complete else PARTIAL_MARK)
    )
    t = Table(
        title=title,
        caption="\\[lo, hi] = 95% intervals, one deal (its rotations) = one cluster (Wilson at the "
        "effective size for rates, t for mean place); rating: Plackett-Luce, Elo scale, "
        "+- 1.96 cluster-robust se",
    )
    cols = (
        ("#", "right"),
        ("strategy", "left"),
        ("games", "right"),
        ("win rate", "right"),
        ("loss rate", "right"),
        ("mean place", "right"),
        ("rating", "right"),
        (UNFINISHED, "right"),
        *((("forfeits", "right"),) if "forfeits" in s else ()),
    )
    shown = [col for col, _ in cols if per_row.get(col, True)]
    for col, just in cols:
        if col in shown:
            t.add_column(col, justify=just)
    for r in s.itertuples(index=False):
        rating = "-" if math.isnan(r.rating) else f"{r.rating:+.1f} +- {1.96 * r.rating_se:.1f}"
        place = (
            "-"
            if math.isnan(r.mean_place)
            else f"{r.mean_place:.3f} [{r.place_lo:.3f}, {r.place_hi:.3f}]"
        )
        cells = {
            "#": str(r.rank),
            "strategy": r.strategy,
            "games": f"{r.games:,}",
            "win rate": pct(r.win_rate, r.win_lo, r.win_hi),
            "loss rate": pct(r.loss_rate, r.loss_lo, r.loss_hi),
            "mean place": place,
            "rating": rating,
            UNFINISHED: f"{r.unfinished:,}",
        }
        if "forfeits" in shown:
            cells["forfeits"] = _forfeit_cell(r)
        t.add_row(*(cells[col] for col in shown))
    return t


def standings_table(rounds: int, mt) -> Table:
    """The match standings of a tournament played in matches of ``rounds`` rounds (``mt``:
    its ``matches`` table, one row per entry)."""
    each = not mt.empty and mt["matches"].nunique() == 1  # every strategy played as many matches
    m = Table(
        title=f"Match standings ({rounds} rounds, summed places, lowest total wins"
        + (f"; {int(mt['matches'].iloc[0]):,} matches per strategy)" if each else ")")
    )
    for col in (
        "#",
        "strategy",
        *(() if each else ("matches",)),
        "match wins",
        "mean match place",
        "mean total places",
    ):
        m.add_column(col, justify="left" if col == "strategy" else "right")
    for r in mt.itertuples(index=False):
        m.add_row(
            str(r.rank),
            r.strategy,
            *(() if each else (f"{r.matches:,}",)),
            pct(r.match_win_rate, r.match_win_lo, r.match_win_hi),
            f"{r.mean_match_place:.3f} [{r.match_place_lo:.3f}, {r.match_place_hi:.3f}]",
            f"{r.mean_total_places:.3f}",
        )
    return m


def _share(iv) -> str:
    """A probability and its 95% interval (``value``, ``lo``, ``hi``) as percentages."""
    return f"{100 * iv.value:.1f}% ({100 * iv.lo:.1f}-{100 * iv.hi:.1f})"


def _point(x: float, rough: bool) -> str:
    """A share without interval: exact (whole percent) or a search's estimate (one decimal)."""
    if x != x:  # NaN: a move the search never visited
        return "-"
    return f"{100 * x:.1f}%" if rough else f"{100 * x:.0f}%"


def hint_table(res, to_move: int, file) -> Table:
    """The legal moves of a position ranked by ``shedsim hint`` (``res``: its result; the
    seat ``to_move`` moves in the position read from ``file``), best first."""
    whose = (
        f"seat {res.seat} to move"
        if res.seat == to_move
        else f"seat {res.seat}, as if it were its turn (seat {to_move} is to move)"
    )
    how = (
        "solved exactly"
        if res.solved
        else f"{res.policy}'s search"
        if res.searched
        else f"playouts by {res.policy}"
    )
    t = Table(title=f"{file}: {whose}, {res.players} players, {how}; {res.ranked_by()}")
    level = "" if res.searched else " (95%)"  # a search's estimates have no interval
    notes = [
        m.solved.words()
        if m.solved
        else "same as " + m.same_as
        if m.same_as
        else (f"dropped after {m.dropped_after}" if m.dropped_after else "")
        for m in res.moves
    ]
    for col, just in (
        ("#", "right"),
        ("move", "left"),
        (f"expected place{level}", "right"),
        (f"P(lose){level}", "right"),
        (f"P(first){level}", "right"),
        ("visits" if res.searched else "samples", "right"),
        *((("note", "left"),) if any(notes) else ()),  # no empty column
    ):
        t.add_column(col, justify=just)
    for i, (m, note) in enumerate(zip(res.moves, notes), 1):
        exact = m.solved is not None or res.searched  # exact figures, a search's: no interval
        t.add_row(
            str(i),
            m.move,
            ("-" if m.place.value != m.place.value else f"{m.place.value:.2f}")  # NaN: unvisited
            + (
                "" if exact or m.place.lo != m.place.lo else f" ({m.place.lo:.2f}-{m.place.hi:.2f})"
            ),
            _point(m.p_lose.value, res.searched) if exact else _share(m.p_lose),
            _point(m.p_first.value, res.searched) if exact else _share(m.p_first),
            "exact" if m.solved else f"{m.samples:,}",
            *((note,) if any(notes) else ()),
        )
    return t
