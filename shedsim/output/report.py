"""One self-contained HTML page (and a Markdown summary) from shedsim output directories.

Every analysis command (``shedsim tournament``, ``compare-rules``, ``swaps``, ``sprt``,
``tune``, ``tips``)
writes into its ``--out`` directory CSV tables, PNG charts and a ``run.json`` with at least
``command``, ``title``, the run specification, ``definitions`` (metric -> meaning),
``headline`` (key findings), ``versions`` and ``outputs`` (the files written). This module
reads such directories generically (:mod:`shedsim.output.reading`; known commands only get
a nicer order) and renders:

* HTML (:func:`render_html`): a table of contents, then per run its title, command,
  headline, specification (what was played, in words: :mod:`shedsim.output.spec`; every
  ``run.json`` field as recorded in a collapsed ``<details>``), every chart listed in ``outputs``
  embedded as a ``data:image/png;base64``
  URI (the PNG bytes as written, never re-encoded), every CSV as a table (cells kept as
  written; long tables cut to ``max_rows`` with a note naming the full file), the
  definitions as a glossary and the versions in a collapsed ``<details>``. No external
  CSS, JavaScript, fonts or images; every text is escaped with :func:`html.escape`.
* Markdown (:func:`render_markdown`): the headlines, specifications and main tables, with
  relative links to the charts.

The same inputs give the same bytes (no timestamps). Every input is checked before
anything is written: a missing directory, a missing or corrupt ``run.json``, a listed
output that is missing, a CSV that is not UTF-8 or has ragged rows, a PNG that does not
decode: :class:`ReportError` naming the file. :func:`write_report` writes both files
atomically and all-or-nothing (:mod:`shedsim.base.atomic`).

Only the standard library is imported at module level; matplotlib (used to decode the
PNGs, through Pillow) is imported when a chart is read.
"""

from __future__ import annotations

import base64
import html
import os
import re
from pathlib import Path
from typing import Any

from shedsim.output.reading import (  # noqa: F401 - re-exported: the report's names, where they always were
    KIND_NAMES,
    MAIN_TABLES,
    MAX_ROWS,
    PNG_SIGNATURE,
    RESERVED,
    Chart,
    ReportError,
    Run,
    Table,
    file_label,
    load_run,
    load_runs,
    quote_path,
    read_csv,
    read_json,
    read_png,
)

__all__ = [
    "ReportError",
    "Table",
    "Chart",
    "Run",
    "load_run",
    "load_runs",
    "render_html",
    "render_markdown",
    "check_output",
    "write_report",
    "MAX_ROWS",
]


# ------------------------------------------------------------------ HTML
def _e(s: Any) -> str:
    return html.escape(str(s), quote=True)


_NUMERIC = re.compile(r"^[+-]?(\d[\d,]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?$|^[+-]?(nan|inf|NaN|Inf)$")


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower() or "x"


CSS = """
:root { --fg: #1d232b; --muted: #5b6470; --line: #d9dde3; --bg: #ffffff; --soft: #f4f6f8; --accent: #1f5fa8; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 1.8em; margin: 0.2em 0 0.1em; }
h2 { font-size: 1.4em; margin: 0 0 0.3em; }
h3 { font-size: 1.1em; margin: 1.6em 0 0.5em; border-bottom: 1px solid var(--line); padding-bottom: 0.2em; }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
code { font: 0.9em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--soft);
  padding: 0.05em 0.3em; border-radius: 3px; word-break: break-all; }
.sub, .meta, .note { color: var(--muted); }
.note { font-size: 0.9em; margin: 0.3em 0 1em; }
nav.toc { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 10px 20px; margin: 18px 0 28px; }
nav.toc h2 { font-size: 1.1em; margin: 0.3em 0; }
nav.toc li { margin: 0.2em 0; }
.kind { display: inline-block; font-size: 0.8em; color: var(--muted); border: 1px solid var(--line);
  border-radius: 10px; padding: 0 0.5em; margin-left: 0.4em; }
section.run { border-top: 3px solid var(--accent); padding-top: 14px; margin-top: 40px; }
ul.headline { background: #eef4fb; border-left: 4px solid var(--accent); padding: 10px 14px 10px 32px; margin: 0.5em 0; }
ul.headline li { margin: 0.2em 0; }
.tablewrap { overflow-x: auto; margin: 0.4em 0; }
table { border-collapse: collapse; font-size: 0.88em; }
th, td { border: 1px solid var(--line); padding: 3px 8px; vertical-align: top; }
th { background: var(--soft); text-align: left; white-space: nowrap; }
table.data th.num { text-align: right; }
table.data td { white-space: nowrap; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.data tbody tr:nth-child(even) { background: #fafbfc; }
table.kv th { width: 14em; font-weight: 600; }
table.kv td { word-break: break-word; }
caption { caption-side: top; text-align: left; color: var(--muted); padding-bottom: 0.3em; }
figure { margin: 0.6em 0 1.2em; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
figcaption { color: var(--muted); font-size: 0.9em; margin-top: 0.2em; }
dl.glossary dt { font-weight: 600; margin-top: 0.5em; }
dl.glossary dd { margin-left: 1.5em; }
details { margin: 0.6em 0; }
details summary { cursor: pointer; color: var(--accent); }
.top { font-size: 0.85em; float: right; }
.warn { color: #8a1f11; background: #fdecea; border-left: 4px solid #c0392b; padding: 6px 10px; }
"""  # noqa: E501 (a text kept as written)


def _numeric_columns(header: list[str], rows: list[list[str]]) -> list[bool]:
    """Per column: True when every non-empty shown cell reads as a number (right-aligned)."""
    out = []
    for i in range(len(header)):
        cells = [r[i].strip() for r in rows if r[i].strip()]
        out.append(bool(cells) and all(_NUMERIC.match(c) for c in cells))
    return out


def _kv_table(items: list[tuple[str, str]], caption: str | None = None) -> str:
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in items)
    cap = f"<caption>{_e(caption)}</caption>" if caption else ""
    return f'<div class="tablewrap"><table class="kv">{cap}<tbody>{rows}</tbody></table></div>'


def _href(path: Path, base: Path | None) -> str:
    """A link to ``path``: relative to ``base`` (the page's directory) when given, else a
    ``file:`` URI."""
    from urllib.parse import quote

    if base is None:
        return path.resolve().as_uri()
    return quote(_rel(path, base))


def _data_table(t: Table, anchor: str, base: Path | None = None, played: bool = False) -> str:
    """A CSV as the page shows it (:func:`shedsim.output.tables.view`: formatted as the
    console does, only the columns a reader needs), a link to the full file when rows or
    columns are left out, and a warning when the file holds only its header although the
    run played games (``played``)."""
    from shedsim.output.tables import view

    v = view(t.name, t.header, t.rows)
    head = "".join(
        f'<th class="num">{_e(c)}</th>' if n else f"<th>{_e(c)}</th>"
        for c, n in zip(v.header, v.numeric)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{_e(c)}</td>' if n else f"<td>{_e(c)}</td>"
            for c, n in zip(row, v.numeric)
        )
        + "</tr>"
        for row in v.rows
    )
    link = f'<a href="{_e(_href(t.path, base))}">{_e(t.name)}</a>'
    bits = []
    if t.truncated:
        bits.append(f"first {len(t.rows)} of {t.n_rows:,} rows")
    if v.hidden:
        names = ", ".join(v.hidden[:8]) + (", ..." if len(v.hidden) > 8 else "")
        bits.append(f"{len(v.hidden)} more column(s) ({names})")
    note = ""
    if bits:
        note = (
            f'<p class="note">{_e("; ".join(bits))}: the full table is in {link} '
            f"(<code>{_e(t.path)}</code>)</p>"
        )
    elif t.n_rows:
        note = f'<p class="note">as a file: {link}</p>'
    if t.n_rows == 0:
        note = (
            '<p class="warn">damaged? this file holds only its header line although the run '
            "played games "
            f"(truncated or written by an interrupted run): <code>{_e(t.path)}</code></p>"
            if played
            else '<p class="note">(no rows)</p>'
        )
    return (
        f'<h3 id="{anchor}">Table: {_e(file_label(t.name))} <span '
        f'class="kind">{_e(t.name)}</span></h3>'
        f'<div class="tablewrap"><table class="data"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>{note}"
    )


def _figure(c: Chart, anchor: str, fig_no: str, run_title: str) -> str:
    uri = "data:image/png;base64," + base64.b64encode(c.data).decode("ascii")
    alt = f"{c.caption} ({c.name}): {run_title}"
    return (
        f'<h3 id="{anchor}">Chart: {_e(c.caption)} <span class="kind">{_e(c.name)}</span></h3>'
        f'<figure><img src="{uri}" alt="{_e(alt)}" width="{c.width}" height="{c.height}">'
        f"<figcaption>Figure {fig_no}: {_e(c.caption)} ({_e(c.name)}), "
        f"{_e(run_title)}</figcaption></figure>"
    )


def _shedsim_version() -> str:
    try:
        from importlib.metadata import version

        return version("shedsim")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return "?"


def render_html(
    runs: list[Run], title: str | None = None, html_path: Path | str | None = None
) -> str:
    """The self-contained HTML page for ``runs`` (str). ``title`` defaults to the run's
    title when there is one run, else ``shedsim report``. Every text is escaped; charts
    are ``data:image/png;base64`` URIs of the bytes as read; nothing external is loaded (the
    only references are links to the full CSV files: relative to ``html_path``'s directory
    when given, else ``file:`` URIs)."""
    base = Path(html_path).parent if html_path is not None else None
    if title is None:
        title = runs[0].title if len(runs) == 1 else "shedsim report"
    n_charts = sum(len(r.charts) for r in runs)
    n_tables = sum(len(r.tables) for r in runs)
    from shedsim.base.atomic import MARK_HTML

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        MARK_HTML,
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body><main>",
        f'<header id="top"><h1>{_e(title)}</h1><p class="sub">{len(runs)} run(s), {n_charts} '
        "chart(s), "
        f"{n_tables} table(s); generated by shedsim {_e(_shedsim_version())} (<code>shedsim "
        "report</code>)"
        "</p></header>",
        '<nav class="toc"><h2>Contents</h2><ol>',
    ]
    for k, r in enumerate(runs, 1):
        parts.append(
            f'<li><a href="#run-{k}">{_e(r.title)}</a><span class="kind">{_e(r.kind)}</span> '
            f"<code>{_e(r.directory)}</code></li>"
        )
    parts.append("</ol></nav>")
    for k, r in enumerate(runs, 1):
        parts.append(_render_run(r, k, base))
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def _played(info: dict[str, Any]) -> bool:
    """Whether run.json says games were played (``games_in_results`` or ``games`` > 0)."""
    for src in (info, info.get("spec") if isinstance(info.get("spec"), dict) else {}):
        for key in ("games_in_results", "games"):
            g = src.get(key)
            if isinstance(g, int) and not isinstance(g, bool):
                return g > 0
    return False


def _render_run(r: Run, k: int, base: Path | None = None) -> str:
    a = f"run-{k}"
    p = [
        f'<section class="run" id="{a}"><a class="top" href="#top">back to top</a>',
        f"<h2>{k}. {_e(r.title)}</h2>",
        f'<p class="meta">{_e(KIND_NAMES.get(r.kind, r.kind))} &middot; directory '
        f"<code>{_e(r.directory)}</code>"
        + (f" &middot; command <code>{_e(r.command)}</code>" if r.command else "")
        + "</p>",
    ]
    p.append(f'<h3 id="{a}-headline">Headline</h3>')
    if r.headline:
        p.append(
            '<ul class="headline">' + "".join(f"<li>{_e(h)}</li>" for h in r.headline) + "</ul>"
        )
    else:
        p.append('<p class="note">this run recorded no headline.</p>')
    p.append(f'<h3 id="{a}-spec">Specification</h3>')
    p.append(
        _kv_table(r.spec)
        if r.spec
        else '<p class="note">run.json records no specification fields.</p>'
    )
    if r.fields:
        p.append(
            f"<details><summary>Every run.json field, as recorded ({len(r.fields)})</summary>"
            f"{_kv_table(r.fields)}</details>"
        )
    used: set[str] = set()
    n_fig = 0
    for item in r.items:
        anchor = f"{a}-{_slug(item.name)}"
        while anchor in used:
            anchor += "-2"
        used.add(anchor)
        if isinstance(item, Chart):
            n_fig += 1
            p.append(_figure(item, anchor, f"{k}.{n_fig}", r.title))
        else:
            p.append(_data_table(item, anchor, base, _played(r.info)))
    if not r.items:
        p.append('<p class="note">no charts or tables listed in run.json outputs.</p>')
    if r.definitions:
        p.append(
            f'<h3 id="{a}-glossary">Glossary</h3><dl class="glossary">'
            + "".join(f"<dt>{_e(t)}</dt><dd>{_e(d)}</dd>" for t, d in r.definitions.items())
            + "</dl>"
        )
    if r.other_files:
        p.append(
            '<p class="note">other files in this run: '
            + ", ".join(f"<code>{_e(o)}</code>" for o in r.other_files)
            + "</p>"
        )
    if r.versions:
        p.append(
            f"<details><summary>Versions</summary>{_kv_table(list(r.versions.items()))}</details>"
        )
    p.append("</section>")
    return "\n".join(p)


# ------------------------------------------------------------------ Markdown
def _md_cell(s: Any) -> str:
    return str(s).replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _md_table(header: list[str], rows: list[list[str]], numeric: list[bool] | None = None) -> str:
    if numeric is None:
        numeric = _numeric_columns(header, rows)
    lines = [
        "| " + " | ".join(_md_cell(c) for c in header) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _rel(target: Path, base_dir: Path) -> str:
    try:
        return Path(os.path.relpath(target.resolve(), base_dir.resolve())).as_posix()
    except ValueError:  # another drive (Windows)
        return target.resolve().as_posix()


def render_markdown(
    runs: list[Run],
    title: str | None = None,
    md_path: Path | str | None = None,
    html_path: Path | str | None = None,
) -> str:
    """A Markdown summary of ``runs`` (str): per run the title, directory and command, the
    headline, the specification and the main tables (:data:`MAIN_TABLES` for known
    commands, else every CSV; cut to the loaded rows with a note), and links to the charts
    relative to ``md_path``'s directory (absolute when ``md_path`` is None). With
    ``html_path`` (the page of :func:`render_html`), each run also links to its section of
    that page, where its charts are embedded."""
    from shedsim.output.tables import view

    if title is None:
        title = runs[0].title if len(runs) == 1 else "shedsim report"
    from shedsim.base.atomic import MARK_MD

    base = Path(md_path).parent if md_path is not None else None
    out = [
        MARK_MD,
        f"# {title}",
        "",
        f"{len(runs)} run(s); generated by `shedsim report` (shedsim {_shedsim_version()}).",
        "",
    ]
    for k, r in enumerate(runs, 1):
        out.append(f"- [{k}. {_md_cell(r.title)}](#{_slug(f'{k}-{r.title}')})")
    out.append("")
    for k, r in enumerate(runs, 1):
        out += [
            f'<a id="{_slug(f"{k}-{r.title}")}"></a>',
            "",
            f"## {k}. {r.title}",
            "",
            f"{KIND_NAMES.get(r.kind, r.kind)}; directory `{r.directory}`"
            + (f"; command `{r.command}`" if r.command else ""),
            "",
            "### Headline",
            "",
        ]
        if r.headline:
            out += [f"- {h}" for h in r.headline]
        else:
            out.append("(this run recorded no headline)")
        out += ["", "### Specification", ""]
        out.append(
            _md_table(["setting", "value"], [[a, b] for a, b in r.spec])
            if r.spec
            else "(none recorded)"
        )
        want = MAIN_TABLES.get(r.kind)
        tables = [t for t in r.tables if want is None or t.name in want]
        if want is not None:
            tables.sort(key=lambda t: want.index(t.name))
        for t in tables:
            v = view(t.name, t.header, t.rows)
            out += [
                "",
                f"### {file_label(t.name)} (`{t.name}`)",
                "",
                _md_table(v.header, v.rows, v.numeric),
            ]
            bits = ([f"first {len(t.rows)} of {t.n_rows:,} rows"] if t.truncated else []) + (
                [f"{len(v.hidden)} more column(s)"] if v.hidden else []
            )
            if bits:
                href = _rel(t.path, base) if base else t.path.resolve().as_posix()
                out += ["", f"{'; '.join(bits)}: the full table is in [{t.name}]({href})"]
            elif t.n_rows == 0:
                out += ["", "(no rows)"]
        rest = [t for t in r.tables if t not in tables]
        if rest:
            out += [
                "",
                "Other tables: "
                + ", ".join(
                    f"[{t.name}]({_rel(t.path, base) if base else t.path.resolve().as_posix()})"
                    for t in rest
                ),
            ]
        if html_path is not None:
            page = _rel(Path(html_path), base) if base else Path(html_path).resolve().as_posix()
            out += ["", f"Charts and every table of this run: [the HTML page]({page}#run-{k})."]
        if r.charts:
            out += [
                "",
                "Charts: "
                + ", ".join(
                    f"[{c.caption}]({_rel(c.path, base) if base else c.path.resolve().as_posix()})"
                    for c in r.charts
                ),
            ]
        out.append("")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ writing
def check_output(
    path: Path | str, option: str = "--out", default_of: str | None = None, also: str | None = None
) -> Path:
    """Refuse an output file that cannot or must not be written, before any work: ``path``
    is an existing directory, or a file shedsim did not write (the user's own: never
    replaced, :func:`shedsim.base.atomic.replace_problem`), its directory does not exist or
    is not a directory, or that directory is not writable (:func:`os.access`). Raises
    :class:`ReportError` naming ``option`` (and ``default_of``, the option the path was
    derived from; ``also``, another way out) and the path; returns ``Path(path)``."""
    from shedsim.base.atomic import replace_problem

    path = Path(path)
    parent = path.parent
    if path.is_dir():
        raise ReportError(
            f"{option}: {quote_path(path)} is a directory; give a file name such as "
            f"{quote_path(path / 'report.html')}"
        )
    problem = replace_problem(path, option, default_of, also)
    if problem:
        raise ReportError(problem)
    if not parent.exists():
        raise ReportError(f"{option}: the directory {quote_path(parent)} does not exist")
    if not parent.is_dir():
        raise ReportError(f"{option}: {quote_path(parent)} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ReportError(
            f"{option}: cannot write to the directory {quote_path(parent)} (permission denied)"
        )
    return path


def write_report(
    html_text: str,
    html_path: Path | str,
    md_text: str | None = None,
    md_path: Path | str | None = None,
) -> None:
    """Write the HTML page (and the Markdown summary when given) atomically and all or
    nothing (:func:`shedsim.base.atomic.batch`): a failure raises
    :class:`shedsim.base.atomic.WriteError` naming the file and leaves both targets as they were."""
    from shedsim.base import atomic

    with atomic.batch():
        atomic.write_text(html_path, html_text)
        if md_text is not None and md_path is not None:
            atomic.write_text(md_path, md_text)
