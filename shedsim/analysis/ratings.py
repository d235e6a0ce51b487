"""A ratings list across runs: every finished tournament added to one SQLite file, a
Bradley-Terry rating per entry for each rule set and player count, on the Elo scale with
``random`` at 0 (the list's anchor, as CCRL and CEGT anchor theirs at a fixed engine).

What is stored (:func:`add_run`): per run (its spec key, so adding the same run twice
changes nothing) the rule set (its settings, hashed, and its name), the player count, and
from ``head_to_head.csv`` every pair of entries that shared tables with the comparisons
each won (``a_ahead``, ``b_ahead``) and tied. An entry is known by its label.

The fit (:func:`ratings`): the comparisons of every stored run of one rule set and player
count, pooled, each tie counted half to each side, give the Bradley-Terry strengths by
Zermelo's iteration (I-LSR, :func:`choix.ilsr_pairwise_dense`; Zermelo 1929,
Bradley & Terry 1952); a strength ``theta`` is ``400 / ln 10 * theta`` Elo, shifted so that
``random`` is 0 (with no ``random`` among them, the mean is 0 and the list says so).
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shedsim.base import jsontext
from shedsim.stats.sprt import elo_text


def anchor() -> str:
    """The entry rated 0 in every list: the baseline, the built-in strategy that draws among
    its legal moves at random (:func:`shedsim.plugins.choice`, role ``baseline``)."""
    from shedsim.plugins import choice

    return choice("baseline")[0]


ELO_PER_THETA = 400.0 / math.log(10.0)
"""Elo points per unit of Bradley-Terry log-strength."""
SCHEMA = """
create table if not exists runs (key text primary key, rules_hash text, rules text, players integer,
                                 dir text, games integer);
create table if not exists pairs (run text, a text, b text, a_ahead integer, b_ahead integer, ties integer);
"""  # noqa: E501 (a text kept as written)


class RatingsError(ValueError):
    """A ratings input that cannot be used (a run directory, the database); the message names it."""


@dataclass
class Rating:
    """One entry of a list: ``label``, ``elo`` (anchored), ``comparisons`` (pairwise
    comparisons it took part in), ``runs`` (runs it played in)."""

    label: str
    elo: float
    comparisons: int
    runs: int


def _columns(con: sqlite3.Connection) -> dict[str, list[tuple[str, str]]]:
    """Every table, view, index and trigger of ``con`` but SQLite's own (``sqlite_*``),
    ``type name`` -> its columns (name, declared type; none but a table's)."""
    out = {}
    for kind, name in con.execute(
        "select type, name from sqlite_master where substr(name, 1, 7) != 'sqlite_'"
    ).fetchall():
        cols = con.execute(f'pragma table_info("{name}")').fetchall() if kind == "table" else []
        out[f"{kind} {name}"] = [(c[1], c[2]) for c in cols]
    return out


def _ratings_columns() -> dict[str, list[tuple[str, str]]]:
    """:func:`_columns` of a ratings file: the tables :data:`SCHEMA` makes."""
    con = sqlite3.connect(":memory:")
    con.executescript(SCHEMA)
    return _columns(con)


def connect(db: Path | str, create: bool = True) -> sqlite3.Connection:
    """Open the ratings file ``db``: a shedsim ratings database (its tables are those of
    :data:`SCHEMA`), or a file that is missing or empty, which becomes one when ``create``
    (else it reads as an empty list, from a database in memory, and is left as it is).
    Without ``create`` an existing file is opened read-only (a list shared read-only can
    be shown; nothing is written to it). Raises :class:`RatingsError` naming ``--db`` for
    any other file (an SQLite database of other tables, a file that is not SQLite), before
    anything is written to it."""
    p = Path(db)
    where = f"--db {str(db)!r}"
    new = not p.exists() or p.stat().st_size == 0
    refused = f"{where}: not a shedsim ratings database"
    read_only = not create and not new
    try:
        con = (
            sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)
            if read_only
            else sqlite3.connect(str(db))
        )
        have = _columns(con)
    except sqlite3.OperationalError as e:  # cannot open it, locked, ...
        raise RatingsError(f"{where}: {e}") from None
    except sqlite3.DatabaseError as e:  # "file is not a database"
        raise RatingsError(f"{refused} ({e}); nothing was written") from None
    want = _ratings_columns()
    if any(want.get(k) != v for k, v in have.items()) or (not have and not new):
        con.close()
        other = ", ".join(
            k if k not in want else f"{k} of other columns"
            for k, v in sorted(have.items())
            if want.get(k) != v
        )
        raise RatingsError(
            f"{refused} (it holds {other}); nothing was written (give another --db)"
            if have
            else f"{refused} (an SQLite database without its tables); nothing was written"
        )
    if read_only:
        return con  # a ratings database already: its tables are there
    if not create and not have:
        con.close()
        con = sqlite3.connect(":memory:")
    try:
        con.executescript(SCHEMA)
        return con
    except sqlite3.Error as e:
        raise RatingsError(f"{where}: {e}") from None


def _read_run(d: Path) -> tuple[dict[str, Any], list[dict[str, str]]]:
    import csv

    from shedsim.runs.store import RunStore

    held = RunStore.held_command(d)
    if held is not None and held != "tournament":
        raise RatingsError(
            f"{str(d)!r}: holds a {held} run, not a tournament; ratings add reads the "
            "head-to-head table of a finished tournament run"
        )
    try:
        info = jsontext.load_file(d / "run.json")
        with open(d / "head_to_head.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    except jsontext.JSONProblem as e:
        raise RatingsError(
            f"{str(d)!r}: not a finished tournament run ({str(d / 'run.json')!r} is {e})"
        ) from None
    except (OSError, ValueError) as e:
        raise RatingsError(f"{str(d)!r}: not a finished tournament run ({e})") from None
    spec = info.get("spec") if isinstance(info, dict) else None
    if (
        not isinstance(spec, dict)
        or not info.get("complete")
        or not {"entries", "labels", "tables", "players", "key", "rules"} <= set(spec)
    ):
        raise RatingsError(
            f"{str(d)!r}: not a finished tournament run (run.json of a complete shedsim tournament)"
        )
    for i, r in enumerate(rows, start=2):  # line 1 is the header
        try:
            str(r["a"]), str(r["b"]), int(r["a_ahead"]), int(r["b_ahead"]), int(r["ties"])
        except (KeyError, TypeError, ValueError) as e:
            raise RatingsError(
                f"{str(d / 'head_to_head.csv')!r} line {i}: not a tournament's head-to-head "
                f"row (columns a, b, a_ahead, b_ahead, ties; {type(e).__name__}: {e})"
            ) from None
    return info, rows


def add_run(con: sqlite3.Connection, d: Path | str) -> bool:
    """Add the tournament in directory ``d``; False when that run (its spec key) is in the
    file already (nothing changes). Raises :class:`RatingsError` naming the directory."""
    d = Path(d)
    info, rows = _read_run(d)
    spec = info["spec"]
    key = str(spec.get("key"))
    rules = spec.get("rules") or {}
    name = str(rules.get("name", "?")) + "".join("+" + h for h in rules.get("house") or [])
    rules_hash = hashlib.sha256(json.dumps(rules, sort_keys=True).encode()).hexdigest()[:16]
    try:
        with con:
            if con.execute("select 1 from runs where key = ?", (key,)).fetchone():
                return False
            con.execute(
                "insert into runs values (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    rules_hash,
                    name,
                    int(spec["players"]),
                    str(d.resolve()),
                    int(info.get("games", 0)),
                ),
            )
            con.executemany(
                "insert into pairs values (?, ?, ?, ?, ?, ?)",
                [
                    (key, r["a"], r["b"], int(r["a_ahead"]), int(r["b_ahead"]), int(r["ties"]))
                    for r in rows
                ],
            )
    except (KeyError, ValueError) as e:
        raise RatingsError(f"{str(d)!r}: head_to_head.csv or run.json lacks {e}") from None
    return True


def lists(con: sqlite3.Connection) -> list[tuple[str, str, int, int]]:
    """Every (rules hash, rules name, players, runs) stored, by name then players."""
    return [
        tuple(r)
        for r in con.execute(
            "select rules_hash, rules, players, count(*) from runs group by rules_hash, "
            "players order by rules, players"
        )
    ]


def ratings(con: sqlite3.Connection, rules_hash: str, players: int) -> tuple[list[Rating], bool]:
    """The list of one rule set and player count, best first, and whether it is anchored
    (``random`` is among the entries)."""
    import choix
    import numpy as np

    rows = con.execute(
        "select p.run, a, b, a_ahead, b_ahead, ties from pairs p join runs r on p.run = r.key "
        "where r.rules_hash = ? and r.players = ?",
        (rules_hash, players),
    ).fetchall()
    labels = sorted({x for r in rows for x in (r[1], r[2])})
    idx = {lab: i for i, lab in enumerate(labels)}
    n = len(labels)
    wins = np.zeros((n, n))
    comps = np.zeros(n, np.int64)
    runs: dict[str, set[str]] = {lab: set() for lab in labels}
    for run, a, b, aa, ba, ties in rows:
        i, j = idx[a], idx[b]
        wins[i, j] += aa + ties / 2.0  # choix: comp_mat[i, j] = times i beat j
        wins[j, i] += ba + ties / 2.0
        comps[[i, j]] += aa + ba + ties
        runs[a].add(run)
        runs[b].add(run)
    theta = choix.ilsr_pairwise_dense(wins + 1e-9, alpha=1e-6) if n > 1 else np.zeros(n)
    elo = ELO_PER_THETA * np.asarray(theta)
    base = anchor()
    anchored = base in idx
    elo = elo - (elo[idx[base]] if anchored else elo.mean())
    out = [
        Rating(lab, float(elo[idx[lab]]), int(comps[idx[lab]]), len(runs[lab])) for lab in labels
    ]
    return sorted(out, key=lambda r: (-r.elo, r.label)), anchored


def page(con: sqlite3.Connection) -> str:
    """Every list as one self-contained HTML page (marked as shedsim's, so it may replace it)."""
    from html import escape

    from shedsim.runs.atomic import MARK_HTML

    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'>{MARK_HTML}<title>shedsim "
        "ratings</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:right}"
        "td:nth-child(2){text-align:left}"
        "</style></head><body><h1>Ratings</h1>"
        f"<p>Bradley-Terry ratings on the Elo scale, {escape(anchor())} = 0, from every "
        "tournament added.</p>"
    ]
    for h, name, players, n_runs in lists(con):
        rs, anchored = ratings(con, h, players)
        parts.append(
            f"<h2>{escape(name)}, {players} players</h2><p>{n_runs} run(s)"
            + ("" if anchored else f"; no {escape(anchor())} here: the mean is 0")
            + "</p>"
            "<table><tr><th>#</th><th>entry</th><th>Elo</th><th>comparisons</th><th>runs</th></tr>"
        )
        for k, r in enumerate(rs, 1):
            parts.append(
                f"<tr><td>{k}</td><td>{escape(r.label)}</td><td>{elo_text(r.elo)}</td>"
                f"<td>{r.comparisons:,}</td><td>{r.runs}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "".join(parts)
