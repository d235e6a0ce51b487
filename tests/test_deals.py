"""Deal-set files (``shedsim deals export``, ``--deals FILE``): the format read back as
written, a given deal dealt exactly (reference engine and kernel), a tournament on the
exported deals of a seed playing the very games of that seed, refused files (the line
named, nothing written), resume, and ``--from-run --lost-by``.

Real games, small counts, fixed seeds; nothing asserts on a time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.cli import app
from shedsim.rules import deals as D
from shedsim.rules.engine import deal
from shedsim.rules.ruleset import preset
from shedsim.seeding import game_keys

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


def export(path: Path, *extra: str) -> None:
    r = invoke("deals", "export", "--out", str(path), *extra)
    assert r.exit_code == 0, r.output


# ------------------------------------------------------------------ the format
def test_written_deals_read_back_and_deal_as_the_seed_does(tmp_path):
    """Every seeded deal survives the file, and dealing its deck order (any dealer) gives each
    seat the cards the shuffle gave it."""
    rs = preset("shithead")
    f = tmp_path / "d.txt"
    export(f, "--players", "3", "--count", "6", "--seed", "11")
    ds = D.read(f, rs, 3)
    assert list(ds.deals) == list(D.seeded_deals(rs, 3, 6, 11))
    dk, _ = game_keys(11, np.arange(6), np.arange(6))
    for d, one in enumerate(ds.deals):
        shuffled, _ = deal(rs, 3, int(dk[d]), d % 3)
        for dealer in range(3):
            given, _ = deal(rs, 3, 0, dealer, D.deck_order(one, dealer))
            for a, b in zip(shuffled.seats, given.seats):
                assert (a.face_down, a.face_up, a.hand) == (b.face_down, b.face_up, b.hand)
            assert given.stock == shuffled.stock


GOOD = "shedsim-deals 1 rules=duel players=2\n"


def _line(rs, seed=3) -> str:
    return D.format_deal(next(D.seeded_deals(rs, 2, 1, seed)))


@pytest.mark.parametrize(
    "edit, line, what",
    [
        (lambda h, ln: "shedsim-deals 2 rules=duel players=2\n" + ln, 1, "format version '2'"),
        (
            lambda h, ln: "shedsim-deals 1 rules=duel players=3\n" + ln,
            1,
            "players=3, but the run has 2",
        ),
        (
            lambda h, ln: "shedsim-deals 1 rules=nines players=2\n" + ln,
            1,
            "rules=nines, but the run plays duel",
        ),
        (
            lambda h, ln: h + "# a comment\n\n" + ln.replace("down=", "down=X,", 1),
            4,
            "unknown card 'X'",
        ),
        (
            lambda h, ln: h + ln.replace("hand=", "hand=A,", 1),
            2,
            "hand= has 4 card(s); the rules deal 3",
        ),
        (lambda h, ln: h + ln.rsplit(",", 1)[0], 2, "51 cards; the deck has 52"),
        (
            lambda h, ln: h + ln + "\n" + ln.replace("stock=", "stock=A,", 1).rsplit(",", 1)[0],
            3,
            "appears 5 times",
        ),
        (lambda h, ln: h + ln.rsplit(" | ", 1)[0], 2, "expected 2 seat(s) and the stock"),
    ],
)
def test_a_bad_file_is_refused_naming_the_line_and_nothing_is_written(tmp_path, edit, line, what):
    rs = preset("duel")
    f = tmp_path / "bad.txt"
    f.write_text(edit(GOOD, _line(rs)) + "\n")
    with pytest.raises(D.DealsError) as e:
        D.read(f, rs, 2)
    assert f"{f} line {line}" in str(e.value) and what in str(e.value)
    out = tmp_path / "run"
    r = invoke(
        "tournament",
        "--rules",
        "duel",
        "--players",
        "2",
        "--strategies",
        "greedy,random",
        "--deals",
        str(f),
        "--out",
        str(out),
        "--quiet",
    )
    assert r.exit_code == 2, r.output
    assert f"line {line}" in r.output and what in r.output and "--deals" in r.output
    assert "Traceback" not in r.output and not out.exists()


def test_a_file_without_deals_is_refused(tmp_path):
    f = tmp_path / "empty.txt"
    f.write_text(GOOD)
    with pytest.raises(D.DealsError, match="no deal lines"):
        D.read(f, preset("duel"), 2)


# ------------------------------------------------------------------ runs on given deals
def _summary(out: Path) -> str:
    return (out / "summary.csv").read_text()


def test_a_tournament_on_the_exported_deals_of_a_seed_plays_the_games_of_that_seed(tmp_path):
    """Two entries at two seats: one table, so deal index d plays line d; the given decks
    then reproduce the seeded run exactly (every figure), whatever the chunking. Both
    strategies are deterministic and duel's first player is the dealer's left, so the seed
    decides nothing but the deals: under another seed the file still plays seed 7's games."""
    f = tmp_path / "d.txt"
    export(f, "--rules", "duel", "--players", "2", "--count", "40", "--seed", "7")
    base = [
        "tournament",
        "--rules",
        "duel",
        "--players",
        "2",
        "--strategies",
        "greedy,heuristic",
        "--quiet",
        "--workers",
        "1",
        "--no-plots",
    ]
    r = invoke(*base, "--games", "80", "--seed", "7", "--out", str(tmp_path / "seeded"))
    assert r.exit_code == 0, r.output
    r = invoke(*base, "--deals", str(f), "--seed", "7", "--out", str(tmp_path / "given"))
    assert r.exit_code == 0, r.output
    r = invoke(
        *base,
        "--deals",
        str(f),
        "--seed",
        "7",
        "--chunk-size",
        "6",
        "--out",
        str(tmp_path / "chunked"),
    )
    assert r.exit_code == 0, r.output
    r = invoke(*base, "--deals", str(f), "--seed", "8", "--out", str(tmp_path / "other_seed"))
    assert r.exit_code == 0, r.output
    r = invoke(*base, "--games", "80", "--seed", "8", "--out", str(tmp_path / "seed8"))
    assert r.exit_code == 0, r.output
    assert (
        _summary(tmp_path / "seeded")
        == _summary(tmp_path / "given")
        == _summary(tmp_path / "chunked")
    )
    assert (
        _summary(tmp_path / "other_seed")
        == _summary(tmp_path / "seeded")
        != _summary(tmp_path / "seed8")
    )
    spec = json.loads((tmp_path / "given" / "spec.json").read_text())
    assert (
        spec["games"] == 80
        and spec["deals"] == str(f.resolve())
        and len(spec["deals_sha256"]) == 64
    )


def test_resume_keeps_the_deal_set_and_refuses_another(tmp_path):
    f, g = tmp_path / "d.txt", tmp_path / "e.txt"
    export(f, "--rules", "duel", "--players", "2", "--count", "12", "--seed", "1")
    export(g, "--rules", "duel", "--players", "2", "--count", "12", "--seed", "2")
    out = tmp_path / "run"
    base = [
        "tournament",
        "--rules",
        "duel",
        "--players",
        "2",
        "--strategies",
        "greedy,random",
        "--quiet",
        "--workers",
        "1",
    ]
    r = invoke(
        *base, "--deals", str(f), "--chunk-size", "4", "--stop-after", "2", "--out", str(out)
    )
    assert r.exit_code == 130, r.output
    r = invoke("tournament", "--resume", str(out), "--deals", str(g), "--quiet")
    assert r.exit_code == 2 and "deals" in r.output, r.output
    r = invoke("tournament", "--resume", str(out), "--deals", str(f), "--quiet", "--workers", "1")
    assert r.exit_code == 0, r.output
    whole = tmp_path / "whole"
    r = invoke(*base, "--deals", str(f), "--chunk-size", "4", "--out", str(whole))
    assert _summary(out) == _summary(whole)
    f.write_text(f.read_text() + "# edited\n")  # the file the run played changed: refused
    r = invoke("tournament", "--resume", str(out), "--quiet")
    assert r.exit_code == 2 and "changed since the run started" in r.output, r.output


def test_export_from_a_run_lost_by_an_entry(tmp_path):
    """--lost-by keeps exactly the deals on which that entry was last in every rotation
    (counted here game by game from the run's records), as the run dealt them."""
    import pandas as pd

    from shedsim.analysis.deal_sets import deal_of
    from shedsim.analysis.tournament import Store, spec_from_store

    out = tmp_path / "run"
    r = invoke(
        "tournament",
        "--rules",
        "duel",
        "--players",
        "2",
        "--strategies",
        "greedy,heuristic",
        "--games",
        "60",
        "--seed",
        "3",
        "--save-games",
        "--quiet",
        "--workers",
        "1",
        "--no-plots",
        "--out",
        str(out),
    )
    assert r.exit_code == 0, r.output
    lost = tmp_path / "lost.txt"
    export(lost, "--from-run", str(out), "--lost-by", "greedy")
    ds = D.read(lost, preset("duel"), 2)
    games = pd.concat([pd.read_parquet(f) for f in sorted((out / "games").glob("*.parquet"))])
    by_deal: dict[int, list[bool]] = {}
    for row in games.itertuples():
        seat = 0 if row.entry_0 == 0 else 1
        by_deal.setdefault(row.deal, []).append(getattr(row, f"place_{seat}") == 2)
    want = sorted(d for d, v in by_deal.items() if all(v))
    assert 0 < len(want) < 30
    spec = spec_from_store(Store(out))
    assert list(ds.deals) == [deal_of(spec, d) for d in want]
    again = tmp_path / "again"
    r = invoke(
        "tournament",
        "--rules",
        "duel",
        "--players",
        "2",
        "--strategies",
        "greedy,heuristic",
        "--deals",
        str(lost),
        "--quiet",
        "--workers",
        "1",
        "--no-plots",
        "--out",
        str(again),
    )
    assert r.exit_code == 0, r.output
    r = invoke(
        "deals",
        "export",
        "--out",
        str(tmp_path / "x.txt"),
        "--from-run",
        str(again),
        "--lost-by",
        "greedy",
    )
    assert r.exit_code == 2 and "--save-games" in r.output and not (tmp_path / "x.txt").exists()
    r = invoke(
        "deals",
        "export",
        "--out",
        str(tmp_path / "x.txt"),
        "--from-run",
        str(out),
        "--lost-by",
        "nobody",
    )
    assert r.exit_code == 2 and "--lost-by" in r.output


def test_sprt_on_a_deal_set_plays_those_deals_and_resumes(tmp_path):
    """sprt --deals: at most every deal once, each under both rotations; paired with the
    seed's own deals the test sees the very games of the seeded test (deterministic
    strategies, duel's dealer-left start); resume refuses another file."""
    f = tmp_path / "d.txt"
    export(f, "--rules", "duel", "--players", "2", "--count", "60", "--seed", "5")
    base = [
        "sprt",
        "--rules",
        "duel",
        "--a",
        "heuristic",
        "--b",
        "greedy",
        "--batch",
        "20",
        "--min-games",
        "120",
        "--quiet",
        "--no-plots",
        "--workers",
        "1",
    ]
    r = invoke(*base, "--deals", str(f), "--seed", "9", "--out", str(tmp_path / "given"))
    assert r.exit_code == 0, r.output
    r = invoke(*base, "--max-games", "120", "--seed", "5", "--out", str(tmp_path / "seeded"))
    assert r.exit_code == 0, r.output
    given = json.loads((tmp_path / "given" / "run.json").read_text())
    seeded = json.loads((tmp_path / "seeded" / "run.json").read_text())
    assert given["result"]["games"] == seeded["result"]["games"] == 120
    assert given["result"]["score"] == seeded["result"]["score"]
    r = invoke(*base, "--deals", str(f), "--max-games", "50", "--out", str(tmp_path / "x"))
    assert r.exit_code == 2 and "--max-games" in r.output and not (tmp_path / "x").exists()
    out = tmp_path / "part"
    r = invoke(*base, "--deals", str(f), "--stop-after", "1", "--out", str(out))
    assert r.exit_code == 130, r.output
    g = tmp_path / "e.txt"
    export(g, "--rules", "duel", "--players", "2", "--count", "60", "--seed", "6")
    r = invoke("sprt", "--resume", str(out), "--deals", str(g), "--quiet")
    assert r.exit_code == 2 and "deals" in r.output, r.output
    r = invoke("sprt", "--resume", str(out), "--quiet", "--workers", "1")
    assert r.exit_code == 0, r.output


def test_gauntlet_on_a_deal_set(tmp_path):
    """gauntlet --deals plays the file's deals under every rotation: with deterministic
    strategies the seed no longer matters, and a bad file is refused naming its line."""
    f = tmp_path / "d.txt"
    export(f, "--rules", "duel", "--players", "2", "--count", "30", "--seed", "5")
    base = [
        "gauntlet",
        "--rules",
        "duel",
        "--candidate",
        "heuristic",
        "--opponents",
        "greedy,aggressive",
    ]
    outs = []
    for seed, extra in (
        ("5", ["--games", "60"]),
        ("9", ["--deals", str(f)]),
        ("5", ["--deals", str(f)]),
    ):
        csv = tmp_path / f"g{len(outs)}.csv"
        r = invoke(*base, "--seed", seed, *extra, "--csv", str(csv))
        assert r.exit_code == 0, r.output
        outs.append(csv.read_text())
    assert outs[0] == outs[1] == outs[2] and "60" in outs[0]
    f.write_text(f.read_text().replace("down=", "down=Q,", 1))
    r = invoke(*base, "--deals", str(f))
    assert r.exit_code == 2 and "line 4" in r.output and "down= has 4 card(s)" in r.output


def test_gauntlet_on_a_deal_set_stores_it_and_resumes(tmp_path):
    """gauntlet --deals on the run driver: the file and its sha256 in spec.json, --games
    refused beside it, --resume refuses another deal set, and an interrupted run resumed on
    two workers gives the table of an uninterrupted run on one."""
    f, g = tmp_path / "d.txt", tmp_path / "e.txt"
    export(f, "--rules", "duel", "--players", "2", "--count", "30", "--seed", "5")
    export(g, "--rules", "duel", "--players", "2", "--count", "30", "--seed", "6")
    base = [
        "gauntlet",
        "--rules",
        "duel",
        "--candidate",
        "heuristic",
        "--opponents",
        "greedy,random",
        "--batch",
        "20",
        "--quiet",
        "--no-plots",
    ]
    r = invoke(*base, "--deals", str(f), "--games", "60", "--out", str(tmp_path / "x"))
    assert r.exit_code == 2 and "--games" in r.output and not (tmp_path / "x").exists()
    whole = tmp_path / "whole"
    r = invoke(*base, "--deals", str(f), "--workers", "1", "--out", str(whole))
    assert r.exit_code == 0, r.output
    part = tmp_path / "part"
    r = invoke(*base, "--deals", str(f), "--workers", "1", "--stop-after", "1", "--out", str(part))
    assert r.exit_code == 130, r.output
    spec = json.loads((part / "spec.json").read_text())
    assert spec["deals"] == str(f.resolve()) and spec["deals_sha256"] == D.file_sha256(f)
    r = invoke("gauntlet", "--resume", str(part), "--deals", str(g), "--quiet")
    assert r.exit_code == 2 and "--deals" in r.output and "another deal set" in r.output, r.output
    r = invoke("gauntlet", "--resume", str(part), "--quiet", "--no-plots", "--workers", "2")
    assert r.exit_code == 0, r.output
    assert (part / "gauntlet.csv").read_bytes() == (whole / "gauntlet.csv").read_bytes()


def test_a_bot_plays_the_given_deals_too(tmp_path):
    """Games that seat a bot run on the reference engine: they deal the file's cards as the
    kernel does (a bot that plays its first legal move and greedy are deterministic)."""
    import bots

    f = tmp_path / "d.txt"
    export(f, "--rules", "duel", "--players", "2", "--count", "6", "--seed", "5")
    base = [
        "tournament",
        "--rules",
        "duel",
        "--players",
        "2",
        "--strategies",
        "greedy",
        "--bot",
        "b=" + bots.command(tmp_path, "first"),
        "--quiet",
        "--no-plots",
        "--workers",
        "1",
    ]
    r = invoke(*base, "--games", "12", "--seed", "5", "--out", str(tmp_path / "seeded"))
    assert r.exit_code == 0, r.output
    r = invoke(*base, "--deals", str(f), "--seed", "9", "--out", str(tmp_path / "given"))
    assert r.exit_code == 0, r.output
    assert _summary(tmp_path / "seeded") == _summary(tmp_path / "given")


def test_the_replay_command_of_a_game_on_a_deal_set_deals_it_from_the_file(tmp_path):
    """The trace command a failed game's message prints names the deal set; run, it tells
    the game trace --from tells (without --deals it would deal the seed's cards)."""
    import shlex

    from shedsim.analysis.tournament import Store, spec_from_store
    from shedsim.runs.simulate import replay_command

    f = tmp_path / "d.txt"
    export(f, "--rules", "duel", "--players", "2", "--count", "3", "--seed", "2")
    run = tmp_path / "run"
    r = invoke(
        "tournament",
        "--rules",
        "duel",
        "--players",
        "2",
        "--strategies",
        "greedy,heuristic",
        "--deals",
        str(f),
        "--seed",
        "8",
        "--quiet",
        "--no-plots",
        "--workers",
        "1",
        "--out",
        str(run),
    )
    assert r.exit_code == 0, r.output
    command = replay_command(spec_from_store(Store(run)).run_spec(), 3)
    assert "--deals" in command
    told = invoke(*shlex.split(command)[1:])
    assert told.exit_code == 0, told.output
    direct = invoke("trace", "--from", str(run), "--game", "3")
    assert told.output.splitlines()[1:] == direct.output.splitlines()[1:]
    seeded = invoke(
        *[a for a in shlex.split(command)[1:] if a not in ("--deals", str(f.resolve()))]
    )
    assert seeded.output.splitlines()[1:] != direct.output.splitlines()[1:]


def test_the_replay_command_of_a_head_to_head_game_on_a_deal_set_names_it(tmp_path):
    """sprt's and gauntlet's matches keep the deal set's file: the trace command of one of
    their games deals it from the file (before, they printed no trace command)."""
    import shlex

    from shedsim.analysis.matches import cached_match
    from shedsim.runs.simulate import replay_command

    f = tmp_path / "d.txt"
    export(f, "--rules", "duel", "--players", "2", "--count", "3", "--seed", "2")
    rs = preset("duel")
    ds = D.read(f, rs, 2)
    match = cached_match(
        "greedy",
        "heuristic",
        rs,
        2,
        8,
        (),
        owner="test-replay",
        stream=1,
        deals=ds.deals,
        deals_path=ds.path,
    )
    command = replay_command(match.spec, 3)
    assert command is not None and "--deals" in command and "--stream" in command
    told = invoke(*shlex.split(command)[1:])
    assert told.exit_code == 0, told.output
    seeded = invoke(*[a for a in shlex.split(command)[1:] if a not in ("--deals", ds.path)])
    assert seeded.exit_code == 0 and seeded.output.splitlines()[1:] != told.output.splitlines()[1:]
