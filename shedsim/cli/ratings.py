"""``shedsim ratings``: a ratings list across runs, in one SQLite file (the fit lives in
:mod:`shedsim.analysis.ratings`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import CommandGroup

ratings_app = typer.Typer(
    help="A ratings list across tournaments (SQLite; random = 0 per rules and player count).",
    no_args_is_help=True,
    cls=CommandGroup,
)
DbOpt = Annotated[
    Path,
    typer.Option(
        "--db", help="The ratings file (SQLite; created when missing; any other file is refused)."
    ),
]
DEFAULT_DB = Path("ratings.sqlite")


def _open(db: Path, create: bool = True):
    """The ratings file ``db`` open (:func:`shedsim.analysis.ratings.connect`: a file that
    is not a ratings database is refused, exit 2, nothing written)."""
    from shedsim.analysis import ratings as RT
    from shedsim.cli.common import fail

    if db.exists() and not db.is_file():
        fail(f"--db {str(db)!r}: not a file")
    try:
        return RT.connect(db, create)
    except RT.RatingsError as e:
        fail(str(e))


@ratings_app.command("add")
def add(
    dirs: Annotated[list[Path], typer.Argument(help="Directories of finished tournaments.")],
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Add finished tournaments to the list; a run already in it (the same spec key) changes nothing.

    Every directory is checked before any is added. Exit codes: 0 done; 2 a directory that holds no finished tournament, or a bad --db (one that exists, is not empty and is not a shedsim ratings file is left as it is).

    Examples: shedsim ratings add reports/latest reports/three;  shedsim ratings show --players 4;  shedsim ratings page --out ratings.html
    """  # noqa: E501
    from shedsim.analysis import ratings as RT
    from shedsim.cli.common import fail

    for d in dirs:
        try:
            RT._read_run(d)
        except RT.RatingsError as e:
            fail(str(e))
    con = _open(db)
    for d in dirs:
        try:
            added = RT.add_run(con, d)
        except RT.RatingsError as e:  # changed since the check above
            fail(str(e))
        typer.echo(f"{'added' if added else 'already in the list, unchanged:'} {d}")


@ratings_app.command("show")
def show(
    db: DbOpt = DEFAULT_DB,
    rules: Annotated[
        Optional[str],
        typer.Option(
            "--rules", "-r", help="Only the lists of this rule set (its name, e.g. shithead+low7)."
        ),
    ] = None,
    players: Annotated[
        Optional[int],
        typer.Option("--players", "-p", min=2, help="Only the lists at this player count."),
    ] = None,
) -> None:
    """Print every list: one per rule set and player count, best first, random = 0."""
    from rich.table import Table

    from shedsim.analysis import ratings as RT
    from shedsim.output.console import out_console
    from shedsim.stats.sprt import elo_text

    if not db.is_file():
        from shedsim.cli.common import fail

        fail(f"--db {str(db)!r}: no such ratings file (shedsim ratings add DIR makes it)")
    con = _open(db, create=False)
    shown = 0
    every = RT.lists(con)
    for h, name, n, runs in every:
        if (rules is not None and name != rules) or (players is not None and n != players):
            continue
        rs, anchored = RT.ratings(con, h, n)
        t = Table(
            title=f"{name}, {n} players ({runs} run(s))",
            caption=f"Bradley-Terry on the Elo scale, {RT.anchor()} = 0"
            if anchored
            else f"no {RT.anchor()} in these runs: the mean is 0",
        )
        for c in ("#", "entry", "Elo", "comparisons", "runs"):
            t.add_column(c, justify="left" if c == "entry" else "right")
        for k, r in enumerate(rs, 1):
            t.add_row(str(k), r.label, elo_text(r.elo), f"{r.comparisons:,}", str(r.runs))
        out_console().print(t)
        shown += 1
    if not shown and not every:
        typer.echo("the list is empty")
    elif not shown:
        asked = [f"--rules {rules}"] * (rules is not None) + [f"--players {players}"] * (
            players is not None
        )
        held = "; ".join(f"{name}, {n} players" for _, name, n, _ in every)
        typer.echo(f"no list matches {' '.join(asked)}; the lists: {held}")


@ratings_app.command("page")
def page_cmd(
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="The HTML page to write; an existing file is replaced only if shedsim wrote it.",
        ),
    ],
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Write every list as one self-contained HTML page."""
    from shedsim.analysis import ratings as RT
    from shedsim.cli.common import fail
    from shedsim.runs import atomic

    if not db.is_file():
        fail(f"--db {str(db)!r}: no such ratings file (shedsim ratings add DIR makes it)")
    if out.exists() and not atomic.written_by_shedsim(out):
        fail(f"--out {str(out)!r}: the file exists and shedsim did not write it (give a new name)")
    con = _open(db, create=False)
    try:
        atomic.write_text(out, RT.page(con))
    except OSError as e:
        fail(f"--out {str(out)!r}: {e}", 3)
    typer.echo(f"wrote {out}")
