"""`shedsim deals export`: write a deal-set file (docs/reference/deals.md) from a seed or
from the deals of a tournament run; ``--deals FILE`` on tournament, sprt and gauntlet
plays such a file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

import shedsim.cli.options as O
from shedsim.cli.common import CommandGroup, fail

deals_app = typer.Typer(
    help="Deal-set files: the deals a run plays, one a line (--deals FILE).",
    no_args_is_help=True,
    cls=CommandGroup,
)


@deals_app.command("export")
def deals_export(
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="The deal-set file to write (a new file, or one "
            "shedsim wrote, which is replaced).",
        ),
    ],
    rules: O.OptionalRulesOpt = None,
    house: O.HouseOpt = None,
    rules_file: O.RulesFileOpt = None,
    players: O.players_option("Seats", 4) = None,
    count: Annotated[
        Optional[int],
        typer.Option(
            "--count",
            "-n",
            min=1,
            max=10_000_000,
            help="Deals to write (from --seed; default: 100).",
        ),
    ] = None,
    seed: O.SeedOpt = None,
    from_run: Annotated[
        Optional[Path],
        typer.Option(
            "--from-run",
            help="Write the deals a tournament run (its directory) played, instead of seeded ones.",
        ),
    ] = None,
    lost_by: Annotated[
        Optional[str],
        typer.Option(
            "--lost-by",
            help="With --from-run: only the deals on which the entry with this label took last "
            "place in "
            "every game it played of that deal (every rotation); needs a run made with "
            "--save-games.",
        ),
    ] = None,
) -> None:
    """Write deals to a deal-set file: deals 0..N-1 of --seed (the deals a tournament or sprt run with that seed
    plays), or the deals of a tournament run (--from-run DIR, optionally --lost-by LABEL).

    Exit codes: 0 written; 2 bad options or input (nothing is written).

    Examples: shedsim deals export --count 1000 --seed 7 --out deals.txt;  shedsim deals export --from-run reports/saved --lost-by heuristic --out lost.txt (a run made with --save-games), to play them again with shedsim tournament --deals lost.txt and the run's --players
    """  # noqa: E501 (a text kept as written)
    from shedsim.rules.deals import DealsError, MAGIC, seeded_deals, write
    from shedsim.rules.ruleset import RulesError, build

    seeded = [
        n
        for n, v in (
            ("--rules", rules),
            ("--house", house),
            ("--rules-file", rules_file),
            ("--players", players),
            ("--count", count),
            ("--seed", seed),
        )
        if v
    ]
    if from_run is not None and seeded:
        fail(f"{', '.join(seeded)}: not with --from-run (the run's spec.json decides the deals)")
    if lost_by is not None and from_run is None:
        fail("--lost-by: needs --from-run DIR (the run whose games it reads)")
    if out.is_dir() or (out.exists() and not out.read_bytes()[: len(MAGIC)] == MAGIC.encode()):
        fail(
            f"--out: {str(out)!r} exists and is not a deal-set file; shedsim never replaces a "
            "file it did not "
            f"write: give another file name"
        )
    try:
        if from_run is not None:
            from shedsim.analysis.deal_sets import run_deals

            rs, n, deals, note = run_deals(from_run, lost_by)
        else:
            rs = build(rules or "shithead", house or [], rules_file)
            n = 4 if players is None else players
            rs.check_players(n)
            k, s = count or 100, seed or 0
            deals, note = _dealing(seeded_deals(rs, n, k, s), k), f"deals 0..{k - 1} of seed {s}"
        written = write(out, rs.name, n, deals, comment=f"{note}; written by shedsim deals export")
    except (DealsError, RulesError) as e:
        fail(str(e))
    except OSError as e:
        fail(f"--out: {out}: cannot be written ({e})", 3)
    typer.echo(f"wrote {written:,} deal(s) to {out} ({note})")


def _dealing(deals, count: int):
    """``deals`` (an iterator of ``count`` deals) with a progress bar on a terminal's standard
    error (the reference engine deals them one by one: minutes for millions)."""
    import sys

    from rich.progress import track

    from shedsim.output.console import out_console

    if not sys.stderr.isatty():
        return deals
    return track(
        deals, total=count, description="dealing", console=out_console(stderr=True), transient=True
    )


def load_deals(path: Path | None, rules, players: int):
    """``--deals FILE`` of a command that reads it itself (gauntlet): the deal set read and
    checked (:func:`shedsim.rules.deals.read`), or None; a bad file exits 2 naming the line."""
    if path is None:
        return None
    from shedsim.rules.deals import DealsError, read

    try:
        return read(path, rules, players)
    except DealsError as e:
        fail(f"--deals: {e}")
