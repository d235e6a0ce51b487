"""Reading shedsim output directories for the report (:mod:`shedsim.output.report`): a
run's ``run.json``, its CSV tables (cut to ``max_rows``) and its PNG charts, checked before
anything is written: a missing directory, a missing or corrupt ``run.json``, a listed output
that is missing, a CSV that is not UTF-8 or has ragged rows, a PNG that does not decode:
:class:`ReportError` naming the file. Known commands get their files in a nicer order
(:func:`shedsim.output.charts.report_order`) and a headline when the run has none.

Only the standard library is imported at module level; Pillow (matplotlib's dependency)
is imported when a chart is read.
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from shedsim.base import jsontext
from shedsim.output import spec as SP

MAX_ROWS = 30
"""Rows of a CSV shown before the table is cut (the note names the full file)."""

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

RESERVED = ("command", "title", "definitions", "headline", "versions", "outputs")
"""run.json keys with their own place on the page (not repeated in the field tables)."""

MAIN_TABLES = {"tournament": ["summary.csv", "matches.csv", "head_to_head.csv"]}
"""Tables of known commands that go into the Markdown summary (other commands: every CSV)."""

KIND_NAMES = {
    "tournament": "Tournament",
    "compare-rules": "Rule comparison",
    "swaps": "Swap analysis",
    "sprt": "Sequential test (SPRT)",
    "tips": "Beginner tips put to the test",
    "tune": "Parameter tuning",
}


def file_label(name: str) -> str:
    """A caption from a file name: ``head_to_head.png`` -> ``Head to head``."""
    stem = (
        Path(name)
        .with_suffix("")
        .as_posix()
        .replace("/", " / ")
        .replace("_", " ")
        .replace("-", " ")
    )
    return stem[:1].upper() + stem[1:]


class ReportError(ValueError):
    """An input directory or file cannot be used, or an output path is refused; the message
    names the file (or the option). ``code`` is the exit code the CLI uses: 2 (bad input,
    nothing written)."""

    code = 2


@dataclass(frozen=True)
class Table:
    """A CSV file as text: ``header`` (column names), ``rows`` (the first ``max_rows`` rows,
    each a list of ``len(header)`` cell strings exactly as written in the file) and
    ``n_rows`` (data rows in the whole file). ``path`` is the file as given (for notes)."""

    name: str
    path: Path
    header: list[str]
    rows: list[list[str]]
    n_rows: int

    @property
    def truncated(self) -> bool:
        return self.n_rows > len(self.rows)


@dataclass(frozen=True)
class Chart:
    """A PNG file: its bytes as written (``data``), its pixel ``width`` and ``height`` (from
    decoding it) and ``path`` (the file as given)."""

    name: str
    path: Path
    data: bytes
    width: int
    height: int

    @property
    def caption(self) -> str:
        """A caption from the file name: ``head_to_head.png`` -> ``Head to head``."""
        return file_label(self.name)


Item = Union[Table, Chart]


@dataclass
class Run:
    """One output directory, read and checked.

    ``directory`` (as given), ``info`` (run.json as a dict), ``kind`` (the command:
    ``tournament``, ``compare-rules``, ... or ``run`` when unknown), ``command`` (the command
    line recorded, or None), ``title``, ``headline`` (list of str) and ``headline_source``
    (``"run.json"``, or the CSV a headline was derived from, or None when there is none),
    ``definitions`` and ``versions`` (str -> str), ``spec`` (the main specification as
    (key, value text) pairs), ``fields`` (every other run.json field, flattened), ``items``
    (tables and charts in display order) and ``other_files`` (listed outputs that are
    neither CSV nor PNG)."""

    directory: Path
    info: dict[str, Any]
    kind: str
    command: str | None
    title: str
    headline: list[str]
    headline_source: str | None
    definitions: dict[str, str]
    versions: dict[str, str]
    spec: list[tuple[str, str]]
    fields: list[tuple[str, str]]
    items: list[Item] = field(default_factory=list)
    other_files: list[str] = field(default_factory=list)

    @property
    def tables(self) -> list[Table]:
        return [i for i in self.items if isinstance(i, Table)]

    @property
    def charts(self) -> list[Chart]:
        return [i for i in self.items if isinstance(i, Chart)]

    def input_files(self) -> list[Path]:
        """Every file this run was read from (run.json, CSVs, PNGs)."""
        return [self.directory / "run.json", *(i.path for i in self.items)]


# ------------------------------------------------------------------ reading
def quote_path(p: Path | str) -> str:
    """A path as messages quote it: ``repr(str(p))``."""
    return repr(str(p))


def _no_run_json(d: Path) -> str:
    """Why a directory without run.json cannot be read: an interrupted run (its spec.json
    names the command) says how to finish it; anything else is not a shedsim output."""
    from shedsim.runs.store import RUN_COMMANDS, RunStore

    name = RunStore.held_command(d)
    if name in RUN_COMMANDS:
        return (
            f"{quote_path(d)} holds an unfinished shedsim {name} run (its spec.json, no "
            f"run.json yet): finish it with shedsim {name} --resume {quote_path(d)}, then "
            f"make the report"
        )
    return f"{quote_path(d)} holds no run.json (not a shedsim output directory)"


def read_json(path: Path) -> dict[str, Any]:
    """``run.json`` as a dict; raises :class:`ReportError` naming the file when it is
    missing, unreadable, not UTF-8, not valid JSON or not a JSON object."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ReportError(_no_run_json(path.parent)) from None
    except OSError as e:
        raise ReportError(f"cannot read {quote_path(path)}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ReportError(
            f"{quote_path(path)} is not UTF-8 text ({e.reason} at byte {e.start})"
        ) from None
    if not text.strip():
        raise ReportError(
            f"{quote_path(path)} is empty (an interrupted write?): not a shedsim run.json"
        )
    try:
        info = jsontext.loads(text)
    except jsontext.JSONProblem as e:
        raise ReportError(
            f"{quote_path(path)} is not valid JSON, truncated or damaged ({e.reason})"
        ) from None
    if not isinstance(info, dict):
        raise ReportError(
            f"{quote_path(path)} is not a shedsim run.json (a JSON object was expected, "
            f"found {type(info).__name__})"
        )
    return info


def read_csv(path: Path, max_rows: int = MAX_ROWS) -> Table:
    """Read a CSV (UTF-8, optional BOM) with :mod:`csv`, keeping every cell's text as
    written. Returns a :class:`Table` with the first ``max_rows`` data rows; every row of
    the file is checked. Raises :class:`ReportError` naming the file when it is missing,
    unreadable, not UTF-8, empty (no header), malformed (:class:`csv.Error`) or when a row
    has a different number of cells than the header (blank lines are skipped)."""
    name = path.name
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                raise ReportError(f"{quote_path(path)} is empty (no header line)")
            rows: list[list[str]] = []
            n = 0
            for row in reader:
                if not row:
                    continue
                if len(row) != len(header):
                    raise ReportError(
                        f"{quote_path(path)} is corrupt: line {reader.line_num} has {len(row)} "
                        "cells, "
                        f"the header has {len(header)}"
                    )
                n += 1
                if len(rows) < max_rows:
                    rows.append(row)
        with open(path, "rb") as fb:
            fb.seek(-1, os.SEEK_END)
            if fb.read(1) != b"\n":
                raise ReportError(
                    f"{quote_path(path)} is truncated: its last line has no line end "
                    "(an interrupted write?); run the command again"
                )
    except ReportError:
        raise
    except FileNotFoundError:
        raise ReportError(f"{quote_path(path)} is listed in run.json outputs but missing") from None
    except UnicodeDecodeError as e:
        raise ReportError(
            f"{quote_path(path)} is not UTF-8 text ({e.reason} at byte {e.start})"
        ) from None
    except csv.Error as e:
        raise ReportError(f"{quote_path(path)} is not a valid CSV ({e})") from None
    except OSError as e:
        raise ReportError(f"cannot read {quote_path(path)}: {e.strerror or e}") from None
    return Table(name, path, header, rows, n)


def read_png(path: Path) -> Chart:
    """Read a PNG and prove it decodes (the PNG signature, then a full decode with
    :func:`matplotlib.image.imread`, which uses Pillow); the bytes are kept as written.
    Raises :class:`ReportError` naming the file when it is missing, unreadable, not a PNG,
    truncated or otherwise undecodable, or has no pixels."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ReportError(f"{quote_path(path)} is listed in run.json outputs but missing") from None
    except OSError as e:
        raise ReportError(f"cannot read {quote_path(path)}: {e.strerror or e}") from None
    if not data.startswith(PNG_SIGNATURE):
        raise ReportError(f"{quote_path(path)} is not a PNG image (wrong signature)")
    import matplotlib.image as mpimg

    try:
        pixels = mpimg.imread(io.BytesIO(data), format="png")
    except Exception as e:  # noqa: BLE001 - Pillow raises OSError, SyntaxError, zlib.error, ...
        raise ReportError(
            f"{quote_path(path)} is a corrupt PNG image ({type(e).__name__}: {e})"
        ) from None
    if pixels.ndim < 2 or pixels.shape[0] == 0 or pixels.shape[1] == 0:
        raise ReportError(f"{quote_path(path)} is an empty PNG image")
    return Chart(path.name, path, data, int(pixels.shape[1]), int(pixels.shape[0]))


def _kind(info: dict[str, Any]) -> str:
    cmd = info.get("command")
    if isinstance(cmd, str):
        words = cmd.split()
        if len(words) >= 2 and Path(words[0]).name in ("shedsim", "shedsim.exe"):
            return words[1]
    spec = info.get("spec")
    if isinstance(spec, dict) and "labels" in spec and "tables" in spec:
        return (
            "tournament"  # tournament run.json written outside the `shedsim` script (command: null)
        )
    return "run"


def _check_type(info: dict[str, Any], key: str, kind: type, path: Path, what: str) -> None:
    if key in info and info[key] is not None and not isinstance(info[key], kind):
        raise ReportError(
            f"{quote_path(path)}: {key!r} must be {what}, found {type(info[key]).__name__}"
        )


def _outputs(directory: Path, info: dict[str, Any], path: Path) -> list[str]:
    """The output files listed in run.json (checked to lie inside ``directory``), or, when
    run.json lists none, the CSV and PNG files in ``directory``."""
    outs = info.get("outputs")
    if outs is None:
        return sorted(
            p.name
            for p in directory.iterdir()
            if p.is_file() and p.suffix.lower() in (".csv", ".png")
        )
    if not isinstance(outs, list) or not all(isinstance(o, str) for o in outs):
        raise ReportError(f"{quote_path(path)}: 'outputs' must be a list of file names")
    seen = []
    for o in outs:
        p = Path(o)
        if not o or p.is_absolute() or ".." in p.parts or "\\" in o:
            raise ReportError(
                f"{quote_path(path)}: output {o!r} is not a file name inside the directory"
            )
        if o not in seen and o != "run.json":
            seen.append(o)
    return seen


def _order(kind: str, names: list[str]) -> list[str]:
    """Display order: the known command's preferred order (its charts' module lists the
    charts once: :func:`shedsim.output.charts.report_order`), then ``summary.csv``, then the
    rest grouped by file stem (alphabetical), a chart before the table of the same stem."""
    from shedsim.output.charts import report_order

    pref = (report_order(kind) or []) + ["summary.csv"]
    first = [n for n in pref if n in names]
    first = list(dict.fromkeys(first))
    rest = sorted(
        (n for n in names if n not in first),
        key=lambda n: (
            Path(n).with_suffix("").as_posix(),
            0 if n.lower().endswith(".png") else 1,
            n,
        ),
    )
    return first + rest


def _text(v: Any, limit: int = 300) -> str:
    """A run.json value as short text: strings as they are, lists of scalars joined by
    ", ", anything else as compact JSON; cut to ``limit`` characters."""
    if v is None:
        s = "-"
    elif isinstance(v, bool):
        s = "yes" if v else "no"
    elif isinstance(v, str):
        s = v
    elif isinstance(v, (int, float)):
        s = f"{v:,}" if isinstance(v, int) and abs(v) >= 10000 else str(v)
    elif isinstance(v, list) and all(
        isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in v
    ):
        s = ", ".join(str(x) for x in v) if v else "-"
    else:
        s = json.dumps(v, sort_keys=True, separators=(", ", ": "), default=str)
    return s if len(s) <= limit else s[: limit - 1] + "\u2026"


def _flatten(d: dict[str, Any], prefix: str = "", depth: int = 0) -> list[tuple[str, str]]:
    out = []
    for k in sorted(d, key=str):
        v = d[k]
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v and depth < 2:
            out += _flatten(v, key + ".", depth + 1)
        else:
            out.append((key, _text(v)))
    return out


def _num(s: str) -> float | None:
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def _tournament_headline(summary: Table | None, info: dict[str, Any]) -> list[str]:
    """A short headline from a tournament's summary.csv (for run.json files written before
    the tournament recorded one): the ranking, the first's win rate, mean place and rating
    with their 95% intervals (first by rating, which says nothing of whether it is
    separated from the second), and the share of unfinished games."""
    from shedsim.stats.sprt import elo_text

    if summary is None or "strategy" not in summary.header:
        return []
    col = {c: i for i, c in enumerate(summary.header)}
    rows = summary.rows
    si = col["strategy"]
    ranking = ", ".join(f"{k + 1}. {r[si]}" for k, r in enumerate(rows))
    out = [
        f"Ranking: {ranking}"
        + (f" (first {len(rows)} of {summary.n_rows})" if summary.truncated else "")
    ]
    if rows:
        r = rows[0]
        parts = []

        def get(c):
            return _num(r[col[c]]) if c in col else None

        w, lo, hi = get("win_rate"), get("win_lo"), get("win_hi")
        if None not in (w, lo, hi):
            parts.append(f"win rate {100 * w:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]")
        m, lo, hi = get("mean_place"), get("place_lo"), get("place_hi")
        if None not in (m, lo, hi):
            parts.append(f"mean place {m:.3f} [{lo:.3f}, {hi:.3f}]")
        rt, lo, hi = get("rating"), get("rating_lo"), get("rating_hi")
        if None not in (rt, lo, hi):
            parts.append(f"rating {elo_text(rt)} [{elo_text(lo)}, {elo_text(hi)}] Elo")
        if parts:
            out.append(f"{r[si]} is first by rating: " + "; ".join(parts) + " (95% intervals)")
    share = info.get("unfinished_share")
    if isinstance(share, (int, float)) and not isinstance(share, bool):
        out.append(f"{100 * share:.2f}% of games unfinished ({SP.ends_text(info)})")
    return out


def _title(kind: str, info: dict[str, Any], directory: Path) -> str:
    """The run's title as the report heads it, marked when the run was stopped before its
    end (run.json's ``complete`` false: the results so far)."""
    return _plain_title(kind, info, directory) + (
        SP.PARTIAL_MARK if info.get("complete") is False else ""
    )


def _plain_title(kind: str, info: dict[str, Any], directory: Path) -> str:
    t = info.get("title")
    if isinstance(t, str) and t.strip():
        return t.strip()
    if kind == "tournament" and isinstance(info.get("spec"), dict):
        s = info["spec"]
        labels = s.get("labels") if isinstance(s.get("labels"), list) else []
        bits = [SP.rules_text(s["rules"])] if "rules" in s else []
        if "players" in s:
            bits.append(f"{s['players']} players")
        g = info.get("games_in_results", s.get("games"))
        if isinstance(g, int):
            bits.append(f"{g:,} games")
        return f"Tournament: {', '.join(str(x) for x in labels)}" + (
            f" ({', '.join(bits)})" if bits else ""
        )
    name = KIND_NAMES.get(kind, kind)
    return f"{name}: {directory.resolve().name or directory}"


def load_run(directory: Path | str, max_rows: int = MAX_ROWS) -> Run:
    """Read and check one output directory: ``run.json`` and every CSV and PNG it lists
    (or, when it lists none, every CSV and PNG in the directory). Tables keep their first
    ``max_rows`` rows. Raises :class:`ReportError` naming the directory or file when the
    directory is missing, ``run.json`` is missing or corrupt (not JSON, not an object,
    ``definitions``/``versions`` not objects, ``headline``/``outputs`` not lists of
    strings, an output naming a file outside the directory), or a listed CSV or PNG is
    missing, unreadable or corrupt (:func:`read_csv`, :func:`read_png`)."""
    directory = Path(directory)
    if not directory.exists():
        raise ReportError(f"{quote_path(directory)} does not exist")
    if not directory.is_dir():
        raise ReportError(f"{quote_path(directory)} is not a directory")
    path = directory / "run.json"
    info = read_json(path)
    _check_type(info, "definitions", dict, path, "an object (name -> meaning)")
    _check_type(info, "versions", dict, path, "an object (package -> version)")
    _check_type(info, "headline", list, path, "a list of strings")
    _check_type(info, "command", str, path, "a string")
    _check_type(info, "title", str, path, "a string")
    if not any(
        info.get(k) is not None for k in ("command", "spec", "outputs", "title", "headline")
    ):
        raise ReportError(
            f"{quote_path(path)} records none of command, spec, title, headline or outputs: "
            "it is truncated or not a shedsim run.json"
        )
    headline = info.get("headline") or []
    if not all(isinstance(h, str) for h in headline):
        raise ReportError(f"{quote_path(path)}: 'headline' must be a list of strings")
    kind = _kind(info)
    try:
        names = _outputs(directory, info, path)
    except OSError as e:
        raise ReportError(f"cannot list {quote_path(directory)}: {e.strerror or e}") from None
    items: list[Item] = []
    other = []
    for name in _order(kind, names):
        suffix = Path(name).suffix.lower()
        if suffix == ".csv":
            items.append(read_csv(directory / name, max_rows))
        elif suffix == ".png":
            items.append(read_png(directory / name))
        else:
            other.append(name)
    source = "run.json" if headline else None
    if not headline and kind == "tournament":
        summary = next((t for t in items if isinstance(t, Table) and t.name == "summary.csv"), None)
        headline = _tournament_headline(summary, info)
        source = "summary.csv" if headline else None
    spec = SP.rows(kind, info)
    rest = {k: v for k, v in info.items() if k not in RESERVED}
    return Run(
        directory=directory,
        info=info,
        kind=kind,
        command=info.get("command") if isinstance(info.get("command"), str) else None,
        title=_title(kind, info, directory),
        headline=list(headline),
        headline_source=source,
        definitions={str(k): _text(v, 2000) for k, v in (info.get("definitions") or {}).items()},
        versions={str(k): _text(v) for k, v in (info.get("versions") or {}).items()},
        spec=spec,
        fields=_flatten(rest),
        items=items,
        other_files=other,
    )


def load_runs(directories: list[Path | str], max_rows: int = MAX_ROWS) -> list[Run]:
    """:func:`load_run` for each directory (a directory given twice is read once). Raises
    :class:`ReportError` (the first problem found; also when none is given)."""
    if not directories:
        raise ReportError("give at least one output directory")
    runs, seen = [], set()
    for d in directories:
        key = os.path.realpath(d)
        if key in seen:
            continue
        seen.add(key)
        runs.append(load_run(d, max_rows))
    return runs
