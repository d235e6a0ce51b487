"""shedsim ratings: tournaments added to one SQLite list, rated per rule set and player
count with random at 0; adding the same run twice changes nothing; bad input exits 2."""

from __future__ import annotations

import sqlite3

import pytest
from typer.testing import CliRunner

from shedsim.analysis import ratings as RT
from shedsim.cli import app


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _dump(db):
    con = sqlite3.connect(db)
    return [list(con.execute(f"select * from {t} order by 1, 2, 3")) for t in ("runs", "pairs")]


def test_ratings_add_show_page_and_the_same_run_twice_changes_nothing(tmp_path):
    for k, field in enumerate(("greedy,random", "greedy,random,aggressive")):
        r = _run(
            "tournament",
            "--players",
            2,
            "--strategies",
            field,
            "--games",
            24,
            "--seed",
            k,
            "--workers",
            1,
            "--no-plots",
            "--quiet",
            "--out",
            tmp_path / f"t{k}",
        )
        assert r.exit_code == 0, r.output
    db = tmp_path / "r.sqlite"
    r = _run("ratings", "add", tmp_path / "t0", tmp_path / "t1", "--db", db)
    assert r.exit_code == 0 and r.output.count("added") == 2, r.output
    before = _dump(db)
    r = _run("ratings", "add", tmp_path / "t1", "--db", db)
    assert r.exit_code == 0 and "unchanged" in r.output
    assert _dump(db) == before
    con = RT.connect(db)
    ((h, name, players, runs),) = RT.lists(con)
    assert (name, players, runs) == ("shithead", 2, 2)
    rs, anchored = RT.ratings(con, h, players)
    by = {r.label: r for r in rs}
    assert anchored and by["random"].elo == 0 and by["greedy"].elo > 0 and by["greedy"].runs == 2
    con.close()
    raw = db.read_bytes()
    r = _run("ratings", "show", "--db", db)
    assert r.exit_code == 0 and "shithead, 2 players" in r.output and "random = 0" in r.output
    assert db.read_bytes() == raw  # shown from a read-only connection: nothing written
    ro = RT.connect(db, create=False)
    assert [row[1] for row in RT.lists(ro)] == ["shithead"]
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        ro.execute("create table x (a)")
    ro.close()
    page = tmp_path / "r.html"
    assert _run("ratings", "page", "--out", page, "--db", db).exit_code == 0
    assert "greedy" in page.read_text()
    assert (
        _run("ratings", "page", "--out", page, "--db", db).exit_code == 0
    )  # its own page: replaced


def test_ratings_refuse_what_is_not_a_finished_tournament(tmp_path):
    mine = tmp_path / "notes.html"
    mine.write_text("mine")
    r = _run("ratings", "add", tmp_path, "--db", tmp_path / "r.sqlite")
    assert r.exit_code == 2 and "not a finished tournament run" in r.output
    assert not (tmp_path / "r.sqlite").exists()
    r = _run("ratings", "show", "--db", tmp_path / "none.sqlite")
    assert r.exit_code == 2 and "--db" in r.output
    r = _run("ratings", "page", "--out", mine, "--db", tmp_path / "none.sqlite")
    assert r.exit_code == 2
    assert mine.read_text() == "mine"


def test_ratings_add_names_the_command_of_a_run_that_is_no_tournament(every_run, tmp_path):
    """A compare-rules or swaps run directory: ratings add says which run it holds (before:
    "not a finished tournament run ([Errno 2] No such file ... head_to_head.csv)")."""
    for command in ("compare-rules", "swaps"):
        d = next(
            p for p in every_run.iterdir() if (p / "run.json").is_file() and _holds(p, command)
        )
        r = _run("ratings", "add", d, "--db", tmp_path / "r.sqlite")
        assert r.exit_code == 2, r.output
        said = " ".join(r.output.split())
        assert f"holds a {command} run, not a tournament" in said and "Errno" not in said, said
    assert not (tmp_path / "r.sqlite").exists()


def test_ratings_add_refuses_a_head_to_head_table_without_its_columns(every_run, tmp_path):
    """A tournament whose head_to_head.csv lacks a column: exit 2 naming the file and the
    line, before anything is added (before: a traceback, and the list file created)."""
    import shutil

    d = tmp_path / "t"
    shutil.copytree(every_run / "tournament", d)
    (d / "head_to_head.csv").write_text("a,b\nx,y\n")
    r = _run("ratings", "add", d, "--db", tmp_path / "r.sqlite")
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    said = " ".join(r.output.split())
    assert "head_to_head.csv' line 2: not a tournament's head-to-head row" in said, said
    assert not (tmp_path / "r.sqlite").exists()


def _holds(d, command):
    from shedsim.runs.store import RunStore

    return RunStore.held_command(d) == command


def test_ratings_add_refuses_a_run_json_nested_too_deeply(tmp_path):
    run = tmp_path / "t"
    run.mkdir()
    (run / "run.json").write_text(
        '{"command": "shedsim tournament", "spec": ' + "[" * 5000 + "]" * 5000 + "}"
    )
    (run / "head_to_head.csv").write_text("a,b\n")
    db = tmp_path / "r.sqlite"
    r = _run("ratings", "add", run, "--db", db)
    assert r.exit_code == 2 and "nested too deeply" in r.output, r.output
    assert str(run / "run.json") in r.output and not isinstance(r.exception, RecursionError)
    assert not db.exists()


def _foreign(path):
    """An SQLite file of the user's, holding a table of its own."""
    con = sqlite3.connect(path)
    with con:
        con.execute("create table notes (id integer primary key, text text)")
        con.execute("insert into notes (text) values ('mine')")
    con.close()
    return path.read_bytes()


def test_ratings_refuse_a_db_that_is_not_a_ratings_database(tmp_path):
    """An existing --db that is not empty and not a shedsim ratings database (another
    SQLite database, or not SQLite at all) is refused by every subcommand, exit 2, the file
    unchanged; a new file, an empty one and a ratings database are used (show and page
    read an empty file as an empty list and write nothing to it)."""
    r = _run(
        "tournament",
        "--players",
        2,
        "--strategies",
        "greedy,random",
        "--games",
        12,
        "--seed",
        1,
        "--workers",
        1,
        "--no-plots",
        "--quiet",
        "--out",
        tmp_path / "t",
    )
    assert r.exit_code == 0, r.output
    text = tmp_path / "notes.txt"
    text.write_text("my notes\n")
    for db in (tmp_path / "user.db", text):
        before = _foreign(db) if db.suffix == ".db" else db.read_bytes()
        for args in (
            ("add", tmp_path / "t"),
            ("show",),
            ("page", "--out", tmp_path / "p.html"),
        ):
            r = _run("ratings", *args, "--db", db)
            assert r.exit_code == 2, (args, r.output)
            assert f"--db {str(db)!r}" in r.output and "not a shedsim ratings database" in r.output
            assert db.read_bytes() == before
        assert not (tmp_path / "p.html").exists()
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    r = _run("ratings", "show", "--db", empty)  # reads as an empty list, left as it is
    assert r.exit_code == 0 and "the list is empty" in r.output and empty.read_bytes() == b""
    for db in (tmp_path / "new.sqlite", empty):
        r = _run("ratings", "add", tmp_path / "t", "--db", db)
        assert r.exit_code == 0 and "added" in r.output, r.output
        r = _run("ratings", "add", tmp_path / "t", "--db", db)  # a ratings database now
        assert r.exit_code == 0 and "unchanged" in r.output, r.output
        assert _run("ratings", "show", "--db", db).exit_code == 0


def test_ratings_show_names_what_matched_nothing_and_refuses_impossible_counts(tmp_path):
    out = tmp_path / "t"
    r = _run(
        "tournament", "--players", 2, "--strategies", "greedy,random", "--games", 24,
        "--workers", 1, "--no-plots", "--quiet", "--out", out,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    db = tmp_path / "r.sqlite"
    assert _run("ratings", "add", out, "--db", db).exit_code == 0
    for args, asked in (
        (("--players", 4), "--players 4"),
        (("--rules", "nines"), "--rules nines"),
    ):
        r = _run("ratings", "show", "--db", db, *args)
        assert r.exit_code == 0, r.output
        assert f"no list matches {asked}; the lists: shithead, 2 players" in r.output
    for n in (0, 1, -3):
        r = _run("ratings", "show", "--db", db, "--players", n)
        assert r.exit_code == 2 and "--players" in r.output, r.output
