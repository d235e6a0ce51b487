"""The Python API (:mod:`shedsim.api`): its docstring examples run; each function's tables
are the CSVs the command writes for the same options and seed; nothing is written without
``out=``; ``import shedsim`` stays cheap; the sequential test and the storeless studies give
the same results for any number of workers.

The command-line runs compared are the session's ``every_run`` fixture (``tests/every_command.py``),
shared with the report and chart tests.
"""

from __future__ import annotations

import doctest
import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import shedsim
from shedsim import api
from shedsim.analysis.tournament import format_frame

ROOT = Path(__file__).resolve().parent.parent


def same_table(df: pd.DataFrame, csv: Path, columns: list[str] | None = None) -> None:
    """``df`` (an API table), written as the command writes its CSVs and read back, equals
    the command's ``csv`` (p-values there in e-notation, so compared to 1e-6); only
    ``columns`` when given."""
    ours = pd.read_csv(io.StringIO(format_frame(df).to_csv(index=False, lineterminator="\n")))
    theirs = pd.read_csv(csv)
    if columns is not None:
        ours, theirs = ours[columns], theirs[columns]
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False, rtol=1e-4, atol=1e-6)


def test_the_docstring_examples_run(tmp_path, monkeypatch):
    """Every example of :mod:`shedsim.api` runs and prints what it says; nothing is
    written where they run (no ``out=``)."""
    monkeypatch.chdir(tmp_path)
    found = doctest.testmod(api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert found.attempted >= 10 and found.failed == 0
    assert list(tmp_path.iterdir()) == []


# the every_run command lines (tests/every_command.py), as API calls
CALLS = {
    "tournament": (
        lambda: shedsim.tournament(
            ["random", "greedy"],
            players=4,
            games=480,
            rules="nines",
            house=["stall:40"],
            rounds=2,
            workers=1,
        ),
        {
            "summary": "summary.csv",
            "head_to_head": "head_to_head.csv",
            "seats": "seats.csv",
            "lengths": "lengths.csv",
            "matches": "matches.csv",
        },
    ),
    "compare-rules": (
        lambda: shedsim.compare_rules(
            ["shithead", "nines"], players=3, games=300, strategies=["random", "greedy"], workers=1
        ),
        {"variants": "variants.csv", "effects": "effects.csv", "lengths": "lengths.csv"},
    ),
    "swaps": (
        lambda: shedsim.swaps(players=3, games=300, deals=2, rollouts=2, min_games=5, workers=1),
        {
            "by_rank": "by_rank.csv",
            "face_up_values": "face_up_values.csv",
            "policies": "policies.csv",
            "policies_head_to_head": "policies_head_to_head.csv",
            "regret": "regret.csv",
        },
    ),
    "sprt": (lambda: shedsim.sprt("greedy", "random", max_games=400), {"path": "sprt.csv"}),
    "pairing": (
        lambda: shedsim.sprt("greedy", "random", compare_pairing=True, games=200),
        {"pairing": "pairing.csv"},
    ),
    "tips": (
        lambda: shedsim.tips(["shithead"], [2], games=100, tip=["save_specials"]),
        {"tips": "tips.csv"},
    ),
    "tune": (
        lambda: shedsim.tune(budget=2, games=100, confirm_games=100, param=["track=0:50"]),
        {},
    ),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_tables_are_the_csvs_the_command_writes(name, every_run):
    call, tables = CALLS[name]
    r = call()
    assert r.out is None and r.complete
    for attr, csv in tables.items():
        same_table(getattr(r, attr), every_run / name / csv)
    if name == "tune":  # the seconds of each trial are the only column that may differ
        trials = every_run / name / "trials.csv"
        same_table(r.trials, trials, [c for c in pd.read_csv(trials).columns if c != "seconds"])
    assert r.headline == json.loads((every_run / name / "run.json").read_text()).get("headline", [])


def test_the_readme_example_prints_summary_csv(tmp_path):
    """The example of the README and the docs prints the table that ``shedsim tournament``
    writes as summary.csv for the same options."""
    from typer.testing import CliRunner

    from shedsim.cli import app

    code = (
        "import shedsim; r = shedsim.tournament(strategies=['greedy', 'random'], players=2, "
        "games=2000, seed=1); "
        "print(r.summary)"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written without out=
    out = tmp_path / "run"
    r = CliRunner().invoke(
        app,
        [
            "tournament",
            "-S",
            "greedy,random",
            "-p",
            "2",
            "--games",
            "2000",
            "--seed",
            "1",
            "--out",
            str(out),
            "--quiet",
            "--no-plots",
        ],
    )
    assert r.exit_code == 0, r.output
    assert p.stdout == str(pd.read_csv(out / "summary.csv")) + "\n"
    api_r = shedsim.tournament(strategies=["greedy", "random"], players=2, games=2000, seed=1)
    same_table(api_r.summary, out / "summary.csv")


def test_out_writes_what_the_command_writes(tmp_path):
    r = shedsim.tournament(
        ["greedy", "random"], players=2, games=96, seed=1, out=tmp_path / "t", no_plots=True
    )
    assert r.out == tmp_path / "t"
    names = {p.name for p in (tmp_path / "t").iterdir()}
    assert {
        "summary.csv",
        "head_to_head.csv",
        "seats.csv",
        "lengths.csv",
        "run.json",
        "spec.json",
    } <= names
    same_table(r.summary, tmp_path / "t" / "summary.csv")


def test_import_shedsim_is_cheap():
    """``import shedsim`` loads neither numba nor pandas (nor the API); the API loads on
    first use."""
    code = (
        "import sys, shedsim; heavy = [m for m in ('numba', 'pandas', 'matplotlib', 'shedsim.api') "
        "if m in sys.modules]; print(heavy); shedsim.tournament; print('shedsim.api' in "
        "sys.modules)"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["[]", "True"]


def test_a_problem_names_the_parameter():
    with pytest.raises(shedsim.StudyError) as e:
        shedsim.tournament(["greedy", "random"], players=2, games=0)
    assert e.value.field == "games" and e.value.code == 2
    with pytest.raises(shedsim.StudyError) as e:
        shedsim.tournament(["greedy", "random"], players=2, games=96, wokers=2)
    assert e.value.field == "wokers"
    with pytest.raises(shedsim.StudyError) as e:
        shedsim.hint(shedsim.Position(seats=[{"hand": ["Z"]}, {"hand": ["3"]}]))
    assert e.value.field == "position" and "seats.0.hand" in str(e.value)


def test_a_position_built_in_code_is_the_file_it_is_read_from(tmp_path):
    f = tmp_path / "pos.toml"
    f.write_text(
        'rules = "family"\npile = ["7"]\nburned = 40\n'
        '[[seats]]\nhand = ["K", "4"]\nface_up = ["8"]\nface_down = ["6"]\n'
        '[[seats]]\nhand = ["9"]\nface_up = ["3"]\nface_down = ["A"]\n'
    )
    built = shedsim.Position(
        seats=[
            {"hand": ["K", "4"], "face_up": ["8"], "face_down": ["6"]},
            {"hand": ["9"], "face_up": ["3"], "face_down": ["A"]},
        ],
        pile=["7"],
        burned=40,
        rules="family",
    )
    a = shedsim.hint(built, policy="greedy", budget=40, seed=3)
    b = shedsim.hint(shedsim.Position.read(f), policy="greedy", budget=40, seed=3)
    pd.testing.assert_frame_equal(a.moves, b.moves)
    c = shedsim.hint(f, policy="greedy", budget=40, seed=3)
    pd.testing.assert_frame_equal(a.moves, c.moves)


def test_sprt_decides_the_same_on_any_number_of_workers():
    """The batches played ahead on a second worker are discarded, never fed to the test:
    the decision, the games, the LLR and its whole path are those of one worker."""
    kw = dict(players=3, seed=1, batch=100, max_games=3000)
    one = shedsim.sprt("greedy", "heuristic", workers=1, **kw)
    two = shedsim.sprt("greedy", "heuristic", workers=2, **kw)
    assert two.decision == one.decision and one.decision in ("H0", "H1")
    assert (two.result.games, two.result.llr, two.result.score) == (
        one.result.games,
        one.result.llr,
        one.result.score,
    )
    assert (
        one.result.games < 3000
    )  # decided before the bound: later batches were played ahead, or not at all
    pd.testing.assert_frame_equal(one.path, two.path)


def test_tips_and_tune_give_the_same_results_on_any_number_of_workers():
    kw = dict(games=120, tip=["save_specials", "pass_on_nine"])
    one, two = (shedsim.tips(["shithead"], [2], workers=w, **kw) for w in (1, 2))
    pd.testing.assert_frame_equal(one.tips, two.tips)
    kw = dict(budget=2, games=100, confirm_games=100, param=["track=0:50"])
    one, two = (shedsim.tune(workers=w, **kw) for w in (1, 2))
    cols = [c for c in one.trials.columns if c != "seconds"]
    pd.testing.assert_frame_equal(one.trials[cols], two.trials[cols])
    assert one.best == two.best and one.best_spec == two.best_spec
    assert one.confirmation == two.confirmation and one.confirmation is not None
