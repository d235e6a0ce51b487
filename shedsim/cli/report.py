"""``shedsim report``: the typer command (registered in :mod:`shedsim.cli`).

Only typer and the standard library are imported at module level, so ``shedsim --help``
stays fast; :mod:`shedsim.output.report` (which imports matplotlib to check the charts) is
imported inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

_P_IN = "What to show"
_P_OUT = "Output"


def report(
    dirs: Annotated[
        list[Path],
        typer.Argument(
            metavar="DIR",
            show_default=False,
            help=(
                "Output directories of shedsim's runs, in the order they should appear: any "
                "that holds a run.json (tournament, compare-rules, swaps, sprt, gauntlet, tips, "
                "tune)."
            ),
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            rich_help_panel=_P_OUT,
            help=(
                "The HTML file to write; its directory must exist. An existing file is "
                "replaced only if shedsim wrote it."
            ),
        ),
    ] = Path("reports/report.html"),
    md: Annotated[
        Optional[Path],
        typer.Option(
            "--md",
            rich_help_panel=_P_OUT,
            show_default=False,
            help=(
                "The Markdown summary to write (default: --out with the suffix .md). An "
                "existing file is replaced only if shedsim wrote it."
            ),
        ),
    ] = None,
    no_md: Annotated[
        bool, typer.Option("--no-md", rich_help_panel=_P_OUT, help="Write the HTML page only.")
    ] = False,
    title: Annotated[
        Optional[str],
        typer.Option(
            "--title",
            "-t",
            rich_help_panel=_P_IN,
            show_default=False,
            help='Page title (default: the run\'s title for one directory, else "shedsim report").',
        ),
    ] = None,
    rows: Annotated[
        int,
        typer.Option(
            "--rows",
            min=1,
            rich_help_panel=_P_IN,
            help="Rows of each CSV shown; longer tables are cut with a note naming the full file.",
        ),
    ] = 30,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            rich_help_panel=_P_OUT,
            help="Print nothing on success (errors are still reported).",
        ),
    ] = False,
) -> None:
    """Build one self-contained HTML page (plus a Markdown summary) from analysis output directories.

    For each DIR: its title, command, headline findings, specification, every chart listed in run.json (embedded as data: URIs, so the page needs no other file and opens offline), every CSV as a table (numbers as written; long tables cut to --rows), the glossary of its definitions and the versions. A table of contents links the runs. The Markdown summary holds the headlines, specifications and main tables, with links to the charts.

    Every input is checked before anything is written; the files are written atomically (both or neither). shedsim never replaces a file it did not write: an --out or --md file that exists is replaced only when it is an earlier shedsim report. Exit codes: 0 done; 2 bad input (a missing directory, a missing or corrupt run.json, CSV or PNG, a bad --out/--md, such as a file of yours: the message names it; nothing is written); 3 a file could not be written (disk full).

    Example: shedsim report reports/latest reports/rules --out reports/report.html --title "Shithead strategies"
    """  # noqa: E501 (typer shows each paragraph as one line)
    import os

    from shedsim.base import atomic
    from shedsim.output import report as R
    from shedsim.cli.common import fail

    md_path = (
        None
        if no_md
        else (
            md if md is not None else (out.with_suffix(".md") if out.suffix else Path(f"{out}.md"))
        )
    )
    try:
        R.check_output(out, "--out")
        if md_path is not None:
            R.check_output(md_path, "--md", None if md is not None else "--out", also="or --no-md")
            if os.path.realpath(md_path) == os.path.realpath(out):
                raise R.ReportError(
                    f"--md: {str(md_path)!r} is the --out file too; give another --md (or --no-md)"
                )
        runs = R.load_runs(list(dirs), max_rows=rows)
        inputs = {os.path.realpath(p) for r in runs for p in r.input_files()}
        for opt, p in (("--out", out), ("--md", md_path)):
            if p is not None and os.path.realpath(p) in inputs:
                raise R.ReportError(
                    f"{opt}: {str(p)!r} is one of the input files; writing it would destroy it"
                )
        page = R.render_html(runs, title, out)
        summary = R.render_markdown(runs, title, md_path, out) if md_path is not None else None
    except R.ReportError as e:
        fail(str(e), e.code)
    try:
        R.write_report(page, out, summary, md_path)
    except atomic.WriteError as e:
        fail(f"{e} (nothing was written)", 3)
    except OSError as e:
        fail(f"cannot write {str(out)!r}: {e.strerror or e} (nothing was written)", 3)
    if not quiet:
        n_c = sum(len(r.charts) for r in runs)
        n_t = sum(len(r.tables) for r in runs)
        size = len(page.encode()) / 1024
        typer.echo(
            f"wrote {out} ({len(runs)} run(s), {n_c} chart(s), {n_t} table(s), {size:,.0f} KiB)"
            + (f" and {md_path}" if md_path is not None else "")
        )
