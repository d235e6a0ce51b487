"""The tables the commands print cut no cell short: off a terminal (a pipe, a file, here
typer's CliRunner) they are laid out wide enough for their figures, at a narrow width
(COLUMNS) they fit it and fold a figure onto the next line rather than ending it with an
ellipsis (:func:`shedsim.output.console.out_console`, :func:`shedsim.output.console.fold`)."""

from __future__ import annotations

import os
from io import StringIO

import pytest
from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

from shedsim.cli import app

OFF_TERMINAL = {"COLUMNS": None, "NO_COLOR": "1", "TERM": "dumb"}  # rich's default: 80 wide
CUT = "\u2026"  # rich's ellipsis at the end of a cell cut short
BOX = set("┏┃┡│└├┗┣")  # the first character of a table's lines

LONG = (
    "heuristic:spend_pile=90,burn_pile=30,save_pile=3,take_pile=1,up_burn=10,up_reset=5,up_magic=10"
)
"""A strategy entry whose label (one word, no space to wrap at) is wider than an 80 or 120
column table leaves it."""

NARROW = {**OFF_TERMINAL, "COLUMNS": "60"}
GAUNTLET = (
    *("gauntlet", "--candidate", "greedy", "--opponents", f"random,{LONG}"),
    *("--games", 600, "--batch", 100, "--seed", 2, "--workers", 1, "--no-plots"),
)

runner = CliRunner()


def _stdout(*args, env=OFF_TERMINAL) -> str:
    r = runner.invoke(app, [str(a) for a in args], env=env)
    assert r.exit_code == 0, r.output
    return r.stdout


def _table_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line[:1] in BOX]


@pytest.fixture(scope="module")
def long_label_run(tmp_path_factory):
    """A small tournament in matches with :data:`LONG` seated: its directory and what it
    printed."""
    d = tmp_path_factory.mktemp("console") / "t"
    out = _stdout(
        "tournament",
        "--strategies",
        f"greedy,random,{LONG}",
        "--players",
        3,
        "--games",
        300,
        "--rounds",
        2,
        "--seed",
        4,
        "--workers",
        1,
        "--no-plots",
        "--out",
        d,
    )
    return d, out


# ------------------------------------------------------------------- the console itself
def test_off_a_terminal_the_console_is_wide_and_columns_still_wins(monkeypatch):
    from shedsim.output.console import WIDE, out_console

    monkeypatch.delenv("COLUMNS", raising=False)
    assert WIDE > 80
    assert out_console(file=StringIO()).width == WIDE
    assert out_console(stderr=True).width == WIDE  # pytest captures standard error too
    assert out_console(file=StringIO(), width=40).width == 40
    monkeypatch.setenv("COLUMNS", "70")
    assert out_console(file=StringIO()).width == 70


def test_a_figure_column_folds_at_a_narrow_width():
    """At 40 columns a figure wider than its column goes on over the next lines, whole,
    where rich's default ends it with an ellipsis."""
    from shedsim.output.console import fold, out_console

    figures = ("1,229,345,678", "79,389,123,456")

    def table() -> Table:
        t = Table(title="bench")
        for c in ("strategy", "games/s", "decisions/s per worker", "ns per move", "ratio"):
            t.add_column(c, justify="left" if c == "strategy" else "right")
        t.add_row("greedy", *figures, "13.0", "0.70x")
        return t

    plain = StringIO()
    Console(width=40, file=plain).print(table())
    assert CUT in plain.getvalue()  # what the tables printed before

    folded, auto = StringIO(), StringIO()
    Console(width=40, file=folded).print(fold(table()))
    out_console(width=40, file=auto).print(table())  # it folds every table it prints
    for buf in (folded, auto):
        text = buf.getvalue()
        assert CUT not in text, text
        assert max(len(line) for line in text.splitlines()) <= 40, text
        rows = [line.split("│")[1:-1] for line in text.splitlines() if line.startswith("│")]
        cells = ["".join(r[k].strip() for r in rows) for k in range(len(rows[0]))]
        assert cells == ["greedy", *figures, "13.0", "0.70x"], text


def test_a_table_too_wide_for_the_console_keeps_every_column():
    """More columns than the width holds at a character each: the table runs past the
    width (the terminal wraps its lines) rather than dropping columns or cutting them."""
    from shedsim.output.console import out_console

    t = Table()
    for c in range(14):
        t.add_column(f"c{c}")
    t.add_row(*(str(10 + c) for c in range(14)))
    buf = StringIO()
    out_console(width=30, file=buf).print(t)
    rows = [line.split("│")[1:-1] for line in buf.getvalue().splitlines() if line[:1] == "│"]
    assert [rows[0][k].strip() + rows[1][k].strip() for k in range(14)] == [
        str(10 + c) for c in range(14)
    ], buf.getvalue()


# ------------------------------------------------------------------- off a terminal
def test_bench_table_off_a_terminal_cuts_no_figure():
    out = _stdout("bench", "--games", 2000, "--table")
    assert CUT not in out, out
    assert "decisions/s per worker" in out
    assert len(_table_lines(out)) == 2 + 1 + 4 + 1  # header, rule, a line per run, bottom


def test_tournament_off_a_terminal_cuts_no_cell(long_label_run):
    _, out = long_label_run
    assert CUT not in out, out
    assert out.count(LONG) == 2, out  # the ranking's and the match standings' rows, whole


def test_ratings_show_off_a_terminal_cuts_no_cell(long_label_run, tmp_path):
    d, _ = long_label_run
    db = tmp_path / "r.sqlite"
    _stdout("ratings", "add", d, "--db", db)
    out = _stdout("ratings", "show", "--db", db)
    assert CUT not in out and LONG in out, out


def test_compare_rules_off_a_terminal_keeps_each_row_on_one_line(tmp_path):
    """Two skill edges make the play table wider than 160 columns: each variant's figures
    still on one line, none cut."""
    out = _stdout(
        *("compare-rules", "-r", "shithead", "-r", "shithead+pickup:always", "-p", 3),
        *("-S", "random,greedy,heuristic", "-g", 240, "-s", 1, "-w", 1, "--no-plots"),
        *("--out", tmp_path / "c"),
    )
    assert CUT not in out, out
    play = out[out.index("Play and fairness") : out.index("Significant effects")]
    rows = [line for line in play.splitlines() if line.startswith("│")]
    # a line per variant, each with its five intervals: pick-ups, burns, starter, two edges
    assert len(rows) == 2 and all(row.count("[") == 5 for row in rows), play
    assert "edge heuristic" in play


def test_strategies_off_a_terminal_keep_each_description_on_its_line():
    """Off a terminal the listing is not broken at rich's 80 columns: each strategy's name
    and description on one line, as the plugin declares them."""
    from shedsim.output.console import WIDE
    from shedsim.plugins import discover

    out = _stdout("strategies")
    assert CUT not in out
    lines = out.splitlines()
    heads = [f"{s.name}: {s.description}" for s in discover([]).values()]
    assert any(len(head) > 80 for head in heads)  # what rich's default width would break
    for head in heads:
        assert len(head) > WIDE or head in lines, (head, out)


def test_gauntlet_off_a_terminal_cuts_no_cell(tmp_path):
    out = _stdout(*GAUNTLET, "--out", tmp_path / "g")
    assert CUT not in out and "total" in out, out
    assert LONG in out, out


# ------------------------------------------------------------------- a narrow terminal


def _fits(out: str, width: int = 60) -> None:
    lines = _table_lines(out)
    assert lines and CUT not in out, out
    assert max(len(line) for line in lines) <= width, out


def test_tournament_at_a_narrow_width_fits_it(tmp_path):
    _fits(
        _stdout(
            *("tournament", "--strategies", "greedy,random,heuristic", "--players", 3),
            *("--games", 300, "--seed", 4, "--workers", 1, "--no-plots"),
            *("--out", tmp_path / "t"),
            env=NARROW,
        )
    )


def test_gauntlet_at_a_narrow_width_fits_it(tmp_path):
    _fits(_stdout(*GAUNTLET, "--out", tmp_path / "g", env=NARROW))


def test_compare_rules_at_a_narrow_width_fits_it(tmp_path):
    _fits(
        _stdout(
            *("compare-rules", "-r", "shithead", "-r", "shithead+pickup:always", "-p", 3),
            *("-S", "random,greedy", "-g", 240, "-s", 1, "-w", 1, "--no-plots"),
            *("--out", tmp_path / "c"),
            env=NARROW,
        )
    )


def test_bench_table_at_a_narrow_width_fits_it():
    _fits(_stdout("bench", "--games", 2000, "--table", env=NARROW))


def test_ratings_show_at_a_narrow_width_fits_it(long_label_run, tmp_path):
    d, _ = long_label_run
    db = tmp_path / "r.sqlite"
    _stdout("ratings", "add", d, "--db", db)
    _fits(_stdout("ratings", "show", "--db", db, env=NARROW))


def test_rules_show_at_a_narrow_width_keeps_every_rank():
    """The can-play table (a column per rank) at 40 columns, narrower than its columns at
    a character each: every row still has a cell per rank."""
    out = _stdout("rules", "show", "duel", env={**OFF_TERMINAL, "COLUMNS": "40"})
    assert CUT not in out, out
    can = out[out.index("can play") :]
    rows = [[c.strip() for c in line.split("│")[2:-1]] for line in can.splitlines()]
    rows = [r for r in rows if "x" in r]
    assert len(rows) >= 13 and all(sorted(set(r)) in (["x"], [".", "x"]) for r in rows), can


@pytest.mark.parametrize("args", [["rules", "list"], ["rules", "show", "palace"]])
def test_rules_at_a_very_narrow_width_cut_nothing(args):
    out = _stdout(*args, env={**OFF_TERMINAL, "COLUMNS": "30"})
    assert out.strip() and CUT not in out, out


def test_bench_at_a_very_narrow_width_cuts_no_figure():
    out = _stdout("bench", "--games", 2000, env={**OFF_TERMINAL, "COLUMNS": "25"})
    assert CUT not in out and "games/s" in out, out


@pytest.mark.parametrize("args", [["rules", "show", "shithead"], ["rules", "list"]])
def test_a_reader_that_closes_the_output_early_stops_the_command_quietly_with_141(args):
    """``shedsim ... | head``: the reader goes away before the output is written; the
    command stops with 141 (128 + SIGPIPE, as a shell reports it), no message, no traceback
    (rich and click would exit 1, shedsim's status for a strategy that failed)."""
    import subprocess
    import sys

    from shedsim.output.console import EXIT_PIPE

    read, write = os.pipe()
    os.close(read)  # nobody reads: the first write fails with EPIPE
    p = subprocess.run(
        [sys.executable, "-m", "shedsim", *args],
        stdout=write,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "120"},
        timeout=120,
    )
    os.close(write)
    assert p.returncode == EXIT_PIPE, p.stderr
    assert p.stderr == b""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_output_to_a_full_device_stops_with_3_and_a_sentence():
    """``shedsim rules list > /dev/full``: exit 3 (a file could not be written) with one
    line, not a traceback."""
    import subprocess
    import sys

    with open("/dev/full", "wb") as full:
        p = subprocess.run(
            [sys.executable, "-m", "shedsim", "rules", "list"],
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    assert p.returncode == 3, p.stderr
    assert p.stderr.decode().startswith("error: cannot write the output: ")
    assert b"Traceback" not in p.stderr
